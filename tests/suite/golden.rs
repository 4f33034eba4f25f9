//! Golden tests: every story in `fixtures/<agent>/<story>/` run through the binary, whole outputs
//! compared with the expected files beside its log.
//!
//! - `replay.jsonl`, `view.jsonl`, `view-<name>.jsonl`: written by hand from SPEC.md (or from the
//!   agent's own tests), never regenerated. `view-text`, `view-audio` and `view-all` are the
//!   views for those modalities; any other `view-<name>.jsonl` has its `repair-view` arguments
//!   on a line `view-<name>.jsonl: ARGS` of the story's `args.txt`.
//! - `report.txt`, `report.json`, `diff.txt`, `text.txt`: rendered output, reviewed when it
//!   changes; `ROLLCALL_BLESS=1 cargo test --test all golden::` rewrites them.
//! - `stderr`: the input is unusable; every command must exit 1 with exactly this stderr.
//!
//! The log is the story's one other `*.jsonl` file (`rollout.jsonl` for Codex; a Claude Code
//! session is named by its session id).
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // tests fail by panicking

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// Whether a story's JSONL file is an expected output, not its log.
fn is_output(name: &str) -> bool {
    name == "replay.jsonl" || (name.starts_with("view") && name.ends_with(".jsonl"))
}

/// The `repair-view` arguments of each expected view of the story whose log is `input`.
fn views(input: &Path) -> Vec<(PathBuf, Vec<String>)> {
    let story = input.parent().expect("a story folder");
    let listed = fs::read_to_string(story.join("args.txt")).unwrap_or_default();
    let mut views = Vec::new();
    for entry in fs::read_dir(story).expect("readable story") {
        let path = entry.expect("readable entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        if !(name.starts_with("view") && name.ends_with(".jsonl")) {
            continue;
        }
        let modalities = match name.as_str() {
            "view.jsonl" => Some("text,image"),
            "view-text.jsonl" => Some("text"),
            "view-audio.jsonl" => Some("text,audio"),
            "view-all.jsonl" => Some("text,image,audio"),
            _ => None,
        };
        let args: Vec<String> = match modalities {
            Some(m) => vec!["--modalities".into(), m.into()],
            None => {
                let line = listed
                    .lines()
                    .find_map(|line| line.strip_prefix(&format!("{name}:")))
                    .unwrap_or_else(|| {
                        panic!("{}: no line for {name} in args.txt", story.display())
                    });
                line.split_whitespace().map(String::from).collect()
            }
        };
        views.push((path, args));
    }
    views.sort();
    views
}

/// The log of each story, sorted.
fn fixtures() -> Vec<PathBuf> {
    let mut inputs = Vec::new();
    for agent in fs::read_dir("fixtures").expect("fixtures/ exists") {
        let agent = agent.expect("readable entry").path();
        // `fixtures/home` is a home folder for the README's examples, not a set of stories.
        if !agent.is_dir() || agent.ends_with("home") {
            continue;
        }
        for story in fs::read_dir(&agent).expect("readable agent folder") {
            let story = story.expect("readable entry").path();
            if !story.is_dir() {
                continue;
            }
            let logs: Vec<PathBuf> = fs::read_dir(&story)
                .expect("readable story")
                .map(|e| e.expect("readable entry").path())
                .filter(|p| {
                    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                    name.ends_with(".jsonl") && !is_output(name) && p.is_file()
                })
                .collect();
            assert_eq!(logs.len(), 1, "{}: one log per story", story.display());
            inputs.extend(logs);
        }
    }
    inputs.sort();
    assert!(
        inputs.len() >= 12,
        "expected the fixture set, found {inputs:?}"
    );
    inputs
}

fn beside(input: &Path, name: &str) -> PathBuf {
    input.with_file_name(name)
}

/// Runs rollcall on `input`, with the shipped Codex home's `config.toml` naming the resuming
/// model (gpt-5.5, the model SPEC §11.1's live check resumes with and the views were written
/// for), whatever the machine's own home holds.
fn run(args: &[&str], input: &Path) -> std::process::Output {
    Command::cargo_bin("rollcall")
        .expect("binary built")
        .env("CODEX_HOME", "fixtures/home/.codex")
        .args(["--color", "never"])
        .args(args)
        .arg(input)
        .output()
        .expect("rollcall runs")
}

/// Compares `actual` with the file, or rewrites the file when blessing.
fn check(expected: &Path, actual: &[u8], failures: &mut Vec<String>) {
    if std::env::var_os("ROLLCALL_BLESS").is_some() {
        fs::write(expected, actual).expect("golden file writable");
        return;
    }
    match fs::read(expected) {
        Ok(want) if want == actual => {}
        Ok(want) => failures.push(format!(
            "{}: output differs\n--- expected\n{}\n--- actual\n{}",
            expected.display(),
            String::from_utf8_lossy(&want),
            String::from_utf8_lossy(actual)
        )),
        Err(e) => failures.push(format!("{}: {e}", expected.display())),
    }
}

fn assert_none(failures: Vec<String>) {
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn usable(input: &Path) -> bool {
    !beside(input, "stderr").exists()
}

#[test]
fn replay_prints_the_expected_history() {
    let mut failures = Vec::new();
    for input in fixtures().iter().filter(|i| usable(i)) {
        let expected = beside(input, "replay.jsonl");
        if !expected.exists() {
            failures.push(format!("{}: missing", expected.display()));
            continue;
        }
        let out = run(&["replay"], input);
        assert_eq!(out.status.code(), Some(0), "{}", input.display());
        assert!(out.stderr.is_empty(), "{}", input.display());
        if fs::read(&expected).ok().as_deref() != Some(&out.stdout[..]) {
            failures.push(format!(
                "{}: replay differs:\n{}",
                input.display(),
                String::from_utf8_lossy(&out.stdout)
            ));
        }
    }
    assert_none(failures);
}

#[test]
fn repair_view_prints_the_expected_view_for_each_modality() {
    let mut failures = Vec::new();
    let mut compared = 0;
    for input in fixtures().iter().filter(|i| usable(i)) {
        let views = views(input);
        // A client's capture beside the log is its expected view (`captures.rs`).
        let captured = fs::read_dir(input.parent().expect("a story"))
            .expect("readable story")
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("capture."));
        if !captured && !views.iter().any(|(path, _)| path.ends_with("view.jsonl")) {
            failures.push(format!("{}: no view.jsonl", input.display()));
        }
        for (expected, args) in views {
            compared += 1;
            let mut all = vec!["repair-view"];
            all.extend(args.iter().map(String::as_str));
            let out = run(&all, input);
            assert_eq!(out.status.code(), Some(0), "{} {args:?}", input.display());
            if fs::read(&expected).ok().as_deref() != Some(&out.stdout[..]) {
                failures.push(format!(
                    "{} ({args:?}): view differs:\n{}",
                    expected.display(),
                    String::from_utf8_lossy(&out.stdout)
                ));
            }
        }
    }
    assert!(compared > 20, "only {compared} views compared");
    assert_none(failures);
}

#[test]
fn rendered_outputs_match_their_goldens() {
    let mut failures = Vec::new();
    for input in fixtures().iter().filter(|i| usable(i)) {
        for (suffix, args) in [
            ("report.txt", &["replay", "--report"][..]),
            ("report.json", &["replay", "--report", "--json"][..]),
            ("diff.txt", &["repair-view", "--diff"][..]),
            ("text.txt", &["repair-view", "--format", "text"][..]),
        ] {
            let out = run(args, input);
            assert_eq!(out.status.code(), Some(0), "{} {args:?}", input.display());
            check(&beside(input, suffix), &out.stdout, &mut failures);
        }
    }
    assert_none(failures);
}

#[test]
fn unusable_fixtures_fail_with_one_line() {
    let mut seen = 0;
    for input in fixtures().iter().filter(|i| !usable(i)) {
        seen += 1;
        let want = fs::read_to_string(beside(input, "stderr")).expect("stderr golden");
        for args in [
            &["replay"][..],
            &["replay", "--report", "--json"],
            &["repair-view", "--diff"],
        ] {
            let out = run(args, input);
            assert_eq!(out.status.code(), Some(1), "{} {args:?}", input.display());
            assert!(out.stdout.is_empty(), "{} {args:?}", input.display());
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                want,
                "{}",
                input.display()
            );
        }
    }
    assert!(seen >= 3, "expected the unusable fixtures");
}
