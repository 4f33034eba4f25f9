//! Claude Code's forked subagents (SPEC §11.3.14): a subagent's transcript that starts with a
//! `fork-context-ref` inherits its parent session's chain up to `parentLastUuid`, as Claude Code
//! 2.1.328 hydrates it when the agent is messaged again (the stories' agent captures are what it
//! sent; `captures.rs` compares the views). These tests check what the report says of the
//! lineage: the files read, the inherited entries, and the findings when the parent is missing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{Value, json};

/// The story's session file and its forked subagent's transcript.
fn story(name: &str) -> (PathBuf, PathBuf) {
    let story = Path::new("fixtures/claude").join(name);
    let mut session = None;
    for e in fs::read_dir(&story).unwrap() {
        let p = e.unwrap().path();
        let n = p.file_name().unwrap().to_string_lossy().into_owned();
        if n.starts_with("5e55a0c2-") && n.ends_with(".jsonl") {
            session = Some(p);
        }
    }
    let session = session.unwrap();
    let subagents = session.with_extension("").join("subagents");
    let agent = fs::read_dir(&subagents)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .unwrap();
    (session, agent)
}

fn rollcall(args: &[&str], file: &Path, home: Option<&Path>) -> std::process::Output {
    let mut cmd = Command::cargo_bin("rollcall").unwrap();
    cmd.env_remove("CODEX_HOME").env("HOME", "/nonexistent");
    match home {
        Some(h) => cmd.env("CLAUDE_CONFIG_DIR", h),
        None => cmd.env("CLAUDE_CONFIG_DIR", "/nonexistent"),
    };
    cmd.args(args).arg(file).output().unwrap()
}

fn report(file: &Path, home: Option<&Path>) -> Value {
    serde_json::from_slice(&rollcall(&["replay", "--report", "--json"], file, home).stdout).unwrap()
}

fn codes(report: &Value) -> Vec<String> {
    report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["code"].as_str().unwrap().to_owned())
        .collect()
}

/// Lines of a file as JSON values.
fn lines(path: &Path) -> Vec<Value> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_forked_subagent_inherits_its_parent_sessions_chain() {
    let (session, agent) = story("fork_context_ref");
    let r = report(&agent, None);
    assert_eq!(
        r["files_read"],
        json!([session.display().to_string(), agent.display().to_string()])
    );
    // parentLastUuid is the session's 4th entry; its sibling result (the 5th) comes with it.
    let parent = lines(&session);
    assert_eq!(
        r["fork"],
        json!({"parent_session": parent[0]["sessionId"], "parent_last_uuid": parent[3]["uuid"],
               "inherited_entries": 5, "missing": null})
    );
    // The fork's own entries: every line but the fork-context-ref.
    assert_eq!(r["history_items"], json!(5 + lines(&agent).len() - 1));
    let codes = codes(&r);
    assert!(
        !codes.iter().any(|c| c.starts_with("missing-fork")),
        "{codes:?}"
    );
}

#[test]
fn no_lineage_reads_a_fork_alone() {
    let (_, agent) = story("fork_context_ref");
    let out = rollcall(&["repair-view", "--no-lineage"], &agent, None);
    let first: Value =
        serde_json::from_slice(out.stdout.split(|&b| b == b'\n').next().unwrap()).unwrap();
    // Its placeholder result answers nothing there: the fork's directive text comes first.
    let own = &lines(&agent)[1]["message"]["content"];
    assert_eq!(first["content"], json!([own[1]]));
    let r: Value = serde_json::from_slice(
        &rollcall(
            &["replay", "--report", "--json", "--no-lineage"],
            &agent,
            None,
        )
        .stdout,
    )
    .unwrap();
    assert_eq!(r["fork"], Value::Null);
    assert_eq!(r["files_read"], json!([agent.display().to_string()]));
}

#[test]
fn a_fork_whose_parent_session_is_missing_is_an_error_finding() {
    let (_, agent) = story("fork_context_ref_missing_parent");
    let r = report(&agent, None);
    assert_eq!(r["fork"]["missing"], json!("session"));
    assert_eq!(r["fork"]["inherited_entries"], json!(0));
    assert_eq!(r["files_read"], json!([agent.display().to_string()]));
    let problem = r["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == "missing-fork-parent")
        .expect("a missing-fork-parent finding");
    assert_eq!(problem["severity"], json!("error"));
    let id = lines(&agent)[0]["parentSessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(problem["next"].as_str().unwrap().contains(&id), "{problem}");
}

#[test]
fn a_fork_whose_parent_entry_is_missing_is_an_error_finding() {
    let (_, agent) = story("fork_context_ref_missing_entry");
    let r = report(&agent, None);
    assert_eq!(r["fork"]["missing"], json!("entry"));
    assert_eq!(r["files_read"], json!([agent.display().to_string()]));
    assert!(codes(&r).contains(&"missing-fork-entry".to_owned()), "{r}");
}

#[test]
fn a_fork_copied_away_finds_its_parent_in_the_claude_home() {
    let (session, agent) = story("fork_context_ref");
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("claude");
    let project = home.join("projects").join("-home-dev-src-tidepool");
    fs::create_dir_all(&project).unwrap();
    let parent = project.join(session.file_name().unwrap());
    fs::copy(&session, &parent).unwrap();
    let alone = dir.path().join(agent.file_name().unwrap());
    fs::copy(&agent, &alone).unwrap();
    let r = report(&alone, Some(&home));
    assert_eq!(r["fork"]["missing"], Value::Null);
    assert_eq!(
        r["files_read"],
        json!([parent.display().to_string(), alone.display().to_string()])
    );
    // Without the home, the parent is not found.
    assert_eq!(report(&alone, None)["fork"]["missing"], json!("session"));
}
