//! Codex's nouns for people: how the diff names a change to a Responses item, and how the
//! transcript shows one (who said what, which tool was called with what, what came back).

use serde_json::Value;

use super::calls::{CallId, CallIds};
use super::item::{Family, Item, Side};
use super::plan::{Changes, synthetic_id};
use super::prep::Edit;
use crate::text::plural;
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

/// An item of a type Codex does not know, which it does not send (SPEC §11.2 #1).
pub(crate) fn dropped(item: Item, at: usize, type_name: &str) -> Change {
    Change {
        sign: Sign::Removed,
        position: format!("history #{}", at + 1),
        head: format!("{type_name}  (line {})", item.aux),
        detail: "unknown item type dropped: Codex reads it as ResponseItem::Other and does not \
                 send it"
            .into(),
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

/// `183442` as `183,442`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// What the view did to a history item, in words.
pub(crate) fn changed(item: Item, at: usize, view_at: usize, changes: &Changes) -> Change {
    let mut said = Vec::new();
    let mut replaced: Vec<(&'static str, u64)> = Vec::new();
    let (mut images, mut audio, mut resized, mut gifs, mut lowered) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    for change in &changes.prepared.changes {
        match change {
            Edit::Truncated { before, after } => said.push(format!(
                "output truncated: {} → {} bytes",
                thousands(*before),
                thousands(*after)
            )),
            Edit::Replaced(placeholder) => {
                match replaced.iter_mut().find(|(p, _)| p == placeholder) {
                    Some((_, n)) => *n += 1,
                    None => replaced.push((placeholder, 1)),
                }
            }
            Edit::Rewritten { audio: true } => audio += 1,
            Edit::Rewritten { audio: false } => images += 1,
            Edit::Reencoded { resized: true } => resized += 1,
            Edit::Reencoded { resized: false } => gifs += 1,
            Edit::Lowered => lowered += 1,
        }
    }
    for (placeholder, n) in replaced {
        let kind = if placeholder.starts_with("audio") {
            "input_audio"
        } else {
            "input_image"
        };
        let parts = plural(n, "part", "parts");
        said.push(format!("{n} {kind} {parts} replaced: {placeholder}"));
    }
    for (n, one, many, what) in [
        (
            images,
            "image URL",
            "image URLs",
            "rewritten with the image's real MIME type",
        ),
        (resized, "image", "images", "resized to fit Codex's limits"),
        (
            lowered,
            "image",
            "images",
            "sent at detail \"high\" (the model cannot take \"original\")",
        ),
        (gifs, "GIF", "GIFs", "re-encoded as PNG"),
        (
            audio,
            "audio URL",
            "audio URLs",
            "rewritten with Codex's MIME type",
        ),
    ] {
        if n > 0 {
            said.push(format!("{n} {} {what}", plural(n, one, many)));
        }
    }
    for (n, kind) in [
        (changes.images, "input_image"),
        (changes.audio, "input_audio"),
    ] {
        if n > 0 {
            let parts = plural(n, "part", "parts");
            said.push(format!("{n} {kind} {parts} replaced with placeholder text"));
        }
    }
    if changes.details > 0 {
        let these = plural(changes.details, "image", "images");
        said.push(format!(
            "{} {these} sent without `detail` (a Responses Lite model)",
            changes.details
        ));
    }
    if changes.provenance {
        said.push(
            "the provenance of its parts added to its passthrough metadata (a Responses Lite model)"
                .to_string(),
        );
    }
    if changes.image_result {
        said.push(r#"generated image result cleared to """#.to_string());
    }
    if changes.reencoded {
        said.push(
            "sent as Codex's typed item: members it lacks, null members, an id not of the form \
             prefix_rest and passthrough metadata it does not send are left out"
                .to_string(),
        );
    }
    Change {
        sign: Sign::Modified,
        position: format!("view #{view_at}"),
        head: format!("{} (history #{})", item.kind.name(), at + 1),
        detail: said.join("; "),
    }
}

/// What the diff counts.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub inserted: u64,
    pub orphans: u64,
    pub dropped: u64,
    reencoded: u64,
    truncated: u64,
    prepared: u64,
    replaced: u64,
}

impl Tally {
    pub fn changed(&mut self, changes: &Changes) {
        self.truncated += u64::from(changes.prepared.truncated());
        self.prepared += u64::from(changes.prepared.media());
        self.replaced += u64::from(changes.images + changes.audio > 0 || changes.image_result);
        // Sent otherwise than the log spells it: Codex's typed item, or the model's wire form.
        self.reencoded += u64::from(changes.reencoded || changes.details > 0 || changes.provenance);
    }

    /// The diff's closing line.
    pub fn footer(&self) -> String {
        let Tally {
            inserted,
            orphans,
            dropped,
            reencoded,
            truncated,
            prepared,
            replaced,
        } = *self;
        if inserted + orphans + dropped + reencoded + truncated + prepared + replaced == 0 {
            return "no changes: the prompt view is the history as it is".into();
        }
        let mut said = vec![
            format!(
                "{inserted} {} inserted",
                plural(inserted, "output", "outputs")
            ),
            format!("{orphans} {} removed", plural(orphans, "orphan", "orphans")),
        ];
        if truncated > 0 {
            let outputs = plural(truncated, "output", "outputs");
            said.push(format!("{truncated} {outputs} truncated"));
        }
        if prepared > 0 {
            let parts = plural(prepared, "part", "parts");
            said.push(format!("{prepared} media {parts} prepared"));
        }
        let items = plural(replaced, "item", "items");
        said.push(format!("{replaced} {items} with media replaced"));
        if dropped > 0 {
            let items = plural(dropped, "item", "items");
            said.push(format!("{dropped} unknown {items} dropped"));
        }
        if reencoded > 0 {
            let items = plural(reencoded, "item", "items");
            said.push(format!("{reencoded} {items} re-encoded"));
        }
        said.join(", ")
    }
}

/// Text longer than this (a data URL, an encrypted blob) is shown by its size, not its bytes.
const BLOB_BYTES: usize = 512;

/// A transcript entry: heading, a mark for a changed or synthetic entry, and the body's lines.
pub(crate) fn transcript(entry: &Entry<'_>) -> (String, Option<&'static str>, Vec<String>) {
    let item = crate::json::value_lossy(entry.text);
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
        Origin::Changed => Some("(changed for the target model)"),
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
