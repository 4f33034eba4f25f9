//! Replay: folds records, in file order, into the resume state an agent would start from
//! (SPEC §2–§5). Lines are parsed in parallel, chunk by chunk, and folded in order.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::ops::Range;
use std::sync::mpsc;

use rayon::prelude::*;

use crate::item::Item;
use crate::read::{self, Chunker};
use crate::record::{self, Classified, Dialect, Record, SessionMeta};

/// Parse errors kept with their reasons; beyond this only the line numbers are kept, so that two
/// million bad lines cost megabytes, not gigabytes.
pub const MAX_REASONS: usize = 1000;
/// Distinct unknown kinds (records or events) named in the report; the rest are only counted.
const MAX_KIND_NAMES: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LineError {
    pub line: u64,
    pub reason: String,
}

/// A turn as opened by a start event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub turn_id: Option<Box<str>>,
    /// The line of the start event.
    pub line: u64,
}

/// Which dialects the valid records were written in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dialects {
    pub codex: bool,
    pub mini: bool,
}

impl Dialects {
    pub fn name(self) -> &'static str {
        match (self.codex, self.mini) {
            (true, true) => "mixed",
            (true, false) => "codex",
            (false, true) => "mini",
            (false, false) => "none",
        }
    }
}

/// Kind names with how often each was seen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub total: u64,
    pub by_name: BTreeMap<Box<str>, u64>,
}

impl Tally {
    fn add(&mut self, name: Box<str>) {
        self.total += 1;
        if self.by_name.len() < MAX_KIND_NAMES || self.by_name.contains_key(&name) {
            *self.by_name.entry(name).or_default() += 1;
        }
    }
}

/// Everything replay learns from a rollout.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResumeState {
    pub session: SessionMeta,
    pub history: Vec<Item>,
    /// The turn still open at the end of the file.
    pub incomplete_turn: Option<Turn>,
    /// Turns replaced by a later start while still open.
    pub abandoned_turns: Vec<Turn>,
    pub completed_turns: u64,
    pub aborted_turns: u64,
    pub dialects: Dialects,
    /// Lines in the file, blank ones included.
    pub lines: u64,
    pub blank_lines: u64,
    pub records: u64,
    /// Every line that failed to parse, in order.
    pub error_lines: Vec<u64>,
    /// The first [`MAX_REASONS`] parse errors with their reasons.
    pub errors: Vec<LineError>,
    /// The last line had no `\n` and did not parse: a writer died mid-line.
    pub torn_tail: bool,
    pub unknown_records: Tally,
    pub unknown_events: Tally,
    pub session_metas: u64,
    pub compactions: u64,
    pub rollbacks: u64,
}

/// Why a rollout cannot be resumed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unusable {
    Empty,
    NoSessionMeta,
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unusable::Empty => "empty rollout: no record in it",
            Unusable::NoSessionMeta => {
                "no session_meta record: cannot tell which thread this is (is this a Codex rollout?)"
            }
        })
    }
}

#[derive(Debug)]
pub enum Error {
    Io(io::Error),
    Unusable(Unusable),
}

/// Replays a whole input. `keep_text` keeps each item's source text (needed to print items; a
/// report needs only headers). `progress` hears the size of each chunk as it is read.
pub fn replay(
    input: impl Read + Send,
    keep_text: bool,
    progress: &mut dyn FnMut(u64),
) -> Result<ResumeState, Error> {
    let mut fold = Fold::default();
    if rayon::current_thread_index().is_some() {
        // Already on a pool thread (scan replays many files at once): the stages below would
        // block this thread on a channel while their parse waits for a pool thread, and with
        // every pool thread doing the same, nothing would run. Here the stages take turns.
        let mut chunker = Chunker::new(input);
        let mut buf = Vec::new();
        let mut number = 0;
        while let Some(chunk) = chunker.next_chunk(buf).map_err(Error::Io)? {
            let parsed = parse_chunk(&chunk, &chunk.line_ranges(), keep_text);
            number = fold.chunk(number, parsed, progress);
            buf = chunk.into_buffer();
        }
        return fold.finish().map_err(Error::Unusable);
    }
    // Three stages run at once: a thread reads chunk n+2 and finds its lines, the thread pool
    // parses chunk n+1, and this thread folds chunk n. Parsed chunks' buffers go back to the
    // reader, so steady state allocates nothing for input.
    std::thread::scope(|scope| {
        let (chunk_tx, chunk_rx) = mpsc::sync_channel(1);
        let (empty_tx, empty_rx) = mpsc::channel::<Vec<u8>>();
        scope.spawn(move || {
            let mut chunker = Chunker::new(input);
            loop {
                let buf = empty_rx.try_recv().unwrap_or_default();
                // Lines are found here, beside the parsing, not before it.
                let next = chunker.next_chunk(buf).map(|chunk| {
                    chunk.map(|chunk| {
                        let lines = chunk.line_ranges();
                        (chunk, lines)
                    })
                });
                let stop = !matches!(next, Ok(Some(_)));
                if chunk_tx.send(next).is_err() || stop {
                    return;
                }
            }
        });
        let (parsed_tx, parsed_rx) = mpsc::sync_channel(1);
        scope.spawn(move || {
            for next in chunk_rx {
                let parsed = next.map(|chunk| {
                    chunk.map(|(chunk, lines)| {
                        let parsed = parse_chunk(&chunk, &lines, keep_text);
                        let _ = empty_tx.send(chunk.into_buffer());
                        parsed
                    })
                });
                let stop = !matches!(parsed, Ok(Some(_)));
                if parsed_tx.send(parsed).is_err() || stop {
                    return;
                }
            }
        });
        let mut number = 0;
        for next in parsed_rx {
            let Some(chunk) = next.map_err(Error::Io)? else {
                break;
            };
            number = fold.chunk(number, chunk, progress);
        }
        Ok(())
    })?;
    fold.finish().map_err(Error::Unusable)
}

/// A chunk's lines, classified: `None` for a blank line.
struct ParsedChunk {
    lines: Vec<Option<Result<Classified, String>>>,
    bytes: u64,
    unterminated: bool,
}

/// Classifies a chunk's lines on the thread pool, in order.
fn parse_chunk(chunk: &read::Chunk, lines: &[Range<usize>], keep_text: bool) -> ParsedChunk {
    let bytes = chunk.bytes();
    let lines = lines
        .par_iter()
        .with_min_len(64)
        .map(|range| {
            let line = &bytes[range.clone()];
            (!read::is_blank(line)).then(|| record::parse(line, keep_text))
        })
        .collect();
    ParsedChunk {
        lines,
        bytes: bytes.len() as u64,
        unterminated: chunk.unterminated,
    }
}

/// The state of a replay in progress: the resume state as far as it has got.
#[derive(Default)]
struct Fold {
    /// `state.session` holds a real value once this is set.
    has_session: bool,
    state: ResumeState,
    /// Positions in `history` of user-turn messages, ascending: what rollbacks cut at.
    user_turns: Vec<usize>,
}

impl Fold {
    /// Folds a parsed chunk whose lines follow line `number`; returns the last line's number.
    fn chunk(&mut self, mut number: u64, chunk: ParsedChunk, progress: &mut dyn FnMut(u64)) -> u64 {
        progress(chunk.bytes);
        let last = chunk.lines.len();
        for (i, outcome) in chunk.lines.into_iter().enumerate() {
            number += 1;
            self.line(number, outcome, chunk.unterminated && i + 1 == last);
        }
        number
    }

    fn line(&mut self, number: u64, outcome: Option<Result<Classified, String>>, torn: bool) {
        self.state.lines = number;
        match outcome {
            None => self.state.blank_lines += 1,
            Some(Err(reason)) => {
                self.state.error_lines.push(number);
                if self.state.errors.len() < MAX_REASONS {
                    self.state.errors.push(LineError {
                        line: number,
                        reason,
                    });
                }
                self.state.torn_tail = torn;
            }
            Some(Ok((dialect, record))) => {
                self.state.records += 1;
                match dialect {
                    Some(Dialect::Codex) => self.state.dialects.codex = true,
                    Some(Dialect::Mini) => self.state.dialects.mini = true,
                    None => {}
                }
                self.apply(number, record);
            }
        }
    }

    fn apply(&mut self, number: u64, record: Record) {
        match record {
            Record::SessionMeta(meta) => {
                self.state.session_metas += 1;
                if !self.has_session {
                    self.has_session = true;
                    self.state.session = meta;
                }
            }
            Record::Item(Some(item)) => self.push(item),
            Record::Item(None) | Record::Context | Record::Event => {}
            Record::Compacted(items) => {
                self.state.compactions += 1;
                self.replace(items);
            }
            Record::LegacyCompaction(summary) => {
                self.state.compactions += 1;
                if self.user_turns.len() != self.state.history.len() {
                    let history = std::mem::take(&mut self.state.history);
                    let kept = history.into_iter().filter(|item| item.user_turn).collect();
                    self.replace(kept);
                }
                self.push(summary);
            }
            Record::RolledBack(items) => {
                self.state.rollbacks += 1;
                self.replace(items);
            }
            Record::DropTurns(n) => {
                self.state.rollbacks += 1;
                self.drop_turns(n);
            }
            Record::TurnStarted(turn_id) => {
                let turn = Turn {
                    turn_id,
                    line: number,
                };
                if let Some(open) = self.state.incomplete_turn.replace(turn) {
                    self.state.abandoned_turns.push(open);
                }
            }
            Record::TurnEnded { turn_id, aborted } => {
                let closes = self.state.incomplete_turn.as_ref().is_some_and(|open| {
                    turn_id.is_none() || open.turn_id.is_none() || turn_id == open.turn_id
                });
                if closes {
                    self.state.incomplete_turn = None;
                    if aborted {
                        self.state.aborted_turns += 1;
                    } else {
                        self.state.completed_turns += 1;
                    }
                }
            }
            Record::UnknownEvent(name) => self.state.unknown_events.add(name),
            Record::Unknown(name) => self.state.unknown_records.add(name),
        }
    }

    fn push(&mut self, item: Item) {
        if item.user_turn {
            self.user_turns.push(self.state.history.len());
        }
        self.state.history.push(item);
    }

    fn replace(&mut self, items: Vec<Item>) {
        self.state.history = items;
        self.user_turns.clear();
        let turns = self.state.history.iter().enumerate();
        let turns = turns.filter(|(_, item)| item.user_turn);
        self.user_turns.extend(turns.map(|(i, _)| i));
    }

    /// Drops the last `n` user turns and everything after them (SPEC §2.1).
    fn drop_turns(&mut self, n: u64) {
        let count = self.user_turns.len();
        if count == 0 {
            return;
        }
        let keep_turns = count.saturating_sub(usize::try_from(n).unwrap_or(usize::MAX));
        let cut = self.user_turns[keep_turns];
        self.state.history.truncate(cut);
        self.user_turns.truncate(keep_turns);
    }

    fn finish(self) -> Result<ResumeState, Unusable> {
        if self.state.records == 0 && self.state.error_lines.is_empty() {
            return Err(Unusable::Empty);
        }
        if !self.has_session {
            return Err(Unusable::NoSessionMeta);
        }
        Ok(self.state)
    }
}
