//! Claude Code's nouns for people: how the diff names a repair of a Messages API message, and
//! how the transcript shows one (text, tool calls with their input, results, thinking).

use serde_json::Value;

use super::view::{Message, View};
use crate::text::plural;
use crate::view::{Change, Entry, Origin, Sign};

/// What the repairs did to one message, as the diff shows it.
pub(crate) fn changes(view: &View<'_>, m: &Message, at: usize) -> Vec<Change> {
    let mut out = Vec::new();
    let list = |ids: &[u32]| {
        ids.iter()
            .map(|&id| view.id_text(id))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let line = |m: &Message| {
        m.nodes
            .first()
            .map(|&n| format!(" (line {})", view.state.nodes[n as usize].line))
            .unwrap_or_default()
    };
    if m.inserted {
        out.push(Change {
            sign: Sign::Inserted,
            position: format!("message #{at}"),
            head: format!(
                "user message with {} tool_result {}",
                m.added.len(),
                plural(m.added.len() as u64, "block", "blocks")
            ),
            detail: format!(
                "inserted: the assistant message before has unanswered tool_use ids {}",
                list(&m.added)
            ),
        });
        return out;
    }
    if !m.added.is_empty() {
        out.push(Change {
            sign: Sign::Inserted,
            position: format!("message #{at}"),
            head: format!("tool_result for {}", list(&m.added)),
            detail: "inserted: the assistant message before has these tool_use ids unanswered"
                .into(),
        });
    }
    if !m.removed.is_empty() {
        let position = if m.dropped {
            "message".to_string()
        } else {
            format!("message #{at}")
        };
        out.push(Change {
            sign: Sign::Removed,
            position,
            head: format!("tool_result for {}{}", list(&m.removed), line(m)),
            detail: "orphan removed: no tool_use with this id in the message before".into(),
        });
    }
    if m.dropped {
        out.push(Change {
            sign: Sign::Removed,
            position: "message".into(),
            head: format!("user message{}", line(m)),
            detail: "removed: no block left".into(),
        });
    }
    if m.reordered && !m.dropped {
        out.push(Change {
            sign: Sign::Modified,
            position: format!("message #{at}"),
            head: format!("user message{}", line(m)),
            detail: "tool_result blocks moved before the other blocks".into(),
        });
    }
    out
}

pub(crate) fn footer(view: &View<'_>) -> String {
    let inserted = view.missing.len() as u64;
    let orphans = view.orphans.len() as u64;
    let reordered = view
        .messages
        .iter()
        .filter(|m| m.reordered && !m.dropped)
        .count() as u64;
    if inserted + orphans + reordered == 0 {
        return "no changes: the prompt view is the history's messages as they are".into();
    }
    format!(
        "{inserted} tool_result {} inserted, {orphans} {} removed, {reordered} {} reordered",
        plural(inserted, "block", "blocks"),
        plural(orphans, "orphan", "orphans"),
        plural(reordered, "message", "messages"),
    )
}

/// A message for people: who speaks, a mark for a repaired one, and its blocks.
pub(crate) fn transcript(entry: &Entry<'_>) -> (String, Option<&'static str>, Vec<String>) {
    let message = crate::json::value_lossy(entry.text);
    let role = message
        .get("role")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let mark = match entry.origin {
        Origin::Kept => None,
        Origin::Changed => Some("(repaired for the API)"),
        Origin::Synthetic => Some("(inserted: no result was recorded)"),
    };
    let mut lines = Vec::new();
    for block in message
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let field = |name: &str| block.get(name).and_then(Value::as_str).unwrap_or_default();
        match field("type") {
            "text" => lines.push(field("text").to_string()),
            "thinking" => lines.push("[thinking]".into()),
            "redacted_thinking" => lines.push("[redacted thinking]".into()),
            "tool_use" => {
                let input = block.get("input").map(Value::to_string).unwrap_or_default();
                lines.push(format!(
                    "[tool_use {} {}] {}",
                    field("name"),
                    field("id"),
                    short(&input)
                ));
            }
            "tool_result" => {
                let error = if block.get("is_error") == Some(&Value::Bool(true)) {
                    " error"
                } else {
                    ""
                };
                let content = match block.get("content") {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Array(parts)) => parts
                        .iter()
                        .filter_map(|p| p.get("text").and_then(Value::as_str))
                        .collect::<Vec<_>>()
                        .join("\n"),
                    _ => String::new(),
                };
                lines.push(format!(
                    "[tool_result {}{error}] {}",
                    field("tool_use_id"),
                    short(&content)
                ));
            }
            "image" => lines.push("[image]".into()),
            other => lines.push(format!("[{other}]")),
        }
    }
    (role.to_string(), mark, lines)
}

/// Long text cut for the transcript.
fn short(text: &str) -> String {
    const MAX: usize = 400;
    if text.len() <= MAX {
        return text.to_string();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}
