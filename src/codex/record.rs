//! Codex records: one rollout line classified into a record kind (SPEC §2, §3, §9), in either
//! spelling of the envelope era (Codex's `{"type":KIND,"payload":{…}}` and the flat mini dialect)
//! or in the pre-envelope spelling of 2025. Pure: runs on the thread pool.

use std::ops::Range;

use super::item::{self, Fields, Flags, Form, Item, ItemKind};
use super::parts;
use super::prep::{self, Prep};
use super::turns;
use super::typed::{self, Typed};
use crate::findings::ParseError;
use crate::intern::Short;
use crate::json::{self, Parser};
use crate::source::Span;
use crate::toolcall::{self, ToolFault};

/// Which spelling a record was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spelling {
    /// `{"timestamp":…,"type":KIND,"payload":{…}}`, as the Codex CLI writes.
    Codex,
    /// The flat teaching format, with no `payload`.
    Mini,
    /// The 2025 format before the envelope: a bare session object, then bare items.
    Codex2025,
}

/// An item as classified, before the fold gives it its source and call key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NewItem {
    pub item: Item,
    /// The raw JSON of its `call_id`, for a call or output that has one.
    pub call_id: Option<Span>,
    /// That `call_id` decoded, when it is a string short enough to carry, for an item appended
    /// to the history: the fold interns it from here instead of reading the line again.
    pub call_key: Option<Short>,
    /// What the model API may refuse of a call when it is sent again (its line not yet set).
    pub fault: Option<Box<ToolFault>>,
    /// The long strings of an item resume prepares (an output it may cut, one with media), as
    /// offsets of its own text: the view, preparing it again, steps over them.
    pub known: Vec<json::Walked>,
}

/// A history that replaces the one before: its items, held exactly (a replacement can hold
/// millions), and the raw `call_id` of each call or output among them, by index.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Replacement {
    pub items: Vec<Item>,
    pub call_ids: Vec<(u32, Option<Span>)>,
    /// The faults of calls among them, by index.
    pub faults: Vec<(u32, ToolFault)>,
}

/// The first `session_meta` decides the thread; later ones are counted.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Meta {
    /// The raw JSON strings of the thread id, working directory and start time.
    pub thread_id: Span,
    pub cwd: Option<Span>,
    pub timestamp: Option<Span>,
    /// `history_mode` is `paginated`: records carry ordinals (SPEC §9).
    pub paginated: bool,
    /// `model_provider` names a provider other than `openai`: Codex sends no passthrough
    /// metadata (SPEC §11.1).
    pub custom_provider: bool,
    /// Why Codex refuses to resume a thread with this session_meta, in its words.
    pub refusal: Option<&'static str>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Record {
    SessionMeta(Meta),
    /// An item to append; `None` when §4 filters it out.
    Item(Option<NewItem>),
    /// History replaced by a compaction's `replacement_history` (already filtered).
    Compacted(Replacement),
    /// A compaction without `replacement_history`; the span is its raw `message` string.
    LegacyCompaction(Span),
    /// The mini dialect's rollback: history replaced outright.
    RolledBack(Replacement),
    /// Codex's `thread_rolled_back` with `num_turns` > 0.
    DropTurns(u64),
    /// The raw turn id, if any.
    TurnStarted(Option<Span>),
    TurnEnded {
        turn_id: Option<Span>,
        aborted: bool,
    },
    /// A record kind with no effect on history (`turn_context`, a 2025 state line, …).
    Context,
    /// A known event that does not change history, or a rollback whose `num_turns` is not a
    /// positive integer.
    Event,
    /// The raw name of an event type rollcall does not know.
    UnknownEvent(Span),
    /// The raw name of a record kind rollcall does not know.
    Unknown(Span),
}

/// A classified line: its record, and the spelling it was written in (`None` for an unknown).
pub(crate) type Classified = (Option<Spelling>, Record, Option<u64>);

/// A record and its spelling.
type Spelled = (Option<Spelling>, Record);

/// The classifier for one file: the pre-envelope spelling is a property of the whole file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Classifier {
    pub pre_envelope: bool,
}

impl crate::pipeline::Classify for Classifier {
    type Record = Classified;
    type Side = ();

    fn classify(&self, line: &[u8], at: u64, _: &mut ()) -> Result<Classified, ParseError> {
        parse(line, at, self.pre_envelope)
    }
}

/// Validates a line and reads its top-level members (and those of its `payload` or `item`).
fn parse(line: &[u8], at: u64, pre_envelope: bool) -> Result<Classified, ParseError> {
    let text = json::utf8(line)?;
    let mut p = Parser::remembering(text);
    let invalid = |e: json::Error| ParseError::InvalidJson {
        at: e.at,
        what: e.what,
    };
    if p.peek() != Some(b'{') {
        p.value().and_then(|_| p.end()).map_err(invalid)?;
        return Err(ParseError::NotObject);
    }
    // Read in place: a line's members are three `Fields` of 480 bytes, which moving from walk
    // to walk cost as much as a short line's scan.
    let mut line = Line {
        text,
        at,
        top: Fields::default(),
        payload: None,
        item: None,
        walked: Vec::new(),
    };
    let (top, payload, nested_item) = (&mut line.top, &mut line.payload, &mut line.item);
    let mut record_type = None;
    let mut ordinal = None;
    let whole = p
        .object(|p, key| match &*key.name() {
            "ordinal" => {
                ordinal = Some(p.value()?);
                Ok(true)
            }
            "payload" => {
                // Codex writes the record's type first: a response item is checked against its
                // typed item as it is read, not walked a second time.
                let item = json::string_at(text, &top.kind).as_deref() == Some("response_item");
                Nested::read(p, item, payload)?;
                Ok(true)
            }
            "item" => {
                Nested::read(p, false, nested_item)?;
                Ok(true)
            }
            "record_type" if pre_envelope => {
                record_type = Some(p.value()?);
                Ok(true)
            }
            _ => top.member(p, key),
        })
        .and_then(|r| p.end().map(|()| r))
        .map_err(invalid)?;
    line.walked = p.long_strings();
    // A paginated record's position: a whole number (anything else counts as none).
    let ordinal = ordinal.and_then(|r| text[r].parse::<u64>().ok());
    let (spelling, record) = if pre_envelope {
        line.classify_2025(record_type, whole)?
    } else {
        let Some(kind) = json::string_at(text, &line.top.kind) else {
            return Err(ParseError::NoType);
        };
        line.classify(&kind)?
    };
    Ok((spelling, record, ordinal))
}

/// A record's members: its own, and those of its `payload` or `item`.
struct Line<'a> {
    text: &'a str,
    /// The line's offset in the input, which turns ranges of `text` into spans.
    at: u64,
    top: Fields,
    payload: Option<Nested>,
    item: Option<Nested>,
    /// The line's long strings, found valid by the walk that read it.
    walked: Vec<json::Walked>,
}

/// A member whose value may be an object the rules look into.
struct Nested {
    range: Range<usize>,
    /// The object's members; `None` when the value is not an object.
    fields: Option<Fields>,
    /// Codex's typed check of the object, when it was made as it was read (see [`typed::read`]).
    typed: Option<Typed>,
}

impl Nested {
    /// Reads the value at the parser into `slot`; `item`: it is expected to be a Codex item,
    /// checked on the way.
    fn read(p: &mut Parser<'_>, item: bool, slot: &mut Option<Nested>) -> json::Result<()> {
        if p.peek() != Some(b'{') {
            *slot = Some(Nested {
                range: p.value()?,
                fields: None,
                typed: None,
            });
            return Ok(());
        }
        let nested = slot.insert(Nested {
            range: 0..0,
            fields: None,
            typed: None,
        });
        let fields = nested.fields.insert(Fields::default());
        (nested.range, nested.typed) = read_fields(p, fields, item)?;
        Ok(())
    }
}

/// Reads the members of the object at the parser into `f`; with `check`, also makes Codex's
/// typed check of it on the way (see [`typed::read`]). Returns the object's range and the check.
fn read_fields(
    p: &mut Parser<'_>,
    f: &mut Fields,
    check: bool,
) -> json::Result<(Range<usize>, Option<Typed>)> {
    match check {
        true => typed::read(p, f),
        false => Ok((f.read_into(p)?, None)),
    }
}

/// Record kinds that change nothing in history; a payload must still be an object.
const CONTEXT_KINDS: [&str; 7] = [
    "turn_context",
    "inter_agent_communication_metadata",
    "world_state",
    "token_usage_record",
    "retained_context",
    "security_risk_score",
    "realtime_item",
];

/// The other record kinds of the Codex envelope and of the mini dialect.
const HISTORY_KINDS: [&str; 11] = [
    "session_meta",
    "response_item",
    "event_msg",
    "compacted",
    "inter_agent_communication",
    "item",
    "rolled_back",
    "turn_started",
    "turn_completed",
    "turn_aborted",
    "thread_rolled_back",
];

/// Whether `kind` is a record kind of the Codex envelope or of the mini dialect: a line of one
/// tells a Codex log.
pub(crate) fn is_kind(kind: &str) -> bool {
    CONTEXT_KINDS.contains(&kind) || HISTORY_KINDS.contains(&kind)
}

fn shape(kind: &'static str, problem: &'static str) -> ParseError {
    ParseError::Shape { kind, problem }
}

impl Line<'_> {
    fn span(&self, range: &Range<usize>) -> Span {
        Span {
            at: self.at + range.start as u64,
            len: range.len() as u32,
        }
    }

    fn span_of(&self, range: &Option<Range<usize>>) -> Option<Span> {
        range.as_ref().map(|r| self.span(r))
    }

    /// The span of a string member (its raw JSON, quotes included).
    fn string_span(&self, range: &Option<Range<usize>>) -> Option<Span> {
        range
            .as_ref()
            .filter(|r| self.text.as_bytes()[r.start] == b'"')
            .map(|r| self.span(r))
    }

    /// The span of a non-empty string member.
    fn non_empty(&self, range: &Option<Range<usize>>) -> Option<Span> {
        self.string_span(range).filter(|s| s.len > 2)
    }

    fn payload(&self, kind: &'static str) -> Result<Option<(&Nested, &Fields)>, ParseError> {
        match &self.payload {
            None => Ok(None),
            Some(nested) => match &nested.fields {
                Some(fields) => Ok(Some((nested, fields))),
                None => Err(shape(kind, "payload is not an object")),
            },
        }
    }

    fn classify(&self, kind: &str) -> Result<Spelled, ParseError> {
        use Spelling::{Codex, Mini};
        let top = &self.top;
        let has_payload = self.payload.is_some();
        let record = match kind {
            "session_meta" if has_payload => {
                let (_, payload) = self.payload("session_meta")?.ok_or(ParseError::NoType)?;
                let thread_id = self.non_empty(&payload.id).ok_or(shape(
                    "session_meta",
                    r#"payload has no non-empty string "id""#,
                ))?;
                let meta = Meta {
                    thread_id,
                    cwd: self.string_span(&payload.cwd),
                    timestamp: self
                        .string_span(&payload.timestamp)
                        .or_else(|| self.string_span(&top.timestamp)),
                    paginated: super::lineage::is_paginated(
                        self.text,
                        &self
                            .payload
                            .as_ref()
                            .map(|n| n.range.clone())
                            .unwrap_or_default(),
                    ),
                    custom_provider: json::string_at(self.text, &payload.model_provider)
                        .is_some_and(|p| p != "openai"),
                    refusal: refusal(self.text, nested_range(&self.payload)),
                };
                (Some(Codex), Record::SessionMeta(meta))
            }
            "session_meta" => {
                let thread_id = self
                    .non_empty(&top.thread_id)
                    .ok_or(shape("session_meta", r#"no non-empty string "thread_id""#))?;
                let meta = Meta {
                    thread_id,
                    cwd: None,
                    timestamp: self.string_span(&top.timestamp),
                    paginated: false,
                    custom_provider: false,
                    refusal: None,
                };
                (Some(Mini), Record::SessionMeta(meta))
            }
            "compacted" if has_payload => {
                let (_, payload) = self.payload("compacted")?.ok_or(ParseError::NoType)?;
                let message = self
                    .string_span(&payload.message)
                    .ok_or(shape("compacted", r#"payload has no string "message""#))?;
                let record = match item::raw(self.text, &payload.replacement_history) {
                    None | Some("null") => Record::LegacyCompaction(message),
                    Some(_) => {
                        let range = payload.replacement_history.clone().unwrap_or_default();
                        Record::Compacted(self.replacement("compacted", range, Flags::CODEX)?)
                    }
                };
                (Some(Codex), record)
            }
            "compacted" => {
                let range = top
                    .replacement_history
                    .clone()
                    .ok_or(shape("compacted", r#"no "replacement_history" array"#))?;
                (
                    Some(Mini),
                    Record::Compacted(self.replacement("compacted", range, Flags::empty())?),
                )
            }
            "response_item" => {
                let payload = self
                    .payload
                    .as_ref()
                    .ok_or(shape("response_item", "no payload"))?;
                let item = self
                    .nested_item(payload, Flags::APPENDED | Flags::CODEX)
                    .map_err(|e| {
                        e.unwrap_or(shape(
                            "response_item",
                            r#"payload is not an item (an object with a string "type")"#,
                        ))
                    })?;
                (Some(Codex), Record::Item(item))
            }
            "event_msg" => {
                let (_, payload) = self
                    .payload("event_msg")?
                    .ok_or(shape("event_msg", "no payload"))?;
                let event = json::string_at(self.text, &payload.kind)
                    .ok_or(shape("event_msg", r#"payload has no string "type""#))?;
                (Some(Codex), self.event(&event, payload))
            }
            "inter_agent_communication" => {
                let kind = "inter_agent_communication";
                let (nested, _) = self.payload(kind)?.ok_or(shape(kind, "no payload"))?;
                turns::communication(self.text, nested.range.clone()).ok_or(shape(
                    kind,
                    "payload is no communication Codex can read (string content, boolean \
                     trigger_turn, agent paths for author and recipient)",
                ))?;
                let span = self.span(&nested.range);
                let mut item = Item::new(0, span, ItemKind::AgentMessage, Form::InterAgent);
                item.flags.insert(Flags::CODEX);
                let item = NewItem {
                    item,
                    call_id: None,
                    call_key: None,
                    fault: None,
                    known: Vec::new(),
                };
                (Some(Codex), Record::Item(Some(item)))
            }
            kind if CONTEXT_KINDS.contains(&kind) => {
                let name = CONTEXT_KINDS
                    .iter()
                    .find(|k| **k == kind)
                    .copied()
                    .unwrap_or("record");
                self.payload(name)?.ok_or(shape(name, "no payload"))?;
                (Some(Codex), Record::Context)
            }
            "item" => {
                let item = self
                    .item
                    .as_ref()
                    .and_then(|nested| self.nested_item(nested, Flags::empty()).ok())
                    .ok_or(shape(
                        "item",
                        r#""item" is not an object with a string "type""#,
                    ))?;
                (Some(Mini), Record::Item(item))
            }
            "rolled_back" => {
                let range = top
                    .replacement_history
                    .clone()
                    .ok_or(shape("rolled_back", r#"no "replacement_history" array"#))?;
                (
                    Some(Mini),
                    Record::RolledBack(self.replacement("rolled_back", range, Flags::empty())?),
                )
            }
            "turn_started" => (
                Some(Mini),
                Record::TurnStarted(self.string_span(&top.turn_id)),
            ),
            "turn_completed" | "turn_aborted" => {
                let turn_id = self.string_span(&top.turn_id);
                let aborted = kind == "turn_aborted";
                (Some(Mini), Record::TurnEnded { turn_id, aborted })
            }
            _ => {
                let name = top.kind.as_ref().map(|r| self.span(r)).unwrap_or_default();
                (None, Record::Unknown(name))
            }
        };
        Ok(record)
    }

    /// A line of a pre-envelope (2025) rollout: the session object, a state line, or an item.
    fn classify_2025(
        &self,
        record_type: Option<Range<usize>>,
        whole: Range<usize>,
    ) -> Result<Spelled, ParseError> {
        use Spelling::Codex2025;
        let top = &self.top;
        if let Some(range) = record_type {
            let kind = json::decode_str(&self.text[range.clone()]).ok_or(ParseError::NoType)?;
            if kind == "state" {
                return Ok((Some(Codex2025), Record::Context));
            }
            return Ok((None, Record::Unknown(self.span(&range))));
        }
        if top.kind.is_none() {
            // The session object: `{"id":…,"timestamp":…,"instructions":…}`.
            let thread_id = self.non_empty(&top.id).ok_or(ParseError::NoType)?;
            let meta = Meta {
                thread_id,
                cwd: self.string_span(&top.cwd),
                timestamp: self.string_span(&top.timestamp),
                paginated: false,
                custom_provider: false,
                refusal: None,
            };
            return Ok((Some(Codex2025), Record::SessionMeta(meta)));
        }
        let nested = Nested {
            range: whole,
            fields: Some(top.clone()),
            typed: None,
        };
        let item = self
            .nested_item(&nested, Flags::APPENDED | Flags::CODEX)
            .map_err(|e| e.unwrap_or(ParseError::NoType))?;
        Ok((Some(Codex2025), Record::Item(item)))
    }

    fn event(&self, event: &str, payload: &Fields) -> Record {
        let turn_id = || self.string_span(&payload.turn_id);
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
            "thread_rolled_back" => {
                match item::raw(self.text, &payload.num_turns).and_then(positive_integer) {
                    Some(n) => Record::DropTurns(n),
                    None => Record::Event,
                }
            }
            e if super::events::is_known(e) => Record::Event,
            _ => Record::UnknownEvent(self.span_of(&payload.kind).unwrap_or_default()),
        }
    }

    /// The item a `payload` or `item` member holds: `Some(None)` when §4 filters it out, `None`
    /// when it is not an item at all.
    fn nested_item(
        &self,
        nested: &Nested,
        origin: Flags,
    ) -> Result<Option<NewItem>, Option<ParseError>> {
        let fields = nested.fields.as_ref().ok_or(None)?;
        match new_item(self, &nested.range, fields, nested.typed, origin, false) {
            Candidate::Item(item) => Ok(Some(item)),
            Candidate::Filtered => Ok(None),
            Candidate::NoType => Err(None),
            Candidate::Invalid(kind, problem) => Err(Some(shape(kind, problem))),
        }
    }

    /// The items of a `replacement_history` array: non-objects and ghost snapshots dropped
    /// (SPEC §4), everything else kept, system messages and objects without a `type` included.
    fn replacement(
        &self,
        kind: &'static str,
        range: Range<usize>,
        origin: Flags,
    ) -> Result<Replacement, ParseError> {
        let raw = &self.text[range.clone()];
        if !raw.starts_with('[') {
            return Err(shape(kind, r#""replacement_history" is not an array"#));
        }
        // Counted first, so that the items take exactly their room, not twice it.
        let mut objects = 0;
        let mut p = Parser::new(self.text);
        p.seek(range.start);
        let counted = p.array(|p| {
            if p.peek() == Some(b'{') {
                objects += 1;
            }
            Ok(false)
        });
        debug_assert!(counted.is_ok(), "the line was validated whole");
        let mut out = Replacement {
            items: Vec::with_capacity(objects),
            call_ids: Vec::new(),
            faults: Vec::new(),
        };
        let mut p = Parser::new(self.text);
        p.seek(range.start);
        // Codex decodes the whole line into its typed items (ghost snapshots stripped first):
        // one entry it cannot read, a non-object included, and it skips the line.
        let typed = origin.contains(Flags::CODEX);
        let mut unreadable = None;
        let walked = p.array(|p| {
            if unreadable.is_some() {
                return Ok(false);
            }
            if p.peek() != Some(b'{') {
                if typed {
                    unreadable = Some("replacement_history holds an entry that is not an object");
                }
                return Ok(false);
            }
            let mut fields = Fields::default();
            let (at, checked) = read_fields(p, &mut fields, typed)?;
            let new = match new_item(self, &at, &fields, checked, origin, true) {
                Candidate::Item(item) => item,
                Candidate::Filtered => return Ok(true),
                Candidate::NoType if typed => {
                    unreadable =
                        Some(r#"replacement_history holds an entry with no string "type""#);
                    return Ok(true);
                }
                Candidate::NoType => untyped(self.at, &at),
                Candidate::Invalid(..) => {
                    unreadable =
                        Some("replacement_history holds an entry Codex's typed item cannot read");
                    return Ok(true);
                }
            };
            if new.item.kind.pairs() {
                out.call_ids.push((out.items.len() as u32, new.call_id));
            }
            if let Some(fault) = new.fault {
                out.faults.push((out.items.len() as u32, *fault));
            }
            out.items.push(new.item);
            Ok(true)
        });
        debug_assert!(walked.is_ok(), "the line was validated whole");
        if let Some(problem) = unreadable {
            return Err(shape(kind, problem));
        }
        Ok(out)
    }
}

/// An object without a string `type`: kept in replacement histories, but paired with nothing.
fn untyped(line_at: u64, range: &Range<usize>) -> NewItem {
    let span = Span {
        at: line_at + range.start as u64,
        len: range.len() as u32,
    };
    NewItem {
        item: Item::new(0, span, ItemKind::Other, Form::Verbatim),
        call_id: None,
        call_key: None,
        fault: None,
        known: Vec::new(),
    }
}

/// What a candidate item turned out to be.
enum Candidate {
    Item(NewItem),
    /// A ghost snapshot or a system message: never enters history (SPEC §4).
    Filtered,
    NoType,
    /// Codex's typed item does not read it (SPEC §11.2 #2): its type, and why.
    Invalid(&'static str, &'static str),
}

/// The header of the item at `range` of `text` (a line starting at `line_at`), whose members
/// are `f`; `checked`: Codex's typed check of it, when the walk that read it made one. `origin`
/// holds the flags of where it came from ([`Flags::APPENDED`], [`Flags::CODEX`]); `replacement`
/// says it is read from a replacement history, which Codex installs as it is, system messages
/// included.
fn new_item(
    line: &Line<'_>,
    range: &Range<usize>,
    f: &Fields,
    checked: Option<Typed>,
    origin: Flags,
    replacement: bool,
) -> Candidate {
    let (text, line_at) = (line.text, line.at);
    let Some(type_name) = json::string_at(text, &f.kind) else {
        return Candidate::NoType;
    };
    let kind = ItemKind::from_type(&type_name);
    let span = Span {
        at: line_at + range.start as u64,
        len: range.len() as u32,
    };
    let mut item = Item::new(0, span, kind, Form::Verbatim);
    item.flags.insert(origin);
    if origin.contains(Flags::CODEX) && kind != ItemKind::GhostSnapshot {
        let checked =
            checked.unwrap_or_else(|| typed::check(text, &line.walked, range.start, kind));
        match checked {
            Typed::Item { wire, passthrough } => {
                if wire {
                    item.flags.insert(Flags::WIRE);
                }
                if passthrough {
                    item.flags.insert(Flags::PASSTHROUGH);
                }
            }
            // Inside a replacement history it stays, sent as `{"type":"other"}`; appended, it is
            // dropped from the view.
            Typed::Other if replacement => item.flags.insert(Flags::WIRE),
            Typed::Other => {}
            Typed::Invalid(problem) => return Candidate::Invalid(kind.name(), problem),
        }
    }
    let mut call_id = None;
    let mut call_key = None;
    let mut fault = None;
    if kind.pairs() {
        call_id = f.call_id.as_ref().map(|r| Span {
            at: line_at + r.start as u64,
            len: r.len() as u32,
        });
        // A replacement history keeps only the raw ids of its calls (it can hold millions).
        if !replacement {
            call_key = item::raw(text, &f.call_id)
                .and_then(json::decode_key)
                .and_then(|key| Short::new(&key));
        }
    }
    match kind {
        ItemKind::GhostSnapshot => return Candidate::Filtered,
        ItemKind::Message => {
            let role = json::string_at(text, &f.role);
            if role.as_deref() == Some("system") && !replacement {
                return Candidate::Filtered;
            }
            let parts = parts::scan(text, &line.walked, &f.content, role.as_deref());
            parts.flag(&mut item, role.as_deref());
        }
        ItemKind::FunctionCallOutput | ItemKind::CustomToolCallOutput => {
            let parts = parts::scan(text, &line.walked, &f.output, None);
            parts.flag(&mut item, None);
            if parts.empty_text {
                item.flags.insert(Flags::EMPTY_TEXT);
            }
        }
        ItemKind::ToolSearchOutput => {
            if json::string_at(text, &f.execution).as_deref() == Some("server") {
                item.flags.insert(Flags::SERVER);
            }
        }
        ItemKind::ImageGenerationCall => {
            if item::raw(text, &f.result).is_some_and(|r| r != r#""""#) {
                item.flags.insert(Flags::IMAGE_RESULT);
            }
        }
        ItemKind::FunctionCall | ItemKind::CustomToolCall => {
            let (member, args, strictness) = if kind == ItemKind::FunctionCall {
                ("arguments", &f.arguments, toolcall::Arguments::Json)
            } else {
                ("input", &f.input, toolcall::Arguments::FreeText)
            };
            let raw = |r: &Option<Range<usize>>| item::raw(text, r);
            let call = kind.name();
            fault =
                toolcall::check(raw(&f.name), raw(args), call, member, strictness).map(Box::new);
        }
        ItemKind::LocalShellCall
        | ItemKind::ToolSearchCall
        | ItemKind::AgentMessage
        | ItemKind::Reasoning
        | ItemKind::WebSearchCall
        | ItemKind::Compaction
        | ItemKind::ContextCompaction
        | ItemKind::AdditionalTools
        | ItemKind::Other => {}
    }
    // The long strings of an item resume prepares (an output it may cut, media), as offsets of
    // the item's own text: preparing it (its counts for the report now, its view later) steps
    // over them instead of scanning a build log or an image's base64 again.
    let mut known = Vec::new();
    if prep::may_change(&item, Prep::default()) {
        let start = range.start as u32;
        let inside = |w: &&json::Walked| range.contains(&(w.at as usize));
        let shifted = |w: &json::Walked| json::Walked {
            at: w.at - start,
            end: w.end - start,
            ..*w
        };
        known.extend(line.walked.iter().filter(inside).map(shifted));
        let output = item::raw(text, &f.output);
        let decoded = f
            .output
            .as_ref()
            .and_then(|r| json::known_decoded_len(&line.walked, r));
        item.prep = output
            .and_then(|raw| prep::string_output_counts(&item, raw, decoded))
            .unwrap_or_else(|| prep::default_counts(&item, &text[range.clone()], &known));
    }
    if replacement {
        known = Vec::new();
    }
    Candidate::Item(NewItem {
        item,
        call_id,
        call_key,
        fault,
        known,
    })
}

fn nested_range(nested: &Option<Nested>) -> usize {
    nested.as_ref().map_or(0, |n| n.range.start)
}

/// Why Codex 0.169 refuses a session_meta payload (at `at` of `text`), in its words (SPEC
/// §11.2 #10, live check class L), or `None`.
fn refusal(text: &str, at: usize) -> Option<&'static str> {
    let member = |name: &str| json::member(text, at, name);
    let raw = |range: &Option<Range<usize>>| item::raw(text, range).unwrap_or("null");
    let mode = member("history_mode");
    if raw(&mode) != "null"
        && !matches!(
            json::string_at(text, &mode).as_deref(),
            Some("legacy" | "paginated")
        )
    {
        return Some(
            "Codex refuses it (\"invalid session metadata history_mode: unknown variant\"): its \
             history_mode is neither legacy nor paginated",
        );
    }
    let base = member("base_instructions");
    if !matches!(raw(&base).as_bytes().first(), Some(b'n' | b'{')) {
        return Some(
            "Codex refuses it (\"rollout … does not start with session metadata\"): its \
             session_meta does not deserialize (base_instructions is not an object)",
        );
    }
    // A multi-agent v2 child: spawned by a thread, and of another session than its own id.
    let spawned = member("source")
        .and_then(|s| json::member(text, s.start, "subagent"))
        .and_then(|s| json::member(text, s.start, "thread_spawn"))
        .is_some();
    let session = json::string_at(text, &member("session_id"));
    let id = json::string_at(text, &member("id"));
    if spawned && session.is_some() && session != id {
        return Some(
            "Codex refuses it (\"cannot resume an unloaded multi-agent v2 sub-agent through its \
             parent\"): a sub-agent thread of another session; resume its parent",
        );
    }
    None
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

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(payload: &str) -> Option<&'static str> {
        refusal(payload, 0)
    }

    #[test]
    fn session_metas_codex_refuses() {
        assert!(refused(r#"{"id":"a","history_mode":"mystery"}"#).is_some());
        assert!(refused(r#"{"id":"a","base_instructions":"text"}"#).is_some());
        let child = r#"{"session_id":"root","id":"child","source":{"subagent":{"thread_spawn":{"depth":1}}}}"#;
        assert!(refused(child).is_some());
        for accepted in [
            r#"{"id":"a","history_mode":"paginated","base_instructions":null}"#,
            r#"{"id":"a","history_mode":"legacy","base_instructions":{"text":"x"},"x":1}"#,
            r#"{"session_id":"a","id":"a","source":{"subagent":{"thread_spawn":{"depth":1}}}}"#,
            r#"{"id":"a","source":"exec"}"#,
        ] {
            assert_eq!(refused(accepted), None, "{accepted}");
        }
    }
}
