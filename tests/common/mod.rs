//! Helpers shared by the integration tests: the binary, a META line, and scratch directories
//! whose files are dated in the past, so that any write by rollcall would show.
#![allow(dead_code, clippy::expect_used, clippy::unwrap_used, clippy::panic)] // not every test uses all

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant, SystemTime};

use assert_cmd::Command;

/// A mini-dialect session_meta: the tests write mini records after it (after a Codex
/// session_meta, Codex, and so rollcall, would ignore them: SPEC §11.2).
pub const META: &str = r#"{"type":"session_meta","thread_id":"thread-1"}"#;

/// Every command that reads one session, in each of its output forms.
pub const SESSION_COMMANDS: [&[&str]; 7] = [
    &["replay"],
    &["replay", "--report"],
    &["replay", "--report", "--json"],
    &["repair-view"],
    &["repair-view", "--format", "text"],
    &["repair-view", "--format", "json"],
    &["repair-view", "--diff"],
];

/// The binary, with colour off so outputs compare as text.
pub fn rollcall() -> Command {
    let mut cmd = Command::cargo_bin("rollcall").expect("binary built");
    cmd.args(["--color", "never"]);
    cmd
}

pub fn binary() -> PathBuf {
    assert_cmd::cargo::cargo_bin("rollcall")
}

pub fn stderr_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A scratch directory for one test, removed when it ends.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("rollcall-test-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("temp dir");
        Scratch(dir)
    }

    /// Writes a source file, dated in the past so that any write by rollcall would show.
    pub fn file(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(name);
        fs::write(&path, bytes).expect("write fixture");
        backdate(&path);
        path
    }

    pub fn names(&self) -> Vec<OsString> {
        names_in(&self.0)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

pub fn backdate(path: &Path) {
    let past = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(past))
        .expect("set mtime");
}

pub fn names_in(dir: &Path) -> Vec<OsString> {
    let mut names: Vec<_> = fs::read_dir(dir)
        .expect("list dir")
        .map(|e| e.expect("dir entry").file_name())
        .collect();
    names.sort();
    names
}

/// What a run printed, how it ended, and its peak resident memory.
pub struct Run {
    pub status: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
    /// Peak resident memory, as the kernel counts it; it includes the memory of this process
    /// when the child was started, so tests that read it keep theirs small.
    pub peak_kib: i64,
}

/// Runs `cmd` to its end (at most `limit`: longer is a hang, and fails the test), and measures
/// its peak resident memory from the kernel's own count (`wait4`).
// The child is reaped by `wait4`, which std's `Child` does not know of.
#[allow(clippy::zombie_processes)]
pub fn run(cmd: &mut std::process::Command, limit: Duration) -> Run {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            pipe.read_to_end(&mut bytes).unwrap();
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let pid = child.id() as libc::pid_t;
    let start = Instant::now();
    let (mut status, mut usage) = (0, unsafe { std::mem::zeroed::<libc::rusage>() });
    loop {
        // SAFETY: `pid` is our child, not yet reaped (std's `Child` is never waited on here).
        let reaped = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if reaped == pid {
            break;
        }
        assert!(reaped == 0, "wait4 failed");
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("{cmd:?} did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        panic!("{cmd:?} was killed by signal {}", libc::WTERMSIG(status));
    };
    Run {
        status: code,
        stdout: stdout.join().unwrap(),
        stderr: String::from_utf8_lossy(&stderr.join().unwrap()).into_owned(),
        peak_kib: usage.ru_maxrss,
    }
}

/// A `state_5.sqlite` with the `threads` columns Codex's migrations leave (the ones look-up
/// reads, and enough of the rest to be the real shape).
pub fn state_db(path: &Path, rows: &[(&str, &Path)]) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(
        "CREATE TABLE threads (
            id TEXT PRIMARY KEY,
            rollout_path TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            source TEXT NOT NULL,
            model_provider TEXT NOT NULL,
            cwd TEXT NOT NULL,
            title TEXT NOT NULL,
            sandbox_policy TEXT NOT NULL,
            approval_mode TEXT NOT NULL,
            tokens_used INTEGER NOT NULL DEFAULT 0,
            has_user_event INTEGER NOT NULL DEFAULT 0,
            archived INTEGER NOT NULL DEFAULT 0,
            archived_at INTEGER,
            git_sha TEXT,
            git_branch TEXT,
            git_origin_url TEXT,
            history_mode TEXT NOT NULL DEFAULT 'legacy'
        );",
    )
    .unwrap();
    for (id, path) in rows {
        conn.execute(
            "INSERT INTO threads (id, rollout_path, created_at, updated_at, source, \
             model_provider, cwd, title, sandbox_policy, approval_mode, history_mode) \
             VALUES (?1, ?2, 1787220000, 1787220000, 'vscode', 'openai', '/srv/app', '', \
             'workspace-write', 'on-request', 'paginated')",
            rusqlite::params![id, path.display().to_string()],
        )
        .unwrap();
    }
}
