//! A resumable copy of a Codex session (SPEC §12): the original's `session_meta` under a new
//! thread id, the resume state's history as one `compacted` record, which Codex 0.169 installs
//! as it is, and one `user_message` event so that `codex resume --last` and the picker find it. Legacy mode: no `history_mode`, no ordinals, no lineage (the copy is self-contained).

use std::io::{self, Write};

use serde_json::Value;

use crate::json;

/// What the copy's first records say.
pub(crate) struct Head<'a> {
    /// The original's `session_meta` record, as its line spells it.
    pub meta_line: &'a str,
    pub new_id: &'a str,
    /// The copy's creation time, RFC 3339 in UTC with milliseconds.
    pub now: &'a str,
}

/// The copy's `session_meta` line: the original's with `id`, `timestamp`, `forked_from_id`
/// set and `history_base`, `history_mode` gone; or why the original's cannot serve.
pub(crate) fn session_meta(head: &Head<'_>) -> Result<String, &'static str> {
    let mut record: Value =
        serde_json::from_str(head.meta_line).map_err(|_| "its session_meta is not valid JSON")?;
    let original = record
        .pointer("/payload/id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
        .ok_or("its session_meta has no thread id")?;
    let Some(payload) = record.get_mut("payload").and_then(Value::as_object_mut) else {
        return Err("its session_meta has no payload object");
    };
    // Codex 0.169 reads no session_meta without these (SPEC §12).
    for required in ["cwd", "originator", "cli_version"] {
        if !payload.get(required).is_some_and(Value::is_string) {
            return Err("its session_meta lacks the cwd, originator or cli_version Codex needs");
        }
    }
    payload.insert("id".into(), head.new_id.into());
    payload.insert("timestamp".into(), head.now.into());
    payload.insert("forked_from_id".into(), original.into());
    payload.remove("history_base");
    payload.remove("history_mode");
    // A sub-agent's thread becomes a thread of its own: Codex resumes a multi-agent sub-agent
    // only through its parent.
    if payload
        .get("thread_source")
        .is_some_and(|s| s == "subagent")
        || payload
            .get("source")
            .is_some_and(|s| s.get("subagent").is_some())
    {
        for member in [
            "parent_thread_id",
            "thread_source",
            "agent_nickname",
            "agent_path",
            "agent_role",
            "multi_agent_version",
        ] {
            payload.remove(member);
        }
        payload.insert("source".into(), "cli".into());
        payload.insert("session_id".into(), head.new_id.into());
    }
    if let Some(top) = record.as_object_mut() {
        top.insert("timestamp".into(), head.now.into());
        top.remove("ordinal");
    }
    Ok(record.to_string())
}

/// Writes the copy's head: its `session_meta` line (from [`session_meta`]) and the start of
/// the `compacted` record whose history the items written next are.
pub(crate) fn begin(now: &str, meta: &str, out: &mut impl Write) -> io::Result<()> {
    out.write_all(meta.as_bytes())?;
    out.write_all(b"\n{\"timestamp\":")?;
    out.write_all(&quoted(now))?;
    out.write_all(br#","type":"compacted","payload":{"message":"","replacement_history":["#)
}

/// Writes the history's item number `index` (its JSON text).
pub(crate) fn item(index: usize, text: &[u8], out: &mut impl Write) -> io::Result<()> {
    if index > 0 {
        out.write_all(b",")?;
    }
    out.write_all(text)
}

/// Ends the `compacted` record and writes the `user_message` event of `last_user_text`.
pub(crate) fn end(now: &str, last_user_text: Option<&str>, out: &mut impl Write) -> io::Result<()> {
    out.write_all(b"]}}\n{\"timestamp\":")?;
    out.write_all(&quoted(now))?;
    out.write_all(br#","type":"event_msg","payload":{"type":"user_message","message":"#)?;
    out.write_all(&quoted(last_user_text.unwrap_or("")))?;
    out.write_all(b"}}\n")
}

fn quoted(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    json::encode_str(text.as_bytes(), &mut out);
    out
}

/// The user's own words in a view item, when it is a user message that is not context Codex
/// adds (`<environment_context>` and the like): what the picker shows of a thread.
pub(crate) fn user_text(item: &Value) -> Option<String> {
    if item["type"] != "message" || item["role"] != "user" {
        return None;
    }
    let text = item["content"]
        .as_array()?
        .iter()
        .filter(|part| part["type"] == "input_text")
        .filter_map(|part| part["text"].as_str())
        .collect::<Vec<_>>()
        .join("");
    let context = super::turns::is_contextual_fragment(&text);
    (!context && !text.trim().is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copy_names_a_new_thread_forked_from_the_original() {
        let head = Head {
            meta_line: r#"{"timestamp":"t0","type":"session_meta","ordinal":0,"payload":{"id":"old","timestamp":"t0","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.169.0","history_base":{"thread_id":"p"},"history_mode":"paginated","model_provider":"openai"}}"#,
            new_id: "new",
            now: "2026-12-01T00:00:00.000Z",
        };
        let meta: Value = serde_json::from_str(&session_meta(&head).unwrap()).unwrap();
        assert_eq!(
            meta,
            serde_json::json!({"timestamp": "2026-12-01T00:00:00.000Z", "type": "session_meta",
                "payload": {"id": "new", "timestamp": "2026-12-01T00:00:00.000Z", "cwd": "/w",
                    "originator": "codex_cli_rs", "cli_version": "0.169.0",
                    "forked_from_id": "old", "model_provider": "openai"}})
        );
        let mut out = Vec::new();
        begin(head.now, "{}", &mut out).unwrap();
        item(
            0,
            br#"{"type":"message","role":"user","content":[]}"#,
            &mut out,
        )
        .unwrap();
        end(head.now, Some("hi \"you\""), &mut out).unwrap();
        let lines: Vec<Value> = out
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        assert_eq!(
            lines[1]["payload"]["replacement_history"][0]["role"],
            "user"
        );
        assert_eq!(lines[2]["payload"]["message"], "hi \"you\"");
    }

    #[test]
    fn the_picker_text_is_the_users_own() {
        let user = |text: &str| {
            serde_json::json!({"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": text}]})
        };
        assert_eq!(user_text(&user("fix it")), Some("fix it".into()));
        assert_eq!(
            user_text(&user("<environment_context>x</environment_context>")),
            None
        );
        assert_eq!(
            user_text(&serde_json::json!({"type": "function_call"})),
            None
        );
    }
}
