//! The one process-wide setting the package can make: glibc malloc's mmap
//! and trim thresholds. By default glibc returns freed memory to the kernel
//! past 128 KiB (at the top of an arena, or a chunk that large), so the state
//! of each compressed response's codec, allocated on a libuv pool thread, is
//! given back when its stream ends and page-faulted in again by the next
//! response. Larger fixed thresholds keep it resident. The JS side decides
//! whether to call this (lib/setup/allocator.js: never over the operator's own
//! MALLOC_* or GLIBC_TUNABLES, off with HTTP_FASTPATH_MALLOC=0).

/// Sets M_MMAP_THRESHOLD and M_TRIM_THRESHOLD (bytes). Returns whether glibc
/// took both; false where the C library is not glibc.
#[napi(js_name = "tuneAllocator")]
pub fn tune_allocator(mmap_threshold: u32, trim_threshold: u32) -> bool {
    set_thresholds(mmap_threshold, trim_threshold)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn set_thresholds(mmap_threshold: u32, trim_threshold: u32) -> bool {
    let (Ok(mmap), Ok(trim)) = (i32::try_from(mmap_threshold), i32::try_from(trim_threshold)) else {
        return false;
    };
    // SAFETY: mallopt only stores the parameters under malloc's own lock;
    // any thread may call it at any time.
    unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, mmap) == 1 && libc::mallopt(libc::M_TRIM_THRESHOLD, trim) == 1 }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn set_thresholds(_mmap_threshold: u32, _trim_threshold: u32) -> bool {
    false
}

/// Gives the free memory of every malloc arena back to the kernel
/// (malloc_trim(0)): what glibc's own trimming does for the loop thread's
/// arena when it keeps codec state resident between responses. Returns
/// whether any memory was released; false where the C library is not glibc.
#[napi(js_name = "trimAllocator")]
pub fn trim_allocator() -> bool {
    trim()
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim() -> bool {
    // SAFETY: malloc_trim takes malloc's own locks; any thread may call it.
    unsafe { libc::malloc_trim(0) == 1 }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() -> bool {
    false
}
