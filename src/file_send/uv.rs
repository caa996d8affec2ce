//! The few libuv functions the file path needs, looked up in the host process
//! (Node exports its libuv) when first used rather than linked, so the addon
//! still loads, with the file path reported off, in a host that lacks them.

use std::ffi::{c_int, c_void, CStr};
use std::sync::OnceLock;

pub type PollCb = unsafe extern "C" fn(handle: *mut c_void, status: c_int, events: c_int);
pub type CloseCb = unsafe extern "C" fn(handle: *mut c_void);
pub type AsyncCb = unsafe extern "C" fn(handle: *mut c_void);

/// libuv's `UV_ASYNC` and `UV_POLL` handle types and `UV_WRITABLE` event
/// (stable since 1.0).
const UV_ASYNC: c_int = 1;
const UV_POLL: c_int = 8;
pub const UV_WRITABLE: c_int = 2;

type PollInit = unsafe extern "C" fn(lp: *mut c_void, handle: *mut c_void, fd: c_int) -> c_int;
type PollStart = unsafe extern "C" fn(handle: *mut c_void, events: c_int, cb: PollCb) -> c_int;
type AsyncInit = unsafe extern "C" fn(lp: *mut c_void, handle: *mut c_void, cb: AsyncCb) -> c_int;
type AsyncSend = unsafe extern "C" fn(handle: *mut c_void) -> c_int;
type Ref = unsafe extern "C" fn(handle: *mut c_void);
type MetricsInfo = unsafe extern "C" fn(lp: *mut c_void, metrics: *mut u64) -> c_int;
type Close = unsafe extern "C" fn(handle: *mut c_void, cb: Option<CloseCb>);
type SetData = unsafe extern "C" fn(handle: *mut c_void, data: *mut c_void);
type GetData = unsafe extern "C" fn(handle: *const c_void) -> *mut c_void;
type HandleSize = unsafe extern "C" fn(kind: c_int) -> usize;

pub struct Uv {
    pub poll_init: PollInit,
    pub poll_start: PollStart,
    pub async_init: AsyncInit,
    pub async_send: AsyncSend,
    pub ref_handle: Ref,
    pub unref_handle: Ref,
    pub metrics_info: MetricsInfo,
    pub close: Close,
    pub handle_set_data: SetData,
    pub handle_get_data: GetData,
    /// Bytes in a `uv_poll_t` for this libuv build.
    pub poll_size: usize,
    /// Bytes in a `uv_async_t`.
    pub async_size: usize,
}

fn symbol(name: &CStr) -> Option<*mut c_void> {
    // SAFETY: dlsym with RTLD_DEFAULT only reads the loaded objects' symbol
    // tables; `name` is NUL-terminated.
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    (!p.is_null()).then_some(p)
}

fn resolve() -> Option<Uv> {
    let handle_size = symbol(c"uv_handle_size")?;
    // SAFETY (all transmutes below): each pointer is the address of the libuv
    // function of that name, whose C signature the field's type spells out
    // (uv.h, unchanged since libuv 1.19, uv_metrics_info since 1.45; Node 20
    // ships 1.46+).
    unsafe {
        let handle_size = std::mem::transmute::<*mut c_void, HandleSize>(handle_size);
        Some(Uv {
            poll_init: std::mem::transmute::<*mut c_void, PollInit>(symbol(c"uv_poll_init")?),
            poll_start: std::mem::transmute::<*mut c_void, PollStart>(symbol(c"uv_poll_start")?),
            async_init: std::mem::transmute::<*mut c_void, AsyncInit>(symbol(c"uv_async_init")?),
            async_send: std::mem::transmute::<*mut c_void, AsyncSend>(symbol(c"uv_async_send")?),
            ref_handle: std::mem::transmute::<*mut c_void, Ref>(symbol(c"uv_ref")?),
            unref_handle: std::mem::transmute::<*mut c_void, Ref>(symbol(c"uv_unref")?),
            metrics_info: std::mem::transmute::<*mut c_void, MetricsInfo>(symbol(c"uv_metrics_info")?),
            close: std::mem::transmute::<*mut c_void, Close>(symbol(c"uv_close")?),
            handle_set_data: std::mem::transmute::<*mut c_void, SetData>(symbol(c"uv_handle_set_data")?),
            handle_get_data: std::mem::transmute::<*mut c_void, GetData>(symbol(c"uv_handle_get_data")?),
            poll_size: handle_size(UV_POLL),
            async_size: handle_size(UV_ASYNC),
        })
    }
}

/// libuv, when the host process exports it.
pub fn uv() -> Option<&'static Uv> {
    static UV: OnceLock<Option<Uv>> = OnceLock::new();
    UV.get_or_init(resolve).as_ref()
}

/// How many times the loop has entered its poll phase (`uv_metrics_t`'s
/// `loop_count`, its first field), if libuv can say.
pub fn loop_count(uv: &Uv, lp: *mut c_void) -> Option<u64> {
    // uv_metrics_t is 3 u64 and 13 reserved pointers: 128 bytes on 64-bit
    // targets; this buffer is larger on every target.
    let mut metrics = [0u64; 32];
    // SAFETY: `lp` is a live loop and `metrics` outsizes uv_metrics_t.
    let rc = unsafe { (uv.metrics_info)(lp, metrics.as_mut_ptr()) };
    (rc == 0).then_some(metrics[0])
}
