//! Terminal-safe text: logs hold untrusted text, so control characters (C0, DEL, C1),
//! bidirectional controls and invisible marks are shown as visible escapes in every
//! human-readable output, and as `\uXXXX` in JSON written to a terminal.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Whether `c` must not reach a terminal raw: it acts on the terminal (controls), reorders what
/// is shown (bidirectional controls), or shows nothing while being there (zero-width and other
/// invisible marks: Unicode's default-ignorable characters, and the blank Hangul fillers).
/// Variation selectors are left alone: they only pick the look of the character before them.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{061C}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{17B4}'
                | '\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{3164}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF0}'..='\u{FFFB}'
                | '\u{1BCA0}'..='\u{1BCA3}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0000}'..='\u{E0FFF}'
        ) && !is_variation_selector(c)
}

/// VS1–VS256, whose block U+E0100–U+E01EF lies inside the range of tags and other ignorables.
fn is_variation_selector(c: char) -> bool {
    matches!(c, '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
}

/// Writes `c` as JSON escapes: `\uXXXX`, or a surrogate pair beyond the Basic Multilingual Plane.
pub fn json_escape(c: char, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
    let mut units = [0; 2];
    for unit in c.encode_utf16(&mut units) {
        write!(out, "\\u{unit:04x}")?;
    }
    Ok(())
}

/// A writer of JSON text for a terminal: every unsafe character (see [`is_unsafe`]) becomes a
/// `\uXXXX` escape, so the JSON means the same but nothing in it acts on the terminal. JSON
/// whitespace between values passes as it is; raw unsafe characters can only be inside strings.
pub struct SafeJson<W: Write> {
    inner: W,
    /// The first bytes of a character split across writes.
    carry: Vec<u8>,
}

impl<W: Write> SafeJson<W> {
    pub fn new(inner: W) -> SafeJson<W> {
        SafeJson {
            inner,
            carry: Vec::new(),
        }
    }

    fn put(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        while !bytes.is_empty() {
            let (valid, rest) = match std::str::from_utf8(bytes) {
                Ok(text) => (text, &[][..]),
                Err(e) => {
                    let (good, bad) = bytes.split_at(e.valid_up_to());
                    // `good` is valid UTF-8, as the error says.
                    let good = std::str::from_utf8(good).unwrap_or_default();
                    match e.error_len() {
                        // Cut short: keep it for the next write.
                        None => {
                            self.write_text(good)?;
                            self.carry.extend_from_slice(bad);
                            return Ok(());
                        }
                        Some(n) => {
                            self.write_text(good)?;
                            // Not UTF-8 (rollcall prints none, but never pass a stray 0x9B).
                            self.inner.write_all("\u{FFFD}".as_bytes())?;
                            bytes = &bad[n..];
                            continue;
                        }
                    }
                }
            };
            self.write_text(valid)?;
            bytes = rest;
        }
        Ok(())
    }

    fn write_text(&mut self, text: &str) -> io::Result<()> {
        let mut start = 0;
        for (i, c) in text.char_indices() {
            if is_unsafe(c) && !c.is_ascii_whitespace() {
                self.inner.write_all(&text.as_bytes()[start..i])?;
                json_escape(c, &mut self.inner)?;
                start = i + c.len_utf8();
            }
        }
        self.inner.write_all(&text.as_bytes()[start..])
    }
}

impl<W: Write> Write for SafeJson<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        if self.carry.is_empty() && buf.iter().all(|&b| b < 0x7f && (b >= 0x20 || b == b'\n')) {
            return self.inner.write_all(buf);
        }
        if self.carry.is_empty() {
            return self.put(buf);
        }
        let mut joined = std::mem::take(&mut self.carry);
        joined.extend_from_slice(buf);
        self.put(&joined)
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.carry.is_empty() {
            self.carry.clear();
            self.inner.write_all("\u{FFFD}".as_bytes())?;
        }
        self.inner.flush()
    }
}

/// `text` with unsafe characters escaped (`\n` as `\n`, others as `\u{1b}`).
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_keeping(text, false)
}

/// Like [`escape`], but line breaks stay line breaks (for multi-line transcript text).
pub fn escape_multiline(text: &str) -> Cow<'_, str> {
    escape_keeping(text, true)
}

fn escape_keeping(text: &str, newlines: bool) -> Cow<'_, str> {
    let keep = |c: char| (newlines && c == '\n') || !is_unsafe(c);
    if text.chars().all(keep) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            c if keep(c) => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_terminal_controls() {
        assert_eq!(escape("plain ü"), "plain ü");
        assert_eq!(
            escape("\u{1b}[31mred\u{7}\r\n\u{9b}2J\u{202e}"),
            "\\u{1b}[31mred\\u{7}\\r\\n\\u{9b}2J\\u{202e}"
        );
        assert_eq!(escape_multiline("a\nb\u{1b}]0;x"), "a\nb\\u{1b}]0;x");
    }
}
