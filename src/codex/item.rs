//! Codex history items (OpenAI Responses API input items) as compact headers: where the item's
//! text is, its kind, its call id, and the few facts the rules need, read once from its members.
//! The text itself stays in the source and is read again only to print the item.

use std::ops::Range;

use crate::json::{self, Parser};
use crate::source::Span;

/// The item types the rules tell apart; every other type is [`ItemKind::Other`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub(crate) enum ItemKind {
    Message,
    FunctionCall,
    FunctionCallOutput,
    LocalShellCall,
    CustomToolCall,
    CustomToolCallOutput,
    ToolSearchCall,
    ToolSearchOutput,
    ImageGenerationCall,
    AgentMessage,
    Reasoning,
    WebSearchCall,
    Compaction,
    ContextCompaction,
    AdditionalTools,
    GhostSnapshot,
    Other,
}

/// Each kind with the `type` that names it: the one table both directions are read from.
const KIND_NAMES: [(ItemKind, &str); 16] = [
    (ItemKind::Message, "message"),
    (ItemKind::FunctionCall, "function_call"),
    (ItemKind::FunctionCallOutput, "function_call_output"),
    (ItemKind::LocalShellCall, "local_shell_call"),
    (ItemKind::CustomToolCall, "custom_tool_call"),
    (ItemKind::CustomToolCallOutput, "custom_tool_call_output"),
    (ItemKind::ToolSearchCall, "tool_search_call"),
    (ItemKind::ToolSearchOutput, "tool_search_output"),
    (ItemKind::ImageGenerationCall, "image_generation_call"),
    (ItemKind::AgentMessage, "agent_message"),
    (ItemKind::Reasoning, "reasoning"),
    (ItemKind::WebSearchCall, "web_search_call"),
    (ItemKind::Compaction, "compaction"),
    (ItemKind::ContextCompaction, "context_compaction"),
    (ItemKind::AdditionalTools, "additional_tools"),
    (ItemKind::GhostSnapshot, "ghost_snapshot"),
];

impl ItemKind {
    pub fn from_type(name: &str) -> ItemKind {
        // Codex's serde alias for the compaction item.
        if name == "compaction_summary" {
            return ItemKind::Compaction;
        }
        KIND_NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map_or(ItemKind::Other, |(kind, _)| *kind)
    }

    /// The `type` this kind is named by (`item` for the kinds not told apart).
    pub fn name(self) -> &'static str {
        KIND_NAMES
            .iter()
            .find(|(kind, _)| *kind == self)
            .map_or("item", |(_, name)| name)
    }

    /// Calls and outputs: the kinds whose `call_id` pairs.
    pub fn pairs(self) -> bool {
        self.family().is_some()
    }

    /// The pairing family of a call or output, and which of the two it is.
    pub fn family(self) -> Option<(Family, Side)> {
        use Family::*;
        use Side::*;
        Some(match self {
            ItemKind::FunctionCall | ItemKind::LocalShellCall => (Function, Call),
            ItemKind::CustomToolCall => (Custom, Call),
            ItemKind::ToolSearchCall => (ToolSearch, Call),
            ItemKind::FunctionCallOutput => (Function, Output),
            ItemKind::CustomToolCallOutput => (Custom, Output),
            ItemKind::ToolSearchOutput => (ToolSearch, Output),
            ItemKind::Message
            | ItemKind::ImageGenerationCall
            | ItemKind::AgentMessage
            | ItemKind::Reasoning
            | ItemKind::WebSearchCall
            | ItemKind::Compaction
            | ItemKind::ContextCompaction
            | ItemKind::AdditionalTools
            | ItemKind::GhostSnapshot
            | ItemKind::Other => return None,
        })
    }
}

/// Call families: a call and the outputs that answer it (SPEC §6 pass 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Family {
    /// `function_call` and `local_shell_call`, answered by `function_call_output`.
    Function,
    /// `custom_tool_call`, answered by `custom_tool_call_output`.
    Custom,
    /// `tool_search_call`, answered by `tool_search_output`.
    ToolSearch,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Call,
    Output,
}

impl Family {
    pub const ALL: [Family; 3] = [Family::Function, Family::Custom, Family::ToolSearch];

    pub fn output_kind(self) -> ItemKind {
        match self {
            Family::Function => ItemKind::FunctionCallOutput,
            Family::Custom => ItemKind::CustomToolCallOutput,
            Family::ToolSearch => ItemKind::ToolSearchOutput,
        }
    }

    /// What its calls are called, for messages.
    pub fn calls(self) -> &'static str {
        match self {
            Family::Function => "function_call or local_shell_call",
            Family::Custom => "custom_tool_call",
            Family::ToolSearch => "tool_search_call",
        }
    }

    /// The prefix of synthetic output ids.
    pub fn id_prefix(self) -> &'static str {
        match self {
            Family::Function => "fco",
            Family::Custom => "ctco",
            Family::ToolSearch => "tso",
        }
    }
}

/// How an item's text is made from its span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Form {
    /// The span is the item's JSON text, printed as it is (or with R1/R2 edits spliced in).
    Verbatim = 0,
    /// The span is an `inter_agent_communication` payload: the `agent_message` Codex makes of it.
    InterAgent = 1,
    /// The span is a legacy compaction's `message` string: the user message holding it.
    Summary = 2,
    /// The span is a user message: the message Codex rebuilds from its text (SPEC §2.2).
    Rebuilt = 3,
    /// `at` indexes the fold's owned texts (a rebuilt message whose text was cut).
    Owned = 4,
}

/// A call's or output's `call_id`, as an index into the fold's table of ids. Only strings pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct CallKey(pub u32);

impl CallKey {
    /// Missing or `null`.
    pub const NONE: CallKey = CallKey(0);
    /// The high bit marks a `call_id` that is neither a string nor null (it pairs with nothing).
    pub const OTHER: u32 = 1 << 31;

    pub fn string(index: u32) -> CallKey {
        CallKey(index + 1)
    }

    pub fn other(index: u32) -> CallKey {
        CallKey((index + 1) | Self::OTHER)
    }

    /// The table index of a string id: what pairs.
    pub fn pairing(self) -> Option<u32> {
        (self.0 != 0 && self.0 & Self::OTHER == 0).then(|| self.0 - 1)
    }

    pub fn is_none(self) -> bool {
        self.0 == 0
    }
}

bitflags::bitflags! {
    /// Facts about an item, one bit each.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub(crate) struct Flags: u16 {
        /// A `user` message with no contextual fragment: a user turn (and what §2.2 collects).
        const USER = 1;
        /// An assistant message holding an inter-agent communication: a turn boundary.
        const INTER_AGENT = 1 << 1;
        /// A context update that a rollback trims above its cut: a contextual user message, or a
        /// developer message with a developer-context part (SPEC §2.1).
        const CONTEXT_UPDATE = 1 << 2;
        /// A developer message with a whole `<model_switch>` part.
        const MODEL_SWITCH = 1 << 3;
        /// A `tool_search_output` with `execution` `"server"`: never an orphan.
        const SERVER = 1 << 4;
        /// Appended from a Codex `response_item` record: R1 truncates its output (SPEC §8).
        const APPENDED = 1 << 5;
        /// From a Codex-dialect record: R2 prepares its media.
        const CODEX = 1 << 6;
        /// An `image_generation_call` whose `result` is not `""`.
        const IMAGE_RESULT = 1 << 7;
        /// Has `input_image` or `input_audio` parts.
        const MEDIA = 1 << 8;
        /// Its whole `<model_switch>` parts are stripped (a first-turn rollback, SPEC §2.1).
        const STRIPPED = 1 << 9;
        /// A `message` with role `user` (contextual or not).
        const ROLE_USER = 1 << 10;
        /// A `message` with role `developer`.
        const ROLE_DEVELOPER = 1 << 11;
        /// A user message whose text is an earlier compaction summary (SPEC §2.2).
        const SUMMARY = 1 << 12;
        /// What Codex sends of it differs from its text: its typed item lacks a member, a member is
        /// `null`, its `id` is not `prefix_rest`, … (SPEC §11.2 #4; see `typed`).
        const WIRE = 1 << 13;
        /// Has passthrough metadata, which Codex does not send with a non-`openai` provider.
        const PASSTHROUGH = 1 << 14;
        /// A tool output array with an empty `input_text` part, which R1 drops (SPEC §11.2 #7).
        const EMPTY_TEXT = 1 << 15;
    }
}

/// Counts the report needs under the default preparation, so that it need not read items again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct PrepCounts(pub u32);

/// How many of each a header counts exactly; past it, the report reads the item again.
const COUNT_MAX: u32 = 0x7f;

impl PrepCounts {
    const SATURATED: u32 = 1 << 31;
    const TRUNCATED: u32 = 1 << 30;

    /// The counts of an item under the default view: `audio` and `images` are the media parts
    /// left after resume preparation, which a view without those modalities then replaces.
    pub fn new(truncated: bool, prepared: u32, resize: u32, audio: u32, images: u32) -> PrepCounts {
        if prepared.max(resize).max(audio).max(images) > COUNT_MAX {
            return PrepCounts(Self::SATURATED);
        }
        PrepCounts(u32::from(truncated) << 30 | prepared << 21 | resize << 14 | audio << 7 | images)
    }

    /// Too many parts to count in a header: the report reads the item again.
    pub fn saturated(self) -> bool {
        self.0 & Self::SATURATED != 0
    }

    /// R1 cuts the output.
    pub fn truncated(self) -> bool {
        self.0 & Self::TRUNCATED != 0
    }

    /// Media parts R2 replaces or rewrites.
    pub fn prepared(self) -> u32 {
        (self.0 >> 21) & COUNT_MAX
    }

    /// Images R2 keeps that Codex would resize.
    pub fn resize(self) -> u32 {
        (self.0 >> 14) & COUNT_MAX
    }

    /// `input_audio` parts left after R2.
    pub fn audio(self) -> u32 {
        (self.0 >> 7) & COUNT_MAX
    }

    /// `input_image` parts left after R2.
    pub fn images(self) -> u32 {
        self.0 & COUNT_MAX
    }
}

/// One history item: 24 bytes, however large its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Item {
    /// The source index in the top 16 bits, the offset in the low 48.
    at_src: u64,
    pub len: u32,
    /// The call id of a call or output; the length of a user message's text (SPEC §2.2).
    pub aux: u32,
    pub prep: PrepCounts,
    pub kind: ItemKind,
    form: u8,
    pub flags: Flags,
}

const OFFSET_BITS: u32 = 48;

impl Item {
    pub fn new(src: u16, span: Span, kind: ItemKind, form: Form) -> Item {
        Item {
            at_src: u64::from(src) << OFFSET_BITS | (span.at & ((1 << OFFSET_BITS) - 1)),
            len: span.len,
            aux: 0,
            prep: PrepCounts::default(),
            kind,
            form: form as u8,
            flags: Flags::default(),
        }
    }

    pub fn src(self) -> usize {
        (self.at_src >> OFFSET_BITS) as usize
    }

    pub fn span(self) -> Span {
        Span {
            at: self.at_src & ((1 << OFFSET_BITS) - 1),
            len: self.len,
        }
    }

    pub fn form(self) -> Form {
        match self.form {
            1 => Form::InterAgent,
            2 => Form::Summary,
            3 => Form::Rebuilt,
            4 => Form::Owned,
            _ => Form::Verbatim,
        }
    }

    /// The same item, read from source `src`.
    pub fn in_source(mut self, src: u16) -> Item {
        self.at_src = u64::from(src) << OFFSET_BITS | (self.at_src & ((1 << OFFSET_BITS) - 1));
        self
    }

    /// Where its text is (its source and offset): what tells items apart.
    pub fn place(self) -> u64 {
        self.at_src
    }

    pub fn call(self) -> CallKey {
        if self.kind.pairs() {
            CallKey(self.aux)
        } else {
            CallKey::NONE
        }
    }

    /// Whether it has any of `flags`.
    pub fn has(self, flags: Flags) -> bool {
        self.flags.intersects(flags)
    }

    /// A user-turn boundary: what rollbacks count (SPEC §2.1).
    pub fn is_boundary(self) -> bool {
        self.kind == ItemKind::AgentMessage || self.has(Flags::USER | Flags::INTER_AGENT)
    }
}

/// The long strings of the items the view walks again (to prepare or re-encode them), as
/// offsets of each item's own text, found by the item's place: those walks step over them
/// instead of scanning a build log or an image's base64 again.
#[derive(Debug, Default)]
pub(crate) struct KnownStrings {
    strings: Vec<json::Walked>,
    of: std::collections::HashMap<u64, (u32, u32)>,
}

impl KnownStrings {
    pub fn add(&mut self, item: Item, known: &[json::Walked]) {
        let at = self.strings.len() as u32;
        self.strings.extend_from_slice(known);
        self.of.insert(item.place(), (at, known.len() as u32));
    }

    /// The long strings of `item`'s text, in order (none when they were not kept).
    pub fn of(&self, item: &Item) -> &[json::Walked] {
        let Some(&(at, len)) = self.of.get(&item.place()) else {
            return &[];
        };
        let at = at as usize;
        self.strings.get(at..at + len as usize).unwrap_or_default()
    }
}

/// The members of an object that the Codex rules read, as ranges of the parsed text (the last
/// duplicate wins). One type serves items, payloads and mini records alike, since a record's
/// `type` may come after its payload.
#[derive(Debug, Default, Clone)]
pub(crate) struct Fields {
    pub kind: Option<Range<usize>>,
    pub role: Option<Range<usize>>,
    pub id: Option<Range<usize>>,
    pub call_id: Option<Range<usize>>,
    pub execution: Option<Range<usize>>,
    pub message: Option<Range<usize>>,
    pub num_turns: Option<Range<usize>>,
    pub turn_id: Option<Range<usize>>,
    pub thread_id: Option<Range<usize>>,
    pub cwd: Option<Range<usize>>,
    pub timestamp: Option<Range<usize>>,
    pub replacement_history: Option<Range<usize>>,
    /// The `result` of an image generation call.
    pub result: Option<Range<usize>>,
    /// `content` of a message, `output` of a tool output.
    pub content: Option<Range<usize>>,
    pub output: Option<Range<usize>>,
    /// `internal_chat_message_metadata_passthrough`.
    pub passthrough: Option<Range<usize>>,
    /// A session_meta's `model_provider`.
    pub model_provider: Option<Range<usize>>,
    /// A call's `name`, and its arguments: `arguments` of a function call, `input` of a custom
    /// tool call.
    pub name: Option<Range<usize>>,
    pub arguments: Option<Range<usize>>,
    pub input: Option<Range<usize>>,
}

impl Fields {
    /// Reads the members of the object at the parser's position; returns its range.
    pub fn read(p: &mut Parser<'_>) -> json::Result<(Fields, Range<usize>)> {
        let mut f = Fields::default();
        let range = f.read_into(p)?;
        Ok((f, range))
    }

    /// The members of the object `text` is, stepping over the long strings a walk found in it
    /// (`known`, or none); none when it is no object.
    pub fn of(text: &str, known: &[json::Walked]) -> Fields {
        let mut p = Parser::knowing(text, known);
        Fields::read(&mut p).map(|(f, _)| f).unwrap_or_default()
    }

    /// [`Fields::read`] into these fields (a read in place moves no 480 bytes around).
    pub fn read_into(&mut self, p: &mut Parser<'_>) -> json::Result<Range<usize>> {
        p.object(|p, key| self.member(p, key))
    }

    /// Reads the value of member `key` at the parser's position if it is one of ours; returns
    /// whether it did (see [`Parser::object`]).
    pub fn member(&mut self, p: &mut Parser<'_>, key: json::Key<'_>) -> json::Result<bool> {
        let Some(slot) = self.slot(&key.name()) else {
            return Ok(false);
        };
        *slot = Some(p.value()?);
        Ok(true)
    }

    /// Where the value of member `name` goes, if it is one of ours.
    pub fn slot(&mut self, name: &str) -> Option<&mut Option<Range<usize>>> {
        Some(match name {
            "type" => &mut self.kind,
            "role" => &mut self.role,
            "id" => &mut self.id,
            "call_id" => &mut self.call_id,
            "execution" => &mut self.execution,
            "message" => &mut self.message,
            "num_turns" => &mut self.num_turns,
            "turn_id" => &mut self.turn_id,
            "thread_id" => &mut self.thread_id,
            "cwd" => &mut self.cwd,
            "timestamp" => &mut self.timestamp,
            "replacement_history" => &mut self.replacement_history,
            "result" => &mut self.result,
            "content" => &mut self.content,
            "output" => &mut self.output,
            "internal_chat_message_metadata_passthrough" => &mut self.passthrough,
            "model_provider" => &mut self.model_provider,
            "name" => &mut self.name,
            "arguments" => &mut self.arguments,
            "input" => &mut self.input,
            _ => return None,
        })
    }
}

/// The raw JSON text at `range`.
pub(crate) fn raw<'t>(text: &'t str, range: &Option<Range<usize>>) -> Option<&'t str> {
    range.as_ref().map(|r| &text[r.clone()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_names_are_one_table() {
        for (kind, name) in KIND_NAMES {
            assert_eq!(ItemKind::from_type(name), kind);
            assert_eq!(kind.name(), name);
        }
        assert_eq!(ItemKind::from_type("agent_scratchpad"), ItemKind::Other);
        assert_eq!(
            ItemKind::from_type("compaction_summary"),
            ItemKind::Compaction
        );
        assert_eq!(ItemKind::Other.name(), "item");
    }

    #[test]
    fn headers_are_small_and_keep_their_span() {
        assert_eq!(std::mem::size_of::<Item>(), 24);
        assert_eq!(std::mem::size_of::<Flags>(), 2);
        let span = Span {
            at: (1 << 40) + 7,
            len: 99,
        };
        let item = Item::new(3, span, ItemKind::Message, Form::Rebuilt);
        assert_eq!(
            (item.src(), item.span(), item.form()),
            (3, span, Form::Rebuilt)
        );
    }

    #[test]
    fn prep_counts_round_trip_and_saturate() {
        let p = PrepCounts::new(true, 3, 2, 1, 127);
        assert_eq!(
            (
                p.truncated(),
                p.prepared(),
                p.resize(),
                p.audio(),
                p.images()
            ),
            (true, 3, 2, 1, 127)
        );
        assert!(PrepCounts::new(false, 128, 0, 0, 0).saturated());
        assert!(!PrepCounts::default().saturated());
    }

    #[test]
    fn call_keys_tell_strings_from_other_values() {
        assert_eq!(CallKey::string(0).pairing(), Some(0));
        assert_eq!(CallKey::other(0).pairing(), None);
        assert_eq!(CallKey::NONE.pairing(), None);
        assert!(!CallKey::other(5).is_none());
    }
}
