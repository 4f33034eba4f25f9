//! Items whose text is no plain span of the log (SPEC §2, §2.1, §2.2): the `agent_message` Codex
//! makes of an inter-agent communication, the user messages a legacy compaction rebuilds, its
//! summary message, and developer messages whose `<model_switch>` parts a rollback strips. Each is
//! written from the span it is made from, as Codex serializes it (compact, keys in Codex's order).

use std::io;

use super::item::{Fields, Flags, Form, Item};
use super::parts::{self, PartKind};
use super::turns;
use super::typed;
use crate::json::{self, Parser};
use crate::source::SpanReader;

/// Writes the JSON text of a history item into `out`, as its form makes it.
pub(crate) fn item_text(
    item: Item,
    owned: &[Box<str>],
    reader: &mut SpanReader<'_>,
    out: &mut Vec<u8>,
) -> io::Result<()> {
    out.clear();
    append_item_text(item, owned, reader, out)
}

/// The JSON text of a history item: where it lies, in the read-back window or among the texts
/// replay owns, when the log spells it so; else written into `scratch` as its form makes it.
pub(crate) fn item_bytes<'a>(
    item: Item,
    owned: &'a [Box<str>],
    reader: &'a mut SpanReader<'_>,
    scratch: &'a mut Vec<u8>,
) -> io::Result<&'a [u8]> {
    item_str(item, owned, reader, scratch).map(str::as_bytes)
}

/// [`item_bytes`], as the text it is.
pub(crate) fn item_str<'a>(
    item: Item,
    owned: &'a [Box<str>],
    reader: &'a mut SpanReader<'_>,
    scratch: &'a mut Vec<u8>,
) -> io::Result<&'a str> {
    match item.form() {
        Form::Owned => Ok(owned_text(item, owned)),
        Form::Verbatim if !item.has(Flags::STRIPPED) => checked(read_text(item, reader)?),
        _ => {
            item_text(item, owned, reader, scratch)?;
            json::utf8(scratch).map_err(|_| crate::source::changed())
        }
    }
}

/// [`item_text`] appended to what `out` holds.
pub(crate) fn append_item_text(
    item: Item,
    owned: &[Box<str>],
    reader: &mut SpanReader<'_>,
    out: &mut Vec<u8>,
) -> io::Result<()> {
    if item.form() == Form::Owned {
        out.extend_from_slice(owned_text(item, owned).as_bytes());
        return Ok(());
    }
    let text = read_text(item, reader)?;
    match item.form() {
        Form::Verbatim if item.has(Flags::STRIPPED) => stripped(checked(text)?, out),
        Form::Verbatim => out.extend_from_slice(checked(text)?.as_bytes()),
        Form::InterAgent => agent_message(checked(text)?, out),
        Form::Summary => summary_message(text, out),
        Form::Rebuilt => rebuilt_message(checked(text)?, None, out),
        Form::Owned => {}
    }
    Ok(())
}

/// The text replay made for an item of [`Form::Owned`].
fn owned_text(item: Item, owned: &[Box<str>]) -> &str {
    owned.get(item.span().at as usize).map_or("", |t| t)
}

/// The span of an item, read back.
fn read_text<'r>(item: Item, reader: &'r mut SpanReader<'_>) -> io::Result<&'r str> {
    let bytes = reader.read(item.src(), item.span())?;
    json::utf8(bytes).map_err(|_| crate::source::changed())
}

/// The bytes read back for an item must still be one: a file truncated or rewritten in place
/// after its pass shows here, instead of as garbage in the output.
fn checked(text: &str) -> io::Result<&str> {
    if text.starts_with('{') && text.ends_with('}') {
        Ok(text)
    } else {
        Err(crate::source::changed())
    }
}

/// Writes `"key":RAW` for a member, with a leading comma.
fn member(out: &mut Vec<u8>, key: &str, raw: &str) {
    out.extend_from_slice(format!(r#","{key}":"#).as_bytes());
    out.extend_from_slice(raw.as_bytes());
}

/// Writes the reduced passthrough of the object member at `range`, if it is an object.
fn passthrough(text: &str, range: &Option<std::ops::Range<usize>>, out: &mut Vec<u8>) {
    let Some(range) = range else { return };
    let mut p = Parser::new(text);
    p.seek(range.start);
    if let Ok(Some(reduced)) = turns::passthrough(&mut p) {
        write_passthrough(text, &reduced, out);
    }
}

/// Writes `,"internal_chat_message_metadata_passthrough":{…}` with what Codex keeps of it.
fn write_passthrough(text: &str, reduced: &turns::Passthrough, out: &mut Vec<u8>) {
    out.extend_from_slice(br#","internal_chat_message_metadata_passthrough":{"#);
    let mut first = true;
    for (key, value) in [
        ("turn_id", &reduced.turn_id),
        ("create_time", &reduced.create_time),
    ] {
        if let Some(value) = value {
            if !first {
                out.push(b',');
            }
            first = false;
            out.extend_from_slice(format!(r#""{key}":"#).as_bytes());
            out.extend_from_slice(text[value.clone()].as_bytes());
        }
    }
    out.push(b'}');
}

/// The `agent_message` item Codex makes of an `inter_agent_communication` payload.
fn agent_message(payload: &str, out: &mut Vec<u8>) {
    let Some(c) = turns::communication(payload, 0..payload.len()) else {
        out.extend_from_slice(payload.as_bytes());
        return;
    };
    let raw = |r: &std::ops::Range<usize>| &payload[r.clone()];
    out.extend_from_slice(br#"{"type":"agent_message""#);
    if let Some(id) = &c.id {
        member(out, "id", raw(id));
    }
    member(out, "author", raw(&c.author));
    member(out, "recipient", raw(&c.recipient));
    out.extend_from_slice(br#","content":["#);
    match &c.encrypted_content {
        Some(encrypted) => {
            let decoded = |r: &std::ops::Range<usize>| json::decode_str(raw(r)).unwrap_or_default();
            let kind = if c.trigger_turn {
                "NEW_TASK"
            } else {
                "MESSAGE"
            };
            let header = format!(
                "Message Type: {kind}\nTask name: {}\nSender: {}\nPayload:\n",
                decoded(&c.recipient),
                decoded(&c.author)
            );
            out.extend_from_slice(br#"{"type":"input_text","text":"#);
            json::encode_str(header.as_bytes(), out);
            out.extend_from_slice(br#"},{"type":"encrypted_content","encrypted_content":"#);
            out.extend_from_slice(raw(encrypted).as_bytes());
            out.push(b'}');
        }
        None => {
            out.extend_from_slice(br#"{"type":"input_text","text":"#);
            out.extend_from_slice(raw(&c.content).as_bytes());
            out.push(b'}');
        }
    }
    out.push(b']');
    if let Some(reduced) = &c.passthrough {
        write_passthrough(payload, reduced, out);
    }
    out.push(b'}');
}

/// A user message holding one text, as a compaction writes it.
fn user_message(text: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(
        br#"{"type":"message","role":"user","content":[{"type":"input_text","text":"#,
    );
    json::encode_str(text, out);
    out.extend_from_slice(b"}]");
}

/// What a legacy compaction's summary message says: its `message`, or a stand-in when empty.
pub(crate) fn summary_text(raw: &str) -> Vec<u8> {
    let text = json::decode_key(raw).unwrap_or_default();
    if text.is_empty() {
        return b"(no summary available)".to_vec();
    }
    text.into_owned()
}

/// The user message a legacy compaction ends with, holding its `message` (raw JSON).
fn summary_message(raw: &str, out: &mut Vec<u8>) {
    user_message(&summary_text(raw), out);
    out.push(b'}');
}

/// The text a compaction keeps of a user message (its JSON text): its `input_text` parts that
/// are no media labels, each a piece.
pub(crate) fn compaction_pieces(message: &str) -> Vec<String> {
    let mut p = Parser::new(message);
    let fields = Fields::read(&mut p).map(|(f, _)| f).unwrap_or_default();
    let parts = parts::parts(message, &[], &fields.content);
    let mut pieces = Vec::new();
    parts::compaction_text(message, &parts, |piece| pieces.push(piece.to_owned()));
    pieces
}

/// The user message Codex 0.169.0 rebuilds from `message` (a user message's JSON text) when it
/// compacts (SPEC §11.2 #5): its `id` when Codex sends it, its text pieces as separate
/// `input_text` parts (or `pieces`, when cut; one empty part when there are none), and its
/// passthrough reduced to `turn_id` and `create_time`.
pub(crate) fn rebuilt_message(message: &str, pieces: Option<&[String]>, out: &mut Vec<u8>) {
    let whole;
    let pieces = match pieces {
        Some(pieces) => pieces,
        None => {
            whole = compaction_pieces(message);
            &whole
        }
    };
    let mut p = Parser::new(message);
    let fields = Fields::read(&mut p).map(|(f, _)| f).unwrap_or_default();
    out.extend_from_slice(br#"{"type":"message""#);
    if let Some(id) = &fields.id
        && json::string_at(message, &Some(id.clone())).is_some_and(|id| typed::sent_id(&id))
    {
        member(out, "id", &message[id.clone()]);
    }
    out.extend_from_slice(br#","role":"user","content":["#);
    let empty = [String::new()];
    let pieces = if pieces.is_empty() {
        &empty[..]
    } else {
        pieces
    };
    for (i, piece) in pieces.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(br#"{"type":"input_text","text":"#);
        json::encode_str(piece.as_bytes(), out);
        out.push(b'}');
    }
    out.push(b']');
    passthrough(message, &fields.passthrough, out);
    out.push(b'}');
}

/// A developer message without its whole `<model_switch>` parts (a first-turn rollback).
fn stripped(message: &str, out: &mut Vec<u8>) {
    let mut p = Parser::new(message);
    let fields = Fields::read(&mut p).map(|(f, _)| f).unwrap_or_default();
    let Some(content) = fields.content.clone() else {
        out.extend_from_slice(message.as_bytes());
        return;
    };
    let kept: Vec<&str> = parts::parts(message, &[], &fields.content)
        .into_iter()
        .filter(|part| !is_switch_part(message, part))
        .map(|part| &message[part.range])
        .collect();
    out.extend_from_slice(&message.as_bytes()[..content.start]);
    out.push(b'[');
    out.extend_from_slice(kept.join(",").as_bytes());
    out.push(b']');
    out.extend_from_slice(&message.as_bytes()[content.end..]);
}

fn is_switch_part(message: &str, part: &parts::Part) -> bool {
    part.kind == PartKind::InputText
        && part
            .text(message)
            .is_some_and(|t| turns::is_model_switch(&t))
}

/// Whether a developer message keeps any part once its `<model_switch>` parts are stripped.
pub(crate) fn keeps_parts_when_stripped(message: &str) -> bool {
    let mut p = Parser::new(message);
    let fields = Fields::read(&mut p).map(|(f, _)| f).unwrap_or_default();
    parts::parts(message, &[], &fields.content)
        .iter()
        .any(|part| !is_switch_part(message, part))
}

/// The non-empty passthrough `turn_id` of an item's JSON text.
pub(crate) fn turn_id(text: &str) -> Option<String> {
    let mut p = Parser::new(text);
    let fields = Fields::read(&mut p).map(|(f, _)| f).unwrap_or_default();
    let range = fields.passthrough?;
    let mut p = Parser::new(text);
    p.seek(range.start);
    let reduced = turns::passthrough(&mut p).ok()??;
    json::string_at(text, &reduced.turn_id)
        .filter(|id| !id.is_empty())
        .map(|id| id.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_messages_as_codex_makes_them() {
        let mut out = Vec::new();
        agent_message(
            r#"{"author":"/root","recipient":"/root/w","other_recipients":[],"content":"do \"it\"","trigger_turn":true,"id":"m1","internal_chat_message_metadata_passthrough":{"x":1,"create_time":1E3,"turn_id":"t"}}"#,
            &mut out,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"type":"agent_message","id":"m1","author":"/root","recipient":"/root/w","content":[{"type":"input_text","text":"do \"it\""}],"internal_chat_message_metadata_passthrough":{"turn_id":"t","create_time":1E3}}"#
        );
        let mut out = Vec::new();
        agent_message(
            r#"{"author":"/root/a","recipient":"/root/b","content":"ignored","trigger_turn":false,"encrypted_content":"enc"}"#,
            &mut out,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"type":"agent_message","author":"/root/a","recipient":"/root/b","content":[{"type":"input_text","text":"Message Type: MESSAGE\nTask name: /root/b\nSender: /root/a\nPayload:\n"},{"type":"encrypted_content","encrypted_content":"enc"}]}"#
        );
    }

    #[test]
    fn rebuilt_messages_keep_text_and_reduced_passthrough() {
        let mut out = Vec::new();
        rebuilt_message(
            r#"{"type":"message","id":"x","role":"user","content":[{"type":"input_text","text":"a"},{"type":"input_text","text":"b\u0021"}],"internal_chat_message_metadata_passthrough":{"extra":true}}"#,
            None,
            &mut out,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"a"},{"type":"input_text","text":"b!"}],"internal_chat_message_metadata_passthrough":{}}"#
        );
        let mut out = Vec::new();
        rebuilt_message(
            r#"{"type":"message","id":"msg_1","role":"user","content":[{"type":"input_image","image_url":"u"}]}"#,
            None,
            &mut out,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"type":"message","id":"msg_1","role":"user","content":[{"type":"input_text","text":""}]}"#
        );
        let mut out = Vec::new();
        summary_message(r#""""#, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"(no summary available)"}]}"#
        );
    }

    #[test]
    fn model_switch_parts_are_stripped_in_place() {
        let mut out = Vec::new();
        stripped(
            r#"{"type":"message","role":"developer","content":[ {"type":"input_text","text":"<model_switch>\nx\n</model_switch>"}, {"type":"input_text","text":"<permissions instructions>p"} ],"n":1.0}"#,
            &mut out,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>p"}],"n":1.0}"#
        );
    }
}
