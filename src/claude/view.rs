//! The Claude Code prompt view: the Messages API `messages` Claude Code 2.1.328 sends when it
//! resumes the history (SPEC §10, as §11.3 and docs/dialects.md correct it). The plan is made
//! from block headers, read once (in parts, on every core, straight at the `content` the
//! classifier found), in a few linear steps:
//!
//! 1. entries become items: user and assistant messages, `attachment` reminders, `local_command`
//!    system entries as user text; empty assistant text, thinking of another model and
//!    `isApiErrorMessage` replies go;
//! 2. a `tool_use` with no result anywhere goes (per entry), unless it ends the history;
//! 3. attachments move up to the last assistant message or tool-result message before them;
//! 4. items merge into messages (user entries joined with `"\n"`, reminders folded into a
//!    tool result);
//! 5. results are paired with their calls: a late one gets Claude Code's "missing" result and
//!    the late result is an orphan; an orphan leaves `(no content)` (or, first, `[Orphaned …]`);
//! 6. the end: an unanswered call gets the "interrupted" result, and a history that ends in a
//!    user message gets "No response requested." (not after `/exit` or a dropped API error).
//!
//! Blocks are read again as they are printed; only a block a rule changes is decoded and
//! re-encoded, and every block's numbers are printed as JavaScript prints them (`wire`).

use std::io;

use rayon::prelude::*;
use serde_json::Value;

use super::chain::{NONE, State};
use super::content::{self, BlockKind};
use super::entry::{Kind, Line};
use super::facts::{CLIENT_TOOLS, ENDS_IN_TEXT, Local, RENAME, SEND_MESSAGE, TOOL_REFS, local_of};
use super::wire;
use crate::json;
use crate::source::SpanReader;

/// What Claude Code puts in a result that comes later than the next message.
pub(crate) const MISSING_RESULT: &str = "[Tool result missing due to internal error]";
/// What Claude Code 2.1.328 puts in the result of a call the history ends with.
pub(crate) const INTERRUPTED_RESULT: &str = "[Tool call interrupted: the session ended before \
this call's result was recorded, so its outcome is unknown. Check whether it took effect before \
relying on it or running it again.]";
/// The assistant message after a history that ends in a user message.
pub(crate) const NO_RESPONSE: &str = "No response requested.";
/// A user message left with no block, anywhere but first.
pub(crate) const NO_CONTENT: &str = "(no content)";
/// A first user message left with no block.
pub(crate) const ORPHANED: &str = "[Orphaned tool result removed due to conversation resume]";
/// After a tool result that loads tools the client has.
pub(crate) const TOOL_LOADED: &str = "Tool loaded.";
/// A tool result whose every part was a reference to a tool the client does not have.
pub(crate) const TOOLS_REMOVED: &str = "[Tool references removed - tools no longer available]";

/// The model `claude -p --resume` uses when the transcript's model is retired (and when the
/// transcript has no assistant entry).
pub(crate) const DEFAULT_MODEL: &str = "claude-opus-5-5";
/// Models Claude Code 2.1.328 was seen to call retired ("could not be restored (retired)").
pub(crate) const RETIRED: &[&str] = &["claude-sonnet-4-20250514"];
/// What a block of the view is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Body {
    /// Block `index` of its node's content, as the log has it.
    Raw,
    /// A result for the tool use at `node`/`index` that was answered too late.
    Missing,
    /// A result for the tool use at `node`/`index` the history ends with.
    Interrupted,
    /// A text block of Claude Code's own words.
    Text(Said),
    /// A text block of the text rendered from its node's entry ([`State::rendered`]: an
    /// attachment's reminder, a local command's text).
    Rendered,
}

/// The texts Claude Code writes into a view as blocks of their own (a block names one in a
/// byte, not a `&str`: a view holds a block for every block of the history).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Said {
    ToolLoaded,
    NoResponse,
    Orphaned,
    NoContent,
}

impl Said {
    pub fn text(self) -> &'static str {
        match self {
            Said::ToolLoaded => TOOL_LOADED,
            Said::NoResponse => NO_RESPONSE,
            Said::Orphaned => ORPHANED,
            Said::NoContent => NO_CONTENT,
        }
    }
}

/// Where a block of the view comes from, and what the rules do to it: 28 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Block {
    pub node: u32,
    pub index: u32,
    pub kind: BlockKind,
    /// The interned id it carries (`NONE` when it carries no string id).
    pub id: u32,
    pub body: Body,
    /// `"\n"` appended to its text (to a tool result's last text part): another entry follows.
    pub newline: bool,
    pub edits: u8,
    /// The reminders folded into this tool result: `View::folds[folded]` (`NONE` for none, as
    /// for all but a few blocks).
    pub folded: u32,
}

impl Block {
    fn new(node: u32, index: u32, kind: BlockKind, id: u32, body: Body) -> Block {
        Block {
            node,
            index,
            kind,
            id,
            body,
            newline: false,
            edits: 0,
            folded: NONE,
        }
    }

    fn text(node: u32, body: Body) -> Block {
        Block::new(node, 0, BlockKind::Text, NONE, body)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    User,
    Assistant,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// What a rule did to one message, for the diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Note {
    /// Results given Claude Code's "missing" text (ids).
    Missing(Vec<u32>),
    /// Results given the "interrupted" text (ids).
    Interrupted(Vec<u32>),
    /// Orphan results removed (ids).
    Orphans(Vec<u32>),
    /// Left with no block: sent as this text.
    Placeholder(&'static str),
    /// Text blocks given `"\n"` where entries were joined.
    Joined(u32),
    /// Reminders folded into a tool result.
    Folded(u32),
    /// `Task` calls sent as `Agent`.
    Renamed(u32),
    /// `SendMessage` inputs without their legacy members.
    SendMessage(u32),
    /// Tool results whose references to tools the client lacks were removed.
    ToolRefs(u32),
}

/// One message of the view.
#[derive(Debug, Clone)]
pub(crate) struct Message {
    pub role: Role,
    message_id: u32,
    pub blocks: Vec<Block>,
    /// The history nodes it was made from.
    pub nodes: Vec<u32>,
    /// Made by the rules: nothing in the log stands for it.
    pub inserted: bool,
    pub notes: Vec<Note>,
}

/// Something of the history the view leaves out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Dropped {
    /// A tool use with no result anywhere, not at the end (its id).
    Unanswered { node: u32, id: u32 },
    /// Thinking written by another model than the resuming one.
    Thinking { node: u32 },
    /// An assistant text of only whitespace.
    Blank { node: u32 },
    /// An `isApiErrorMessage` reply.
    ApiError { node: u32 },
}

/// The items a message starts with room for (see [`View::merge`]).
const JOINED: usize = 4;

/// The view of a Claude Code history.
pub(crate) struct View<'s> {
    pub state: &'s State,
    pub messages: Vec<Message>,
    /// The reminders folded into a tool result, as the nodes they were rendered from, for each
    /// such result.
    pub folds: Vec<Vec<u32>>,
    /// Ids of tool uses given a synthetic result (missing or interrupted), in order.
    pub missing: Vec<u32>,
    /// Ids of orphan results removed.
    pub orphans: Vec<u32>,
    pub dropped: Vec<Dropped>,
    /// The model the view is for (the resuming model).
    pub model: String,
    /// The history node of the message left open at the end (SPEC §10 `incomplete_turn`).
    pub incomplete: Option<u32>,
    /// Messages of the history before the rules (entries merged as they stand).
    pub history_messages: u64,
    /// For each id, whether it is a tool use of the response the history ends with.
    trailing: Vec<bool>,
}

/// The text of a node's entry, read again: an error if it is no longer a JSON object.
fn entry_text<'r>(state: &State, node: u32, reader: &'r mut SpanReader<'_>) -> io::Result<&'r str> {
    let n = &state.nodes[node as usize];
    let bytes = reader.read(usize::from(n.src), n.span)?;
    let text = json::utf8(bytes).map_err(|_| crate::source::changed())?;
    if !(text.starts_with('{') && text.ends_with('}')) {
        return Err(crate::source::changed());
    }
    Ok(text)
}

/// The blocks of node `node`'s message, from its entry's `text`. The classifier found the
/// content and its long strings: the entry is not parsed again to find it, nor are they
/// scanned again.
fn blocks_of(state: &State, node: u32, text: &str) -> io::Result<Vec<content::Block>> {
    let n = &state.nodes[node as usize];
    Ok(match n.content {
        Some(content) => {
            let content = content.get(text).ok_or_else(crate::source::changed)?;
            content::blocks(text, state.walked(n), &content)
        }
        None => Vec::new(),
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ItemKind {
    Message,
    Attachment,
    ApiError,
}

/// One history entry that can reach the view.
#[derive(Debug, Clone)]
struct Item {
    role: Role,
    kind: ItemKind,
    node: u32,
    message_id: u32,
    /// The assistant entry's `message.model` (index into `models`).
    model: u32,
    /// Its blocks: a range of the one vector of the history's blocks ([`Items::blocks`]). A
    /// vector of each item's own was an allocation an entry, made on a drafting thread and
    /// freed on this one.
    blocks: std::ops::Range<u32>,
    local: Local,
    /// A user entry with a block that is neither a result nor local-command text.
    prompt: bool,
}

impl Item {
    /// Its blocks, among the history's `blocks`.
    fn blocks_in<'b>(&self, blocks: &'b [Block]) -> &'b [Block] {
        &blocks[self.blocks.start as usize..self.blocks.end as usize]
    }
}

/// The history's items, and their blocks one after another.
#[derive(Default)]
struct Items {
    items: Vec<Item>,
    blocks: Vec<Block>,
}

/// Keeps the blocks of `item` that `keep` says to keep, in order, among `blocks`.
fn retain_blocks(blocks: &mut [Block], item: &mut Item, mut keep: impl FnMut(&Block) -> bool) {
    let (start, end) = (item.blocks.start as usize, item.blocks.end as usize);
    let mut kept = start;
    for at in start..end {
        if keep(&blocks[at]) {
            blocks[kept] = blocks[at];
            kept += 1;
        }
    }
    item.blocks.end = kept as u32;
}

/// What one history entry gives the view, worked out on any thread: its item, if any
/// ([`View::adopt`] takes it, in history order).
struct Draft {
    node: u32,
    /// Its blocks are in its part's ([`Part`]).
    item: Option<Item>,
    /// An assistant entry's model, and whether it is the history's model so far.
    model: Option<(u32, bool)>,
    /// Whitespace-only assistant texts dropped.
    blanks: u32,
}

/// The drafts of a part of the history, and their items' blocks.
#[derive(Default)]
struct Part {
    drafts: Vec<Draft>,
    blocks: Vec<Block>,
}

/// The draft of history node `node`'s entry (see [`Draft`]), its blocks added to `blocks`. A
/// message is drafted from the facts the classifier told of its blocks, an attachment or a
/// local command from the text it rendered: no entry is read again.
fn draft(state: &State, node: u32, blocks: &mut Vec<Block>) -> Draft {
    let n = &state.nodes[node as usize];
    let mut draft = Draft {
        node,
        item: None,
        model: None,
        blanks: 0,
    };
    let attachment = n.kind == Kind::Attachment;
    let local_command = n.has(Line::LOCAL_COMMAND);
    if !(n.has(Line::MESSAGE) || n.has(Line::RENDERS) || local_command) {
        return draft;
    }
    let start = blocks.len() as u32;
    let mut item = Item {
        role: Role::User,
        kind: ItemKind::Message,
        node,
        message_id: n.message_id,
        model: NONE,
        blocks: start..start,
        local: Local::None,
        prompt: false,
    };
    if attachment || local_command {
        let Some(text) = state.rendered.get(&node) else {
            return draft;
        };
        if attachment {
            item.kind = ItemKind::Attachment;
        } else {
            item.local = local_of(text, false);
            item.prompt = item.local == Local::None;
        }
        blocks.push(Block::text(node, Body::Rendered));
        item.blocks.end = blocks.len() as u32;
        draft.item = Some(item);
        return draft;
    }
    if n.kind == Kind::Assistant {
        item.role = Role::Assistant;
        if n.has(Line::API_ERROR) {
            item.kind = ItemKind::ApiError;
        }
        if n.model != NONE {
            let last = item.kind == ItemKind::Message && state.models.get(n.model) != SYNTHETIC;
            draft.model = Some((n.model, last));
        }
    }
    let facts = state.facts(n);
    for (index, fact) in facts.iter().enumerate() {
        let mut block = Block::new(node, index as u32, fact.kind, fact.id, Body::Raw);
        match (item.role, fact.kind) {
            (Role::Assistant, BlockKind::Text) if fact.blank() => {
                draft.blanks += 1;
                continue;
            }
            (Role::Assistant, BlockKind::ToolUse) => block.edits = fact.edits,
            (Role::User, BlockKind::ToolResult) => {
                block.edits = fact.edits;
                blocks.push(block);
                if fact.loaded() {
                    blocks.push(Block::text(node, Body::Text(Said::ToolLoaded)));
                }
                continue;
            }
            (Role::User, BlockKind::Text) => {
                let local = fact.local();
                if item.local == Local::None {
                    item.local = local;
                }
                item.prompt |= local == Local::None && !fact.local_text();
            }
            (Role::User, _) => item.prompt = true,
            _ => {}
        }
        blocks.push(block);
    }
    item.blocks.end = blocks.len() as u32;
    if !(item.blocks.is_empty() && item.role == Role::Assistant) {
        draft.item = Some(item);
    }
    draft
}

/// The model of the assistant entries Claude Code makes itself, which never becomes the
/// history's model.
const SYNTHETIC: &[u8] = b"<synthetic>";

impl<'s> View<'s> {
    /// Plans the view of the history for the resuming `model` (default: the model of the last
    /// assistant entry, or [`DEFAULT_MODEL`] when that one is retired) from what the classifier
    /// told of its entries, reading none of them again.
    pub fn new(state: &'s State, model: Option<&str>) -> io::Result<View<'s>> {
        View::drafted(state, model, crate::view::PART_STEPS)
    }

    /// [`View::new`], the entries drafted in parts of `part_steps`.
    fn drafted(state: &'s State, model: Option<&str>, part_steps: usize) -> io::Result<View<'s>> {
        if !state.told {
            // The command line asks for the facts whenever it builds a view.
            return Err(io::Error::other(
                "the session was replayed without the facts its view is planned from",
            ));
        }
        let mut view = View {
            state,
            messages: Vec::new(),
            folds: Vec::new(),
            missing: Vec::new(),
            orphans: Vec::new(),
            dropped: Vec::new(),
            model: String::new(),
            incomplete: None,
            history_messages: 0,
            trailing: Vec::new(),
        };
        let mut items = Items::default();
        // The model of the history's last assistant entry, a whitespace-only one too (SPEC
        // §11.3 rule 9), though the view drops that one.
        let mut last_model = None;
        // Entries are drafted in parts on every core, a batch of parts at a time, and adopted in
        // history order.
        let draft_part = |nodes: &[u32]| {
            let mut part = Part::default();
            for &node in nodes {
                let draft = draft(state, node, &mut part.blocks);
                part.drafts.push(draft);
            }
            part
        };
        let parallel = crate::pipeline::threads_available();
        let batch = part_steps.saturating_mul(crate::view::PARTS_AT_ONCE);
        for nodes in state.history.chunks(batch) {
            let parts: Vec<Part> = match parallel {
                true => nodes.par_chunks(part_steps).map(draft_part).collect(),
                false => nodes.chunks(part_steps).map(draft_part).collect(),
            };
            for part in parts {
                let shift = items.blocks.len() as u32;
                items.blocks.extend(part.blocks);
                for draft in part.drafts {
                    let item = view.adopt(draft, shift, &mut last_model);
                    items.items.extend(item);
                }
            }
        }
        view.history_messages = count_messages(&items.items);
        view.incomplete = incomplete(&items);
        view.model = match model {
            Some(m) => m.to_string(),
            None => last_model
                .map(|m| String::from_utf8_lossy(state.models.get(m)).into_owned())
                .filter(|m| !RETIRED.contains(&m.as_str()))
                .unwrap_or_else(|| DEFAULT_MODEL.to_string()),
        };
        let resuming = state.models.find(view.model.as_bytes());
        let quiet_end = view.entry_rules(&mut items, resuming);
        view.plan(items, quiet_end);
        Ok(view)
    }

    /// Takes the next history entry's draft: notes what it drops, and gives its item, if any,
    /// its blocks `shift` further on than in its part. `last_model` becomes the model of an
    /// assistant entry (not an API error, not `<synthetic>`), whether or not the view keeps the
    /// entry.
    fn adopt(&mut self, draft: Draft, shift: u32, last_model: &mut Option<u32>) -> Option<Item> {
        let Draft {
            item,
            node,
            model,
            blanks,
        } = draft;
        if let Some((m, true)) = model {
            *last_model = Some(m);
        }
        for _ in 0..blanks {
            self.dropped.push(Dropped::Blank { node });
        }
        let mut item = item?;
        item.model = model.map_or(NONE, |(m, _)| m);
        item.blocks = item.blocks.start + shift..item.blocks.end + shift;
        Some(item)
    }

    /// The rules that remove entries or blocks before anything merges: thinking of another
    /// model, unanswered tool uses not at the end, API error replies.
    /// Also says whether the end is one where the client adds no "No response requested.".
    fn entry_rules(&mut self, items: &mut Items, resuming: Option<u32>) -> bool {
        let Items { items, blocks } = items;
        for item in items.iter_mut().filter(|i| i.role == Role::Assistant) {
            if item.model != NONE && Some(item.model) == resuming {
                continue;
            }
            let before = item.blocks.len();
            retain_blocks(blocks, item, |b| b.kind != BlockKind::Thinking);
            if item.blocks.len() < before {
                self.dropped.push(Dropped::Thinking { node: item.node });
            }
        }
        items.retain(|i| !i.blocks.is_empty());
        let of = |item: &Item| item.blocks_in(blocks);
        // Tool uses answered anywhere, and those of the response the history ends with.
        let ids = self.state.tool_ids.len();
        let mut answered = vec![false; ids];
        for b in items
            .iter()
            .filter(|i| i.role == Role::User)
            .flat_map(of)
            .filter(|b| b.kind == BlockKind::ToolResult && b.id != NONE)
        {
            answered[b.id as usize] = true;
        }
        let mut trailing = vec![false; ids];
        let last = items
            .iter()
            .rposition(|i| i.role == Role::Assistant && i.kind == ItemKind::Message);
        if let Some(last) = last {
            let results_only = |i: &Item| {
                i.kind == ItemKind::Attachment
                    || (i.role == Role::User
                        && of(i).iter().all(|b| b.kind == BlockKind::ToolResult))
            };
            if items[last + 1..].iter().all(results_only) {
                let id = items[last].message_id;
                for item in items[..=last].iter().rev() {
                    let same = item.role == Role::Assistant
                        && item.kind == ItemKind::Message
                        && (id != NONE && item.message_id == id);
                    if !(same || results_only(item) || std::ptr::eq(item, &items[last])) {
                        break;
                    }
                    if item.role == Role::Assistant {
                        for b in of(item).iter().filter(|b| b.kind == BlockKind::ToolUse) {
                            if b.id != NONE {
                                trailing[b.id as usize] = true;
                            }
                        }
                    }
                }
            }
        }
        for item in items.iter_mut().filter(|i| i.role == Role::Assistant) {
            let dropped = &mut self.dropped;
            let node = item.node;
            retain_blocks(blocks, item, |b| {
                let keep = b.kind != BlockKind::ToolUse
                    || b.id == NONE
                    || answered[b.id as usize]
                    || trailing[b.id as usize];
                if !keep {
                    dropped.push(Dropped::Unanswered { node, id: b.id });
                }
                keep
            });
        }
        items.retain(|i| !i.blocks.is_empty());
        self.trailing = trailing;
        // The client decides on "No response requested." before it renders attachments and
        // drops API error replies: after either, it adds none.
        items.last().is_some_and(|i| i.kind != ItemKind::Message) || ends_with_exit(items)
    }

    /// Steps 3–6 of the module's list: items to messages.
    fn plan(&mut self, items: Items, quiet_end: bool) {
        let mut merged: Vec<Message> = Vec::with_capacity(items.items.len());
        // The new turn's reminders land after the last assistant or tool result message too:
        // the prompt follows the history's last block directly only when that is a user entry.
        let mut prompt_joins = false;
        let Items { items, blocks } = items;
        attachments_moved_up(items, &blocks, |item| {
            prompt_joins = item.kind == ItemKind::Message && item.role == Role::User;
            if item.kind == ItemKind::ApiError {
                self.dropped.push(Dropped::ApiError { node: item.node });
            } else {
                self.merge(&mut merged, &item, item.blocks_in(&blocks));
            }
        });
        let mut out = self.paired(merged);
        self.remove_orphans(&mut out);
        if out.last().is_some_and(|m| m.role == Role::User) {
            if !quiet_end {
                out.push(Message {
                    role: Role::Assistant,
                    message_id: NONE,
                    blocks: vec![Block::text(NONE, Body::Text(Said::NoResponse))],
                    nodes: Vec::new(),
                    inserted: true,
                    notes: Vec::new(),
                });
            } else if prompt_joins && let Some(last) = out.last_mut() {
                // The new prompt is another user entry of this message: the client joins it.
                join(last, BlockKind::Text);
            }
        }
        self.messages = out;
    }

    /// Adds an item, whose blocks are `blocks`, to the messages: a user item to a user message
    /// before it, an assistant item to the assistant message of the same response.
    fn merge(&mut self, messages: &mut Vec<Message>, item: &Item, blocks: &[Block]) {
        let mut notes = Vec::new();
        // Most items have no edit: their blocks are looked at once to tell.
        if blocks
            .iter()
            .any(|b| b.edits & (RENAME | SEND_MESSAGE | TOOL_REFS) != 0)
        {
            let renamed = count(blocks, RENAME);
            if renamed > 0 {
                notes.push(Note::Renamed(renamed));
            }
            let rewritten = count(blocks, SEND_MESSAGE);
            if rewritten > 0 {
                notes.push(Note::SendMessage(rewritten));
            }
            let refs = count(blocks, TOOL_REFS);
            if refs > 0 {
                notes.push(Note::ToolRefs(refs));
            }
        }
        let last = messages.last_mut();
        match (item.role, last) {
            (Role::User, Some(last)) if last.role == Role::User => {
                if item.kind == ItemKind::Attachment
                    && let Some(result) = last
                        .blocks
                        .last_mut()
                        .filter(|b| b.kind == BlockKind::ToolResult && b.body == Body::Raw)
                {
                    // A reminder after a tool result goes into the result.
                    let folded = blocks.len() as u32;
                    if result.folded == NONE {
                        result.folded = self.folds.len() as u32;
                        self.folds.push(Vec::new());
                    }
                    let into = &mut self.folds[result.folded as usize];
                    for b in blocks {
                        if b.body == Body::Rendered {
                            into.push(b.node);
                        }
                    }
                    if result.edits & ENDS_IN_TEXT != 0 {
                        result.newline = true;
                    }
                    add_note(&mut last.notes, Note::Folded(folded));
                } else {
                    if item.kind != ItemKind::Attachment
                        && let Some(first) = blocks.first()
                    {
                        join(last, first.kind);
                    }
                    last.blocks.extend_from_slice(blocks);
                }
                last.nodes.push(item.node);
                notes.into_iter().for_each(|n| add_note(&mut last.notes, n));
            }
            (Role::Assistant, Some(last))
                if last.role == Role::Assistant
                    && item.message_id != NONE
                    && last.message_id == item.message_id =>
            {
                last.blocks.extend_from_slice(blocks);
                last.nodes.push(item.node);
                notes.into_iter().for_each(|n| add_note(&mut last.notes, n));
            }
            _ => {
                // Claude Code writes an entry for each block of a response, and a turn's tool
                // results follow one another: most messages are joined from a few items, and
                // grown from one they were reallocated at each.
                let mut message = Message {
                    role: item.role,
                    message_id: item.message_id,
                    blocks: Vec::with_capacity(blocks.len().max(JOINED)),
                    nodes: Vec::with_capacity(JOINED),
                    inserted: false,
                    notes,
                };
                message.blocks.extend_from_slice(blocks);
                message.nodes.push(item.node);
                messages.push(message);
            }
        }
    }

    /// Every tool use answered in the next message: a call answered later gets Claude Code's
    /// "missing" result first in the next user message, a call the history ends with gets the
    /// "interrupted" result after the results there.
    fn paired(&mut self, messages: Vec<Message>) -> Vec<Message> {
        let mut out: Vec<Message> = Vec::with_capacity(messages.len() + 1);
        // The message (in `out`) whose tool uses the next message must answer.
        let mut pending: Option<usize> = None;
        // Which ids the message after the last tool uses answers: marked with a round each, in
        // one array for all of them (a set each was most of planning a large transcript).
        let mut answered = vec![0u32; self.state.tool_ids.len()];
        let mut round = 0;
        for mut m in messages {
            if let Some(uses) = pending.take() {
                if m.role == Role::User {
                    round += 1;
                    for b in m.blocks.iter().filter(|b| b.kind == BlockKind::ToolResult) {
                        if b.id != NONE {
                            answered[b.id as usize] = round;
                        }
                    }
                    let unanswered = |id: u32| answered[id as usize] != round;
                    let (missing, interrupted) = self.synthetic(&out[uses], unanswered);
                    self.note_synthetic(&mut m.notes, &missing, &interrupted);
                    m.blocks.splice(0..0, missing);
                    m.blocks.extend(interrupted);
                } else {
                    let (missing, interrupted) = self.synthetic(&out[uses], |_| true);
                    out.push(self.results_message(missing, interrupted));
                }
            }
            let uses = |b: &Block| b.kind == BlockKind::ToolUse && b.id != NONE;
            if m.role == Role::Assistant && m.blocks.iter().any(uses) {
                pending = Some(out.len());
            }
            out.push(m);
        }
        if let Some(uses) = pending {
            let (missing, interrupted) = self.synthetic(&out[uses], |_| true);
            out.push(self.results_message(missing, interrupted));
        }
        out
    }

    /// The results Claude Code makes for the tool uses of `m` that `unanswered` says have none:
    /// "missing" ones, and "interrupted" ones for the uses of the response the history ends with.
    fn synthetic(&self, m: &Message, unanswered: impl Fn(u32) -> bool) -> (Vec<Block>, Vec<Block>) {
        let (mut missing, mut interrupted) = (Vec::new(), Vec::new());
        let uses = m
            .blocks
            .iter()
            .filter(|b| b.kind == BlockKind::ToolUse && b.id != NONE);
        for b in uses.filter(|b| unanswered(b.id)) {
            let (to, body) = match self.trailing[b.id as usize] {
                true => (&mut interrupted, Body::Interrupted),
                false => (&mut missing, Body::Missing),
            };
            to.push(Block {
                kind: BlockKind::ToolResult,
                body,
                edits: 0,
                ..*b
            });
        }
        (missing, interrupted)
    }

    fn results_message(&mut self, missing: Vec<Block>, interrupted: Vec<Block>) -> Message {
        let mut notes = Vec::new();
        self.note_synthetic(&mut notes, &missing, &interrupted);
        let mut blocks = missing;
        blocks.extend(interrupted);
        Message {
            role: Role::User,
            message_id: NONE,
            blocks,
            nodes: Vec::new(),
            inserted: true,
            notes,
        }
    }

    fn note_synthetic(&mut self, notes: &mut Vec<Note>, missing: &[Block], interrupted: &[Block]) {
        if !missing.is_empty() {
            let ids: Vec<u32> = missing.iter().map(|b| b.id).collect();
            self.missing.extend(&ids);
            notes.push(Note::Missing(ids));
        }
        if !interrupted.is_empty() {
            let ids: Vec<u32> = interrupted.iter().map(|b| b.id).collect();
            self.missing.extend(&ids);
            notes.push(Note::Interrupted(ids));
        }
    }

    /// A result answers a tool use of the message just before (once), or goes; a user message left
    /// with nothing is sent as `(no content)`, or `[Orphaned …]` when it is the first.
    fn remove_orphans(&mut self, messages: &mut [Message]) {
        // The tool uses of the assistant message just before, marked with its round in one
        // array (a set for each message was most of planning a large transcript): a use is
        // answered once, its mark taken back.
        let mut used = vec![0u32; self.state.tool_ids.len()];
        let mut round = 0;
        let mut after_uses = false;
        for (at, m) in messages.iter_mut().enumerate() {
            if m.role == Role::Assistant {
                round += 1;
                after_uses = true;
                let uses = m.blocks.iter().filter(|b| b.kind == BlockKind::ToolUse);
                for b in uses.filter(|b| b.id != NONE) {
                    used[b.id as usize] = round;
                }
                continue;
            }
            let mut removed = Vec::new();
            // A second result for one tool use goes too: Claude Code 2.1.328 sends the first
            // (a fork's own placeholder result after the one it inherits, fork_context_ref).
            m.blocks.retain(|b| {
                let answers = b.id != NONE && after_uses && used[b.id as usize] == round;
                let keep = b.kind != BlockKind::ToolResult || answers;
                if !keep {
                    removed.push(b.id);
                } else if answers && b.kind == BlockKind::ToolResult {
                    used[b.id as usize] = 0;
                }
                keep
            });
            // A "Tool loaded." whose result went goes with it.
            if !removed.is_empty() {
                let mut after_result = false;
                m.blocks.retain(|b| {
                    let keep = b.body != Body::Text(Said::ToolLoaded) || after_result;
                    after_result = b.kind == BlockKind::ToolResult;
                    keep
                });
                self.orphans.extend(&removed);
                m.notes.push(Note::Orphans(removed));
            }
            if m.blocks.is_empty() {
                let said = if at == 0 {
                    Said::Orphaned
                } else {
                    Said::NoContent
                };
                m.blocks.push(Block::text(NONE, Body::Text(said)));
                m.notes.push(Note::Placeholder(said.text()));
            }
            after_uses = false;
        }
    }

    /// The text rendered from node `node`'s entry (a block of it is [`Body::Rendered`]).
    fn rendered(&self, node: u32) -> &str {
        &self.state.rendered[&node]
    }

    /// Messages in the view.
    pub fn len(&self) -> u64 {
        self.messages.len() as u64
    }

    /// An id as text (U+FFFD for a lone surrogate).
    pub fn id_text(&self, id: u32) -> String {
        if id == NONE {
            "null".into()
        } else {
            json::lossy_key(self.state.tool_ids.get(id))
        }
    }

    /// Appends a message's JSON text to `out`.
    pub(crate) fn message_text(
        &self,
        m: &Message,
        reader: &mut SpanReader<'_>,
        out: &mut Vec<u8>,
    ) -> io::Result<()> {
        out.extend_from_slice(br#"{"role":""#);
        out.extend_from_slice(m.role.name().as_bytes());
        out.extend_from_slice(br#"","content":["#);
        let mut i = 0;
        while let Some(b) = m.blocks.get(i) {
            let own = match b.body {
                Body::Text(said) => Some(said.text()),
                Body::Rendered => Some(self.rendered(b.node)),
                Body::Raw | Body::Missing | Body::Interrupted => None,
            };
            if let Some(text) = own {
                comma(i, out);
                out.extend_from_slice(br#"{"type":"text","text":"#);
                let mut t = text.to_string();
                if b.newline {
                    t.push('\n');
                }
                json::encode_str(t.as_bytes(), out);
                out.push(b'}');
                i += 1;
                continue;
            }
            // The blocks that follow from the same entry are written from one reading of it,
            // borrowed from the reader's window.
            let text = entry_text(self.state, b.node, reader)?;
            let blocks = blocks_of(self.state, b.node, text)?;
            let known = self.state.walked(&self.state.nodes[b.node as usize]);
            for b in m.blocks[i..].iter().take_while(|next| {
                next.node == b.node
                    && matches!(next.body, Body::Raw | Body::Missing | Body::Interrupted)
            }) {
                comma(i, out);
                i += 1;
                let Some(block) = blocks.get(b.index as usize) else {
                    return Err(crate::source::changed());
                };
                self.raw_block(b, text, known, block, out);
            }
        }
        out.extend_from_slice(b"]}");
        Ok(())
    }

    /// Writes block `b` of the view, which is `block` of the entry `text` (or answers it); the
    /// long strings of its entry's content are `known`.
    fn raw_block(
        &self,
        b: &Block,
        text: &str,
        known: &[json::Walked],
        block: &content::Block,
        out: &mut Vec<u8>,
    ) {
        let raw = &text[block.range.clone()];
        match b.body {
            Body::Missing | Body::Interrupted => {
                let id = block.id.as_ref().map_or("null", |r| &text[r.clone()]);
                out.extend_from_slice(br#"{"type":"tool_result","tool_use_id":"#);
                out.extend_from_slice(id.as_bytes());
                out.extend_from_slice(br#","content":"#);
                let text = if b.body == Body::Missing {
                    MISSING_RESULT
                } else {
                    INTERRUPTED_RESULT
                };
                json::encode_str(text.as_bytes(), out);
                out.extend_from_slice(br#","is_error":true}"#);
            }
            _ if raw.starts_with('"') => {
                out.extend_from_slice(br#"{"type":"text","text":"#);
                if b.newline {
                    out.extend_from_slice(&raw.as_bytes()[..raw.len() - 1]);
                    out.extend_from_slice(br#"\n""#);
                } else {
                    out.extend_from_slice(raw.as_bytes());
                }
                out.push(b'}');
            }
            _ if b.edits & !ENDS_IN_TEXT == 0 && !b.newline && b.folded == NONE => {
                wire::write_js(text, block.range.clone(), known, out);
            }
            _ => match serde_json::from_str::<Value>(raw) {
                Ok(mut value) => {
                    self.edit(b, &mut value);
                    let text = serde_json::to_string(&value).unwrap_or_default();
                    wire::write_js(&text, 0..text.len(), &[], out);
                }
                Err(_) => wire::write_js(text, block.range.clone(), known, out),
            },
        }
    }

    /// The rules' changes to one decoded block.
    fn edit(&self, b: &Block, value: &mut Value) {
        let Some(block) = value.as_object_mut() else {
            return;
        };
        if b.edits & RENAME != 0 {
            block.insert("name".into(), Value::String("Agent".into()));
        }
        if b.edits & SEND_MESSAGE != 0
            && let Some(input) = block.get_mut("input").and_then(Value::as_object_mut)
        {
            for legacy in ["type", "recipient", "content"] {
                input.remove(legacy);
            }
        }
        if b.edits & TOOL_REFS != 0
            && let Some(Value::Array(parts)) = block.get_mut("content")
        {
            parts.retain(|p| {
                p.get("type").and_then(Value::as_str) != Some("tool_reference")
                    || p.get("tool_name")
                        .and_then(Value::as_str)
                        .is_some_and(|t| CLIENT_TOOLS.contains(&t))
            });
            if parts.is_empty() {
                parts.push(serde_json::json!({"type": "text", "text": TOOLS_REMOVED}));
            }
        }
        if b.newline {
            match block.get_mut(if b.kind == BlockKind::Text {
                "text"
            } else {
                "content"
            }) {
                Some(Value::String(text)) if b.kind == BlockKind::Text => text.push('\n'),
                Some(Value::Array(parts)) => {
                    if let Some(Value::String(text)) =
                        parts.last_mut().and_then(|p| p.get_mut("text"))
                    {
                        text.push('\n');
                    }
                }
                _ => {}
            }
        }
        if let Some(folded) = self.folds.get(b.folded as usize) {
            let texts = folded.iter().map(|&node| self.rendered(node));
            match block.get_mut("content") {
                Some(Value::String(content)) => {
                    for t in texts {
                        content.push_str("\n\n");
                        content.push_str(t);
                    }
                }
                Some(Value::Array(parts)) => {
                    parts.extend(texts.map(|t| serde_json::json!({"type": "text", "text": t})));
                }
                _ => {
                    let joined: Vec<&str> = texts.collect();
                    block.insert("content".into(), Value::String(joined.join("\n\n")));
                }
            }
        }
    }
}

/// The `,` before the content block at `i`.
fn comma(i: usize, out: &mut Vec<u8>) {
    if i > 0 {
        out.push(b',');
    }
}

/// `"\n"` after the last block of a user message when another user entry's block of kind
/// `next` follows: only a text after a text. Nothing before an image, a tool result or an
/// attachment's reminder, nothing after a tool result (real_subagents…2_1_114 message 10).
fn join(m: &mut Message, next: BlockKind) {
    let Some(last) = m.blocks.last_mut() else {
        return;
    };
    let joins = last.kind == BlockKind::Text
        && next == BlockKind::Text
        && last.body != Body::Text(Said::ToolLoaded);
    if joins && !last.newline {
        last.newline = true;
        match m.notes.iter_mut().find(|n| matches!(n, Note::Joined(_))) {
            Some(Note::Joined(n)) => *n += 1,
            _ => m.notes.push(Note::Joined(1)),
        }
    }
}

/// Adds a note to a message's, counting into one of its kind already there.
fn add_note(notes: &mut Vec<Note>, note: Note) {
    for n in notes.iter_mut() {
        match (n, &note) {
            (Note::Folded(a), Note::Folded(b))
            | (Note::Renamed(a), Note::Renamed(b))
            | (Note::SendMessage(a), Note::SendMessage(b))
            | (Note::ToolRefs(a), Note::ToolRefs(b)) => {
                *a += b;
                return;
            }
            _ => {}
        }
    }
    notes.push(note);
}

fn count(blocks: &[Block], edit: u8) -> u32 {
    blocks.iter().filter(|b| b.edits & edit != 0).count() as u32
}

/// The items handed to `take` with the attachments moved up, past user entries, to just after
/// the last assistant entry or tool result entry before them (each group keeping its order).
/// Handed on, not collected: a copy of a history's items (16 MB for a 512 MiB transcript) was
/// 10 of the 50 ms of planning its view.
fn attachments_moved_up(items: Vec<Item>, blocks: &[Block], mut take: impl FnMut(Item)) {
    let (mut attachments, mut users) = (Vec::new(), Vec::new());
    for item in items {
        let results = || {
            let own = item.blocks_in(blocks);
            own.iter().any(|b| b.kind == BlockKind::ToolResult)
        };
        if item.kind == ItemKind::Attachment {
            attachments.push(item);
        } else if item.role == Role::Assistant || results() {
            // An API error reply stops them too: the client drops it only afterwards.
            attachments.drain(..).for_each(&mut take);
            users.drain(..).for_each(&mut take);
            take(item);
        } else {
            users.push(item);
        }
    }
    attachments.into_iter().for_each(&mut take);
    users.into_iter().for_each(take);
}

/// Whether the history ends with what `/exit` writes: the `isMeta` caveat, the command and its
/// output (the client then adds no "No response requested.").
fn ends_with_exit(items: &[Item]) -> bool {
    let locals: Vec<Local> = items
        .iter()
        .rev()
        .filter(|i| i.kind != ItemKind::Attachment)
        .take(3)
        .map(|i| {
            if i.role == Role::User {
                i.local
            } else {
                Local::None
            }
        })
        .collect();
    locals == [Local::Output, Local::Command, Local::Caveat]
}

/// Messages the history's entries make as they stand (user entries merged, one response's
/// entries merged).
fn count_messages(items: &[Item]) -> u64 {
    let mut count = 0;
    let mut last: Option<(Role, u32)> = None;
    for i in items.iter().filter(|i| i.kind != ItemKind::Attachment) {
        let merges = match (last, i.role) {
            (Some((Role::User, _)), Role::User) => true,
            (Some((Role::Assistant, id)), Role::Assistant) => id != NONE && id == i.message_id,
            _ => false,
        };
        if !merges {
            count += 1;
        }
        last = Some((i.role, i.message_id));
    }
    count
}

/// The turn left open at the end (SPEC §10): an assistant entry with a tool use, or a user
/// message holding a prompt, with nothing after it.
fn incomplete(items: &Items) -> Option<u32> {
    let mut tail = items
        .items
        .iter()
        .rev()
        .filter(|i| i.kind != ItemKind::Attachment);
    let last = tail.next()?;
    match last.role {
        Role::Assistant => last
            .blocks_in(&items.blocks)
            .iter()
            .any(|b| b.kind == BlockKind::ToolUse && b.id != NONE)
            .then_some(last.node),
        Role::User => {
            let prompt = std::iter::once(last)
                .chain(tail.take_while(|i| i.role == Role::User))
                .any(|i| i.prompt);
            prompt.then_some(last.node)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assistant, entry, user, view};
    use super::*;
    use serde_json::{Value, json};

    fn text(t: &str) -> Value {
        json!({"type": "text", "text": t})
    }

    fn use_(id: &str, name: &str, input: Value) -> Value {
        json!({"type": "tool_use", "id": id, "name": name, "input": input})
    }

    fn result(id: &str, content: Value) -> Value {
        json!({"type": "tool_result", "tool_use_id": id, "content": content})
    }

    fn u(content: Vec<Value>) -> Value {
        json!({"role": "user", "content": content})
    }

    fn a(content: Vec<Value>) -> Value {
        json!({"role": "assistant", "content": content})
    }

    fn filler() -> Value {
        a(vec![text(NO_RESPONSE)])
    }

    /// Parts are drafted on any thread and adopted in order: the view is the same whatever
    /// the parts (one entry each, or one for the whole transcript), on every real transcript.
    #[test]
    fn the_view_does_not_depend_on_how_the_entries_are_split() {
        let mut seen = 0;
        for story in std::fs::read_dir("fixtures/claude").expect("fixtures") {
            let story = story.expect("entry").path();
            let Some(log) = std::fs::read_dir(&story).ok().and_then(|files| {
                files.flatten().map(|f| f.path()).find(|p| {
                    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                    name.len() == 42 && name.ends_with(".jsonl")
                })
            }) else {
                continue;
            };
            let text = std::fs::read_to_string(&log).expect("a transcript");
            let lines: Vec<String> = text.lines().map(String::from).collect();
            let (state, _) = super::super::testing::replayed(&lines);
            let shown = |part_steps| {
                let v = View::drafted(&state, None, part_steps).expect("a view");
                let ids = &v.state.tool_ids;
                let ids: Vec<&[u8]> = (0..ids.len() as u32).map(|i| ids.get(i)).collect();
                format!(
                    "{:?} {ids:?} {:?} {:?} {:?} {:?} {:?} {:?} {}",
                    v.messages,
                    v.folds,
                    v.state.rendered,
                    v.missing,
                    v.orphans,
                    v.dropped,
                    v.incomplete,
                    v.model
                )
            };
            assert!(shown(1) == shown(usize::MAX), "{}", log.display());
            seen += 1;
        }
        assert!(seen >= 10, "only {seen} transcripts");
    }

    #[test]
    fn merged_user_entries_are_joined_with_a_newline() {
        let lines = [
            user("1", None, json!("Second A.")),
            user("2", Some("1"), json!("Second B.")),
            assistant("3", Some("2"), "m1", text("Two.")),
        ];
        assert_eq!(
            view(&lines, None),
            [
                u(vec![text("Second A.\n"), text("Second B.")]),
                a(vec![text("Two.")])
            ]
        );
    }

    #[test]
    fn a_history_ending_in_a_user_message_gets_no_response_requested() {
        let lines = [user("1", None, json!("Hi"))];
        assert_eq!(view(&lines, None), [u(vec![text("Hi")]), filler()]);
    }

    #[test]
    fn the_exit_command_ends_without_a_filler_and_joins_the_prompt() {
        let caveat = entry(
            "2",
            Some("1"),
            json!({"type": "user", "isMeta": true, "message": {"role": "user",
                "content": "<local-command-caveat>Caveat</local-command-caveat>"}}),
        );
        let lines = [
            assistant("1", None, "m1", text("Done.")),
            caveat,
            user("3", Some("2"), json!("<command-name>/exit</command-name>")),
            user(
                "4",
                Some("3"),
                json!("<local-command-stdout>Bye</local-command-stdout>"),
            ),
        ];
        assert_eq!(
            view(&lines, None),
            [
                a(vec![text("Done.")]),
                u(vec![
                    text("<local-command-caveat>Caveat</local-command-caveat>\n"),
                    text("<command-name>/exit</command-name>\n"),
                    text("<local-command-stdout>Bye</local-command-stdout>\n"),
                ])
            ]
        );
    }

    #[test]
    fn attachments_move_up_and_fold_into_a_tool_result() {
        let hook = |uuid: &str, parent: &str| {
            entry(
                uuid,
                Some(parent),
                json!({"type": "attachment", "attachment": {"type": "hook_additional_context",
                    "content": ["ctx"], "hookEvent": "UserPromptSubmit"}}),
            )
        };
        let reminder =
            "<system-reminder>\nUserPromptSubmit hook additional context: ctx\n</system-reminder>";
        let lines = [
            assistant("1", None, "m1", text("One.")),
            user("2", Some("1"), json!("Second.")),
            hook("3", "2"),
            assistant("4", Some("3"), "m2", use_("t", "Bash", json!({}))),
            user("5", Some("4"), json!([result("t", json!("out"))])),
            hook("6", "5"),
            assistant("7", Some("6"), "m3", text("Two.")),
        ];
        assert_eq!(
            view(&lines, None),
            [
                a(vec![text("One.")]),
                u(vec![text(&format!("{reminder}\n")), text("Second.")]),
                a(vec![use_("t", "Bash", json!({}))]),
                u(vec![result("t", json!(format!("out\n\n{reminder}")))]),
                a(vec![text("Two.")]),
            ]
        );
    }

    #[test]
    fn a_trailing_unanswered_call_is_interrupted() {
        let lines = [
            user("1", None, json!("Do it.")),
            assistant("2", Some("1"), "m1", use_("t", "Bash", json!({}))),
        ];
        let interrupted = json!({"type": "tool_result", "tool_use_id": "t",
            "content": INTERRUPTED_RESULT, "is_error": true});
        assert_eq!(
            view(&lines, None),
            [
                u(vec![text("Do it.")]),
                a(vec![use_("t", "Bash", json!({}))]),
                u(vec![interrupted]),
                filler()
            ]
        );
    }

    #[test]
    fn an_unanswered_call_in_the_middle_goes_but_its_text_stays() {
        let lines = [
            user("1", None, json!("Do the thing.")),
            assistant("2", Some("1"), "m1", text("Working on it.")),
            assistant("3", Some("2"), "m1", use_("t", "Bash", json!({}))),
            user("4", Some("3"), json!("Never mind.")),
            assistant("5", Some("4"), "m2", text("Sure.")),
        ];
        assert_eq!(
            view(&lines, None),
            [
                u(vec![text("Do the thing.")]),
                a(vec![text("Working on it.")]),
                u(vec![text("Never mind.")]),
                a(vec![text("Sure.")]),
            ]
        );
    }

    #[test]
    fn orphan_results_leave_a_placeholder() {
        let lines = [
            user("1", None, json!([result("gone", json!("x"))])),
            assistant("2", Some("1"), "m1", text("One.")),
            user("3", Some("2"), json!([result("gone2", json!("y"))])),
            assistant("4", Some("3"), "m2", text("Two.")),
        ];
        assert_eq!(
            view(&lines, None),
            [
                u(vec![text(ORPHANED)]),
                a(vec![text("One.")]),
                u(vec![text(NO_CONTENT)]),
                a(vec![text("Two.")]),
            ]
        );
    }

    #[test]
    fn a_second_result_for_one_call_goes() {
        // A fork's placeholder result after the inherited one (fork_context_ref's capture).
        let lines = [
            user("1", None, json!("Start.")),
            assistant("2", Some("1"), "m1", use_("t", "Agent", json!({}))),
            user("3", Some("2"), json!([result("t", json!("first"))])),
            user(
                "4",
                Some("3"),
                json!([result("t", json!("again")), text("Go on.")]),
            ),
            assistant("5", Some("4"), "m2", text("Done.")),
        ];
        assert_eq!(
            view(&lines, None),
            [
                u(vec![text("Start.")]),
                a(vec![use_("t", "Agent", json!({}))]),
                u(vec![result("t", json!("first")), text("Go on.")]),
                a(vec![text("Done.")]),
            ]
        );
    }

    #[test]
    fn a_late_result_is_missing_in_place_and_an_orphan_later() {
        let lines = [
            user("1", None, json!("Start.")),
            assistant("2", Some("1"), "m1", use_("t", "Bash", json!({}))),
            user("3", Some("2"), json!("Use 3001.")),
            assistant("4", Some("3"), "m2", text("Understood.")),
            user("5", Some("4"), json!([result("t", json!("late"))])),
            assistant("6", Some("5"), "m3", text("Up.")),
        ];
        let missing = json!({"type": "tool_result", "tool_use_id": "t",
            "content": MISSING_RESULT, "is_error": true});
        assert_eq!(
            view(&lines, None),
            [
                u(vec![text("Start.")]),
                a(vec![use_("t", "Bash", json!({}))]),
                u(vec![missing, text("Use 3001.")]),
                a(vec![text("Understood.")]),
                u(vec![text(NO_CONTENT)]),
                a(vec![text("Up.")]),
            ]
        );
    }

    #[test]
    fn blocks_keep_file_order() {
        let lines = [
            assistant("1", None, "m1", use_("t", "Read", json!({}))),
            user(
                "2",
                Some("1"),
                json!([text("note"), result("t", json!("x"))]),
            ),
            assistant("3", Some("2"), "m2", text("ok")),
        ];
        assert_eq!(
            view(&lines, None)[1],
            u(vec![text("note"), result("t", json!("x"))])
        );
    }

    #[test]
    fn task_is_sent_as_agent_and_send_message_loses_legacy_members() {
        let input = json!({"to": "bob", "message": "hi", "type": "message", "recipient": "bob",
            "content": "hi", "summary": "s"});
        let lines = [
            assistant("1", None, "m1", use_("t", "Task", json!({}))),
            assistant("2", Some("1"), "m1", use_("s", "SendMessage", input)),
            user(
                "3",
                Some("2"),
                json!([result("t", json!("x")), result("s", json!("y"))]),
            ),
            assistant("4", Some("3"), "m2", text("ok")),
        ];
        assert_eq!(
            view(&lines, None)[0],
            a(vec![
                use_("t", "Agent", json!({})),
                use_(
                    "s",
                    "SendMessage",
                    json!({"to": "bob", "message": "hi", "summary": "s"})
                ),
            ])
        );
    }

    #[test]
    fn api_error_replies_are_dropped_and_their_neighbours_merge() {
        let error = entry(
            "3",
            Some("2"),
            json!({"type": "assistant", "isApiErrorMessage": true, "message": {"model":
                "<synthetic>", "id": "e", "role": "assistant", "content": [text("API Error")]}}),
        );
        let lines = [
            assistant("1", None, "m1", text("One.")),
            user("2", Some("1"), json!("Second.")),
            error,
            user("4", Some("3"), json!("Try again.")),
            assistant("5", Some("4"), "m2", text("Two.")),
        ];
        assert_eq!(
            view(&lines, None),
            [
                a(vec![text("One.")]),
                u(vec![text("Second.\n"), text("Try again.")]),
                a(vec![text("Two.")]),
            ]
        );
    }

    #[test]
    fn thinking_is_kept_only_for_the_model_that_wrote_it() {
        let thinking = json!({"type": "thinking", "thinking": "hm", "signature": "sig"});
        let lines = [
            user("1", None, json!("Q")),
            assistant("2", Some("1"), "m1", thinking.clone()),
            assistant("3", Some("2"), "m1", text("A")),
        ];
        assert_eq!(view(&lines, None)[1], a(vec![thinking, text("A")]));
        assert_eq!(
            view(&lines, Some("claude-opus-4-5-20251101"))[1],
            a(vec![text("A")])
        );
    }

    #[test]
    fn whitespace_only_assistant_text_is_dropped() {
        let lines = [
            user("1", None, json!("Q")),
            assistant("2", Some("1"), "m1", text(" \n")),
            assistant("3", Some("2"), "m1", text("A")),
        ];
        assert_eq!(view(&lines, None)[1], a(vec![text("A")]));
    }

    #[test]
    fn local_command_system_entries_are_user_text() {
        let system = entry(
            "2",
            Some("1"),
            json!({"type": "system", "subtype": "local_command",
                "content": "<local-command-stdout>Set model</local-command-stdout>"}),
        );
        let lines = [
            assistant("1", None, "m1", text("A")),
            system,
            user("3", Some("2"), json!("Go on.")),
            assistant("4", Some("3"), "m2", text("B")),
        ];
        assert_eq!(
            view(&lines, None)[1],
            u(vec![
                text("<local-command-stdout>Set model</local-command-stdout>\n"),
                text("Go on.")
            ])
        );
    }

    #[test]
    fn tool_references_are_kept_for_tools_the_client_has() {
        let refs = json!([{"type": "tool_reference", "tool_name": "WebFetch"},
            {"type": "tool_reference", "tool_name": "mcp__gone__tool"}]);
        let gone = json!([{"type": "tool_reference", "tool_name": "mcp__gone__tool"}]);
        let lines = [
            assistant("1", None, "m1", use_("t", "ToolSearch", json!({}))),
            user("2", Some("1"), json!([result("t", refs)])),
            assistant("3", Some("2"), "m2", use_("v", "ToolSearch", json!({}))),
            user("4", Some("3"), json!([result("v", gone)])),
            assistant("5", Some("4"), "m3", text("ok")),
        ];
        let out = view(&lines, None);
        let kept = json!([{"type": "tool_reference", "tool_name": "WebFetch"}]);
        assert_eq!(out[1], u(vec![result("t", kept), text(TOOL_LOADED)]));
        assert_eq!(out[3], u(vec![result("v", json!([text(TOOLS_REMOVED)]))]));
    }

    #[test]
    fn numbers_are_sent_as_javascript_doubles() {
        let lines = [
            assistant(
                "1",
                None,
                "m1",
                use_("t", "Bash", json!({"n": 12345678901234567890u64})),
            ),
            user("2", Some("1"), json!([result("t", json!("x"))])),
            assistant("3", Some("2"), "m2", text("ok")),
        ];
        let (state, sources) = super::super::testing::replayed(&lines);
        let mut reader = SpanReader::new(&sources);
        let view = View::new(&state, None).expect("a view");
        let mut text = Vec::new();
        view.message_text(&view.messages[0], &mut reader, &mut text)
            .expect("text");
        let text = String::from_utf8(text).expect("UTF-8");
        assert!(text.contains(r#""n":12345678901234567000"#), "{text}");
    }

    #[test]
    fn a_command_message_is_no_prompt_left_open() {
        let opened = |last: &str| {
            let lines = [
                user("1", None, json!("Q")),
                assistant("2", Some("1"), "m", text("A")),
                user("3", Some("2"), json!(last)),
            ];
            let (state, _) = super::super::testing::replayed(&lines);
            View::new(&state, None).expect("a view").incomplete
        };
        let command = "<command-message>review is running…</command-message>\n\
                       <command-name>/review</command-name>";
        assert_eq!(opened(command), None);
        assert_eq!(opened("Review this."), Some(2));
    }

    #[test]
    fn the_default_model_is_the_last_assistant_one_unless_retired() {
        let retired = entry(
            "2",
            Some("1"),
            json!({"type": "assistant", "message": {"model": RETIRED[0], "id": "m",
                "role": "assistant", "content": [text("A")]}}),
        );
        let lines = [user("1", None, json!("Q")), retired];
        let (state, _) = super::super::testing::replayed(&lines);
        let view = View::new(&state, None).expect("a view");
        assert_eq!(view.model, DEFAULT_MODEL);
    }
}
