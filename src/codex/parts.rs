//! Content parts: what a message's `content` or a tool output's array `output` holds, read once
//! when the item is classified (media counts, contextual fragments, the text a compaction keeps).

use std::ops::Range;

use super::item::{self, Flags, Item, ItemKind};
use super::turns;
use crate::json::Parser;

/// What an array of content parts holds.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Summary {
    pub images: u32,
    pub audio: u32,
    /// An `input_text` part is a contextual fragment (SPEC §2.1).
    pub contextual: bool,
}

/// Reads the parts of a `content` or `output` value, when it is an array.
pub(crate) fn scan(text: &str, value: &Option<Range<usize>>) -> Summary {
    let mut summary = Summary::default();
    let Some(range) = value else {
        return summary;
    };
    let raw = &text[range.clone()];
    if !raw.starts_with('[') {
        return summary;
    }
    let mut p = Parser::new(raw);
    let walked = p.array(|p| {
        if p.peek() != Some(b'{') {
            return Ok(false);
        }
        let (mut kind, mut body) = (None, None);
        p.object(|p, key| {
            let slot = match &*item::key_name(key) {
                "type" => &mut kind,
                "text" => &mut body,
                _ => return Ok(false),
            };
            *slot = Some(p.value()?);
            Ok(true)
        })?;
        match item::string(raw, &kind).as_deref() {
            Some("input_image") => summary.images += 1,
            Some("input_audio") => summary.audio += 1,
            Some("input_text") => {
                let body = item::string(raw, &body);
                summary.contextual |= body.is_some_and(|t| turns::is_contextual_fragment(&t));
            }
            _ => {}
        }
        Ok(true)
    });
    debug_assert!(walked.is_ok(), "the line was validated whole");
    summary
}

impl Summary {
    /// Sets the item's flags from its parts; `role` for messages.
    pub fn flag(&self, item: &mut Item, role: Option<&str>) {
        if self.images + self.audio > 0 {
            item.flags.0 |= Flags::MEDIA;
        }
        let prep = item::Prep::new(self.audio, self.images);
        item.prep = prep;
        if item.kind == ItemKind::Message && role == Some("user") {
            item.flags.0 |= Flags::ROLE_USER;
            if !self.contextual {
                item.flags.0 |= Flags::USER;
            }
        }
    }
}

/// A media part's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MediaPart {
    Image,
    Audio,
}

/// Where the `input_image` and `input_audio` parts of an array value are, in order.
pub(crate) fn media(text: &str, value: &Option<Range<usize>>) -> Vec<(Range<usize>, MediaPart)> {
    let mut found = Vec::new();
    let Some(range) = value else {
        return found;
    };
    if !text[range.clone()].starts_with('[') {
        return found;
    }
    let mut p = Parser::new(text);
    p.seek(range.start);
    let _ = p.array(|p| {
        if p.peek() != Some(b'{') {
            return Ok(false);
        }
        let mut kind = None;
        let at = p.object(|p, key| {
            if &*item::key_name(key) != "type" {
                return Ok(false);
            }
            kind = Some(p.value()?);
            Ok(true)
        })?;
        match item::string(text, &kind).as_deref() {
            Some("input_image") => found.push((at, MediaPart::Image)),
            Some("input_audio") => found.push((at, MediaPart::Audio)),
            _ => {}
        }
        Ok(true)
    });
    found
}
