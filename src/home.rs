//! Session files on disk: the agents' home folders, walking them for session files, reading the
//! time in a rollout's file name, and finding a session by its id.

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use uuid::Uuid;

use crate::claude::home::ClaudeHome;
use crate::codex::home::CodexHome;
use crate::exit::Failure;
use crate::session::Input;

/// A point in time as seconds since 1970-01-01 00:00:00 on the clock it was read from: the local
/// time Codex writes into file names, or UTC for a modification time. Orders rollouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Stamp(i64);

impl Stamp {
    /// The time in a Codex file name, `rollout-YYYY-MM-DDThh-mm-ss-<thread id>.jsonl`.
    pub fn from_name(name: &str) -> Option<Stamp> {
        let rest = name.strip_prefix("rollout-")?;
        let (time, after) = (rest.get(..19)?, rest.get(19..)?);
        if !(after.starts_with('-') || after.starts_with('.')) {
            return None;
        }
        let b = time.as_bytes();
        if b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b'-' || b[16] != b'-' {
            return None;
        }
        let number = |at: usize, len: usize| -> Option<i64> {
            let digits = time.get(at..at + len)?;
            if !digits.bytes().all(|d| d.is_ascii_digit()) {
                return None;
            }
            digits.parse().ok()
        };
        let (year, month, day) = (number(0, 4)?, number(5, 2)?, number(8, 2)?);
        let (hour, minute, second) = (number(11, 2)?, number(14, 2)?, number(17, 2)?);
        if !(1..=12).contains(&month)
            || day < 1
            || day > crate::text::days_in_month(year, month)
            || hour > 23
            || minute > 59
            || second > 59
        {
            return None;
        }
        let days = crate::text::days_from_civil(year, month, day);
        Some(Stamp(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    /// Seconds since 1970 (UTC), as a Claude Code entry's `timestamp` gives them.
    pub fn from_unix(seconds: i64) -> Stamp {
        Stamp(seconds)
    }

    /// A file's modification time, in UTC.
    pub fn from_system_time(time: SystemTime) -> Stamp {
        Stamp(match time.duration_since(UNIX_EPOCH) {
            Ok(after) => after.as_secs() as i64,
            Err(before) => -(before.duration().as_secs() as i64),
        })
    }
}

/// `YYYY-MM-DD hh:mm`.
impl fmt::Display for Stamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (days, secs) = (self.0.div_euclid(86_400), self.0.rem_euclid(86_400));
        let (year, month, day) = crate::text::civil_from_days(days);
        let (hour, minute) = (secs / 3600, secs % 3600 / 60);
        write!(f, "{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}")
    }
}

/// Adds to `found` every file under `root`, recursively, whose name `wanted` accepts, in no
/// particular order. Symbolic links to files are followed; links to folders are not (no cycles).
/// A folder that cannot be read is skipped with a line in `warnings`.
pub fn walk(
    root: &Path,
    wanted: &dyn Fn(&[u8]) -> bool,
    found: &mut Vec<PathBuf>,
    warnings: &mut Vec<String>,
) {
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = match fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(e) => {
                warnings.push(format!(
                    "{}: cannot read folder: {} (skipped)",
                    folder.display(),
                    crate::source::io_reason(&e)
                ));
                continue;
            }
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                folders.push(path);
                continue;
            }
            if !wanted(entry.file_name().as_encoded_bytes()) {
                continue;
            }
            // Files that are not regular ones, and links to anything but folders, are kept, so
            // that the scan can say what they are (a FIFO, a dangling link, a link to a device)
            // instead of reading them.
            if !(kind.is_symlink() && path.is_dir()) {
                found.push(path);
            }
        }
    }
}

/// An agent's home folder: its own variable when set and not empty (`from_env`), else `hidden`
/// in `HOME`.
pub(crate) fn agent_home(
    var: Option<OsString>,
    home: Option<OsString>,
    hidden: &str,
) -> Option<(PathBuf, bool)> {
    let set = |v: Option<OsString>| v.filter(|v| !v.is_empty()).map(PathBuf::from);
    match set(var) {
        Some(dir) => Some((dir, true)),
        None => set(home).map(|home| (home.join(hidden), false)),
    }
}

/// Where an agent's home came from, for messages: `CODEX_HOME=/x`, or how `~/.codex` resolved.
pub(crate) fn origin(var: &str, hidden: &str, dir: &Path, from_env: bool) -> String {
    if from_env {
        format!("{var}={}", dir.display())
    } else {
        format!("{var} is not set; ~/{hidden} is {}", dir.display())
    }
}

/// Both agents' homes, as the environment names them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Homes {
    pub codex: Option<CodexHome>,
    pub claude: Option<ClaudeHome>,
}

impl Homes {
    pub(crate) fn from_env() -> Homes {
        Homes {
            codex: CodexHome::from_env(std::env::var_os("CODEX_HOME"), std::env::var_os("HOME")),
            claude: ClaudeHome::from_env(
                std::env::var_os("CLAUDE_CONFIG_DIR"),
                std::env::var_os("HOME"),
            ),
        }
    }
}

/// Whether `path` is a regular file (through links), the only kind scan and look-up read.
/// What a file is when it is not a regular one (links followed): `None` for a regular file.
/// Such files are not read where rollcall finds them itself (a link in a sessions tree can lead
/// to a FIFO that never ends or a device that never stops).
pub(crate) fn not_regular(meta: &fs::Metadata) -> Option<&'static str> {
    if meta.is_file() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_socket() {
            return Some("a socket");
        }
        if t.is_char_device() || t.is_block_device() {
            return Some("a device");
        }
    }
    Some(if meta.is_dir() {
        "a folder"
    } else {
        "a special file"
    })
}

/// An input as found: the file to read, and the other files of the same Codex thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resolved {
    pub input: Input,
    /// Other files of the thread, which `codex resume` does not take.
    pub superseded: Vec<PathBuf>,
}

/// The input to read: `input` itself, unless it names nothing that exists and reads as a session
/// id, which is then looked up as the agents look it up (a path that exists always wins): a Codex
/// thread under the Codex home, a Claude Code session under `projects/`.
pub(crate) fn resolve(input: &Input, homes: &Homes) -> Result<Resolved, Failure> {
    let as_is = || Resolved {
        input: input.clone(),
        superseded: Vec::new(),
    };
    let Input::Path(path) = input else {
        return Ok(as_is());
    };
    if fs::symlink_metadata(path).is_ok() {
        return Ok(as_is());
    }
    let Some(id) = path.to_str().and_then(|s| Uuid::try_parse(s.trim()).ok()) else {
        return Ok(as_is());
    };
    let name = path.display().to_string();
    let fail = |message: String| Failure::unusable(&name, message);
    if homes.codex.is_none() && homes.claude.is_none() {
        return Err(fail(
            "no such file, and no home folder to look the session id up in (set CODEX_HOME, \
             CLAUDE_CONFIG_DIR or HOME)"
                .into(),
        ));
    }
    let codex = homes
        .codex
        .as_ref()
        .and_then(|home| crate::codex::home::lookup(home, id));
    let claude = homes
        .claude
        .as_ref()
        .map(|home| home.lookup(id))
        .unwrap_or_default();
    let mut found: Vec<PathBuf> = codex.iter().map(|l| l.path.clone()).collect();
    found.extend(claude);
    match found.len() {
        0 => {
            let mut looked = Vec::new();
            if let Some(home) = &homes.codex {
                looked.push(format!(
                    "rollout-*-{}[_*].jsonl[.zst] under {} and {} ({})",
                    id.hyphenated(),
                    home.sessions().display(),
                    home.archived().display(),
                    home.origin()
                ));
            }
            if let Some(home) = &homes.claude {
                looked.push(format!(
                    "{}.jsonl under {}/* ({})",
                    id.hyphenated(),
                    home.projects().display(),
                    home.origin()
                ));
            }
            Err(fail(format!(
                "no such file, and no session with this id: looked for {}",
                looked.join(", and for ")
            )))
        }
        1 => {
            let path = found.remove(0);
            match fs::metadata(&path) {
                Err(e) => Err(fail(format!(
                    "found {}, which cannot be opened: {}",
                    path.display(),
                    crate::source::io_reason(&e)
                ))),
                Ok(meta) => match not_regular(&meta) {
                    Some(kind) => Err(fail(format!(
                        "found {}, which is {kind}, not a regular file: not read",
                        path.display()
                    ))),
                    None => Ok(Resolved {
                        input: Input::Path(path),
                        superseded: codex.map(|l| l.superseded).unwrap_or_default(),
                    }),
                },
            }
        }
        n => {
            let list: Vec<String> = found.iter().map(|p| p.display().to_string()).collect();
            Err(fail(format!(
                "{n} sessions have this id ({}): name one by its path",
                list.join(", ")
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_time_in_codex_file_names() {
        let stamp = |name: &str| Stamp::from_name(name).map(|s| s.to_string());
        assert_eq!(
            stamp("rollout-2026-02-11T09-14-02-019c1f40-2b7e-7a9d-8c31-6d5e4f3a2b10.jsonl"),
            Some("2026-02-11 09:14".into())
        );
        assert_eq!(
            stamp("rollout-2024-02-29T23-59-59.jsonl"),
            Some("2024-02-29 23:59".into())
        );
        assert_eq!(
            stamp("rollout-1969-12-31T23-00-00-x.jsonl"),
            Some("1969-12-31 23:00".into())
        );
        for bad in [
            "rollout-2026-02-11T09-14-0-x.jsonl",
            "rollout-2026-02-11 09-14-02-x.jsonl",
            "rollout-2026-02-11T09:14:02-x.jsonl",
            "rollout-2026-13-11T09-14-02-x.jsonl",
            "rollout-2025-02-29T09-14-02-x.jsonl",
            "rollout-2026-02-11T24-00-00-x.jsonl",
            "rollout-2026-02-11T23-59-60-x.jsonl",
            "rollout-2026-02-11T09-14-02x.jsonl",
            "rollout-+026-02-11T09-14-02-x.jsonl",
            "rollout-2026-02-11T09-14-02",
            "session-2026-02-11T09-14-02-x.jsonl",
            "rollout-ab.jsonl",
            "rollout-2026-02-11T09-14-ü-x.jsonl",
        ] {
            assert_eq!(stamp(bad), None, "{bad}");
        }
    }

    #[test]
    fn stamps_order_by_time_and_round_trip_through_days() {
        let at = |name: &str| Stamp::from_name(name);
        assert!(
            at("rollout-2026-01-01T00-00-00-a.jsonl") > at("rollout-2025-12-31T23-59-59-b.jsonl")
        );
        assert_eq!(
            at("rollout-1970-01-01T00-00-01-a.jsonl"),
            Some(Stamp::from_system_time(
                UNIX_EPOCH + std::time::Duration::from_secs(1)
            ))
        );
        assert_eq!(
            Stamp::from_system_time(UNIX_EPOCH - std::time::Duration::from_secs(60)).to_string(),
            "1969-12-31 23:59"
        );
    }
}
