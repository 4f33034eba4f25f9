//! Claude Code's nouns for people: how the transcript shows a Messages API message (text, tool
//! calls with their input, results, thinking).

use serde_json::Value;

use crate::view::{Entry, Origin};

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
