//! Normalization: the prompt view, a repaired copy of the history that a model API accepts
//! (SPEC §6). The passes are planned in one linear walk over item headers; item text is only
//! touched when a view is printed, and only for items a pass changes.

use std::borrow::Cow;
use std::collections::HashSet;

use uuid::Uuid;

use std::ops::Range;

use crate::item::{self, CallId, Fields, Item, ItemKind, MediaPart, Parts};
use crate::json::Parser;

/// Input kinds the target model takes besides text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Modalities {
    pub image: bool,
    pub audio: bool,
}

impl Default for Modalities {
    /// `text,image`, as SPEC §6 says.
    fn default() -> Self {
        Modalities {
            image: true,
            audio: false,
        }
    }
}

/// Call families: a call and the outputs that answer it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `function_call` and `local_shell_call`, answered by `function_call_output`.
    Function,
    /// `custom_tool_call`, answered by `custom_tool_call_output`.
    Custom,
    /// `tool_search_call`, answered by `tool_search_output`.
    ToolSearch,
}

impl Family {
    pub fn output_type(self) -> &'static str {
        match self {
            Family::Function => "function_call_output",
            Family::Custom => "custom_tool_call_output",
            Family::ToolSearch => "tool_search_output",
        }
    }

    /// The prefix of synthetic output ids.
    fn id_prefix(self) -> &'static str {
        match self {
            Family::Function => "fco",
            Family::Custom => "ctco",
            Family::ToolSearch => "tso",
        }
    }
}

/// What an item is to the pairing rules.
enum Role {
    Call(Family),
    Output(Family),
    Neither,
}

fn role(kind: ItemKind) -> Role {
    match kind {
        ItemKind::FunctionCall | ItemKind::LocalShellCall => Role::Call(Family::Function),
        ItemKind::CustomToolCall => Role::Call(Family::Custom),
        ItemKind::ToolSearchCall => Role::Call(Family::ToolSearch),
        ItemKind::FunctionCallOutput => Role::Output(Family::Function),
        ItemKind::CustomToolCallOutput => Role::Output(Family::Custom),
        ItemKind::ToolSearchOutput => Role::Output(Family::ToolSearch),
        ItemKind::Message
        | ItemKind::ImageGenerationCall
        | ItemKind::GhostSnapshot
        | ItemKind::Other => Role::Neither,
    }
}

/// The family whose calls an output of this kind answers; `None` when it is not an output.
pub fn family_of_output(kind: ItemKind) -> Option<Family> {
    match role(kind) {
        Role::Output(family) => Some(family),
        Role::Call(_) | Role::Neither => None,
    }
}

/// One entry of the view, pointing into the history it was made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The history item, unchanged.
    Keep(usize),
    /// The history item with media parts replaced.
    Rewrite(usize),
    /// A synthetic `"aborted"` output for the call at this history index.
    Insert(usize, Family),
}

/// The prompt view of a history, as a plan over it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptView<'h> {
    pub history: &'h [Item],
    pub modalities: Modalities,
    pub steps: Vec<Step>,
    /// History indices of orphan outputs left out, in order.
    pub removed: Vec<usize>,
    /// Media parts replaced (image generation results count as images).
    pub images_replaced: u64,
    pub audio_replaced: u64,
}

pub fn normalize(history: &[Item], modalities: Modalities) -> PromptView<'_> {
    let mut calls: [HashSet<&str>; 3] = Default::default();
    let mut outputs: [HashSet<&str>; 3] = Default::default();
    for item in history {
        let Some(call_id) = item.call_id.as_str() else {
            continue;
        };
        match role(item.kind) {
            Role::Call(family) => calls[family as usize].insert(call_id),
            Role::Output(family) => outputs[family as usize].insert(call_id),
            Role::Neither => false,
        };
    }

    let mut view = PromptView {
        history,
        modalities,
        steps: Vec::with_capacity(history.len()),
        removed: Vec::new(),
        images_replaced: 0,
        audio_replaced: 0,
    };
    for (i, item) in history.iter().enumerate() {
        let call_id = item.call_id.as_str();
        let server_search = item.kind == ItemKind::ToolSearchOutput && item.server_execution;
        if let Role::Output(family) = role(item.kind) {
            let orphan = match &item.call_id {
                CallId::Str(id) | CallId::Lone { key: id, .. } => {
                    !calls[family as usize].contains(&**id)
                }
                CallId::Other(_) => true,
                CallId::None => false,
            };
            if orphan && !server_search {
                view.removed.push(i);
                continue;
            }
        }
        let images = if modalities.image {
            0
        } else {
            u64::from(item.media.images) + u64::from(item.media.image_result)
        };
        let audio = if modalities.audio {
            0
        } else {
            u64::from(item.media.audio)
        };
        if images + audio > 0 {
            view.images_replaced += images;
            view.audio_replaced += audio;
            view.steps.push(Step::Rewrite(i));
        } else {
            view.steps.push(Step::Keep(i));
        }
        if let (Role::Call(family), Some(id)) = (role(item.kind), call_id)
            && !outputs[family as usize].contains(id)
        {
            view.steps.push(Step::Insert(i, family));
        }
    }
    view
}

/// How an entry of the view came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Kept,
    Rewritten,
    Synthetic(Family),
}

impl<'h> PromptView<'h> {
    /// Call ids of the calls given synthetic outputs, in history order.
    pub fn missing_outputs(&self) -> impl Iterator<Item = &'h CallId> + '_ {
        self.steps.iter().filter_map(|step| match step {
            Step::Insert(call, _) => Some(&self.history[*call].call_id),
            Step::Keep(_) | Step::Rewrite(_) => None,
        })
    }

    /// Call ids of the orphan outputs removed, in history order.
    pub fn orphan_outputs(&self) -> impl Iterator<Item = &'h CallId> + '_ {
        let history = self.history;
        self.removed.iter().map(move |&i| &history[i].call_id)
    }

    /// Whether the view differs from the history at all.
    pub fn changes_anything(&self) -> bool {
        !self.removed.is_empty() || self.steps.iter().any(|s| !matches!(s, Step::Keep(_)))
    }

    /// The JSON text of each view entry, in order. Needs the history's item text.
    pub fn entries(&self) -> impl Iterator<Item = (Step, Origin, Cow<'h, str>)> + '_ {
        self.steps.iter().map(|&step| {
            let (origin, text) = match step {
                Step::Keep(i) => (Origin::Kept, Cow::Borrowed(text_of(&self.history[i]))),
                Step::Rewrite(i) => (
                    Origin::Rewritten,
                    Cow::Owned(replace_media(&self.history[i], self.modalities)),
                ),
                Step::Insert(call, family) => (
                    Origin::Synthetic(family),
                    Cow::Owned(synthetic_output(&self.history[call], family)),
                ),
            };
            (step, origin, text)
        })
    }
}

fn text_of(item: &Item) -> &str {
    item.text.as_deref().unwrap_or_default()
}

const NAMESPACE: Uuid = Uuid::from_u128(0x90d38d3e_6a5b_4d52_bfe2_2f1e634bfac4);

/// The id of the synthetic output for the call whose `id` is `call_item_id`: stable across
/// runs, so that provider prompt caches keep hitting.
pub fn synthetic_id(family: Family, call_item_id: &str) -> String {
    let prefix = family.id_prefix();
    let name = format!("{prefix}:{call_item_id}");
    format!("{prefix}_{}", Uuid::new_v5(&NAMESPACE, name.as_bytes()))
}

/// The members of an item's (validated) text.
fn fields_of(text: &str) -> Fields<'_> {
    item::fields(&mut Parser::new(text)).unwrap_or_default()
}

/// The `"aborted"` output that stands in for the missing one of `call`.
pub fn synthetic_output(call: &Item, family: Family) -> String {
    // The call id as the call spelled it, so that it pairs byte for byte.
    let call_id = match fields_of(text_of(call)).call_id {
        Some(raw) if raw.starts_with('"') => raw.to_string(),
        _ => serde_json::to_string(call.call_id.as_str().unwrap_or_default()).unwrap_or_default(),
    };
    let id = match call.id.as_deref() {
        Some(id) => format!(r#""id":"{}","#, synthetic_id(family, id)),
        None => String::new(),
    };
    let kind = family.output_type();
    match family {
        Family::Function | Family::Custom => {
            format!(r#"{{"type":"{kind}",{id}"call_id":{call_id},"output":"aborted"}}"#)
        }
        Family::ToolSearch => format!(
            r#"{{"type":"{kind}",{id}"call_id":{call_id},"status":"completed","execution":"client","tools":[]}}"#
        ),
    }
}

const IMAGE_PLACEHOLDER: &str = r#"{"type":"input_text","text":"image content omitted because you do not support image input"}"#;
const AUDIO_PLACEHOLDER: &str = r#"{"type":"input_text","text":"audio content omitted because you do not support audio input"}"#;

/// The item with each media part the model cannot take replaced in place. Everything else keeps
/// its bytes: only the replaced parts' text changes.
pub fn replace_media(item: &Item, modalities: Modalities) -> String {
    let text = text_of(item);
    let f = fields_of(text);
    let mut edits: Vec<(Range<usize>, &str)> = Vec::new();
    let parts = match item.kind {
        ItemKind::Message => &f.content,
        ItemKind::FunctionCallOutput | ItemKind::CustomToolCallOutput => &f.output,
        ItemKind::ImageGenerationCall => {
            if let Some(result) = f.result.filter(|r| !modalities.image && *r != r#""""#) {
                // `result` is a slice of `text`: its offset is where it starts.
                let start = result.as_ptr() as usize - text.as_ptr() as usize;
                edits.push((start..start + result.len(), r#""""#));
            }
            &Parts::default()
        }
        ItemKind::FunctionCall
        | ItemKind::LocalShellCall
        | ItemKind::CustomToolCall
        | ItemKind::ToolSearchCall
        | ItemKind::ToolSearchOutput
        | ItemKind::GhostSnapshot
        | ItemKind::Other => &Parts::default(),
    };
    for (range, part) in &parts.media {
        match part {
            MediaPart::Image if !modalities.image => edits.push((range.clone(), IMAGE_PLACEHOLDER)),
            MediaPart::Audio if !modalities.audio => edits.push((range.clone(), AUDIO_PLACEHOLDER)),
            MediaPart::Image | MediaPart::Audio => {}
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (range, replacement) in edits {
        out.push_str(&text[at..range.start]);
        out.push_str(replacement);
        at = range.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::{Parsed, parse};

    fn history(lines: &[&str]) -> Vec<Item> {
        lines
            .iter()
            .map(|raw| match parse(raw, true) {
                Parsed::Item(item) => item,
                other => panic!("{raw}: {other:?}"),
            })
            .collect()
    }

    fn view_texts(lines: &[&str], modalities: Modalities) -> Vec<String> {
        let items = history(lines);
        let view = normalize(&items, modalities);
        view.entries()
            .map(|(_, _, text)| text.into_owned())
            .collect()
    }

    #[test]
    fn synthetic_id_vectors() {
        assert_eq!(
            synthetic_id(Family::Function, "fc_existing"),
            "fco_742749b0-3645-5d32-a172-676827826a07"
        );
        assert_eq!(
            synthetic_id(Family::ToolSearch, "tsc_1"),
            "tso_f380c6b3-5815-5031-91ee-dd1c77f963ee"
        );
        assert_eq!(
            synthetic_id(Family::Custom, "ctc_1"),
            "ctco_ffd2c872-81a7-5a00-b6f6-884096d1f522"
        );
    }

    #[test]
    fn inserts_outputs_and_drops_orphans() {
        let got = view_texts(
            &[
                r#"{"type":"function_call_output","call_id":"gone","output":"x"}"#,
                r#"{"type":"function_call","id":"fc_existing","call_id":"c1"}"#,
                r#"{"type":"local_shell_call","call_id":"s1","action":{}}"#,
                r#"{"type":"function_call_output","call_id":"s1","output":"ok"}"#,
                r#"{"type":"custom_tool_call","id":"","call_id":"k1"}"#,
                r#"{"type":"tool_search_call","id":"tsc_1","call_id":"t1"}"#,
                r#"{"type":"tool_search_output","call_id":"t9","execution":"server"}"#,
                r#"{"type":"tool_search_output","call_id":"t8","execution":"client"}"#,
                r#"{"type":"custom_tool_call_output","call_id":null,"output":"kept"}"#,
                r#"{"type":"function_call","call_id":null}"#,
                r#"{"type":"function_call","call_id":5}"#,
                r#"{"type":"function_call_output","call_id":5,"output":"a number pairs with nothing"}"#,
            ],
            Modalities::default(),
        );
        assert_eq!(
            got,
            vec![
                r#"{"type":"function_call","id":"fc_existing","call_id":"c1"}"#,
                r#"{"type":"function_call_output","id":"fco_742749b0-3645-5d32-a172-676827826a07","call_id":"c1","output":"aborted"}"#,
                r#"{"type":"local_shell_call","call_id":"s1","action":{}}"#,
                r#"{"type":"function_call_output","call_id":"s1","output":"ok"}"#,
                r#"{"type":"custom_tool_call","id":"","call_id":"k1"}"#,
                r#"{"type":"custom_tool_call_output","call_id":"k1","output":"aborted"}"#,
                r#"{"type":"tool_search_call","id":"tsc_1","call_id":"t1"}"#,
                r#"{"type":"tool_search_output","id":"tso_f380c6b3-5815-5031-91ee-dd1c77f963ee","call_id":"t1","status":"completed","execution":"client","tools":[]}"#,
                r#"{"type":"tool_search_output","call_id":"t9","execution":"server"}"#,
                r#"{"type":"custom_tool_call_output","call_id":null,"output":"kept"}"#,
                r#"{"type":"function_call","call_id":null}"#,
                r#"{"type":"function_call","call_id":5}"#,
            ]
        );
    }

    #[test]
    fn outputs_with_non_string_call_ids_are_orphans() {
        let items = history(&[
            r#"{"type":"function_call_output","call_id":true,"output":"x"}"#,
            r#"{"type":"custom_tool_call_output","call_id":{"a":1},"output":"x"}"#,
            r#"{"type":"tool_search_output","call_id":2,"execution":"server"}"#,
        ]);
        let view = normalize(&items, Modalities::default());
        let orphans: Vec<_> = view.orphan_outputs().map(CallId::display).collect();
        assert_eq!(orphans, vec!["true", r#"{"a":1}"#]);
        assert_eq!(view.steps, vec![Step::Keep(2)]);
    }

    #[test]
    fn different_lone_surrogates_do_not_pair() {
        let items = history(&[
            r#"{"type":"function_call","call_id":"\ud800"}"#,
            r#"{"type":"function_call_output","call_id":"\udc00","output":"x"}"#,
            r#"{"type":"function_call","call_id":"a\ufffd"}"#,
            r#"{"type":"function_call_output","call_id":"a\udfff","output":"y"}"#,
            r#"{"type":"custom_tool_call","call_id":"\uDBFF"}"#,
            r#"{"type":"custom_tool_call_output","call_id":"\udbff","output":"same unit"}"#,
        ]);
        let view = normalize(&items, Modalities::default());
        let missing: Vec<_> = view.missing_outputs().map(CallId::display).collect();
        let orphans: Vec<_> = view.orphan_outputs().map(CallId::display).collect();
        assert_eq!(missing, vec![r#""\ud800""#, "a\u{fffd}"]);
        assert_eq!(orphans, vec![r#""\udc00""#, r#""a\udfff""#]);
    }

    #[test]
    fn each_duplicate_call_gets_its_own_output() {
        let items = history(&[
            r#"{"type":"function_call","call_id":"d"}"#,
            r#"{"type":"function_call","call_id":"d"}"#,
        ]);
        let view = normalize(&items, Modalities::default());
        let missing: Vec<_> = view.missing_outputs().map(CallId::display).collect();
        assert_eq!(missing, vec!["d", "d"]);
        assert_eq!(view.steps.len(), 4);
    }

    #[test]
    fn media_parts_are_spliced_in_place() {
        let text_only = Modalities {
            image: false,
            audio: false,
        };
        let got = view_texts(
            &[
                r#"{"type":"message", "role":"user","content":[ {"type":"input_text","text":"see"}, {"type":"input_image","image_url":"data:x"} ,{"type":"input_audio","data":"a"}],"n":1.50}"#,
                r#"{"type":"function_call_output","call_id":null,"output":[{"type":"input_image","image_url":"u"}]}"#,
                r#"{"type":"image_generation_call","result":"aGk=","status":"done"}"#,
            ],
            text_only,
        );
        let image = IMAGE_PLACEHOLDER;
        let audio = AUDIO_PLACEHOLDER;
        assert_eq!(
            got,
            vec![
                format!(
                    r#"{{"type":"message", "role":"user","content":[ {{"type":"input_text","text":"see"}}, {image} ,{audio}],"n":1.50}}"#
                ),
                format!(r#"{{"type":"function_call_output","call_id":null,"output":[{image}]}}"#),
                r#"{"type":"image_generation_call","result":"","status":"done"}"#.to_string(),
            ]
        );
        let default_view = view_texts(
            &[r#"{"type":"image_generation_call","result":"aGk="}"#],
            Modalities::default(),
        );
        assert_eq!(
            default_view,
            vec![r#"{"type":"image_generation_call","result":"aGk="}"#]
        );
    }
}
