//! The table of call ids: each distinct `call_id` stored once, items refer to it by index
//! ([`CallKey`]). Strings are compared by their decoded bytes, lone surrogates kept apart (see
//! `json::decode_key`); any other JSON value is kept as its text and pairs with nothing.

use super::item::CallKey;
use crate::intern::Strings;
use crate::json;

#[derive(Debug, Default)]
pub(crate) struct CallIds {
    strings: Strings,
    others: Strings,
}

impl CallIds {
    /// The key of a `call_id` given as its raw JSON, cut from a classified line (so UTF-8
    /// already); absent: none.
    pub fn key(&mut self, raw: Option<&[u8]>) -> CallKey {
        let Some(raw) = raw.filter(|&raw| raw != b"null") else {
            return CallKey::NONE;
        };
        match json::decode_key(raw) {
            Some(key) => self.key_decoded(&key),
            None => CallKey::other(self.others.intern(raw)),
        }
    }

    /// The key of a string `call_id` already decoded.
    pub fn key_decoded(&mut self, decoded: &[u8]) -> CallKey {
        CallKey::string(self.strings.intern(decoded))
    }

    /// How many distinct string ids there are (the range of [`CallKey::pairing`]).
    pub fn strings(&self) -> usize {
        self.strings.len()
    }

    /// What a key stands for.
    pub fn get(&self, key: CallKey) -> CallId<'_> {
        if key.is_none() {
            return CallId::None;
        }
        match key.pairing() {
            Some(index) => CallId::Str(self.strings.get(index)),
            None => CallId::Other(self.others.get((key.0 & !CallKey::OTHER) - 1)),
        }
    }
}

/// A call id as the report shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallId<'a> {
    None,
    /// The decoded key of a string (WTF-8 where it held a lone surrogate).
    Str(&'a [u8]),
    /// The raw JSON text of any other value.
    Other(&'a [u8]),
}

impl CallId<'_> {
    /// As text: a string decoded (U+FFFD for a lone surrogate), any other value as its JSON.
    pub fn text(self) -> String {
        match self {
            CallId::None => "null".into(),
            CallId::Str(key) => json::lossy_key(key),
            CallId::Other(raw) => String::from_utf8_lossy(raw).into_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_interned_by_their_decoded_text() {
        let mut ids = CallIds::default();
        let a = ids.key(Some(br#""c1""#));
        assert_eq!(ids.key(Some(br#""c\u0031""#)), a);
        let b = ids.key(Some(br#""c2""#));
        assert_ne!(a, b);
        assert_eq!(ids.key(Some(b"null")), CallKey::NONE);
        assert_eq!(ids.key(None), CallKey::NONE);
        let n = ids.key(Some(b"7"));
        assert_eq!(n.pairing(), None);
        assert_eq!(ids.get(n), CallId::Other(b"7"));
        assert_eq!(ids.get(a).text(), "c1");
        assert_eq!(ids.strings(), 2);
        let lone = ids.key(Some(br#""\ud800""#));
        assert_ne!(lone, ids.key(Some("\"\u{10F000}\"".as_bytes())));
        assert_eq!(ids.get(lone).text(), "\u{FFFD}");
    }
}
