//! The scan: every rollout under the folders asked for (by default Codex's own two), replayed in
//! parallel into one row of findings each, newest first, and the one-word health of each row.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::cli::Scan;
use crate::exit::Failure;
use crate::home::{self, CodexHome, Stamp};
use crate::report::Report;
use crate::session::{self, Input, Load};

/// A rollout file found on disk, before it is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    /// Bytes, when the file could be looked at.
    pub size: u64,
    /// The time in its name, else its modification time.
    pub stamp: Option<Stamp>,
    /// It lies in a folder named `archived_sessions`, where Codex moves archived sessions.
    pub archived: bool,
}

/// One rollout and what replaying it found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub found: Found,
    /// What replay found, or why the file cannot be used (the reason, without the file name).
    pub outcome: Result<Findings, String>,
}

/// What replay found in a usable rollout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Findings {
    pub thread_id: Box<str>,
    pub cwd: Option<Box<str>>,
    pub started: Option<Box<str>>,
    pub parse_errors: u64,
    pub incomplete: bool,
    pub incomplete_turn_id: Option<Box<str>>,
    /// Calls the prompt view gives a synthetic output.
    pub missing_outputs: usize,
    /// Outputs the prompt view removes because no call answers to them.
    pub orphan_outputs: usize,
}

/// A rollout's state in one word: the first of these that applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Health {
    /// Cannot be replayed: unreadable, empty, or without a session_meta record.
    Unusable,
    /// Replayed, but lines had to be skipped as parse errors.
    Damaged,
    /// A turn was still open at the end of the file: the agent stopped mid-turn.
    Incomplete,
    /// The prompt view inserts outputs for unanswered calls or removes orphan outputs.
    Repairs,
    /// None of the above.
    Ok,
}

impl Health {
    /// From least to most severe, as the summary lists them.
    pub const ALL: [Health; 5] = [
        Health::Ok,
        Health::Repairs,
        Health::Incomplete,
        Health::Damaged,
        Health::Unusable,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Health::Unusable => "unusable",
            Health::Damaged => "damaged",
            Health::Incomplete => "incomplete",
            Health::Repairs => "repairs",
            Health::Ok => "ok",
        }
    }

    /// Whether `--problems` lists it.
    pub fn is_problem(self) -> bool {
        self != Health::Ok
    }

    /// Whether `--strict` fails on it: what would make `replay --strict` on the file fail.
    pub fn fails_strict(self) -> bool {
        match self {
            Health::Unusable | Health::Damaged | Health::Incomplete => true,
            Health::Repairs | Health::Ok => false,
        }
    }
}

impl Row {
    pub fn health(&self) -> Health {
        let Ok(found) = &self.outcome else {
            return Health::Unusable;
        };
        if found.parse_errors > 0 {
            Health::Damaged
        } else if found.incomplete {
            Health::Incomplete
        } else if found.missing_outputs + found.orphan_outputs > 0 {
            Health::Repairs
        } else {
            Health::Ok
        }
    }
}

/// The folders (or files) to scan: those named, which must exist, or else the Codex home's
/// `sessions` and `archived_sessions`, of which at least one must exist.
pub fn roots(scan: &Scan, home: Option<&CodexHome>) -> Result<Vec<PathBuf>, Failure> {
    if !scan.dirs.is_empty() {
        for dir in &scan.dirs {
            if let Err(e) = fs::metadata(dir) {
                return Err(Failure::unusable(
                    &dir.display().to_string(),
                    format!("cannot scan: {}", crate::source::io_reason(&e)),
                ));
            }
        }
        return Ok(scan.dirs.clone());
    }
    let Some(home) = home else {
        return Err(Failure::general(
            "no Codex home to scan: neither CODEX_HOME nor HOME is set (set one, or name a DIR \
             to scan)",
        ));
    };
    let roots: Vec<PathBuf> = [home.sessions(), home.archived()]
        .into_iter()
        .filter(|dir| dir.is_dir())
        .collect();
    if roots.is_empty() {
        return Err(Failure::general(format!(
            "no Codex sessions to scan: neither {} nor {} exists ({}); set CODEX_HOME, or name a \
             DIR to scan",
            home.sessions().display(),
            home.archived().display(),
            home.origin(),
        )));
    }
    Ok(roots)
}

/// Every rollout under `roots`, each once, newest first (ties by path). A root that is a file is
/// taken whatever its name; in folders only `rollout-*.jsonl` files count.
pub fn files(roots: &[PathBuf], warnings: &mut Vec<String>) -> Vec<Found> {
    let mut paths = Vec::new();
    for root in roots {
        if root.is_dir() {
            home::walk(root, &home::is_rollout_name, &mut paths, warnings);
        } else {
            paths.push(root.clone());
        }
    }
    // Overlapping roots (`scan a a/b`) or links would list a file twice.
    let mut seen = HashSet::new();
    paths.retain(|path| seen.insert(fs::canonicalize(path).unwrap_or_else(|_| path.clone())));

    let mut found: Vec<Found> = paths.into_iter().map(look_at).collect();
    found.sort_by(|a, b| b.stamp.cmp(&a.stamp).then_with(|| a.path.cmp(&b.path)));
    found
}

fn look_at(path: PathBuf) -> Found {
    let meta = fs::metadata(&path).ok();
    let from_name = path
        .file_name()
        .and_then(|name| name.to_str())
        .and_then(Stamp::from_name);
    let stamp = from_name.or_else(|| {
        let modified = meta.as_ref()?.modified().ok()?;
        Some(Stamp::from_system_time(modified))
    });
    Found {
        size: meta.map_or(0, |m| m.len()),
        stamp,
        archived: is_archived(&path),
        path,
    }
}

fn is_archived(path: &Path) -> bool {
    path.parent()
        .is_some_and(|dir| dir.iter().any(|part| part == "archived_sessions"))
}

/// Replays every rollout, in parallel where threads can run, into rows in the same order. For a
/// progress bar, `read` hears the size of each chunk read, and `finished` each file done.
pub fn rows(
    found: Vec<Found>,
    load: Load,
    read: &(dyn Fn(u64) + Sync),
    finished: &(dyn Fn() + Sync),
) -> Vec<Row> {
    let one = |found: Found| {
        let row = row(found, load, read);
        finished();
        row
    };
    if load.threads {
        found.into_par_iter().map(one).collect()
    } else {
        found.into_iter().map(one).collect()
    }
}

fn row(found: Found, load: Load, read: &(dyn Fn(u64) + Sync)) -> Row {
    let input = Input::Path(found.path.clone());
    let outcome = match session::load(&input, load, &mut |bytes| read(bytes)) {
        Ok(session) => match Report::new(&session) {
            Err(e) => Err(format!("changed while being read: {e}")),
            Ok(report) => Ok(Findings {
                thread_id: report.thread_id.unwrap_or_default().into(),
                cwd: report.cwd.map(Into::into),
                started: report.started.map(Into::into),
                parse_errors: report.parse_errors,
                incomplete: report.incomplete_turn.is_some(),
                incomplete_turn_id: report.incomplete_turn_id.as_deref().map(Into::into),
                missing_outputs: report.repairs.missing_outputs.len(),
                orphan_outputs: report.repairs.orphan_outputs.len(),
            }),
        },
        Err(failure) => Err(failure.problem),
    };
    Row { found, outcome }
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
    fn health_is_the_first_finding_that_applies() {
        let row = |parse_errors, incomplete, missing_outputs, orphan_outputs| Row {
            found: look_at(PathBuf::from("rollout-x.jsonl")),
            outcome: Ok(Findings {
                thread_id: "t".into(),
                cwd: None,
                started: None,
                parse_errors,
                incomplete,
                incomplete_turn_id: None,
                missing_outputs,
                orphan_outputs,
            }),
        };
        assert_eq!(row(0, false, 0, 0).health(), Health::Ok);
        assert_eq!(row(0, false, 0, 2).health(), Health::Repairs);
        assert_eq!(row(0, false, 1, 0).health(), Health::Repairs);
        assert_eq!(row(0, true, 1, 0).health(), Health::Incomplete);
        assert_eq!(row(3, true, 1, 0).health(), Health::Damaged);
        let unusable = Row {
            outcome: Err("empty rollout: no record in it".into()),
            ..row(0, false, 0, 0)
        };
        assert_eq!(unusable.health(), Health::Unusable);
        let strict: Vec<bool> = Health::ALL.iter().map(|h| h.fails_strict()).collect();
        assert_eq!(strict, [false, false, true, true, true]);
    }
}
