//! `rollcall repair`: the copy is written where the agent looks, replays to the same view with
//! nothing `--strict` fails on, and every failure leaves the original as it was and no file
//! behind. Whether the real clients resume the copies as promised is the live checks' part
//! (scripts/live/); here rollcall itself reads them back.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // tests fail by panicking

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use assert_cmd::Command;

const CRASH: &str = "fixtures/codex/crash_mid_tool_call/rollout.jsonl";
const THREAD: &str = "019c1f40-2b7e-7a9d-8c31-6d5e4f3a2b10";

fn rollcall(home: &Path) -> Command {
    let mut cmd = Command::cargo_bin("rollcall").unwrap();
    cmd.env("CODEX_HOME", home.join("codex"))
        .env("CLAUDE_CONFIG_DIR", home.join("claude"))
        .env_remove("HOME");
    cmd
}

/// A Codex home with the crashed fixture in it, as Codex names it; returns the rollout's path.
fn codex_home(dir: &Path) -> PathBuf {
    let day = dir.join("codex/sessions/2026/02/11");
    fs::create_dir_all(&day).unwrap();
    let path = day.join(format!("rollout-2026-02-11T09-14-02-{THREAD}.jsonl"));
    fs::copy(CRASH, &path).unwrap();
    path
}

fn snapshot(path: &Path) -> (Vec<u8>, SystemTime) {
    (
        fs::read(path).unwrap(),
        fs::metadata(path).unwrap().modified().unwrap(),
    )
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn view(home: &Path, path: &Path) -> String {
    let out = rollcall(home)
        .arg("repair-view")
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// What `rollcall repair --json` says it wrote, after checking that it succeeded.
fn repair_json(home: &Path, original: &Path) -> serde_json::Value {
    let out = rollcall(home)
        .args(["repair", "--json"])
        .arg(original)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_codex_copy_lands_in_the_home_and_resumes_as_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let original = codex_home(dir.path());
    let before = snapshot(&original);
    let written = repair_json(dir.path(), &original);
    let copy = PathBuf::from(written["path"].as_str().unwrap());
    let id = written["id"].as_str().unwrap();
    assert_eq!(written["agent"], "codex");
    assert_eq!(written["resume_command"], format!("codex resume {id}"));
    assert_eq!(written["repairs"]["missing_outputs"], 1);
    assert!(copy.starts_with(dir.path().join("codex/sessions")));
    let name = copy.file_name().unwrap().to_str().unwrap();
    assert!(name.starts_with("rollout-") && name.ends_with(&format!("-{id}.jsonl")));
    assert_eq!(uuid::Uuid::parse_str(id).unwrap().get_version_num(), 7);
    assert_eq!(snapshot(&original), before, "the original changed");
    assert_eq!(view(dir.path(), &copy), view(dir.path(), &original));
    rollcall(dir.path())
        .args(["replay", "--strict"])
        .arg(&copy)
        .assert()
        .success();
    // The copy is self-contained: it names its origin, not a parent to read.
    let first = fs::read_to_string(&copy).unwrap();
    let meta: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    assert_eq!(meta["payload"]["forked_from_id"], THREAD);
    assert_eq!(meta["payload"]["id"], id);
    assert!(meta["payload"].get("history_base").is_none());
    // Only the copy was added.
    assert_eq!(files_under(dir.path()), {
        let mut both = vec![original.clone(), copy.clone()];
        both.sort();
        both
    });
}

#[test]
fn a_claude_copy_is_one_chain_in_the_project_folder() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("claude/projects/-home-dev-src-tidepool");
    fs::create_dir_all(&project).unwrap();
    let story = "fixtures/claude/crash_between_tool_use_and_result";
    let name = "5e55a0c2-0002-4000-8000-000000000000.jsonl";
    let original = project.join(name);
    fs::copy(Path::new(story).join(name), &original).unwrap();
    let before = snapshot(&original);
    let written = repair_json(dir.path(), &original);
    let id = written["id"].as_str().unwrap();
    let copy = project.join(format!("{id}.jsonl"));
    assert_eq!(written["path"], copy.display().to_string());
    assert_eq!(written["resume_command"], format!("claude --resume {id}"));
    assert_eq!(snapshot(&original), before, "the original changed");
    assert_eq!(view(dir.path(), &copy), view(dir.path(), &original));
    let text = fs::read_to_string(&copy).unwrap();
    let entries: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut parent = serde_json::Value::Null;
    for entry in &entries {
        assert_eq!(entry["parentUuid"], parent, "one linear chain");
        assert_eq!(entry["sessionId"], id);
        assert_eq!(entry["isSidechain"], false);
        assert!(entry["timestamp"].is_string());
        parent = entry["uuid"].clone();
    }
    rollcall(dir.path())
        .args(["replay", "--strict"])
        .arg(&copy)
        .assert()
        .success();
}

#[test]
fn dry_run_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let original = codex_home(dir.path());
    let out = rollcall(dir.path())
        .args(["repair", "--dry-run"])
        .arg(&original)
        .output()
        .unwrap();
    assert!(out.status.success());
    let said = String::from_utf8(out.stdout).unwrap();
    assert!(said.starts_with("would write "), "{said}");
    assert_eq!(files_under(dir.path()), vec![original]);
}

#[test]
fn an_existing_target_is_never_written_over() {
    let dir = tempfile::tempdir().unwrap();
    let original = codex_home(dir.path());
    let target = dir.path().join("taken.jsonl");
    fs::write(&target, "mine").unwrap();
    let out = rollcall(dir.path())
        .arg("repair")
        .arg(&original)
        .arg("-o")
        .arg(&target)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("already exists"), "{stderr}");
    assert_eq!(fs::read(&target).unwrap(), b"mine");
    assert_eq!(files_under(dir.path()).len(), 2);
}

#[test]
fn a_folder_that_cannot_be_written_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let original = codex_home(dir.path());
    let before = snapshot(&original);
    // /proc takes no new file, even from root.
    let out = rollcall(dir.path())
        .arg("repair")
        .arg(&original)
        .args(["-o", "/proc/rollcall-copy.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("creating a temporary file in /proc"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(snapshot(&original), before);
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_leaves_no_file_behind() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let original = codex_home(dir.path());
    let out_dir = dir.path().join("out");
    fs::create_dir(&out_dir).unwrap();
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("rollcall"));
    cmd.env("CODEX_HOME", dir.path().join("codex"))
        .arg("repair")
        .arg(&original)
        .arg("-o")
        .arg(out_dir.join("copy.jsonl"));
    // A file size limit of 100 bytes fails the write as a full disk would (EFBIG), once the
    // signal it would raise is ignored.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: 100,
                rlim_max: 100,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("writing the copy into"), "{stderr}");
    assert_eq!(
        fs::read_dir(&out_dir).unwrap().count(),
        0,
        "a file was left behind"
    );
}

#[test]
fn a_session_still_being_written_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let original = codex_home(dir.path());
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (started, writing) = std::sync::mpsc::channel();
    // The read must last long enough that the writer appends during it however loaded the
    // machine is (a read of a few milliseconds fell between two of its turns on the CPU): 16 MiB
    // of blank lines take a debug build a few tenths of a second. rollcall starts only once the
    // writer has appended.
    let mut file = fs::OpenOptions::new().append(true).open(&original).unwrap();
    std::io::Write::write_all(&mut file, &vec![b'\n'; 16 << 20]).unwrap();
    let writer = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            use std::io::Write;
            file.write_all(b"\n").unwrap();
            started.send(()).unwrap();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                file.write_all(b"\n").unwrap();
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
        })
    };
    writing.recv().unwrap();
    let out = rollcall(dir.path())
        .arg("repair")
        .arg(&original)
        .output()
        .unwrap();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("changed while it was read"), "{stderr}");
    assert_eq!(files_under(dir.path()), vec![original]);
}

#[cfg(target_os = "linux")]
#[test]
fn a_held_codex_writer_lock_is_refused_unless_forced() {
    use std::os::fd::AsRawFd;
    let dir = tempfile::tempdir().unwrap();
    let original = codex_home(dir.path());
    let locks = dir.path().join("codex/thread-writer-locks");
    fs::create_dir_all(&locks).unwrap();
    let lock = fs::File::create(locks.join(format!("{THREAD}.lock"))).unwrap();
    assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) }, 0);
    let out = rollcall(dir.path())
        .arg("repair")
        .arg(&original)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("holds its writer lock"), "{stderr}");
    rollcall(dir.path())
        .args(["repair", "--force"])
        .arg(&original)
        .assert()
        .success();
    drop(lock);
    // A lock file left behind by a Codex that exited holds no lock.
    rollcall(dir.path())
        .arg("repair")
        .arg(&original)
        .assert()
        .success();
}

#[test]
fn latest_picks_the_newest_session_of_the_current_folder() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    fs::create_dir(&work).unwrap();
    let work = fs::canonicalize(&work).unwrap();
    let cwd = work.to_str().unwrap();
    // A Codex rollout started in `work`, and an older one started elsewhere.
    let original = codex_home(dir.path());
    let text = fs::read_to_string(&original).unwrap();
    let (first, rest) = text.split_once('\n').unwrap();
    let mut meta: serde_json::Value = serde_json::from_str(first).unwrap();
    meta["payload"]["cwd"] = cwd.into();
    let mine = original.with_file_name(format!(
        "rollout-2026-02-12T09-14-02-{}.jsonl",
        "019c1f40-2b7e-7a9d-8c31-000000000001"
    ));
    fs::write(&mine, format!("{meta}\n{rest}")).unwrap();
    let out = rollcall(dir.path())
        .current_dir(&work)
        .args(["replay", "--report", "--json", "--latest"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["file"], mine.display().to_string());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("the newest session of"), "{stderr}");
    // A Claude Code session of the same folder, written later, wins.
    let project = dir.path().join("claude/projects").join(
        cwd.chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect::<String>(),
    );
    fs::create_dir_all(&project).unwrap();
    let name = "5e55a0c2-0001-4000-8000-000000000000.jsonl";
    std::thread::sleep(std::time::Duration::from_millis(20));
    fs::copy(
        Path::new("fixtures/claude/clean_session").join(name),
        project.join(name),
    )
    .unwrap();
    let out = rollcall(dir.path())
        .current_dir(&work)
        .args(["replay", "--report", "--json", "--latest"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["file"], project.join(name).display().to_string());
    // A folder no session was started in.
    let out = rollcall(dir.path())
        .current_dir(dir.path())
        .args(["repair-view", "--latest"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no Codex or Claude Code session"));
}

#[test]
fn leaf_copies_another_branch_of_a_claude_session() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("claude/projects/-home-dev-src-tidepool");
    fs::create_dir_all(&project).unwrap();
    let name = "5e55a0c2-0006-4000-8000-000000000000.jsonl";
    let original = project.join(name);
    fs::copy(
        Path::new("fixtures/claude/stale_branch_latest_timestamp").join(name),
        &original,
    )
    .unwrap();
    let other = "7f3a0c2e-0006-4000-8000-000000000004";
    let copy = project.join("11111111-2222-4333-8444-555555555555.jsonl");
    let out = rollcall(dir.path())
        .args(["repair", "--json", "--leaf", other, "-o"])
        .arg(&copy)
        .arg(&original)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Named <uuid>.jsonl, the copy is the session of that uuid.
    assert_eq!(written["id"], "11111111-2222-4333-8444-555555555555");
    assert_eq!(written["repairs"]["other_branches"], 1);
    let branch = rollcall(dir.path())
        .args(["repair-view", "--leaf", other])
        .arg(&original)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(branch.stdout).unwrap(),
        view(dir.path(), &copy)
    );
    // A uuid no entry has is refused, in one line.
    let out = rollcall(dir.path())
        .args([
            "repair-view",
            "--leaf",
            "7f3a0c2e-0006-4000-8000-0000000000ff",
        ])
        .arg(&original)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no entry of this session has that uuid")
    );
}
