//! Claude Code's nouns for people: how the transcript shows a Messages API message (text, tool
//! calls with their input, results, thinking), and how the diff names what the view's rules did.

use std::io;

use serde_json::Value;

use super::view::{Dropped, MISSING_RESULT, Message, NO_RESPONSE, Note, Role, View};
use crate::source::SpanReader;
use crate::text::plural;
use crate::view::{
    Change, Entry, Entry as ViewEntry, Origin, PromptView, Shape, Sign, Sink, part_steps,
};

/// A message for people: who speaks, a mark for a repaired one, and its blocks.
pub(crate) fn transcript(entry: &Entry<'_>) -> (String, Option<&'static str>, Vec<String>) {
    let mark = match entry.origin {
        Origin::Kept => None,
        Origin::Changed => Some("(repaired for the API)"),
        Origin::Synthetic => Some("(inserted: no result was recorded)"),
    };
    let mut lines = Vec::new();
    // A message may merge hundreds of thousands of entries: its blocks are decoded one at a
    // time, never the whole message at once.
    let role = match message_parts(entry.text) {
        Some((role, blocks)) => {
            for block in blocks {
                lines.push(block_line(&crate::json::value_lossy(block.as_bytes())));
            }
            role
        }
        None => {
            let message = crate::json::value_lossy(entry.text);
            let blocks = message.get("content").and_then(Value::as_array);
            lines.extend(blocks.into_iter().flatten().map(block_line));
            message
                .get("role")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        }
    };
    (role, mark, lines)
}

/// A message's role and the raw JSON of each block of its `content` array, read without
/// decoding the message; `None` when the text is not such a message.
fn message_parts(text: &[u8]) -> Option<(String, Vec<&str>)> {
    let text = std::str::from_utf8(text).ok()?;
    let role = crate::json::member(text, 0, "role");
    let role = crate::json::string_at(text, &role)?.into_owned();
    let content = crate::json::member(text, 0, "content")?;
    let mut blocks = Vec::new();
    if text[content.clone()].starts_with('[') {
        let elements = crate::json::elements(text, content.start)?;
        blocks.extend(elements.into_iter().map(|e| &text[e]));
    }
    Some((role, blocks))
}

/// One block of a message, as the transcript shows it.
fn block_line(block: &Value) -> String {
    let field = |name: &str| block.get(name).and_then(Value::as_str).unwrap_or_default();
    match field("type") {
        "text" => field("text").to_string(),
        "thinking" => "[thinking]".into(),
        "redacted_thinking" => "[redacted thinking]".into(),
        "tool_use" => {
            let input = block.get("input").map(Value::to_string).unwrap_or_default();
            format!(
                "[tool_use {} {}] {}",
                field("name"),
                field("id"),
                short(&input)
            )
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
            format!(
                "[tool_result {}{error}] {}",
                field("tool_use_id"),
                short(&content)
            )
        }
        "image" => "[image]".into(),
        other => format!("[{other}]"),
    }
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

/// The diff's line for something of the history the view leaves out.
pub(crate) fn dropped(view: &View<'_>, d: &Dropped) -> Change {
    let line = |node: u32| view.state.nodes[node as usize].line;
    let (node, head, detail) = match *d {
        Dropped::Unanswered { node, id } => (
            node,
            format!("tool_use {}", view.id_text(id)),
            "removed: no result for it anywhere in the history, and the history goes on after \
             it (Claude Code drops the call)"
                .to_string(),
        ),
        Dropped::Thinking { node } => (
            node,
            "thinking".to_string(),
            format!("removed: written by another model than {}", view.model),
        ),
        Dropped::Blank { node } => (
            node,
            "assistant text of only whitespace".to_string(),
            "removed: Claude Code does not send it".to_string(),
        ),
        Dropped::ApiError { node } => (
            node,
            "API error reply".to_string(),
            "removed: an isApiErrorMessage entry is never sent".to_string(),
        ),
    };
    Change {
        sign: Sign::Removed,
        position: format!("line {}", line(node)),
        head,
        detail,
    }
}

/// What the rules did to one message (at its 1-based place), as the diff shows it.
pub(crate) fn changes(view: &View<'_>, m: &Message, at: usize) -> Vec<Change> {
    let list = |ids: &[u32]| {
        ids.iter()
            .map(|&id| view.id_text(id))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let line = m
        .nodes
        .first()
        .map(|&n| format!(" (line {})", view.state.nodes[n as usize].line))
        .unwrap_or_default();
    let position = format!("message #{at}");
    let change = |sign, head: String, detail: String| Change {
        sign,
        position: position.clone(),
        head,
        detail,
    };
    let mut out = Vec::new();
    if m.inserted && m.role == Role::Assistant {
        out.push(change(
            Sign::Inserted,
            format!("assistant message \"{NO_RESPONSE}\""),
            "inserted: the history ends in a user message, and Claude Code answers it so".into(),
        ));
        return out;
    }
    if m.inserted {
        let blocks = m.blocks.len() as u64;
        out.push(change(
            Sign::Inserted,
            format!(
                "user message with {blocks} tool_result {}",
                plural(blocks, "block", "blocks")
            ),
            format!(
                "inserted: the assistant message before has unanswered tool_use ids {}",
                list(&m.blocks.iter().map(|b| b.id).collect::<Vec<_>>())
            ),
        ));
    }
    for note in &m.notes {
        let (sign, head, detail) = match note {
            Note::Missing(ids) => (
                Sign::Inserted,
                format!("tool_result for {}", list(ids)),
                format!(
                    "inserted: answered only later in the log; Claude Code sends \"{MISSING_RESULT}\""
                ),
            ),
            Note::Interrupted(ids) => (
                Sign::Inserted,
                format!("tool_result for {}", list(ids)),
                "inserted: the session ended before the result was recorded (\"[Tool call \
                 interrupted: …]\")"
                    .into(),
            ),
            Note::Orphans(ids) => (
                Sign::Removed,
                format!("tool_result for {}{line}", list(ids)),
                "orphan removed: no tool_use with this id in the message before".into(),
            ),
            Note::Placeholder(text) => (
                Sign::Modified,
                format!("user message{line}"),
                format!("left with no block: sent as the text \"{text}\""),
            ),
            Note::Joined(n) => (
                Sign::Modified,
                format!("user message{line}"),
                format!(
                    "\"\\n\" appended to {n} text {} where entries were joined",
                    plural(u64::from(*n), "block", "blocks")
                ),
            ),
            Note::Folded(n) => (
                Sign::Modified,
                format!("user message{line}"),
                format!(
                    "{n} attachment {} folded into the tool_result before",
                    plural(u64::from(*n), "reminder", "reminders")
                ),
            ),
            Note::Renamed(n) => (
                Sign::Modified,
                format!("assistant message{line}"),
                format!(
                    "{n} tool_use {} Task sent as Agent",
                    plural(u64::from(*n), "named", "named")
                ),
            ),
            Note::SendMessage(n) => (
                Sign::Modified,
                format!("assistant message{line}"),
                format!(
                    "{n} SendMessage {} without type, recipient and content",
                    plural(u64::from(*n), "input", "inputs")
                ),
            ),
            Note::ToolRefs(n) => (
                Sign::Modified,
                format!("user message{line}"),
                format!(
                    "references to tools Claude Code does not have removed from {n} tool_result {}",
                    plural(u64::from(*n), "block", "blocks")
                ),
            ),
        };
        if m.inserted && matches!(note, Note::Missing(_) | Note::Interrupted(_)) {
            continue;
        }
        out.push(change(sign, head, detail));
    }
    out
}

/// The diff's closing line.
pub(crate) fn footer(view: &View<'_>) -> String {
    let inserted = view.missing.len() as u64
        + view
            .messages
            .iter()
            .filter(|m| m.inserted && m.role == Role::Assistant)
            .count() as u64;
    let removed = view.orphans.len() as u64 + view.dropped.len() as u64;
    // A result inserted into a message, or an orphan taken out of one, is counted as a block
    // above; the message is changed only by what rewrites it.
    let changed = view
        .messages
        .iter()
        .filter(|m| {
            !m.inserted
                && m.notes.iter().any(|n| {
                    !matches!(
                        n,
                        Note::Missing(_) | Note::Interrupted(_) | Note::Orphans(_)
                    )
                })
        })
        .count() as u64;
    if inserted + removed + changed == 0 {
        return format!(
            "no changes: the prompt view is the history's messages as they are (for {})",
            view.model
        );
    }
    format!(
        "{inserted} {} inserted, {removed} {} removed, {changed} {} changed (for {})",
        plural(inserted, "block", "blocks"),
        plural(removed, "block", "blocks"),
        plural(changed, "message", "messages"),
        view.model
    )
}

impl View<'_> {
    /// The view's messages, in order, written in parts on every core as the Codex view's
    /// entries are.
    fn messages_in_parts(&self, reader: &mut SpanReader<'_>, sink: Sink<'_>) -> io::Result<()> {
        let nodes = &self.state.nodes;
        let bytes = |m: &&Message| {
            let span = |&n: &u32| u64::from(nodes[n as usize].span.len);
            m.nodes.iter().map(span).sum()
        };
        let make = |m: &&Message, reader: &mut SpanReader<'_>, text: &mut Vec<u8>| {
            self.message_text(m, reader, text)?;
            Ok(Some(if m.inserted {
                Origin::Synthetic
            } else if !m.notes.is_empty() {
                Origin::Changed
            } else {
                Origin::Kept
            }))
        };
        let messages = self.messages.iter();
        crate::view::entries_in_parts(messages, bytes, make, reader, sink, part_steps())
    }
}

/// What the renderers read of a Claude Code view: its messages, and the words above for people.
impl PromptView for View<'_> {
    fn shape(&self) -> Shape {
        Shape {
            history: self.history_messages,
            history_unit: "messages",
            view: self.len(),
            view_unit: "messages",
            settings: format!("Messages API, model {}", self.model),
        }
    }

    fn entries(
        &self,
        reader: &mut SpanReader<'_>,
        each: &mut dyn FnMut(ViewEntry<'_>) -> io::Result<()>,
    ) -> io::Result<()> {
        self.messages_in_parts(reader, Sink::Each(each))
    }

    fn lines(&self, reader: &mut SpanReader<'_>, out: &mut dyn io::Write) -> io::Result<()> {
        self.messages_in_parts(reader, Sink::Lines(out))
    }

    fn changes(
        &self,
        _reader: &mut SpanReader<'_>,
        each: &mut dyn FnMut(Change) -> io::Result<()>,
    ) -> io::Result<String> {
        for d in &self.dropped {
            each(dropped(self, d))?;
        }
        for (at, m) in self.messages.iter().enumerate() {
            for change in changes(self, m, at + 1) {
                each(change)?;
            }
        }
        Ok(footer(self))
    }

    fn describe(&self, entry: &ViewEntry<'_>) -> (String, Option<&'static str>, Vec<String>) {
        transcript(entry)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assistant, replayed, user};
    use super::super::view::View;
    use serde_json::json;

    fn footer_of(lines: &[String]) -> String {
        let (state, _) = replayed(lines);
        super::footer(&View::new(&state, None).expect("a view"))
    }

    #[test]
    fn a_synthetic_result_in_a_message_is_one_inserted_block_not_a_change() {
        // late_tool_result: the missing result goes into the next user message; the late one
        // is an orphan, and its message is left as "(no content)" (that one is changed).
        let lines = [
            user("1", None, json!("Start.")),
            assistant(
                "2",
                Some("1"),
                "m1",
                json!({"type": "tool_use", "id": "t",
                "name": "Bash", "input": {}}),
            ),
            user("3", Some("2"), json!("Use 3001.")),
            assistant(
                "4",
                Some("3"),
                "m2",
                json!({"type": "text", "text": "Understood."}),
            ),
            user(
                "5",
                Some("4"),
                json!([{"type": "tool_result", "tool_use_id": "t",
                "content": "late"}]),
            ),
            assistant("6", Some("5"), "m3", json!({"type": "text", "text": "Up."})),
        ];
        assert_eq!(
            footer_of(&lines),
            "1 block inserted, 1 block removed, 1 message changed (for claude-opus-4-6)"
        );
    }
}
