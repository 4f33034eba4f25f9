//! The scan: every session file under the folders asked for (by default both agents' homes),
//! replayed in parallel into one row of findings each, newest first, each with its one-word
//! health. Codex rollouts are checked against the state database `codex resume` reads; a
//! subagent's transcript is listed under its session.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::codex::home::{self as codex_home, CodexHome, RolloutName};
use crate::exit::Failure;
use crate::home::{self, Stamp};
use crate::homes::Homes;
use crate::report::Report;
use crate::session::{self, Agent, Load, ViewSettings};
use crate::source::Input;

/// What `rollcall scan` looks at and prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Folders or files named on the command line; empty means Codex's own two folders.
    pub dirs: Vec<PathBuf>,
    pub json: bool,
    pub problems: bool,
    pub strict: bool,
    pub agent: Option<Agent>,
}
/// A session file found on disk, before it is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    pub agent: Agent,
    /// Bytes, when the file could be looked at.
    pub size: u64,
    /// The time in its name, else its modification time.
    pub stamp: Option<Stamp>,
    /// It lies in a folder named `archived_sessions`, where Codex moves archived sessions.
    pub archived: bool,
    /// A subagent's transcript, with the session it belongs to when its place tells.
    pub subagent_of: Option<Option<String>>,
    /// What it is when it is no regular file (a link to a FIFO, a device): not read.
    pub not_regular: Option<&'static str>,
}

/// One row of the scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub found: Found,
    /// What replay found, or why the file cannot be used (the reason, without the file name).
    pub outcome: Result<Findings, String>,
    /// A `threads` row of the state database whose rollout file is missing: no file was read.
    pub missing_file: Option<String>,
    /// The state database exists and has no row for this rollout's thread (`Some(false)`:
    /// it has one; `None`: there is no database to ask).
    pub unindexed: Option<bool>,
}

/// What replay found in a usable session file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Findings {
    pub thread_id: Option<Box<str>>,
    pub cwd: Option<Box<str>>,
    pub started: Option<Box<str>>,
    pub parse_errors: u64,
    pub incomplete: bool,
    pub incomplete_turn_id: Option<Box<str>>,
    /// Calls (tool uses) the prompt view gives a synthetic output (result).
    pub missing_outputs: usize,
    /// Outputs (results) the prompt view removes because nothing asked for them.
    pub orphan_outputs: usize,
    pub no_session_meta: bool,
    /// Duplicate, regressed or missing final ordinals, and records over 16 MiB.
    pub ordinal_faults: usize,
    /// A parent rollout is missing or the chain cycles (Codex); a parent entry is missing or
    /// the chain cycles (Claude Code).
    pub broken_lineage: bool,
    /// The codes of the report's problems, each once, in the report's order (docs/codes.md).
    pub codes: Vec<&'static str>,
    /// `replay --strict` on the file would fail.
    pub fails_strict: bool,
    /// For a subagent's transcript: the session id its entries name.
    pub session: Option<Box<str>>,
    /// A Claude Code stub of a session teleported from the web: the remote session it names.
    pub teleported_from: Option<Box<str>>,
}

/// A session's state in one word: the first of these that applies (SPEC §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Health {
    Unusable,
    MissingFile,
    BrokenLineage,
    OrdinalFault,
    Damaged,
    NoMeta,
    Incomplete,
    Unindexed,
    Repairs,
    Ok,
}

impl Health {
    /// From least to most severe, as the summary lists them.
    pub const ALL: [Health; 10] = [
        Health::Ok,
        Health::Repairs,
        Health::Unindexed,
        Health::Incomplete,
        Health::NoMeta,
        Health::Damaged,
        Health::OrdinalFault,
        Health::BrokenLineage,
        Health::MissingFile,
        Health::Unusable,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Health::Unusable => "unusable",
            Health::MissingFile => "missing-file",
            Health::BrokenLineage => "broken-lineage",
            Health::OrdinalFault => "ordinal-fault",
            Health::Damaged => "damaged",
            Health::NoMeta => "no-meta",
            Health::Incomplete => "incomplete",
            Health::Unindexed => "unindexed",
            Health::Repairs => "repairs",
            Health::Ok => "ok",
        }
    }

    /// Its name in the words of `agent`, whose sessions break differently: a Codex fork's
    /// parent rollout makes a lineage, a Claude Code entry's `parentUuid` a chain.
    pub fn name_for(self, agent: Agent) -> &'static str {
        match (self, agent) {
            (Health::BrokenLineage, Agent::Claude) => "broken-chain",
            _ => self.name(),
        }
    }

    /// Whether `--problems` lists it.
    pub fn is_problem(self) -> bool {
        self != Health::Ok
    }
}

impl Row {
    /// Why the row has its status, for statuses a number in the table does not explain.
    pub fn reason(&self) -> Option<std::borrow::Cow<'_, str>> {
        let found = match &self.outcome {
            Err(reason) => return Some(reason.into()),
            Ok(found) => found,
        };
        let why = match self.health() {
            Health::BrokenLineage if self.found.agent == Agent::Claude => {
                "an entry's parent is missing (or a forked subagent's parent session), or the \
                 parents cycle; `rollcall replay --report` says which"
            }
            Health::BrokenLineage => {
                "a parent is missing, or the lineage cycles; `rollcall replay --report` says which"
            }
            Health::OrdinalFault => {
                let n = found.ordinal_faults;
                let findings = if n == 1 { "finding" } else { "findings" };
                return Some(
                    format!("{n} ordinal {findings}; `rollcall replay --report` lists them").into(),
                );
            }
            Health::NoMeta => "no session_meta record: Codex cannot resume it",
            Health::Unindexed => {
                "the state database has no row for this thread: `codex resume` by id may not find it"
            }
            _ => {
                let remote = found.teleported_from.as_deref()?;
                return Some(
                    format!(
                        "a stub of a session teleported from Claude Code on the web: no \
                         conversation here; `claude --teleport {remote}` fetches it"
                    )
                    .into(),
                );
            }
        };
        Some(why.into())
    }

    /// Whether `--strict` fails on it: a file that cannot be used or that `codex resume` cannot
    /// find, or what makes `replay --strict` on the file fail (a record over 16 MiB alone does
    /// not, though its status is `ordinal-fault`).
    pub fn fails_strict(&self) -> bool {
        self.missing_file.is_some() || self.outcome.as_ref().map_or(true, |f| f.fails_strict)
    }

    /// Its status as the table and the JSON name it, in its agent's words.
    pub fn status(&self) -> &'static str {
        self.health().name_for(self.found.agent)
    }

    pub fn health(&self) -> Health {
        if self.missing_file.is_some() {
            return Health::MissingFile;
        }
        let Ok(found) = &self.outcome else {
            return Health::Unusable;
        };
        if found.broken_lineage {
            Health::BrokenLineage
        } else if found.ordinal_faults > 0 {
            Health::OrdinalFault
        } else if found.parse_errors > 0 {
            Health::Damaged
        } else if found.no_session_meta {
            Health::NoMeta
        } else if found.incomplete {
            Health::Incomplete
        } else if self.unindexed == Some(true) {
            Health::Unindexed
        } else if found.missing_outputs + found.orphan_outputs > 0 {
            Health::Repairs
        } else {
            Health::Ok
        }
    }
}

/// What to scan: folders (or files) and which agent's files to look for in them.
#[derive(Debug, Clone)]
pub struct Roots {
    pub places: Vec<(PathBuf, Option<Agent>)>,
    /// The Codex home whose state database says which rollouts `codex resume` knows.
    pub codex_home: Option<CodexHome>,
}

/// The folders (or files) to scan: those named, which must exist, or else the agents' homes —
/// Codex's `sessions` and `archived_sessions`, Claude Code's `projects` — of which at least one
/// must exist.
pub fn roots(scan: &Options, homes: &Homes) -> Result<Roots, Failure> {
    let wanted = |agent| scan.agent.is_none_or(|a| a == agent);
    if !scan.dirs.is_empty() {
        for dir in &scan.dirs {
            if let Err(e) = fs::metadata(dir) {
                return Err(Failure::unusable(
                    &dir.display().to_string(),
                    format!("cannot scan: {}", crate::source::io_reason(&e)),
                ));
            }
        }
        let codex_home = scan.dirs.iter().find_map(|d| codex_home_of(d));
        return Ok(Roots {
            places: scan.dirs.iter().map(|d| (d.clone(), scan.agent)).collect(),
            codex_home,
        });
    }
    let mut places = Vec::new();
    let mut looked = Vec::new();
    if let Some(home) = homes.codex.as_ref().filter(|_| wanted(Agent::Codex)) {
        for dir in [home.sessions(), home.archived()] {
            if dir.is_dir() {
                places.push((dir, Some(Agent::Codex)));
            }
        }
        looked.push(format!(
            "neither {} nor {} exists ({})",
            home.sessions().display(),
            home.archived().display(),
            home.origin()
        ));
    }
    if let Some(home) = homes.claude.as_ref().filter(|_| wanted(Agent::Claude)) {
        if home.projects().is_dir() {
            places.push((home.projects(), Some(Agent::Claude)));
        }
        looked.push(format!(
            "{} does not exist ({})",
            home.projects().display(),
            home.origin()
        ));
    }
    if looked.is_empty() {
        return Err(Failure::general(
            "no home folder to scan: none of CODEX_HOME, CLAUDE_CONFIG_DIR and HOME is set (set \
             one, or name a DIR to scan)",
        ));
    }
    if places.is_empty() {
        return Err(Failure::general(format!(
            "no sessions to scan: {}; set CODEX_HOME or CLAUDE_CONFIG_DIR, or name a DIR to scan",
            looked.join(", and ")
        )));
    }
    let codex_home = homes.codex.clone().filter(|_| wanted(Agent::Codex));
    Ok(Roots { places, codex_home })
}

/// The Codex home a folder named on the command line is, or lies in.
fn codex_home_of(dir: &Path) -> Option<CodexHome> {
    if dir.join("sessions").is_dir() || dir.join("archived_sessions").is_dir() {
        return Some(CodexHome {
            dir: dir.to_path_buf(),
            from_env: false,
        });
    }
    CodexHome::of_file(&dir.join("x"))
}

/// Whether a file name is one of Claude Code's: `<session id>.jsonl` or `agent-*.jsonl`.
fn is_claude_name(name: &[u8]) -> bool {
    let Some(stem) = name.strip_suffix(b".jsonl") else {
        return false;
    };
    stem.starts_with(b"agent-")
        || std::str::from_utf8(stem).is_ok_and(|s| uuid::Uuid::try_parse(s).is_ok())
}

/// Every session file under the roots, each once, newest first (ties by path). A root that is a
/// file is taken whatever its name; in folders, Codex's `rollout-*.jsonl[.zst]` and Claude Code's
/// `<uuid>.jsonl` and `agent-*.jsonl` count.
pub fn files(roots: &Roots, warnings: &mut Vec<String>) -> Vec<Found> {
    let mut paths: Vec<(PathBuf, Agent, Option<Option<String>>)> = Vec::new();
    for (root, agent) in &roots.places {
        if !root.is_dir() {
            // A file named on the command line: its agent is settled once it is read.
            let agent = agent.unwrap_or_else(|| guess_agent(root));
            paths.push((root.clone(), agent, crate::claude::home::subagent_of(root)));
            continue;
        }
        if agent.is_none_or(|a| a == Agent::Codex) {
            let mut found = Vec::new();
            home::walk(root, &codex_home::is_rollout_name, &mut found, warnings);
            codex_home::plain_wins(&mut found);
            paths.extend(found.into_iter().map(|p| (p, Agent::Codex, None)));
        }
        if agent.is_none_or(|a| a == Agent::Claude) {
            let mut found = Vec::new();
            home::walk(root, &is_claude_name, &mut found, warnings);
            for path in found {
                let subagent_of = crate::claude::home::subagent_of(&path);
                paths.push((path, Agent::Claude, subagent_of));
            }
        }
    }
    // Overlapping roots (`scan a a/b`) or links would list a file twice.
    let mut seen = HashSet::new();
    paths.retain(|(path, _, _)| {
        seen.insert(fs::canonicalize(path).unwrap_or_else(|_| path.clone()))
    });
    let mut found: Vec<Found> = paths
        .into_iter()
        .map(|(path, agent, subagent_of)| look_at(path, agent, subagent_of))
        .collect();
    found.sort_by(|a, b| b.stamp.cmp(&a.stamp).then_with(|| a.path.cmp(&b.path)));
    found
}

/// The agent a file named on the command line belongs to, told by its name.
fn guess_agent(path: &Path) -> Agent {
    let name = path
        .file_name()
        .map(|n| n.as_encoded_bytes())
        .unwrap_or_default();
    if codex_home::is_rollout_name(name) || !is_claude_name(name) {
        Agent::Codex
    } else {
        Agent::Claude
    }
}

fn look_at(path: PathBuf, agent: Agent, subagent_of: Option<Option<String>>) -> Found {
    let meta = fs::metadata(&path).ok();
    let from_name = path
        .file_name()
        .and_then(|name| name.to_str())
        .and_then(codex_home::name_time);
    let stamp = from_name.or_else(|| {
        let modified = meta.as_ref()?.modified().ok()?;
        Some(Stamp::from_system_time(modified))
    });
    let not_regular = meta.as_ref().and_then(home::not_regular);
    Found {
        size: meta.map_or(0, |m| m.len()),
        stamp,
        archived: is_archived(&path),
        agent,
        subagent_of,
        not_regular,
        path,
    }
}

fn is_archived(path: &Path) -> bool {
    path.parent()
        .is_some_and(|dir| dir.iter().any(|part| part == "archived_sessions"))
}

/// Replays every file, in parallel where threads can run, into rows in the same order; adds the
/// state database's rows whose file is missing, and places subagents under their sessions. For a
/// progress bar, `read` hears the size of each chunk read, and `finished` each file done.
pub fn rows(
    found: Vec<Found>,
    roots: &Roots,
    load: Load,
    homes: &Homes,
    read: &(dyn Fn(u64) + Sync),
    finished: &(dyn Fn() + Sync),
    warnings: &mut Vec<String>,
) -> Vec<Row> {
    let one = |found: Found| {
        let row = row(found, load, homes, read);
        finished();
        row
    };
    let mut rows: Vec<Row> = if load.threads {
        found.into_par_iter().map(one).collect()
    } else {
        found.into_iter().map(one).collect()
    };
    if let Some(home) = &roots.codex_home
        && let Some(indexed) = codex_home::thread_rows(home)
    {
        if indexed.skipped > 0 {
            let db = home.state_db().unwrap_or_default();
            warnings.push(format!(
                "{}: {} threads {} without a readable id and rollout_path (skipped; the other rows \
                 are used)",
                db.display(),
                indexed.skipped,
                if indexed.skipped == 1 { "row" } else { "rows" },
            ));
        }
        index(&mut rows, &indexed.rows, roots);
    }
    rows.sort_by(|a, b| {
        b.found
            .stamp
            .cmp(&a.found.stamp)
            .then_with(|| a.found.path.cmp(&b.found.path))
    });
    under_sessions(rows)
}

fn row(mut found: Found, load: Load, homes: &Homes, read: &(dyn Fn(u64) + Sync)) -> Row {
    let unread = |found: Found, reason: String| Row {
        found,
        outcome: Err(reason),
        missing_file: None,
        unindexed: None,
    };
    if let Some(kind) = found.not_regular {
        return unread(found, format!("is {kind}, not a regular file: not read"));
    }
    let input = Input::Path(found.path.clone());
    let outcome = match session::load(&input, load, homes, &mut |bytes| read(bytes)) {
        Ok(session) => match session
            .view(&ViewSettings::default())
            .and_then(|view| Report::new(&session, &view))
        {
            // A Claude Code session (whatever its file is called) is dated by its first entry,
            // not by when its file last changed.
            Ok(report) => {
                match &session.state {
                    session::State::Claude(state) => {
                        found.agent = Agent::Claude;
                        if let Some((_, seconds)) = state.started {
                            found.stamp = Some(Stamp::from_unix(seconds));
                        }
                        if state.subagent && found.subagent_of.is_none() {
                            found.subagent_of = Some(None);
                        }
                    }
                    session::State::Codex(_) => found.agent = Agent::Codex,
                }
                Ok(findings(&report, &session))
            }
            Err(e) => Err(format!("changed while being read: {e}")),
        },
        Err(failure) => Err(failure.problem),
    };
    Row {
        found,
        outcome,
        missing_file: None,
        unindexed: None,
    }
}

fn findings(report: &Report<'_>, session: &session::Session) -> Findings {
    let codex = report.codex_records.as_ref();
    let claude = report.claude.as_ref();
    let (ordinal_faults, broken) = match &session.state {
        session::State::Codex(state) => (state.faults.len(), state.broken.is_some()),
        session::State::Claude(state) => {
            (0, !state.breaks.is_empty() || state.fork_broken.is_some())
        }
    };
    let session_of = match &session.state {
        session::State::Claude(state) if state.subagent => state.entry_session.clone(),
        _ => None,
    };
    Findings {
        thread_id: report.thread_id.map(Into::into),
        cwd: report.cwd.map(Into::into),
        started: report.started.map(Into::into),
        parse_errors: report.loading.parse_errors,
        incomplete: report.incomplete_turn.is_some(),
        incomplete_turn_id: report.incomplete_turn_id.as_deref().map(Into::into),
        missing_outputs: report.repairs.missing_outputs.len(),
        orphan_outputs: report.repairs.orphan_outputs.len(),
        no_session_meta: codex.is_some_and(|c| c.no_session_meta),
        ordinal_faults,
        broken_lineage: broken || claude.is_some_and(|c| !c.cycles.is_empty()),
        fails_strict: report.fails_strict(),
        session: session_of,
        teleported_from: claude
            .and_then(|c| c.teleported_from.as_deref())
            .filter(|_| report.history_items == 0)
            .map(Into::into),
        codes: {
            let mut codes: Vec<&'static str> = Vec::new();
            for p in &report.problems {
                if !codes.contains(&p.code) {
                    codes.push(p.code);
                }
            }
            codes
        },
    }
}

/// Marks Codex rollouts the state database has no row for, and adds a row for each database row
/// whose file is missing.
fn index(rows: &mut Vec<Row>, indexed: &[(String, PathBuf)], roots: &Roots) {
    // A missing file is listed only where the scan looks: `scan ~/.codex/sessions/2026/03`
    // does not list a missing rollout of 2025.
    let scanned: Vec<PathBuf> = roots
        .places
        .iter()
        .flat_map(|(root, _)| [root.clone(), fs::canonicalize(root).unwrap_or_default()])
        .filter(|root| !root.as_os_str().is_empty())
        .collect();
    let looked_at = |path: &Path| scanned.iter().any(|root| path.starts_with(root));
    let threads: HashSet<&str> = indexed.iter().map(|(id, _)| id.as_str()).collect();
    let mut present: HashSet<PathBuf> = HashSet::new();
    for row in rows.iter_mut().filter(|r| r.found.agent == Agent::Codex) {
        present
            .insert(fs::canonicalize(&row.found.path).unwrap_or_else(|_| row.found.path.clone()));
        let from_name = row
            .found
            .path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(RolloutName::parse)
            .map(|n| n.thread.hyphenated().to_string());
        let thread = match &row.outcome {
            Ok(f) => f
                .thread_id
                .as_deref()
                .map(str::to_ascii_lowercase)
                .or(from_name),
            Err(_) => from_name,
        };
        row.unindexed = Some(thread.is_none_or(|t| !threads.contains(t.as_str())));
    }
    for (id, path) in indexed {
        if path.exists() || !looked_at(path) {
            continue;
        }
        let canonical = fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        if present.contains(&canonical) {
            continue;
        }
        let stamp = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(codex_home::name_time);
        rows.push(Row {
            found: Found {
                path: path.clone(),
                agent: Agent::Codex,
                size: 0,
                stamp,
                archived: is_archived(path),
                subagent_of: None,
                not_regular: None,
            },
            outcome: Err("the state database names this file, which does not exist".into()),
            missing_file: Some(id.clone()),
            unindexed: Some(false),
        });
    }
}

/// Rows in order, each subagent's transcript right after the session it belongs to (by the
/// folder it lies in, else by the session id its entries name); one whose session is not among
/// the rows stays where it is.
fn under_sessions(rows: Vec<Row>) -> Vec<Row> {
    let session_of = |row: &Row| -> Option<String> {
        let of = row.found.subagent_of.as_ref()?;
        of.clone().or_else(|| {
            row.outcome
                .as_ref()
                .ok()
                .and_then(|f| f.session.as_deref().map(String::from))
        })
    };
    let sessions: HashSet<String> = rows
        .iter()
        .filter(|r| r.found.subagent_of.is_none() && r.found.agent == Agent::Claude)
        .filter_map(|r| {
            r.outcome
                .as_ref()
                .ok()?
                .thread_id
                .as_deref()
                .map(String::from)
        })
        .collect();
    let mut children: HashMap<String, Vec<Row>> = HashMap::new();
    let mut top = Vec::with_capacity(rows.len());
    for row in rows {
        match session_of(&row).filter(|s| sessions.contains(s)) {
            Some(session) => children.entry(session).or_default().push(row),
            None => top.push(row),
        }
    }
    let mut out = Vec::with_capacity(top.len());
    for row in top {
        let id = (row.found.agent == Agent::Claude && row.found.subagent_of.is_none())
            .then(|| {
                row.outcome
                    .as_ref()
                    .ok()?
                    .thread_id
                    .as_deref()
                    .map(String::from)
            })
            .flatten();
        out.push(row);
        if let Some(mut subagents) = id.and_then(|id| children.remove(&id)) {
            subagents.sort_by(|a, b| a.found.path.cmp(&b.found.path));
            out.extend(subagents);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archived_means_under_an_archived_sessions_folder() {
        assert!(is_archived(Path::new(
            "/h/.codex/archived_sessions/rollout-x.jsonl"
        )));
        assert!(is_archived(Path::new(
            "archived_sessions/2026/01/rollout-x.jsonl"
        )));
        assert!(!is_archived(Path::new(
            "/h/.codex/sessions/2026/rollout-x.jsonl"
        )));
        assert!(!is_archived(Path::new("archived_sessions")));
    }

    #[test]
    fn claude_names() {
        assert!(is_claude_name(
            b"5e55a0c2-0001-4000-8000-000000000000.jsonl"
        ));
        assert!(is_claude_name(b"agent-a1b2c3.jsonl"));
        assert!(!is_claude_name(b"replay.jsonl"));
        assert!(!is_claude_name(b"5e55a0c2.jsonl"));
    }

    #[test]
    fn health_is_the_first_finding_that_applies() {
        let row = |parse_errors, incomplete, missing_outputs, orphan_outputs| Row {
            found: look_at(PathBuf::from("rollout-x.jsonl"), Agent::Codex, None),
            outcome: Ok(Findings {
                thread_id: Some("t".into()),
                cwd: None,
                started: None,
                parse_errors,
                incomplete,
                incomplete_turn_id: None,
                missing_outputs,
                orphan_outputs,
                no_session_meta: false,
                ordinal_faults: 0,
                broken_lineage: false,
                fails_strict: parse_errors > 0 || incomplete,
                session: None,
                teleported_from: None,
                codes: Vec::new(),
            }),
            missing_file: None,
            unindexed: None,
        };
        assert_eq!(row(0, false, 0, 0).health(), Health::Ok);
        assert_eq!(row(0, false, 0, 2).health(), Health::Repairs);
        assert_eq!(row(0, true, 1, 0).health(), Health::Incomplete);
        assert_eq!(row(3, true, 1, 0).health(), Health::Damaged);
        let unindexed = Row {
            unindexed: Some(true),
            ..row(0, false, 1, 0)
        };
        assert_eq!(unindexed.health(), Health::Unindexed);
        let unusable = Row {
            outcome: Err("empty rollout: no record in it".into()),
            ..row(0, false, 0, 0)
        };
        assert_eq!(unusable.health(), Health::Unusable);
        assert!(unusable.fails_strict());
        assert!(!unindexed.fails_strict());
        assert!(row(3, true, 1, 0).fails_strict());
        assert!(!row(0, false, 0, 2).fails_strict());
    }
}
