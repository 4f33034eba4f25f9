//! Codex's text truncation (`utils/string/src/truncate.rs` and `utils/output-truncation` at the
//! reference commit): keep a head and a tail of whole characters around a marker. A legacy
//! compaction cuts the last user text it keeps with it (SPEC §2.2), and resume cuts long tool
//! outputs with it (SPEC §8 R1).

use std::borrow::Cow;

/// A truncation policy: a budget in bytes, or in tokens of four bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    Bytes(u64),
    Tokens(u64),
}

/// Codex's token estimate of a text of `len` bytes: one token per four bytes, rounded up.
pub(crate) fn tokens_for_bytes(len: u64) -> u64 {
    len.div_ceil(4)
}

impl Policy {
    /// The budget resume actually applies to a tool output: the limit × 1.2, rounded up
    /// (`history.rs` `process_item`). `(6n + 4) / 5` is that ceiling for every realistic `n`.
    pub fn serialization_budget(self) -> Policy {
        let scale = |n: u64| n.saturating_mul(6).saturating_add(4) / 5;
        match self {
            Policy::Bytes(n) => Policy::Bytes(scale(n)),
            Policy::Tokens(n) => Policy::Tokens(scale(n)),
        }
    }

    /// The budget in bytes.
    pub fn bytes(self) -> u64 {
        match self {
            Policy::Bytes(n) => n,
            Policy::Tokens(n) => n.saturating_mul(4),
        }
    }
}

/// `text` cut to `policy` (Codex's `truncate_text`).
/// Whether [`truncate_text`] leaves a text of `len` bytes as it is.
pub(crate) fn keeps(len: u64, policy: Policy) -> bool {
    let max = policy.bytes();
    len == 0 || (max > 0 && len <= max)
}

pub(crate) fn truncate_text(text: &str, policy: Policy) -> Cow<'_, str> {
    match policy {
        Policy::Bytes(max) => with_byte_estimate(text, max, false),
        Policy::Tokens(max) => {
            if text.is_empty() {
                return Cow::Borrowed(text);
            }
            if max > 0 && text.len() as u64 <= max.saturating_mul(4) {
                return Cow::Borrowed(text);
            }
            with_byte_estimate(text, max.saturating_mul(4), true)
        }
    }
}

fn marker(tokens: bool, n: u64) -> String {
    if tokens {
        format!("…{n} tokens truncated…")
    } else {
        format!("…{n} chars truncated…")
    }
}

fn with_byte_estimate(text: &str, max_bytes: u64, tokens: bool) -> Cow<'_, str> {
    if text.is_empty() {
        return Cow::Borrowed(text);
    }
    let len = text.len() as u64;
    if max_bytes == 0 {
        let n = if tokens {
            tokens_for_bytes(len)
        } else {
            text.chars().count() as u64
        };
        return Cow::Owned(marker(tokens, n));
    }
    if len <= max_bytes {
        return Cow::Borrowed(text);
    }
    let left = max_bytes / 2;
    let right = max_bytes - left;
    let (removed, head, tail) = split(text, left, right);
    let n = if tokens {
        tokens_for_bytes(len - max_bytes)
    } else {
        removed
    };
    Cow::Owned(format!("{head}{}{tail}", marker(tokens, n)))
}

/// What [`truncate_text`] keeps of a text of `len` bytes under `policy` when it keeps two ends
/// around a marker, as a token policy with a budget does: the byte budgets of the head and of
/// the tail ([`split`]'s), and the marker. `None` for any other cut, and when nothing is cut.
pub(crate) fn token_ends(len: u64, policy: Policy) -> Option<(usize, usize, String)> {
    let Policy::Tokens(max) = policy else {
        return None;
    };
    let max_bytes = max.saturating_mul(4);
    if max_bytes == 0 || len <= max_bytes {
        return None;
    }
    let left = max_bytes / 2;
    let n = tokens_for_bytes(len - max_bytes);
    let size = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    Some((size(left), size(max_bytes - left), marker(true, n)))
}

/// Where a token-policy [`truncate_text`] cuts `text`: the head's end, the marker, and the tail's
/// start (byte offsets into `text`); `None` when it keeps the text whole. A legacy compaction
/// sends the three as separate parts (Codex 0.169.0, SPEC §11.2 #5).
pub(crate) fn token_cut(text: &str, max: u64) -> Option<(usize, String, usize)> {
    if text.is_empty() || (max > 0 && text.len() as u64 <= max.saturating_mul(4)) {
        return None;
    }
    let len = text.len() as u64;
    let Some((left, right, marker)) = token_ends(len, Policy::Tokens(max)) else {
        return Some((0, self::marker(true, tokens_for_bytes(len)), text.len()));
    };
    let (_, head, tail) = split(text, left as u64, right as u64);
    Some((head.len(), marker, text.len() - tail.len()))
}

/// The longest head of whole characters within `left` bytes, the longest tail of whole
/// characters within `right` bytes, and how many characters lie between them. Only the cut
/// points are looked for; the characters between them are counted, not walked one by one.
fn split(text: &str, left: u64, right: u64) -> (u64, &str, &str) {
    let len = text.len();
    let mut head_end = usize::try_from(left).unwrap_or(usize::MAX).min(len);
    while !text.is_char_boundary(head_end) {
        head_end -= 1;
    }
    let right = usize::try_from(right).unwrap_or(usize::MAX);
    let mut tail_start = len.saturating_sub(right).max(head_end);
    while !text.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    let removed = text[head_end..tail_start].chars().count() as u64;
    (removed, &text[..head_end], &text[tail_start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstream_and_boundary_cases() {
        let t = |s: &str, p| truncate_text(s, p).into_owned();
        assert_eq!(t("", Policy::Tokens(0)), "");
        assert_eq!(t("abc", Policy::Tokens(0)), "…1 tokens truncated…");
        assert_eq!(t("abcdefgh", Policy::Bytes(0)), "…8 chars truncated…");
        assert_eq!(t("ééé", Policy::Bytes(0)), "…3 chars truncated…");
        let a48000 = "a".repeat(48_000);
        assert_eq!(t(&a48000, Policy::Tokens(12_000)), a48000);
        let cut = t(&"a".repeat(48_001), Policy::Tokens(12_000));
        assert_eq!(
            cut,
            format!(
                "{}…1 tokens truncated…{}",
                "a".repeat(24_000),
                "a".repeat(24_000)
            )
        );
        let cut = t(&"a".repeat(12_001), Policy::Bytes(12_000));
        assert_eq!(
            cut,
            format!(
                "{}…1 chars truncated…{}",
                "a".repeat(6_000),
                "a".repeat(6_000)
            )
        );
        assert_eq!(
            t("héllo wörld", Policy::Bytes(5)),
            "h…7 chars truncated…rld"
        );
        assert_eq!(
            t("日本語テキスト", Policy::Tokens(2)),
            "日…4 tokens truncated…ト"
        );
    }

    #[test]
    fn token_cuts_name_where_the_parts_split() {
        for (text, max) in [
            ("héllo wörld, long enough", 2),
            ("日本語テキスト", 2),
            ("abc", 0),
        ] {
            let (head, marker, tail) = token_cut(text, max).unwrap();
            let joined = format!("{}{marker}{}", &text[..head], &text[tail..]);
            assert_eq!(joined, truncate_text(text, Policy::Tokens(max)));
        }
        assert_eq!(token_cut("abcd", 1), None);
        assert_eq!(token_cut("", 0), None);
    }

    #[test]
    fn budgets_scale_by_a_fifth_rounded_up() {
        assert_eq!(
            Policy::Tokens(10_000).serialization_budget(),
            Policy::Tokens(12_000)
        );
        assert_eq!(Policy::Tokens(1).serialization_budget(), Policy::Tokens(2));
        assert_eq!(Policy::Bytes(4).serialization_budget(), Policy::Bytes(5));
        assert_eq!(Policy::Bytes(0).serialization_budget(), Policy::Bytes(0));
        for n in 0..5000u64 {
            assert_eq!(
                Policy::Tokens(n).serialization_budget(),
                Policy::Tokens((n as f64 * 1.2).ceil() as u64)
            );
        }
    }

    /// Upstream's definition, a character at a time: a character ending within `left` bytes is
    /// head, one starting within the last `right` bytes (and not head) is tail, the rest go.
    fn split_by_walking(text: &str, left: u64, right: u64) -> (u64, &str, &str) {
        let tail_target = (text.len() as u64).saturating_sub(right);
        let (mut head_end, mut tail_start, mut removed) = (0, None, 0);
        for (at, c) in text.char_indices() {
            let end = (at + c.len_utf8()) as u64;
            if end <= left {
                head_end = end as usize;
            } else if at as u64 >= tail_target {
                tail_start.get_or_insert(at);
            } else {
                removed += 1;
            }
        }
        let tail_start = tail_start.unwrap_or(text.len()).max(head_end);
        (removed, &text[..head_end], &text[tail_start..])
    }

    proptest::proptest! {
        #[test]
        fn split_cuts_where_walking_the_characters_does(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec!["a", "é", "日", "😀", "\n"]), 0..40),
            left in 0u64..50,
            right in 0u64..50,
        ) {
            let text = pieces.concat();
            proptest::prop_assert_eq!(split(&text, left, right), split_by_walking(&text, left, right));
        }
    }
}
