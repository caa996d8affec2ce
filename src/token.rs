//! Byte tables for HTTP header validation, matching Node's `_http_common`
//! rules exactly: the token regex `^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$` for names,
//! and `checkInvalidHeaderChar` (strict and, on Node 24+, lenient) for values.

const fn build_token_table() -> [bool; 256] {
    let mut t = [false; 256];
    let mut c = b'0';
    while c <= b'9' {
        t[c as usize] = true;
        c += 1;
    }
    c = b'a';
    while c <= b'z' {
        t[c as usize] = true;
        t[(c - 32) as usize] = true;
        c += 1;
    }
    let extra = b"!#$%&'*+-.^_`|~";
    let mut i = 0;
    while i < extra.len() {
        t[extra[i] as usize] = true;
        i += 1;
    }
    t
}

/// `TOKEN[b]` is true when `b` is an RFC 9110 `tchar`.
pub static TOKEN: [bool; 256] = build_token_table();

/// True when `name` is a non-empty HTTP token (what Node's `checkIsHttpToken` accepts).
pub fn is_token(name: &[u16]) -> bool {
    !name.is_empty() && name.iter().all(|&u| u < 256 && TOKEN[u as usize])
}

/// True when a header value (as JS UTF-16 code units) holds a character Node
/// rejects. Strict: anything but TAB, 0x20-0x7E, 0x80-0xFF. Lenient (Node 24+
/// `insecureHTTPParser`/`httpValidation`): only NUL, LF, CR and code units above 0xFF.
pub fn has_invalid_value_char(value: &[u16], lenient: bool) -> bool {
    if lenient {
        value
            .iter()
            .any(|&u| u == 0 || u == 0x0a || u == 0x0d || u > 0xff)
    } else {
        value
            .iter()
            .any(|&u| !(u == 0x09 || (0x20..=0x7e).contains(&u) || (0x80..=0xff).contains(&u)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u16s(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn token_table_matches_node_regex_class() {
        let allowed =
            "^_`abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789!#$%&'*+.|~";
        for b in 0u16..=255 {
            let expected = allowed.as_bytes().contains(&(b as u8)) && b < 128;
            assert_eq!(TOKEN[b as usize], expected, "byte {b:#x}");
        }
    }

    #[test]
    fn tokens() {
        assert!(is_token(&u16s("Content-Type")));
        assert!(is_token(&u16s("x-a~b|c")));
        assert!(!is_token(&u16s("")));
        assert!(!is_token(&u16s("a b")));
        assert!(!is_token(&u16s("a:b")));
        assert!(!is_token(&u16s("é")));
        assert!(!is_token(&[0x100 + b'a' as u16]));
    }

    #[test]
    fn strict_values() {
        assert!(!has_invalid_value_char(
            &u16s("text/html; charset=utf-8"),
            false
        ));
        assert!(!has_invalid_value_char(&u16s("a\tb é ÿ"), false));
        assert!(!has_invalid_value_char(&u16s(""), false));
        for bad in ["a\rb", "a\nb", "a\0b", "\x7f", "\x1f", "\u{100}", "😀"] {
            assert!(has_invalid_value_char(&u16s(bad), false), "{bad:?}");
        }
    }

    /// A tiny deterministic generator, so the randomized tests need no extra crate.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u32 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) as u32
        }
        fn units(&mut self, max_len: u32, max_unit: u32) -> Vec<u16> {
            let len = self.next() % max_len;
            (0..len).map(|_| (self.next() % max_unit) as u16).collect()
        }
    }

    /// Plain restatements of Node's regexes, written independently of the tables.
    fn reference_token(s: &[u16]) -> bool {
        !s.is_empty()
            && s.iter().all(|&u| {
                char::from_u32(u32::from(u))
                    .is_some_and(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
            })
    }
    fn reference_invalid(s: &[u16], lenient: bool) -> bool {
        s.iter().any(|&u| {
            if lenient {
                u > 0xff || u == 0 || u == 10 || u == 13
            } else {
                !(u == 9 || (32..127).contains(&u) || (128..256).contains(&u))
            }
        })
    }

    #[test]
    fn randomized_against_reference() {
        let mut rng = Lcg(0x5eed);
        for _ in 0..200_000 {
            let max_unit = [128, 256, 0x10000][(rng.next() % 3) as usize];
            let s = rng.units(24, max_unit);
            assert_eq!(is_token(&s), reference_token(&s), "{s:?}");
            assert_eq!(
                has_invalid_value_char(&s, false),
                reference_invalid(&s, false),
                "{s:?}"
            );
            assert_eq!(
                has_invalid_value_char(&s, true),
                reference_invalid(&s, true),
                "{s:?}"
            );
        }
    }

    #[test]
    fn lenient_values() {
        assert!(!has_invalid_value_char(&u16s("\x7f\x01\x1f"), true));
        for bad in ["a\rb", "a\nb", "a\0b", "\u{100}"] {
            assert!(has_invalid_value_char(&u16s(bad), true), "{bad:?}");
        }
    }

    /// Property tests over arbitrary UTF-16 code units (lone surrogates too),
    /// biased toward the ASCII/latin1 edges where the rules change.
    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn unit() -> impl Strategy<Value = u16> {
            prop_oneof![
                0u16..0x80,
                0x7fu16..0x101,
                any::<u16>(),
                Just(0x09),
                Just(0x0a),
                Just(0x0d),
                Just(0)
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(20_000))]

            #[test]
            fn validators_match_reference(s in proptest::collection::vec(unit(), 0..40)) {
                prop_assert_eq!(is_token(&s), reference_token(&s));
                prop_assert_eq!(has_invalid_value_char(&s, false), reference_invalid(&s, false));
                prop_assert_eq!(has_invalid_value_char(&s, true), reference_invalid(&s, true));
            }

            #[test]
            fn one_bad_unit_anywhere_is_found(prefix in "[a-zA-Z0-9 ]{0,20}", bad in prop_oneof![Just(0u16), Just(10), Just(13), 0x100u16..], suffix in "[a-z ]{0,20}") {
                let s: Vec<u16> = prefix.encode_utf16().chain([bad]).chain(suffix.encode_utf16()).collect();
                prop_assert!(has_invalid_value_char(&s, false));
                prop_assert!(has_invalid_value_char(&s, true));
                prop_assert!(!is_token(&s));
            }
        }
    }
}
