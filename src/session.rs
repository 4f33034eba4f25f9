//! A loaded session: its sources, what loading found, and the agent's resume state. Loading opens
//! the input, tells its dialect from its first records, and runs the shared pipeline with that
//! dialect's classifier and fold.

use std::io::{self, Read};
use std::path::Path;

use crate::codex;
use crate::exit::Failure;
use crate::findings::Findings;
use crate::json::{self, Parser};
use crate::pipeline;
use crate::source::{self, Opened, Source, Tee};

/// Which agent wrote a file, told from its first records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// The Codex CLI's envelope records (and the mini teaching dialect, which may mix in).
    Codex,
    /// A Codex rollout of 2025 from before the envelope.
    Codex2025,
}

/// The agent's part of a session.
#[derive(Debug)]
pub(crate) enum State {
    Codex(codex::State),
}

#[derive(Debug)]
pub(crate) struct Session {
    /// How messages name the input.
    pub name: String,
    /// The input first; a lineage's parents after it.
    pub sources: Vec<Source>,
    pub findings: Findings,
    pub state: State,
}

/// How loading runs, decided once from the command line.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    pub threads: bool,
    pub max_line: usize,
}

/// Why an input cannot be used at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unusable {
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

/// Where a session is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Stdin,
    Path(std::path::PathBuf),
}

impl Input {
    /// How messages name the input.
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".into(),
            Input::Path(path) => path.display().to_string(),
        }
    }
}

/// Opens `input` read-only and replays it.
pub(crate) fn load(
    input: &Input,
    load: Load,
    progress: &mut dyn FnMut(u64),
) -> Result<Session, Failure> {
    let name = input.name();
    let opened = match input {
        Input::Stdin => Source::stdin(),
        Input::Path(path) => open(path, &name)?,
    };
    replay(name, opened, load, progress)
}

/// Replays bytes held in memory.
pub(crate) fn load_bytes(name: &str, bytes: Vec<u8>, load: Load) -> Result<Session, Failure> {
    let opened = Source::stream(Box::new(io::Cursor::new(bytes)));
    replay(name.to_string(), opened, load, &mut |_| {})
}

fn replay(
    name: String,
    opened: Opened,
    load: Load,
    progress: &mut dyn FnMut(u64),
) -> Result<Session, Failure> {
    let Opened {
        source,
        reader,
        bounded,
    } = opened;
    let mut findings = Findings::new();
    let sources = vec![source];
    let state = {
        let mut tee = Tee {
            reader,
            source: &sources[0],
        };
        let unreadable = |e: io::Error| Failure::unusable(&name, read_problem(&e));
        let (dialect, peeked) = sniff(&mut tee).map_err(unreadable)?;
        let reader = io::Cursor::new(peeked).chain(tee);
        let mut options = pipeline::Options {
            threads: load.threads,
            max_line: load.max_line,
            progress,
        };
        match dialect {
            Dialect::Codex | Dialect::Codex2025 => {
                let classifier = codex::record::Classifier {
                    pre_envelope: dialect == Dialect::Codex2025,
                };
                let mut fold = codex::fold::Fold::new(&sources, 0);
                pipeline::run(
                    reader,
                    bounded,
                    &classifier,
                    &mut fold,
                    &mut findings,
                    &mut options,
                )
                .map_err(unreadable)?;
                State::Codex(fold.state)
            }
        }
    };
    if findings.records == 0 && findings.parse_errors == 0 {
        return Err(Failure::unusable(&name, Unusable::Empty));
    }
    match &state {
        State::Codex(codex) if codex.thread_id.is_none() => {
            return Err(Failure::unusable(&name, Unusable::NoSessionMeta));
        }
        State::Codex(_) => {}
    }
    Ok(Session {
        name,
        sources,
        findings,
        state,
    })
}

fn open(path: &Path, name: &str) -> Result<Opened, Failure> {
    Source::open(path, None).map_err(|e| match e {
        source::OpenError::EmptyName => Failure::unusable("\"\"", e),
        e => Failure::unusable(name, e),
    })
}

/// What a failed read says.
fn read_problem(e: &io::Error) -> String {
    format!("cannot read: {}", source::io_reason(e))
}

/// How far the dialect is looked for: lines, and bytes.
const SNIFF_LINES: usize = 64;
const SNIFF_BYTES: usize = 1 << 20;

/// Reads the first lines of the input to tell its dialect; returns it with the bytes read.
fn sniff(reader: &mut impl Read) -> io::Result<(Dialect, Vec<u8>)> {
    let mut peeked = Vec::new();
    let mut buf = [0; 64 << 10];
    let mut scanned = 0;
    let mut lines = 0;
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
            if let Some(dialect) = tell(line, lines == 1) {
                return Ok((dialect, peeked));
            }
        }
        if done {
            let dialect = tell(&peeked[scanned..], lines == 0).unwrap_or(Dialect::Codex);
            return Ok((dialect, peeked));
        }
        if lines >= SNIFF_LINES || peeked.len() >= SNIFF_BYTES {
            return Ok((Dialect::Codex, peeked));
        }
    }
}

/// The dialect a line shows, if it shows one.
fn tell(line: &[u8], first: bool) -> Option<Dialect> {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let text = std::str::from_utf8(line).ok()?;
    let mut p = Parser::new(text.trim());
    if p.peek() != Some(b'{') {
        return None;
    }
    let (mut kind, mut payload, mut id, mut record_type) = (false, false, false, false);
    p.object(|p, key| {
        match &*codex::item::key_name(key) {
            "type" => kind = json::decode_str(&p.text()[p.value()?]).is_some(),
            "payload" => payload = true,
            "id" => id = true,
            "record_type" => record_type = true,
            _ => return Ok(false),
        }
        if matches!(
            &*codex::item::key_name(key),
            "payload" | "id" | "record_type"
        ) {
            return Ok(false);
        }
        Ok(true)
    })
    .ok()?;
    if payload || (kind && !record_type) {
        return Some(Dialect::Codex);
    }
    if record_type || (first && id && !kind) {
        return Some(Dialect::Codex2025);
    }
    None
}
