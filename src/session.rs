//! A loaded session: its sources, what loading found, and the agent's resume state. Loading opens
//! the input, tells its dialect from its first records, and runs the shared pipeline with that
//! dialect's classifier and fold.

use std::io::{self, Read};
use std::path::Path;

use clap::ValueEnum;

use crate::claude;
use crate::codex;
use crate::codex::home::CodexHome;
use crate::exit::Failure;
use crate::findings::Findings;
use crate::homes::Homes;
use crate::json::{self, Parser};
use crate::pipeline;
use crate::source::{self, Input, Opened, Source, Tee};
use crate::view::{Change, Entry, PromptView, Shape};

/// The agents whose sessions rollcall reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Agent {
    /// The OpenAI Codex CLI.
    Codex,
    /// Claude Code.
    Claude,
}

impl Agent {
    pub fn name(self) -> &'static str {
        match self {
            Agent::Codex => "codex",
            Agent::Claude => "claude",
        }
    }
}

/// Which agent wrote a file, told from its first records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// The Codex CLI's envelope records (and the mini teaching dialect, which may mix in).
    Codex,
    /// A Codex rollout of 2025 from before the envelope.
    Codex2025,
    /// A Claude Code transcript.
    Claude,
}

/// The agent's part of a session.
#[derive(Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "a session holds one state, which is never moved in a loop"
)]
pub(crate) enum State {
    Codex(codex::State),
    Claude(claude::State),
}

#[derive(Debug)]
pub(crate) struct Session {
    /// How messages name the input.
    pub name: String,
    /// The input first; a lineage's parents after it.
    pub sources: Vec<Source>,
    /// Other files of the same Codex thread, which `codex resume` does not take.
    pub superseded: Vec<std::path::PathBuf>,
    pub findings: Findings,
    pub state: State,
    /// The Codex home whose `config.toml` names the model Codex resumes with: the one the input
    /// lies in, else `$CODEX_HOME` (or `~/.codex`).
    pub codex_home: Option<std::path::PathBuf>,
}

/// What a prompt view is made for: the model the agent resumes with, what that model takes,
/// and Codex's resume preparation (SPEC §6, §8, §11).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ViewSettings {
    /// `--modalities`; `None` for what the resuming model takes.
    pub modalities: Option<crate::codex::models::Modalities>,
    /// `--truncation` (`Some(None)` for `none`); `None` for the resuming model's policy.
    pub truncation: Option<Option<crate::codex::truncate::Policy>>,
    /// `--no-resume-prep`: without Codex's resume preparation (SPEC §8).
    pub no_resume_prep: bool,
    /// The model the agent resumes with (`--model`); `None` for the agent's own choice.
    pub model: Option<String>,
}

/// The prompt view of a session, of whichever dialect: the one place that builds it, so that the
/// renderers and the report share one view, built once.
pub(crate) enum AnyView<'s> {
    Codex(codex::view::View<'s>),
    Claude(claude::view::View<'s>),
}

impl Session {
    /// The session's prompt view for `settings` (a Claude Code view reads its messages back
    /// once, here).
    pub fn view(&self, settings: &ViewSettings) -> io::Result<AnyView<'_>> {
        Ok(match &self.state {
            State::Codex(state) => {
                let model = codex::models::Model::resolve(
                    settings.model.as_deref(),
                    self.codex_home.as_deref(),
                );
                let settings = codex::view::Settings {
                    modalities: settings.modalities.unwrap_or(model.modalities),
                    prep: codex::prep::Prep {
                        truncation: settings.truncation.unwrap_or(Some(model.truncation)),
                        enabled: !settings.no_resume_prep,
                        original_detail: model.original_detail,
                    },
                    model,
                };
                AnyView::Codex(codex::view::View::new(state, settings))
            }
            State::Claude(state) => {
                AnyView::Claude(claude::view::View::new(state, settings.model.as_deref())?)
            }
        })
    }

    /// Writes the resume state's history, one entry per line, as the log has it.
    pub fn write_history(&self, out: &mut impl io::Write) -> io::Result<()> {
        let mut reader = source::SpanReader::new(&self.sources);
        let mut text = Vec::new();
        match &self.state {
            State::Codex(state) => {
                for &item in &state.history {
                    let bytes =
                        codex::forms::item_bytes(item, &state.owned, &mut reader, &mut text);
                    out.write_all(bytes?)?;
                    out.write_all(b"\n")?;
                }
            }
            State::Claude(state) => {
                for &node in &state.history {
                    let n = &state.nodes[node as usize];
                    let line = reader.read(usize::from(n.src), n.span)?;
                    out.write_all(line)?;
                    out.write_all(b"\n")?;
                }
            }
        }
        Ok(())
    }
}

impl PromptView for AnyView<'_> {
    fn shape(&self) -> Shape {
        match self {
            AnyView::Codex(v) => v.shape(),
            AnyView::Claude(v) => v.shape(),
        }
    }

    fn entries(
        &self,
        reader: &mut source::SpanReader<'_>,
        each: &mut dyn FnMut(Entry<'_>) -> io::Result<()>,
    ) -> io::Result<()> {
        match self {
            AnyView::Codex(v) => v.entries(reader, each),
            AnyView::Claude(v) => v.entries(reader, each),
        }
    }

    fn lines(
        &self,
        reader: &mut source::SpanReader<'_>,
        out: &mut dyn io::Write,
    ) -> io::Result<()> {
        match self {
            AnyView::Codex(v) => v.lines(reader, out),
            AnyView::Claude(v) => v.lines(reader, out),
        }
    }

    fn changes(
        &self,
        reader: &mut source::SpanReader<'_>,
        each: &mut dyn FnMut(Change) -> io::Result<()>,
    ) -> io::Result<String> {
        match self {
            AnyView::Codex(v) => v.changes(reader, each),
            AnyView::Claude(v) => v.changes(reader, each),
        }
    }

    fn describe(&self, entry: &Entry<'_>) -> (String, Option<&'static str>, Vec<String>) {
        match self {
            AnyView::Codex(v) => v.describe(entry),
            AnyView::Claude(v) => v.describe(entry),
        }
    }
}

/// What the report says of the input itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Digest {
    Nothing,
    /// The bytes read.
    Size,
    /// The bytes read and their SHA-256 (`--sha256`): SHA-256 runs at about 2 GB/s on one
    /// core, slower than the rest of the pass, so it is taken only when asked for.
    Sha256,
}

/// How loading runs, decided once from the command line.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    pub threads: bool,
    pub max_line: usize,
    /// Read a Codex fork's parent rollouts first (SPEC §9; `--no-lineage` turns it off).
    pub lineage: bool,
    /// Copy a regular file of up to 16 MiB into memory as it is read, so that what is printed
    /// from it is a true snapshot whatever happens to the file meanwhile. Larger files, and
    /// scan (which prints no item), read the file again instead.
    pub snapshot: bool,
    /// What the report says of the input itself, measured as it is read.
    pub digest: Digest,
    /// A view of the session will be built (the report, `repair-view`, `--strict`, scan,
    /// repair): a Claude Code pass then tells what the view plans from. Only printing the
    /// history needs none of it.
    pub views: bool,
    /// A Claude Code session's entry to resume from instead of the client's leaf (`--leaf`).
    pub leaf: Option<uuid::Uuid>,
}

impl Load {
    /// One file alone, on this thread, lines up to `max_line` bytes: no lineage, no copy, no
    /// digest, the client's own leaf.
    pub fn alone(max_line: usize) -> Load {
        Load {
            threads: false,
            max_line,
            lineage: false,
            snapshot: false,
            digest: Digest::Nothing,
            leaf: None,
            views: true,
        }
    }
}

/// Why an input cannot be used at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unusable {
    Empty,
    /// No record of a kind any dialect knows.
    NotRollout,
    /// Reading stopped at this line, longer than the cap, of an input that may never end.
    Endless(u64, usize),
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unusable::Empty => f.write_str("empty rollout: no record in it"),
            Unusable::NotRollout => f.write_str(
                "not a rollout: no record of a known kind (neither a Codex rollout nor a Claude \
                 Code session)",
            ),
            Unusable::Endless(line, cap) => write!(
                f,
                "line {line} is longer than {cap} bytes (--max-line-bytes) and the input may never \
                 end, so reading stopped there: not a rollout"
            ),
        }
    }
}

impl State {
    /// Whether a record of a kind the dialect knows was read.
    fn has_known_record(&self) -> bool {
        match self {
            State::Codex(state) => state.spellings != Default::default(),
            State::Claude(state) => state.known > 0,
        }
    }
}

/// Opens `input` read-only and replays it; a Codex fork's parent rollouts are looked for in
/// `homes` (and in the home the file lies in).
pub(crate) fn load(
    input: &Input,
    load: Load,
    homes: &Homes,
    progress: &mut dyn FnMut(u64),
) -> Result<Session, Failure> {
    let name = input.name();
    let (opened, path) = match input {
        Input::Stdin => (Source::stdin(), None),
        Input::Path(path) => (
            open(path, &name, None, load.snapshot)?,
            Some(path.as_path()),
        ),
        Input::Latest(_) => {
            return Err(Failure::unusable(
                &name,
                "not looked up: no session to read",
            ));
        }
    };
    replay(name, path, opened, load, homes, progress)
}

/// Replays bytes held in memory.
pub(crate) fn load_bytes(name: &str, bytes: Vec<u8>, load: Load) -> Result<Session, Failure> {
    let opened = Source::stream(Box::new(io::Cursor::new(bytes)));
    replay(
        name.to_string(),
        None,
        opened,
        load,
        &Homes::default(),
        &mut |_| {},
    )
}

fn replay(
    name: String,
    path: Option<&Path>,
    opened: Opened,
    load: Load,
    homes: &Homes,
    progress: &mut dyn FnMut(u64),
) -> Result<Session, Failure> {
    let Opened {
        source,
        mut reader,
        bounded,
    } = opened;
    let unreadable = |e: io::Error| Failure::unusable(&name, read_problem(&e));
    let (dialect, peeked) = sniff(&mut reader, load.max_line).map_err(unreadable)?;
    source.append(&peeked).map_err(unreadable)?;
    let input = Sniffed {
        peeked,
        reader,
        bounded,
    };
    let mut sources = vec![source];
    let mut findings = Findings::new();
    let mut options = pipeline::Options {
        threads: load.threads,
        max_line: load.max_line,
        progress,
    };
    if load.leaf.is_some() && dialect != Dialect::Claude {
        return Err(Failure::unusable(
            &name,
            "--leaf picks a branch of a Claude Code session; this is a Codex rollout",
        ));
    }
    let state = match dialect {
        Dialect::Codex | Dialect::Codex2025 => {
            let (parents, broken) = match path {
                Some(path) if load.lineage => {
                    let mut codex_homes: Vec<CodexHome> = homes.codex.iter().cloned().collect();
                    codex_homes.extend(CodexHome::of_file(path));
                    codex::lineage::parents(path, &input.peeked, &codex_homes)
                }
                _ => (Vec::new(), None),
            };
            // Parents are read root first, each up to its child's cut. A regular file is opened
            // here for its source and again when its turn comes, so that a lineage of any depth
            // holds one reader at a time; between the two it must stay the same file.
            let open_parent = |parent: &codex::lineage::Parent| {
                let name = parent.path.display().to_string();
                let limit = Some(parent.base.end_offset);
                open(&parent.path, &name, limit, load.snapshot)
            };
            let mut readers = Vec::new();
            for parent in parents.iter().rev() {
                let opened = open_parent(parent)?;
                let identity = file_identity(&parent.path);
                // A stream (a FIFO) cannot be opened twice: its reader is kept.
                let reader = identity.is_none().then_some(opened.reader);
                sources.push(opened.source);
                readers.push((reader, identity, opened.bounded, parent.base.end_ordinal));
            }
            let classifier = codex::record::Classifier {
                pre_envelope: dialect == Dialect::Codex2025,
            };
            let mut fold = codex::fold::Fold::new(&sources, 0);
            for (i, (reader, identity, bounded, cut)) in readers.into_iter().enumerate() {
                let src = i + 1;
                let reader = match reader {
                    Some(reader) => reader,
                    None => {
                        let parent = &parents[parents.len() - src];
                        let again = open_parent(parent)?;
                        if file_identity(&parent.path) != identity {
                            return Err(Failure::unusable(
                                &sources_name(&parents, src),
                                "changed while being read (replaced by another file)",
                            ));
                        }
                        again.reader
                    }
                };
                fold.read(src as u16, Some(cut));
                let tee = Tee {
                    reader,
                    source: &sources[src],
                };
                pipeline::run(
                    tee,
                    bounded,
                    &classifier,
                    &mut fold,
                    &mut Findings::new(),
                    &mut options,
                )
                .map_err(|e| Failure::unusable(&sources_name(&parents, src), read_problem(&e)))?;
            }
            fold.read(0, None);
            input
                .run(
                    load.digest,
                    &sources[0],
                    &classifier,
                    &mut fold,
                    &mut findings,
                    &mut options,
                )
                .map_err(unreadable)?;
            let mut state = fold.finish();
            state.parents = parents.iter().rev().map(|p| p.path.clone()).collect();
            state.broken = broken;
            State::Codex(state)
        }
        Dialect::Claude => {
            let leaf = load.leaf.map(|u| u.hyphenated().to_string());
            let mut fold = match &leaf {
                Some(uuid) => claude::chain::Fold::from_leaf(uuid),
                None => claude::chain::Fold::default(),
            };
            input
                .run(
                    load.digest,
                    &sources[0],
                    &claude::entry::Classifier { facts: load.views },
                    &mut fold,
                    &mut findings,
                    &mut options,
                )
                .map_err(unreadable)?;
            let mut state = fold.finish();
            state.told = load.views;
            if let Some(uuid) = leaf.filter(|_| state.chosen_missing) {
                return Err(Failure::unusable(
                    &name,
                    format!(
                        "--leaf {uuid}: no entry of this session has that uuid (`rollcall replay \
                         --report` lists the leaves)"
                    ),
                ));
            }
            // A Claude Code session is named by its file (SPEC §10).
            if let Some(stem) = path.and_then(|p| p.file_stem()) {
                state.session_id = Some(stem.to_string_lossy().into());
            }
            if let Some(path) = path.filter(|_| load.lineage) {
                inherit(path, &mut state, &mut sources, load, homes, &mut options)?;
            }
            State::Claude(state)
        }
    };
    if findings.records == 0 && findings.parse_errors == 0 {
        if let Some(line) = findings.stopped_at {
            return Err(Failure::unusable(
                &name,
                Unusable::Endless(line, load.max_line),
            ));
        }
        return Err(Failure::unusable(&name, Unusable::Empty));
    }
    if !state.has_known_record() {
        if let Some(line) = findings.stopped_at {
            return Err(Failure::unusable(
                &name,
                Unusable::Endless(line, load.max_line),
            ));
        }
        return Err(Failure::unusable(&name, Unusable::NotRollout));
    }
    let codex_home = path
        .and_then(CodexHome::of_file)
        .or_else(|| homes.codex.clone())
        .map(|home| home.dir);
    Ok(Session {
        name,
        sources,
        superseded: Vec::new(),
        findings,
        state,
        codex_home,
    })
}

/// A forked subagent's inherited history (SPEC §11.3.14): the `fork-context-ref` of the agent
/// the file is named for (`agent-<id>.jsonl`; the last one when the name tells no agent) points
/// at an entry of its parent session, whose chain up to that entry comes first, read from the
/// parent's file in the subagent's project folder (else the Claude Code home), as source 1.
/// When the parent or the entry is missing, Claude Code 2.1.328 sends the subagent's own
/// entries alone, and so does the view; the state says what is missing.
fn inherit(
    path: &Path,
    state: &mut claude::State,
    sources: &mut Vec<Source>,
    load: Load,
    homes: &Homes,
    options: &mut pipeline::Options<'_>,
) -> Result<(), Failure> {
    use claude::chain::ForkBroken;
    let agent = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("agent-")?.strip_suffix(".jsonl"));
    let Some(fork) = state
        .fork_refs
        .iter()
        .rev()
        .find(|r| agent.is_none_or(|a| r.agent.as_deref() == Some(a)))
        .cloned()
    else {
        return Ok(());
    };
    state.fork = Some(fork.clone());
    let Some(parent) = claude::home::fork_parent(path, &fork.parent_session, homes.claude.as_ref())
    else {
        state.fork_broken = Some(ForkBroken::Session);
        return Ok(());
    };
    let parent_name = parent.display().to_string();
    let opened = open(&parent, &parent_name, None, load.snapshot)?;
    sources.push(opened.source);
    let mut fold = claude::chain::Fold::to_entry(&fork.parent_last);
    let tee = Tee {
        reader: opened.reader,
        source: &sources[1],
    };
    pipeline::run(
        tee,
        opened.bounded,
        &claude::entry::Classifier { facts: load.views },
        &mut fold,
        &mut Findings::new(),
        options,
    )
    .map_err(|e| Failure::unusable(&parent_name, read_problem(&e)))?;
    let parent_state = fold.finish();
    if parent_state.chosen_missing {
        sources.pop();
        state.fork_broken = Some(ForkBroken::Entry);
        return Ok(());
    }
    state.inherit(&parent_state, 1);
    state.fork_parent = Some(parent);
    Ok(())
}

/// The input itself, once its first bytes were read to tell its dialect.
struct Sniffed {
    peeked: Vec<u8>,
    reader: Box<dyn Read + Send>,
    bounded: bool,
}

impl Sniffed {
    /// The pass over it: the bytes read to sniff, then the rest, copied into its source as they
    /// are read when it is one that copies.
    fn run<C, F>(
        self,
        digest: Digest,
        source: &Source,
        classify: &C,
        fold: &mut F,
        findings: &mut Findings,
        options: &mut pipeline::Options<'_>,
    ) -> io::Result<()>
    where
        C: pipeline::Classify,
        F: pipeline::Fold<Record = C::Record, Side = C::Side>,
    {
        let tee = Tee {
            reader: self.reader,
            source,
        };
        let reader = io::Cursor::new(self.peeked).chain(tee);
        let sha256 = match digest {
            Digest::Nothing => {
                return pipeline::run(reader, self.bounded, classify, fold, findings, options);
            }
            Digest::Size => false,
            Digest::Sha256 => true,
        };
        let mut size = 0;
        let hash = digest::of(reader, &mut size, sha256, options.threads, |reader| {
            pipeline::run(reader, self.bounded, classify, fold, findings, options)
        })?;
        findings.digest = Some((size, hash));
        Ok(())
    }
}

/// Opens a rollout file, decompressing a `.jsonl.zst` as it is read; at most `limit` bytes (of
/// the plain text) when given.
fn open(path: &Path, name: &str, limit: Option<u64>, snapshot: bool) -> Result<Opened, Failure> {
    let fail = |e: source::OpenError| match e {
        source::OpenError::EmptyName => Failure::unusable("\"\"", e),
        e => Failure::unusable(name, e),
    };
    if path.extension().is_some_and(|e| e == "zst") {
        // Opened as a regular file first, for its checks (a directory, a FIFO, a socket).
        Source::open(path, None, false).map_err(fail)?;
        let file = std::fs::File::open(path).map_err(|e| fail(source::OpenError::Io(e)))?;
        let compressed = file.metadata().map_or(0, |m| m.len());
        let pass = file
            .try_clone()
            .map_err(|e| fail(source::OpenError::Io(e)))?;
        let decoder = source::Unzstd::bounded(pass, compressed)
            .map_err(|e| Failure::unusable(name, read_problem(&e)))?;
        let plain: Box<dyn Read + Send> = match limit {
            Some(limit) => Box::new(decoder.take(limit)),
            None => Box::new(decoder),
        };
        return Ok(Source::zstd(file, plain));
    }
    Source::open(path, limit, snapshot).map_err(fail)
}

/// Which regular file `path` names (its device and inode), or `None` for anything else (a
/// stream, or a system without inodes).
fn file_identity(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).ok()?;
        meta.is_file().then(|| (meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// The name of source `src` (a parent rollout) for messages.
fn sources_name(parents: &[codex::lineage::Parent], src: usize) -> String {
    parents
        .iter()
        .rev()
        .nth(src - 1)
        .map_or_else(String::new, |p| p.path.display().to_string())
}

/// What a failed read says.
fn read_problem(e: &io::Error) -> String {
    format!("cannot read: {}", source::io_reason(e))
}

/// How far the dialect is looked for, in lines.
const SNIFF_LINES: usize = 64;

/// Reads the first lines of the input to tell its dialect; returns it with the bytes read.
fn sniff(reader: &mut impl Read, max_line: usize) -> io::Result<(Dialect, Vec<u8>)> {
    let mut peeked = Vec::new();
    let mut buf = [0; 64 << 10];
    let mut scanned = 0;
    let mut lines = 0;
    // Where the line being read is judged next: at 1 MiB, 2 MiB, 4 MiB… of it.
    let mut judge_at = 1 << 20;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        peeked.extend_from_slice(&buf[..n]);
        let done = n == 0;
        while let Some(end) = memchr::memchr(b'\n', &peeked[scanned..]) {
            let line = &peeked[scanned..scanned + end];
            scanned += end + 1;
            lines += 1;
            judge_at = 1 << 20;
            if let Some(dialect) = tell(line, lines == 1) {
                return Ok((dialect, peeked));
            }
        }
        if done {
            let dialect = tell(&peeked[scanned..], lines == 0).unwrap_or(Dialect::Codex);
            return Ok((dialect, peeked));
        }
        // Records are judged whole, however long (a first prompt holding a pasted screenshot,
        // 2025 instructions of several MiB); only a line longer than any record read stops it.
        let long = peeked.len() - scanned;
        if lines >= SNIFF_LINES || long > max_line {
            return Ok((Dialect::Codex, peeked));
        }
        // A line whose first bytes already show it is no record (`/dev/zero`) is not held on.
        if long >= judge_at {
            if crate::chunk::early_verdict(&peeked[scanned..]).is_some() {
                return Ok((Dialect::Codex, peeked));
            }
            judge_at *= 2;
        }
    }
}

/// The dialect a line shows, if it shows one: a Codex record kind or a `payload`; a Claude Code
/// entry type with one of its ids; a 2025 session object or state line.
fn tell(line: &[u8], first: bool) -> Option<Dialect> {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let text = std::str::from_utf8(line).ok()?;
    let mut p = Parser::new(text.trim());
    if p.peek() != Some(b'{') {
        return None;
    }
    let mut kind = None;
    let (mut payload, mut id, mut record_type, mut claude_id) = (false, false, false, false);
    p.object(|p, key| {
        let name = key.name();
        match &*name {
            "type" => kind = json::decode_str(&p.text()[p.value()?]).map(|k| k.into_owned()),
            _ => {
                p.value()?;
                match &*name {
                    "payload" => payload = true,
                    "id" => id = true,
                    "record_type" => record_type = true,
                    // `remoteSessionId`: the one member of a `teleported-from` stub.
                    "uuid" | "parentUuid" | "sessionId" | "leafUuid" | "messageId"
                    | "remoteSessionId" => {
                        claude_id = true;
                    }
                    _ => {}
                }
            }
        }
        Ok(true)
    })
    .ok()?;
    match kind.as_deref() {
        Some(kind) if claude_id && claude::entry::Kind::is_claude_type(kind) => {
            Some(Dialect::Claude)
        }
        Some(kind) if codex::record::is_kind(kind) => Some(Dialect::Codex),
        // A `payload` is Codex's envelope, unless the record is of a kind neither agent knows
        // (the next record decides then).
        None if payload => Some(Dialect::Codex),
        Some(_) => None,
        None if record_type || (first && id) => Some(Dialect::Codex2025),
        None => None,
    }
}

/// The report's size and SHA-256 of the input, taken in the one pass that reads it. Hashing
/// costs 0.5 s a gigabyte: on a thread of its own, it runs beside the parse instead of in front
/// of it.
mod digest {
    use std::io::{self, Read};
    use std::sync::mpsc;

    use sha2::{Digest as _, Sha256};

    /// The most bytes handed to the hashing thread at once, and how many such blocks may wait:
    /// what hashing beside the parse may hold.
    const BLOCK: usize = 1 << 20;
    const WAITING: usize = 4;

    /// Runs `pass` over `reader`, counting the bytes it reads into `size`, and returns their
    /// SHA-256 when `sha256`. With `threads`, the hashing runs on a thread of its own (inline
    /// when none can be started).
    pub(super) fn of<R: Read + Send>(
        reader: R,
        size: &mut u64,
        sha256: bool,
        threads: bool,
        pass: impl FnOnce(Digesting<'_, R>) -> io::Result<()>,
    ) -> io::Result<Option<[u8; 32]>> {
        if !sha256 {
            let to = To::Nowhere;
            pass(Digesting {
                inner: reader,
                size,
                to,
            })?;
            return Ok(None);
        }
        if !threads {
            return inline(reader, size, pass).map(Some);
        }
        let (send, blocks) = mpsc::sync_channel::<Vec<u8>>(WAITING);
        let (give_back, spare) = mpsc::channel();
        std::thread::scope(|scope| {
            let hasher = std::thread::Builder::new().spawn_scoped(scope, move || {
                let mut hash = Sha256::default();
                for block in blocks {
                    hash.update(&block);
                    let _ = give_back.send(block);
                }
                <[u8; 32]>::from(hash.finalize())
            });
            let Ok(hasher) = hasher else {
                return inline(reader, size, pass).map(Some);
            };
            // The pass drops the reader when done, which closes the channel: the hashing thread
            // ends once it has hashed what was sent.
            let to = To::Beside { send, spare };
            let passed = pass(Digesting {
                inner: reader,
                size,
                to,
            });
            let hash = hasher.join();
            passed?;
            hash.map(Some)
                .map_err(|_| io::Error::other("the hashing thread failed"))
        })
    }

    fn inline<R: Read>(
        reader: R,
        size: &mut u64,
        pass: impl FnOnce(Digesting<'_, R>) -> io::Result<()>,
    ) -> io::Result<[u8; 32]> {
        let mut hash = Sha256::default();
        let to = To::Inline(&mut hash);
        pass(Digesting {
            inner: reader,
            size,
            to,
        })?;
        Ok(hash.finalize().into())
    }

    /// A reader that counts what it reads, and has it hashed.
    pub(super) struct Digesting<'s, R> {
        inner: R,
        size: &'s mut u64,
        to: To<'s>,
    }

    enum To<'s> {
        /// Counted only.
        Nowhere,
        Inline(&'s mut Sha256),
        /// To the hashing thread, in blocks of at most [`BLOCK`] bytes, whose buffers come back.
        Beside {
            send: mpsc::SyncSender<Vec<u8>>,
            spare: mpsc::Receiver<Vec<u8>>,
        },
    }

    impl<R: Read> Read for Digesting<'_, R> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.inner.read(buf)?;
            *self.size += n as u64;
            match &mut self.to {
                To::Nowhere => {}
                To::Inline(hash) => hash.update(&buf[..n]),
                To::Beside { send, spare } => {
                    for part in buf[..n].chunks(BLOCK) {
                        let mut block = spare.try_recv().unwrap_or_default();
                        block.clear();
                        block.extend_from_slice(part);
                        if send.send(block).is_err() {
                            return Err(io::Error::other("the hashing thread failed"));
                        }
                    }
                }
            }
            Ok(n)
        }
    }
}
