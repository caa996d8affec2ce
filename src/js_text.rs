//! Copies of JS strings and buffers straight into Rust byte vectors, without the
//! intermediate `String` that napi-rs' own conversions allocate. These are the
//! only raw Node-API calls in the crate; each `unsafe` block relies on the same
//! contract: `env` and `value` come from the current callback scope (so they are
//! live), and the destination pointer/length describe spare capacity we reserved.

use napi::{check_status, sys, Env, Result};
use std::ptr;

/// Spare room reserved before a copy; one call usually suffices for header text.
const GUESS: usize = 256;

/// The kinds of JS value the builder accepts as a body.
pub enum Body<'a> {
    None,
    Text(sys::napi_value),
    Bytes(&'a [u8]),
}

/// Appends `value` (a JS string) to `out` as latin1: each UTF-16 code unit
/// truncated to its low byte, exactly like `Buffer.from(s, 'latin1')`.
pub fn push_latin1(env: &Env, value: sys::napi_value, out: &mut Vec<u8>) -> Result<()> {
    push_with(env, value, out, |env, value, buf, cap, written| unsafe {
        // SAFETY: see module docs; `buf` points at `cap` writable bytes.
        sys::napi_get_value_string_latin1(env, value, buf.cast(), cap, written)
    })
}

/// Appends `value` (a JS string) to `out` encoded as UTF-8 (lone surrogates
/// become U+FFFD, as in `Buffer.from(s)`).
pub fn push_utf8(env: &Env, value: sys::napi_value, out: &mut Vec<u8>) -> Result<()> {
    push_with(env, value, out, |env, value, buf, cap, written| unsafe {
        // SAFETY: see module docs; `buf` points at `cap` writable bytes.
        sys::napi_get_value_string_utf8(env, value, buf.cast(), cap, written)
    })
}

type Getter = fn(sys::napi_env, sys::napi_value, *mut u8, usize, *mut usize) -> sys::napi_status;

fn push_with(env: &Env, value: sys::napi_value, out: &mut Vec<u8>, get: Getter) -> Result<()> {
    let start = out.len();
    out.reserve(GUESS);
    let (mut written, spare) = fill_spare(env, value, out, get)?;
    if written + 1 >= spare {
        // Node-API writes at most `spare - 1` bytes plus a NUL: the text may be cut. Ask its size.
        let mut needed = 0usize;
        check_status!(get(env.raw(), value, ptr::null_mut(), 0, &mut needed))?;
        out.reserve(needed + 1);
        (written, _) = fill_spare(env, value, out, get)?;
    }
    // SAFETY: Node-API initialised exactly `written` bytes at `start`.
    unsafe { out.set_len(start + written) };
    Ok(())
}

/// Lets `get` write the text into the reserved capacity past `out.len()`;
/// returns the bytes written and the room it had.
fn fill_spare(
    env: &Env,
    value: sys::napi_value,
    out: &mut Vec<u8>,
    get: Getter,
) -> Result<(usize, usize)> {
    let spare = out.capacity() - out.len();
    let mut written = 0usize;
    // SAFETY: `len..len+spare` is reserved capacity of `out`; `get` writes at most `spare` bytes there.
    let buf = unsafe { out.as_mut_ptr().add(out.len()) };
    check_status!(get(env.raw(), value, buf, spare, &mut written))?;
    Ok((written, spare))
}

/// Appends a body: UTF-8 for a string, the bytes for a Uint8Array.
pub fn push_body(env: &Env, body: Body, out: &mut Vec<u8>) -> Result<()> {
    match body {
        Body::None => Ok(()),
        Body::Text(text) => push_utf8(env, text, out),
        Body::Bytes(bytes) => {
            out.extend_from_slice(bytes);
            Ok(())
        }
    }
}

/// Reads a JS string into UTF-16 code units (for validation, which is defined on code units).
pub fn utf16(env: &Env, value: sys::napi_value, out: &mut Vec<u16>) -> Result<()> {
    out.clear();
    let mut len = 0usize;
    check_status!(unsafe {
        // SAFETY: a length query writes nothing but `len`.
        sys::napi_get_value_string_utf16(env.raw(), value, ptr::null_mut(), 0, &mut len)
    })?;
    out.reserve(len + 1);
    let mut written = 0usize;
    check_status!(unsafe {
        // SAFETY: `out` has `len + 1` reserved code units.
        sys::napi_get_value_string_utf16(env.raw(), value, out.as_mut_ptr(), len + 1, &mut written)
    })?;
    // SAFETY: `written` code units were initialised.
    unsafe { out.set_len(written) };
    Ok(())
}

/// The JS type of `value`.
pub fn type_of(env: &Env, value: sys::napi_value) -> Result<sys::napi_valuetype> {
    let mut t = 0;
    // SAFETY: `value` is live in this scope.
    check_status!(unsafe { sys::napi_typeof(env.raw(), value, &mut t) })?;
    Ok(t)
}

/// Classifies a body argument: undefined/null, a string, or a Uint8Array (Buffer).
pub fn body<'a>(env: &Env, value: Option<sys::napi_value>) -> Result<Body<'a>> {
    let Some(value) = value else {
        return Ok(Body::None);
    };
    match type_of(env, value)? {
        sys::ValueType::napi_undefined | sys::ValueType::napi_null => Ok(Body::None),
        sys::ValueType::napi_string => Ok(Body::Text(value)),
        _ => {
            let mut is_typed = false;
            // SAFETY: `value` is live in this scope.
            check_status!(unsafe { sys::napi_is_typedarray(env.raw(), value, &mut is_typed) })?;
            if !is_typed {
                return Err(napi::Error::new(
                    napi::Status::InvalidArg,
                    "body must be a string, Buffer or Uint8Array",
                ));
            }
            let mut kind = 0;
            let mut len = 0usize;
            let mut data = ptr::null_mut();
            check_status!(unsafe {
                // SAFETY: `value` is a typed array; the out-params are plain locals.
                sys::napi_get_typedarray_info(
                    env.raw(),
                    value,
                    &mut kind,
                    &mut len,
                    &mut data,
                    ptr::null_mut(),
                    ptr::null_mut(),
                )
            })?;
            if kind != sys::TypedarrayType::uint8_array {
                return Err(napi::Error::new(
                    napi::Status::InvalidArg,
                    "body must be a Uint8Array",
                ));
            }
            if len == 0 || data.is_null() {
                return Ok(Body::Bytes(&[]));
            }
            // SAFETY: the typed array's backing store stays alive for this call
            // (the value is rooted in the callback scope) and JS cannot run meanwhile.
            Ok(Body::Bytes(unsafe {
                std::slice::from_raw_parts(data.cast(), len)
            }))
        }
    }
}
