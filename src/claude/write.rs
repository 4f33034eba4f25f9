//! A resumable copy of a Claude Code session (SPEC §12): one linear chain, one entry per message
//! of the prompt view (already repaired: every `tool_use` answered, no orphan, no stale branch),
//! under a new session id, every entry with `uuid`, `parentUuid`, `timestamp` and `isSidechain:
//! false`. Claude Code resumes such a file by sending its messages as they are, so the copy's
//! view is the original's.

use std::io::{self, Write};

use serde_json::{Map, Value};
use uuid::Uuid;

/// What every entry of the copy carries besides its message.
pub(crate) struct Head<'a> {
    pub session_id: &'a str,
    /// The working directory of the original, which `claude --resume` is run from.
    pub cwd: Option<&'a str>,
    /// The Claude Code version that wrote the original's last entry, when known.
    pub version: Option<&'a str>,
    /// The model the view was made for: assistant entries are marked as its, so that the
    /// client keeps their thinking blocks exactly as the view does.
    pub model: Option<&'a str>,
    /// The copy's time, RFC 3339 in UTC with milliseconds.
    pub now: &'a str,
}

/// Writes the copy's entries one view message at a time, chained in order.
pub(crate) struct Writer<'a> {
    head: Head<'a>,
    count: usize,
    /// The uuid of the last entry written: the copy's leaf.
    pub leaf: Option<String>,
}

impl<'a> Writer<'a> {
    pub fn new(head: Head<'a>) -> Writer<'a> {
        Writer {
            head,
            count: 0,
            leaf: None,
        }
    }

    /// Writes the entry of one view message (a `{"role", "content"}` object), which goes in as
    /// the view spells it.
    pub fn message(&mut self, text: &[u8], out: &mut impl Write) -> io::Result<()> {
        let head = &self.head;
        let role: Role = serde_json::from_slice(text).map_err(io::Error::other)?;
        let assistant = role.role == "assistant";
        // Stable per copy and position, so that writing the same copy twice gives the same file.
        let name = format!("{}:{}", head.session_id, self.count);
        let uuid = Uuid::new_v5(&Uuid::NAMESPACE_URL, name.as_bytes()).to_string();
        let mut entry = Map::new();
        let parent = self.leaf.as_deref().map_or(Value::Null, Value::from);
        entry.insert("parentUuid".into(), parent);
        entry.insert("isSidechain".into(), false.into());
        entry.insert("userType".into(), "external".into());
        if let Some(cwd) = head.cwd {
            entry.insert("cwd".into(), cwd.into());
        }
        entry.insert("sessionId".into(), head.session_id.into());
        if let Some(version) = head.version {
            entry.insert("version".into(), version.into());
        }
        // The client adds "Tool loaded." after a result that loads tools, whenever it resumes:
        // the copy leaves the view's out, or it would be sent twice.
        let unloaded;
        let text = if !assistant && memchr::memmem::find(text, TOOL_LOADED.as_bytes()).is_some() {
            unloaded = without_tool_loaded(text)?;
            &unloaded[..]
        } else {
            text
        };
        let kind = if assistant { "assistant" } else { "user" };
        entry.insert("type".into(), kind.into());
        entry.insert("uuid".into(), uuid.clone().into());
        entry.insert("timestamp".into(), head.now.into());
        // The entry's own members, then the message as the view spells it (`message` last).
        let members = Value::Object(entry).to_string();
        out.write_all(&members.as_bytes()[..members.len() - 1])?;
        out.write_all(b",\"message\":")?;
        match (assistant, head.model, text.strip_suffix(b"}")) {
            (true, Some(model), Some(open)) => {
                out.write_all(open)?;
                out.write_all(b",\"model\":")?;
                out.write_all(Value::from(model).to_string().as_bytes())?;
                out.write_all(b"}")?;
            }
            _ => out.write_all(text)?,
        }
        out.write_all(b"}\n")?;
        self.count += 1;
        self.leaf = Some(uuid);
        Ok(())
    }
}

/// The text Claude Code adds after a tool result that loads tools (`tool_reference` parts).
const TOOL_LOADED: &str = "Tool loaded.";

/// A user message without the "Tool loaded." text blocks that follow a tool result holding
/// `tool_reference` parts.
fn without_tool_loaded(text: &[u8]) -> io::Result<Vec<u8>> {
    let mut message: Value = serde_json::from_slice(text).map_err(io::Error::other)?;
    if let Some(blocks) = message.get_mut("content").and_then(Value::as_array_mut) {
        let loads = |b: &Value| {
            b["type"] == "tool_result"
                && b["content"]
                    .as_array()
                    .is_some_and(|c| c.iter().any(|p| p["type"] == "tool_reference"))
        };
        let mut kept: Vec<Value> = Vec::with_capacity(blocks.len());
        // Right after a result that loads tools, before the text the client adds for it.
        let mut after_loading = false;
        for block in blocks.drain(..) {
            let added = after_loading && block["type"] == "text" && block["text"] == TOOL_LOADED;
            after_loading = !added && loads(&block);
            if !added {
                kept.push(block);
            }
        }
        *blocks = kept;
    }
    serde_json::to_vec(&message).map_err(io::Error::other)
}

/// The one member of a view message the writer needs.
#[derive(serde::Deserialize)]
struct Role {
    role: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copy_is_one_chain_of_the_views_messages() {
        let head = Head {
            session_id: "s",
            cwd: Some("/w"),
            version: None,
            model: Some("claude-opus-4-6"),
            now: "2026-12-01T00:00:00.000Z",
        };
        let messages = [
            br#"{"role":"user","content":[{"type":"text","text":"hi"}]}"#.to_vec(),
            br#"{"role":"assistant","content":[{"type":"text","text":"yo"}]}"#.to_vec(),
        ];
        let mut out = Vec::new();
        let mut writer = Writer::new(head);
        for m in &messages {
            writer.message(m, &mut out).unwrap();
        }
        let leaf = writer.leaf;
        let entries: Vec<Value> = out
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        assert_eq!(entries[0]["parentUuid"], Value::Null);
        assert_eq!(entries[1]["parentUuid"], entries[0]["uuid"]);
        assert_eq!(leaf.as_deref(), entries[1]["uuid"].as_str());
        assert_eq!(entries[1]["message"]["model"], "claude-opus-4-6");
        assert_eq!(entries[1]["type"], "assistant");
        assert!(entries.iter().all(|e| e["sessionId"] == "s"
            && e["isSidechain"] == false
            && e["timestamp"].is_string()));
    }

    #[test]
    fn the_clients_tool_loaded_text_is_left_for_the_client() {
        let text = br#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"tool_reference","tool_name":"Read"}]},{"type":"text","text":"Tool loaded."},{"type":"text","text":"Tool loaded."}]}"#;
        let kept: Value = serde_json::from_slice(&without_tool_loaded(text).unwrap()).unwrap();
        let blocks = kept["content"].as_array().unwrap();
        // The one the client adds goes; a text of the log's own stays.
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[1]["text"], "Tool loaded.");
    }
}
