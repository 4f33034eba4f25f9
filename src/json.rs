//! Walks JSON text that serde_json has already validated: object members and array elements as
//! borrowed byte ranges, and string decoding. Nothing here allocates unless a string has escapes.
//!
//! The walkers assume valid input (every caller validates the whole line first) but never panic
//! on invalid input: they stop early instead.

use std::borrow::Cow;
use std::ops::Range;

/// One `"key": value` member of an object, as ranges into the object's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The key's raw text, quotes included.
    pub key: Range<usize>,
    /// The value's raw text.
    pub value: Range<usize>,
}

/// Iterates the members of the object `text` (which starts with `{`), in source order.
pub fn members(text: &str) -> Members<'_> {
    let bytes = text.as_bytes();
    let pos = if bytes.first() == Some(&b'{') {
        1
    } else {
        bytes.len()
    };
    Members { bytes, pos }
}

pub struct Members<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Iterator for Members<'_> {
    type Item = Member;

    fn next(&mut self) -> Option<Member> {
        let b = self.bytes;
        let mut pos = skip_ws(b, self.pos);
        if b.get(pos) == Some(&b',') {
            pos = skip_ws(b, pos + 1);
        }
        if b.get(pos) != Some(&b'"') {
            self.pos = b.len();
            return None;
        }
        let key_end = skip_string(b, pos);
        let colon = skip_ws(b, key_end);
        if b.get(colon) != Some(&b':') {
            self.pos = b.len();
            return None;
        }
        let value_start = skip_ws(b, colon + 1);
        let value_end = skip_value(b, value_start);
        self.pos = value_end;
        Some(Member {
            key: pos..key_end,
            value: value_start..value_end,
        })
    }
}

/// Iterates the elements of the array `text` (which starts with `[`) as ranges into it.
pub fn elements(text: &str) -> Elements<'_> {
    let bytes = text.as_bytes();
    let pos = if bytes.first() == Some(&b'[') {
        1
    } else {
        bytes.len()
    };
    Elements { bytes, pos }
}

pub struct Elements<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Iterator for Elements<'_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        let b = self.bytes;
        let mut pos = skip_ws(b, self.pos);
        if b.get(pos) == Some(&b',') {
            pos = skip_ws(b, pos + 1);
        }
        match b.get(pos) {
            None | Some(b']') => {
                self.pos = b.len();
                None
            }
            Some(_) => {
                let end = skip_value(b, pos);
                if end <= pos {
                    self.pos = b.len();
                    return None;
                }
                self.pos = end;
                Some(pos..end)
            }
        }
    }
}

/// The value of the last member named `name` (JSON objects with duplicate keys mean the last one,
/// as in most parsers), as a slice of `object`.
pub fn get<'a>(object: &'a str, name: &str) -> Option<&'a str> {
    let mut found = None;
    for m in members(object) {
        if key_is(&object[m.key.clone()], name) {
            found = Some(m.value);
        }
    }
    found.map(|r| &object[r])
}

/// Whether the raw key text (quotes included) decodes to `name`.
pub fn key_is(raw_key: &str, name: &str) -> bool {
    match raw_key.strip_prefix('"').and_then(|k| k.strip_suffix('"')) {
        Some(inner) if !inner.contains('\\') => inner == name,
        _ => decode_str(raw_key).is_some_and(|k| k == name),
    }
}

/// Decodes a raw JSON string (quotes included); `None` when `raw` is not a string.
/// A lone surrogate escape, which JSON allows but UTF-8 cannot hold, becomes U+FFFD.
pub fn decode_str(raw: &str) -> Option<Cow<'_, str>> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains('\\') {
        return Some(Cow::Borrowed(inner));
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let unit = hex4(&mut chars);
                if (0xD800..0xDC00).contains(&unit) {
                    // A high surrogate: a low one must follow as another escape.
                    let mut look = chars.clone();
                    if look.next() == Some('\\') && look.next() == Some('u') {
                        let low = hex4(&mut look);
                        if (0xDC00..0xE000).contains(&low) {
                            let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                            out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                            chars = look;
                            continue;
                        }
                    }
                    out.push('\u{FFFD}');
                } else {
                    out.push(char::from_u32(unit).unwrap_or('\u{FFFD}'));
                }
            }
            Some(other) => out.push(other),
            None => break,
        }
    }
    Some(Cow::Owned(out))
}

fn hex4(chars: &mut std::str::Chars<'_>) -> u32 {
    let mut n = 0;
    for _ in 0..4 {
        n = n * 16 + chars.next().and_then(|c| c.to_digit(16)).unwrap_or(0);
    }
    n
}

fn skip_ws(b: &[u8], mut pos: usize) -> usize {
    while let Some(c) = b.get(pos) {
        if !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
            break;
        }
        pos += 1;
    }
    pos
}

/// End of the string starting at `pos` (which holds `"`): the index after its closing quote.
fn skip_string(b: &[u8], pos: usize) -> usize {
    let mut at = pos + 1;
    while let Some(off) = memchr::memchr2(b'"', b'\\', b.get(at..).unwrap_or_default()) {
        let hit = at + off;
        if b[hit] == b'"' {
            return hit + 1;
        }
        at = hit + 2;
    }
    b.len()
}

/// End of the value starting at `pos`. Iterative, so nesting depth costs no stack.
fn skip_value(b: &[u8], pos: usize) -> usize {
    match b.get(pos) {
        Some(b'"') => skip_string(b, pos),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut at = pos;
            while let Some(&c) = b.get(at) {
                match c {
                    b'"' => {
                        at = skip_string(b, at);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return at + 1;
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
            b.len()
        }
        Some(_) => {
            let mut at = pos;
            while let Some(c) = b.get(at) {
                if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                    break;
                }
                at += 1;
            }
            at
        }
        None => pos,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member_texts(text: &str) -> Vec<(&str, &str)> {
        members(text)
            .map(|m| (&text[m.key], &text[m.value]))
            .collect()
    }

    #[test]
    fn members_keep_raw_spelling() {
        let text = r#"{ "a" : 1e400 , "b\"":{"x":[1,{"y":"]}"}]}, "c":"s\\\"" ,"d":null}"#;
        assert_eq!(
            member_texts(text),
            vec![
                (r#""a""#, "1e400"),
                (r#""b\"""#, r#"{"x":[1,{"y":"]}"}]}"#),
                (r#""c""#, r#""s\\\"""#),
                (r#""d""#, "null"),
            ]
        );
        assert_eq!(member_texts("{}"), vec![]);
        assert_eq!(member_texts("{ }"), vec![]);
    }

    #[test]
    fn elements_of_arrays() {
        let text = r#"[ 1, "a,]" ,{"b":[2]} ,[[]] ]"#;
        let got: Vec<&str> = elements(text).map(|r| &text[r]).collect();
        assert_eq!(got, vec!["1", r#""a,]""#, r#"{"b":[2]}"#, "[[]]"]);
        assert_eq!(elements("[]").count(), 0);
        assert_eq!(elements("[ ]").count(), 0);
    }

    #[test]
    fn last_duplicate_key_wins() {
        assert_eq!(get(r#"{"type":"a","type":"b"}"#, "type"), Some(r#""b""#));
        assert_eq!(get(r#"{"typ\u0065":"a"}"#, "type"), Some(r#""a""#));
        assert_eq!(get(r#"{"x":1}"#, "type"), None);
    }

    #[test]
    fn decodes_escapes_and_surrogates() {
        assert_eq!(decode_str(r#""plain""#).as_deref(), Some("plain"));
        assert_eq!(
            decode_str(r#""a\n\t\"\\\/\u00e9\ud83d\ude00""#).as_deref(),
            Some("a\n\t\"\\/é😀")
        );
        assert_eq!(decode_str(r#""\ud800x""#).as_deref(), Some("\u{FFFD}x"));
        assert_eq!(decode_str(r#""\udc00""#).as_deref(), Some("\u{FFFD}"));
        assert_eq!(decode_str("12"), None);
    }

    #[test]
    fn deep_nesting_needs_no_stack() {
        let deep = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
        let text = format!(r#"{{"a":{deep},"b":2}}"#);
        assert_eq!(get(&text, "b"), Some("2"));
    }
}
