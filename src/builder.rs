//! The single-shot HTTP/1 message builder: first line, header block, blank
//! line and optional body written into one pre-sized byte vector, the way
//! hyper's encoder writes a head. Header text is latin1 (one byte per UTF-16
//! code unit, as Node writes a head that is not prefixed to a utf8 body); a
//! string body is UTF-8.

use crate::js_text;
use napi::bindgen_prelude::{Array, Buffer, Either, JsObjectValue, Unknown};
use napi::{sys, Env, JsValue, Result};
use std::cell::RefCell;

/// Appends `name: value\r\n`.
pub fn push_header_line(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    out.reserve(name.len() + value.len() + 4);
    out.extend_from_slice(name);
    out.extend_from_slice(b": ");
    out.extend_from_slice(value);
    out.extend_from_slice(b"\r\n");
}

/// Builds a whole message from byte slices (the plain-Rust core of `buildHttpMessage`).
pub fn build_message(first_line: &[u8], headers: &[(&[u8], &[u8])], body: &[u8]) -> Vec<u8> {
    let size = first_line.len()
        + headers
            .iter()
            .map(|(n, v)| n.len() + v.len() + 4)
            .sum::<usize>()
        + 2
        + body.len();
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(first_line);
    for (name, value) in headers {
        push_header_line(&mut out, name, value);
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
    debug_assert_eq!(out.len(), size);
    out
}

thread_local! {
    // One scratch vector per JS thread (main thread or worker): a JS thread
    // runs one call at a time, so it is never borrowed twice.
    static SCRATCH: RefCell<Vec<u8>> = RefCell::new(Vec::with_capacity(4096));
}

/// Runs `fill` on the thread's scratch vector (cleared first).
pub fn with_scratch<T>(fill: impl FnOnce(&mut Vec<u8>) -> Result<T>) -> Result<T> {
    SCRATCH.with(|cell| {
        let mut scratch = cell.borrow_mut();
        scratch.clear();
        let result = fill(&mut scratch);
        if scratch.capacity() > 1 << 20 {
            // Do not keep a huge body's worth of memory around.
            *scratch = Vec::with_capacity(4096);
        }
        result
    })
}

/// Copies `bytes` to the front of `out`; `Err(needed)` when `out` is too small.
pub fn copy_into(bytes: &[u8], out: &mut [u8]) -> std::result::Result<usize, usize> {
    let dest = out.get_mut(..bytes.len()).ok_or(bytes.len())?;
    dest.copy_from_slice(bytes);
    Ok(bytes.len())
}

/// Copies `bytes` into `out` (when given) and returns the byte count, or
/// returns a new Buffer holding them.
pub fn deliver(bytes: &[u8], out: Option<&mut [u8]>) -> Result<Either<u32, Buffer>> {
    match out {
        Some(out) => match copy_into(bytes, out) {
            Ok(n) => Ok(Either::A(n as u32)),
            Err(needed) => Err(napi::Error::new(
                napi::Status::InvalidArg,
                format!("output buffer too small: {} < {needed}", out.len()),
            )),
        },
        None => Ok(Either::B(Buffer::from(bytes))),
    }
}

/// `buildHttpMessage(firstLine, headers, body?, out?)`
///
/// `firstLine` ends with its CRLF (`HTTP/1.1 200 OK` + CRLF); `headers` is a flat
/// array `[name0, value0, name1, value1, …]` of strings; `body` is a string
/// (UTF-8), a Buffer/Uint8Array, or undefined. With `out`, the message is
/// copied into it and the byte count returned; without, a new Buffer is returned.
#[napi(js_name = "buildHttpMessage", catch_unwind)]
pub fn build_http_message(
    env: Env,
    first_line: Unknown,
    headers: Array,
    body: Option<Unknown>,
    out: Option<&mut [u8]>,
) -> Result<Either<u32, Buffer>> {
    let len = headers.len();
    if len % 2 != 0 {
        return Err(napi::Error::new(
            napi::Status::InvalidArg,
            "headers must hold name/value pairs",
        ));
    }
    let body = js_text::body(&env, body.map(|b| b.raw()))?;
    with_scratch(|msg| {
        expect_string(&env, first_line.raw())?;
        js_text::push_latin1(&env, first_line.raw(), msg)?;
        for i in 0..len {
            let item: Unknown = headers.get_element(i)?;
            expect_string(&env, item.raw())?;
            js_text::push_latin1(&env, item.raw(), msg)?;
            msg.extend_from_slice(if i % 2 == 0 { b": " } else { b"\r\n" });
        }
        msg.extend_from_slice(b"\r\n");
        js_text::push_body(&env, body, msg)?;
        deliver(msg, out)
    })
}

fn expect_string(env: &Env, value: sys::napi_value) -> Result<()> {
    if js_text::type_of(env, value)? != sys::ValueType::napi_string {
        return Err(napi::Error::new(
            napi::Status::StringExpected,
            "header text must be a string",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain reference: the message as Node's JS would concatenate it,
    /// each part appended in turn.
    fn reference(first: &[u8], headers: &[(&[u8], &[u8])], body: &[u8]) -> Vec<u8> {
        let mut parts: Vec<&[u8]> = vec![first];
        for (n, v) in headers {
            parts.extend([*n, b": ".as_slice(), *v, b"\r\n".as_slice()]);
        }
        parts.push(b"\r\n");
        parts.push(body);
        parts.concat()
    }

    fn pairs<'a>(names: &'a [String], values: &'a [String]) -> Vec<(&'a [u8], &'a [u8])> {
        names
            .iter()
            .zip(values)
            .map(|(n, v)| (n.as_bytes(), v.as_bytes()))
            .collect()
    }

    #[test]
    fn builds_status_line_headers_and_body() {
        let headers: [(&[u8], &[u8]); 2] =
            [(b"Content-Type", b"text/plain"), (b"Content-Length", b"2")];
        let got = build_message(b"HTTP/1.1 200 OK\r\n", &headers, b"hi");
        assert_eq!(got, reference(b"HTTP/1.1 200 OK\r\n", &headers, b"hi"));
        assert_eq!(
            got,
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi".to_vec()
        );
    }

    #[test]
    fn empty_headers_and_body() {
        assert_eq!(
            build_message(b"GET / HTTP/1.1\r\n", &[], b""),
            b"GET / HTTP/1.1\r\n\r\n".to_vec()
        );
    }

    #[test]
    fn many_headers_exact_size() {
        let names: Vec<String> = (0..50).map(|i| format!("X-H{i}")).collect();
        let values: Vec<String> = (0..50).map(|i| "v".repeat(i)).collect();
        let pairs = pairs(&names, &values);
        assert_eq!(
            build_message(b"HTTP/1.1 404 Not Found\r\n", &pairs, b"x"),
            reference(b"HTTP/1.1 404 Not Found\r\n", &pairs, b"x")
        );
    }

    #[test]
    fn randomized_messages_match_the_reference() {
        let mut state: u64 = 42;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize
        };
        for _ in 0..20_000 {
            let text = |next: &mut dyn FnMut() -> usize, max: usize| -> String {
                (0..next() % max)
                    .map(|_| char::from(b' ' + (next() % 95) as u8))
                    .collect()
            };
            let count = next() % 12;
            let names: Vec<String> = (0..count).map(|_| text(&mut next, 16)).collect();
            let values: Vec<String> = (0..count).map(|_| text(&mut next, 64)).collect();
            let body = text(&mut next, 200);
            let pairs = pairs(&names, &values);
            assert_eq!(
                build_message(b"HTTP/1.1 200 OK\r\n", &pairs, body.as_bytes()),
                reference(b"HTTP/1.1 200 OK\r\n", &pairs, body.as_bytes())
            );
        }
    }

    #[test]
    fn scratch_is_cleared_between_uses() {
        with_scratch(|v| {
            v.extend_from_slice(b"abc");
            Ok(())
        })
        .unwrap();
        let len = with_scratch(|v| Ok(v.len())).unwrap();
        assert_eq!(len, 0);
    }

    /// Property tests (proptest, with shrinking): any bytes at all — CR, LF,
    /// NUL, high bytes, empty parts, many headers — must come out exactly as
    /// the plain concatenation, and the scratch/deliver plumbing must never
    /// index out of bounds.
    mod properties {
        use super::super::*;
        use super::reference;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]

            #[test]
            fn message_is_the_plain_concatenation(
                first in proptest::collection::vec(any::<u8>(), 0..64),
                headers in proptest::collection::vec(
                    (proptest::collection::vec(any::<u8>(), 0..24), proptest::collection::vec(any::<u8>(), 0..300)), 0..40),
                body in proptest::collection::vec(any::<u8>(), 0..5000),
            ) {
                let pairs: Vec<(&[u8], &[u8])> = headers.iter().map(|(n, v)| (n.as_slice(), v.as_slice())).collect();
                let got = build_message(&first, &pairs, &body);
                prop_assert_eq!(got, reference(&first, &pairs, &body));
            }

            #[test]
            fn copy_into_copies_or_refuses(len in 0usize..600, room in 0usize..700) {
                let bytes: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
                let mut out = vec![0xAAu8; room];
                match copy_into(&bytes, &mut out) {
                    Ok(n) => {
                        prop_assert!(room >= len);
                        prop_assert_eq!(n, len);
                        prop_assert_eq!(&out[..len], &bytes[..]);
                        prop_assert!(out[len..].iter().all(|&b| b == 0xAA), "bytes past the message were touched");
                    }
                    Err(needed) => {
                        prop_assert!(room < len);
                        prop_assert_eq!(needed, len);
                        prop_assert!(out.iter().all(|&b| b == 0xAA), "a refused copy wrote bytes");
                    }
                }
            }
        }

        proptest! {
            // Few cases: each may fill megabytes.
            #![proptest_config(ProptestConfig::with_cases(64))]

            #[test]
            fn scratch_starts_empty_whatever_the_last_use_left(sizes in proptest::collection::vec(0usize..(3 << 20), 1..6)) {
                for size in sizes {
                    let (was, cap) = with_scratch(|v| {
                        let was = v.len();
                        v.resize(size, 7);
                        Ok((was, v.capacity()))
                    }).unwrap();
                    prop_assert_eq!(was, 0);
                    prop_assert!(cap >= size);
                    let kept = with_scratch(|v| Ok(v.capacity())).unwrap();
                    prop_assert!(kept <= 1 << 20, "a huge scratch vector was kept");
                }
            }
        }
    }
}
