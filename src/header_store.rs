//! A message's headers held natively as pre-rendered latin1 lines, keyed by
//! lowercase name, in the order a JS object would enumerate them (integer-like
//! names first, ascending, then insertion order). Rendering a head is then one
//! copy per header.

use crate::builder::{deliver, with_scratch};
use crate::js_text;
use napi::bindgen_prelude::{Buffer, Either, Unknown};
use napi::{Env, JsValue, Result};

struct Entry {
    key: Vec<u8>,
    /// `Name: value\r\n`
    line: Vec<u8>,
    name_len: usize,
}

impl Entry {
    fn value(&self) -> &[u8] {
        &self.line[self.name_len + 2..self.line.len() - 2]
    }
}

/// Pure-Rust store; the napi class below wraps it.
#[derive(Default)]
pub struct Headers {
    entries: Vec<Entry>,
}

fn lowercase(name: &[u8]) -> Vec<u8> {
    name.iter().map(|b| b.to_ascii_lowercase()).collect()
}

/// The index a JS object would treat this key as (a canonical array index), if any.
fn array_index(key: &[u8]) -> Option<u32> {
    if key.is_empty() || key.len() > 10 || (key[0] == b'0' && key.len() > 1) {
        return None;
    }
    let mut n: u64 = 0;
    for &b in key {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n * 10 + u64::from(b - b'0');
    }
    (n < u64::from(u32::MAX)).then_some(n as u32)
}

impl Headers {
    fn find(&self, key: &[u8]) -> Option<usize> {
        self.entries.iter().position(|e| e.key == key)
    }

    pub fn set(&mut self, name: &[u8], value: &[u8]) {
        let key = lowercase(name);
        let mut line = Vec::with_capacity(name.len() + value.len() + 4);
        crate::builder::push_header_line(&mut line, name, value);
        let entry = Entry {
            key,
            line,
            name_len: name.len(),
        };
        match self.find(&entry.key) {
            // Assigning an existing JS property keeps its position.
            Some(i) => self.entries[i] = entry,
            None => self.entries.push(entry),
        }
    }

    pub fn get(&self, name: &[u8]) -> Option<&[u8]> {
        self.find(&lowercase(name)).map(|i| self.entries[i].value())
    }

    pub fn remove(&mut self, name: &[u8]) -> bool {
        match self.find(&lowercase(name)) {
            Some(i) => {
                self.entries.remove(i);
                true
            }
            None => false,
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Appends every line in JS enumeration order.
    pub fn render_lines(&self, out: &mut Vec<u8>) {
        let mut indexed: Vec<(u32, &Entry)> = self
            .entries
            .iter()
            .filter_map(|e| array_index(&e.key).map(|n| (n, e)))
            .collect();
        indexed.sort_by_key(|(n, _)| *n);
        for (_, e) in &indexed {
            out.extend_from_slice(&e.line);
        }
        for e in self
            .entries
            .iter()
            .filter(|e| array_index(&e.key).is_none())
        {
            out.extend_from_slice(&e.line);
        }
    }
}

/// `new HeaderStore()`: set/get/has/remove by case-insensitive name and
/// `render(firstLine, body?, out?)` into one message, like `buildHttpMessage`.
#[napi]
pub struct HeaderStore {
    inner: Headers,
    // Reused conversion buffers, so a set() allocates only the stored line.
    name: Vec<u8>,
    value: Vec<u8>,
}

impl Default for HeaderStore {
    fn default() -> Self {
        Self::new()
    }
}

#[napi]
impl HeaderStore {
    #[napi(constructor)]
    pub fn new() -> Self {
        HeaderStore {
            inner: Headers::default(),
            name: Vec::new(),
            value: Vec::new(),
        }
    }

    fn load_name(&mut self, env: &Env, name: &Unknown) -> Result<()> {
        self.name.clear();
        js_text::push_latin1(env, name.raw(), &mut self.name)
    }

    /// Stores `name: value` (both strings, latin1), replacing any header of the same name.
    #[napi(catch_unwind)]
    pub fn set(&mut self, env: Env, name: Unknown, value: Unknown) -> Result<()> {
        self.load_name(&env, &name)?;
        self.value.clear();
        js_text::push_latin1(&env, value.raw(), &mut self.value)?;
        self.inner.set(&self.name, &self.value);
        Ok(())
    }

    #[napi(catch_unwind)]
    pub fn get(&mut self, env: Env, name: Unknown) -> Result<Option<String>> {
        self.load_name(&env, &name)?;
        Ok(self
            .inner
            .get(&self.name)
            .map(|v| v.iter().map(|&b| b as char).collect()))
    }

    #[napi(catch_unwind)]
    pub fn has(&mut self, env: Env, name: Unknown) -> Result<bool> {
        self.load_name(&env, &name)?;
        Ok(self.inner.get(&self.name).is_some())
    }

    #[napi(catch_unwind)]
    pub fn remove(&mut self, env: Env, name: Unknown) -> Result<bool> {
        self.load_name(&env, &name)?;
        Ok(self.inner.remove(&self.name))
    }

    #[napi(getter)]
    pub fn size(&self) -> u32 {
        self.inner.len() as u32
    }

    /// Renders `firstLine` + every header + blank line [+ body].
    #[napi(catch_unwind)]
    pub fn render(
        &self,
        env: Env,
        first_line: Unknown,
        body: Option<Unknown>,
        out: Option<&mut [u8]>,
    ) -> Result<Either<u32, Buffer>> {
        let body = js_text::body(&env, body.map(|b| b.raw()))?;
        with_scratch(|msg| {
            js_text::push_latin1(&env, first_line.raw(), msg)?;
            self.inner.render_lines(msg);
            msg.extend_from_slice(b"\r\n");
            js_text::push_body(&env, body, msg)?;
            deliver(msg, out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(h: &Headers) -> String {
        let mut out = Vec::new();
        h.render_lines(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn set_replaces_in_place_case_insensitively() {
        let mut h = Headers::default();
        h.set(b"Content-Type", b"text/plain");
        h.set(b"X-A", b"1");
        h.set(b"content-type", b"text/html");
        assert_eq!(rendered(&h), "content-type: text/html\r\nX-A: 1\r\n");
        assert_eq!(h.get(b"CONTENT-TYPE"), Some(&b"text/html"[..]));
        assert_eq!(h.len(), 2);
    }

    #[test]
    fn remove_and_missing() {
        let mut h = Headers::default();
        h.set(b"A", b"1");
        assert!(h.remove(b"a"));
        assert!(!h.remove(b"a"));
        assert!(h.get(b"a").is_none());
        assert!(h.is_empty());
    }

    #[test]
    fn integer_like_names_enumerate_first_like_js_objects() {
        let mut h = Headers::default();
        h.set(b"X-A", b"a");
        h.set(b"20", b"b");
        h.set(b"3", b"c");
        h.set(b"03", b"d");
        assert_eq!(rendered(&h), "3: c\r\n20: b\r\nX-A: a\r\n03: d\r\n");
    }

    #[test]
    fn array_index_bounds() {
        assert_eq!(array_index(b"0"), Some(0));
        assert_eq!(array_index(b"4294967294"), Some(4294967294));
        assert_eq!(array_index(b"4294967295"), None);
        assert_eq!(array_index(b"01"), None);
        assert_eq!(array_index(b"-1"), None);
    }

    /// Model-based property test: random set/get/remove sequences against a
    /// reference written with different data structures (a BTreeMap for
    /// integer-like keys, a list for the rest), as JS objects behave.
    mod properties {
        use super::*;
        use proptest::prelude::*;
        use std::collections::BTreeMap;

        #[derive(Debug, Clone)]
        enum Op {
            Set(String, Vec<u8>),
            Remove(String),
        }

        fn name() -> impl Strategy<Value = String> {
            prop_oneof![
                "[a-cA-C]{1,3}",
                "(0|[1-9][0-9]{0,2})",
                "0[0-9]{1,2}",
                Just("4294967294".to_string()),
                Just("4294967295".to_string()),
                "X-[a-zA-Z-]{0,6}",
            ]
        }

        fn op() -> impl Strategy<Value = Op> {
            prop_oneof![
                3 => (name(), proptest::collection::vec(any::<u8>(), 0..12)).prop_map(|(n, v)| Op::Set(n, v)),
                1 => name().prop_map(Op::Remove),
            ]
        }

        /// JS's canonical array index: "0".."4294967294" written without leading zeros.
        fn js_index(key: &str) -> Option<u32> {
            key.parse::<u32>()
                .ok()
                .filter(|n| *n != u32::MAX && n.to_string() == key)
        }

        #[derive(Default)]
        struct Model {
            indexed: BTreeMap<u32, (String, Vec<u8>)>,
            named: Vec<(String, String, Vec<u8>)>,
        }

        impl Model {
            fn set(&mut self, name: &str, value: &[u8]) {
                let key = name.to_ascii_lowercase();
                if let Some(i) = js_index(&key) {
                    self.indexed.insert(i, (name.to_string(), value.to_vec()));
                } else if let Some(slot) = self.named.iter_mut().find(|(k, _, _)| *k == key) {
                    *slot = (key, name.to_string(), value.to_vec());
                } else {
                    self.named.push((key, name.to_string(), value.to_vec()));
                }
            }
            fn remove(&mut self, name: &str) -> bool {
                let key = name.to_ascii_lowercase();
                if let Some(i) = js_index(&key) {
                    return self.indexed.remove(&i).is_some();
                }
                let before = self.named.len();
                self.named.retain(|(k, _, _)| *k != key);
                before != self.named.len()
            }
            fn get(&self, name: &str) -> Option<Vec<u8>> {
                let key = name.to_ascii_lowercase();
                match js_index(&key) {
                    Some(i) => self.indexed.get(&i).map(|(_, v)| v.clone()),
                    None => self
                        .named
                        .iter()
                        .find(|(k, _, _)| *k == key)
                        .map(|(_, _, v)| v.clone()),
                }
            }
            fn render(&self) -> Vec<u8> {
                let lines = self
                    .indexed
                    .values()
                    .map(|(n, v)| (n, v))
                    .chain(self.named.iter().map(|(_, n, v)| (n, v)));
                lines
                    .flat_map(|(n, v)| [n.as_bytes(), b": ", v, b"\r\n"].concat())
                    .collect()
            }
            fn len(&self) -> usize {
                self.indexed.len() + self.named.len()
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(3000))]

            #[test]
            fn store_behaves_like_a_js_object(ops in proptest::collection::vec(op(), 0..40), probe in name()) {
                let mut store = Headers::default();
                let mut model = Model::default();
                for op in &ops {
                    match op {
                        Op::Set(n, v) => {
                            store.set(n.as_bytes(), v);
                            model.set(n, v);
                        }
                        Op::Remove(n) => prop_assert_eq!(store.remove(n.as_bytes()), model.remove(n)),
                    }
                    prop_assert_eq!(store.len(), model.len());
                }
                prop_assert_eq!(store.get(probe.as_bytes()).map(<[u8]>::to_vec), model.get(&probe));
                let mut out = Vec::new();
                store.render_lines(&mut out);
                prop_assert_eq!(out, model.render());
            }

            #[test]
            fn array_index_matches_js(key in prop_oneof!["[0-9]{1,11}", "-?[0-9a]{0,4}", any::<u32>().prop_map(|n| n.to_string())]) {
                prop_assert_eq!(array_index(key.as_bytes()), js_index(&key));
            }
        }
    }
}
