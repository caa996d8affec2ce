//! Failures a transfer can meet when it has to wait (no descriptor for the
//! socket's duplicate, no memory for the poll handle, a Node-API call that
//! fails), injected on demand by the `testing` build so the tests can reach
//! each one; in a shipped binary `check` is always Ok and compiles away.

pub const DUP: u32 = 1;
pub const POLL_INIT: u32 = 2;
pub const NAPI: u32 = 4;
pub const POLL_START: u32 = 8;

#[cfg(feature = "testing")]
thread_local! {
    // The point armed to fail next on this thread, and its errno.
    static ARMED: std::cell::Cell<(u32, i32)> = const { std::cell::Cell::new((0, 0)) };
}

/// Err(errno) once if the testing build armed `point`.
#[cfg(feature = "testing")]
pub fn check(point: u32) -> Result<(), i32> {
    ARMED.with(|a| {
        let (armed, errno) = a.get();
        if armed == point {
            a.set((0, 0));
            Err(errno)
        } else {
            Ok(())
        }
    })
}

#[cfg(not(feature = "testing"))]
#[inline(always)]
pub fn check(_point: u32) -> Result<(), i32> {
    Ok(())
}

/// Test hook: the next transfer that reaches `point` (DUP 1, POLL_INIT 2,
/// NAPI 4, POLL_START 8) fails there with `errno`.
#[cfg(feature = "testing")]
#[napi(js_name = "__failNextForTesting")]
pub fn fail_next(point: u32, errno: i32) {
    ARMED.with(|a| a.set((point, errno)));
}
