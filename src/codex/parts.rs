//! Content parts: what a message's `content` or a tool output's array `output` holds, read once
//! when the item is classified — media counts, contextual fragments, context updates, and the
//! text a legacy compaction keeps of a user message (SPEC §2.1, §2.2).

use std::borrow::Cow;
use std::ops::Range;

use super::item::{self, Flags, Item, ItemKind};
use super::turns;
use crate::json::{self, Parser};

/// Codex's compaction summary prefix (`prompts/templates/compact/summary_prefix.md`): a user
/// message whose text starts with it and a newline is an earlier summary, which a legacy
/// compaction leaves out.
pub(crate) const SUMMARY_PREFIX: &str = "Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:";

/// One part of a content array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Part {
    /// The part object's range in the text.
    pub range: Range<usize>,
    pub kind: PartKind,
    /// The raw `text` member, for text parts.
    pub text: Option<Range<usize>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PartKind {
    InputText,
    OutputText,
    Image,
    Audio,
    Other,
}

/// The parts of the array value at `value` of `text`, a text whose long strings a walk found
/// valid at `known`; empty when it is not an array.
pub(crate) fn parts(text: &str, known: &[json::Walked], value: &Option<Range<usize>>) -> Vec<Part> {
    let mut found = Vec::new();
    let Some(range) = value else {
        return found;
    };
    if !text[range.clone()].starts_with('[') {
        return found;
    }
    let mut p = Parser::knowing(text, known);
    p.seek(range.start);
    let walked = p.array(|p| {
        if p.peek() != Some(b'{') {
            found.push(Part {
                range: p.value()?,
                kind: PartKind::Other,
                text: None,
            });
            return Ok(true);
        }
        let (mut kind, mut body) = (None, None);
        let range = p.object(|p, key| {
            let slot = match &*key.name() {
                "type" => &mut kind,
                "text" => &mut body,
                _ => return Ok(false),
            };
            *slot = Some(p.value()?);
            Ok(true)
        })?;
        let kind = match json::string_at(text, &kind).as_deref() {
            Some("input_text") => PartKind::InputText,
            Some("output_text") => PartKind::OutputText,
            Some("input_image") => PartKind::Image,
            Some("input_audio") => PartKind::Audio,
            _ => PartKind::Other,
        };
        found.push(Part {
            range,
            kind,
            text: body,
        });
        Ok(true)
    });
    debug_assert!(walked.is_ok(), "the line was validated whole");
    found
}

impl Part {
    /// The decoded text of a text part.
    pub fn text<'t>(&self, text: &'t str) -> Option<Cow<'t, str>> {
        json::string_at(text, &self.text)
    }
}

/// Whether the `input_text` part at `i` is the label of the media part beside it (`<image>`,
/// `<image name=…>` before it, `</image>` after it; the same for audio), which a compaction's
/// text skips.
fn is_label(parts: &[Part], i: usize, text: &str) -> bool {
    let is = |j: Option<usize>, kind: PartKind| {
        j.and_then(|j| parts.get(j)).is_some_and(|p| p.kind == kind)
    };
    [(PartKind::Image, "image"), (PartKind::Audio, "audio")]
        .into_iter()
        .any(|(kind, name)| {
            // `<name>` or `<name name=…>`; `</name>`.
            let open = text
                .strip_prefix('<')
                .and_then(|t| t.strip_prefix(name))
                .is_some_and(|rest| {
                    rest == ">" || (rest.starts_with(" name=") && rest.ends_with('>'))
                });
            let close = text.strip_prefix("</").and_then(|t| t.strip_prefix(name)) == Some(">");
            (open && is(Some(i + 1), kind)) || (close && i > 0 && is(i.checked_sub(1), kind))
        })
}

/// The text Codex keeps of a user message when it compacts (SPEC §2.2): its `input_text` parts
/// joined with `""`, media labels skipped. Calls `each` with the pieces, in order.
pub(crate) fn compaction_text(text: &str, parts: &[Part], each: impl FnMut(&str)) {
    compaction_pieces(parts, &texts(text, parts), each);
}

/// The decoded text of each `input_text` part, by part.
fn texts<'t>(text: &'t str, parts: &[Part]) -> Vec<Option<Cow<'t, str>>> {
    let input_text = |p: &Part| p.kind == PartKind::InputText;
    parts
        .iter()
        .map(|p| input_text(p).then(|| p.text(text)).flatten())
        .collect()
}

/// [`compaction_text`] of parts whose `input_text` bodies are decoded already (`bodies`, by
/// part).
fn compaction_pieces(parts: &[Part], bodies: &[Option<Cow<'_, str>>], mut each: impl FnMut(&str)) {
    for (i, body) in bodies.iter().enumerate() {
        if let Some(body) = body
            && !is_label(parts, i, body)
        {
            each(body);
        }
    }
}

/// What a message's or output's parts say about the item.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Summary {
    pub images: u32,
    pub audio: u32,
    /// An `input_text` part is a contextual fragment (SPEC §2.1).
    pub contextual: bool,
    /// An `input_text` part starts with a developer-context marker.
    pub developer_context: bool,
    /// An `input_text` part is a whole `<model_switch>` section.
    pub model_switch: bool,
    /// Exactly one text part, holding an inter-agent communication.
    pub communication: bool,
    /// The byte length of the text a compaction keeps, and whether it is an earlier summary.
    pub text_len: u64,
    pub summary: bool,
    /// An `input_text` part holds `""`.
    pub empty_text: bool,
}

/// Reads the parts of a message (`role` given) or of a tool output's array, in a text whose
/// long strings a walk found valid at `known`.
pub(crate) fn scan(
    text: &str,
    known: &[json::Walked],
    value: &Option<Range<usize>>,
    role: Option<&str>,
) -> Summary {
    let parts = parts(text, known, value);
    // Decoded once: a user message's are read again for its compaction text.
    let bodies = texts(text, &parts);
    let mut s = Summary::default();
    for (part, body) in parts.iter().zip(&bodies) {
        match part.kind {
            PartKind::Image => s.images += 1,
            PartKind::Audio => s.audio += 1,
            PartKind::InputText => {
                let Some(body) = body else {
                    continue;
                };
                s.empty_text |= body.is_empty();
                match role {
                    Some("user") => s.contextual |= turns::is_contextual_fragment(body),
                    Some("developer") => {
                        s.developer_context |= turns::is_developer_context(body);
                        s.model_switch |= turns::is_model_switch(body);
                    }
                    _ => {}
                }
            }
            PartKind::OutputText | PartKind::Other => {}
        }
    }
    match role {
        Some("user") if !s.contextual => {
            let mut head = String::new();
            compaction_pieces(&parts, &bodies, |piece| {
                s.text_len += piece.len() as u64;
                if head.len() <= SUMMARY_PREFIX.len() {
                    head.push_str(piece);
                }
            });
            s.summary = is_summary(&head);
        }
        Some("assistant") => {
            s.communication = match parts.as_slice() {
                [only] if matches!(only.kind, PartKind::InputText | PartKind::OutputText) => only
                    .text(text)
                    .is_some_and(|t| turns::is_communication_text(&t)),
                _ => false,
            };
        }
        _ => {}
    }
    s
}

/// Whether a compaction text is an earlier summary.
pub(crate) fn is_summary(text: &str) -> bool {
    text.strip_prefix(SUMMARY_PREFIX)
        .is_some_and(|rest| rest.starts_with('\n'))
}

impl Summary {
    /// Sets the item's flags from its parts; `role` for messages.
    pub fn flag(&self, item: &mut Item, role: Option<&str>) {
        if self.images + self.audio > 0 {
            item.flags.insert(Flags::MEDIA);
        }
        item.prep = item::PrepCounts::new(false, 0, 0, self.audio, self.images);
        if item.kind != ItemKind::Message {
            return;
        }
        match role {
            Some("user") => {
                item.flags.insert(Flags::ROLE_USER);
                if self.contextual {
                    item.flags.insert(Flags::CONTEXT_UPDATE);
                } else {
                    item.flags.insert(Flags::USER);
                    item.aux = u32::try_from(self.text_len).unwrap_or(u32::MAX);
                    if self.summary {
                        item.flags.insert(Flags::SUMMARY);
                    }
                }
            }
            Some("developer") => {
                item.flags.insert(Flags::ROLE_DEVELOPER);
                if self.developer_context {
                    item.flags.insert(Flags::CONTEXT_UPDATE);
                }
                if self.model_switch {
                    item.flags.insert(Flags::MODEL_SWITCH);
                }
            }
            Some("assistant") if self.communication => item.flags.insert(Flags::INTER_AGENT),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(content: &str, role: &str) -> Summary {
        let text = format!(r#"{{"content":{content}}}"#);
        let start = text.find('[').unwrap_or(11);
        scan(&text, &[], &Some(start..text.len() - 1), Some(role))
    }

    #[test]
    fn compaction_text_joins_parts_and_skips_labels() {
        let s = summary(
            r#"[{"type":"input_text","text":"<image>"},{"type":"input_image","image_url":"x"},{"type":"input_text","text":"</image>"},{"type":"input_text","text":"ab"},{"type":"output_text","text":"ignored"},{"type":"input_text","text":"</image>"}]"#,
            "user",
        );
        assert_eq!((s.images, s.text_len), (1, 10)); // "ab" + a label not beside its image
        assert!(!s.contextual);
    }

    /// Only a label beside its own kind of media is skipped: `<image name=…>` needs its `>`,
    /// and `<audio>` does not label an image.
    #[test]
    fn labels_are_told_by_their_form_and_their_neighbour() {
        let len = |labels: [&str; 2]| {
            let content = format!(
                r#"[{{"type":"input_text","text":"{}"}},{{"type":"input_image","image_url":"x"}},{{"type":"input_text","text":"{}"}}]"#,
                labels[0], labels[1]
            );
            summary(&content, "user").text_len
        };
        assert_eq!(len(["<image name=[Image #1]>", "</image>"]), 0);
        assert_eq!(len(["<image name=[Image #1]", "</image>"]), 22);
        assert_eq!(len(["<audio>", "</audio>"]), 15);
        assert_eq!(len(["<image>", "</image >"]), 9);
        assert_eq!(len(["<images>", "<image>"]), 15);
    }

    #[test]
    fn earlier_summaries_are_told_by_their_prefix() {
        assert!(is_summary(&format!("{SUMMARY_PREFIX}\nthe summary")));
        assert!(!is_summary(SUMMARY_PREFIX));
        assert_eq!(SUMMARY_PREFIX.len(), 399);
    }
}
