//! Codex's home folder (SPEC §9): where rollouts are (`sessions/YYYY/MM/DD/`, flat
//! `archived_sessions/`), what their names say (time, thread id, rollout id, `.zst`), which file
//! of a thread `codex resume` takes (the state database's `threads.rollout_path`, else the newest
//! name), and where a fork's parent rollout is.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use uuid::Uuid;

use crate::home::{self, Stamp};

/// Codex's home folder (`$CODEX_HOME`, else `~/.codex`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodexHome {
    pub dir: PathBuf,
    /// Whether it came from CODEX_HOME (else from HOME), for messages.
    pub from_env: bool,
}

impl CodexHome {
    /// Where Codex writes live sessions.
    pub fn sessions(&self) -> PathBuf {
        self.dir.join("sessions")
    }

    /// Where Codex moves archived sessions.
    pub fn archived(&self) -> PathBuf {
        self.dir.join("archived_sessions")
    }

    /// Where the folder came from, for messages: `CODEX_HOME=/x`, or how `~/.codex` resolved.
    pub fn origin(&self) -> String {
        home::origin("CODEX_HOME", ".codex", &self.dir, self.from_env)
    }

    pub(crate) fn from_env(
        codex_home: Option<OsString>,
        home: Option<OsString>,
    ) -> Option<CodexHome> {
        let (dir, from_env) = home::agent_home(codex_home, home, ".codex")?;
        Some(CodexHome { dir, from_env })
    }

    /// The home a rollout lies in, told by its path: the folder above `sessions/` or
    /// `archived_sessions/`.
    pub fn of_file(path: &Path) -> Option<CodexHome> {
        let dir = path
            .ancestors()
            .find(|dir| {
                dir.file_name()
                    .is_some_and(|n| n == "sessions" || n == "archived_sessions")
            })?
            .parent()?;
        Some(CodexHome {
            dir: dir.to_path_buf(),
            from_env: false,
        })
    }

    /// The state database `codex resume` reads: the `state_N.sqlite` with the highest N (Codex at
    /// the reference commit writes `state_5.sqlite`).
    pub fn state_db(&self) -> Option<PathBuf> {
        let entries = std::fs::read_dir(&self.dir).ok()?;
        entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name();
                let n = name
                    .to_str()?
                    .strip_prefix("state_")?
                    .strip_suffix(".sqlite")?;
                let n: u64 = n.parse().ok()?;
                // Through a link too; a FIFO or a folder of that name is no database.
                std::fs::metadata(e.path())
                    .ok()?
                    .is_file()
                    .then(|| (n, e.path()))
            })
            .max()
            .map(|(_, path)| path)
    }
}

/// What a rollout's file name says: `rollout-<time>-<thread id>[_<rollout id>].jsonl[.zst]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RolloutName {
    pub stamp: Stamp,
    pub thread: Uuid,
    /// The id of this one file: the part after `_` of a reverted thread's file, else the thread
    /// id.
    pub rollout: Uuid,
    pub compressed: bool,
}

/// The time in a Codex file name, `rollout-YYYY-MM-DDThh-mm-ss-<thread id>.jsonl`.
pub(crate) fn name_time(name: &str) -> Option<Stamp> {
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
    Some(Stamp::from_unix(
        days * 86_400 + hour * 3600 + minute * 60 + second,
    ))
}

impl RolloutName {
    pub fn parse(name: &str) -> Option<RolloutName> {
        let (plain, compressed) = match name.strip_suffix(".zst") {
            Some(plain) => (plain, true),
            None => (name, false),
        };
        let stem = plain.strip_suffix(".jsonl")?;
        let stamp = name_time(plain)?;
        let ids = stem.get("rollout-".len() + 20..)?;
        let (thread, rollout) = match ids.split_once('_') {
            Some((thread, rollout)) => (thread, rollout),
            None => (ids, ids),
        };
        Some(RolloutName {
            stamp,
            thread: Uuid::try_parse(thread).ok()?,
            rollout: Uuid::try_parse(rollout).ok()?,
            compressed,
        })
    }
}

/// Whether a file name is a rollout's: `rollout-*.jsonl` or `rollout-*.jsonl.zst`.
pub fn is_rollout_name(name: &[u8]) -> bool {
    let name = name.strip_suffix(b".zst").unwrap_or(name);
    name.len() >= "rollout-.jsonl".len()
        && name.starts_with(b"rollout-")
        && name.ends_with(b".jsonl")
}

/// Drops each `X.jsonl.zst` whose `X.jsonl` is also there: the plain file wins, as in Codex.
pub(crate) fn plain_wins(paths: &mut Vec<PathBuf>) {
    let plain: std::collections::HashSet<PathBuf> = paths
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .cloned()
        .collect();
    paths.retain(|p| {
        p.extension().is_none_or(|e| e != "zst") || !plain.contains(&p.with_extension(""))
    });
}

/// The `cwd` a plain rollout's first record (its `session_meta`) names, read from the first
/// line alone, which is read whole however long (up to 64 MiB).
pub(crate) fn meta_cwd(path: &Path) -> Option<String> {
    use std::io::{BufRead, Read};
    if path.extension().is_some_and(|e| e == "zst") {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let mut line = Vec::new();
    std::io::BufReader::new(file.take(64 << 20))
        .read_until(b'\n', &mut line)
        .ok()?;
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&line);
    let text = std::str::from_utf8(line).ok()?.trim_end();
    let payload = crate::json::member(text, 0, "payload")?;
    let cwd = crate::json::member(text, payload.start, "cwd")?;
    crate::json::decode_str(&text[cwd]).map(|c| c.into_owned())
}

/// Every rollout file under the home's two folders, sessions first, with its name parsed.
pub(crate) fn rollouts(home: &CodexHome) -> Vec<(PathBuf, RolloutName, bool)> {
    let mut found = Vec::new();
    for (root, archived) in [(home.sessions(), false), (home.archived(), true)] {
        if !root.is_dir() {
            continue;
        }
        let mut paths = Vec::new();
        home::walk(&root, &is_rollout_name, &mut paths, &mut Vec::new());
        plain_wins(&mut paths);
        for path in paths {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(RolloutName::parse);
            if let Some(name) = name {
                found.push((path, name, archived));
            }
        }
    }
    found
}

/// The rollout whose rollout id is `id` (a fork's parent), under `sessions/` then
/// `archived_sessions/`, never `not` itself.
pub(crate) fn find_rollout(homes: &[CodexHome], id: Uuid, not: &Path) -> Option<PathBuf> {
    let not = std::fs::canonicalize(not).unwrap_or_else(|_| not.to_path_buf());
    for home in homes {
        let index = index(home);
        let mut matching: Vec<&(PathBuf, RolloutName, bool)> = index
            .get(&id)
            .into_iter()
            .flatten()
            .filter(|(path, _, _)| {
                path.is_file()
                    && std::fs::canonicalize(path).unwrap_or_else(|_| path.clone()) != not
            })
            .collect();
        matching.sort_by_key(|(path, name, archived)| {
            (*archived, std::cmp::Reverse(name.stamp), path.clone())
        });
        if let Some((path, _, _)) = matching.into_iter().next() {
            return Some(path.clone());
        }
    }
    None
}

/// A home's rollouts by rollout id.
type Index = std::collections::HashMap<Uuid, Vec<(PathBuf, RolloutName, bool)>>;

/// The rollouts of `home` by rollout id, walked once per process: a lineage of a thousand
/// parents, or a scan of a thousand forks, looks every parent up without walking the home again.
fn index(home: &CodexHome) -> std::sync::Arc<Index> {
    use std::sync::{Arc, Mutex, OnceLock};
    static INDEXES: OnceLock<Mutex<std::collections::HashMap<PathBuf, Arc<Index>>>> =
        OnceLock::new();
    let indexes = INDEXES.get_or_init(Default::default);
    if let Some(index) = indexes
        .lock()
        .ok()
        .and_then(|map| map.get(&home.dir).cloned())
    {
        return index;
    }
    let mut index = Index::new();
    for (path, name, archived) in rollouts(home) {
        index
            .entry(name.rollout)
            .or_default()
            .push((path, name, archived));
    }
    let index = Arc::new(index);
    if let Ok(mut map) = indexes.lock() {
        map.insert(home.dir.clone(), index.clone());
    }
    index
}

/// The files of one thread, and which one `codex resume` takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Lookup {
    pub path: PathBuf,
    /// The thread's other files.
    pub superseded: Vec<PathBuf>,
    /// The state database chose it (else the newest name).
    pub from_state_db: bool,
}

/// Finds thread `id` as `codex resume` does (SPEC §9): the state database's `rollout_path`
/// when the database and that file exist, else the newest file by the time in its name (ties: the
/// larger rollout id) under `sessions/`, then `archived_sessions/`.
pub(crate) fn lookup(home: &CodexHome, id: Uuid) -> Option<Lookup> {
    let mut files: Vec<(PathBuf, RolloutName, bool)> = rollouts(home)
        .into_iter()
        .filter(|(_, name, _)| name.thread == id)
        .collect();
    let indexed = home
        .state_db()
        .and_then(|db| thread_row(&db, id))
        .map(|row| existing(&row))
        .filter(|path| path.is_file());
    // Newest first: live before archived, then by time, then by rollout id.
    files.sort_by(|a, b| {
        a.2.cmp(&b.2)
            .then(b.1.stamp.cmp(&a.1.stamp))
            .then(b.1.rollout.cmp(&a.1.rollout))
            .then(a.0.cmp(&b.0))
    });
    let (path, from_state_db) = match indexed {
        Some(path) => (path, true),
        None => (files.first()?.0.clone(), false),
    };
    let same = |p: &Path| std::fs::canonicalize(p).ok() == std::fs::canonicalize(&path).ok();
    let superseded = files
        .into_iter()
        .map(|(p, _, _)| p)
        .filter(|p| !same(p))
        .collect();
    Some(Lookup {
        path,
        superseded,
        from_state_db,
    })
}

/// The file a `rollout_path` names, or its `.zst` when only that exists.
fn existing(path: &Path) -> PathBuf {
    if path.is_file() {
        return path.to_path_buf();
    }
    let mut compressed = path.as_os_str().to_owned();
    compressed.push(".zst");
    let compressed = PathBuf::from(compressed);
    if compressed.is_file() {
        compressed
    } else {
        path.to_path_buf()
    }
}

/// Asks the state database, opened read-only as an `immutable` file: SQLite then creates no
/// `-wal`, `-shm` or journal file, opens nothing but the database for reading, takes no lock
/// and never waits for one. The price: rows a running Codex has not yet checkpointed out of its
/// write-ahead log are not seen, and look-up falls back to the file names for them. Any failure
/// (missing, not SQLite, another schema) reads as no database.
fn ask_state_db<T>(
    db: &Path,
    query: impl Fn(&rusqlite::Connection) -> rusqlite::Result<T>,
) -> Option<T> {
    query(&open_state_db(db, "mode=ro&immutable=1")?).ok()
}

fn open_state_db(db: &Path, mode: &str) -> Option<rusqlite::Connection> {
    use rusqlite::OpenFlags;
    let mut uri = String::from("file:");
    for byte in db.to_str()?.bytes() {
        match byte {
            b'?' | b'#' | b'%' => uri.push_str(&format!("%{byte:02X}")),
            b => uri.push(b as char),
        }
    }
    uri.push('?');
    uri.push_str(mode);
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    rusqlite::Connection::open_with_flags(uri, flags).ok()
}

/// The `rollout_path` of thread `id`'s row.
fn thread_row(db: &Path, id: Uuid) -> Option<PathBuf> {
    ask_state_db(db, |conn| {
        conn.query_row(
            "SELECT rollout_path FROM threads WHERE id = ?1 OR lower(id) = ?1",
            [id.hyphenated().to_string()],
            |row| {
                // Not `row.get::<String>`, which panics on text that is not UTF-8.
                Ok(match row.get_ref(0)? {
                    rusqlite::types::ValueRef::Text(bytes) => {
                        std::str::from_utf8(bytes).ok().map(PathBuf::from)
                    }
                    _ => None,
                })
            },
        )
    })?
}

/// The `threads` rows that name a thread and a rollout path as text, and how many rows did not
/// (a NULL or non-UTF-8 `rollout_path`): those are skipped, the rest kept.
pub(crate) struct ThreadRows {
    pub rows: Vec<(String, PathBuf)>,
    pub skipped: u64,
}

/// Every readable `threads` row. `None` when there is no database to read.
pub(crate) fn thread_rows(home: &CodexHome) -> Option<ThreadRows> {
    use rusqlite::types::ValueRef;
    // Text that is not UTF-8 is no text here (rusqlite's own String conversion would panic).
    let text = |value: ValueRef<'_>| match value {
        ValueRef::Text(bytes) => std::str::from_utf8(bytes).ok().map(str::to_owned),
        _ => None,
    };
    let db = home.state_db()?;
    let rows = ask_state_db(&db, |conn| {
        let mut statement = conn.prepare("SELECT id, rollout_path FROM threads")?;
        let rows =
            statement.query_map([], |row| Ok((text(row.get_ref(0)?), text(row.get_ref(1)?))))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
    })?;
    let mut readable = ThreadRows {
        rows: Vec::with_capacity(rows.len()),
        skipped: 0,
    };
    for row in rows {
        match row {
            (Some(id), Some(path)) => readable
                .rows
                .push((id.to_ascii_lowercase(), existing(Path::new(&path)))),
            _ => readable.skipped += 1,
        }
    }
    Some(readable)
}

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use super::*;

    #[test]
    fn a_home_is_walked_once_for_every_parent_looked_up() {
        let dir = tempfile::tempdir().unwrap();
        let day = dir.path().join("sessions/2026/01/01");
        std::fs::create_dir_all(&day).unwrap();
        let id = Uuid::parse_str("019c1f40-2b7e-7a9d-8c31-6d5e4f3a2b10").unwrap();
        let path = day.join(format!("rollout-2026-01-01T00-00-00-{id}.jsonl"));
        std::fs::write(&path, "{}\n").unwrap();
        let home = CodexHome {
            dir: dir.path().to_path_buf(),
            from_env: false,
        };
        let first = index(&home);
        for _ in 0..100 {
            assert_eq!(
                find_rollout(std::slice::from_ref(&home), id, Path::new("/")),
                Some(path.clone())
            );
        }
        assert!(
            std::sync::Arc::ptr_eq(&first, &index(&home)),
            "the home was walked again"
        );
    }

    #[test]
    fn codex_home_comes_from_codex_home_then_home() {
        let os = |s: &str| Some(OsString::from(s));
        let home = |dir: &str, from_env| {
            Some(CodexHome {
                dir: dir.into(),
                from_env,
            })
        };
        assert_eq!(CodexHome::from_env(os("/c"), os("/h")), home("/c", true));
        assert_eq!(
            CodexHome::from_env(os(""), os("/h")),
            home("/h/.codex", false)
        );
        assert_eq!(
            CodexHome::from_env(None, os("/h")),
            home("/h/.codex", false)
        );
        assert_eq!(CodexHome::from_env(None, os("")), None);
        assert_eq!(CodexHome::from_env(None, None), None);
    }

    #[test]
    fn rollout_names_as_codex_writes_them() {
        // rollout_file_name_tests.rs at the reference commit.
        let t = Uuid::parse_str("019ff1a2-b3c4-7d5e-8f60-112233445566").unwrap();
        let r = Uuid::parse_str("019ff1a2-b3c4-7d5e-8f60-667788990011").unwrap();
        let plain = RolloutName::parse(
            "rollout-2026-08-11T18-42-07-019ff1a2-b3c4-7d5e-8f60-112233445566.jsonl",
        )
        .unwrap();
        assert_eq!(
            (plain.thread, plain.rollout, plain.compressed),
            (t, t, false)
        );
        let reverted = RolloutName::parse(
            "rollout-2026-08-11T18-42-07-019ff1a2-b3c4-7d5e-8f60-112233445566_019ff1a2-b3c4-7d5e-8f60-667788990011.jsonl.zst",
        )
        .unwrap();
        assert_eq!(
            (reverted.thread, reverted.rollout, reverted.compressed),
            (t, r, true)
        );
        assert_eq!(plain.stamp, reverted.stamp);
        for bad in [
            "rollout-2026-08-11T18-42-07-notauuid.jsonl",
            "rollout-2025-05-01-019ff1a2-b3c4-7d5e-8f60-112233445566.jsonl",
            "rollout-2026-08-11T18-42-07-019ff1a2-b3c4-7d5e-8f60-112233445566.json",
        ] {
            assert_eq!(RolloutName::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn rollout_file_names() {
        assert!(is_rollout_name(b"rollout-2026-02-11T09-14-02-abc.jsonl"));
        assert!(is_rollout_name(b"rollout-x.jsonl"));
        assert!(is_rollout_name(b"rollout-x.jsonl.zst"));
        assert!(!is_rollout_name(b"rollout-jsonl"));
        assert!(!is_rollout_name(b"rollout-x.json"));
        assert!(!is_rollout_name(b"history.jsonl"));
    }

    #[test]
    fn the_plain_file_wins_over_its_compressed_copy() {
        let mut paths = vec![
            PathBuf::from("a/rollout-1.jsonl.zst"),
            PathBuf::from("a/rollout-1.jsonl"),
            PathBuf::from("a/rollout-2.jsonl.zst"),
        ];
        plain_wins(&mut paths);
        assert_eq!(
            paths,
            [
                PathBuf::from("a/rollout-1.jsonl"),
                PathBuf::from("a/rollout-2.jsonl.zst")
            ]
        );
    }

    #[test]
    fn reads_the_time_in_codex_file_names() {
        let stamp = |name: &str| name_time(name).map(|s| s.to_string());
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
        let at = |name: &str| name_time(name);
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
