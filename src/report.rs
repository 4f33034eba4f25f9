//! The report: what replay found and what the prompt view would repair, as one value that both
//! the human and the JSON renderers print (its fields are the JSON schema in the README).

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::value::RawValue;

use crate::item::CallId;
use crate::json;
use crate::normalize::{self, Modalities};
use crate::replay::{LineError, ResumeState, Turn};

#[derive(Debug, Serialize)]
pub struct Report<'a> {
    pub file: &'a str,
    pub thread_id: &'a str,
    pub cwd: Option<&'a str>,
    pub started: Option<&'a str>,
    pub dialect: &'static str,
    pub lines: u64,
    pub blank_lines: u64,
    pub records: u64,
    pub parse_errors: u64,
    pub error_lines: &'a [u64],
    /// The first errors with their reasons (see `replay::MAX_REASONS`).
    pub errors: &'a [LineError],
    pub torn_tail: bool,
    pub unknown_records: u64,
    pub unknown_record_kinds: &'a BTreeMap<Box<str>, u64>,
    pub unknown_events: u64,
    pub unknown_event_types: &'a BTreeMap<Box<str>, u64>,
    pub session_metas: u64,
    pub history_items: usize,
    pub incomplete_turn: Option<TurnRef<'a>>,
    pub incomplete_turn_id: Option<&'a str>,
    pub abandoned_turns: Vec<TurnRef<'a>>,
    pub completed_turns: u64,
    pub aborted_turns: u64,
    pub compactions: u64,
    pub rollbacks: u64,
    pub repairs: Repairs<'a>,
}

#[derive(Debug, Serialize)]
pub struct TurnRef<'a> {
    pub turn_id: Option<&'a str>,
    pub line: u64,
}

impl<'a> From<&'a Turn> for TurnRef<'a> {
    fn from(turn: &'a Turn) -> Self {
        TurnRef {
            turn_id: turn.turn_id.as_deref(),
            line: turn.line,
        }
    }
}

/// What the prompt view (default modalities) changes.
#[derive(Debug, Serialize)]
pub struct Repairs<'a> {
    /// Call ids of calls given a synthetic `"aborted"` output, in history order.
    pub missing_outputs: Vec<CallIdRef<'a>>,
    /// Call ids of orphan outputs removed, in history order (strings, or the JSON value of a
    /// call id that is not one).
    pub orphan_outputs: Vec<CallIdRef<'a>>,
    pub images_replaced: u64,
    pub audio_replaced: u64,
}

/// A call id as the JSON report writes it: a string, or the JSON value it was.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum CallIdRef<'a> {
    Str(&'a str),
    Lossy(Cow<'a, str>),
    Raw(&'a RawValue),
}

impl<'a> From<&'a CallId> for CallIdRef<'a> {
    fn from(id: &'a CallId) -> Self {
        match id {
            CallId::Str(id) => CallIdRef::Str(id),
            // Shown with U+FFFD for its lone surrogates, so that every JSON parser takes the
            // report (many refuse a lone surrogate escape); pairing still tells them apart.
            CallId::Lone { raw, .. } => CallIdRef::Lossy(json::decode_str(raw).unwrap_or_default()),
            // Validated JSON already, so this cannot fail; `null` stands in if it did.
            CallId::Other(raw) => {
                serde_json::from_str(raw).map_or(CallIdRef::Str("null"), CallIdRef::Raw)
            }
            CallId::None => CallIdRef::Str("null"),
        }
    }
}

impl CallIdRef<'_> {
    /// How the human report shows it.
    pub fn text(&self) -> &str {
        match self {
            CallIdRef::Str(id) => id,
            CallIdRef::Lossy(id) => id,
            CallIdRef::Raw(raw) => raw.get(),
        }
    }
}

impl<'a> Report<'a> {
    pub fn new(file: &'a str, state: &'a ResumeState) -> Report<'a> {
        let view = normalize::normalize(&state.history, Modalities::default());
        Report {
            file,
            thread_id: &state.session.thread_id,
            cwd: state.session.cwd.as_deref(),
            started: state.session.timestamp.as_deref(),
            dialect: state.dialects.name(),
            lines: state.lines,
            blank_lines: state.blank_lines,
            records: state.records,
            parse_errors: state.error_lines.len() as u64,
            error_lines: &state.error_lines,
            errors: &state.errors,
            torn_tail: state.torn_tail,
            unknown_records: state.unknown_records.total,
            unknown_record_kinds: &state.unknown_records.by_name,
            unknown_events: state.unknown_events.total,
            unknown_event_types: &state.unknown_events.by_name,
            session_metas: state.session_metas,
            history_items: state.history.len(),
            incomplete_turn: state.incomplete_turn.as_ref().map(TurnRef::from),
            incomplete_turn_id: state
                .incomplete_turn
                .as_ref()
                .and_then(|t| t.turn_id.as_deref()),
            abandoned_turns: state.abandoned_turns.iter().map(TurnRef::from).collect(),
            completed_turns: state.completed_turns,
            aborted_turns: state.aborted_turns,
            compactions: state.compactions,
            rollbacks: state.rollbacks,
            repairs: Repairs {
                missing_outputs: view.missing_outputs().map(CallIdRef::from).collect(),
                orphan_outputs: view.orphan_outputs().map(CallIdRef::from).collect(),
                images_replaced: view.images_replaced,
                audio_replaced: view.audio_replaced,
            },
        }
    }
}
