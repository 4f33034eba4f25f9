//! How Claude Code 2.1.328 spells a block on the wire: it holds the transcript as JavaScript
//! values and sends them with `JSON.stringify`, so every number is a double printed the
//! JavaScript way (SPEC §11.3.11). The view copies a block's text as the log has it and
//! rewrites only the numbers that would print differently.

use std::ops::Range;

use crate::json::{self, Walked};

/// Copies the JSON text at `range` of `text` into `out`, every number printed as
/// `JSON.stringify` prints the double it reads as (`12345678901234567890` →
/// `12345678901234567000`, `1.0` → `1`, `1e21` → `1e+21`). Strings are copied as they are; the
/// long ones a walk of `text` found (`known`) are stepped over, not scanned again (a tool
/// result's text is most of a view's bytes, and looked at escape by escape, it was a third of
/// writing a Claude Code view). One pass, no allocation for text whose numbers are already in
/// that form.
pub(crate) fn write_js(text: &str, range: Range<usize>, known: &[Walked], out: &mut Vec<u8>) {
    let base = range.start;
    // A known string is stepped over only where it ends inside the range.
    let within = &text.as_bytes()[..range.end];
    let raw = &text.as_bytes()[range];
    let mut known = &known[known.partition_point(|k| (k.at as usize) < base)..];
    let mut i = 0;
    let mut copied = 0;
    while i < raw.len() {
        match raw[i] {
            b'"' => {
                i = match json::known_end(&mut known, within, base + i) {
                    Some(end) => end - base,
                    None => string_end(raw, i),
                }
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                i += 1;
                while i < raw.len()
                    && matches!(raw[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                {
                    i += 1;
                }
                let token = &raw[start..i];
                if !is_js_form(token) {
                    out.extend_from_slice(&raw[copied..start]);
                    let text = std::str::from_utf8(token).unwrap_or("0");
                    js_number(text.parse::<f64>().unwrap_or(0.0), out);
                    copied = i;
                }
            }
            _ => i += 1,
        }
    }
    out.extend_from_slice(&raw[copied..]);
}

/// The offset just past the string that starts at `at`.
fn string_end(raw: &[u8], at: usize) -> usize {
    let mut i = at + 1;
    while let Some(off) = memchr::memchr2(b'"', b'\\', &raw[i..]) {
        i += off;
        if raw[i] == b'\\' {
            i += 2;
        } else {
            return i + 1;
        }
    }
    raw.len()
}

/// Whether a number token already is what `JSON.stringify` prints: an integer of at most 15
/// digits without a needless sign or zero (every such integer is exact in a double).
fn is_js_form(token: &[u8]) -> bool {
    let digits = token.strip_prefix(b"-").unwrap_or(token);
    !digits.is_empty()
        && digits.len() <= 15
        && digits.iter().all(u8::is_ascii_digit)
        && (digits == b"0" && token.len() == 1 || digits[0] != b'0')
}

/// ECMAScript's Number::toString of `x` (as `JSON.stringify` prints it: `null` when not finite).
pub(crate) fn js_number(x: f64, out: &mut Vec<u8>) {
    if !x.is_finite() {
        out.extend_from_slice(b"null");
        return;
    }
    if x == 0.0 {
        out.push(b'0');
        return;
    }
    // Rust prints the shortest digits that read back as `x`, as ECMAScript asks.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let k = digits.len() as i32;
    let n = exponent.parse::<i32>().unwrap_or(0) + 1;
    if x < 0.0 {
        out.push(b'-');
    }
    let zeros =
        |count: i32, out: &mut Vec<u8>| out.extend(std::iter::repeat_n(b'0', count as usize));
    if k <= n && n <= 21 {
        out.extend_from_slice(digits.as_bytes());
        zeros(n - k, out);
    } else if 0 < n && n <= 21 {
        out.extend_from_slice(&digits.as_bytes()[..n as usize]);
        out.push(b'.');
        out.extend_from_slice(&digits.as_bytes()[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.extend_from_slice(b"0.");
        zeros(-n, out);
        out.extend_from_slice(digits.as_bytes());
    } else {
        out.push(digits.as_bytes()[0]);
        if k > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits.as_bytes()[1..]);
        }
        let e = n - 1;
        out.extend_from_slice(format!("e{}{}", if e >= 0 { "+" } else { "-" }, e.abs()).as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn js(raw: &str) -> String {
        let mut out = Vec::new();
        write_js(raw, 0..raw.len(), &[], &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn numbers_print_as_javascript_prints_the_double() {
        // The forms the live check saw Claude Code 2.1.328 send (claude.md class 15).
        let cases = [
            ("12345678901234567890", "12345678901234567000"),
            ("9007199254740993", "9007199254740992"),
            ("123456789012345678901234567890", "1.2345678901234568e+29"),
            ("1.0", "1"),
            ("-0.0", "0"),
            ("1.5e300", "1.5e+300"),
            ("1e21", "1e+21"),
            ("1e-7", "1e-7"),
            ("100.50", "100.5"),
            ("0.1", "0.1"),
            ("600000", "600000"),
            ("-12", "-12"),
            ("0.000001", "0.000001"),
            ("1e400", "null"),
        ];
        for (raw, sent) in cases {
            assert_eq!(js(raw), sent, "{raw}");
        }
    }

    /// The long strings a walk found are stepped over; where the text no longer has them
    /// (a list from another reading), the strings are scanned as if none were known.
    #[test]
    fn known_strings_are_stepped_over_and_checked() {
        let long = "1.0 \\\" ".repeat(60);
        let text = format!(r#"{{"a":"{long}","b":[1.0,"{long}2.50"],"c":2.50}}"#);
        let mut p = crate::json::Parser::remembering(&text);
        p.value().unwrap();
        let known = p.long_strings();
        assert_eq!(known.len(), 2);
        let written = |range: Range<usize>, known: &[Walked]| {
            let mut out = Vec::new();
            write_js(&text, range, known, &mut out);
            String::from_utf8(out).unwrap()
        };
        let whole = written(0..text.len(), &[]);
        assert_eq!(
            whole,
            text.replace("[1.0,", "[1,").replace(":2.50}", ":2.5}")
        );
        assert_eq!(written(0..text.len(), &known), whole);
        // A block of the text: the known strings before it are passed over.
        let b = text.find("[1.0").unwrap()..text.len() - 1;
        assert_eq!(written(b.clone(), &known), js(&text[b.clone()]));
        // Strings known one byte off, or ending past the block, are scanned instead.
        let off: Vec<Walked> = known
            .iter()
            .map(|k| Walked { at: k.at + 1, ..*k })
            .collect();
        assert_eq!(written(0..text.len(), &off), whole);
        let cut: Vec<Walked> = known
            .iter()
            .map(|k| Walked {
                end: k.end - 1,
                ..*k
            })
            .collect();
        assert_eq!(written(0..text.len(), &cut), whole);
        let short = text.find(",\"c\"").unwrap();
        assert_eq!(
            written(b.start..short - 5, &known),
            js(&text[b.start..short - 5])
        );
    }

    #[test]
    fn strings_are_copied_as_they_are() {
        let raw = r#"{"a":"1.0 \"2.0\" \\","b":[1.0,2],"c\u0031":3}"#;
        assert_eq!(js(raw), r#"{"a":"1.0 \"2.0\" \\","b":[1,2],"c\u0031":3}"#);
    }
}
