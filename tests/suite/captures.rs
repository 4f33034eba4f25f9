//! The agents are the judges: every `capture.<client>-<version>.json` beside a fixture story is
//! what the released client sent when it resumed that story's log for real (recorded by
//! `scripts/live/`, never edited, never made from rollcall's output). The prompt view must equal
//! it, compared as parsed JSON after undoing only the pure re-encodings the live checks list;
//! a session the client refused must be one rollcall's report calls not resumable.
//!
//! A subagent's transcript is resumed through its session (the client resumes an agent when a
//! message is sent to it): its capture is `capture.<client>-<version>.agent-<agent id>.json`
//! beside the story's session, naming the agent's file under `<session>/subagents/`.
//!
//! Runs offline: no npm, no network, no client. `scripts/live/README.md` says how the captures
//! are made again when a client changes.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // tests fail by panicking

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{Map, Value};

/// The clients whose captures are checked, with the agent folder their stories are in.
const CLIENTS: [(&str, &str); 2] = [
    ("claude", "capture.claude-code-2.1.328.json"),
    ("codex", "capture.codex-0.169.0.json"),
];

/// Stories whose capture rollcall's view does not follow yet, each with the reason. The test
/// fails when one of them starts to agree, so that the list only ever shrinks.
const NOT_YET: &[(&str, &str)] = &[];

struct Capture {
    /// The story's name, with the agent's id for a subagent's capture.
    story: String,
    log: PathBuf,
    /// Resumed through its session, by a message to the agent: `claude --resume` by its own
    /// name still refuses it, so the report's `resumable` is not what this capture checks.
    through_session: bool,
    refused: bool,
    /// The model the client resumed with, as its request named it.
    model: Option<String>,
    history: Vec<Value>,
}

fn captures(agent: &str, name: &str) -> Vec<Capture> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(agent);
    let mut found = Vec::new();
    let agent_prefix = format!("{}.agent-", name.trim_end_matches(".json"));
    let mut paths = Vec::new();
    for story in fs::read_dir(&root).unwrap() {
        let story = story.unwrap().path();
        for file in fs::read_dir(&story).into_iter().flatten() {
            let file = file.unwrap().file_name().to_string_lossy().into_owned();
            let agent_id = file
                .strip_prefix(&agent_prefix)
                .and_then(|rest| rest.strip_suffix(".json"));
            let label = story.file_name().unwrap().to_string_lossy().into_owned();
            match agent_id {
                _ if file == name => paths.push((story.clone(), label, story.join(&file))),
                Some(id) => paths.push((story.clone(), format!("{label}@{id}"), story.join(&file))),
                None => {}
            }
        }
    }
    for (story, label, path) in paths {
        let text = fs::read_to_string(&path).unwrap();
        let capture: Value = serde_json::from_str(&text).unwrap();
        let log = story.join(capture["session_file"].as_str().unwrap());
        let bytes = fs::read(&log).unwrap();
        assert_eq!(
            capture["session_sha256"].as_str().unwrap(),
            sha256_hex(&bytes),
            "{}: the log changed since it was captured: capture it again",
            path.display()
        );
        found.push(Capture {
            through_session: label.contains('@'),
            story: label,
            log,
            refused: capture["outcome"] == "refused",
            model: capture["model"].as_str().map(str::to_owned),
            history: capture["history"].as_array().cloned().unwrap_or_default(),
        });
    }
    found.sort_by(|a, b| a.story.cmp(&b.story));
    found
}

/// The pure re-encodings of `scripts/live/claude.py`: `cache_control` is the client's, and a
/// string `content` is one text block.
fn claude_normal(message: &Value) -> Value {
    let mut message = message.as_object().cloned().unwrap_or_default();
    let content = match message.remove("content") {
        Some(Value::String(text)) => vec![serde_json::json!({"type": "text", "text": text})],
        Some(Value::Array(blocks)) => blocks,
        Some(other) => vec![other],
        None => Vec::new(),
    };
    let blocks = content
        .into_iter()
        .map(|block| match block {
            Value::Object(mut b) => {
                b.remove("cache_control");
                Value::Object(b)
            }
            other => other,
        })
        .collect();
    message.insert("content".into(), Value::Array(blocks));
    Value::Object(message)
}

/// The pure re-encodings of `scripts/live/codex.py`: null members and an empty `id` are not
/// sent, and the `content_item_kinds` annotation of passthrough metadata is Codex's own.
fn codex_normal(value: &Value) -> Value {
    match value {
        Value::Object(members) => {
            let mut out = Map::new();
            for (key, member) in members {
                if member.is_null() || (key == "id" && member == "") {
                    continue;
                }
                if key == "internal_chat_message_metadata_passthrough"
                    && let Value::Object(meta) = member
                {
                    let mut meta = meta.clone();
                    meta.remove("content_item_kinds");
                    let meta = codex_normal(&Value::Object(meta));
                    if meta.as_object().is_some_and(|m| !m.is_empty()) {
                        out.insert(key.clone(), meta);
                    }
                    continue;
                }
                out.insert(key.clone(), codex_normal(member));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(codex_normal).collect()),
        other => other.clone(),
    }
}

/// Whether two parsed values are the same JSON: numbers are equal when they are the same
/// number (`1` and `1.0`), as the live checks compare them.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i128(), y.as_i128()) {
            (Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The first entry where the view and the capture differ, described, or `None`.
fn first_difference(view: &[Value], sent: &[Value]) -> Option<String> {
    for (i, (v, s)) in view.iter().zip(sent).enumerate() {
        if !same(v, s) {
            return Some(format!("entry {i}:\n  rollcall: {v}\n  client:   {s}"));
        }
    }
    (view.len() != sent.len()).then(|| {
        format!(
            "rollcall has {} entries, the client sent {}",
            view.len(),
            sent.len()
        )
    })
}

/// Compares every story of `agent` with its capture; returns the stories that differ, each
/// with its first difference.
fn check(agent: &str, name: &str) -> Vec<(String, String)> {
    let normal: fn(&Value) -> Value = if agent == "claude" {
        claude_normal
    } else {
        codex_normal
    };
    let mut differing = Vec::new();
    // Claude Code follows a forked subagent's `fork-context-ref` into its parent session; the
    // Codex stories are read alone.
    let lineage: &[&str] = if agent == "claude" {
        &[]
    } else {
        &["--no-lineage"]
    };
    for capture in captures(agent, name) {
        let story = capture.story.clone();
        let report = Command::cargo_bin("rollcall")
            .unwrap()
            .args(["replay", "--report", "--json"])
            .args(lineage)
            .arg(&capture.log)
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&report.stdout)
            .unwrap_or_else(|e| panic!("{story}: the report is not JSON: {e}"));
        if capture.refused {
            if report["resumable"] != false {
                differing.push((
                    story,
                    "the client refused it; the report calls it resumable".into(),
                ));
            }
            continue;
        }
        if report["resumable"] == false && !capture.through_session {
            differing.push((
                story,
                format!(
                    "the client resumed it; the report says {}",
                    report["not_resumable"]
                ),
            ));
            continue;
        }
        let mut view = Command::cargo_bin("rollcall").unwrap();
        view.args(["repair-view", "--format", "json"]).args(lineage);
        // What Codex sends depends on the model it resumed with (its catalog entry).
        if let (true, Some(model)) = (agent == "codex", &capture.model) {
            view.args(["--model", model]);
        }
        let out = view.arg(&capture.log).output().unwrap();
        let view: Vec<Value> = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{story}: the view is not a JSON array: {e}"));
        let view: Vec<Value> = view.iter().map(normal).collect();
        let sent: Vec<Value> = capture.history.iter().map(normal).collect();
        if let Some(difference) = first_difference(&view, &sent) {
            differing.push((story, difference));
        }
    }
    differing
}

#[test]
fn every_view_is_what_the_client_sent() {
    let mut unexpected = Vec::new();
    let mut now_agree: Vec<&str> = NOT_YET.iter().map(|(story, _)| *story).collect();
    for (agent, name) in CLIENTS {
        for (story, difference) in check(agent, name) {
            let key = format!("{agent}/{story}");
            match now_agree.iter().position(|s| *s == key) {
                Some(at) => {
                    now_agree.remove(at);
                }
                None => unexpected.push(format!("{key}: {difference}")),
            }
        }
    }
    assert!(
        unexpected.is_empty(),
        "views that differ from the client's capture:\n{}",
        unexpected.join("\n")
    );
    assert!(
        now_agree.is_empty(),
        "these now agree with their capture: take them off NOT_YET: {now_agree:?}"
    );
}

#[test]
fn the_comparison_undoes_only_re_encodings() {
    let a = serde_json::json!({"role": "user", "content": "hi"});
    let b = serde_json::json!({"role": "user", "content": [
        {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}
    ]});
    assert!(same(&claude_normal(&a), &claude_normal(&b)));
    let c = serde_json::json!({"role": "user", "content": [{"type": "text", "text": "hi\n"}]});
    assert!(!same(&claude_normal(&a), &claude_normal(&c)));
    let d = serde_json::json!({"type": "message", "id": "", "status": null,
        "internal_chat_message_metadata_passthrough": {"content_item_kinds": ["unknown"]}});
    assert_eq!(codex_normal(&d), serde_json::json!({"type": "message"}));
    let big: Value = serde_json::from_str("12345678901234567890").unwrap();
    let js: Value = serde_json::from_str("12345678901234567000").unwrap();
    assert!(
        !same(&big, &js),
        "an integer the client rounds must be printed rounded"
    );
    let one: Value = serde_json::from_str("1.0").unwrap();
    assert!(same(&one, &serde_json::json!(1)));
}

/// SHA-256 of `bytes` in lowercase hex, so that a capture is tied to the exact log it was made
/// from.
fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
