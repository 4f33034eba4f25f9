//! The prompt view as a transcript for people: who said what, which tools were called with what,
//! what came back; synthetic items and replaced media marked, log text shown terminal-safe.

use std::io::{self, Write};

use serde_json::Value;

use super::Paint;
use crate::escape::{escape, escape_multiline};
use crate::normalize::{Origin, PromptView};

/// Text longer than this (a data URL, an encrypted blob) is shown by its size, not its bytes.
const BLOB_BYTES: usize = 512;

pub fn transcript(view: &PromptView<'_>, paint: Paint, out: &mut impl Write) -> io::Result<()> {
    for (n, (_, origin, text)) in view.entries().enumerate() {
        let item: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let field = |name: &str| item.get(name).and_then(Value::as_str).unwrap_or_default();
        let kind = field("type");
        let call_id = item.get("call_id").and_then(Value::as_str).map(escape);
        let mut head = match kind {
            "message" => escape(field("role")).into_owned(),
            "function_call" | "custom_tool_call" => format!("call {}", escape(field("name"))),
            "local_shell_call" => "call local_shell".to_string(),
            "tool_search_call" => "tool search".to_string(),
            k if k.ends_with("_output") => "output".to_string(),
            k => escape(k).into_owned(),
        };
        if let Some(id) = call_id {
            head.push_str(&format!("  [call_id {id}]"));
        }
        let mark = match origin {
            Origin::Kept => String::new(),
            Origin::Rewritten => paint.yellow("  (media replaced for the target model)"),
            Origin::Synthetic(_) => paint.yellow("  (synthetic: no output was recorded)"),
        };
        writeln!(
            out,
            "{} {}{mark}",
            paint.dim(&format!("#{}", n + 1)),
            paint.bold(&head)
        )?;
        for line in body(&item) {
            for l in escape_multiline(&line).lines() {
                writeln!(out, "    {l}")?;
            }
        }
    }
    Ok(())
}

/// The readable lines of an item.
fn body(item: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    match item.get("type").and_then(Value::as_str).unwrap_or_default() {
        "message" => parts(item.get("content"), &mut lines),
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
            _ => blob(part.get("text").or(Some(part))),
        };
        lines.push(line);
    }
}

/// A value as text: strings as they are, other JSON compactly, anything huge by its size.
fn blob(value: Option<&Value>) -> String {
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
