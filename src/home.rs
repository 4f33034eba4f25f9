//! Session files on disk, for either agent: where an agent's home folder is, walking it for
//! session files, what kind of file a path is, and the times that order sessions.

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// A point in time as seconds since 1970-01-01 00:00:00 on the clock it was read from: the local
/// time Codex writes into file names, or UTC for a modification time. Orders rollouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Stamp(i64);

impl Stamp {
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
