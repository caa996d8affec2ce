//! Zero-copy file responses: `sendFile` writes an HTTP head and a file range
//! to a socket from native code (send + sendfile, see `transfer`). What the
//! socket takes at once is sent during the call; the rest is sent from a
//! libuv poll handle on a duplicate of the socket's descriptor, on the event
//! loop's own thread, reporting progress to a JS callback. Nothing blocks on
//! the socket and nothing but this module writes to it until the transfer
//! ends, because the JS side hands a response over only while Node has
//! nothing queued for that socket and keeps its writes away until the
//! callback says done.

pub mod fail_point;
mod poll_turn;
mod transfer;
mod uv;

pub use poll_turn::{end_poll_turns, schedule_poll_turn, set_poll_turn_callback};
pub use transfer::{Refused, Step, Transfer, BURST_BYTES};

use napi::bindgen_prelude::{FnArgs, Float64ArraySlice, Function};
use napi::{sys, Env, JsValue, Result};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::ptr;

/// A transfer waiting for its socket to become writable.
struct Pending {
    id: u32,
    transfer: Transfer,
    /// `uv_poll_t` storage (malloc'd, freed by `free_handle` after uv_close).
    handle: *mut c_void,
    env: sys::napi_env,
    callback: sys::napi_ref,
    context: sys::napi_async_context,
    reported: u64,
    in_callback: bool,
    aborted: bool,
}

thread_local! {
    // Transfers of this thread's JS environment (main thread or one worker).
    static PENDING: RefCell<HashMap<u32, *mut Pending>> = RefCell::new(HashMap::new());
    static NEXT_ID: Cell<u32> = const { Cell::new(1) };
    static CLEANUP_HOOKED: Cell<bool> = const { Cell::new(false) };
}

/// Whether `sendFile` can run here (Linux, with libuv exported by the host).
#[napi(js_name = "sendFileSupported")]
pub fn send_file_supported() -> bool {
    cfg!(target_os = "linux") && uv::uv().is_some()
}

thread_local! {
    // The transfer prepareSendFile checked, waiting for its head (sendFile).
    static PREPARED: RefCell<Option<Transfer>> = const { RefCell::new(None) };
}

/// Checks that a file range can be sent to the socket and holds the
/// transfer for `sendFile`, which the caller makes in the same synchronous
/// call with the same descriptors still open. `position < 0` reads at
/// the file's own offset; `length < 0` or infinite sends to the end of the
/// file, which must then be `expected` bytes away unless `expected < 0`.
/// Returns 0, or a refusal (nothing is held): `-EINVAL` not a regular file
/// with a size, `-ERANGE` the length is not `expected`, `-ENOTCONN` the
/// socket has an error pending (a reset: the first syscall to meet it
/// consumes it, and that must be Node's, as in stock), `-errno` fstat/lseek
/// failed. Done before the head exists, so a refusal leaves the response
/// untouched.
#[napi(js_name = "prepareSendFile")]
pub fn prepare_send_file(sock_fd: i32, file_fd: i32, position: f64, length: f64, expected: f64) -> i32 {
    if socket_error_pending(sock_fd) {
        PREPARED.with(|p| p.borrow_mut().take());
        return -libc::ENOTCONN;
    }
    let position = (position >= 0.0).then_some(position as i64);
    let length = (length >= 0.0 && length.is_finite()).then_some(length as u64);
    let expected = (expected >= 0.0 && expected.is_finite()).then_some(expected as u64);
    let (code, prepared) = match Transfer::new(sock_fd, file_fd, position, length, expected) {
        Ok(t) => (0, Some(t)),
        Err(Refused::NotRegular) => (-libc::EINVAL, None),
        Err(Refused::LengthMismatch) => (-libc::ERANGE, None),
        Err(Refused::Os(e)) => (-e, None),
    };
    PREPARED.with(|p| *p.borrow_mut() = prepared);
    code
}

/// Whether the socket has an error waiting for its next syscall, without
/// taking it (poll only looks).
fn socket_error_pending(fd: i32) -> bool {
    let mut pfd = libc::pollfd { fd, events: libc::POLLOUT, revents: 0 };
    // SAFETY: polls one live pollfd with a zero timeout.
    let n = unsafe { libc::poll(&mut pfd, 1, 0) };
    n > 0 && pfd.revents & libc::POLLERR != 0
}

/// Drops a prepared transfer that will not be sent (its descriptors close).
#[napi(js_name = "discardSendFile")]
pub fn discard_send_file() {
    PREPARED.with(|p| p.borrow_mut().take());
}

/// Sends `head`, then the prepared file range, to the socket. Returns 0 when
/// all was sent during the call, a transfer id (> 0) when the rest will be
/// sent as the socket drains, or `-errno` on failure. `out[0]` and `out[1]`
/// receive the socket and file bytes sent during the call; `out[2]` is 1 when
/// the transfer stopped because it could not wait (`-errno` says why: no
/// descriptor to spare, no memory): the socket is fine and the caller carries
/// on with Node's own writes, first the `out[3]` bytes of `head` not sent;
/// `out[2]` is 2 when reading the file failed before anything was sent (Node's
/// own read meets the same error).
/// `onProgress(status, socketBytes, fileBytes)` (cumulative counts) is called
/// later only for a pending transfer: status 1 = progress, 0 = done,
/// `-errno` = failed, 2 = the socket has an error pending (the callback
/// returns true if Node's own handle is reading the socket and will meet it).
#[napi(js_name = "sendFile", catch_unwind)]
pub fn send_file(env: Env, head: &[u8], mut out: Float64ArraySlice<'_>, on_progress: Function<'_, FnArgs<(i32, f64, f64)>, ()>) -> Result<i32> {
    // SAFETY: the array's memory belongs to a JS value that lives for this
    // call; JS is not running while native code runs on its thread.
    let out = unsafe { out.as_mut() };
    if out.len() < 4 {
        return Err(napi::Error::new(napi::Status::InvalidArg, "out must hold 4 numbers"));
    }
    out.fill(0.0);
    let Some(mut transfer) = PREPARED.with(|p| p.borrow_mut().take()) else {
        return Err(napi::Error::new(napi::Status::GenericFailure, "sendFile without prepareSendFile"));
    };
    if let Err(e) = transfer.set_head(head) {
        out[2] = 2.0;
        return Ok(-e);
    }
    let step = transfer.pump();
    out[0] = transfer.socket_bytes as f64;
    out[1] = transfer.file_bytes as f64;
    match step {
        Step::Done => Ok(0),
        Step::Failed(e) => Ok(-e),
        Step::WouldBlock => {
            // From here on the transfer outlives this call: its own socket descriptor.
            let waiting = match transfer.own() {
                Ok(()) => wait_writable(&env, transfer, on_progress.raw()),
                Err(refused) => Err((refused, transfer)),
            };
            match waiting {
                Ok(id) => Ok(id as i32),
                Err((refused, mut transfer)) => {
                    out[2] = 1.0;
                    out[3] = transfer.give_back() as f64;
                    Ok(-match refused {
                        Refused::Os(e) => e,
                        _ => libc::EIO,
                    })
                }
            }
        }
    }
}

/// Stops a pending transfer without calling its callback (the response was
/// destroyed, or its stream). Returns whether it was still pending.
#[napi(js_name = "abortSendFile")]
pub fn abort_send_file(id: u32) -> bool {
    let Some(p) = PENDING.with(|m| m.borrow().get(&id).copied()) else {
        return false;
    };
    // SAFETY: pointers in PENDING are live Boxes owned by the registry (removed
    // before being freed), used only on this thread.
    let pending = unsafe { &mut *p };
    if pending.in_callback {
        pending.aborted = true;
    } else {
        let (env, callback, context) = teardown(p);
        release(env, callback, context);
    }
    true
}

fn check(status: sys::napi_status) -> Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(napi::Error::new(napi::Status::GenericFailure, format!("napi call failed ({status})")))
    }
}

/// Watches the socket for the rest of the transfer. Err gives the transfer
/// back, with what stopped it, when anything it needs cannot be had; then
/// nothing of the attempt is left behind.
fn wait_writable(env: &Env, transfer: Transfer, callback: sys::napi_value) -> std::result::Result<u32, (Refused, Transfer)> {
    let Some(uv) = uv::uv() else {
        return Err((Refused::Os(libc::ENOSYS), transfer));
    };
    let raw_env = env.raw();
    let Some((cb_ref, context)) = register_callback(raw_env, callback) else {
        return Err((Refused::Os(libc::ENOMEM), transfer));
    };
    let lp = match env.get_uv_event_loop() {
        Ok(lp) => lp as *mut c_void,
        Err(_) => {
            release(raw_env, cb_ref, context);
            return Err((Refused::Os(libc::ENOSYS), transfer));
        }
    };
    let handle = match new_poll_handle(uv, lp, transfer.socket_fd()) {
        Ok(handle) => handle,
        Err(e) => {
            release(raw_env, cb_ref, context);
            return Err((Refused::Os(e), transfer));
        }
    };
    hook_cleanup(raw_env);
    let id = NEXT_ID.with(|n| {
        let id = n.get();
        n.set(if id == u32::MAX { 1 } else { id + 1 });
        id
    });
    let reported = transfer.socket_bytes;
    let pending = Box::into_raw(Box::new(Pending {
        id,
        transfer,
        handle,
        env: raw_env,
        callback: cb_ref,
        context,
        reported,
        in_callback: false,
        aborted: false,
    }));
    PENDING.with(|m| m.borrow_mut().insert(id, pending));
    let rc = match fail_point::check(fail_point::POLL_START) {
        Err(e) => -e,
        // SAFETY: the handle is initialised; its data points to the Pending
        // that stays alive until teardown, which closes the handle first.
        Ok(()) => unsafe {
            (uv.handle_set_data)(handle, pending.cast());
            (uv.poll_start)(handle, uv::UV_WRITABLE, on_writable)
        },
    };
    if rc != 0 {
        let (env, callback, context, transfer) = untrack(pending);
        release(env, callback, context);
        return Err((Refused::Os(-rc), transfer));
    }
    Ok(id)
}

/// A reference to the progress callback and an async context to call it in.
fn register_callback(env: sys::napi_env, callback: sys::napi_value) -> Option<(sys::napi_ref, sys::napi_async_context)> {
    if fail_point::check(fail_point::NAPI).is_err() {
        return None;
    }
    let mut cb_ref = ptr::null_mut();
    let mut context = ptr::null_mut();
    // SAFETY: plain Node-API calls on the current env with values of this
    // call; what was created is released on every failure.
    unsafe {
        if check(sys::napi_create_reference(env, callback, 1, &mut cb_ref)).is_err() {
            return None;
        }
        let mut resource = ptr::null_mut();
        let mut name = ptr::null_mut();
        let ok = check(sys::napi_create_object(env, &mut resource)).is_ok() &&
            check(sys::napi_create_string_utf8(env, c"HttpFastpathSendFile".as_ptr(), usize::MAX as isize, &mut name)).is_ok() &&
            check(sys::napi_async_init(env, resource, name, &mut context)).is_ok();
        if !ok {
            sys::napi_delete_reference(env, cb_ref);
            return None;
        }
    }
    Some((cb_ref, context))
}

/// A poll handle on `fd` in the loop `lp`, or Err(errno).
fn new_poll_handle(uv: &uv::Uv, lp: *mut c_void, fd: i32) -> std::result::Result<*mut c_void, i32> {
    fail_point::check(fail_point::POLL_INIT)?;
    // SAFETY: malloc of the size libuv reports for a uv_poll_t; checked for null.
    let handle = unsafe { libc::malloc(uv.poll_size) };
    if handle.is_null() {
        return Err(libc::ENOMEM);
    }
    // SAFETY: `handle` is uv_poll_t-sized storage and `lp` is this thread's
    // loop; the fd is the transfer's own duplicate, open until teardown.
    let rc = unsafe { (uv.poll_init)(lp, handle, fd) };
    if rc != 0 {
        // SAFETY: uv_poll_init failed, so libuv holds no reference to it.
        unsafe { libc::free(handle) };
        return Err(-rc);
    }
    Ok(handle)
}

/// Closes the poll handle, forgets the transfer and gives it back with what
/// the JS callback needs.
fn untrack(p: *mut Pending) -> (sys::napi_env, sys::napi_ref, sys::napi_async_context, Transfer) {
    // SAFETY: `p` came from Box::into_raw in wait_writable and is still in
    // PENDING (each path removes it exactly once, here).
    let pending = unsafe { Box::from_raw(p) };
    PENDING.with(|m| m.borrow_mut().remove(&pending.id));
    if let Some(uv) = uv::uv() {
        // SAFETY: the handle is an initialised, not yet closed uv_poll_t; after
        // uv_close libuv never calls on_writable again and frees nothing of
        // ours but through free_handle. Closing the duplicated descriptor right
        // after uv_close is allowed for poll handles (uv.h).
        unsafe { (uv.close)(pending.handle, Some(free_handle)) };
    }
    let Pending { env, callback, context, transfer, .. } = *pending;
    (env, callback, context, transfer)
}

/// Ends a pending transfer: `untrack`, then its socket's duplicate closes.
fn teardown(p: *mut Pending) -> (sys::napi_env, sys::napi_ref, sys::napi_async_context) {
    let (env, callback, context, _transfer) = untrack(p);
    (env, callback, context)
}

unsafe extern "C" fn free_handle(handle: *mut c_void) {
    // SAFETY: libuv is done with the handle (close callback); it was malloc'd.
    unsafe { libc::free(handle) };
}

fn release(env: sys::napi_env, callback: sys::napi_ref, context: sys::napi_async_context) {
    // SAFETY: both were created on this env and are released once.
    unsafe {
        sys::napi_delete_reference(env, callback);
        sys::napi_async_destroy(env, context);
    }
}

/// What came of a `call_js`.
enum Called<T> {
    Returned(T),
    /// The callback threw; the error went to Node as an uncaught exception.
    Threw,
    /// The call could not be made.
    Failed,
}

/// Calls a referenced JS function with the arguments `args` creates, inside
/// a handle scope and a callback scope of `context` (async context, nextTick
/// queue and microtasks drained after), as libuv callbacks into Node's own
/// JS are; a throw becomes an uncaught exception, as there. `read` takes what
/// it needs of the result while the scope is open.
fn call_js<T, const N: usize>(
    env: sys::napi_env,
    callback: sys::napi_ref,
    context: sys::napi_async_context,
    args: impl FnOnce() -> [sys::napi_value; N],
    read: impl FnOnce(sys::napi_value) -> T,
) -> Called<T> {
    // SAFETY: called on the loop thread outside any other Node-API call, with
    // the env, reference and async context of a live registration; every
    // napi_value is used inside the handle scope that holds it.
    unsafe {
        let mut scope = ptr::null_mut();
        if sys::napi_open_handle_scope(env, &mut scope) != sys::Status::napi_ok {
            return Called::Failed;
        }
        let mut func = ptr::null_mut();
        let mut recv = ptr::null_mut();
        sys::napi_get_reference_value(env, callback, &mut func);
        // napi_make_callback needs an object receiver.
        sys::napi_get_global(env, &mut recv);
        let args = args();
        let mut result = ptr::null_mut();
        let called = match sys::napi_make_callback(env, context, recv, func, args.len(), args.as_ptr(), &mut result) {
            sys::Status::napi_ok => Called::Returned(read(result)),
            // With no exception behind it, the env can no longer run JS (a
            // worker or the process is exiting: Node answers so for modules
            // of Node-API < 10); calling again would only fail again.
            sys::Status::napi_pending_exception if !exception_pending(env) => Called::Failed,
            sys::Status::napi_pending_exception => {
                let mut error = ptr::null_mut();
                sys::napi_get_and_clear_last_exception(env, &mut error);
                sys::napi_fatal_exception(env, error);
                Called::Threw
            }
            _ => Called::Failed,
        };
        sys::napi_close_handle_scope(env, scope);
        called
    }
}

/// Whether the env holds an exception (a call that threw), as opposed to a
/// call refused because JS cannot run.
///
/// # Safety
/// `env` is a live env and this runs on its thread.
unsafe fn exception_pending(env: sys::napi_env) -> bool {
    let mut pending = false;
    // SAFETY: the caller's; the call only reads the env's last exception.
    unsafe { sys::napi_is_exception_pending(env, &mut pending) };
    pending
}

/// Reports a pending transfer's progress to its JS callback; returns what the
/// callback returned, read as a boolean (false if it threw or returned
/// anything else).
fn report(env: sys::napi_env, callback: sys::napi_ref, context: sys::napi_async_context, status: i32, socket_bytes: u64, file_bytes: u64) -> bool {
    let args = || {
        let mut args = [ptr::null_mut(); 3];
        // SAFETY: value creation on the env, inside call_js's handle scope.
        unsafe {
            sys::napi_create_int32(env, status, &mut args[0]);
            sys::napi_create_double(env, socket_bytes as f64, &mut args[1]);
            sys::napi_create_double(env, file_bytes as f64, &mut args[2]);
        }
        args
    };
    let read = |result: sys::napi_value| {
        let mut value = false;
        // SAFETY: reads a value of this scope; a non-boolean leaves `value` false.
        unsafe { sys::napi_get_value_bool(env, result, &mut value) };
        value
    };
    matches!(call_js(env, callback, context, args, read), Called::Returned(true))
}

/// Progress status: the socket has an error pending (libuv saw POLLERR).
const SOCKET_ERROR: i32 = 2;

/// Reports `status` while the transfer stays pending, then tears it down if
/// the callback aborted it. Returns what the callback returned, and whether
/// the transfer is still pending.
fn report_pending(p: *mut Pending, status: i32) -> (bool, bool) {
    // SAFETY: `p` is a live Pending of this thread (see on_writable).
    let pending = unsafe { &mut *p };
    pending.in_callback = true;
    let answer = report(pending.env, pending.callback, pending.context, status, pending.transfer.socket_bytes, pending.transfer.file_bytes);
    pending.in_callback = false;
    if pending.aborted {
        let (env, callback, context) = teardown(p);
        release(env, callback, context);
        return (answer, false);
    }
    (answer, true)
}

unsafe extern "C" fn on_writable(handle: *mut c_void, status: c_int, _events: c_int) {
    let Some(uv) = uv::uv() else { return };
    // SAFETY: the handle's data is the live Pending set in wait_writable; a
    // closed handle never gets here.
    let p = unsafe { (uv.handle_get_data)(handle) } as *mut Pending;
    if status < 0 {
        // libuv reports a socket error (POLLERR) as UV_EBADF and stops the
        // handle. The error itself (ECONNRESET...) goes to the first syscall
        // that meets it: in stock, the read when the socket is reading
        // ("read ECONNRESET"), else the queued write. The callback says
        // whether Node's handle is reading; then the error is left to it and
        // the socket's close aborts this transfer. Otherwise the next write
        // here meets the error.
        let (node_reads, still_pending) = report_pending(p, SOCKET_ERROR);
        if node_reads || !still_pending {
            return;
        }
    }
    // SAFETY: as above; only this thread touches it.
    let pending = unsafe { &mut *p };
    let mut step = pending.transfer.pump();
    if status < 0 && step == Step::WouldBlock {
        // No error met after all (the socket had room): the handle was
        // stopped, so watch again.
        // SAFETY: the handle is initialised and not closed (as in wait_writable).
        let rc = unsafe { (uv.poll_start)(handle, uv::UV_WRITABLE, on_writable) };
        if rc < 0 {
            step = Step::Failed(-rc);
        }
    }
    let (socket_bytes, file_bytes) = (pending.transfer.socket_bytes, pending.transfer.file_bytes);
    match step {
        Step::WouldBlock => {
            if socket_bytes == pending.reported {
                return;
            }
            pending.reported = socket_bytes;
            report_pending(p, 1);
        }
        Step::Done | Step::Failed(_) => {
            let code = match step {
                Step::Failed(e) => -e,
                _ => 0,
            };
            let (env, callback, context) = teardown(p);
            report(env, callback, context, code, socket_bytes, file_bytes);
            release(env, callback, context);
        }
    }
}

fn hook_cleanup(env: sys::napi_env) {
    if CLEANUP_HOOKED.with(|h| h.replace(true)) {
        return;
    }
    // SAFETY: registers a plain function with no data for this env's teardown.
    unsafe { sys::napi_add_env_cleanup_hook(env, Some(close_all), ptr::null_mut()) };
}

/// Env teardown (process exit, worker termination): close every handle and
/// descriptor so the loop can close; no JS runs any more.
unsafe extern "C" fn close_all(_arg: *mut c_void) {
    let ids: Vec<*mut Pending> = PENDING.with(|m| m.borrow().values().copied().collect());
    for p in ids {
        teardown(p);
    }
    CLEANUP_HOOKED.with(|h| h.set(false));
}
