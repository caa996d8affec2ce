//! Node-API entry points for header validation (tables in `token`).

use crate::js_text;
use crate::token;
use napi::bindgen_prelude::Unknown;
use napi::{Env, JsValue, Result};
use std::cell::RefCell;

thread_local! {
    static UNITS: RefCell<Vec<u16>> = const { RefCell::new(Vec::new()) };
}

fn with_units<T>(env: &Env, value: &Unknown, f: impl FnOnce(&[u16]) -> T) -> Result<T> {
    UNITS.with(|cell| {
        let mut units = cell.borrow_mut();
        js_text::utf16(env, value.raw(), &mut units)?;
        Ok(f(&units))
    })
}

/// `isHttpToken(name)`: what Node's `checkIsHttpToken` accepts.
#[napi(js_name = "isHttpToken", catch_unwind)]
pub fn is_http_token(env: Env, name: Unknown) -> Result<bool> {
    with_units(&env, &name, token::is_token)
}

/// `hasInvalidHeaderChar(value, lenient?)`: Node's `checkInvalidHeaderChar`.
#[napi(js_name = "hasInvalidHeaderChar", catch_unwind)]
pub fn has_invalid_header_char(env: Env, value: Unknown, lenient: Option<bool>) -> Result<bool> {
    with_units(&env, &value, |u| {
        token::has_invalid_value_char(u, lenient.unwrap_or(false))
    })
}
