//! Claude Code entries: one transcript line classified (SPEC §10). Entries with a `uuid` are the
//! nodes of the resume tree; the header keeps what the chain and the repairs need — the uuid, its
//! parent, the time, the API response it belongs to, and whether it holds only tool results.
//! Pure: runs on the thread pool.

use std::ops::Range;

use crate::findings::ParseError;
use crate::intern;
use crate::json::{self, Parser};
use crate::toolcall::ToolFault;

use super::attach;
use super::content::{self, Block, BlockKind};
use super::facts::{self, Fact};

/// The entry types rollcall knows (SPEC §10); any other is counted as an unknown record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kind {
    User,
    Assistant,
    System,
    Summary,
    Attachment,
    Progress,
    FileHistorySnapshot,
    PermissionMode,
    /// Session metadata Claude Code 2.1.2xx writes (titles, modes, the last prompt's leaf, …):
    /// no message and no link of the chain (SPEC §11.3.14).
    Metadata,
    Unknown,
}

const KIND_NAMES: [(Kind, &str); 18] = [
    (Kind::User, "user"),
    (Kind::Assistant, "assistant"),
    (Kind::System, "system"),
    (Kind::Summary, "summary"),
    (Kind::Attachment, "attachment"),
    (Kind::Progress, "progress"),
    (Kind::FileHistorySnapshot, "file-history-snapshot"),
    (Kind::PermissionMode, "permission-mode"),
    (Kind::Metadata, "last-prompt"),
    (Kind::Metadata, "queue-operation"),
    (Kind::Metadata, "mode"),
    (Kind::Metadata, "agent-name"),
    (Kind::Metadata, "ai-title"),
    (Kind::Metadata, "custom-title"),
    (Kind::Metadata, "bridge-session"),
    (Kind::Metadata, "worktree-state"),
    (Kind::Metadata, "fork-context-ref"),
    (Kind::Metadata, "teleported-from"),
];

impl Kind {
    pub fn from_type(name: &str) -> Kind {
        KIND_NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map_or(Kind::Unknown, |(kind, _)| *kind)
    }

    /// Whether a line of this `type` names an entry of Claude Code (for telling the dialect).
    pub fn is_claude_type(name: &str) -> bool {
        Kind::from_type(name) != Kind::Unknown
    }
}

/// A classified line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    pub kind: Kind,
    /// The raw `type` string, for counting an unknown kind.
    pub type_name: Within,
    /// The `uuid` string, when it is a non-empty string.
    pub uuid: Option<Id>,
    /// The uuid's [`intern::hash`] (0 without one), hashed here, beside the other cores' work,
    /// rather than in the fold.
    pub uuid_hash: u64,
    /// The `parentUuid` string, when it is one.
    pub parent: Option<Id>,
    /// The `message.id` of an assistant entry (one API response spans several entries).
    pub message_id: Option<Id>,
    /// The raw `sessionId` string.
    pub session_id: Option<Within>,
    /// The raw `cwd` string.
    pub cwd: Option<Within>,
    /// The raw `timestamp` string.
    pub timestamp: Option<Within>,
    /// `timestamp` in nanoseconds since 1970 (UTC), when it reads as an ISO 8601 time.
    pub time: Option<i64>,
    /// The raw `leafUuid` string of a `last-prompt` entry: the leaf the client last used.
    pub leaf_uuid: Option<Within>,
    /// A `fork-context-ref` entry's raw `agentId`, `parentSessionId` and `parentLastUuid`
    /// strings: a forked subagent's history starts with its parent session's chain up to that
    /// entry (SPEC §11.3.14).
    pub fork_ref: Option<Box<[Option<Within>; 3]>>,
    /// The raw `remoteSessionId` string of a `teleported-from` entry: the session on Claude
    /// Code on the web this one was teleported from.
    pub remote_session: Option<Within>,
    pub flags: u8,
    /// Where a message's `content` value is in the line, so that the view, reading the entry
    /// again, goes straight to it.
    pub content: Option<Within>,
    /// The `message.model` string of an assistant entry.
    pub model: Option<Id>,
    /// What the view's rules make of each block of the message's content, with the id the
    /// block carries, for the fold to intern: where they are in the run's [`Side::blocks`].
    pub blocks: Range<u32>,
    /// `tool_use` blocks the API may refuse when the message is sent again (lines not yet set).
    pub tool_faults: Vec<ToolFault>,
    /// The long strings of the message's `content`, found valid: the view, walking the content
    /// again, steps over them (tool results and texts are most of an entry's bytes). Where they
    /// are in the run's [`Side::walked`].
    pub walked: Range<u32>,
    /// The text the view shows of an attachment (its reminder) or of a `local_command` system
    /// entry (its `content`), when told.
    pub rendered: Option<Box<str>>,
}

/// An id of an entry (its uuid, its parent's, its message's) or of a block, decoded by the
/// classifier for the fold (reading it from the line there was 8% of loading a large
/// transcript): where its bytes are in the run's [`Side`]. A record carries a few bytes for it,
/// not the id itself (the records are moved from thread to thread).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Id {
    start: u32,
    end: u32,
}

impl Id {
    /// The id of the JSON string at `range` of `text`, decoded into `ids`; `None` when it is
    /// no string.
    fn of(text: &str, range: &Range<usize>, ids: &mut Vec<u8>) -> Option<Id> {
        let decoded = json::decode_key(&text[range.clone()])?;
        let start = ids.len() as u32;
        ids.extend_from_slice(&decoded);
        Some(Id {
            start,
            end: ids.len() as u32,
        })
    }
}

/// A range of a line, in bytes from its start (lines are shorter than 4 GiB): half the size of
/// a span of the input, and a line's record carries a dozen of them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Within {
    pub start: u32,
    pub end: u32,
}

impl Within {
    fn of(range: &Range<usize>) -> Within {
        Within {
            start: range.start as u32,
            end: range.end as u32,
        }
    }

    /// The range in `text`, if it lies on its characters (the text read again may not be the
    /// one classified).
    pub fn get(self, text: &str) -> Option<Range<usize>> {
        let range = self.start as usize..self.end as usize;
        text.get(range.clone()).map(|_| range)
    }
}

impl Line {
    /// `isSidechain: true`.
    pub const SIDECHAIN: u8 = 1;
    /// A `system` entry with `subtype` `compact_boundary`: the chain starts there.
    pub const BOUNDARY: u8 = 1 << 1;
    /// A `user` entry whose content is one or more `tool_result` blocks and nothing else.
    pub const RESULTS_ONLY: u8 = 1 << 2;
    /// A `user` or `assistant` entry with an object `message`: a message of the prompt view.
    pub const MESSAGE: u8 = 1 << 3;
    /// `isMeta: true` (a caveat or an expansion the client wrote, sent like any user entry).
    pub const META: u8 = 1 << 4;
    /// `isApiErrorMessage: true`: an assistant entry the client made of an API error; never sent.
    pub const API_ERROR: u8 = 1 << 5;
    /// A `system` entry with `subtype` `local_command`: sent as a user message of its `content`.
    pub const LOCAL_COMMAND: u8 = 1 << 6;
    /// An `attachment` entry that renders a reminder (most are `hook_success` after a tool call,
    /// and render nothing).
    pub const RENDERS: u8 = 1 << 7;
}

/// The classifier; Claude Code files have one spelling.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Classifier {
    /// Tell what the view's rules make of each block, and render the attachments' reminders
    /// and take the local commands' texts (a pass that prints only the history needs none).
    pub facts: bool,
}

/// The blocks, long strings and ids of a run's lines, line after line (see [`Line::blocks`],
/// [`Line::walked`] and [`Id`]): three vectors a run, not two a message.
#[derive(Debug)]
pub(crate) struct Side {
    blocks: Vec<(Fact, Option<Id>)>,
    walked: Vec<json::Walked>,
    /// The decoded ids of the run's records, one after another (see [`Id`]).
    ids: Vec<u8>,
}

/// A run is 64 KiB of lines, some forty entries of a transcript: its side starts with room
/// for what they usually hold (grown from nothing, it was reallocated a dozen times a run).
impl Default for Side {
    fn default() -> Side {
        Side {
            blocks: Vec::with_capacity(128),
            walked: Vec::with_capacity(64),
            ids: Vec::with_capacity(8 << 10),
        }
    }
}

impl Side {
    /// The bytes of `id`.
    pub fn id(&self, id: Id) -> &[u8] {
        &self.ids[id.start as usize..id.end as usize]
    }

    /// The facts and ids of the blocks of `line`'s message.
    pub fn blocks(&self, line: &Line) -> &[(Fact, Option<Id>)] {
        let Range { start, end } = line.blocks;
        &self.blocks[start as usize..end as usize]
    }

    /// The long strings of `line`'s content.
    pub fn walked(&self, line: &Line) -> &[json::Walked] {
        let Range { start, end } = line.walked;
        &self.walked[start as usize..end as usize]
    }
}

impl crate::pipeline::Classify for Classifier {
    type Record = Line;
    type Side = Side;

    /// A line's record holds ranges of the line, not of the input: the fold, which knows where
    /// the line is, makes spans of them.
    fn classify(&self, line: &[u8], _at: u64, side: &mut Side) -> Result<Line, ParseError> {
        classify(line, self.facts, side)
    }
}

/// The range of the items of `items` from `from` on.
fn added<T>(items: &[T], from: usize) -> Range<u32> {
    from as u32..items.len() as u32
}

/// The members of an entry the rules read, as ranges of the line.
#[derive(Default)]
struct Members {
    kind: Option<Range<usize>>,
    uuid: Option<Range<usize>>,
    parent: Option<Range<usize>>,
    session_id: Option<Range<usize>>,
    cwd: Option<Range<usize>>,
    sidechain: Option<Range<usize>>,
    timestamp: Option<Range<usize>>,
    subtype: Option<Range<usize>>,
    meta: Option<Range<usize>>,
    api_error: Option<Range<usize>>,
    leaf_uuid: Option<Range<usize>>,
    agent_id: Option<Range<usize>>,
    parent_session: Option<Range<usize>>,
    parent_last: Option<Range<usize>>,
    remote_session: Option<Range<usize>>,
    /// A `local_command` system entry's text.
    content: Option<Range<usize>>,
}

fn classify(line: &[u8], told: bool, side: &mut Side) -> Result<Line, ParseError> {
    let text = json::utf8(line)?;
    let invalid = |e: json::Error| ParseError::InvalidJson {
        at: e.at,
        what: e.what,
    };
    let mut p = Parser::remembering_in(text, LONG.take());
    if p.peek() != Some(b'{') {
        p.value().and_then(|_| p.end()).map_err(invalid)?;
        return Err(ParseError::NotObject);
    }
    let mut m = Members::default();
    // The message and the attachment are walked once, in place: what the rules need of them is
    // read on the way.
    let mut message = None;
    let mut reminder = None;
    p.object(|p, key| {
        let name = key.name();
        if &*name == "message" {
            message = if p.peek() == Some(b'{') {
                Some(read_message(p, text)?)
            } else {
                p.value()?;
                None
            };
            return Ok(true);
        }
        if &*name == "attachment" {
            reminder = match told {
                true => attach::read(p)?,
                false => {
                    p.value()?;
                    None
                }
            };
            return Ok(true);
        }
        let slot = match &*name {
            "type" => &mut m.kind,
            "uuid" => &mut m.uuid,
            "parentUuid" => &mut m.parent,
            "sessionId" => &mut m.session_id,
            "cwd" => &mut m.cwd,
            "isSidechain" => &mut m.sidechain,
            "timestamp" => &mut m.timestamp,
            "subtype" => &mut m.subtype,
            "isMeta" => &mut m.meta,
            "isApiErrorMessage" => &mut m.api_error,
            "leafUuid" => &mut m.leaf_uuid,
            "agentId" => &mut m.agent_id,
            "parentSessionId" => &mut m.parent_session,
            "parentLastUuid" => &mut m.parent_last,
            "remoteSessionId" => &mut m.remote_session,
            "content" => &mut m.content,
            _ => return Ok(false),
        };
        *slot = Some(p.value()?);
        Ok(true)
    })
    .and_then(|_| p.end())
    .map_err(invalid)?;
    let Some(type_name) = json::string_at(text, &m.kind) else {
        return Err(ParseError::NoType);
    };
    let kind = Kind::from_type(&type_name);
    let string_span = |r: &Option<Range<usize>>| {
        r.as_ref()
            .filter(|r| text.as_bytes()[r.start] == b'"')
            .map(Within::of)
    };
    let Side {
        blocks,
        walked: side_walked,
        ids,
    } = side;
    let mut string_id = |r: &Range<usize>| {
        (text.as_bytes()[r.start] == b'"')
            .then(|| Id::of(text, r, ids))
            .flatten()
    };
    let mut entry = Line {
        kind,
        type_name: m.kind.as_ref().map(Within::of).unwrap_or_default(),
        uuid: m
            .uuid
            .as_ref()
            .filter(|r| r.len() > 2)
            .and_then(&mut string_id),
        uuid_hash: 0,
        parent: m.parent.as_ref().and_then(&mut string_id),
        message_id: None,
        session_id: string_span(&m.session_id),
        cwd: string_span(&m.cwd),
        timestamp: string_span(&m.timestamp),
        time: json::string_at(text, &m.timestamp).and_then(|t| parse_time(&t)),
        leaf_uuid: (&*type_name == "last-prompt")
            .then(|| string_span(&m.leaf_uuid))
            .flatten(),
        fork_ref: (&*type_name == "fork-context-ref").then(|| {
            Box::new([
                string_span(&m.agent_id),
                string_span(&m.parent_session),
                string_span(&m.parent_last),
            ])
        }),
        remote_session: (&*type_name == "teleported-from")
            .then(|| string_span(&m.remote_session))
            .flatten(),
        flags: 0,
        content: None,
        model: None,
        blocks: 0..0,
        tool_faults: Vec::new(),
        walked: 0..0,
        rendered: None,
    };
    let is_true = |r: &Option<Range<usize>>| r.as_ref().is_some_and(|r| &text[r.clone()] == "true");
    if is_true(&m.sidechain) {
        entry.flags |= Line::SIDECHAIN;
    }
    if is_true(&m.meta) {
        entry.flags |= Line::META;
    }
    if kind == Kind::Assistant && is_true(&m.api_error) {
        entry.flags |= Line::API_ERROR;
    }
    if kind == Kind::Attachment
        && let Some(reminder) = reminder
    {
        entry.flags |= Line::RENDERS;
        entry.rendered = Some(reminder.into());
    }
    if kind == Kind::System {
        match json::string_at(text, &m.subtype).as_deref() {
            Some("compact_boundary") => entry.flags |= Line::BOUNDARY,
            Some("local_command") => {
                entry.flags |= Line::LOCAL_COMMAND;
                if told {
                    entry.rendered = json::string_at(text, &m.content).map(Into::into);
                }
            }
            _ => {}
        }
    }
    let walked = p.long_strings();
    if matches!(kind, Kind::User | Kind::Assistant) {
        // What counts is the last `message`, when it is an object.
        let mut message = message.ok_or(ParseError::Shape {
            kind: if kind == Kind::User {
                "user"
            } else {
                "assistant"
            },
            problem: r#"no object "message""#,
        })?;
        entry.flags |= Line::MESSAGE;
        let faults = message.blocks.iter_mut().filter_map(|b| b.fault.take());
        entry.tool_faults = faults.map(|f| *f).collect();
        let assistant = kind == Kind::Assistant;
        if told {
            let meta = entry.flags & Line::META != 0;
            let facts = facts::of(text, &walked, &message.blocks, assistant, meta);
            let from = blocks.len();
            blocks.extend(
                facts
                    .zip(&message.blocks)
                    .map(|(fact, b)| (fact, b.id.as_ref().and_then(&mut string_id))),
            );
            entry.blocks = added(blocks, from);
            entry.model = message.model.as_ref().and_then(&mut string_id);
        }
        if let Some(content) = &message.content {
            let from = side_walked.len();
            let inside = walked.iter().filter(|w| content.contains(&(w.at as usize)));
            side_walked.extend(inside);
            entry.walked = added(side_walked, from);
        }
        entry.content = message.content.as_ref().map(Within::of);
        let results_only = !message.blocks.is_empty()
            && message
                .blocks
                .iter()
                .all(|b| b.kind == BlockKind::ToolResult);
        if assistant {
            entry.message_id = message.id.as_ref().and_then(&mut string_id);
        } else if results_only {
            entry.flags |= Line::RESULTS_ONLY;
        }
        if message.blocks.capacity() <= KEPT_BLOCKS {
            message.blocks.clear();
            BLOCKS.set(message.blocks);
        }
    }
    if walked.capacity() <= KEPT_LONG {
        LONG.set(walked);
    }
    if let Some(uuid) = entry.uuid {
        entry.uuid_hash = intern::hash(side.id(uuid));
    }
    Ok(entry)
}

/// The most blocks whose room [`BLOCKS`] keeps (~600 KiB): a message of more does not leave its
/// vector behind on the thread once its line is done.
const KEPT_BLOCKS: usize = 4096;

/// The most long strings whose room [`LONG`] keeps (48 KiB), likewise.
const KEPT_LONG: usize = 4096;

thread_local! {
    /// The vector a message's blocks are walked into, kept for the next line classified on this
    /// thread (it was an allocation a message, freed again before the line's record was done).
    static BLOCKS: std::cell::Cell<Vec<Block>> = const { std::cell::Cell::new(Vec::new()) };
    /// The vector the parser lists a line's long strings in, kept likewise.
    static LONG: std::cell::Cell<Vec<json::Walked>> = const { std::cell::Cell::new(Vec::new()) };
}

/// What the classifier reads of a message.
struct Message {
    id: Option<Range<usize>>,
    content: Option<Range<usize>>,
    model: Option<Range<usize>>,
    /// The blocks of its `content`, with the faults of its tool uses.
    blocks: Vec<Block>,
}

/// What the classifier reads of the message object the parser is at, walked in place.
fn read_message(p: &mut Parser<'_>, text: &str) -> json::Result<Message> {
    let (mut id, mut content, mut model) = (None, None, None);
    let mut blocks = BLOCKS.take();
    p.object(|p, key| {
        match &*key.name() {
            "id" => id = Some(p.value()?),
            "model" => model = Some(p.value()?),
            "content" => {
                // The last `content` counts, as everywhere.
                blocks.clear();
                content = Some(content::walk_blocks(p, text, &mut blocks, true)?);
            }
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(Message {
        id,
        content,
        model,
        blocks,
    })
}

/// An ISO 8601 time (`2026-01-02T03:04:05.678Z`, an offset instead of `Z`, or none for UTC) in
/// nanoseconds since 1970.
pub(crate) fn parse_time(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    // Every line of a transcript has a time: its digits are added up in place, not handed to
    // `str::parse` (which was 5% of classifying an entry).
    let num = |range: Range<usize>| -> Option<i64> {
        let digits = b.get(range)?;
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        Some(value_of(digits))
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut at = 19;
    let mut nanos = 0i64;
    if b.get(at) == Some(&b'.') {
        let start = at + 1;
        at = start;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        let digits = &b[start..at];
        if digits.is_empty() {
            return None;
        }
        let kept = &digits[..digits.len().min(9)];
        nanos = value_of(kept) * 10i64.pow(9 - kept.len() as u32);
    }
    let offset = match &text[at..] {
        "" | "Z" | "z" => 0,
        zone => {
            let zb = zone.as_bytes();
            let sign = match zb.first() {
                Some(b'+') => 1,
                Some(b'-') => -1,
                _ => return None,
            };
            if zb.len() != 6 || zb[3] != b':' {
                return None;
            }
            let (h, m) = (num(at + 1..at + 3)?, num(at + 4..at + 6)?);
            sign * (h * 3600 + m * 60)
        }
    };
    let days = crate::text::days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset;
    seconds.checked_mul(1_000_000_000)?.checked_add(nanos)
}

/// The number ASCII digits spell (at most 9 of them: no overflow).
fn value_of(digits: &[u8]) -> i64 {
    digits.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_compare_as_instants() {
        let t = |s| parse_time(s).unwrap();
        assert_eq!(t("1970-01-01T00:00:00Z"), 0);
        assert_eq!(t("1970-01-01T00:00:01.5Z"), 1_500_000_000);
        assert_eq!(
            t("2026-01-02T03:04:05.678+01:00"),
            t("2026-01-02T02:04:05.678Z")
        );
        assert!(t("2026-01-02T03:04:05.001Z") > t("2026-01-02T03:04:05Z"));
        // Digits past the nanosecond are dropped, not rounded.
        assert_eq!(t("1970-01-01T00:00:00.0000000019Z"), 1);
        assert_eq!(
            t("1970-01-02T00:00:00.25-00:30"),
            86_400_250_000_000 + 1_800_000_000_000
        );
        assert_eq!(parse_time("2026-01-02T03:04:05.Z"), None);
        assert_eq!(parse_time("2026-01-02T03:04:5Z"), None);
        assert_eq!(parse_time("yesterday"), None);
        assert_eq!(parse_time("2026-13-02T03:04:05Z"), None);
    }

    #[test]
    fn entries_say_what_the_chain_needs() {
        let e = classify(
            br#"{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]},"uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}"#,
            true,
            &mut Side::default(),
        )
        .unwrap();
        assert_eq!(e.kind, Kind::User);
        assert_eq!(e.flags, Line::MESSAGE | Line::RESULTS_ONLY);
        assert!(e.uuid.is_some() && e.parent.is_none());
        assert_eq!(
            classify(
                br#"{"type":"assistant","uuid":"a"}"#,
                true,
                &mut Side::default()
            ),
            Err(ParseError::Shape {
                kind: "assistant",
                problem: r#"no object "message""#
            })
        );
        let b = classify(
            br#"{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"isSidechain":true}"#,
            true,
            &mut Side::default(),
        )
        .unwrap();
        assert_eq!(b.flags, Line::BOUNDARY | Line::SIDECHAIN);
    }
}
