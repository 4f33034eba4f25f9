//! Terminal-safe text: logs hold untrusted text, so control characters (C0, DEL, C1) and
//! bidirectional overrides are shown as visible escapes in every human-readable output.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` must not reach a terminal raw.
pub fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
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
