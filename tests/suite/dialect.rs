//! The dialect is told from whole records, however long: a Claude Code session whose first
//! prompt holds a pasted screenshot, or a 2025 rollout with megabytes of instructions, is read as
//! what it is; a record of a kind neither agent knows decides nothing.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // tests fail by panicking

use std::fs;

use assert_cmd::Command;
use serde_json::{Value, json};

fn report(path: &std::path::Path) -> Value {
    let out = Command::cargo_bin("rollcall")
        .unwrap()
        .args(["replay", "--report", "--json"])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn claude_entry(uuid: &str, parent: Option<&str>, role: &str, content: Value) -> String {
    json!({"parentUuid": parent, "isSidechain": false, "type": role, "sessionId": "s",
        "uuid": uuid, "timestamp": "2026-03-02T09:14:20.000Z",
        "message": {"role": role, "content": content}})
    .to_string()
}

#[test]
fn a_claude_session_whose_first_prompt_holds_a_large_image_is_claude() {
    let dir = tempfile::tempdir().unwrap();
    let image = "A".repeat(3 << 20);
    let first = claude_entry(
        "u1",
        None,
        "user",
        json!([{"type": "image", "source": {"type": "base64", "media_type": "image/png",
            "data": image}}, {"type": "text", "text": "what is this?"}]),
    );
    let second = claude_entry(
        "a1",
        Some("u1"),
        "assistant",
        json!([{"type": "text", "text": "A"}]),
    );
    let path = dir
        .path()
        .join("5e55a0c2-0100-4000-8000-000000000000.jsonl");
    fs::write(&path, format!("{first}\n{second}\n")).unwrap();
    let r = report(&path);
    assert_eq!(r["dialect"], "claude");
    assert_eq!(r["history_items"], 2);
}

#[test]
fn a_record_of_an_unknown_kind_with_a_payload_decides_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let odd = json!({"type": "bridge-session", "payload": {"x": 1}, "sessionId": "s"});
    let first = claude_entry("u1", None, "user", json!("hello"));
    let path = dir
        .path()
        .join("5e55a0c2-0101-4000-8000-000000000000.jsonl");
    fs::write(&path, format!("{odd}\n{first}\n")).unwrap();
    assert_eq!(report(&path)["dialect"], "claude");
}

#[test]
fn a_2025_rollout_with_megabytes_of_instructions_is_a_2025_rollout() {
    let dir = tempfile::tempdir().unwrap();
    let session = json!({"id": "0198a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
        "timestamp": "2025-09-01T10:00:00.000Z", "instructions": "x".repeat(2 << 20)});
    let item = json!({"type": "message", "role": "user",
        "content": [{"type": "input_text", "text": "hi"}]});
    let path = dir
        .path()
        .join("rollout-2025-09-01-0198a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl");
    fs::write(&path, format!("{session}\n{item}\n")).unwrap();
    let r = report(&path);
    assert_eq!(r["dialect"], "codex-2025");
    assert_eq!(r["history_items"], 1);
}

#[test]
fn a_session_of_only_metadata_entries_is_an_empty_session() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        json!({"type": "ai-title", "aiTitle": "Fix the build", "sessionId": "s"}),
        json!({"type": "custom-title", "customTitle": "build", "sessionId": "s"}),
        json!({"type": "mode", "mode": "normal", "sessionId": "s"}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let path = dir
        .path()
        .join("5e55a0c2-0102-4000-8000-000000000000.jsonl");
    fs::write(&path, text).unwrap();
    let r = report(&path);
    assert_eq!(r["dialect"], "claude");
    assert_eq!(r["history_items"], 0);
    assert_eq!(
        r["unknown_records"], 0,
        "Claude Code's own entry types are known"
    );
}

/// A `teleported-from` stub (`{"type":"teleported-from","remoteSessionId":…}`, nothing else) is
/// what Claude Code leaves in `projects/` for a session teleported from the web: a Claude Code
/// file, which the client does not resume (the story's capture), and which the report, the id
/// look-up and scan call what it is.
#[test]
fn a_teleport_stub_is_a_stub_not_a_rollout() {
    let story = std::path::Path::new("fixtures/claude/teleported_from_stub");
    let id = "5e55a0c2-0036-4000-8000-000000000000";
    let r = report(&story.join(format!("{id}.jsonl")));
    assert_eq!(r["dialect"], "claude");
    assert_eq!(r["resumable"], false);
    assert_eq!(r["teleported_from"], "session_01ABCdef234XYZ");
    let next = r["problems"][0]["next"].as_str().unwrap();
    assert!(
        next.contains("claude --teleport session_01ABCdef234XYZ"),
        "{next}"
    );
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("projects/-home-dev");
    fs::create_dir_all(&project).unwrap();
    fs::copy(
        story.join(format!("{id}.jsonl")),
        project.join(format!("{id}.jsonl")),
    )
    .unwrap();
    let rollcall = || {
        let mut cmd = Command::cargo_bin("rollcall").unwrap();
        cmd.env("CLAUDE_CONFIG_DIR", home.path())
            .env("HOME", "/nonexistent")
            .env_remove("CODEX_HOME");
        cmd
    };
    let by_id = rollcall()
        .args(["replay", "--report", "--json", id])
        .output()
        .unwrap();
    assert!(by_id.status.success(), "{by_id:?}");
    let by_id: Value = serde_json::from_slice(&by_id.stdout).unwrap();
    assert_eq!(by_id["teleported_from"], "session_01ABCdef234XYZ");
    let table = rollcall()
        .args(["scan", "--agent", "claude"])
        .output()
        .unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(
        table.contains("a stub of a session teleported from Claude Code on the web"),
        "{table}"
    );
}
