//! Items: model-visible Responses API input items, kept as their source text plus the few header
//! fields that replay and normalization decide on, read once when the line is parsed.

use std::borrow::Cow;
use std::ops::Range;

use crate::json::{self, Parser};

fn string(raw: Option<&str>) -> Option<Cow<'_, str>> {
    raw.and_then(json::decode_str)
}

/// The item `type`s the rules tell apart. Everything else is `Other` and passes through untouched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    Message,
    FunctionCall,
    FunctionCallOutput,
    LocalShellCall,
    CustomToolCall,
    CustomToolCallOutput,
    ToolSearchCall,
    ToolSearchOutput,
    ImageGenerationCall,
    GhostSnapshot,
    Other,
}

impl ItemKind {
    fn from_type(t: &str) -> ItemKind {
        match t {
            "message" => ItemKind::Message,
            "function_call" => ItemKind::FunctionCall,
            "function_call_output" => ItemKind::FunctionCallOutput,
            "local_shell_call" => ItemKind::LocalShellCall,
            "custom_tool_call" => ItemKind::CustomToolCall,
            "custom_tool_call_output" => ItemKind::CustomToolCallOutput,
            "tool_search_call" => ItemKind::ToolSearchCall,
            "tool_search_output" => ItemKind::ToolSearchOutput,
            "image_generation_call" => ItemKind::ImageGenerationCall,
            "ghost_snapshot" => ItemKind::GhostSnapshot,
            _ => ItemKind::Other,
        }
    }

    /// Whether `call_id` matters for this kind (calls and their outputs).
    fn pairs(self) -> bool {
        match self {
            ItemKind::FunctionCall
            | ItemKind::FunctionCallOutput
            | ItemKind::LocalShellCall
            | ItemKind::CustomToolCall
            | ItemKind::CustomToolCallOutput
            | ItemKind::ToolSearchCall
            | ItemKind::ToolSearchOutput => true,
            ItemKind::Message
            | ItemKind::ImageGenerationCall
            | ItemKind::GhostSnapshot
            | ItemKind::Other => false,
        }
    }
}

/// Media parts an item holds that a text-only model cannot take.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Media {
    /// `input_image` parts in `content` (messages) or an array `output` (tool outputs).
    pub images: u32,
    /// `input_audio` parts, likewise.
    pub audio: u32,
    /// An `image_generation_call` whose `result` is something other than `""`.
    pub image_result: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub kind: ItemKind,
    /// A `message` with role `user` and no contextual fragment: what a rollback counts.
    pub user_turn: bool,
    /// The non-empty string `id` of a call (synthetic output ids derive from it).
    pub id: Option<Box<str>>,
    /// The `call_id` of a call or output.
    pub call_id: CallId,
    /// A `tool_search_output` with `execution` `"server"`: never an orphan.
    pub server_execution: bool,
    pub media: Media,
    /// The exact source text, when the command prints items.
    pub text: Option<Box<str>>,
}

/// A call's or output's `call_id`. Only strings pair: a call with any other `call_id` gets no
/// output, and an output with one is an orphan (SPEC §6 keeps only missing or null ones).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CallId {
    /// Missing or `null`.
    #[default]
    None,
    Str(Box<str>),
    /// A string with a lone surrogate escape, which UTF-8 cannot hold: compared by a key that
    /// keeps surrogates apart, shown as the JSON text it was.
    Lone {
        key: Box<str>,
        raw: Box<str>,
    },
    /// Any other JSON value, as its raw text.
    Other(Box<str>),
}

impl CallId {
    fn read(raw: Option<&str>) -> CallId {
        match raw {
            None | Some("null") => CallId::None,
            Some(raw) => match json::decode_key(raw) {
                Some((key, true)) => CallId::Lone {
                    key: key.into(),
                    raw: raw.into(),
                },
                Some((id, false)) => CallId::Str(id.into()),
                None => CallId::Other(raw.into()),
            },
        }
    }

    /// What pairs: a string call id, or the key of one with lone surrogates.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            CallId::Str(id) | CallId::Lone { key: id, .. } => Some(id),
            CallId::None | CallId::Other(_) => None,
        }
    }

    /// How reports show it: a string as it is, anything else as its JSON text.
    pub fn display(&self) -> &str {
        match self {
            CallId::None => "null",
            CallId::Str(id) | CallId::Other(id) | CallId::Lone { raw: id, .. } => id,
        }
    }
}

/// What a candidate item turned out to be.
#[derive(Debug, PartialEq, Eq)]
pub enum Parsed {
    Item(Item),
    /// A ghost snapshot or a system message: never enters history (SPEC §4).
    Filtered,
    NotObject,
    NoType,
}

impl Item {
    /// An object without a string `type`: kept in replacement histories, but paired with nothing.
    pub fn untyped(raw: &str, keep_text: bool) -> Item {
        Item {
            kind: ItemKind::Other,
            user_turn: false,
            id: None,
            call_id: CallId::None,
            server_execution: false,
            media: Media::default(),
            text: keep_text.then(|| raw.into()),
        }
    }
}

/// The members of an object that the rules read, as raw JSON text (the last duplicate wins).
/// One type serves items, Codex payloads and mini records alike, since a record's `type` may come
/// after its payload.
#[derive(Debug, Default)]
pub struct Fields<'a> {
    pub kind: Option<&'a str>,
    pub role: Option<&'a str>,
    pub id: Option<&'a str>,
    pub call_id: Option<&'a str>,
    pub execution: Option<&'a str>,
    pub message: Option<&'a str>,
    pub num_turns: Option<&'a str>,
    pub turn_id: Option<&'a str>,
    pub thread_id: Option<&'a str>,
    pub cwd: Option<&'a str>,
    pub timestamp: Option<&'a str>,
    pub replacement_history: Option<&'a str>,
    /// The `result` of an image generation call.
    pub result: Option<&'a str>,
    /// The parts of `content` (messages).
    pub content: Parts,
    /// The parts of `output` (tool outputs), when it is an array.
    pub output: Parts,
}

/// What an array of content parts holds.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Parts {
    /// `input_image` and `input_audio` parts, with where they stand in the parsed text.
    pub media: Vec<(Range<usize>, MediaPart)>,
    /// An `input_text` part is a contextual fragment.
    pub contextual: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaPart {
    Image,
    Audio,
}

impl Parts {
    fn count(&self, kind: MediaPart) -> u32 {
        let n = self.media.iter().filter(|(_, k)| *k == kind).count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }
}

/// A key's name, from its raw text (borrowed unless it has escapes, which keys almost never do).
pub fn key_name(raw: &str) -> Cow<'_, str> {
    json::decode_str(raw).unwrap_or_default()
}

/// Reads the members of the object at the parser's position.
pub fn fields<'a>(p: &mut Parser<'a>) -> json::Result<Fields<'a>> {
    let mut f = Fields::default();
    p.object(|p, key| f.member(p, key))?;
    Ok(f)
}

impl<'a> Fields<'a> {
    /// Reads the value of member `key` at the parser's position if it is one of ours; returns
    /// whether it did (see [`Parser::object`]).
    pub fn member(&mut self, p: &mut Parser<'a>, key: &str) -> json::Result<bool> {
        let slot = match &*key_name(key) {
            "type" => &mut self.kind,
            "role" => &mut self.role,
            "id" => &mut self.id,
            "call_id" => &mut self.call_id,
            "execution" => &mut self.execution,
            "message" => &mut self.message,
            "num_turns" => &mut self.num_turns,
            "turn_id" => &mut self.turn_id,
            "thread_id" => &mut self.thread_id,
            "cwd" => &mut self.cwd,
            "timestamp" => &mut self.timestamp,
            "replacement_history" => &mut self.replacement_history,
            "result" => &mut self.result,
            "content" => {
                self.content = parts(p)?;
                return Ok(true);
            }
            "output" => {
                self.output = parts(p)?;
                return Ok(true);
            }
            _ => return Ok(false),
        };
        let text = p.text();
        *slot = Some(&text[p.value()?]);
        Ok(true)
    }
}

/// Reads a `content` or `output` value: the media and contextual text in it, when an array.
fn parts(p: &mut Parser<'_>) -> json::Result<Parts> {
    let mut parts = Parts::default();
    if p.peek() != Some(b'[') {
        p.value()?;
        return Ok(parts);
    }
    let text = p.text();
    p.array(|p| {
        if p.peek() != Some(b'{') {
            return Ok(false);
        }
        let (mut kind, mut body) = (None, None);
        let range = p.object(|p, key| {
            let slot = match &*key_name(key) {
                "type" => &mut kind,
                "text" => &mut body,
                _ => return Ok(false),
            };
            *slot = Some(&text[p.value()?]);
            Ok(true)
        })?;
        match kind.and_then(json::decode_str).as_deref() {
            Some("input_image") => parts.media.push((range, MediaPart::Image)),
            Some("input_audio") => parts.media.push((range, MediaPart::Audio)),
            Some("input_text") => {
                let body = body.and_then(json::decode_str);
                parts.contextual |= body.is_some_and(|t| is_contextual_fragment(&t));
            }
            _ => {}
        }
        Ok(true)
    })?;
    Ok(parts)
}

/// Reads the header of the item whose (validated) JSON text is `raw`.
pub fn parse(raw: &str, keep_text: bool) -> Parsed {
    let mut p = Parser::new(raw);
    if p.peek() != Some(b'{') {
        return Parsed::NotObject;
    }
    match fields(&mut p) {
        Ok(f) => from_fields(raw, &f, keep_text),
        Err(_) => Parsed::NotObject,
    }
}

/// The item whose text is `raw` and whose members are `f`.
pub fn from_fields(raw: &str, f: &Fields<'_>, keep_text: bool) -> Parsed {
    let Some(type_name) = string(f.kind) else {
        return Parsed::NoType;
    };
    let kind = ItemKind::from_type(&type_name);
    let mut item = Item {
        kind,
        ..Item::untyped(raw, keep_text)
    };
    if kind.pairs() {
        item.call_id = CallId::read(f.call_id);
        item.id = string(f.id).filter(|id| !id.is_empty()).map(Into::into);
    }
    let media = |parts: &Parts| Media {
        images: parts.count(MediaPart::Image),
        audio: parts.count(MediaPart::Audio),
        image_result: false,
    };
    match kind {
        ItemKind::GhostSnapshot => return Parsed::Filtered,
        ItemKind::Message => {
            let role = string(f.role);
            if role.as_deref() == Some("system") {
                return Parsed::Filtered;
            }
            item.media = media(&f.content);
            item.user_turn = role.as_deref() == Some("user") && !f.content.contextual;
        }
        ItemKind::FunctionCallOutput | ItemKind::CustomToolCallOutput => {
            item.media = media(&f.output);
        }
        ItemKind::ToolSearchOutput => {
            item.server_execution = string(f.execution).as_deref() == Some("server");
        }
        ItemKind::ImageGenerationCall => {
            item.media.image_result = f.result.is_some_and(|r| r != r#""""#);
        }
        ItemKind::FunctionCall
        | ItemKind::LocalShellCall
        | ItemKind::CustomToolCall
        | ItemKind::ToolSearchCall
        | ItemKind::Other => {}
    }
    Parsed::Item(item)
}

/// Start and end markers of the text that Codex injects as user messages but that are context,
/// not a user's turn (SPEC §2.1).
const FRAGMENTS: [(&str, &str); 7] = [
    ("# AGENTS.md instructions for ", "</INSTRUCTIONS>"),
    ("<environment_context>", "</environment_context>"),
    ("<user_instructions>", "</user_instructions>"),
    ("<skill>", "</skill>"),
    ("<user_shell_command>", "</user_shell_command>"),
    ("<turn_aborted>", "</turn_aborted>"),
    ("<subagent_notification>", "</subagent_notification>"),
];

pub fn is_contextual_fragment(text: &str) -> bool {
    let t = text.trim().as_bytes();
    FRAGMENTS.iter().any(|(start, end)| {
        let (start, end) = (start.as_bytes(), end.as_bytes());
        t.len() >= start.len()
            && t.len() >= end.len()
            && t[..start.len()].eq_ignore_ascii_case(start)
            && t[t.len() - end.len()..].eq_ignore_ascii_case(end)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(raw: &str) -> Item {
        match parse(raw, true) {
            Parsed::Item(item) => item,
            other => panic!("{raw}: {other:?}"),
        }
    }

    #[test]
    fn reads_call_headers() {
        let call = item(r#"{"type":"function_call","id":"fc_1","call_id":"c\u0031","name":"x"}"#);
        assert_eq!(
            call,
            Item {
                kind: ItemKind::FunctionCall,
                user_turn: false,
                id: Some("fc_1".into()),
                call_id: CallId::Str("c1".into()),
                server_execution: false,
                media: Media::default(),
                text: Some(
                    r#"{"type":"function_call","id":"fc_1","call_id":"c\u0031","name":"x"}"#.into()
                ),
            }
        );
        let empty_id = item(r#"{"type":"custom_tool_call","id":"","call_id":null}"#);
        assert_eq!((empty_id.id, empty_id.call_id), (None, CallId::None));
        let numeric = item(r#"{"type":"function_call_output","call_id":7,"output":"x"}"#);
        assert_eq!(numeric.call_id, CallId::Other("7".into()));
    }

    #[test]
    fn filters_ghosts_and_system_messages() {
        assert_eq!(
            parse(r#"{"type":"ghost_snapshot"}"#, false),
            Parsed::Filtered
        );
        assert_eq!(
            parse(r#"{"type":"message","role":"system","content":[]}"#, false),
            Parsed::Filtered
        );
        assert_eq!(parse("[1]", false), Parsed::NotObject);
        assert_eq!(parse(r#"{"type":1}"#, false), Parsed::NoType);
        assert_eq!(parse(r#"{"role":"user"}"#, false), Parsed::NoType);
    }

    #[test]
    fn user_turns_exclude_contextual_fragments() {
        let turn = |raw: &str| item(raw).user_turn;
        assert!(turn(
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}"#
        ));
        assert!(turn(
            r#"{"type":"message","role":"user","content":"not an array"}"#
        ));
        assert!(!turn(
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"  <ENVIRONMENT_CONTEXT>x</environment_context>\n"}]}"#
        ));
        assert!(!turn(
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"},{"type":"input_text","text":"<skill>s</skill>"}]}"#
        ));
        assert!(!turn(
            r#"{"type":"message","role":"assistant","content":[]}"#
        ));
    }

    #[test]
    fn fragment_markers_need_both_ends() {
        assert!(is_contextual_fragment(
            "# agents.md INSTRUCTIONS FOR /repo\n\n<INSTRUCTIONS>x</instructions>"
        ));
        assert!(is_contextual_fragment("<turn_aborted></turn_aborted>"));
        assert!(!is_contextual_fragment("<skill> unterminated"));
        assert!(!is_contextual_fragment("say <skill>x</skill>"));
        assert!(!is_contextual_fragment(""));
    }

    #[test]
    fn counts_media_parts() {
        let msg = item(
            r#"{"type":"message","role":"user","content":[{"type":"input_image","image_url":"data:"},{"type":"input_audio"},{"type":"input_image"}]}"#,
        );
        assert_eq!(
            msg.media,
            Media {
                images: 2,
                audio: 1,
                image_result: false
            }
        );
        let out = item(
            r#"{"type":"function_call_output","call_id":"c","output":[{"type":"input_image"}]}"#,
        );
        assert_eq!(out.media.images, 1);
        let string_out = item(
            r#"{"type":"function_call_output","call_id":"c","output":"[{\"type\":\"input_image\"}]"}"#,
        );
        assert_eq!(string_out.media, Media::default());
        assert!(
            item(r#"{"type":"image_generation_call","result":"aGk="}"#)
                .media
                .image_result
        );
        assert!(
            !item(r#"{"type":"image_generation_call","result":""}"#)
                .media
                .image_result
        );
        assert!(
            !item(r#"{"type":"image_generation_call"}"#)
                .media
                .image_result
        );
    }
}
