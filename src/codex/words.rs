//! Codex's nouns for people: how the diff names a change to a Responses item, and how the
//! transcript shows one (who said what, which tool was called with what, what came back).

use serde_json::Value;

use super::calls::{CallId, CallIds};
use super::item::{Family, Item, Side};
use super::view::synthetic_id;
use crate::render::plural;
use crate::view::{Change, Entry, Origin, Sign};

/// A call id as JSON spells it: a string quoted, anything else as it was.
fn call_id(item: Item, calls: &CallIds) -> String {
    match calls.get(item.call()) {
        CallId::Str(_) => format!("\"{}\"", calls.get(item.call()).text()),
        other => other.text(),
    }
}

pub(crate) fn orphan(item: Item, at: usize, calls: &CallIds) -> Change {
    let family = match item.kind.family() {
        Some((family, Side::Output)) => family,
        _ => Family::Function,
    };
    let detail = match calls.get(item.call()) {
        CallId::Str(_) => format!("orphan removed: no {} has this call_id", family.calls()),
        CallId::Other(_) | CallId::None => {
            "orphan removed: its call_id is not a string, so no call can match it".into()
        }
    };
    Change {
        sign: Sign::Removed,
        position: format!("history #{}", at + 1),
        head: format!("{}  call_id={}", item.kind.name(), call_id(item, calls)),
        detail,
    }
}

pub(crate) fn inserted(
    call: Item,
    at: usize,
    view_at: usize,
    family: Family,
    call_item_id: Option<&str>,
    calls: &CallIds,
) -> Change {
    let id = match call_item_id {
        Some(id) => format!("  id={}", synthetic_id(family, id)),
        None => String::new(),
    };
    let body = match family {
        Family::Function | Family::Custom => r#"output="aborted""#,
        Family::ToolSearch => "tools=[] (client)",
    };
    Change {
        sign: Sign::Inserted,
        position: format!("view #{view_at}"),
        head: format!(
            "{}  call_id={}{id}  {body}",
            family.output_kind().name(),
            call_id(call, calls)
        ),
        detail: format!(
            "inserted after the {} at history #{}, which has no output",
            call.kind.name(),
            at + 1
        ),
    }
}

/// What a text-only (or audio-less) view replaced in an item.
pub(crate) fn media_change(images: u64, audio: u64, item: Item) -> String {
    let image_result = u64::from(item.has(super::item::Flags::IMAGE_RESULT));
    let parts = images - image_result.min(images);
    let mut changes = Vec::new();
    if parts > 0 {
        changes.push(format!(
            "{parts} input_image {} replaced with placeholder text",
            plural(parts, "part", "parts")
        ));
    }
    if audio > 0 {
        changes.push(format!(
            "{audio} input_audio {} replaced with placeholder text",
            plural(audio, "part", "parts")
        ));
    }
    if images > 0 && image_result > 0 {
        changes.push(r#"generated image result cleared to """#.to_string());
    }
    changes.join("; ")
}

pub(crate) fn diff_footer(inserted: u64, orphans: u64, rewritten: u64) -> String {
    if inserted + orphans + rewritten == 0 {
        return "no changes: the prompt view is the history as it is".into();
    }
    format!(
        "{inserted} {} inserted, {orphans} {} removed, {rewritten} {} with media replaced",
        plural(inserted, "output", "outputs"),
        plural(orphans, "orphan", "orphans"),
        plural(rewritten, "item", "items"),
    )
}

/// Text longer than this (a data URL, an encrypted blob) is shown by its size, not its bytes.
const BLOB_BYTES: usize = 512;

/// A transcript entry: heading, a mark for a changed or synthetic entry, and the body's lines.
pub(crate) fn transcript(entry: &Entry<'_>) -> (String, Option<&'static str>, Vec<String>) {
    let item = crate::render::decode_json(entry.text);
    let field = |name: &str| item.get(name).and_then(Value::as_str).unwrap_or_default();
    let kind = field("type");
    let mut head = match kind {
        "message" => field("role").to_string(),
        "agent_message" => format!("agent {} → {}", field("author"), field("recipient")),
        "function_call" | "custom_tool_call" => format!("call {}", field("name")),
        "local_shell_call" => "call local_shell".to_string(),
        "tool_search_call" => "tool search".to_string(),
        k if k.ends_with("_output") => "output".to_string(),
        k => k.to_string(),
    };
    if let Some(id) = item.get("call_id").and_then(Value::as_str) {
        head.push_str(&format!("  [call_id {id}]"));
    }
    let mark = match entry.origin {
        Origin::Kept => None,
        Origin::Changed => Some("(media replaced for the target model)"),
        Origin::Synthetic => Some("(synthetic: no output was recorded)"),
    };
    (head, mark, body(&item))
}

/// The readable lines of an item.
fn body(item: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    match item.get("type").and_then(Value::as_str).unwrap_or_default() {
        "message" | "agent_message" => parts(item.get("content"), &mut lines),
        "function_call" => lines.push(blob(item.get("arguments"))),
        "custom_tool_call" => lines.push(blob(item.get("input"))),
        "local_shell_call" => lines.push(blob(item.get("action"))),
        "tool_search_call" => lines.push(blob(item.get("arguments").or(item.get("query")))),
        "reasoning" => {
            if let Some(summary) = item.get("summary").and_then(Value::as_array) {
                for s in summary {
                    lines.push(blob(s.get("text")));
                }
            }
            if item.get("encrypted_content").is_some_and(|c| !c.is_null()) {
                lines.push("[encrypted reasoning]".into());
            }
        }
        "image_generation_call" => lines.push(match item.get("result").and_then(Value::as_str) {
            Some("") | None => "[no image]".into(),
            Some(result) => format!("[image, {} bytes of base64]", result.len()),
        }),
        kind if kind.ends_with("_output") => match item.get("output") {
            Some(Value::Array(_)) => parts(item.get("output"), &mut lines),
            Some(other) => lines.push(blob(Some(other))),
            None => lines.push(blob(item.get("tools"))),
        },
        _ => {}
    }
    lines
}

fn parts(content: Option<&Value>, lines: &mut Vec<String>) {
    let Some(content) = content else { return };
    let Some(parts) = content.as_array() else {
        lines.push(blob(Some(content)));
        return;
    };
    for part in parts {
        let kind = part.get("type").and_then(Value::as_str).unwrap_or_default();
        let line = match kind {
            "input_image" => {
                let url = part
                    .get("image_url")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                format!("[image: {}]", short(url))
            }
            "input_audio" => "[audio]".to_string(),
            "encrypted_content" => "[encrypted]".to_string(),
            _ => blob(part.get("text").or(Some(part))),
        };
        lines.push(line);
    }
}

/// A value as text: strings as they are, other JSON compactly, anything huge by its size.
pub(crate) fn blob(value: Option<&Value>) -> String {
    let text = match value {
        None | Some(Value::Null) => return String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    if text.len() > BLOB_BYTES && !text.contains(' ') {
        return format!("[{} bytes]", text.len());
    }
    text
}

fn short(url: &str) -> String {
    if url.len() <= 80 {
        return url.to_string();
    }
    let head: String = url.chars().take(40).collect();
    format!("{head}… ({} bytes)", url.len())
}
