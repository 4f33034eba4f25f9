//! Replay for Codex: folds records, in file order, into the resume state Codex would start from
//! (SPEC §2–§5): the history as item headers, the open turn, and what was counted on the way.

use super::calls::CallIds;
use super::item::{Flags, Form, Item, ItemKind};
use super::record::{Classified, Meta, NewItem, Record, Spelling};
use crate::findings::{Findings, Tally};
use crate::json;
use crate::pipeline::{self, Bytes, LineAt};
use crate::source::Span;

/// A turn as opened by a start event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Turn {
    pub turn_id: Option<Box<str>>,
    /// The line of the start event.
    pub line: u64,
}

/// Which spellings the valid records were written in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Spellings {
    pub codex: bool,
    pub mini: bool,
    pub codex_2025: bool,
}

impl Spellings {
    /// The dialect the report names.
    pub fn name(self) -> &'static str {
        match (self.codex, self.mini, self.codex_2025) {
            (_, _, true) => "codex-2025",
            (true, true, false) => "mixed",
            (true, false, false) => "codex",
            (false, true, false) => "mini",
            (false, false, false) => "none",
        }
    }
}

/// Everything replay learns from a Codex rollout.
#[derive(Debug, Default)]
pub(crate) struct State {
    pub thread_id: Option<Box<str>>,
    pub cwd: Option<Box<str>>,
    pub started: Option<Box<str>>,
    pub history: Vec<Item>,
    pub calls: CallIds,
    /// Texts of items that are no span of any source ([`Form::Owned`]).
    pub owned: Vec<Box<str>>,
    /// The turn still open at the end of the file.
    pub incomplete_turn: Option<Turn>,
    /// Turns replaced by a later start while still open.
    pub abandoned_turns: Vec<Turn>,
    pub completed_turns: u64,
    pub aborted_turns: u64,
    pub spellings: Spellings,
    pub unknown_events: Tally,
    pub session_metas: u64,
    pub compactions: u64,
    pub rollbacks: u64,
}

/// A replay in progress: the state as far as it has got, and what the rules need on the way.
#[derive(Debug, Default)]
pub(crate) struct Fold {
    pub state: State,
    /// The source the records come from.
    src: u16,
    /// Positions in `history` of user-turn boundaries, ascending: what rollbacks cut at.
    boundaries: Vec<u32>,
}

impl pipeline::Fold for Fold {
    type Record = Classified;

    fn fold(
        &mut self,
        line: LineAt,
        (spelling, record): Classified,
        chunk: &Bytes<'_>,
        f: &mut Findings,
    ) {
        match spelling {
            Some(Spelling::Codex) => self.state.spellings.codex = true,
            Some(Spelling::Mini) => self.state.spellings.mini = true,
            Some(Spelling::Codex2025) => self.state.spellings.codex_2025 = true,
            None => {}
        }
        self.apply(line.number, record, chunk, f);
    }
}

/// The decoded string whose raw JSON is at `span`.
fn text(chunk: &Bytes<'_>, span: Span) -> Option<Box<str>> {
    let raw = std::str::from_utf8(chunk.get(span)).ok()?;
    json::decode_str(raw).map(Into::into)
}

impl Fold {
    fn apply(&mut self, number: u64, record: Record, chunk: &Bytes<'_>, f: &mut Findings) {
        let state = &mut self.state;
        match record {
            Record::SessionMeta(meta) => {
                state.session_metas += 1;
                if state.thread_id.is_none() {
                    self.meta(&meta, chunk);
                }
            }
            Record::Item(Some(new)) => {
                let item = self.resolve(new, chunk);
                self.push(item);
            }
            Record::Item(None) | Record::Context | Record::Event => {}
            Record::Compacted(items) => {
                state.compactions += 1;
                let items = items
                    .into_iter()
                    .map(|new| self.resolve(new, chunk))
                    .collect();
                self.replace(items);
            }
            Record::LegacyCompaction(message) => {
                state.compactions += 1;
                self.legacy_compaction(message, chunk);
            }
            Record::RolledBack(items) => {
                state.rollbacks += 1;
                let items = items
                    .into_iter()
                    .map(|new| self.resolve(new, chunk))
                    .collect();
                self.replace(items);
            }
            Record::DropTurns(n) => {
                state.rollbacks += 1;
                self.drop_turns(n);
            }
            Record::TurnStarted(turn_id) => {
                let turn = Turn {
                    turn_id: turn_id.and_then(|span| text(chunk, span)),
                    line: number,
                };
                if let Some(open) = state.incomplete_turn.replace(turn) {
                    state.abandoned_turns.push(open);
                }
            }
            Record::TurnEnded { turn_id, aborted } => {
                let turn_id = turn_id.and_then(|span| text(chunk, span));
                let closes = state.incomplete_turn.as_ref().is_some_and(|open| {
                    turn_id.is_none() || open.turn_id.is_none() || turn_id == open.turn_id
                });
                if closes {
                    state.incomplete_turn = None;
                    if aborted {
                        state.aborted_turns += 1;
                    } else {
                        state.completed_turns += 1;
                    }
                }
            }
            Record::UnknownEvent(name) => {
                let name = text(chunk, name).unwrap_or_default();
                state.unknown_events.add(&name);
            }
            Record::Unknown(name) => f.unknown(&text(chunk, name).unwrap_or_default()),
        }
    }

    fn meta(&mut self, meta: &Meta, chunk: &Bytes<'_>) {
        let state = &mut self.state;
        state.thread_id = text(chunk, meta.thread_id);
        state.cwd = meta.cwd.and_then(|span| text(chunk, span));
        state.started = meta.timestamp.and_then(|span| text(chunk, span));
    }

    /// The item with its source and call key.
    fn resolve(&mut self, new: NewItem, chunk: &Bytes<'_>) -> Item {
        let mut item = new.item.in_source(self.src);
        if item.kind.pairs() {
            item.aux = self
                .state
                .calls
                .key(new.call_id.map(|span| chunk.get(span)))
                .0;
        }
        item
    }

    fn push(&mut self, item: Item) {
        if item.is_boundary() {
            self.boundaries.push(self.state.history.len() as u32);
        }
        self.state.history.push(item);
    }

    fn replace(&mut self, items: Vec<Item>) {
        self.state.history = items;
        self.boundaries.clear();
        let boundaries = self.state.history.iter().enumerate();
        let boundaries = boundaries.filter(|(_, item)| item.is_boundary());
        self.boundaries.extend(boundaries.map(|(i, _)| i as u32));
    }

    /// A compaction without a replacement history: the user turns stay, then the summary.
    fn legacy_compaction(&mut self, message: Span, chunk: &Bytes<'_>) {
        let history = std::mem::take(&mut self.state.history);
        let kept = history
            .into_iter()
            .filter(|item| item.has(Flags::USER))
            .collect();
        self.replace(kept);
        let mut summary = Item::new(self.src, message, ItemKind::Message, Form::Summary);
        summary.flags.0 |= Flags::ROLE_USER;
        let contextual =
            text(chunk, message).is_some_and(|t| super::turns::is_contextual_fragment(&t));
        if !contextual {
            summary.flags.0 |= Flags::USER;
        }
        self.push(summary);
    }

    /// Drops the last `n` user turns and everything after them (SPEC §2.1).
    fn drop_turns(&mut self, n: u64) {
        let count = self.boundaries.len();
        if count == 0 {
            return;
        }
        let keep_turns = count.saturating_sub(usize::try_from(n).unwrap_or(usize::MAX));
        let cut = self.boundaries[keep_turns] as usize;
        self.state.history.truncate(cut);
        self.boundaries.truncate(keep_turns);
    }
}
