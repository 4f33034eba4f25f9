//! The prompt view as a transcript for people: who said what, which tools were called with what,
//! what came back; synthetic items and replaced media marked, log text shown terminal-safe.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{self, Write};

use serde_json::Value;
use serde_json::value::RawValue;

use super::Paint;
use crate::escape::{escape, escape_multiline};
use crate::normalize::{Origin, PromptView};

/// Text longer than this (a data URL, an encrypted blob) is shown by its size, not its bytes.
const BLOB_BYTES: usize = 512;

pub fn transcript(view: &PromptView<'_>, paint: Paint, out: &mut impl Write) -> io::Result<()> {
    for (n, (_, origin, text)) in view.entries().enumerate() {
        let item = decode(&text);
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

/// Shown for a member nested deeper than serde_json decodes (its limit is 128 levels).
const TOO_DEEP: &str = "[nested too deep to show]";

/// The item as a `Value` to show. Valid JSON that serde_json will not decode in full still shows
/// its type and ids: lone surrogates read as U+FFFD (as README says), and a member nested too deep
/// is shown as [`TOO_DEEP`].
fn decode(text: &str) -> Value {
    let text = lone_surrogates_replaced(text);
    if let Ok(item) = serde_json::from_str(&text) {
        return item;
    }
    // Raw members are skipped over without recursion, so only the deep ones are lost.
    let Ok(members) = serde_json::from_str::<BTreeMap<String, &RawValue>>(&text) else {
        return Value::Null;
    };
    let members = members.into_iter().map(|(key, raw)| {
        let value = serde_json::from_str(raw.get()).unwrap_or_else(|_| TOO_DEEP.into());
        (key, value)
    });
    Value::Object(members.collect())
}

/// `text` with each lone surrogate escape (`"\ud800"`: valid JSON, but no character) spelled as
/// `\ufffd`, which serde_json decodes instead of failing on the whole item.
fn lone_surrogates_replaced(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let unit = |at: usize| -> Option<u16> {
        if b.get(at..at + 2)? != b"\\u" {
            return None;
        }
        let hex = std::str::from_utf8(b.get(at + 2..at + 6)?).ok()?;
        u16::from_str_radix(hex, 16).ok()
    };
    let mut out = String::new();
    let (mut copied, mut at) = (0, 0);
    while let Some(found) = b.get(at..).and_then(|rest| memchr::memchr(b'\\', rest)) {
        at += found;
        match unit(at) {
            Some(0xD800..=0xDBFF) if matches!(unit(at + 6), Some(0xDC00..=0xDFFF)) => at += 12,
            Some(0xD800..=0xDFFF) => {
                out.push_str(&text[copied..at]);
                out.push_str("\\ufffd");
                at += 6;
                copied = at;
            }
            Some(_) => at += 6,
            None => at += 2, // any other escape, `\\` included
        }
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_read_as_replacement_characters() {
        let text = r#"{"t":"a\ud800 \ud83d\ude00 \udc00\\ud800 \ud800\u0041 \""}"#;
        assert_eq!(
            lone_surrogates_replaced(text),
            r#"{"t":"a\ufffd \ud83d\ude00 \ufffd\\ud800 \ufffd\u0041 \""}"#
        );
        assert!(matches!(
            lone_surrogates_replaced(r#"{"t":"\n\u00e9"}"#),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn items_serde_json_cannot_decode_still_show_their_type() {
        let deep = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
        let item = decode(&format!(
            r#"{{"type":"function_call","call_id":"\udfff","x":{deep}}}"#
        ));
        assert_eq!(
            item,
            serde_json::json!({"type": "function_call", "call_id": "\u{fffd}", "x": TOO_DEEP})
        );
    }
}
