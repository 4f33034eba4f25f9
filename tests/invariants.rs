//! The invariants of SPEC §6.1, stated over generated histories: pairing is complete, untouched
//! items keep their order and bytes, normalizing twice changes nothing, the same input gives the
//! same bytes, and the view grows linearly with the history.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // tests fail by panicking

use std::collections::HashSet;

use proptest::prelude::*;
use rollcall::item::{self, ItemKind, Parsed};
use rollcall::normalize::{self, Modalities, Origin};
use rollcall::replay::{self, ResumeState};

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

/// Replays a mini-dialect rollout holding `items`.
fn replay_items(items: &[String]) -> ResumeState {
    let mut rollout = String::from("{\"type\":\"session_meta\",\"thread_id\":\"t\"}\n");
    for item in items {
        rollout.push_str(&format!("{{\"type\":\"item\",\"item\":{item}}}\n"));
    }
    replay::replay(rollout.as_bytes(), true, &mut |_| {}).expect("usable rollout")
}

fn view_texts(state: &ResumeState, modalities: Modalities) -> Vec<String> {
    let view = normalize::normalize(&state.history, modalities);
    view.entries()
        .map(|(_, _, text)| text.into_owned())
        .collect()
}

/// Call ids of calls and outputs, per family (0 function, 1 custom, 2 tool search).
fn pairing(texts: &[String]) -> ([HashSet<String>; 3], [HashSet<String>; 3], usize) {
    let mut calls: [HashSet<String>; 3] = Default::default();
    let mut outputs: [HashSet<String>; 3] = Default::default();
    let mut server = 0;
    for text in texts {
        let Parsed::Item(item) = item::parse(text, false) else {
            continue;
        };
        let Some(id) = item.call_id.as_str().map(String::from) else {
            continue;
        };
        match item.kind {
            ItemKind::FunctionCall | ItemKind::LocalShellCall => calls[0].insert(id),
            ItemKind::CustomToolCall => calls[1].insert(id),
            ItemKind::ToolSearchCall => calls[2].insert(id),
            ItemKind::FunctionCallOutput => outputs[0].insert(id),
            ItemKind::CustomToolCallOutput => outputs[1].insert(id),
            ItemKind::ToolSearchOutput if item.server_execution => {
                server += 1;
                outputs[2].insert(id)
            }
            ItemKind::ToolSearchOutput => outputs[2].insert(id),
            _ => false,
        };
    }
    (calls, outputs, server)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn every_call_is_answered_and_every_output_has_its_call(
        items in prop::collection::vec(item_text(), 0..40),
        modalities in modalities(),
    ) {
        let state = replay_items(&items);
        let texts = view_texts(&state, modalities);
        let (calls, outputs, _) = pairing(&texts);
        for family in 0..3 {
            for id in &calls[family] {
                prop_assert!(outputs[family].contains(id), "call {id} unanswered in {texts:#?}");
            }
        }
        for text in &texts {
            let Parsed::Item(item) = item::parse(text, false) else { continue };
            let (Some(id), family) = (item.call_id.as_str(), match item.kind {
                ItemKind::FunctionCallOutput => 0,
                ItemKind::CustomToolCallOutput => 1,
                ItemKind::ToolSearchOutput if !item.server_execution => 2,
                _ => continue,
            }) else { continue };
            prop_assert!(calls[family].contains(id), "orphan {id} kept in {texts:#?}");
        }
    }

    #[test]
    fn untouched_items_keep_order_and_bytes(
        items in prop::collection::vec(item_text(), 0..40),
        modalities in modalities(),
    ) {
        let state = replay_items(&items);
        let view = normalize::normalize(&state.history, modalities);
        let kept: Vec<String> = view
            .entries()
            .filter(|(_, origin, _)| *origin == Origin::Kept)
            .map(|(_, _, text)| text.into_owned())
            .collect();
        // Kept entries are a subsequence of the source items, byte for byte.
        let mut source = items.iter();
        for text in &kept {
            prop_assert!(source.any(|s| s == text), "{text} out of order or changed");
        }
        // Everything that is not inserted comes from the history in order, minus the orphans.
        let from_history: Vec<usize> = view
            .steps
            .iter()
            .filter_map(|step| match step {
                normalize::Step::Keep(i) | normalize::Step::Rewrite(i) => Some(*i),
                normalize::Step::Insert(..) => None,
            })
            .collect();
        let expected: Vec<usize> = (0..state.history.len())
            .filter(|i| !view.removed.contains(i))
            .collect();
        prop_assert_eq!(from_history, expected);
    }

    #[test]
    fn normalizing_twice_changes_nothing(
        items in prop::collection::vec(item_text(), 0..40),
        modalities in modalities(),
    ) {
        let once = view_texts(&replay_items(&items), modalities);
        let twice = view_texts(&replay_items(&once), modalities);
        prop_assert_eq!(&once, &twice);
        let state = replay_items(&once);
        prop_assert!(!normalize::normalize(&state.history, modalities).changes_anything());
    }

    #[test]
    fn same_input_same_bytes(
        items in prop::collection::vec(item_text(), 0..40),
        modalities in modalities(),
    ) {
        let state = replay_items(&items);
        prop_assert_eq!(view_texts(&state, modalities), view_texts(&replay_items(&items), modalities));
    }
}

/// A history of n unanswered calls and n orphans: the view holds exactly one entry per call,
/// output and insertion — its size is linear, whatever the mix.
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
        let state = replay_items(&items);
        let view = normalize::normalize(&state.history, Modalities::default());
        assert_eq!(view.steps.len(), 2 * n, "n calls + n inserted outputs");
        assert_eq!(view.removed.len(), n);
        assert_eq!(view.missing_outputs().count(), n);
        assert_eq!(view.orphan_outputs().count(), n);
    }
}
