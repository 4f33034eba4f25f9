//! Helpers shared by the integration tests: the binary, a META line, and scratch directories
//! whose files are dated in the past, so that any write by rollcall would show.
#![allow(dead_code, clippy::expect_used, clippy::unwrap_used, clippy::panic)] // not every test uses all

use std::ffi::OsString;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use assert_cmd::Command;

pub const META: &str = r#"{"type":"session_meta","payload":{"id":"thread-1"}}"#;

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
