//! Records: one rollout line classified into a record kind of either dialect (SPEC §1–§3), or a
//! parse error with its reason.

use crate::item::{self, Fields, Item};
use crate::json::{self, Parser};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// `{"timestamp":…,"type":KIND,"payload":{…}}`, as the Codex CLI writes.
    Codex,
    /// The flat teaching format, with no `payload`.
    Mini,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionMeta {
    pub thread_id: Box<str>,
    pub cwd: Option<Box<str>>,
    pub timestamp: Option<Box<str>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    SessionMeta(SessionMeta),
    /// An item to append; `None` when §4 filters it out.
    Item(Option<Item>),
    /// History replaced by a compaction's `replacement_history` (already filtered).
    Compacted(Vec<Item>),
    /// A compaction without `replacement_history`: user turns are kept, then this summary.
    LegacyCompaction(Item),
    /// The mini dialect's rollback: history replaced outright.
    RolledBack(Vec<Item>),
    /// Codex's `thread_rolled_back` with `num_turns` > 0.
    DropTurns(u64),
    TurnStarted(Option<Box<str>>),
    TurnEnded {
        turn_id: Option<Box<str>>,
        aborted: bool,
    },
    /// A Codex record kind with no effect on history (`turn_context`, …).
    Context,
    /// A known event that does not change history (`token_count`, `agent_message`, …), or a
    /// rollback event whose `num_turns` is not a positive integer.
    Event,
    UnknownEvent(Box<str>),
    Unknown(Box<str>),
}

pub type Classified = (Option<Dialect>, Record);

/// Classifies one line (without its line ending). `keep_text` keeps the source text of items.
pub fn parse(line: &[u8], keep_text: bool) -> Result<Classified, String> {
    let text = match simdutf8::basic::from_utf8(line) {
        Ok(text) => text,
        // The fast check says only whether; the standard one says where.
        Err(_) => {
            let at = std::str::from_utf8(line)
                .err()
                .map_or(0, |e| e.valid_up_to());
            return Err(format!("invalid UTF-8 at byte {}", at + 1));
        }
    };
    let invalid = |e: json::Error| format!("invalid JSON at column {}: {}", e.at + 1, e.what);
    let mut p = Parser::new(text);
    if p.peek() != Some(b'{') {
        p.value().and_then(|_| p.end()).map_err(invalid)?;
        return Err("not a JSON object".into());
    }
    let mut line = Line::default();
    p.object(|p, key| match &*item::key_name(key) {
        "payload" => {
            line.payload = Some(Nested::read(p)?);
            Ok(true)
        }
        "item" => {
            line.item = Some(Nested::read(p)?);
            Ok(true)
        }
        _ => line.top.member(p, key),
    })
    .and_then(|_| p.end())
    .map_err(invalid)?;
    let Some(kind) = line.top.kind.and_then(json::decode_str) else {
        return Err(r#"no string "type""#.into());
    };
    line.classify(&kind, keep_text)
}

/// A record's members as raw JSON text: its own, and those of its `payload` or `item`.
#[derive(Default)]
struct Line<'a> {
    top: Fields<'a>,
    payload: Option<Nested<'a>>,
    item: Option<Nested<'a>>,
}

/// A member whose value may be an object the rules look into.
struct Nested<'a> {
    raw: &'a str,
    /// The object's members; `None` when the value is not an object.
    fields: Option<Fields<'a>>,
}

impl<'a> Nested<'a> {
    fn read(p: &mut Parser<'a>) -> json::Result<Nested<'a>> {
        let text = p.text();
        if p.peek() == Some(b'{') {
            let mut fields = Fields::default();
            let range = p.object(|p, key| fields.member(p, key))?;
            Ok(Nested {
                raw: &text[range],
                fields: Some(fields),
            })
        } else {
            let range = p.value()?;
            Ok(Nested {
                raw: &text[range],
                fields: None,
            })
        }
    }

    /// The members, or the parse error a non-object payload of this record kind is.
    fn object(&self, kind: &str) -> Result<&Fields<'a>, String> {
        self.fields
            .as_ref()
            .ok_or_else(|| format!("{kind}: payload is not an object"))
    }
}

const CONTEXT_KINDS: [&str; 8] = [
    "turn_context",
    "inter_agent_communication",
    "inter_agent_communication_metadata",
    "world_state",
    "token_usage_record",
    "retained_context",
    "security_risk_score",
    "realtime_item",
];

impl Line<'_> {
    fn classify(&self, kind: &str, keep_text: bool) -> Result<Classified, String> {
        use Dialect::{Codex, Mini};
        let top = &self.top;
        let record = match (kind, &self.payload) {
            ("session_meta", Some(payload)) => {
                let payload = payload.object(kind)?;
                let thread_id = non_empty(payload.id)
                    .ok_or(r#"session_meta: payload has no non-empty string "id""#)?;
                let meta = SessionMeta {
                    thread_id,
                    cwd: string(payload.cwd),
                    timestamp: string(payload.timestamp).or_else(|| string(top.timestamp)),
                };
                (Some(Codex), Record::SessionMeta(meta))
            }
            ("session_meta", None) => {
                let thread_id = non_empty(top.thread_id)
                    .ok_or(r#"session_meta: no non-empty string "thread_id""#)?;
                let meta = SessionMeta {
                    thread_id,
                    cwd: None,
                    timestamp: string(top.timestamp),
                };
                (Some(Mini), Record::SessionMeta(meta))
            }
            ("compacted", Some(payload)) => {
                let payload = payload.object(kind)?;
                let message = payload
                    .message
                    .filter(|m| m.starts_with('"'))
                    .ok_or(r#"compacted: payload has no string "message""#)?;
                let record = match payload.replacement_history {
                    None | Some("null") => Record::LegacyCompaction(summary(message, keep_text)),
                    Some(history) => Record::Compacted(replacement(kind, history, keep_text)?),
                };
                (Some(Codex), record)
            }
            ("compacted", None) => {
                let history = top
                    .replacement_history
                    .ok_or(r#"compacted: no "replacement_history" array"#)?;
                let items = replacement(kind, history, keep_text)?;
                (Some(Mini), Record::Compacted(items))
            }
            ("response_item", Some(payload)) => {
                let item = nested_item(payload, keep_text).ok_or(
                    r#"response_item: payload is not an item (an object with a string "type")"#,
                )?;
                (Some(Codex), Record::Item(item))
            }
            ("event_msg", Some(payload)) => {
                let payload = payload.object(kind)?;
                let event = payload
                    .kind
                    .and_then(json::decode_str)
                    .ok_or(r#"event_msg: payload has no string "type""#)?;
                (Some(Codex), event_record(&event, payload))
            }
            (kind, Some(payload)) if CONTEXT_KINDS.contains(&kind) => {
                payload.object(kind)?;
                (Some(Codex), Record::Context)
            }
            ("response_item" | "event_msg", None) => return Err(format!("{kind}: no payload")),
            (kind, None) if CONTEXT_KINDS.contains(&kind) => {
                return Err(format!("{kind}: no payload"));
            }
            ("item", _) => {
                let item = self
                    .item
                    .as_ref()
                    .and_then(|item| nested_item(item, keep_text))
                    .ok_or(r#"item: "item" is not an object with a string "type""#)?;
                (Some(Mini), Record::Item(item))
            }
            ("rolled_back", _) => {
                let history = top
                    .replacement_history
                    .ok_or(r#"rolled_back: no "replacement_history" array"#)?;
                let items = replacement(kind, history, keep_text)?;
                (Some(Mini), Record::RolledBack(items))
            }
            ("turn_started", _) => (Some(Mini), Record::TurnStarted(string(top.turn_id))),
            ("turn_completed" | "turn_aborted", _) => {
                let turn_id = string(top.turn_id);
                let aborted = kind == "turn_aborted";
                (Some(Mini), Record::TurnEnded { turn_id, aborted })
            }
            (kind, _) => (None, Record::Unknown(kind.into())),
        };
        Ok(record)
    }
}

/// The item a `payload` or `item` member holds: `Some(None)` when §4 filters it out, `None` when
/// it is not an item at all.
fn nested_item(nested: &Nested<'_>, keep_text: bool) -> Option<Option<Item>> {
    match item::from_fields(nested.raw, nested.fields.as_ref()?, keep_text) {
        item::Parsed::Item(item) => Some(Some(item)),
        item::Parsed::Filtered => Some(None),
        item::Parsed::NotObject | item::Parsed::NoType => None,
    }
}

fn event_record(event: &str, payload: &Fields<'_>) -> Record {
    let turn_id = || string(payload.turn_id);
    match event {
        "task_started" | "turn_started" => Record::TurnStarted(turn_id()),
        "task_complete" | "turn_complete" => Record::TurnEnded {
            turn_id: turn_id(),
            aborted: false,
        },
        "turn_aborted" => Record::TurnEnded {
            turn_id: turn_id(),
            aborted: true,
        },
        "thread_rolled_back" => match payload.num_turns.and_then(positive_integer) {
            Some(n) => Record::DropTurns(n),
            None => Record::Event,
        },
        e if KNOWN_EVENTS.contains(&e) => Record::Event,
        e => Record::UnknownEvent(e.into()),
    }
}

/// Event types the Codex CLI writes that do not change history; anything else is reported as
/// an unknown event (a newer Codex), which is not an error either.
const KNOWN_EVENTS: [&str; 58] = [
    "error",
    "warning",
    "stream_error",
    "user_message",
    "agent_message",
    "agent_message_delta",
    "agent_message_content_delta",
    "agent_reasoning",
    "agent_reasoning_delta",
    "agent_reasoning_raw_content",
    "agent_reasoning_raw_content_delta",
    "agent_reasoning_section_break",
    "reasoning_content_delta",
    "reasoning_raw_content_delta",
    "token_count",
    "session_configured",
    "mcp_startup_update",
    "mcp_startup_complete",
    "mcp_tool_call_begin",
    "mcp_tool_call_end",
    "mcp_list_tools_response",
    "web_search_begin",
    "web_search_end",
    "image_generation_begin",
    "image_generation_end",
    "exec_command_begin",
    "exec_command_output_delta",
    "exec_command_end",
    "terminal_interaction",
    "view_image_tool_call",
    "exec_approval_request",
    "apply_patch_approval_request",
    "request_user_input",
    "elicitation_request",
    "dynamic_tool_call_request",
    "background_event",
    "undo_started",
    "undo_completed",
    "patch_apply_begin",
    "patch_apply_end",
    "turn_diff",
    "get_history_entry_response",
    "list_custom_prompts_response",
    "list_skills_response",
    "skills_update_available",
    "plan_update",
    "shutdown_complete",
    "entered_review_mode",
    "exited_review_mode",
    "raw_response_item",
    "item_started",
    "item_completed",
    "context_compacted",
    "deprecation_notice",
    "collab_agent_spawn_begin",
    "collab_agent_spawn_end",
    "thread_name_updated",
    "model_reroute",
];

fn string(raw: Option<&str>) -> Option<Box<str>> {
    raw.and_then(json::decode_str).map(Into::into)
}

fn non_empty(raw: Option<&str>) -> Option<Box<str>> {
    string(raw).filter(|s| !s.is_empty())
}

/// A JSON integer above zero (a float such as `2.0` is not one); huge ones saturate.
fn positive_integer(raw: &str) -> Option<u64> {
    if raw.is_empty() || !raw.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = raw.trim_start_matches('0');
    if digits.is_empty() {
        return None;
    }
    Some(digits.parse().unwrap_or(u64::MAX))
}

/// The items of a `replacement_history` array, filtered as SPEC §4 says.
fn replacement(kind: &str, raw: &str, keep_text: bool) -> Result<Vec<Item>, String> {
    if !raw.starts_with('[') {
        return Err(format!(r#"{kind}: "replacement_history" is not an array"#));
    }
    let mut items = Vec::new();
    let mut p = Parser::new(raw);
    // Already validated with the line, so this walk cannot fail.
    let _ = p.array(|p| {
        if p.peek() != Some(b'{') {
            return Ok(false); // not an object: dropped
        }
        let nested = Nested::read(p)?;
        match nested_item(&nested, keep_text) {
            Some(Some(item)) => items.push(item),
            Some(None) => {}
            None => items.push(Item::untyped(nested.raw, keep_text)),
        }
        Ok(true)
    });
    Ok(items)
}

/// The user message a legacy compaction leaves behind, holding the compaction's message.
/// `message` is the raw JSON string: it is written as serde_json spells the text, unless it
/// holds a lone surrogate, which only the original spelling can keep.
fn summary(message: &str, keep_text: bool) -> Item {
    let message = match json::decode_key(message) {
        Some((text, false)) => serde_json::to_string(&text).unwrap_or_else(|_| message.into()),
        _ => message.into(),
    };
    // Written by hand, not with `json!`, whose map would sort the keys.
    let text = format!(
        r#"{{"type":"message","role":"user","content":[{{"type":"input_text","text":{message}}}]}}"#
    );
    match item::parse(&text, keep_text) {
        item::Parsed::Item(item) => item,
        _ => Item::untyped(&text, keep_text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> Classified {
        parse(line.as_bytes(), true).unwrap_or_else(|e| panic!("{line}: {e}"))
    }

    fn err(line: &[u8]) -> String {
        match parse(line, true) {
            Err(e) => e,
            Ok(r) => panic!("{line:?} parsed as {r:?}"),
        }
    }

    #[test]
    fn parse_errors_say_why() {
        assert_eq!(err(b"\xff{}"), "invalid UTF-8 at byte 1");
        assert_eq!(
            err(b"{\"type\":"),
            "invalid JSON at column 9: EOF while expecting a value"
        );
        assert_eq!(err(b"[1,2]"), "not a JSON object");
        assert_eq!(err(b"{\"type\":3}"), r#"no string "type""#);
        assert_eq!(
            err(br#"{"type":"response_item","payload":[]}"#),
            r#"response_item: payload is not an item (an object with a string "type")"#
        );
        assert_eq!(err(br#"{"type":"event_msg"}"#), "event_msg: no payload");
        assert_eq!(
            err(br#"{"type":"turn_context","payload":1}"#),
            "turn_context: payload is not an object"
        );
        assert_eq!(
            err(br#"{"type":"session_meta","payload":{"id":""}}"#),
            r#"session_meta: payload has no non-empty string "id""#
        );
        assert_eq!(
            err(br#"{"type":"compacted","replacement_history":{}}"#),
            r#"compacted: "replacement_history" is not an array"#
        );
    }

    #[test]
    fn unknown_kinds_are_records() {
        assert_eq!(
            ok(r#"{"type":"future_kind","payload":{}}"#),
            (None, Record::Unknown("future_kind".into()))
        );
        assert_eq!(
            ok(r#"{"type":"event_msg","payload":{"type":"brand_new"}}"#),
            (
                Some(Dialect::Codex),
                Record::UnknownEvent("brand_new".into())
            )
        );
    }

    #[test]
    fn session_meta_in_both_dialects() {
        let codex =
            ok(r#"{"timestamp":"t0","type":"session_meta","payload":{"id":"abc","cwd":"/r"}}"#);
        assert_eq!(
            codex,
            (
                Some(Dialect::Codex),
                Record::SessionMeta(SessionMeta {
                    thread_id: "abc".into(),
                    cwd: Some("/r".into()),
                    timestamp: Some("t0".into())
                })
            )
        );
        let mini = ok(r#"{"type":"session_meta","thread_id":"m1"}"#);
        assert_eq!(mini.0, Some(Dialect::Mini));
    }

    #[test]
    fn turn_events_and_rollbacks() {
        assert_eq!(
            ok(r#"{"type":"event_msg","payload":{"type":"task_started","turn_id":null}}"#).1,
            Record::TurnStarted(None)
        );
        assert_eq!(
            ok(r#"{"type":"event_msg","payload":{"type":"turn_aborted","turn_id":"t"}}"#).1,
            Record::TurnEnded {
                turn_id: Some("t".into()),
                aborted: true
            }
        );
        let rollback = |n: &str| {
            ok(&format!(r#"{{"type":"event_msg","payload":{{"type":"thread_rolled_back","num_turns":{n}}}}}"#)).1
        };
        assert_eq!(rollback("2"), Record::DropTurns(2));
        assert_eq!(
            rollback("123456789012345678901234567890"),
            Record::DropTurns(u64::MAX)
        );
        assert_eq!(rollback("0"), Record::Event);
        assert_eq!(rollback("-1"), Record::Event);
        assert_eq!(rollback("2.0"), Record::Event);
        assert_eq!(rollback("\"2\""), Record::Event);
    }

    #[test]
    fn legacy_compaction_builds_the_summary_message() {
        let (_, record) = ok(r#"{"type":"compacted","payload":{"message":"sum \"up\""}}"#);
        let Record::LegacyCompaction(item) = record else {
            panic!("{record:?}")
        };
        assert_eq!(
            item.text.as_deref(),
            Some(
                r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"sum \"up\""}]}"#
            )
        );
        assert!(item.user_turn);
    }

    #[test]
    fn legacy_summary_keeps_a_lone_surrogate() {
        let (_, record) =
            ok(r#"{"type":"compacted","payload":{"message":"sum\ud800mary \u00e9"}}"#);
        let Record::LegacyCompaction(item) = record else {
            panic!("{record:?}")
        };
        assert_eq!(
            item.text.as_deref(),
            Some(
                r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"sum\ud800mary \u00e9"}]}"#
            )
        );
    }

    #[test]
    fn replacement_history_is_filtered() {
        let (_, record) = ok(
            r#"{"type":"compacted","replacement_history":[1,{"type":"ghost_snapshot"},{"no":"type"},{"type":"message","role":"system"},{"type":"reasoning"}]}"#,
        );
        let Record::Compacted(items) = record else {
            panic!("{record:?}")
        };
        let texts: Vec<_> = items.iter().map(|i| i.text.as_deref()).collect();
        assert_eq!(
            texts,
            vec![Some(r#"{"no":"type"}"#), Some(r#"{"type":"reasoning"}"#)]
        );
    }
}
