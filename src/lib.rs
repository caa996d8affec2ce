//! http-fastpath's native half: an HTTP/1 message builder, a header store and
//! the header validation tables, exported to the JS shim through Node-API.

#[macro_use]
extern crate napi_derive;

pub mod builder;
pub mod header_store;
mod js_text;
pub mod token;
pub mod validate;
