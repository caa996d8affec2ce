//! Calls a JS function where libuv delivers fs completions: in a later poll
//! phase of the event loop, through a `uv_async_t` of this thread's loop, one
//! callback scope per call (nextTick queue and microtasks drained after each,
//! as after each fs callback).
//!
//! The file path closes a sent file's descriptor at once (`fs.closeSync`)
//! and runs the stream's close callback from here, instead of sending the
//! close through the libuv threadpool: that round trip costs a worker wakeup
//! and its context switches per file, while the callback timing stays the
//! earliest one stock can have (a worker that closed at once).
//!
//! The JS side keeps the queue. `schedulePollTurn()` asks for a turn, keeps
//! the loop alive and returns the loop's poll count now; in the turn the
//! registered function is called with the poll count of that turn, then with
//! -1 while it returns `> 0`. An entry is due in a turn whose count is past
//! its own: an async handle signalled during a poll phase can run in that
//! same phase, where a threadpool completion of work submitted in it does
//! not (the worker is woken, the loop is not). `endPollTurns()` lets the
//! loop exit again once the queue is empty.

use super::{call_js, check, free_handle, uv, Called};
use napi::bindgen_prelude::Function;
use napi::{sys, Env, JsValue, Result};
use std::cell::Cell;
use std::ffi::c_void;
use std::ptr;

/// This thread's turn handle and the function it calls.
#[derive(Clone, Copy)]
struct Turn {
    /// `uv_async_t` storage (malloc'd, freed after uv_close).
    handle: *mut c_void,
    lp: *mut c_void,
    env: sys::napi_env,
    callback: sys::napi_ref,
    context: sys::napi_async_context,
}

thread_local! {
    static TURN: Cell<Option<Turn>> = const { Cell::new(None) };
}

/// Registers this env's poll-turn function (once per thread; later calls
/// replace nothing and return true). False when libuv is not available.
#[napi(js_name = "setPollTurnCallback", catch_unwind)]
pub fn set_poll_turn_callback(env: Env, callback: Function<'_, f64, i32>) -> Result<bool> {
    if TURN.with(|t| t.get()).is_some() {
        return Ok(true);
    }
    let Some(uv) = uv::uv() else { return Ok(false) };
    let raw_env = env.raw();
    let lp = env.get_uv_event_loop()? as *mut c_void;
    // SAFETY: malloc of the size libuv reports for a uv_async_t; checked for null.
    let handle = unsafe { libc::malloc(uv.async_size) };
    if handle.is_null() {
        return Err(napi::Error::new(napi::Status::GenericFailure, "out of memory"));
    }
    // SAFETY: `handle` is uv_async_t-sized storage and `lp` is this thread's loop.
    if unsafe { (uv.async_init)(lp, handle, on_turn) } != 0 {
        // SAFETY: uv_async_init failed, so libuv holds no reference to it.
        unsafe { libc::free(handle) };
        return Ok(false);
    }
    // SAFETY: an initialised handle; unreferenced until something is queued.
    unsafe { (uv.unref_handle)(handle) };
    let mut cb_ref = ptr::null_mut();
    let mut context = ptr::null_mut();
    // SAFETY: plain Node-API calls on the current env with values of this call.
    unsafe {
        check(sys::napi_create_reference(raw_env, callback.raw(), 1, &mut cb_ref))?;
        let mut resource = ptr::null_mut();
        check(sys::napi_create_object(raw_env, &mut resource))?;
        let mut name = ptr::null_mut();
        check(sys::napi_create_string_utf8(raw_env, c"HttpFastpathPollTurn".as_ptr(), usize::MAX as isize, &mut name))?;
        check(sys::napi_async_init(raw_env, resource, name, &mut context))?;
        sys::napi_add_env_cleanup_hook(raw_env, Some(close_turn), ptr::null_mut());
    }
    TURN.with(|t| t.set(Some(Turn { handle, lp, env: raw_env, callback: cb_ref, context })));
    Ok(true)
}

/// Asks for a turn of the registered function in a coming poll phase, keeps
/// the loop alive until `endPollTurns()`, and returns the loop's poll count
/// now (-1 if no function is registered).
#[napi(js_name = "schedulePollTurn")]
pub fn schedule_poll_turn() -> f64 {
    let (Some(turn), Some(uv)) = (TURN.with(|t| t.get()), uv::uv()) else { return -1.0 };
    // SAFETY: the handle is initialised and open until the env's cleanup hook;
    // uv_async_send of an already signalled handle only checks a flag.
    unsafe {
        (uv.ref_handle)(turn.handle);
        (uv.async_send)(turn.handle);
    }
    uv::loop_count(uv, turn.lp).unwrap_or(0) as f64
}

/// Stops keeping the loop alive (nothing is queued).
#[napi(js_name = "endPollTurns")]
pub fn end_poll_turns() {
    let (Some(turn), Some(uv)) = (TURN.with(|t| t.get()), uv::uv()) else { return };
    // SAFETY: the handle is initialised and open until the env's cleanup hook.
    unsafe { (uv.unref_handle)(turn.handle) };
}

/// One call of the registered function; returns its result (1 after a
/// throw: ask again, the JS side moved past the throwing entry).
fn call(turn: &Turn, count: f64) -> i32 {
    let arg = || {
        let mut arg = ptr::null_mut();
        // SAFETY: value creation on the env, inside call_js's handle scope.
        unsafe { sys::napi_create_double(turn.env, count, &mut arg) };
        [arg]
    };
    let read = |result| {
        let mut left = 1;
        // SAFETY: `result` is the live return value, read inside the scope.
        unsafe { sys::napi_get_value_int32(turn.env, result, &mut left) };
        left
    };
    match call_js(turn.env, turn.callback, turn.context, arg, read) {
        Called::Returned(left) => left,
        Called::Threw => 1,
        Called::Failed => -1,
    }
}

unsafe extern "C" fn on_turn(_handle: *mut c_void) {
    let (Some(turn), Some(uv)) = (TURN.with(|t| t.get()), uv::uv()) else { return };
    // Without a count every queued entry is due (never stuck in the queue).
    let mut count = uv::loop_count(uv, turn.lp).map_or(f64::MAX, |c| c as f64);
    while call(&turn, count) > 0 {
        count = -1.0;
    }
}

/// Env teardown: close the handle so the loop can close; no JS runs any more
/// (the env releases its reference and async context itself).
unsafe extern "C" fn close_turn(_arg: *mut c_void) {
    let Some(turn) = TURN.with(|t| t.take()) else { return };
    if let Some(uv) = uv::uv() {
        // SAFETY: the handle is open; libuv frees it only through free_handle
        // after uv_close, and never calls on_turn after uv_close.
        unsafe { (uv.close)(turn.handle, Some(free_handle)) };
    }
}
