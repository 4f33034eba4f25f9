//! Codex's state database is read as the docs promise: opened read-only as an immutable file, so
//! SQLite creates, writes and locks nothing and never waits; one bad row costs that row only.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // tests fail by panicking

use std::fs;
use std::path::Path;
use std::time::Duration;

use crate::common::{backdate, binary, names_in, run, state_db};

const THREAD: &str = "019c1f40-2b7e-7a9d-8c31-6d5e4f3a2b10";

/// A Codex home holding the crashed fixture, indexed by a WAL-mode `state_5.sqlite`.
fn home(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let day = dir.join("sessions/2026/02/11");
    fs::create_dir_all(&day).unwrap();
    let rollout = day.join(format!("rollout-2026-02-11T09-14-02-{THREAD}.jsonl"));
    fs::copy("fixtures/codex/crash_mid_tool_call/rollout.jsonl", &rollout).unwrap();
    let db = dir.join("state_5.sqlite");
    state_db(&db, &[(THREAD, &rollout)]);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("PRAGMA journal_mode=WAL;").unwrap();
    drop(conn);
    // A clean close removes -wal and -shm; what is left is the database alone.
    for file in [&db, &rollout] {
        backdate(file);
    }
    (db, rollout)
}

fn rollcall(home: &Path, args: &[&str]) -> crate::common::Run {
    let mut cmd = std::process::Command::new(binary());
    cmd.env("CODEX_HOME", home)
        .env("CLAUDE_CONFIG_DIR", home.join("no-claude"))
        .args(args);
    run(&mut cmd, Duration::from_secs(60))
}

#[test]
fn a_wal_database_is_read_without_creating_or_changing_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = home(dir.path());
    let before = names_in(dir.path());
    let modified = fs::metadata(&db).unwrap().modified().unwrap();
    let looked_up = rollcall(dir.path(), &["replay", "--report", "--json", THREAD]);
    assert_eq!(looked_up.status, 0, "{}", looked_up.stderr);
    let scanned = rollcall(dir.path(), &["scan", "--json"]);
    assert_eq!(scanned.status, 0, "{}", scanned.stderr);
    assert_eq!(
        names_in(dir.path()),
        before,
        "a -wal, -shm or journal file appeared"
    );
    assert_eq!(fs::metadata(&db).unwrap().modified().unwrap(), modified);
    let row: serde_json::Value =
        serde_json::from_slice(scanned.stdout.split(|&b| b == b'\n').next().unwrap()).unwrap();
    assert_eq!(row["unindexed"], false, "the row was read: {row}");
}

#[cfg(unix)]
#[test]
fn a_fifo_beside_the_database_does_not_hang_it() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = home(dir.path());
    for suffix in ["-journal", "-wal", "-shm"] {
        let fifo = std::ffi::CString::new(format!("{}{suffix}", db.display())).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    }
    // `run` fails the test if either command does not end.
    assert_eq!(
        rollcall(dir.path(), &["replay", "--report", THREAD]).status,
        0
    );
    assert_eq!(rollcall(dir.path(), &["scan"]).status, 0);
}

#[test]
fn a_database_locked_by_a_writer_is_read_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = home(dir.path());
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer
        .execute_batch(
            "PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; UPDATE threads SET title = 'x';",
        )
        .unwrap();
    let scanned = rollcall(dir.path(), &["scan", "--json"]);
    assert_eq!(scanned.status, 0, "{}", scanned.stderr);
    let row: serde_json::Value =
        serde_json::from_slice(scanned.stdout.split(|&b| b == b'\n').next().unwrap()).unwrap();
    assert_eq!(row["unindexed"], false, "{row}");
    writer.execute_batch("ROLLBACK;").unwrap();
}

#[test]
fn a_bad_row_is_skipped_and_said_and_the_rest_kept() {
    let dir = tempfile::tempdir().unwrap();
    let (db, rollout) = home(dir.path());
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("PRAGMA journal_mode=DELETE;").unwrap();
    // Codex's column is NOT NULL; a damaged or foreign database can still hold these.
    conn.execute_batch(
        "CREATE TABLE t2 AS SELECT * FROM threads; DROP TABLE threads; \
         ALTER TABLE t2 RENAME TO threads;",
    )
    .unwrap();
    conn.execute(
        "INSERT INTO threads (id, rollout_path, created_at, updated_at, source, model_provider, \
         cwd, title, sandbox_policy, approval_mode) VALUES ('019c0000-0000-7000-8000-000000000001', \
         NULL, 0, 0, 'cli', 'openai', '/', '', '', '')",
        [],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO threads (id, rollout_path, created_at, updated_at, source, model_provider, \
         cwd, title, sandbox_policy, approval_mode) VALUES ('019c0000-0000-7000-8000-000000000002', \
         CAST(X'2F746D702FFF' AS TEXT), 0, 0, 'cli', 'openai', '/', '', '', '')",
        [],
    )
    .unwrap();
    // A row for a rollout that is gone is still found.
    let gone = rollout.with_file_name(format!(
        "rollout-2026-02-11T09-15-02-{}.jsonl",
        "019c0000-0000-7000-8000-000000000003"
    ));
    conn.execute(
        "INSERT INTO threads (id, rollout_path, created_at, updated_at, source, model_provider, \
         cwd, title, sandbox_policy, approval_mode) VALUES ('019c0000-0000-7000-8000-000000000003', \
         ?1, 0, 0, 'cli', 'openai', '/', '', '', '')",
        [gone.display().to_string()],
    )
    .unwrap();
    drop(conn);
    let scanned = rollcall(dir.path(), &["scan", "--json"]);
    assert_eq!(scanned.status, 0, "{}", scanned.stderr);
    assert!(
        scanned
            .stderr
            .contains("2 threads rows without a readable id and rollout_path"),
        "{}",
        scanned.stderr
    );
    let rows: Vec<serde_json::Value> = scanned
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert!(
        rows.iter().any(|r| r["status"] == "missing-file"),
        "{rows:?}"
    );
    assert!(rows.iter().any(|r| r["unindexed"] == false), "{rows:?}");
}
