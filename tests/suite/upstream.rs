//! Codex's own test facts at the reference commit (343074d4), run through rollcall: turn
//! boundaries, contextual fragments, developer context updates, rollback, legacy compaction and
//! inter-agent messages (SPEC §2, §2.1, §2.2).
//!
//! `tests/data/codex_turns_upstream.json` holds them as transcribed from the upstream tests
//! (`history_tests.rs`, `compact_tests.rs`, `rollout_reconstruction_tests.rs`, `protocol.rs`,
//! `contextual_user_message.rs` and friends; each entry names its source), plus a few vectors
//! derived from the upstream code where the tests leave an edge open (marked `derived`). Each fact
//! is turned into a small rollout whose replay shows it.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // tests fail by panicking

use rollcall::{Job, Loaded};
use serde_json::{Value, json};

fn facts(kind: &str) -> Vec<Value> {
    let all: Vec<Value> =
        serde_json::from_str(include_str!("../data/codex_turns_upstream.json")).expect("JSON");
    let facts: Vec<Value> = all.into_iter().filter(|f| f["kind"] == kind).collect();
    assert!(!facts.is_empty(), "no {kind} facts");
    facts
}

fn record(kind: &str, payload: &Value) -> String {
    json!({"timestamp": "2026-08-22T00:00:00.000Z", "type": kind, "payload": payload}).to_string()
}

/// The replayed history of a rollout made of these records (after a session_meta).
fn replay(records: &[String]) -> Vec<Value> {
    let mut log = record("session_meta", &json!({"id": "t"}));
    for r in records {
        log.push('\n');
        log.push_str(r);
    }
    let session = Loaded::from_bytes(log.as_bytes()).expect("a rollout");
    let mut out = Vec::new();
    session.render(Job::History, &mut out).expect("rendered");
    String::from_utf8(out)
        .expect("UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("an item"))
        .collect()
}

fn item(payload: &Value) -> String {
    record("response_item", payload)
}

fn rollback(n: u64) -> String {
    record(
        "event_msg",
        &json!({"type": "thread_rolled_back", "num_turns": n}),
    )
}

fn user(text: &str) -> Value {
    json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})
}

/// Whether rollback counts `candidate` as a user turn: after a plain user turn and the candidate,
/// rolling back one turn cuts at the candidate when it is one, else at the first turn.
fn is_boundary(candidate: &Value) -> bool {
    let history = replay(&[item(&user("anchor")), item(candidate), rollback(1)]);
    match history.len() {
        1 => true,
        0 => false,
        n => panic!("{n} items after the rollback of {candidate}"),
    }
}

#[test]
fn turn_boundaries() {
    for fact in facts("boundary") {
        let got = is_boundary(&fact["input"]);
        assert_eq!(got, fact["expected"] == true, "{}", fact["name"]);
    }
}

#[test]
fn contextual_user_fragments() {
    for fact in facts("user_fragment") {
        let text = fact["input"].as_str().expect("a text");
        let contextual = !is_boundary(&user(text));
        assert_eq!(contextual, fact["expected"] == true, "{}", fact["name"]);
    }
}

#[test]
fn developer_context_updates() {
    for fact in facts("dev_fragment") {
        let parts: Vec<Value> = fact["input"]
            .as_array()
            .expect("texts")
            .iter()
            .map(|t| json!({"type": "input_text", "text": t}))
            .collect();
        let developer = json!({"type": "message", "role": "developer", "content": parts});
        // A context update right above the rolled-back turn goes with it.
        let history = replay(&[
            item(&user("first")),
            item(&developer),
            item(&user("second")),
            rollback(1),
        ]);
        let trimmed = history.len() == 1;
        let expected = fact["expected"]["is_contextual_dev_message_content"] == true;
        assert_eq!(trimmed, expected, "{}", fact["name"]);
    }
}

#[test]
fn rollbacks() {
    for fact in facts("drop") {
        let input = &fact["input"];
        let mut records: Vec<String> = input["history"]
            .as_array()
            .expect("items")
            .iter()
            .map(item)
            .collect();
        records.push(rollback(input["n"].as_u64().expect("n")));
        let got = replay(&records);
        let expected = fact["expected"]["history"].as_array().expect("items");
        assert_eq!(&got, expected, "{}", fact["name"]);
    }
}

/// A rebuilt user message as Codex writes it.
fn rebuilt(message: &Value) -> Value {
    let mut m = user(message["message"].as_str().expect("text"));
    if !message["passthrough"].is_null() {
        m["internal_chat_message_metadata_passthrough"] = message["passthrough"].clone();
    }
    m
}

/// The released client contradicts these facts of the reference source in two ways (Codex
/// 0.169.0's captures, SPEC §11.2 #5): a rebuilt user message keeps its `prefix_rest` id, and its
/// text parts (a cut one's head, marker and tail too) stay separate parts. This undoes both, so
/// that the rest of each fact is still checked: which messages are kept, their text and
/// passthrough.
fn as_reference(items: Vec<Value>) -> Vec<Value> {
    items
        .into_iter()
        .map(|mut item| {
            if item["role"] == "user"
                && let Some(object) = item.as_object_mut()
            {
                object.remove("id");
                if let Some(Value::Array(parts)) = object.get("content")
                    && parts.len() > 1
                {
                    let text: String = parts.iter().filter_map(|p| p["text"].as_str()).collect();
                    object.insert(
                        "content".into(),
                        json!([{"type": "input_text", "text": text}]),
                    );
                }
            }
            item
        })
        .collect()
}

#[test]
fn legacy_compaction_collects_user_texts() {
    for fact in facts("collect") {
        let mut records: Vec<String> = fact["input"]
            .as_array()
            .expect("items")
            .iter()
            .map(item)
            .collect();
        records.push(record("compacted", &json!({"message": "S"})));
        let got = as_reference(replay(&records));
        let mut expected: Vec<Value> = fact["expected"]
            .as_array()
            .expect("messages")
            .iter()
            .map(rebuilt)
            .collect();
        expected.push(user("S"));
        assert_eq!(got, expected, "{}", fact["name"]);
    }
}

#[test]
fn legacy_compaction_rebuilds_history() {
    let mut checked = 0;
    for fact in facts("build") {
        let input = &fact["input"];
        // Facts at another budget than Codex's 20,000 tokens come from a test-only entry point.
        if input["max_tokens"].as_u64().is_some_and(|t| t != 20_000) {
            continue;
        }
        let mut records: Vec<String> = input["user_messages"]
            .as_array()
            .expect("messages")
            .iter()
            .map(|m| item(&rebuilt(m)))
            .collect();
        records.push(record("compacted", &json!({"message": input["summary"]})));
        let got = as_reference(replay(&records));
        let expected = fact["expected"].as_array().expect("items");
        assert_eq!(&got, expected, "{}", fact["name"]);
        checked += 1;
    }
    assert!(checked > 0);
}

#[test]
fn inter_agent_communications_become_agent_messages() {
    for fact in facts("iac") {
        let line = record("inter_agent_communication", &fact["input"]);
        let log = format!("{}\n{line}\n", record("session_meta", &json!({"id": "t"})));
        let session = Loaded::from_bytes(log.as_bytes()).expect("a rollout");
        let mut report = Vec::new();
        session
            .render(Job::Report { json: true }, &mut report)
            .expect("report");
        let report: Value = serde_json::from_slice(&report).expect("JSON");
        if fact["expected"].is_null() {
            // A payload Codex cannot read is a parse error (SPEC §2).
            assert_eq!(report["error_lines"], json!([2]), "{}", fact["name"]);
        } else {
            let got = replay(&[line]);
            assert_eq!(got, vec![fact["expected"].clone()], "{}", fact["name"]);
        }
    }
}

/// Facts where SPEC.md decides otherwise than Codex, and why.
const SPEC_DIFFERS: [(&str, &str); 3] = [
    (
        "filters_non_api_messages (record filter)",
        "SPEC §4 keeps item types rollcall does not know; Codex drops them when it records history",
    ),
    (
        "derived QUIRK: rolled-back turn with a replacement compaction and no surviving base",
        "Codex 0.169.0 (live class G) undoes a replacement compaction that lies in a rolled-back \
         turn: the history is what the log gives up to that turn's start, [u1, a1]",
    ),
    (
        "derived: same with an older surviving replacement compaction (== naive forward fold)",
        "Codex 0.169.0 (live class G) undoes the replacement compaction inside the rolled-back \
         turn t2: [u0, S0, u1, a1], not the forward fold's [u1, u2]",
    ),
];

#[test]
fn resume_reconstructions() {
    for fact in facts("reconstruct") {
        if SPEC_DIFFERS.iter().any(|(name, _)| fact["name"] == *name) {
            continue;
        }
        let records: Vec<String> = fact["input"]
            .as_array()
            .expect("records")
            .iter()
            .map(Value::to_string)
            .collect();
        let got = replay(&records);
        let expected = fact["expected"].as_array().expect("items");
        assert_eq!(&got, expected, "{}", fact["name"]);
    }
}
