//! Replay for Codex: folds records, in file order, into the resume state Codex would start from
//! (SPEC §2–§5): the history as item headers, the open turn, and what was counted on the way.

use super::calls::CallIds;
use super::compaction::{self, Kept};
use super::forms;
use super::item::{Flags, Form, Item, ItemKind, KnownStrings};
use super::record::{Classified, Meta, NewItem, Record, Replacement, Spelling};
use crate::findings::{Findings, Tally};
use crate::json;
use crate::pipeline::{self, Bytes, LineAt};
use crate::source::{Source, Span, SpanReader};
use crate::toolcall::ToolFault;

/// A turn as opened by a start event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Turn {
    pub turn_id: Option<Box<str>>,
    /// The line of the start event.
    pub line: u64,
    /// Opened by the parent thread before this fork was made from it: its records came with the
    /// fork's history (read from a parent rollout, or copied into this file).
    pub inherited: bool,
    /// The line of a `thread_rolled_back` that came while it was open (Codex 0.144 rolled back a
    /// running turn without ending it).
    pub rolled_back_at: Option<u64>,
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

/// What a Codex rollout holds that makes resuming it differ from the log (SPEC §9).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fault {
    /// A paginated record with the ordinal of the record before it.
    DuplicateOrdinal { line: u64, ordinal: u64 },
    /// A paginated record with an ordinal lower than the one before it.
    RegressedOrdinal {
        line: u64,
        ordinal: u64,
        previous: u64,
    },
    /// The last record of a paginated rollout has no ordinal: Codex refuses to resume it.
    FinalWithoutOrdinal { line: u64 },
    /// A record over 16 MiB, which Codex's migration to paginated files drops.
    Oversize { line: u64, bytes: u64 },
}

/// Records over this many bytes, newline included, are dropped by Codex's migration
/// (`MAX_ROLLOUT_LINE_BYTES`).
const MAX_RECORD_BYTES: u64 = 16 << 20;

/// Everything replay learns from a Codex rollout.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// The first session_meta says `history_mode: "paginated"`.
    pub paginated: bool,
    /// Ordinal faults and oversize records of the rollout read (not of its parents).
    pub faults: Vec<Fault>,
    /// The parent rollouts read before it, root first.
    pub parents: Vec<std::path::PathBuf>,
    /// Why the chain of parents is incomplete, when it is.
    pub broken: Option<super::lineage::Broken>,
    pub thread_id: Option<Box<str>>,
    /// The first session_meta names a model provider other than `openai`.
    pub custom_provider: bool,
    /// Why Codex refuses the first session_meta, if it does.
    pub meta_refusal: Option<&'static str>,
    /// The first record is a Codex session_meta: Codex reads the file, and mini-dialect lines
    /// in it are lines it cannot parse (SPEC §11.2, class K).
    pub codex_first: Option<bool>,
    pub cwd: Option<Box<str>>,
    pub started: Option<Box<str>>,
    pub history: Vec<Item>,
    /// The long strings of the items the view walks again.
    pub known: KnownStrings,
    pub calls: CallIds,
    /// Texts of items that are no span of any source ([`Form::Owned`]): at most the one user
    /// message the last legacy compaction cut.
    pub owned: Vec<Box<str>>,
    /// The turn still open at the end of the file.
    pub incomplete_turn: Option<Turn>,
    /// Turns of this thread replaced by a later start while still open (neither inherited from a
    /// parent nor rolled back).
    pub abandoned_turns: Vec<Turn>,
    /// Turns a rollback came over while they were open, which a later start then found still
    /// open (no end event closed them): with the rollback's line.
    pub rolled_back_turns: Vec<Turn>,
    /// Calls of the history the model API may refuse when it is sent again, with the source they
    /// were read from (0: the rollout itself).
    pub tool_faults: Vec<(usize, ToolFault)>,
    pub completed_turns: u64,
    pub aborted_turns: u64,
    pub spellings: Spellings,
    pub unknown_events: Tally,
    pub session_metas: u64,
    pub compactions: u64,
    pub rollbacks: u64,
    /// History items legacy compactions walked: what they cost. It grows with the log, never
    /// with its square (a test holds it to that).
    pub compaction_work: u64,
}

impl State {
    /// Why Codex 0.169 refuses to resume this rollout, in its words, or `None` when it resumes it
    /// (SPEC §5, §11.2.10). `findings` are the rollout's own loading findings.
    pub fn not_resumable(&self, findings: &Findings) -> Option<String> {
        if self.spellings.codex_2025 && !self.spellings.codex {
            return Some(
                "Codex reads it as empty (\"rollout … is empty\"): a 2025 rollout from before \
                 the envelope records"
                    .into(),
            );
        }
        if !self.spellings.codex {
            return None;
        }
        if findings.bom {
            return Some(
                "Codex refuses it (\"rollout … does not start with session metadata\"): a UTF-8 \
                 byte order mark comes before the first record"
                    .into(),
            );
        }
        if self.thread_id.is_none() {
            return Some(
                "Codex refuses it (\"rollout … does not start with session metadata\"): no \
                 session_meta record"
                    .into(),
            );
        }
        if let Some(refusal) = self.meta_refusal {
            return Some(refusal.into());
        }
        // Checked against Codex 0.169.0, but not narrowed down: fixture malformed_lines (a
        // `\xe9` in a user message, among other bad lines) is refused, while legacy probes with
        // `\xff\xfe` in one event_msg or response_item line (middle or last) resume with
        // that line skipped. Until the rule is found, any invalid line counts.
        if findings.invalid_utf8_lines > 0 {
            return Some(
                "Codex refuses it (\"stream did not contain valid UTF-8\"): a line is not valid \
                 UTF-8"
                    .into(),
            );
        }
        None
    }
}

/// Positions of the user-turn boundaries in the history, ascending: what rollbacks cut at. After a
/// legacy compaction the history starts with a run of them, kept as a count.
#[derive(Debug, Default, Clone)]
struct Boundaries {
    /// `history[..run]` are all boundaries.
    run: usize,
    /// The positions after the run.
    later: Vec<u32>,
}

impl Boundaries {
    fn len(&self) -> usize {
        self.run + self.later.len()
    }

    fn get(&self, n: usize) -> usize {
        if n < self.run {
            n
        } else {
            self.later[n - self.run] as usize
        }
    }

    fn of(history: &[Item]) -> Boundaries {
        let later = history
            .iter()
            .enumerate()
            .filter(|(_, item)| item.is_boundary());
        Boundaries {
            run: 0,
            later: later.map(|(i, _)| i as u32).collect(),
        }
    }

    /// Keeps those before `cut`.
    fn truncate(&mut self, cut: usize) {
        if cut <= self.run {
            self.run = cut;
            self.later.clear();
        } else {
            let keep = self.later.partition_point(|&p| (p as usize) < cut);
            self.later.truncate(keep);
        }
    }
}

/// What a replacement compaction replaced, kept in case a later rollback discards it (SPEC §11.2
/// #6): the history before it, moved here (never copied, so many compactions cost what their
/// replacements do), and how many user turns the history had right after it.
#[derive(Debug)]
struct Snapshot {
    history: Vec<Item>,
    boundaries: Boundaries,
    kept: Option<Kept>,
    owned: Vec<Box<str>>,
    installed: usize,
}

/// A replay in progress: the state as far as it has got, and what the rules need on the way.
pub(crate) struct Fold<'s> {
    pub state: State,
    /// Every source of the session, for the few rules that read an earlier item again.
    sources: &'s [Source],
    /// The source the records come from.
    src: u16,
    boundaries: Boundaries,
    /// What the last legacy compaction kept, while the history still starts with it.
    kept: Option<Kept>,
    /// The replacement compactions still in force, oldest first.
    snapshots: Vec<Snapshot>,
    /// Reading a parent rollout: its records below this ordinal come in, its session_meta not.
    cut: Option<u64>,
    /// The ordinal of the last record that had one, and the last record's line and ordinal.
    previous_ordinal: Option<u64>,
    last_record: Option<(u64, Option<u64>)>,
    /// When the thread's id was made, from a UUIDv7 id (milliseconds since 1970).
    thread_made: Option<u64>,
    /// A `session_meta` of another thread came after the first: a fork copied its parent in.
    copied_parent: bool,
    /// Faults of calls as they were read: the call's source and offset, to keep only those
    /// still in the history at the end.
    faults: Vec<(usize, u64, ToolFault)>,
}

/// When a UUIDv7 was made, in milliseconds since 1970 (its first 48 bits); `None` for another
/// kind of id.
fn uuid_v7_millis(id: &str) -> Option<u64> {
    let uuid = uuid::Uuid::try_parse(id).ok()?;
    (uuid.get_version_num() == 7).then(|| (uuid.as_u128() >> 80) as u64)
}

impl pipeline::Fold for Fold<'_> {
    type Record = Classified;
    type Side = ();

    fn fold(
        &mut self,
        line: LineAt,
        (spelling, record, ordinal): Classified,
        _: &(),
        chunk: &Bytes<'_>,
        f: &mut Findings,
    ) {
        if let Some(cut) = self.cut {
            let own_meta = matches!(record, Record::SessionMeta(_));
            if own_meta || ordinal.is_some_and(|o| o >= cut) {
                return;
            }
        } else {
            self.check_ordinal(line, ordinal, &record);
        }
        if self.state.codex_first.is_none() {
            let codex_meta =
                spelling == Some(Spelling::Codex) && matches!(record, Record::SessionMeta(_));
            self.state.codex_first = Some(codex_meta);
        }
        let ignored = spelling == Some(Spelling::Mini) && self.state.codex_first == Some(true);
        match spelling {
            Some(Spelling::Codex) => self.state.spellings.codex = true,
            Some(Spelling::Mini) => self.state.spellings.mini = true,
            Some(Spelling::Codex2025) => self.state.spellings.codex_2025 = true,
            None => {}
        }
        if ignored {
            return;
        }
        self.apply(line.number, record, chunk, f);
    }
}

/// The decoded string whose raw JSON is at `span`.
fn text(chunk: &Bytes<'_>, span: Span) -> Option<Box<str>> {
    let raw = std::str::from_utf8(chunk.get(span)).ok()?;
    json::decode_str(raw).map(Into::into)
}

impl<'s> Fold<'s> {
    /// A fold over `sources`, reading the records of source `src`.
    pub fn new(sources: &'s [Source], src: u16) -> Fold<'s> {
        Fold {
            state: State::default(),
            sources,
            src,
            boundaries: Boundaries::default(),
            kept: None,
            snapshots: Vec::new(),
            cut: None,
            previous_ordinal: None,
            last_record: None,
            thread_made: None,
            copied_parent: false,
            faults: Vec::new(),
        }
    }

    /// Folds the records of source `src` from here on: a parent rollout cut before `cut`
    /// (SPEC §9), or, with `None`, the rollout itself.
    pub fn read(&mut self, src: u16, cut: Option<u64>) {
        self.src = src;
        self.cut = cut;
    }

    /// Records ordinal faults and oversize records of the rollout itself.
    fn check_ordinal(&mut self, line: LineAt, ordinal: Option<u64>, record: &Record) {
        // Codex counts the record with its newline (`read_until`), and drops it when that is
        // over the limit.
        if line.len + 1 > MAX_RECORD_BYTES {
            self.state.faults.push(Fault::Oversize {
                line: line.number,
                bytes: line.len,
            });
        }
        if let Record::SessionMeta(meta) = record
            && self.state.thread_id.is_none()
        {
            self.state.paginated = meta.paginated;
        }
        self.last_record = Some((line.number, ordinal));
        let (Some(ordinal), true) = (ordinal, self.state.paginated) else {
            return;
        };
        match self.previous_ordinal {
            Some(previous) if ordinal == previous => {
                self.state.faults.push(Fault::DuplicateOrdinal {
                    line: line.number,
                    ordinal,
                });
            }
            Some(previous) if ordinal < previous => {
                self.state.faults.push(Fault::RegressedOrdinal {
                    line: line.number,
                    ordinal,
                    previous,
                });
            }
            _ => {}
        }
        self.previous_ordinal = Some(ordinal);
    }

    /// The state, once every record is folded.
    pub fn finish(mut self) -> State {
        if let (true, Some((line, None))) = (self.state.paginated, self.last_record) {
            self.state.faults.push(Fault::FinalWithoutOrdinal { line });
        }
        if !self.faults.is_empty() {
            // Only what is sent again matters: a call a rollback or compaction took out is not.
            let sent: std::collections::HashSet<(usize, u64)> = self
                .state
                .history
                .iter()
                .map(|item| (item.src(), item.span().at))
                .collect();
            self.state.tool_faults = self
                .faults
                .into_iter()
                .filter(|(src, at, _)| sent.contains(&(*src, *at)))
                .map(|(src, _, fault)| (src, fault))
                .collect();
        }
        self.state
    }

    fn apply(&mut self, number: u64, record: Record, chunk: &Bytes<'_>, f: &mut Findings) {
        let state = &mut self.state;
        match record {
            Record::SessionMeta(meta) => {
                state.session_metas += 1;
                if state.thread_id.is_none() {
                    self.meta(&meta, chunk);
                } else if text(chunk, meta.thread_id) != state.thread_id {
                    self.copied_parent = true;
                }
            }
            Record::Item(Some(mut new)) => {
                if let Some(mut fault) = new.fault.take() {
                    fault.line = number;
                    let at = new.item.span().at;
                    self.faults.push((usize::from(self.src), at, *fault));
                }
                let known = std::mem::take(&mut new.known);
                let mut item = self.resolve(new, chunk);
                if !known.is_empty() {
                    self.state.known.add(item, &known);
                }
                if item.kind == ItemKind::Other && item.has(Flags::APPENDED) {
                    // Dropped from the view; the report names its line.
                    item.aux = u32::try_from(number).unwrap_or(u32::MAX);
                }
                self.push(item);
            }
            Record::Item(None) | Record::Context | Record::Event => {}
            Record::Compacted(replacement) => {
                state.compactions += 1;
                self.save_snapshot();
                self.replace(replacement, number, chunk);
                if let Some(top) = self.snapshots.last_mut() {
                    top.installed = self.boundaries.len();
                }
            }
            Record::LegacyCompaction(message) => {
                state.compactions += 1;
                self.legacy_compaction(message, chunk);
            }
            Record::RolledBack(replacement) => {
                state.rollbacks += 1;
                self.snapshots.clear();
                self.replace(replacement, number, chunk);
            }
            Record::DropTurns(n) => {
                state.rollbacks += 1;
                if let Some(open) = state.incomplete_turn.as_mut()
                    && open.rolled_back_at.is_none()
                {
                    open.rolled_back_at = Some(number);
                }
                self.drop_turns(n);
            }
            Record::TurnStarted(turn_id) => {
                let turn_id = turn_id.and_then(|span| text(chunk, span));
                let inherited = self.inherited(turn_id.as_deref());
                let state = &mut self.state;
                let turn = Turn {
                    inherited,
                    turn_id,
                    line: number,
                    rolled_back_at: None,
                };
                if let Some(open) = state.incomplete_turn.replace(turn) {
                    // The parent's open turn goes on in the parent, not here; one a rollback
                    // took out while it ran ended there.
                    if open.rolled_back_at.is_some() {
                        state.rolled_back_turns.push(open);
                    } else if !open.inherited {
                        state.abandoned_turns.push(open);
                    }
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

    /// Whether a turn opened here, with this id, was opened by the parent before the fork: it
    /// is read from a parent rollout, or it was copied in and its id (a UUIDv7, as Codex makes
    /// turn and thread ids) was made before this thread's.
    fn inherited(&self, turn_id: Option<&str>) -> bool {
        if self.cut.is_some() {
            return true;
        }
        let made = turn_id.and_then(uuid_v7_millis);
        self.copied_parent
            && made
                .zip(self.thread_made)
                .is_some_and(|(turn, thread)| turn < thread)
    }

    fn meta(&mut self, meta: &Meta, chunk: &Bytes<'_>) {
        let state = &mut self.state;
        state.thread_id = text(chunk, meta.thread_id);
        self.thread_made = state.thread_id.as_deref().and_then(uuid_v7_millis);
        state.custom_provider = meta.custom_provider;
        state.meta_refusal = meta.refusal;
        state.cwd = meta.cwd.and_then(|span| text(chunk, span));
        state.started = meta.timestamp.and_then(|span| text(chunk, span));
    }

    /// The item with its source and call key.
    fn resolve(&mut self, new: NewItem, chunk: &Bytes<'_>) -> Item {
        let mut item = new.item.in_source(self.src);
        if item.kind.pairs() {
            let calls = &mut self.state.calls;
            item.aux = match new.call_key {
                Some(key) => calls.key_decoded(key.bytes()),
                None => calls.key(new.call_id.map(|span| chunk.get(span))),
            }
            .0;
        }
        item
    }

    fn push(&mut self, item: Item) {
        if item.is_boundary() {
            self.boundaries.later.push(self.state.history.len() as u32);
        }
        self.state.history.push(item);
    }

    /// Installs a replacement history (of the record at `line`), its items given their source
    /// and call keys.
    fn replace(&mut self, replacement: Replacement, line: u64, chunk: &Bytes<'_>) {
        let Replacement {
            mut items,
            call_ids,
            faults,
        } = replacement;
        for item in &mut items {
            *item = item.in_source(self.src);
        }
        for (index, mut fault) in faults {
            fault.line = line;
            let at = items[index as usize].span().at;
            self.faults.push((usize::from(self.src), at, fault));
        }
        for (index, call_id) in call_ids {
            let key = self.state.calls.key(call_id.map(|span| chunk.get(span)));
            items[index as usize].aux = key.0;
        }
        self.boundaries = Boundaries::of(&items);
        self.state.history = items;
        self.kept = None;
    }

    /// The JSON text of an earlier item, read again (a rule needs its content).
    fn read_item(&self, item: Item) -> Option<String> {
        let mut reader = SpanReader::exact(self.sources);
        let mut out = Vec::new();
        forms::item_text(item, &self.state.owned, &mut reader, &mut out).ok()?;
        String::from_utf8(out).ok()
    }

    /// A compaction without a replacement history (SPEC §2.2).
    fn legacy_compaction(&mut self, message: Span, chunk: &Bytes<'_>) {
        let history = &mut self.state.history;
        let kept = match self.kept.take() {
            Some(kept) if kept.len <= history.len() => kept,
            _ => Kept::new(&[]),
        };
        self.state.compaction_work += (history.len() - kept.len) as u64;
        let plan = kept.plan(history);
        let cut = plan.cut.map(|(item, tokens)| {
            let json = self.read_item(item).unwrap_or_default();
            let pieces = compaction::cut_parts(&forms::compaction_pieces(&json), tokens);
            let len: usize = pieces.iter().map(String::len).sum();
            let mut rebuilt = Vec::new();
            forms::rebuilt_message(&json, Some(&pieces), &mut rebuilt);
            // The cut message is the oldest one kept: any earlier cut one is gone now.
            self.state.owned.clear();
            self.state
                .owned
                .push(String::from_utf8(rebuilt).unwrap_or_default().into());
            let span = Span { at: 0, len: 0 };
            let mut owned = Item::new(0, span, ItemKind::Message, Form::Owned);
            owned.flags = Flags::USER | Flags::ROLE_USER;
            owned.aux = u32::try_from(len).unwrap_or(u32::MAX);
            owned
        });
        let history = &mut self.state.history;
        let kept = kept.apply(history, plan, cut);
        self.boundaries = Boundaries {
            run: history.len(),
            later: Vec::new(),
        };
        self.kept = Some(kept);
        let summary = self.summary(message, chunk);
        self.push(summary);
    }

    /// The summary message a legacy compaction ends with.
    fn summary(&self, message: Span, chunk: &Bytes<'_>) -> Item {
        let raw = std::str::from_utf8(chunk.get(message)).unwrap_or(r#""""#);
        let text = forms::summary_text(raw);
        let text = String::from_utf8_lossy(&text);
        let mut summary = Item::new(self.src, message, ItemKind::Message, Form::Summary);
        summary.flags.insert(Flags::ROLE_USER | Flags::CODEX);
        if super::turns::is_contextual_fragment(&text) {
            summary.flags.insert(Flags::CONTEXT_UPDATE);
        } else {
            summary.flags.insert(Flags::USER);
            summary.aux = u32::try_from(text.len()).unwrap_or(u32::MAX);
            if super::parts::is_summary(&text) {
                summary.flags.insert(Flags::SUMMARY);
            }
        }
        summary
    }

    /// Moves the history a replacement compaction is about to replace into a snapshot.
    fn save_snapshot(&mut self) {
        self.snapshots.push(Snapshot {
            history: std::mem::take(&mut self.state.history),
            boundaries: std::mem::take(&mut self.boundaries),
            kept: self.kept.take(),
            owned: std::mem::take(&mut self.state.owned),
            installed: 0,
        });
    }

    /// Codex 0.169.0 applies a rollback by going back in the log (SPEC §11.2 #6, live class G): a
    /// replacement compaction that lies after the start of the `n`-th last user turn is
    /// discarded with the turns. Each one that fewer than `n` user turns follow is undone here
    /// (its snapshot put back), and the turns after it are counted off; returns how many turns
    /// are left to drop from the history so restored.
    fn undo_compactions(&mut self, mut n: usize) -> usize {
        while let Some(top) = self.snapshots.last() {
            let after = self.boundaries.len().saturating_sub(top.installed);
            if n <= after {
                break;
            }
            n -= after;
            let Some(top) = self.snapshots.pop() else {
                break;
            };
            self.state.history = top.history;
            self.boundaries = top.boundaries;
            self.kept = top.kept;
            self.state.owned = top.owned;
        }
        n
    }

    /// Drops the last `n` user turns and everything after them, then the context updates right
    /// above the cut; a rollback of every turn also strips the first turn's `<model_switch>`
    /// (SPEC §2.1). Replacement compactions among the dropped turns are undone first.
    fn drop_turns(&mut self, n: u64) {
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        let n = self.undo_compactions(n);
        let count = self.boundaries.len();
        if count == 0 {
            return;
        }
        let first = self.boundaries.get(0);
        let mut cut = if n >= count {
            first
        } else {
            self.boundaries.get(count - n)
        };
        let history = &mut self.state.history;
        while cut > first && history[cut - 1].has(Flags::CONTEXT_UPDATE) {
            cut -= 1;
        }
        let first_turn = history[first];
        history.truncate(cut);
        self.boundaries.truncate(cut);
        if let Some(kept) = self.kept.as_mut() {
            kept.truncate(cut);
        }
        if cut == first {
            self.strip_first_turn_model_switch(first_turn);
        }
    }

    /// After a rollback of every turn: the developer messages before the first turn that share
    /// its turn id lose their whole `<model_switch>` parts, and go when nothing is left.
    fn strip_first_turn_model_switch(&mut self, first_turn: Item) {
        let developer = |item: &Item| item.has(Flags::ROLE_DEVELOPER);
        if !self.state.history.iter().any(developer) {
            return;
        }
        let Some(boundary) = self.read_item(first_turn) else {
            return;
        };
        let Some(turn_id) = forms::turn_id(&boundary) else {
            return;
        };
        let mut keep = Vec::with_capacity(self.state.history.len());
        for &item in &self.state.history {
            if !developer(&item) {
                keep.push(item);
                continue;
            }
            let Some(text) = self.read_item(item) else {
                keep.push(item);
                continue;
            };
            if forms::turn_id(&text).as_deref() != Some(&turn_id) {
                keep.push(item);
            } else if forms::keeps_parts_when_stripped(&text) {
                let mut stripped = item;
                if item.has(Flags::MODEL_SWITCH) {
                    stripped.flags.insert(Flags::STRIPPED);
                }
                keep.push(stripped);
            }
        }
        if keep.len() != self.state.history.len() {
            self.kept = None;
            self.boundaries = Boundaries::of(&keep);
        }
        self.state.history = keep;
    }
}

#[cfg(test)]
mod tests {
    use crate::session::{self, Load, State};

    /// The session `lines` replay to, after a session_meta.
    fn replayed(lines: &[String]) -> session::Session {
        let mut text = String::from("{\"type\":\"session_meta\",\"payload\":{\"id\":\"t\"}}\n");
        for line in lines {
            text.push_str(line);
            text.push('\n');
        }
        session::load_bytes("test", text.into_bytes(), Load::alone(1 << 20)).unwrap()
    }

    /// The work legacy compactions did on `lines` (after a session_meta).
    fn compaction_work(lines: &[String]) -> (u64, usize) {
        let session = replayed(lines);
        let State::Codex(state) = &session.state else {
            panic!("not read as Codex");
        };
        (state.compaction_work, state.history.len())
    }

    fn user(text: &str) -> String {
        format!(
            r#"{{"type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{text}"}}]}}}}"#
        )
    }

    const COMPACTED: &str = r#"{"type":"compacted","payload":{"message":""}}"#;
    const ROLLBACK: &str =
        r#"{"type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}"#;

    /// The history `lines` replay to, as the texts of its messages.
    fn texts(lines: &[String]) -> Vec<String> {
        let session = replayed(lines);
        let State::Codex(state) = &session.state else {
            panic!("not read as Codex");
        };
        let mut reader = crate::source::SpanReader::exact(&session.sources);
        let mut out = Vec::new();
        state
            .history
            .iter()
            .map(|item| {
                super::forms::item_text(*item, &state.owned, &mut reader, &mut out).unwrap();
                let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
                v["content"][0]["text"].as_str().unwrap_or("?").to_owned()
            })
            .collect()
    }

    fn replacement(texts: &[&str]) -> String {
        let items: Vec<String> = texts
            .iter()
            .map(|t| {
                format!(
                    r#"{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{t}"}}]}}"#
                )
            })
            .collect();
        format!(
            r#"{{"type":"compacted","payload":{{"message":"","replacement_history":[{}]}}}}"#,
            items.join(",")
        )
    }

    fn rollback(n: u64) -> String {
        format!(
            r#"{{"type":"event_msg","payload":{{"type":"thread_rolled_back","num_turns":{n}}}}}"#
        )
    }

    /// Live class G: a rollback goes back in the log, undoing the replacement compactions that
    /// lie after the start of the turns it drops.
    #[test]
    fn rollbacks_undo_the_replacement_compactions_they_go_back_over() {
        let case = |tail: &[String]| {
            let mut lines = vec![user("t1"), user("t2"), replacement(&["t1", "summary"])];
            lines.extend_from_slice(tail);
            lines.push(user("t4"));
            texts(&lines)
        };
        assert_eq!(case(&[user("t3"), rollback(1)]), ["t1", "summary", "t4"]);
        assert_eq!(case(&[user("t3"), rollback(2)]), ["t1", "t4"]);
        assert_eq!(case(&[user("t3"), rollback(3)]), ["t4"]);
        let second = replacement(&["second"]);
        assert_eq!(
            case(&[user("t3"), second.clone(), rollback(1)]),
            ["t1", "summary", "t4"]
        );
        // Two rollbacks, the second going further back than the first.
        assert_eq!(
            case(&[user("t3"), second, rollback(1), rollback(1)]),
            ["t1", "t4"]
        );
        // A legacy compaction is not undone: the rollback counts its rebuilt turns.
        let lines = [
            user("t1"),
            user("t2"),
            COMPACTED.into(),
            user("t3"),
            replacement(&["s"]),
            rollback(1),
            user("t4"),
        ];
        assert_eq!(texts(&lines), ["t1", "t2", "(no summary available)", "t4"]);
    }

    /// The state `text` replays to, as it is (no session_meta added).
    fn state_of(text: &str) -> super::State {
        let session =
            session::load_bytes("test", text.as_bytes().to_vec(), Load::alone(1 << 20)).unwrap();
        match session.state {
            State::Codex(state) => state,
            State::Claude(_) => panic!("not read as Codex"),
        }
    }

    fn meta(id: &str) -> String {
        format!(r#"{{"type":"session_meta","payload":{{"id":"{id}"}}}}"#)
    }

    fn event(kind: &str, turn: &str) -> String {
        format!(r#"{{"type":"event_msg","payload":{{"type":"{kind}","turn_id":"{turn}"}}}}"#)
    }

    fn lines(lines: &[String]) -> String {
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    /// The start lines of the abandoned turns.
    fn abandoned(state: &super::State) -> Vec<u64> {
        state.abandoned_turns.iter().map(|t| t.line).collect()
    }

    // UUIDv7 ids as Codex makes them: the parent thread, its turn, the fork made after that
    // turn started, and the fork's own turns.
    const PARENT: &str = "019f4efb-ae76-7e30-b44e-3fa464c16193";
    const PARENT_TURN: &str = "019f4efc-d953-72a2-9d0b-c2ba8afdfec6";
    const CHILD: &str = "019f4efd-0137-7790-9622-c175e1415048";
    const CHILD_TURN: &str = "019f4efd-28c2-7b90-b56e-c9a325f3739e";
    const CHILD_TURN_2: &str = "019f4efe-0000-7b90-b56e-c9a325f3739e";

    /// Issue 22, from a real 0.144 subagent fork: the child copies its parent's history with the
    /// parent's turn still open (the parent spawned it mid-turn). That turn goes on in the
    /// parent; the child's own turn does not abandon it.
    #[test]
    fn a_fork_child_does_not_abandon_the_open_turn_it_copied_from_its_parent() {
        let copied = [
            meta(CHILD),
            meta(PARENT),
            event("task_started", PARENT_TURN),
            user("audit the timers"),
            event("task_started", CHILD_TURN),
            event("task_complete", CHILD_TURN),
        ];
        let state = state_of(&lines(&copied));
        assert_eq!(abandoned(&state), Vec::<u64>::new());
        assert_eq!((state.completed_turns, state.incomplete_turn), (1, None));

        // A turn of the child's own that a later start replaces is still abandoned.
        let mut own = copied[..5].to_vec();
        own.push(event("task_started", CHILD_TURN_2));
        assert_eq!(abandoned(&state_of(&lines(&own))), [5]);

        // Without a copied parent (one thread, its own session_meta again, as VS Code writes
        // it), an older turn id is no evidence: the turn is abandoned as before.
        let reopened = [
            meta(CHILD),
            event("task_started", PARENT_TURN),
            meta(CHILD),
            event("task_started", CHILD_TURN),
        ];
        assert_eq!(abandoned(&state_of(&lines(&reopened))), [2]);
    }

    /// Issue 22: Codex 0.144 could roll back a turn that was still running and write no
    /// `turn_aborted`; the next turn's start then found it open. It was rolled back.
    #[test]
    fn a_rollback_of_a_running_turn_is_a_rolled_back_turn_not_an_abandoned_one() {
        let text = lines(&[
            meta(CHILD),
            event("task_started", CHILD_TURN),
            user("rename the module"),
            rollback(1),
            event("task_started", CHILD_TURN_2),
            user("only list the modules"),
            event("task_complete", CHILD_TURN_2),
        ]);
        let state = state_of(&text);
        assert_eq!(abandoned(&state), Vec::<u64>::new());
        let rolled: Vec<_> = state
            .rolled_back_turns
            .iter()
            .map(|t| (t.turn_id.as_deref(), t.line, t.rolled_back_at))
            .collect();
        assert_eq!(rolled, [(Some(CHILD_TURN), 2, Some(4))]);
        assert_eq!(texts_of(&text), ["only list the modules"]);

        // Closed after the rollback, it is an ordinary turn; still open at the end, it is the
        // incomplete turn (SPEC §5), as before.
        let closed = lines(&[
            meta(CHILD),
            event("task_started", CHILD_TURN),
            user("rename the module"),
            rollback(1),
            event("task_complete", CHILD_TURN),
            event("task_started", CHILD_TURN_2),
        ]);
        let state = state_of(&closed);
        assert_eq!(
            (state.rolled_back_turns.len(), state.completed_turns),
            (0, 1)
        );
        let open = lines(&[meta(CHILD), event("task_started", CHILD_TURN), rollback(1)]);
        let state = state_of(&open);
        assert!(state.rolled_back_turns.is_empty());
        assert_eq!(state.incomplete_turn.map(|t| t.line), Some(2));
    }

    /// The history's message texts, from the whole text of a rollout.
    fn texts_of(text: &str) -> Vec<String> {
        let lines: Vec<String> = text.lines().skip(1).map(String::from).collect();
        texts(&lines)
    }

    fn call(name: &str, arguments: &str, id: &str) -> String {
        let arguments = serde_json::to_string(arguments).unwrap();
        let name = serde_json::to_string(name).unwrap();
        format!(
            r#"{{"type":"response_item","payload":{{"type":"function_call","name":{name},"arguments":{arguments},"call_id":"{id}"}}}}"#
        )
    }

    /// (line, name, whether the arguments do not parse, whether the name has controls) of
    /// every fault found.
    fn faults(lines: &[String]) -> Vec<(u64, String, bool, bool)> {
        let State::Codex(state) = replayed(lines).state else {
            panic!("not read as Codex");
        };
        state
            .tool_faults
            .iter()
            .map(|(_, f)| {
                let bad = f.arguments.is_some();
                (f.line, f.name.to_string(), bad, f.control_in_name)
            })
            .collect()
    }

    /// Issue 22: arguments a crash cut mid-string, which the model API refuses on resend, and
    /// tool names with control characters, are found with their line.
    #[test]
    fn calls_the_api_may_refuse_are_found_with_their_line() {
        let cut = call("exec_command", r#"{"cmd":"tail -n 50 /var/lo"#, "c1");
        let named = call("exec\u{1b}[2J", "{}", "c2");
        let fine = call("exec_command", r#" {"cmd":"ls"}"#, "c3");
        let plain = call("shell", "ls -la", "c4");
        let lines = [user("go"), cut.clone(), named, fine, plain];
        assert_eq!(
            faults(&lines),
            [
                (3, "exec_command".to_owned(), true, false),
                (4, "exec\u{1b}[2J".to_owned(), false, true)
            ]
        );
        // Inside a replacement history: the compacted line.
        let replaced = format!(
            r#"{{"type":"compacted","payload":{{"message":"","replacement_history":[{}]}}}}"#,
            &cut[cut.find(r#"{"type":"function_call""#).unwrap()..cut.len() - 1]
        );
        assert_eq!(
            faults(&[replaced])[..],
            [(2, "exec_command".to_owned(), true, false)]
        );
    }

    /// Only what is sent again counts: a call a rollback took out of the history is not.
    #[test]
    fn a_call_no_longer_in_the_history_is_not_reported() {
        let cut = call("exec_command", r#"{"cmd":"tail"#, "c1");
        assert_eq!(faults(&[user("go"), cut.clone(), rollback(1)]), []);
        assert_eq!(faults(&[user("go"), cut, rollback(1), user("again")]), []);
    }

    /// Regression (issue "quadratic legacy compactions"): each compaction walked the whole
    /// history, so many of them after many user messages took time in the square of the log.
    #[test]
    fn legacy_compactions_cost_what_came_since_the_last_one() {
        let n = 4000;
        // Many messages, then a compaction after each new one.
        let mut lines: Vec<String> = (0..n).map(|i| user(&format!("q{i}"))).collect();
        for i in 0..n {
            lines.push(user(&format!("again {i}")));
            lines.push(COMPACTED.into());
        }
        let (work, _) = compaction_work(&lines);
        assert!(work <= 4 * n as u64, "{work}");

        // Empty messages (they cost no tokens, so all of them stay), then compactions each
        // undone by a rollback: the rollback cuts into what the compaction kept.
        let mut lines: Vec<String> = (0..n).map(|_| user("")).collect();
        for _ in 0..n {
            lines.push(COMPACTED.into());
            lines.push(ROLLBACK.into());
        }
        let (work, history) = compaction_work(&lines);
        assert_eq!(history, n);
        assert!(work <= 4 * n as u64, "{work}");
    }
}
