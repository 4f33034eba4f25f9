//! The invariants of SPEC §6.1, stated over generated histories: pairing is complete, untouched
//! items keep their order and bytes, normalizing twice changes nothing, the same input gives the
//! same bytes, and the view grows linearly with the history.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // tests fail by panicking

use std::collections::HashSet;

use proptest::prelude::*;
use rollcall::{Format, Job, Loaded, Modalities, ViewSettings};
use serde_json::Value;

/// One generated item, as JSON text with varied spelling.
fn item_text() -> impl Strategy<Value = String> {
    let call_id = prop_oneof![
        4 => (0u8..6).prop_map(|n| format!("\"c{n}\"")),
        1 => Just("null".to_string()),
        1 => Just("\"c\\u0031\"".to_string()),
        1 => Just("7".to_string()),
    ];
    let id = prop_oneof![
        Just(String::new()),
        Just(r#""id":"","#.to_string()),
        (0u8..3).prop_map(|n| format!(r#""id":"fc_{n}","#)),
    ];
    let part = prop_oneof![
        Just(r#"{"type":"input_text","text":"hi\n"}"#),
        Just(r#"{"type":"input_image","image_url":"data:image/png;base64,AAAA"}"#),
        Just(r#"{ "type" : "input_audio", "data":"UklG" }"#),
        Just(r#"{"type":"input_text","text":"<environment_context>x</environment_context>"}"#),
    ];
    let parts = prop::collection::vec(part, 0..3).prop_map(|p| format!("[{}]", p.join(",")));
    let kind = prop::sample::select(vec![
        "function_call",
        "local_shell_call",
        "custom_tool_call",
        "tool_search_call",
        "function_call_output",
        "custom_tool_call_output",
        "tool_search_output",
        "message",
        "image_generation_call",
        "reasoning",
    ]);
    (kind, call_id, id, parts, any::<bool>(), any::<bool>()).prop_map(
        |(kind, call_id, id, parts, flag, spaced)| {
            let sep = if spaced { ", " } else { "," };
            match kind {
                "message" => format!(
                    r#"{{"type":"message"{sep}"role":"{}"{sep}"content":{parts},"n":1.50}}"#,
                    if flag { "user" } else { "assistant" }
                ),
                "function_call_output" | "custom_tool_call_output" => {
                    let output = if flag { parts } else { "\"done\"".to_string() };
                    format!(r#"{{"type":"{kind}",{id}"call_id":{call_id}{sep}"output":{output}}}"#)
                }
                "tool_search_output" => format!(
                    r#"{{"type":"tool_search_output","call_id":{call_id},"execution":"{}","tools":[]}}"#,
                    if flag { "server" } else { "client" }
                ),
                "image_generation_call" => format!(
                    r#"{{"type":"image_generation_call","id":"ig","result":"{}"}}"#,
                    if flag { "aGk=" } else { "" }
                ),
                "reasoning" => r#"{"type":"reasoning","summary":[],"encrypted_content":"e30="}"#.into(),
                call => format!(r#"{{"type":"{call}",{id}"call_id":{call_id}{sep}"name":"t"}}"#),
            }
        },
    )
}

fn modalities() -> impl Strategy<Value = Modalities> {
    (any::<bool>(), any::<bool>()).prop_map(|(image, audio)| Modalities { image, audio })
}

/// The prompt view of a mini-dialect rollout holding `items`, one JSON text per entry.
fn view_of(items: &[String], modalities: Modalities) -> Vec<String> {
    let mut rollout = String::from("{\"type\":\"session_meta\",\"thread_id\":\"t\"}\n");
    for item in items {
        rollout.push_str(&format!("{{\"type\":\"item\",\"item\":{item}}}\n"));
    }
    let session = Loaded::from_bytes(rollout.as_bytes()).expect("usable rollout");
    let mut out = Vec::new();
    let job = Job::View {
        format: Format::Jsonl,
        settings: ViewSettings {
            modalities: Some(modalities),
            ..ViewSettings::default()
        },
    };
    session.render(job, &mut out).expect("rendered");
    String::from_utf8(out)
        .expect("UTF-8")
        .lines()
        .map(String::from)
        .collect()
}

/// An item's pairing facts, read independently with serde_json: (family, side, string call id,
/// server tool search). Family 0 function, 1 custom, 2 tool search; side true for calls.
fn pairing_of(text: &str) -> Option<(usize, bool, Option<String>, bool)> {
    let v: Value = serde_json::from_str(text).ok()?;
    let (family, call) = match v["type"].as_str()? {
        "function_call" | "local_shell_call" => (0, true),
        "custom_tool_call" => (1, true),
        "tool_search_call" => (2, true),
        "function_call_output" => (0, false),
        "custom_tool_call_output" => (1, false),
        "tool_search_output" => (2, false),
        _ => return None,
    };
    let id = v["call_id"].as_str().map(String::from);
    Some((family, call, id, v["execution"] == "server"))
}

/// Call ids of calls and outputs, per family.
fn pairing(texts: &[String]) -> ([HashSet<String>; 3], [HashSet<String>; 3]) {
    let mut calls: [HashSet<String>; 3] = Default::default();
    let mut outputs: [HashSet<String>; 3] = Default::default();
    for text in texts {
        if let Some((family, call, Some(id), _)) = pairing_of(text) {
            if call {
                calls[family].insert(id);
            } else {
                outputs[family].insert(id);
            }
        }
    }
    (calls, outputs)
}

/// Whether the view changes this item's media for `m`, decided independently.
fn media_changed(text: &str, m: Modalities) -> bool {
    let v: Value = serde_json::from_str(text).expect("generated JSON");
    let parts = match v["type"].as_str() {
        Some("message") => v["content"].as_array(),
        Some("function_call_output" | "custom_tool_call_output") => v["output"].as_array(),
        Some("image_generation_call") => return !m.image && v["result"] != "",
        _ => None,
    };
    parts.into_iter().flatten().any(|p| {
        (p["type"] == "input_image" && !m.image) || (p["type"] == "input_audio" && !m.audio)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn every_call_is_answered_and_every_output_has_its_call(
        items in prop::collection::vec(item_text(), 0..40),
        modalities in modalities(),
    ) {
        let texts = view_of(&items, modalities);
        let (calls, outputs) = pairing(&texts);
        for family in 0..3 {
            for id in &calls[family] {
                prop_assert!(outputs[family].contains(id), "call {id} unanswered in {texts:#?}");
            }
        }
        for text in &texts {
            let Some((family, false, Some(id), server)) = pairing_of(text) else { continue };
            if family == 2 && server { continue }
            prop_assert!(calls[family].contains(&id), "orphan {id} kept in {texts:#?}");
        }
    }

    #[test]
    fn untouched_items_keep_order_and_bytes(
        items in prop::collection::vec(item_text(), 0..40),
        modalities in modalities(),
    ) {
        let texts = view_of(&items, modalities);
        let (calls, _) = pairing(&items);
        // What the passes leave alone, decided independently: neither an orphan nor rewritten.
        let untouched: Vec<&String> = items
            .iter()
            .filter(|text| {
                let orphan = match pairing_of(text) {
                    Some((family, false, Some(id), server)) => {
                        let server_search = family == 2 && server;
                        !server_search && !calls[family].contains(&id)
                    }
                    Some((_, false, None, _)) => {
                        let v: Value = serde_json::from_str(text).expect("JSON");
                        !v["call_id"].is_null()
                    }
                    _ => false,
                };
                !orphan && !media_changed(text, modalities)
            })
            .collect();
        // They appear in the view in order, byte for byte.
        let mut view = texts.iter();
        for text in &untouched {
            prop_assert!(view.any(|v| v == *text), "{text} out of order or changed in {texts:#?}");
        }
    }

    #[test]
    fn normalizing_twice_changes_nothing(
        items in prop::collection::vec(item_text(), 0..40),
        modalities in modalities(),
    ) {
        let once = view_of(&items, modalities);
        let twice = view_of(&once, modalities);
        prop_assert_eq!(&once, &twice);
    }

    #[test]
    fn same_input_same_bytes(
        items in prop::collection::vec(item_text(), 0..40),
        modalities in modalities(),
    ) {
        prop_assert_eq!(view_of(&items, modalities), view_of(&items, modalities));
    }
}

/// A history of n unanswered calls and n orphans: the view holds exactly one entry per call and
/// insertion, the orphans gone. Its size is linear, whatever the mix.
#[test]
fn view_size_is_linear_in_the_history() {
    for n in [1_000usize, 4_000, 16_000] {
        let mut items = Vec::with_capacity(2 * n);
        for i in 0..n {
            items.push(format!(
                r#"{{"type":"function_call","id":"fc_{i}","call_id":"c{i}"}}"#
            ));
            items.push(format!(
                r#"{{"type":"function_call_output","call_id":"gone{i}","output":"x"}}"#
            ));
        }
        let view = view_of(&items, Modalities::default());
        assert_eq!(view.len(), 2 * n, "n calls + n inserted outputs");
        let aborted = view
            .iter()
            .filter(|t| t.ends_with(r#""output":"aborted"}"#))
            .count();
        assert_eq!(aborted, n);
    }
}

/// A Codex rollout holding one function call and its output `text`, viewed with `truncation`.
fn truncated_view(text: &str, truncation: rollcall::Policy) -> String {
    let output = serde_json::to_string(text).unwrap();
    let rollout = format!(
        "{{\"type\":\"session_meta\",\"payload\":{{\"id\":\"t\"}}}}\n\
         {{\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call\",\"call_id\":\"c\",\"name\":\"f\",\"arguments\":\"{{}}\"}}}}\n\
         {{\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call_output\",\"call_id\":\"c\",\"output\":{output}}}}}\n"
    );
    let session = Loaded::from_bytes(rollout.as_bytes()).expect("usable rollout");
    let mut out = Vec::new();
    let settings = ViewSettings {
        truncation: Some(Some(truncation)),
        ..ViewSettings::default()
    };
    let job = Job::View {
        format: Format::Jsonl,
        settings,
    };
    session.render(job, &mut out).expect("rendered");
    let view = String::from_utf8(out).expect("UTF-8");
    let last: Value = serde_json::from_str(view.lines().last().expect("an output")).expect("JSON");
    last["output"]
        .as_str()
        .expect("a string output")
        .to_string()
}

/// Texts with one-, two-, three- and four-byte characters.
fn output_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!['a', 'é', '日', '😀', '\n', '"']),
        0..600,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// R1 (SPEC §8): a cut output keeps a head and a tail of the original, whole characters
    /// only, around one marker, and stays within its budget (the limit × 1.2) but for the marker.
    #[test]
    fn truncation_stays_in_budget_and_keeps_whole_characters(
        text in output_text(),
        limit in 0u64..200,
        tokens in any::<bool>(),
    ) {
        let policy = if tokens {
            rollcall::Policy::Tokens(limit)
        } else {
            rollcall::Policy::Bytes(limit)
        };
        let budget_bytes = (limit * 6).div_ceil(5) * if tokens { 4 } else { 1 };
        let got = truncated_view(&text, policy);
        if got == text {
            prop_assert!(text.len() as u64 <= budget_bytes || text.is_empty());
            return Ok(());
        }
        let marker = got
            .find('…')
            .and_then(|start| got[start + 3..].find('…').map(|end| start..start + 3 + end + 3))
            .expect("a marker");
        let (head, tail) = (&got[..marker.start], &got[marker.end..]);
        prop_assert!(text.starts_with(head), "head is no prefix: {got:?}");
        prop_assert!(text.ends_with(tail), "tail is no suffix: {got:?}");
        prop_assert!((head.len() + tail.len()) as u64 <= budget_bytes, "{got:?} over {budget_bytes}");
    }
}
