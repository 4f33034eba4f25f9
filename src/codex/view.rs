//! The Codex prompt view (SPEC §6): a repaired copy of the history that the Responses API accepts.
//! The passes are planned in one walk over item headers, with one bit per call id and family;
//! item text is read again, and changed, only as the view is printed.

use std::io;

use super::fold::State;
use super::forms;
use super::item::{Family, Fields, Flags, Form, Item, ItemKind, Side};
use super::media::Read;
use super::models::{Modalities, Model};
use super::parts::{self, PartKind};
use super::plan::{Changes, synthetic_id};
use super::prep::{self, Prep};
use super::truncate::Policy;
use super::typed;
use super::words;
use crate::json;
use crate::source::SpanReader;
use crate::view::{Change, Entry, Origin, PromptView, Shape, Sink, part_steps};

/// One bit per call id.
#[derive(Debug, Clone, Default)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(len: usize) -> Bits {
        Bits(vec![0; len.div_ceil(64)])
    }

    fn set(&mut self, i: u32) {
        self.0[i as usize / 64] |= 1 << (i % 64);
    }

    fn has(&self, i: u32) -> bool {
        self.0[i as usize / 64] & (1 << (i % 64)) != 0
    }
}

/// One entry of the view, or an item left out, pointing into the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// The history item: as it is, or prepared (§8) and with media replaced (§6).
    Item(usize),
    /// A synthetic `"aborted"` output for the call at this history index.
    Insert(usize, Family),
    /// An orphan output left out.
    Remove(usize),
    /// An item of a type Codex does not know, appended from a `response_item`: Codex does not
    /// send it (SPEC §11.2 #1).
    Drop(usize),
}

/// What a prompt view is made for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Settings {
    pub modalities: Modalities,
    /// Resume preparation (SPEC §8).
    pub prep: Prep,
    /// The model Codex resumes with.
    pub model: Model,
}

/// The prompt view of a Codex history, as a plan over it.
pub(crate) struct View<'s> {
    pub state: &'s State,
    pub settings: Settings,
    /// Per family: call ids that have a call, and that have an output.
    called: [Bits; 3],
    answered: [Bits; 3],
}

impl<'s> View<'s> {
    pub fn new(state: &'s State, settings: Settings) -> View<'s> {
        let ids = state.calls.strings();
        let mut called: [Bits; 3] = Default::default();
        let mut answered: [Bits; 3] = Default::default();
        for family in Family::ALL {
            called[family as usize] = Bits::new(ids);
            answered[family as usize] = Bits::new(ids);
        }
        for item in &state.history {
            let (Some((family, side)), Some(id)) = (item.kind.family(), item.call().pairing())
            else {
                continue;
            };
            match side {
                Side::Call => called[family as usize].set(id),
                Side::Output => answered[family as usize].set(id),
            }
        }
        View {
            state,
            settings,
            called,
            answered,
        }
    }

    /// Whether this output is left out: its string call id has no call of its family, or its
    /// call id is some other JSON value. Outputs with no call id, and server tool-search
    /// outputs, always stay.
    fn orphan(&self, item: &Item, family: Family) -> bool {
        let key = item.call();
        if key.is_none() || item.has(Flags::SERVER) {
            return false;
        }
        key.pairing()
            .is_none_or(|id| !self.called[family as usize].has(id))
    }

    /// Whether this call has no output of its family anywhere.
    fn unanswered(&self, item: &Item, family: Family) -> bool {
        item.call()
            .pairing()
            .is_some_and(|id| !self.answered[family as usize].has(id))
    }

    /// The plan, in order: each history item kept or removed, and synthetic outputs right after
    /// their calls.
    pub fn steps(&self) -> impl Iterator<Item = Step> + '_ {
        self.state
            .history
            .iter()
            .enumerate()
            .flat_map(move |(i, item)| {
                if item.kind == ItemKind::Other && item.has(Flags::APPENDED) {
                    return [Some(Step::Drop(i)), None];
                }
                let family = item.kind.family();
                if let Some((family, Side::Output)) = family
                    && self.orphan(item, family)
                {
                    return [Some(Step::Remove(i)), None];
                }
                let insert = match family {
                    Some((family, Side::Call)) if self.unanswered(item, family) => {
                        Some(Step::Insert(i, family))
                    }
                    _ => None,
                };
                [Some(Step::Item(i)), insert]
            })
            .flatten()
    }

    /// Entries in the view.
    pub fn len(&self) -> u64 {
        self.steps()
            .filter(|step| !matches!(step, Step::Remove(_) | Step::Drop(_)))
            .count() as u64
    }

    /// Whether the view may change this item (else it is printed as the history has it).
    fn may_change(&self, item: &Item) -> bool {
        let m = self.settings.modalities;
        let media = (!m.image && (item.has(Flags::MEDIA) || item.has(Flags::IMAGE_RESULT)))
            || ((!m.audio || self.settings.model.lite) && item.has(Flags::MEDIA));
        let lite_summary =
            self.settings.model.lite && matches!(item.form(), Form::Summary | Form::Owned);
        media || lite_summary || self.reencodes(item) || prep::may_change(item, self.settings.prep)
    }

    /// Whether Codex sends this item otherwise than the log spells it (SPEC §11.2 #4).
    fn reencodes(&self, item: &Item) -> bool {
        item.form() == Form::Verbatim
            && (item.has(Flags::WIRE)
                || (self.state.custom_provider && item.has(Flags::PASSTHROUGH)))
    }

    /// Appends a history item's view text to `out`: prepared, then with the media the
    /// modalities exclude replaced. Returns what changed.
    pub fn item_view(
        &self,
        item: Item,
        reader: &mut SpanReader<'_>,
        out: &mut Vec<u8>,
    ) -> io::Result<Changes> {
        let mut changes = Changes::default();
        if !self.may_change(&item) {
            forms::append_item_text(item, &self.state.owned, reader, out)?;
            return Ok(changes);
        }
        // An item the log spells as it is sent is read where it lies: each step below writes
        // a text of its own only when it changes the one before (an image's base64 is most of
        // an item, and most items keep it).
        let mut scratch = Vec::new();
        let mut text = forms::item_str(item, &self.state.owned, reader, &mut scratch)?;
        // The classifier's long strings of the item, as offsets of its text as logged (an item
        // written in another form has other offsets).
        let mut known = match item.form() {
            Form::Verbatim if !item.has(Flags::STRIPPED) => self.state.known.of(&item),
            _ => &[],
        };
        let mut sent = Vec::new();
        if self.reencodes(&item) {
            sent.reserve(text.len());
            let sending = (!self.state.custom_provider, self.settings.model.lite);
            typed::wire(text, known, item.kind, sending, &mut sent);
            changes.reencoded = sent != text.as_bytes();
            if changes.reencoded {
                known = &[];
                text = json::utf8(&sent).unwrap_or_default();
            }
        }
        let mut prepared_text = Vec::new();
        changes.prepared = prep::prepare(
            &item,
            text,
            known,
            self.settings.prep,
            Read::Whole,
            &mut prepared_text,
        );
        if !prepared_text.is_empty() {
            text = json::utf8(&prepared_text).unwrap_or_default();
            known = &[];
        }
        let lite = self.settings.model.lite;
        let start = out.len();
        // An item as logged without media has none to replace (its parts were counted from
        // this text, and neither re-encoding nor preparation adds one).
        let media = item.has(Flags::MEDIA) || item.has(Flags::IMAGE_RESULT);
        if item.form() == Form::Verbatim && !media {
            out.extend_from_slice(text.as_bytes());
        } else {
            replace_media(
                item,
                (text, known),
                self.settings.modalities,
                lite,
                &mut changes,
                out,
            );
        }
        if lite && !self.state.custom_provider && item.kind == ItemKind::Message {
            let mut replaced = changes.prepared.replaced.clone();
            replaced.extend(&changes.replaced);
            // A legacy compaction's summary is Codex's own text (`compaction.summary`), and so is
            // the marker in a user message the rebuild cut.
            match item.form() {
                Form::Summary => replaced.push(0),
                Form::Owned => {
                    let text = std::str::from_utf8(&out[start..]).unwrap_or_default();
                    let f = Fields::of(text, &[]);
                    for (index, part) in parts::parts(text, &[], &f.content).iter().enumerate() {
                        let body = part.text(text).unwrap_or_default();
                        if body.starts_with('…') && body.ends_with(" truncated…") {
                            replaced.push(index as u32);
                        }
                    }
                }
                _ => {}
            }
            if !replaced.is_empty() {
                let text = String::from_utf8(out.split_off(start)).unwrap_or_default();
                changes.provenance = provenance(&text, &replaced, out);
            }
        }
        Ok(changes)
    }

    /// The view's entries, in order (see [`crate::view::entries_in_parts`]): preparing a long
    /// output decodes, cuts and encodes it, so entries are made on every core.
    fn entries_in_parts(
        &self,
        reader: &mut SpanReader<'_>,
        sink: Sink<'_>,
        part_steps: Option<usize>,
    ) -> io::Result<()> {
        let history = &self.state.history;
        let bytes = |step: &Step| match *step {
            Step::Item(i) | Step::Insert(i, _) => u64::from(history[i].len),
            Step::Remove(_) | Step::Drop(_) => 0,
        };
        let make = |step: &Step, reader: &mut SpanReader<'_>, out: &mut Vec<u8>| {
            self.entry_text(*step, reader, out)
        };
        crate::view::entries_in_parts(self.steps(), bytes, make, reader, sink, part_steps)
    }

    /// Appends the JSON text of a step's entry to `out`; `None` for a removed item.
    pub fn entry_text(
        &self,
        step: Step,
        reader: &mut SpanReader<'_>,
        out: &mut Vec<u8>,
    ) -> io::Result<Option<Origin>> {
        let history = &self.state.history;
        Ok(Some(match step {
            Step::Remove(_) | Step::Drop(_) => return Ok(None),
            // Written straight where they go.
            Step::Item(i) => {
                let changes = self.item_view(history[i], reader, out)?;
                if changes.any() {
                    Origin::Changed
                } else {
                    Origin::Kept
                }
            }
            Step::Insert(i, family) => {
                let mut call = Vec::new();
                self.item_text(history[i], reader, &mut call)?;
                synthetic_output(&call, family, out);
                Origin::Synthetic
            }
        }))
    }

    /// The JSON text of a history item, as its form makes it.
    pub fn item_text(
        &self,
        item: Item,
        reader: &mut SpanReader<'_>,
        out: &mut Vec<u8>,
    ) -> io::Result<()> {
        forms::item_text(item, &self.state.owned, reader, out)
    }
}

/// The non-empty string `id` of a call, which names its synthetic output.
pub(crate) fn call_item_id(call: &str) -> Option<String> {
    let f = Fields::of(call, &[]);
    json::string_at(call, &f.id)
        .filter(|id| !id.is_empty())
        .map(|id| id.into_owned())
}

/// The `"aborted"` output that stands in for the missing one of `call`.
pub(crate) fn synthetic_output(call: &[u8], family: Family, out: &mut Vec<u8>) {
    let call = std::str::from_utf8(call).unwrap_or_default();
    let f = Fields::of(call, &[]);
    // The call id as the call spelled it, so that it pairs byte for byte.
    let call_id = super::item::raw(call, &f.call_id).unwrap_or("null");
    let id = match call_item_id(call) {
        Some(id) => format!(r#""id":"{}","#, synthetic_id(family, &id)),
        None => String::new(),
    };
    let kind = family.output_kind().name();
    let text = match family {
        Family::Function | Family::Custom => {
            format!(r#"{{"type":"{kind}",{id}"call_id":{call_id},"output":"aborted"}}"#)
        }
        Family::ToolSearch => format!(
            r#"{{"type":"{kind}",{id}"call_id":{call_id},"status":"completed","execution":"client","tools":[]}}"#
        ),
    };
    out.extend_from_slice(text.as_bytes());
}

/// A message whose parts `replaced` are placeholders, with the provenance of each part in its
/// passthrough metadata, as Codex sends it to a Responses Lite model (live check, Codex 0.169.0
/// with gpt-5.6-sol and gpt-6.1-sol): `harness` for a placeholder, `unknown` for the others.
/// Content item metadata the log already has is sent as it is. Returns whether it added any.
fn provenance(text: &str, replaced: &[u32], out: &mut Vec<u8>) -> bool {
    let f = Fields::of(text, &[]);
    let passthrough = json::member(text, 0, "internal_chat_message_metadata_passthrough")
        .filter(|range| text[range.clone()].starts_with('{'));
    let logged = passthrough
        .as_ref()
        .and_then(|at| json::member(text, at.start, "content_item_metadata"));
    let count = parts::parts(text, &[], &f.content).len() as u32;
    if logged.is_some() || count == 0 {
        out.extend_from_slice(text.as_bytes());
        return false;
    }
    let mut metadata = String::from(r#""content_item_metadata":["#);
    for index in 0..count {
        if index > 0 {
            metadata.push(',');
        }
        metadata.push_str(if replaced.contains(&index) {
            r#"{"provenance":{"type":"harness","hook":false}}"#
        } else {
            r#"{"provenance":{"type":"unknown"}}"#
        });
    }
    metadata.push(']');
    // Into the passthrough object, after its last member; else a new one at the item's end.
    let (at, insert) = match passthrough {
        Some(range)
            if text[range.clone()]
                .trim_start_matches('{')
                .trim_start()
                .starts_with('}') =>
        {
            (range.end - 1, metadata)
        }
        Some(range) => (range.end - 1, format!(",{metadata}")),
        None => (
            text.trim_end().len() - 1,
            format!(r#","internal_chat_message_metadata_passthrough":{{{metadata}}}"#),
        ),
    };
    json::splice(text, vec![(at..at, insert)], out);
    true
}

const IMAGE_PLACEHOLDER: &str = r#"{"type":"input_text","text":"image content omitted because you do not support image input"}"#;
const AUDIO_PLACEHOLDER: &str = r#"{"type":"input_text","text":"audio content omitted because you do not support audio input"}"#;

/// The item with each media part the model cannot take replaced in place (SPEC §6 passes 4
/// and 5), and, when `strip_detail`, each image it keeps without its `detail` (a Responses Lite
/// model: `strip_image_details`). Everything else keeps its bytes. `known`: the long strings of
/// `text` a walk found, or none.
fn replace_media(
    item: Item,
    (text, known): (&str, &[json::Walked]),
    modalities: Modalities,
    strip_detail: bool,
    changes: &mut Changes,
    out: &mut Vec<u8>,
) {
    let f = Fields::of(text, known);
    let mut edits: Vec<(std::ops::Range<usize>, &str)> = Vec::new();
    let parts = match item.kind {
        ItemKind::Message => &f.content,
        ItemKind::FunctionCallOutput | ItemKind::CustomToolCallOutput => &f.output,
        ItemKind::ImageGenerationCall => {
            if let Some(result) = f.result.clone()
                && !modalities.image
                && &text[result.clone()] != r#""""#
            {
                changes.image_result = true;
                edits.push((result, r#""""#));
            }
            &None
        }
        ItemKind::FunctionCall
        | ItemKind::LocalShellCall
        | ItemKind::CustomToolCall
        | ItemKind::ToolSearchCall
        | ItemKind::ToolSearchOutput
        | ItemKind::AgentMessage
        | ItemKind::Reasoning
        | ItemKind::WebSearchCall
        | ItemKind::Compaction
        | ItemKind::ContextCompaction
        | ItemKind::AdditionalTools
        | ItemKind::GhostSnapshot
        | ItemKind::Other => &None,
    };
    for (index, part) in parts::parts(text, known, parts).into_iter().enumerate() {
        let range = part.range;
        match part.kind {
            PartKind::Image if !modalities.image => {
                changes.images += 1;
                changes.replaced.push(index as u32);
                edits.push((range, IMAGE_PLACEHOLDER));
            }
            PartKind::Audio if !modalities.audio => {
                changes.audio += 1;
                changes.replaced.push(index as u32);
                edits.push((range, AUDIO_PLACEHOLDER));
            }
            PartKind::Image if strip_detail => {
                if let Some(cut) = json::member_cut(text, range.start, "detail") {
                    changes.details += 1;
                    edits.push((cut, ""));
                }
            }
            _ => {}
        }
    }
    json::splice(text, edits, out);
}

impl PromptView for View<'_> {
    fn shape(&self) -> Shape {
        let prep = self.settings.prep;
        // Resume preparation applies to Codex's own records only: a mini rollout has none.
        let spellings = self.state.spellings;
        let prep = match (prep.enabled, prep.truncation) {
            _ if !spellings.codex && !spellings.codex_2025 => String::new(),
            (false, _) => ", no resume preparation".to_string(),
            (true, Some(Policy::Tokens(n))) => format!(", truncation tokens:{n}"),
            (true, Some(Policy::Bytes(n))) => format!(", truncation bytes:{n}"),
            (true, None) => ", truncation none".to_string(),
        };
        Shape {
            history: self.state.history.len() as u64,
            history_unit: "items",
            view: self.len(),
            view_unit: "items",
            settings: format!(
                "model {}, modalities {}{prep}",
                self.settings.model.describe(),
                self.settings.modalities.name()
            ),
        }
    }

    fn entries(
        &self,
        reader: &mut SpanReader<'_>,
        each: &mut dyn FnMut(Entry<'_>) -> io::Result<()>,
    ) -> io::Result<()> {
        self.entries_in_parts(reader, Sink::Each(each), part_steps())
    }

    fn lines(&self, reader: &mut SpanReader<'_>, out: &mut dyn io::Write) -> io::Result<()> {
        self.entries_in_parts(reader, Sink::Lines(out), part_steps())
    }

    fn changes(
        &self,
        reader: &mut SpanReader<'_>,
        each: &mut dyn FnMut(Change) -> io::Result<()>,
    ) -> io::Result<String> {
        let history = &self.state.history;
        let mut tally = words::Tally::default();
        let mut at = 0;
        let mut text = Vec::new();
        for step in self.steps() {
            if !matches!(step, Step::Remove(_) | Step::Drop(_)) {
                at += 1;
            }
            let change = match step {
                Step::Item(i) => {
                    if !self.may_change(&history[i]) {
                        continue;
                    }
                    text.clear();
                    let changes = self.item_view(history[i], reader, &mut text)?;
                    if !changes.any() {
                        continue;
                    }
                    tally.changed(&changes);
                    words::changed(history[i], i, at, &changes)
                }
                Step::Remove(i) => {
                    tally.orphans += 1;
                    words::orphan(history[i], i, &self.state.calls)
                }
                Step::Drop(i) => {
                    tally.dropped += 1;
                    self.item_text(history[i], reader, &mut text)?;
                    let f = Fields::of(std::str::from_utf8(&text).unwrap_or_default(), &[]);
                    let name = std::str::from_utf8(&text)
                        .ok()
                        .and_then(|t| json::string_at(t, &f.kind).map(|n| n.into_owned()))
                        .unwrap_or_default();
                    words::dropped(history[i], i, &name)
                }
                Step::Insert(i, family) => {
                    tally.inserted += 1;
                    self.item_text(history[i], reader, &mut text)?;
                    let id = call_item_id(std::str::from_utf8(&text).unwrap_or_default());
                    words::inserted(history[i], i, at, family, id.as_deref(), &self.state.calls)
                }
            };
            each(change)?;
        }
        Ok(tally.footer())
    }

    fn describe(&self, entry: &Entry<'_>) -> (String, Option<&'static str>, Vec<String>) {
        words::transcript(entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries are made on any thread, in parts, and printed in order: the view is the same
    /// whatever the parts (one step each, or made here one at a time), on every Codex story,
    /// with and without resume preparation; and printed as lines, they are the same.
    #[test]
    fn entries_do_not_depend_on_how_the_steps_are_split() {
        use crate::session::{self, AnyView, ViewSettings};
        let mut seen = 0;
        for story in std::fs::read_dir("fixtures/codex").expect("fixtures") {
            let story = story.expect("entry").path();
            // Their resized images take seconds in a test build, and are one item each.
            if story.to_string_lossy().contains("prep_images") {
                continue;
            }
            let log = story.join("rollout.jsonl");
            let Ok(bytes) = std::fs::read(&log) else {
                continue;
            };
            let load = session::Load::alone(crate::chunk::MAX_LINE_BYTES);
            let Ok(session) = session::load_bytes("<bytes>", bytes, load) else {
                continue;
            };
            for no_resume_prep in [false, true] {
                let settings = ViewSettings {
                    no_resume_prep,
                    ..ViewSettings::default()
                };
                let Ok(AnyView::Codex(view)) = session.view(&settings) else {
                    continue;
                };
                let shown = |part_steps| {
                    let mut reader = SpanReader::new(&session.sources);
                    let mut out = Vec::new();
                    view.entries_in_parts(
                        &mut reader,
                        Sink::Each(&mut |e| {
                            out.push((e.origin, e.text.to_vec()));
                            Ok(())
                        }),
                        part_steps,
                    )
                    .expect("entries");
                    out
                };
                let entries = shown(None);
                assert!(entries == shown(Some(1)), "{}", log.display());
                // The lines written a part at a time are those entries, each ended by `\n`.
                let lines = |part_steps| {
                    let mut reader = SpanReader::new(&session.sources);
                    let mut out = Vec::new();
                    view.entries_in_parts(&mut reader, Sink::Lines(&mut out), part_steps)
                        .expect("lines");
                    out
                };
                let joined: Vec<u8> = entries
                    .iter()
                    .flat_map(|(_, t)| [&t[..], b"\n"])
                    .flatten()
                    .copied()
                    .collect();
                for part_steps in [None, Some(1), Some(crate::view::PART_STEPS)] {
                    assert!(lines(part_steps) == joined, "{}", log.display());
                }
                seen += 1;
            }
        }
        assert!(seen >= 100, "only {seen} views");
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
    fn synthetic_outputs_spell_the_call_id_as_the_call_does() {
        let mut out = Vec::new();
        synthetic_output(
            br#"{"type":"function_call","id":"fc_existing","call_id":"c\u0031"}"#,
            Family::Function,
            &mut out,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"type":"function_call_output","id":"fco_742749b0-3645-5d32-a172-676827826a07","call_id":"c\u0031","output":"aborted"}"#
        );
    }
}
