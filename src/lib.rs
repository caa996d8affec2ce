//! http-fastpath's native half: an HTTP/1 message builder, a header store, the
//! header validation tables and zero-copy file responses (sendfile), exported
//! to the JS shim through Node-API.

#[macro_use]
extern crate napi_derive;

pub mod allocator;
pub mod builder;
pub mod file_send;
pub mod header_store;
mod js_text;
pub mod token;
pub mod validate;

/// Test hook: panics inside a Node-API call. Every export is marked
/// `catch_unwind`, so the panic reaches JS as an Error instead of aborting
/// the process; test/native.test.js checks that on each Node version, with
/// the `testing` build (`npm run build:testing`).
#[cfg(feature = "testing")]
#[napi(js_name = "__panicForTesting", catch_unwind)]
pub fn panic_for_testing() {
    panic!("http-fastpath: deliberate test panic");
}
