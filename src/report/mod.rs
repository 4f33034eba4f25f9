//! The report: what replay found and what the prompt view would repair, as one value that both
//! the human and the JSON renderers print (its fields are the JSON schema in docs/report.md).

pub(crate) mod advice;

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};

use crate::codex;
use crate::findings::{Findings, LineError};
use crate::json;
use crate::session::{AnyView, Session, State};

/// What reading the lines found, the same for every dialect.
#[derive(Debug, Serialize)]
pub(crate) struct Loading<'a> {
    /// The input's size in bytes and, with `--sha256`, its SHA-256 (lowercase hex), as read:
    /// what the report is of, to tie it to the exact bytes.
    pub size: Option<u64>,
    pub sha256: Option<String>,
    pub lines: u64,
    pub blank_lines: u64,
    pub records: u64,
    pub parse_errors: u64,
    pub error_lines: ErrorLines<'a>,
    /// The first errors with their reasons (see `findings::MAX_REASONS`).
    pub errors: Errors<'a>,
    pub torn_tail: bool,
    pub unknown_records: u64,
    pub unknown_record_kinds: &'a BTreeMap<Box<str>, u64>,
}

impl<'a> Loading<'a> {
    fn of(f: &'a Findings) -> Loading<'a> {
        Loading {
            size: f.digest.map(|(size, _)| size),
            sha256: f
                .digest
                .and_then(|(_, hash)| hash)
                .map(|hash| hash.iter().map(|b| format!("{b:02x}")).collect()),
            lines: f.lines,
            blank_lines: f.blank_lines,
            records: f.records,
            parse_errors: f.parse_errors,
            error_lines: ErrorLines(f),
            errors: Errors(&f.errors),
            torn_tail: f.torn_tail,
            unknown_records: f.unknown_records.total,
            unknown_record_kinds: &f.unknown_records.by_name,
        }
    }
}

#[derive(Debug, Serialize)]
pub(crate) struct Report<'a> {
    pub file: &'a str,
    /// Codex's thread id (null without a session_meta), or the Claude Code session id.
    pub thread_id: Option<&'a str>,
    pub cwd: Option<&'a str>,
    pub started: Option<&'a str>,
    pub dialect: &'static str,
    /// Whether the agent resumes the session at all (SPEC §11), and why not.
    pub resumable: bool,
    pub not_resumable: Option<String>,
    #[serde(flatten)]
    pub loading: Loading<'a>,
    #[serde(flatten)]
    pub codex_records: Option<CodexRecords<'a>>,
    pub history_items: u64,
    pub incomplete_turn: Option<TurnRef<'a>>,
    pub incomplete_turn_id: Option<std::borrow::Cow<'a, str>>,
    #[serde(flatten)]
    pub codex_turns: Option<CodexTurns<'a>>,
    #[serde(flatten)]
    pub claude: Option<ClaudeKeys>,
    /// Calls of the history the model API may refuse when they are sent again.
    pub tool_call_faults: Vec<ToolFaultRef>,
    pub repairs: Repairs,
    /// Every problem above with its code and next step (docs/codes.md).
    pub problems: Vec<crate::report::advice::Problem>,
}

/// What the chain of a Claude Code session is made of (SPEC §10).
#[derive(Debug, Serialize)]
pub(crate) struct ClaudeKeys {
    /// The leaf resume continues from, or null for a session with no entry with a uuid.
    pub leaf: Option<LeafRef>,
    /// Every other leaf: branches resume does not take.
    pub other_leaves: Vec<LeafRef>,
    pub dangling_parents: Vec<BreakRef>,
    pub cycles: Vec<BreakRef>,
    pub compactions: u64,
    pub duplicate_uuids: u64,
    /// The first of them.
    pub duplicates: Vec<String>,
    pub sidechain_entries: u64,
    /// Every entry is a sidechain entry: a subagent's transcript.
    pub subagent: bool,
    /// The first entry, when it names a parent that is not in the file (off the chain or on
    /// it): the chain starts there.
    pub dangling_first_parent: Option<BreakRef>,
    /// Entries no leaf leads to (their parents loop with no leaf below), and the first of them.
    pub unreachable_entries: u64,
    pub unreachable: Vec<String>,
    /// A forked subagent's inherited history: the `fork-context-ref`'s parent session and entry,
    /// how many of the history's entries come from there, and what is missing when it is.
    pub fork: Option<ForkKeys>,
    /// Every file read: a forked subagent's parent session first, the file itself last.
    pub files_read: Vec<String>,
    /// The remote session a `teleported-from` entry names (a stub's only content).
    pub teleported_from: Option<String>,
}

/// A forked subagent's `fork-context-ref`, as followed.
#[derive(Debug, Serialize)]
pub(crate) struct ForkKeys {
    pub parent_session: String,
    pub parent_last_uuid: String,
    pub inherited_entries: u64,
    /// `"session"` (no file of the parent session) or `"entry"` (no such entry in it), else null.
    pub missing: Option<&'static str>,
}

#[derive(Debug, Serialize)]
pub(crate) struct LeafRef {
    pub uuid: String,
    pub line: u64,
    pub timestamp: Option<String>,
    pub chain_length: u64,
}

/// Where a walk back stopped: the entry, and the parent it names.
#[derive(Debug, Serialize)]
pub(crate) struct BreakRef {
    pub uuid: String,
    pub parent: String,
    pub line: u64,
}

/// Codex's counts of records beside the history.
#[derive(Debug, Serialize)]
pub(crate) struct CodexRecords<'a> {
    pub unknown_events: u64,
    pub unknown_event_types: &'a BTreeMap<Box<str>, u64>,
    pub session_metas: u64,
    /// No valid session_meta: Codex cannot resume the file (SPEC §5).
    pub no_session_meta: bool,
    /// The first session_meta says `history_mode: "paginated"`.
    pub paginated: bool,
    /// What makes resuming this rollout differ from its log, besides parse errors and the open
    /// turn: ordinal faults, records over 16 MiB, a lineage that breaks, a 2025 file.
    pub findings: Vec<FindingRef>,
    /// Every file read, parent rollouts first (the rollout itself last).
    pub files_read: Vec<String>,
    /// Other files of the same thread, which `codex resume` does not take.
    pub superseded_files: Vec<String>,
}

/// One finding about a Codex rollout.
#[derive(Debug, Serialize)]
pub(crate) struct FindingRef {
    pub kind: &'static str,
    pub line: Option<u64>,
    pub message: String,
}

impl FindingRef {
    /// Whether it makes `--strict` fail (SPEC §7: ordinal faults and a missing parent do; a
    /// large record or a 2025 file does not).
    fn strict(&self) -> bool {
        matches!(
            self.kind,
            "duplicate_ordinal"
                | "regressed_ordinal"
                | "final_without_ordinal"
                | "missing_parent"
                | "lineage_cycle"
                | "unreadable_history_base"
        )
    }
}

/// The findings of a Codex rollout, in order.
fn codex_findings(state: &codex::State) -> Vec<FindingRef> {
    use codex::fold::Fault;
    use codex::lineage::Broken;
    let mut out = Vec::new();
    if state.spellings.codex_2025 {
        out.push(FindingRef {
            kind: "pre_envelope",
            line: None,
            message:
                "a 2025 rollout from before the record envelope: current Codex cannot resume it"
                    .into(),
        });
    }
    match &state.broken {
        Some(Broken::Missing(id)) => out.push(FindingRef {
            kind: "missing_parent",
            line: None,
            message: format!("history incomplete: parent rollout {id} not found"),
        }),
        Some(Broken::Cycle(id)) => out.push(FindingRef {
            kind: "lineage_cycle",
            line: None,
            message: format!("history incomplete: rollout {id} is its own ancestor (a cycle)"),
        }),
        Some(Broken::Unreadable(why)) => out.push(FindingRef {
            kind: "unreadable_history_base",
            line: None,
            message: format!("history incomplete: {why}, so the parent rollout is not known"),
        }),
        None => {}
    }
    for fault in &state.faults {
        out.push(match *fault {
            Fault::DuplicateOrdinal { line, ordinal } => FindingRef {
                kind: "duplicate_ordinal",
                line: Some(line),
                message: format!("ordinal {ordinal} again: Codex's history index refuses it"),
            },
            Fault::RegressedOrdinal { line, ordinal, previous } => FindingRef {
                kind: "regressed_ordinal",
                line: Some(line),
                message: format!("ordinal {ordinal} after {previous}: Codex's history index refuses it"),
            },
            Fault::FinalWithoutOrdinal { line } => FindingRef {
                kind: "final_without_ordinal",
                line: Some(line),
                message: "final paginated rollout record is missing an ordinal: Codex refuses to resume it".into(),
            },
            Fault::Oversize { line, bytes } => FindingRef {
                kind: "oversize_record",
                line: Some(line),
                message: format!("record of {bytes} bytes, over 16 MiB: Codex's migration drops it"),
            },
        });
    }
    out
}

/// A call of the history the model API may refuse when it is sent again: arguments that start
/// like JSON but do not parse, or a name with control characters.
#[derive(Debug, Serialize)]
pub(crate) struct ToolFaultRef {
    /// The file it was read from: the input, or a parent rollout of a fork.
    pub file: String,
    pub line: u64,
    /// `function_call`, `custom_tool_call` or `tool_use`.
    pub call: &'static str,
    pub tool: String,
    /// The member holding the arguments: `arguments` or `input`.
    pub member: &'static str,
    /// Why they do not parse, when they start like JSON and do not.
    pub arguments_error: Option<String>,
    pub control_characters_in_name: bool,
}

impl ToolFaultRef {
    fn of(file: String, fault: &crate::toolcall::ToolFault) -> ToolFaultRef {
        ToolFaultRef {
            file,
            line: fault.line,
            call: fault.call,
            tool: fault.name.to_string(),
            member: fault.member,
            arguments_error: fault.arguments.map(|u| {
                if u.cut_short() {
                    format!("{}: cut short after {} bytes", u.what, u.len)
                } else {
                    format!("{} at byte {} of {}", u.what, u.at + 1, u.len)
                }
            }),
            control_characters_in_name: fault.control_in_name,
        }
    }
}

/// A turn a rollback came over while it was still open.
#[derive(Debug, Serialize)]
pub(crate) struct RolledBackTurnRef<'a> {
    pub turn_id: Option<std::borrow::Cow<'a, str>>,
    pub line: u64,
    /// The line of the `thread_rolled_back` event.
    pub rollback_line: u64,
}

/// Codex's turns and history reshaping.
#[derive(Debug, Serialize)]
pub(crate) struct CodexTurns<'a> {
    pub abandoned_turns: Vec<TurnRef<'a>>,
    /// Turns a rollback took out while they were running, which no end event closed: not
    /// abandoned.
    pub rolled_back_turns: Vec<RolledBackTurnRef<'a>>,
    pub completed_turns: u64,
    pub aborted_turns: u64,
    pub compactions: u64,
    pub rollbacks: u64,
}

/// Error line numbers, serialized from their runs.
#[derive(Debug)]
pub(crate) struct ErrorLines<'a>(pub &'a Findings);

impl Serialize for ErrorLines<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.error_lines())
    }
}

/// Errors with their reasons as text.
#[derive(Debug)]
pub(crate) struct Errors<'a>(pub &'a [LineError]);

impl Serialize for Errors<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Entry {
            line: u64,
            reason: String,
        }
        s.collect_seq(self.0.iter().map(|e| Entry {
            line: e.line,
            reason: e.reason.to_string(),
        }))
    }
}

#[derive(Debug, Serialize)]
pub(crate) struct TurnRef<'a> {
    pub turn_id: Option<std::borrow::Cow<'a, str>>,
    pub line: u64,
}

impl<'a> From<&'a codex::fold::Turn> for TurnRef<'a> {
    fn from(turn: &'a codex::fold::Turn) -> Self {
        TurnRef {
            turn_id: turn.turn_id.as_deref().map(std::borrow::Cow::Borrowed),
            line: turn.line,
        }
    }
}

/// What the prompt view (default settings) changes.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Repairs {
    /// Ids of calls given a synthetic output, in history order.
    pub missing_outputs: Vec<IdRef>,
    /// Ids of orphan outputs removed, in history order (strings, or the JSON value of an id that
    /// is not one).
    pub orphan_outputs: Vec<IdRef>,
    #[serde(flatten)]
    pub media: Option<MediaRepairs>,
}

/// What a Codex view does to media and long outputs.
#[derive(Debug, Default, Serialize)]
pub(crate) struct MediaRepairs {
    pub images_replaced: u64,
    pub audio_replaced: u64,
    /// Tool outputs resume preparation cuts (R1, `tokens:10000`).
    pub outputs_truncated: u64,
    /// Media parts resume preparation replaces or rewrites (R2).
    pub media_prepared: u64,
    /// Images kept that Codex resizes on resume (rollcall reads only their headers).
    pub images_codex_would_resize: u64,
    /// Items of a type Codex does not know, which it does not send: their type and line.
    pub dropped_items: Vec<DroppedItem>,
}

/// An item the view leaves out because Codex does not know its type.
#[derive(Debug, Default, Serialize)]
pub(crate) struct DroppedItem {
    #[serde(rename = "type")]
    pub kind: String,
    pub line: u64,
}

/// A call id as the report shows it: a string, or the JSON value it was.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum IdRef {
    Str(String),
    Value(serde_json::Value),
}

impl Serialize for IdRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            IdRef::Str(id) => s.serialize_str(id),
            IdRef::Value(value) => value.serialize(s),
        }
    }
}

impl IdRef {
    fn of(id: codex::calls::CallId<'_>) -> IdRef {
        match id {
            codex::calls::CallId::Other(raw) => IdRef::Value(json_value(raw)),
            id => IdRef::Str(id.text()),
        }
    }

    /// How the human report shows it.
    pub fn text(&self) -> String {
        match self {
            IdRef::Str(id) => id.clone(),
            IdRef::Value(value) => value.to_string(),
        }
    }
}

/// A JSON value from the log, as a value every strict parser takes: lone surrogates read as
/// U+FFFD. One nested too deep for serde_json is shown as its text, a string.
fn json_value(raw: &[u8]) -> serde_json::Value {
    let text = String::from_utf8_lossy(raw);
    let text = json::lone_surrogates_replaced(&text);
    serde_json::from_str(&text).unwrap_or_else(|_| serde_json::Value::String(text.into_owned()))
}

/// What the default prompt view changes in a Codex history, counted from item headers (an item
/// with too many media parts for its header is read again).
fn codex_repairs(
    session: &Session,
    state: &codex::State,
    view: &codex::view::View<'_>,
) -> std::io::Result<Repairs> {
    use codex::view::Step;
    let mut repairs = Repairs::default();
    let mut media = MediaRepairs::default();
    for step in view.steps() {
        let item = match step {
            Step::Insert(i, _) => {
                let id = state.calls.get(state.history[i].call());
                repairs.missing_outputs.push(IdRef::of(id));
                continue;
            }
            Step::Remove(i) => {
                let id = state.calls.get(state.history[i].call());
                repairs.orphan_outputs.push(IdRef::of(id));
                continue;
            }
            Step::Drop(i) => {
                let item = state.history[i];
                let mut reader = crate::source::SpanReader::exact(&session.sources);
                let mut text = Vec::new();
                view.item_text(item, &mut reader, &mut text)?;
                let text = String::from_utf8_lossy(&text);
                let fields = codex::item::Fields::of(&text, &[]);
                let kind = json::string_at(&text, &fields.kind).unwrap_or_default();
                media.dropped_items.push(DroppedItem {
                    kind: kind.into_owned(),
                    // The fold keeps the line of a dropped item in its `aux`.
                    line: u64::from(item.aux),
                });
                continue;
            }
            Step::Item(i) => state.history[i],
        };
        let mut counts = item.prep;
        if counts.saturated() {
            let mut reader = crate::source::SpanReader::exact(&session.sources);
            let mut text = Vec::new();
            view.item_text(item, &mut reader, &mut text)?;
            counts = codex::prep::default_counts(&item, &String::from_utf8_lossy(&text), &[]);
        }
        let modalities = view.settings.modalities;
        if !modalities.image {
            media.images_replaced += u64::from(counts.images());
            media.images_replaced += u64::from(item.has(codex::item::Flags::IMAGE_RESULT));
        }
        if !modalities.audio {
            media.audio_replaced += u64::from(counts.audio());
        }
        media.outputs_truncated += u64::from(counts.truncated());
        media.media_prepared += u64::from(counts.prepared());
        media.images_codex_would_resize += u64::from(counts.resize());
    }
    repairs.media = Some(media);
    Ok(repairs)
}

/// `2026-01-02T03:04:05.678Z` from nanoseconds since 1970.
fn time_text(nanos: i64) -> Option<String> {
    if nanos == i64::MIN {
        return None;
    }
    let seconds = nanos.div_euclid(1_000_000_000);
    let millis = nanos.rem_euclid(1_000_000_000) / 1_000_000;
    Some(crate::text::utc_time(seconds, millis))
}

/// The keys and repairs of a Claude Code session.
fn claude_keys(
    file: &str,
    state: &crate::claude::State,
    view: &crate::claude::view::View<'_>,
) -> (ClaudeKeys, Repairs, Option<u32>, u64) {
    let uuid = |node: u32| json::lossy_key(state.uuids.get(state.nodes[node as usize].uuid));
    let leaf = |l: &crate::claude::chain::Leaf| {
        let node = &state.nodes[l.node as usize];
        LeafRef {
            uuid: uuid(l.node),
            line: node.line,
            timestamp: time_text(node.time),
            chain_length: l.chain,
        }
    };
    let (mut dangling, mut cycles) = (Vec::new(), Vec::new());
    for b in &state.breaks {
        let (crate::claude::chain::Break::Dangling { node }
        | crate::claude::chain::Break::Cycle { node }) = *b;
        let n = &state.nodes[node as usize];
        let r = BreakRef {
            uuid: uuid(node),
            parent: json::lossy_key(state.uuids.get(n.parent)),
            line: n.line,
        };
        match b {
            crate::claude::chain::Break::Dangling { .. } => dangling.push(r),
            crate::claude::chain::Break::Cycle { .. } => cycles.push(r),
        }
    }
    let keys = ClaudeKeys {
        leaf: state.leaf.as_ref().map(leaf),
        other_leaves: state.other_leaves.iter().map(leaf).collect(),
        dangling_parents: dangling,
        cycles,
        compactions: state.compactions,
        duplicate_uuids: state.duplicates,
        duplicates: state
            .duplicate_uuids
            .iter()
            .map(|&u| json::lossy_key(state.uuids.get(u)))
            .collect(),
        sidechain_entries: state.sidechain_entries,
        subagent: state.subagent,
        dangling_first_parent: state
            .dangling_first
            .then(|| state.nodes.first())
            .flatten()
            .map(|n| BreakRef {
                uuid: json::lossy_key(state.uuids.get(n.uuid)),
                parent: json::lossy_key(state.uuids.get(n.parent)),
                line: n.line,
            }),
        unreachable_entries: state.unreachable,
        unreachable: state.unreachable_nodes.iter().map(|&n| uuid(n)).collect(),
        fork: fork_keys(state),
        files_read: state
            .fork_parent
            .iter()
            .map(|p| p.display().to_string())
            .chain(std::iter::once(file.to_owned()))
            .collect(),
        teleported_from: state.teleported_from.as_deref().map(Into::into),
    };
    // A block with no string id is listed as null, as a Codex call id that is no string is
    // listed as the JSON value it was.
    let id = |&id: &u32| {
        if id == crate::claude::chain::NONE {
            IdRef::Value(serde_json::Value::Null)
        } else {
            IdRef::Str(view.id_text(id))
        }
    };
    let repairs = Repairs {
        missing_outputs: view.missing.iter().map(id).collect(),
        orphan_outputs: view.orphans.iter().map(id).collect(),
        media: None,
    };
    (keys, repairs, view.incomplete, state.history.len() as u64)
}

/// The faults of `tool_use` blocks on the chain resume sends (not those of other branches).
fn claude_tool_faults(session: &Session, state: &crate::claude::State) -> Vec<ToolFaultRef> {
    if state.tool_faults.is_empty() {
        return Vec::new();
    }
    let sent: std::collections::HashSet<u64> = state
        .history
        .iter()
        .map(|&node| state.nodes[node as usize].line)
        .collect();
    state
        .tool_faults
        .iter()
        .filter(|f| sent.contains(&f.line))
        .map(|f| ToolFaultRef::of(session.name.clone(), f))
        .collect()
}

/// The `fork-context-ref` the history follows, as followed.
fn fork_keys(state: &crate::claude::State) -> Option<ForkKeys> {
    let fork = state.fork.as_ref()?;
    Some(ForkKeys {
        parent_session: fork.parent_session.to_string(),
        parent_last_uuid: fork.parent_last.to_string(),
        inherited_entries: state.inherited,
        missing: state.fork_broken.map(|b| b.name()),
    })
}

impl<'a> Report<'a> {
    /// The report of `session`, whose repairs are those of `view`.
    pub fn new(session: &'a Session, view: &AnyView<'_>) -> std::io::Result<Report<'a>> {
        let f = &session.findings;
        let (state, view) = match (&session.state, view) {
            (State::Codex(state), AnyView::Codex(view)) => (state, view),
            (State::Claude(state), AnyView::Claude(view)) => {
                return Ok(Report::claude(session, state, view));
            }
            _ => return Err(std::io::Error::other("the view is not of this session")),
        };
        let repairs = codex_repairs(session, state, view)?;
        Ok(Report {
            file: &session.name,
            thread_id: state.thread_id.as_deref(),
            cwd: state.cwd.as_deref(),
            started: state.started.as_deref(),
            dialect: state.spellings.name(),
            resumable: state.not_resumable(f).is_none(),
            not_resumable: state.not_resumable(f),
            loading: Loading::of(f),
            codex_records: Some(CodexRecords {
                unknown_events: state.unknown_events.total,
                unknown_event_types: &state.unknown_events.by_name,
                session_metas: state.session_metas,
                no_session_meta: state.thread_id.is_none(),
                paginated: state.paginated,
                findings: codex_findings(state),
                files_read: state
                    .parents
                    .iter()
                    .map(|p| p.display().to_string())
                    .chain(std::iter::once(session.name.clone()))
                    .collect(),
                superseded_files: session
                    .superseded
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect(),
            }),
            history_items: state.history.len() as u64,
            incomplete_turn: state.incomplete_turn.as_ref().map(TurnRef::from),
            incomplete_turn_id: state
                .incomplete_turn
                .as_ref()
                .and_then(|t| t.turn_id.as_deref())
                .map(std::borrow::Cow::Borrowed),
            claude: None,
            tool_call_faults: state
                .tool_faults
                .iter()
                .map(|(src, fault)| {
                    let file = match src.checked_sub(1) {
                        Some(parent) => state.parents[parent].display().to_string(),
                        None => session.name.clone(),
                    };
                    ToolFaultRef::of(file, fault)
                })
                .collect(),
            codex_turns: Some(CodexTurns {
                abandoned_turns: state.abandoned_turns.iter().map(TurnRef::from).collect(),
                rolled_back_turns: state
                    .rolled_back_turns
                    .iter()
                    .map(|turn| RolledBackTurnRef {
                        turn_id: turn.turn_id.as_deref().map(std::borrow::Cow::Borrowed),
                        line: turn.line,
                        rollback_line: turn.rolled_back_at.unwrap_or(turn.line),
                    })
                    .collect(),
                completed_turns: state.completed_turns,
                aborted_turns: state.aborted_turns,
                compactions: state.compactions,
                rollbacks: state.rollbacks,
            }),
            repairs,
            problems: Vec::new(),
        }
        .advised())
    }

    fn claude(
        session: &'a Session,
        state: &'a crate::claude::State,
        view: &crate::claude::view::View<'_>,
    ) -> Report<'a> {
        let f = &session.findings;
        let (keys, repairs, incomplete, history) = claude_keys(&session.name, state, view);
        let incomplete = incomplete.map(|node| TurnRef {
            turn_id: Some(std::borrow::Cow::Owned(json::lossy_key(
                state.uuids.get(state.nodes[node as usize].uuid),
            ))),
            line: state.nodes[node as usize].line,
        });
        Report {
            file: &session.name,
            thread_id: state.session_id.as_deref(),
            cwd: state.cwd.as_deref(),
            started: state.started.as_ref().map(|(text, _)| &**text),
            dialect: "claude",
            resumable: state.not_resumable().is_none(),
            not_resumable: state.not_resumable(),
            loading: Loading::of(f),
            codex_records: None,
            history_items: history,
            incomplete_turn_id: incomplete.as_ref().and_then(|t| t.turn_id.clone()),
            incomplete_turn: incomplete,
            codex_turns: None,
            claude: Some(keys),
            tool_call_faults: claude_tool_faults(session, state),
            repairs,
            problems: Vec::new(),
        }
        .advised()
    }

    /// The report with its problems listed.
    fn advised(mut self) -> Report<'a> {
        self.problems = crate::report::advice::problems(&self);
        self
    }

    /// Whether `--strict` fails on what was found: anything that makes resuming differ from the
    /// log.
    pub fn fails_strict(&self) -> bool {
        let no_meta = self
            .codex_records
            .as_ref()
            .is_some_and(|c| c.no_session_meta || c.findings.iter().any(FindingRef::strict));
        let broken = self.claude.as_ref().is_some_and(|c| {
            !c.dangling_parents.is_empty()
                || !c.cycles.is_empty()
                || c.fork.as_ref().is_some_and(|f| f.missing.is_some())
        });
        self.loading.parse_errors > 0
            || self.incomplete_turn.is_some()
            || no_meta
            || broken
            || !self.resumable
    }
}

#[cfg(test)]
mod tests {
    use super::time_text;

    #[test]
    fn times_are_written_as_iso_8601() {
        const S: i64 = 1_000_000_000;
        let cases = [
            (0, "1970-01-01T00:00:00.000Z"),
            (S + S / 2, "1970-01-01T00:00:01.500Z"),
            (-S / 1000, "1969-12-31T23:59:59.999Z"),
            (951_782_400 * S, "2000-02-29T00:00:00.000Z"),
            (1_767_323_045 * S + 678_999_999, "2026-01-02T03:04:05.678Z"),
            (i64::MAX, "2262-04-11T23:47:16.854Z"),
            (i64::MIN + 1, "1677-09-21T00:12:43.145Z"),
        ];
        for (nanos, text) in cases {
            assert_eq!(time_text(nanos).as_deref(), Some(text), "{nanos}");
        }
        assert_eq!(time_text(i64::MIN), None);
    }
}
