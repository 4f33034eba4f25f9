//! The resume chain of a Claude Code session, as Claude Code 2.1.328 walks it: entries with a
//! uuid form a tree by `parentUuid` (a later copy of a uuid replacing the first); resume starts
//! at the leaf `last-prompt` names, else at the entry written last, and walks back — through
//! sidechain entries, across a dangling parent to the entry written at most 5 s before — to a
//! root, a compaction boundary or a cycle. The history is that chain, root first, with the
//! entries of each API response and the sibling tool results put back together.

use std::borrow::Cow;

use super::entry::{Id, Kind, Line, Side, Within};
use super::facts::Fact;
use crate::findings::Findings;
use crate::intern::Strings;
use crate::json;
use crate::pipeline::{self, Bytes, LineAt};
use crate::source::Span;

pub(crate) const NONE: u32 = u32::MAX;

/// A node of the tree: an entry with a uuid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Node {
    pub span: Span,
    pub line: u64,
    /// Indices into the session's uuids (`NONE` for no parent).
    pub uuid: u32,
    pub parent: u32,
    /// Index into the session's message ids (`NONE` for none).
    pub message_id: u32,
    /// Nanoseconds since 1970; `i64::MIN` when the entry has no readable time.
    pub time: i64,
    pub kind: Kind,
    pub flags: u8,
    /// The source its span points into: 0 for the file itself, 1 for the parent session a
    /// forked subagent inherits from.
    pub src: u8,
    /// Where its message's `content` is in its line.
    pub content: Option<Within>,
    /// Its `message.model`: an index into the session's models (`NONE` for none).
    pub model: u32,
    /// Where the long strings of its `content` are listed in the session's `walked`: from
    /// `walked_at`, `walked_len` of them.
    pub walked_at: u32,
    pub walked_len: u32,
    /// Where the facts of its message's blocks are listed in the session's `facts`: from
    /// `facts_at`, one for each block.
    pub facts_at: u32,
    pub facts_len: u32,
}

impl Node {
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// A leaf, as the report shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Leaf {
    pub node: u32,
    /// Entries on its walk back.
    pub chain: u64,
}

/// Where a walk back ended early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Break {
    /// This node's parent is no entry of the session (or only a sidechain one).
    Dangling { node: u32 },
    /// This node's parent is already on the walk.
    Cycle { node: u32 },
}

/// A `fork-context-ref` entry: the forked subagent `agent` inherits its parent session's chain
/// up to the entry `parent_last` (Claude Code 2.1.328 hydrates it from the parent's file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ForkRef {
    pub agent: Option<Box<str>>,
    pub parent_session: Box<str>,
    pub parent_last: Box<str>,
}

/// Why a forked subagent's inherited history is missing: Claude Code then sends the subagent's
/// own entries alone ("returning empty prefix").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ForkBroken {
    /// No file of the parent session was found.
    Session,
    /// The parent session's file has no entry with the uuid.
    Entry,
}

impl ForkBroken {
    pub fn name(self) -> &'static str {
        match self {
            ForkBroken::Session => "session",
            ForkBroken::Entry => "entry",
        }
    }
}

/// Everything replay learns from a Claude Code session.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// The session id: the file's name, else the first `sessionId` of an entry.
    pub session_id: Option<Box<str>>,
    /// The first `sessionId` of an entry (a subagent's transcript names its session there).
    pub entry_session: Option<Box<str>>,
    /// The first `cwd` of an entry: the folder Claude Code ran in.
    pub cwd: Option<Box<str>>,
    /// The first `timestamp` of an entry that reads as a time, as written, and in seconds
    /// since 1970 (UTC).
    pub started: Option<(Box<str>, i64)>,
    pub nodes: Vec<Node>,
    /// The long strings of the nodes' contents, node after node (see [`Node::walked_at`]).
    pub walked: Vec<json::Walked>,
    pub uuids: Strings,
    pub message_ids: Strings,
    /// The facts of the nodes' blocks, node after node (see [`Node::facts_at`]).
    pub facts: Vec<Fact>,
    /// The ids the blocks carry (tool uses' and tool results'), which the facts index.
    pub tool_ids: Strings,
    /// The `message.model` names.
    pub models: Strings,
    /// The texts the view shows of attachment and `local_command` nodes (an attachment's
    /// reminder, a command's `content`), by node: a few nodes in a thousand have one.
    pub rendered: std::collections::HashMap<u32, Box<str>>,
    /// Whether the classifier told the facts and models above (a pass that prints only the
    /// history does not ask for them, and builds no view).
    pub told: bool,
    /// Later copies of a uuid already seen (the first one wins), and the first few of them.
    pub duplicates: u64,
    pub duplicate_uuids: Vec<u32>,
    /// Nodes left out because they are sidechain entries of a main session.
    pub sidechain_entries: u64,
    /// Every node is a sidechain entry: a subagent's transcript, read like any other.
    pub subagent: bool,
    /// Compaction boundaries among the nodes considered.
    pub compactions: u64,
    /// Entries of a type rollcall knows.
    pub known: u64,
    /// Node indices of the history, root first.
    pub history: Vec<u32>,
    /// Entries on the chain itself (the walk back from the leaf).
    pub chain: u64,
    pub leaf: Option<Leaf>,
    pub other_leaves: Vec<Leaf>,
    pub breaks: Vec<Break>,
    /// The uuid the last `last-prompt` entry names as its `leafUuid`.
    pub last_prompt_leaf: Option<u32>,
    /// `--leaf` named a uuid no entry of the session has.
    pub chosen_missing: bool,
    /// `tool_use` blocks the API may refuse when they are sent again, with their lines (of every
    /// entry: the report keeps those on the chain).
    pub tool_faults: Vec<crate::toolcall::ToolFault>,
    /// The `remoteSessionId` of the first `teleported-from` entry: the session on Claude Code
    /// on the web this one was teleported from.
    pub teleported_from: Option<Box<str>>,
    /// The `fork-context-ref` entries, in file order.
    pub fork_refs: Vec<ForkRef>,
    /// The `fork-context-ref` the history follows: the last of the agent the file is named for.
    pub fork: Option<ForkRef>,
    /// Nodes at the start of `history` inherited from the parent session (source 1).
    pub inherited: u64,
    /// The parent session's file a forked subagent's history starts in.
    pub fork_parent: Option<std::path::PathBuf>,
    pub fork_broken: Option<ForkBroken>,
    /// The first entry names a parent that is not in the file (a session continued from
    /// another): the chain starts there, whatever resume takes (off the chain or on it).
    pub dangling_first: bool,
    /// Considered entries no leaf's walk reaches (parents in a cycle with no leaf below), and
    /// the first few of them.
    pub unreachable: u64,
    pub unreachable_nodes: Vec<u32>,
}

impl State {
    /// The long strings of node `node`'s content, found valid when it was classified.
    pub fn walked(&self, node: &Node) -> &[json::Walked] {
        let at = node.walked_at as usize;
        self.walked
            .get(at..at + node.walked_len as usize)
            .unwrap_or_default()
    }

    /// The facts of the blocks of node `node`'s message, in order.
    pub fn facts(&self, node: &Node) -> &[Fact] {
        let at = node.facts_at as usize;
        self.facts
            .get(at..at + node.facts_len as usize)
            .unwrap_or_default()
    }

    /// Why Claude Code 2.1.328 does not resume this session, in its words, or `None` when it
    /// does (SPEC §11.3.13).
    pub fn not_resumable(&self) -> Option<String> {
        if self.subagent {
            return Some(
                "Claude Code does not resume it (\"No conversation found with session ID\"): \
                 every entry is a sidechain entry, a subagent's transcript"
                    .into(),
            );
        }
        if let (None, Some(remote)) = (self.leaf, &self.teleported_from) {
            return Some(format!(
                "Claude Code does not resume it (\"No conversation found with session ID\"): it \
                 is the stub Claude Code leaves for a session teleported from Claude Code on the \
                 web (remote session {remote}), with no conversation in it"
            ));
        }
        if let Some(leaf) = self.leaf
            && self.nodes[leaf.node as usize].time == i64::MIN
        {
            return Some(format!(
                "Claude Code does not resume it (\"No conversation found with session ID\"): \
                 the entry it would resume from (line {}) has no readable timestamp",
                self.nodes[leaf.node as usize].line
            ));
        }
        None
    }
}

impl State {
    /// Puts the chain a forked subagent inherits — `parent`'s history without its sidechain
    /// entries, as Claude Code 2.1.328 hydrates a `fork-context-ref` — before this history; the
    /// inherited nodes read from source `src`.
    pub fn inherit(&mut self, parent: &State, src: u8) {
        let mut prefix = Vec::new();
        for &n in &parent.history {
            let node = parent.nodes[n as usize];
            if node.has(Line::SIDECHAIN) {
                continue;
            }
            let again = |to: &mut Strings, from: &Strings, i: u32| {
                if i == NONE {
                    NONE
                } else {
                    to.intern(from.get(i))
                }
            };
            let walked_at = self.walked.len() as u32;
            self.walked.extend_from_slice(parent.walked(&node));
            let facts_at = self.facts.len() as u32;
            for &fact in parent.facts(&node) {
                let id = again(&mut self.tool_ids, &parent.tool_ids, fact.id);
                self.facts.push(fact.with_id(id));
            }
            let copy = Node {
                walked_at,
                facts_at,
                model: again(&mut self.models, &parent.models, node.model),
                uuid: again(&mut self.uuids, &parent.uuids, node.uuid),
                parent: again(&mut self.uuids, &parent.uuids, node.parent),
                message_id: again(&mut self.message_ids, &parent.message_ids, node.message_id),
                src,
                ..node
            };
            if let Some(text) = parent.rendered.get(&n) {
                self.rendered.insert(self.nodes.len() as u32, text.clone());
            }
            prefix.push(self.nodes.len() as u32);
            self.nodes.push(copy);
        }
        self.inherited = prefix.len() as u64;
        prefix.extend_from_slice(&self.history);
        self.history = prefix;
    }
}

/// Duplicate uuids named in the report; the rest are counted.
const NAMED: usize = 20;

/// A replay in progress.
#[derive(Debug, Default)]
pub(crate) struct Fold {
    pub state: State,
    /// For each uuid index, the node that has it (`NONE` until one does).
    node_of: Vec<u32>,
    /// The uuid (index) the user asked to resume from instead (`--leaf`).
    chosen: Option<u32>,
    /// Resume from `chosen` itself, not the leaf below it (a fork's `parentLastUuid`).
    exact: bool,
}

impl Fold {
    /// A replay that resumes from the entry `uuid` (a leaf, or an entry above one: the leaf
    /// written last below it), as `last-prompt` would name it.
    pub fn from_leaf(uuid: &str) -> Fold {
        let mut fold = Fold::default();
        fold.chosen = Some(fold.state.uuids.intern(uuid.as_bytes()));
        fold
    }

    /// A replay of a forked subagent's parent session whose chain ends at the entry `uuid`
    /// itself, as Claude Code hydrates the fork's inherited history.
    pub fn to_entry(uuid: &str) -> Fold {
        let mut fold = Fold::from_leaf(uuid);
        fold.exact = true;
        fold
    }
}

/// The decoded string at `within` of a classified line (so UTF-8 already).
fn decoded<'c>(chunk: &'c Bytes<'_>, line: LineAt, within: Within) -> Option<Cow<'c, [u8]>> {
    let span = Span {
        at: line.at + u64::from(within.start),
        len: within.end - within.start,
    };
    json::decode_key(chunk.get(span))
}

impl pipeline::Fold for Fold {
    type Record = Line;
    type Side = Side;

    /// An entry's uuid is new (each entry adds one): its slot in the table of uuids is fetched
    /// while the entries before it are folded.
    fn ahead(&mut self, entry: &Line, _: &Side) {
        if entry.uuid.is_some() {
            self.state.uuids.prefetch(entry.uuid_hash);
        }
    }

    fn fold(
        &mut self,
        line: LineAt,
        mut entry: Line,
        side: &Side,
        chunk: &Bytes<'_>,
        f: &mut Findings,
    ) {
        let state = &mut self.state;
        for mut fault in entry.tool_faults.drain(..) {
            fault.line = line.number;
            state.tool_faults.push(fault);
        }
        if entry.kind == Kind::Unknown {
            let name = decoded(chunk, line, entry.type_name).unwrap_or_default();
            f.unknown(&String::from_utf8_lossy(&name));
        } else {
            state.known += 1;
        }
        if state.entry_session.is_none()
            && let Some(id) = entry.session_id.and_then(|s| decoded(chunk, line, s))
        {
            let id: Box<str> = String::from_utf8_lossy(&id).into();
            state.session_id = Some(id.clone());
            state.entry_session = Some(id);
        }
        if state.cwd.is_none()
            && let Some(cwd) = entry.cwd.and_then(|s| decoded(chunk, line, s))
        {
            state.cwd = Some(String::from_utf8_lossy(&cwd).into());
        }
        if state.started.is_none()
            && let (Some(time), Some(text)) = (
                entry.time,
                entry.timestamp.and_then(|s| decoded(chunk, line, s)),
            )
        {
            let seconds = time.div_euclid(1_000_000_000);
            state.started = Some((String::from_utf8_lossy(&text).into(), seconds));
        }
        if let Some(leaf) = entry.leaf_uuid.and_then(|s| decoded(chunk, line, s)) {
            state.last_prompt_leaf = Some(state.uuids.intern(&leaf));
        }
        if state.teleported_from.is_none()
            && let Some(remote) = entry.remote_session.and_then(|s| decoded(chunk, line, s))
        {
            state.teleported_from = Some(String::from_utf8_lossy(&remote).into());
        }
        if let Some(&[agent, session, last]) = entry.fork_ref.as_deref() {
            let text = |s: Option<Within>| {
                s.and_then(|s| decoded(chunk, line, s))
                    .map(|t| Box::<str>::from(String::from_utf8_lossy(&t)))
            };
            if let (Some(parent_session), Some(parent_last)) = (text(session), text(last)) {
                state.fork_refs.push(ForkRef {
                    agent: text(agent),
                    parent_session,
                    parent_last,
                });
            }
        }
        // An id interned among `strings`, `NONE` for none.
        let interned =
            |strings: &mut Strings, i: &Option<Id>| i.map_or(NONE, |i| strings.intern(side.id(i)));
        let Some(uuid) = entry.uuid else {
            return;
        };
        let uuid = state.uuids.intern_hashed(side.id(uuid), entry.uuid_hash);
        let parent = interned(&mut state.uuids, &entry.parent);
        self.node_of.resize(state.uuids.len(), NONE);
        let message_id = interned(&mut state.message_ids, &entry.message_id);
        let model = interned(&mut state.models, &entry.model);
        let facts_at = state.facts.len() as u32;
        let blocks = side.blocks(&entry);
        for (fact, block_id) in blocks {
            let block_id = interned(&mut state.tool_ids, block_id);
            state.facts.push(fact.with_id(block_id));
        }
        let walked = side.walked(&entry);
        let node = Node {
            span: Span {
                at: line.at,
                len: line.len as u32,
            },
            line: line.number,
            uuid,
            parent,
            message_id,
            time: entry.time.unwrap_or(i64::MIN),
            kind: entry.kind,
            flags: entry.flags,
            src: 0,
            content: entry.content,
            model,
            walked_at: state.walked.len() as u32,
            walked_len: walked.len() as u32,
            facts_at,
            facts_len: blocks.len() as u32,
        };
        state.walked.extend_from_slice(walked);
        // A later copy of a uuid replaces the earlier one where it stood (Claude Code 2.1.328
        // keeps its entries in a map by uuid: the last write wins, the first place stays).
        let existing = self.node_of[uuid as usize];
        let at = if existing != NONE {
            state.duplicates += 1;
            if state.duplicate_uuids.len() < NAMED {
                state.duplicate_uuids.push(uuid);
            }
            state.nodes[existing as usize] = node;
            state.rendered.remove(&existing);
            existing
        } else {
            let at = state.nodes.len() as u32;
            self.node_of[uuid as usize] = at;
            state.nodes.push(node);
            at
        };
        if let Some(text) = entry.rendered {
            state.rendered.insert(at, text);
        }
    }
}

/// Where the walk goes from a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// A root or a compaction boundary: the walk ends.
    Root,
    /// The node its `parentUuid` names (a sidechain entry too: the client walks through them).
    Parent(u32),
    /// Its `parentUuid` names no entry: the client goes on at the node written just before it
    /// when that one was written at most 5 s earlier ([`BRIDGE_NANOS`]); else the walk ends.
    Dangling(Option<u32>),
}

impl Fold {
    /// Picks the leaf, walks the chain and puts the history together.
    pub fn finish(self) -> State {
        let Fold {
            mut state,
            node_of,
            chosen,
            exact,
        } = self;
        let nodes = std::mem::take(&mut state.nodes);
        let sidechain = nodes.iter().filter(|n| n.has(Line::SIDECHAIN)).count();
        state.subagent = !nodes.is_empty() && sidechain == nodes.len();
        // The nodes that can be leaves: a main session's sidechain entries are not.
        let considered: Vec<bool> = nodes
            .iter()
            .map(|n| state.subagent || !n.has(Line::SIDECHAIN))
            .collect();
        if !state.subagent {
            state.sidechain_entries = sidechain as u64;
        }
        // Where the walk goes from each node, worked out once: the walks below read these
        // few bytes a node instead of the nodes themselves.
        let steps: Vec<Step> = (0..nodes.len())
            .map(|i| {
                let n = &nodes[i];
                if n.has(Line::BOUNDARY) || n.parent == NONE {
                    return Step::Root;
                }
                match node_of.get(n.parent as usize) {
                    Some(&p) if p != NONE => Step::Parent(p),
                    _ => Step::Dangling(
                        i.checked_sub(1)
                            .filter(|&p| within_bridge(nodes[p].time, n.time))
                            .map(|p| p as u32),
                    ),
                }
            })
            .collect();
        // The node each walks to next (`NONE` where its walk ends).
        let next: Vec<u32> = steps
            .iter()
            .map(|step| match *step {
                Step::Root | Step::Dangling(None) => NONE,
                Step::Parent(p) | Step::Dangling(Some(p)) => p,
            })
            .collect();
        // A leaf is a node no considered node names as its parent.
        let mut has_child = vec![false; nodes.len()];
        for i in (0..nodes.len()).filter(|&i| considered[i]) {
            if let Step::Parent(p) = steps[i] {
                has_child[p as usize] = true;
            }
        }
        let leaves: Vec<u32> = (0..nodes.len())
            .filter(|&i| considered[i] && !has_child[i])
            .map(|i| i as u32)
            .collect();
        state.compactions = (0..nodes.len())
            .filter(|&i| considered[i] && nodes[i].has(Line::BOUNDARY))
            .count() as u64;
        let node = |u: u32| {
            node_of
                .get(u as usize)
                .copied()
                .filter(|&n| n != NONE && considered[n as usize])
        };
        if let Some(u) = chosen {
            state.chosen_missing = node(u).is_none();
        }
        state.dangling_first = nodes.first().is_some_and(|n| {
            !n.has(Line::BOUNDARY)
                && n.parent != NONE
                && node_of.get(n.parent as usize).is_none_or(|&p| p == NONE)
        });
        let named = chosen.or(state.last_prompt_leaf).and_then(node);
        let picked = match named {
            Some(n) if exact => Some(n),
            _ => pick_leaf(&nodes, &considered, &leaves, named, &steps),
        };
        let Some(leaf) = picked else {
            state.nodes = nodes;
            return state;
        };
        let walk = |start: u32, breaks: &mut Vec<Break>, seen: &mut Vec<bool>| -> Vec<u32> {
            let mut chain = vec![start];
            seen[start as usize] = true;
            let mut at = start as usize;
            loop {
                let p = match steps[at] {
                    Step::Root => break,
                    Step::Parent(p) => p,
                    Step::Dangling(previous) => {
                        breaks.push(Break::Dangling { node: at as u32 });
                        match previous {
                            Some(p) => p,
                            None => break,
                        }
                    }
                };
                if std::mem::replace(&mut seen[p as usize], true) {
                    breaks.push(Break::Cycle { node: at as u32 });
                    break;
                }
                chain.push(p);
                at = p as usize;
            }
            for &n in &chain {
                seen[n as usize] = false;
            }
            chain
        };
        let mut seen = vec![false; nodes.len()];
        let mut breaks = Vec::new();
        let mut chain = walk(leaf, &mut breaks, &mut seen);
        chain.reverse();
        let lengths = walk_lengths(&considered, |i| next[i]);
        let reached = reached(&leaves, &next);
        for i in (0..nodes.len()).filter(|&i| considered[i] && !reached[i]) {
            state.unreachable += 1;
            if state.unreachable_nodes.len() < NAMED {
                state.unreachable_nodes.push(i as u32);
            }
        }
        let other_leaves = leaves
            .iter()
            .filter(|&&l| l != leaf)
            .map(|&l| Leaf {
                node: l,
                chain: lengths[l as usize],
            })
            .collect();
        let ids = state.message_ids.len();
        let history = history(&nodes, &node_of, ids, &chain);
        state.nodes = nodes;
        state.chain = chain.len() as u64;
        state.leaf = Some(Leaf {
            node: leaf,
            chain: chain.len() as u64,
        });
        state.other_leaves = other_leaves;
        // The first entry's missing parent loses nothing of this file: the walk ends there as at
        // a root. It is `dangling_first`, not a break of the chain.
        breaks.retain(|b| *b != Break::Dangling { node: 0 });
        state.breaks = breaks;
        state.history = history;
        state
    }
}

/// The nodes some leaf's walk visits: each walked once, however many leaves share it.
fn reached(leaves: &[u32], next: &[u32]) -> Vec<bool> {
    let mut reached = vec![false; next.len()];
    for &leaf in leaves {
        let mut at = leaf;
        while at != NONE && !std::mem::replace(&mut reached[at as usize], true) {
            at = next[at as usize];
        }
    }
    reached
}

/// How far apart an entry with a dangling parent and the entry written before it may be for
/// Claude Code 2.1.328 to go on there: measured, 5.0 s goes on, 5.1 s ends the walk.
const BRIDGE_NANOS: i64 = 5_000_000_000;

/// Whether an entry at `time` whose parent is missing goes on at an entry written before it
/// at `previous`.
fn within_bridge(previous: i64, time: i64) -> bool {
    previous != i64::MIN && time != i64::MIN && time.saturating_sub(previous) <= BRIDGE_NANOS
}

/// The node Claude Code 2.1.328 resumes from: the leaf the last `last-prompt` entry names (or,
/// when it names a node further up, the leaf written last below it), else the node written last
/// in the file, whatever its time (that is a leaf, but for a later copy of a duplicate uuid).
fn pick_leaf(
    nodes: &[Node],
    considered: &[bool],
    leaves: &[u32],
    named: Option<u32>,
    steps: &[Step],
) -> Option<u32> {
    // The node written last: the later copy of a duplicate counts at its own line (dup_00: a
    // root repeated at the end is resumed alone, though the first copy has a child).
    let last = (0..nodes.len())
        .filter(|&i| considered[i])
        .max_by_key(|&i| nodes[i].line)
        .map(|i| i as u32);
    let Some(named) = named else { return last };
    if leaves.binary_search(&named).is_ok() {
        return Some(named);
    }
    // The leaves below `named`: its descendants, found from the child links in one pass.
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); nodes.len()];
    for i in (0..nodes.len()).filter(|&i| considered[i]) {
        if let Step::Parent(p) = steps[i] {
            children[p as usize].push(i as u32);
        }
    }
    let mut below = vec![false; nodes.len()];
    let mut stack = vec![named];
    while let Some(n) = stack.pop() {
        if !std::mem::replace(&mut below[n as usize], true) {
            stack.extend(&children[n as usize]);
        }
    }
    leaves
        .iter()
        .filter(|&&l| below[l as usize])
        .max_by_key(|&&l| nodes[l as usize].line)
        .copied()
        .or(last)
}

/// The length of each node's walk back (the nodes it visits before it ends or comes back to one
/// it visited), shared along common stems: each node is walked once, however many leaves grow
/// from it, and a cycle once, however many stems run into it (its nodes' walks are the cycle).
fn walk_lengths(considered: &[bool], next: impl Fn(usize) -> u32) -> Vec<u64> {
    const UNKNOWN: u8 = 0;
    const ON_PATH: u8 = 1;
    const KNOWN: u8 = 2;
    let mut depth = vec![0u64; considered.len()];
    let mut state = vec![UNKNOWN; considered.len()];
    let mut path = Vec::new();
    for start in (0..considered.len()).filter(|&i| considered[i]) {
        path.clear();
        let mut at = start;
        // Where the path meets what is known: a known node, a node of its own (a cycle), or
        // the root.
        let mut below = loop {
            match state[at] {
                KNOWN => break depth[at],
                ON_PATH => {
                    // The path from `at` on is a cycle: each of its nodes walks all of it.
                    let from = path.iter().position(|&p| p == at).unwrap_or(0);
                    let cycle = (path.len() - from) as u64;
                    for &p in &path[from..] {
                        depth[p] = cycle;
                        state[p] = KNOWN;
                    }
                    path.truncate(from);
                    break cycle;
                }
                _ => {}
            }
            state[at] = ON_PATH;
            path.push(at);
            match next(at) {
                NONE => break 0,
                p => at = p as usize,
            }
        };
        for &p in path.iter().rev() {
            below += 1;
            depth[p] = below;
            state[p] = KNOWN;
        }
    }
    depth
}

/// The history: the chain, root first, where each API response (assistant entries sharing a
/// `message.id`) comes whole at its first entry on the chain, followed by the entries holding
/// only the results of its tool calls (SPEC §10).
fn history(nodes: &[Node], node_of: &[u32], message_ids: usize, chain: &[u32]) -> Vec<u32> {
    // Assistant nodes by message id, and results-only user nodes by their parent node, each in
    // node order: grouped by counting, so that finding a group is an index, not a search (a
    // binary search for every entry of the chain was most of finishing a large transcript).
    let assistant = |i: usize| {
        let n = &nodes[i];
        (n.kind == Kind::Assistant && n.message_id != NONE).then_some(n.message_id)
    };
    let results_parent = |i: usize| {
        let n = &nodes[i];
        let p = *node_of.get(n.parent as usize)?;
        (n.has(Line::RESULTS_ONLY) && p != NONE).then_some(p)
    };
    let by_message = Groups::of(message_ids, nodes.len(), assistant);
    let by_parent = Groups::of(nodes.len(), nodes.len(), results_parent);
    let group = |id: u32| by_message.of_key(id).iter().copied();
    let results_of = |parent: u32| by_parent.of_key(parent).iter().copied();
    let mut emitted = vec![false; nodes.len()];
    let mut history = Vec::with_capacity(chain.len());
    let mut emit = |n: u32, history: &mut Vec<u32>| {
        if !std::mem::replace(&mut emitted[n as usize], true) {
            history.push(n);
        }
    };
    let mut done = vec![false; message_ids];
    // A response's entries and their results, gathered in vectors kept from one to the next.
    let (mut members, mut results) = (Vec::new(), Vec::new());
    for &n in chain {
        let node = &nodes[n as usize];
        let id = node.message_id;
        if node.kind != Kind::Assistant || id == NONE || done[id as usize] {
            emit(n, &mut history);
            continue;
        }
        done[id as usize] = true;
        members.clear();
        members.extend(group(id));
        results.clear();
        results.extend(members.iter().flat_map(|&m| results_of(m)));
        results.sort_unstable();
        for &m in members.iter().chain(&results) {
            emit(m, &mut history);
        }
    }
    history
}

/// Items grouped by a key below a bound, each group in item order.
struct Groups {
    /// Where each key's group starts in `items` (and, one further, where it ends).
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl Groups {
    /// The items `0..len` that `key_of` gives a key (below `keys`), grouped by it.
    fn of(keys: usize, len: usize, key_of: impl Fn(usize) -> Option<u32>) -> Groups {
        let keyed: Vec<(u32, u32)> = (0..len)
            .filter_map(|i| key_of(i).map(|k| (k, i as u32)))
            .collect();
        let mut starts = vec![0u32; keys + 1];
        for &(k, _) in &keyed {
            starts[k as usize + 1] += 1;
        }
        for k in 0..keys {
            starts[k + 1] += starts[k];
        }
        let mut next = starts.clone();
        let mut items = vec![0u32; keyed.len()];
        for (k, i) in keyed {
            items[next[k as usize] as usize] = i;
            next[k as usize] += 1;
        }
        Groups { starts, items }
    }

    fn of_key(&self, key: u32) -> &[u32] {
        let k = key as usize;
        &self.items[self.starts[k] as usize..self.starts[k + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{entry, replayed, user};
    use serde_json::json;

    #[test]
    fn leaves_into_one_cycle_walk_it_once() {
        // Node i's parent is i + 1 (mod N): one cycle; nodes N.. are leaves into it.
        const N: usize = 10_000;
        let considered = vec![true; 2 * N];
        let steps = std::cell::Cell::new(0u64);
        let parent = |i: usize| {
            steps.set(steps.get() + 1);
            if i < N {
                ((i + 1) % N) as u32
            } else {
                (i - N) as u32
            }
        };
        let lengths = super::walk_lengths(&considered, parent);
        assert!(lengths[..N].iter().all(|&l| l == N as u64));
        assert!(lengths[N..].iter().all(|&l| l == N as u64 + 1));
        assert!(steps.get() <= 3 * 2 * N as u64, "{} steps", steps.get());
    }

    /// The uuids of the history, in order.
    fn history(lines: &[String]) -> Vec<String> {
        let (state, _) = replayed(lines);
        state
            .history
            .iter()
            .map(|&n| {
                String::from_utf8_lossy(state.uuids.get(state.nodes[n as usize].uuid)).into_owned()
            })
            .collect()
    }

    fn at(uuid: &str, parent: Option<&str>, time: &str) -> String {
        entry(
            uuid,
            parent,
            json!({"type": "user", "timestamp": time,
                "message": {"role": "user", "content": uuid}}),
        )
    }

    #[test]
    fn the_leaf_written_last_wins_over_the_latest_time() {
        let lines = [
            at("a", None, "2026-03-02T10:00:00Z"),
            at("b1", Some("a"), "2026-03-02T10:05:00Z"),
            at("b2", Some("a"), "2026-03-02T10:01:00Z"),
        ];
        assert_eq!(history(&lines), ["a", "b2"]);
    }

    #[test]
    fn last_prompt_names_the_leaf() {
        let mut lines = vec![
            at("a", None, "2026-03-02T10:00:00Z"),
            at("b1", Some("a"), "2026-03-02T10:01:00Z"),
            json!({"type": "last-prompt", "leafUuid": "b1", "sessionId": "s"}).to_string(),
            at("b2", Some("a"), "2026-03-02T10:02:00Z"),
        ];
        assert_eq!(history(&lines), ["a", "b1"]);
        // A uuid that is no node is ignored; a node above the leaves picks the leaf below it.
        lines[2] = json!({"type": "last-prompt", "leafUuid": "gone"}).to_string();
        assert_eq!(history(&lines), ["a", "b2"]);
        lines.push(at("c", Some("b1"), "2026-03-02T10:03:00Z"));
        lines.push(at("d", Some("a"), "2026-03-02T10:04:00Z"));
        lines[2] = json!({"type": "last-prompt", "leafUuid": "b1"}).to_string();
        assert_eq!(history(&lines), ["a", "b1", "c"]);
    }

    #[test]
    fn a_later_duplicate_replaces_the_first_in_its_place() {
        let lines = [
            user("a", None, json!("first copy")),
            user("b", Some("a"), json!("next")),
            user("a", None, json!("second copy")),
        ];
        let (state, _) = replayed(&lines);
        assert_eq!(state.duplicates, 1);
        assert_eq!(state.nodes[0].line, 3);
        // Written last, the copy is resumed alone (dup_00); a chain hanging off it uses it.
        assert_eq!(history(&lines), ["a"]);
        let mut more = lines.to_vec();
        more.push(user("c", Some("a"), json!("after the copy")));
        assert_eq!(history(&more), ["a", "c"]);
    }

    #[test]
    fn a_dangling_parent_goes_on_at_the_entry_just_before_within_five_seconds() {
        let near = [
            at("a", None, "2026-03-02T10:00:00Z"),
            at("b", Some("a"), "2026-03-02T10:00:01Z"),
            at("c", Some("missing"), "2026-03-02T10:00:06Z"),
        ];
        assert_eq!(history(&near), ["a", "b", "c"]);
        let far = [
            at("a", None, "2026-03-02T10:00:00Z"),
            at("b", Some("a"), "2026-03-02T10:00:01Z"),
            at("c", Some("missing"), "2026-03-02T10:00:06.100Z"),
        ];
        assert_eq!(history(&far), ["c"]);
        let (state, _) = replayed(&far);
        assert_eq!(state.breaks.len(), 1);
    }

    #[test]
    fn the_first_entrys_missing_parent_is_no_break_of_the_chain() {
        let lines = [
            at("a", Some("in-another-file"), "2026-03-02T10:00:00Z"),
            at("b", Some("a"), "2026-03-02T10:00:01Z"),
        ];
        assert_eq!(history(&lines), ["a", "b"]);
        let (state, _) = replayed(&lines);
        assert!(state.dangling_first);
        assert_eq!(state.breaks, []);
        // Off the chain too: a first entry on another branch.
        let lines = [
            at("a", Some("in-another-file"), "2026-03-02T10:00:00Z"),
            at("b", None, "2026-03-02T10:01:00Z"),
        ];
        assert_eq!(history(&lines), ["b"]);
        assert!(replayed(&lines).0.dangling_first);
        let (state, _) = replayed(&lines[1..]);
        assert!(!state.dangling_first);
    }

    #[test]
    fn entries_no_leaf_reaches_are_counted() {
        let lines = [
            at("x", Some("y"), "2026-03-02T10:00:00Z"),
            at("y", Some("x"), "2026-03-02T10:00:01Z"),
            at("a", None, "2026-03-02T10:01:00Z"),
            at("b", Some("a"), "2026-03-02T10:01:01Z"),
        ];
        assert_eq!(history(&lines), ["a", "b"]);
        let (state, _) = replayed(&lines);
        assert_eq!(state.unreachable, 2);
        assert_eq!(state.unreachable_nodes, [0, 1]);
        // A leaf below the loop reaches it.
        let mut more = lines.to_vec();
        more.insert(2, at("z", Some("y"), "2026-03-02T10:00:02Z"));
        assert_eq!(replayed(&more).0.unreachable, 0);
    }

    #[test]
    fn a_cycle_ends_the_walk() {
        let lines = [
            at("x", Some("y"), "2026-03-02T10:00:00Z"),
            at("y", Some("x"), "2026-03-02T10:00:01Z"),
            at("z", Some("y"), "2026-03-02T10:00:02Z"),
        ];
        assert_eq!(history(&lines), ["x", "y", "z"]);
        let (state, _) = replayed(&lines);
        assert!(matches!(state.breaks[..], [super::Break::Cycle { .. }]));
    }

    #[test]
    fn the_walk_goes_through_sidechain_entries() {
        let side = entry(
            "s",
            Some("a"),
            json!({"type": "user", "isSidechain": true,
                "message": {"role": "user", "content": "side"}}),
        );
        let lines = [
            user("a", None, json!("main")),
            side,
            user("b", Some("s"), json!("back on main")),
        ];
        assert_eq!(history(&lines), ["a", "s", "b"]);
    }

    #[test]
    fn a_leaf_without_a_timestamp_is_not_resumed() {
        let mut last: serde_json::Value =
            serde_json::from_str(&user("b", Some("a"), json!("x"))).expect("JSON");
        last.as_object_mut().expect("object").remove("timestamp");
        let lines = [user("a", None, json!("y")), last.to_string()];
        let (state, _) = replayed(&lines);
        assert!(state.not_resumable().is_some());
        let (state, _) = replayed(&lines[..1]);
        assert_eq!(state.not_resumable(), None);
    }
}
