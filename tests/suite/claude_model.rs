//! Claude Code sessions against a small model of the rules, written from SPEC §10 as §11.3 and
//! docs/dialects.md (the rules measured against Claude Code 2.1.328) state them, not from
//! rollcall's code: generated transcripts of up to 30 entries — branches, dangling parents,
//! cycles, repeated uuids, sidechains, compactions, responses written as several entries, tool
//! results early, late, twice or never — must give the leaf, the chain, the history, the prompt
//! view and the repairs the model gives. The model walks the tree the plain way (a walk per leaf,
//! lists instead of indices), so that a reader can check it against the text line by line.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // tests fail by panicking

use std::collections::{HashMap, HashSet};

use proptest::prelude::*;
use proptest::sample::Index;
use rollcall::{Format, Job, Loaded, ViewSettings};
use serde_json::{Value, json};

const MISSING: &str = "[Tool result missing due to internal error]";
const INTERRUPTED: &str = "[Tool call interrupted: the session ended before this call's result \
was recorded, so its outcome is unknown. Check whether it took effect before relying on it or \
running it again.]";
const NO_RESPONSE: &str = "No response requested.";
const NO_CONTENT: &str = "(no content)";
const ORPHANED: &str = "[Orphaned tool result removed due to conversation resume]";

/// How far back the entry written just before may be for the walk to go on there across a
/// dangling parent (docs/dialects.md: 5.0 s goes on, 5.1 s ends the walk).
const BRIDGE_MS: i64 = 5_000;

// ---------------------------------------------------------------------------------------------
// Transcripts

/// What an entry with a uuid holds.
#[derive(Debug, Clone, PartialEq)]
enum Body {
    /// A user prompt: a string `content`, or one text block.
    Prompt {
        text: String,
        array: bool,
    },
    /// A user entry of `tool_result` blocks only, answering these tool use ids.
    Results(Vec<String>),
    /// A user entry of one result and one text, in file order.
    Mixed {
        id: String,
        text: String,
        result_first: bool,
    },
    /// An assistant entry of one text block (of whitespace only, sometimes).
    Said {
        message: String,
        text: String,
    },
    /// An assistant entry of one `tool_use` block.
    Call {
        message: String,
        id: String,
    },
    /// An assistant entry of one `thinking` block.
    Thinking {
        message: String,
        text: String,
    },
    /// A `system` entry that is no message.
    Note,
    /// A `system` entry with `subtype` `compact_boundary`.
    Boundary,
    Progress,
}

#[derive(Debug, Clone)]
struct Node {
    uuid: String,
    parent: Option<String>,
    sidechain: bool,
    /// Milliseconds after 09:30 on the session's day.
    time: i64,
    /// The `message.model` of an assistant entry.
    model: &'static str,
    body: Body,
}

#[derive(Debug, Clone)]
enum Line {
    Node(Node),
    /// A `summary` entry (no uuid; its `leafUuid` decides nothing).
    Summary(String),
    /// A `last-prompt` entry naming the leaf the client last used.
    LastPrompt(String),
}

fn timestamp(ms: i64) -> String {
    let t = 9 * 3_600_000 + 30 * 60_000 + ms;
    format!(
        "2026-03-02T{:02}:{:02}:{:02}.{:03}Z",
        t / 3_600_000,
        t / 60_000 % 60,
        t / 1000 % 60,
        t % 1000
    )
}

/// The text of a result block written on `line` for the tool use `id`.
fn result_text(id: &str, line: usize) -> String {
    format!("out {id} @{line}")
}

fn result_block(id: &str, line: usize) -> Value {
    json!({"type": "tool_result", "tool_use_id": id, "content": result_text(id, line)})
}

/// The JSON line of `line`, the `n`th line of the file (from 1).
fn json_line(line: &Line, n: usize) -> String {
    let node = match line {
        Line::Summary(leaf) => {
            return json!({"type": "summary", "summary": "Earlier work", "leafUuid": leaf})
                .to_string();
        }
        Line::LastPrompt(leaf) => {
            return json!({"type": "last-prompt", "lastPrompt": "go on", "leafUuid": leaf,
                "sessionId": "5e55a0c2-0000-4000-8000-00000000beef"})
            .to_string();
        }
        Line::Node(node) => node,
    };
    let assistant = |message: &str, block: Value| {
        json!({"type": "assistant", "message": {"model": node.model, "id": message,
            "type": "message", "role": "assistant", "content": [block]}})
    };
    let user =
        |content: Value| json!({"type": "user", "message": {"role": "user", "content": content}});
    let body = match &node.body {
        Body::Prompt { text, array: false } => user(json!(text)),
        Body::Prompt { text, array: true } => user(json!([{"type": "text", "text": text}])),
        Body::Results(ids) => user(ids.iter().map(|id| result_block(id, n)).collect()),
        Body::Mixed {
            id,
            text,
            result_first,
        } => {
            let mut blocks = vec![result_block(id, n), json!({"type": "text", "text": text})];
            if !result_first {
                blocks.reverse();
            }
            user(json!(blocks))
        }
        Body::Said { message, text } => assistant(message, json!({"type": "text", "text": text})),
        Body::Call { message, id } => assistant(
            message,
            json!({"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "true"}}),
        ),
        Body::Thinking { message, text } => assistant(
            message,
            json!({"type": "thinking", "thinking": text, "signature": "c2ln"}),
        ),
        Body::Note => json!({"type": "system", "subtype": "informational", "content": "note",
            "level": "info"}),
        Body::Boundary => json!({"type": "system", "subtype": "compact_boundary",
            "content": "Conversation compacted", "compactMetadata": {"trigger": "auto"}}),
        Body::Progress => json!({"type": "progress", "data": {"type": "hook_progress"},
            "toolUseID": "toolu_progress"}),
    };
    let mut entry = json!({"parentUuid": node.parent, "isSidechain": node.sidechain,
        "sessionId": "5e55a0c2-0000-4000-8000-00000000beef", "uuid": node.uuid,
        "timestamp": timestamp(node.time)});
    for (k, v) in body.as_object().unwrap() {
        entry[k] = v.clone();
    }
    entry.to_string()
}

fn file_of(lines: &[Line]) -> String {
    let mut text = String::new();
    for (i, line) in lines.iter().enumerate() {
        text.push_str(&json_line(line, i + 1));
        text.push('\n');
    }
    text
}

// ---------------------------------------------------------------------------------------------
// The generator

/// The random choices behind one entry; each is 0 for the plainest choice, so that proptest
/// shrinks towards a linear chain of prompts. A copy of an earlier uuid is `copy == 39`, a
/// sidechain entry `side == 13`.
#[derive(Debug, Clone)]
struct Draw {
    kind: u8,
    parent: u8,
    far: Index,
    copy: u8,
    side: u8,
    step: u8,
    pick: u8,
    other: Index,
    flag: bool,
    model: bool,
}

fn draw() -> impl Strategy<Value = Draw> {
    (
        (0u8..17, 0u8..20, any::<Index>(), 0u8..40),
        (
            0u8..14,
            0u8..10,
            0u8..10,
            any::<Index>(),
            any::<bool>(),
            any::<bool>(),
        ),
    )
        .prop_map(
            |((kind, parent, far, copy), (side, step, pick, other, flag, model))| Draw {
                kind,
                parent,
                far,
                copy,
                side,
                step,
                pick,
                other,
                flag,
                model,
            },
        )
}

/// A transcript: a few `summary` entries first (as older clients wrote them), the entries,
/// then a few `last-prompt` entries (as the client appends them).
fn transcript() -> impl Strategy<Value = Vec<Line>> {
    (
        prop::collection::vec(draw(), 1..30),
        prop::collection::vec(any::<Index>(), 0..2),
        prop::collection::vec((any::<Index>(), 0u8..4), 0..3),
        prop::bool::weighted(0.06),
    )
        .prop_map(|(draws, summaries, prompts, subagent)| {
            build(&draws, &summaries, &prompts, subagent)
        })
}

/// The lines `draws` make; with `subagent`, a subagent's transcript (every entry a sidechain
/// entry).
fn build(
    draws: &[Draw],
    summaries: &[Index],
    prompts: &[(Index, u8)],
    subagent: bool,
) -> Vec<Line> {
    let n = draws.len();
    // Tool use ids first, so that a result can answer a call written after it.
    let calls: Vec<usize> = (0..n)
        .filter(|&i| (10..13).contains(&draws[i].kind) && (subagent || draws[i].side != 13))
        .collect();
    let mut nodes: Vec<Node> = Vec::new();
    let mut copied = false;
    let mut time = 0;
    let mut last_message: Option<String> = None;
    let mut messages: Vec<String> = Vec::new();
    for (i, d) in draws.iter().enumerate() {
        // A repeated uuid, now and then (a later copy of an entry).
        let copy = d.copy == 39 && !nodes.is_empty();
        let uuid = if copy {
            d.far.get(&nodes).uuid.clone()
        } else {
            format!("u{i}")
        };
        let previous = nodes.last().map(|n| n.uuid.clone());
        // A missing parent where "the entry written just before" is open (see
        // `Tree::unsettled`) would only be a case the property skips.
        let open = copy || copied || (!subagent && nodes.last().is_some_and(|n| n.sidechain));
        copied = copy;
        let parent = match d.parent {
            16..18 if open => previous,
            0..11 => previous,
            11..14 if !nodes.is_empty() => Some(d.other.get(&nodes).uuid.clone()),
            11..16 => None,
            16..18 => Some(format!("gone{}", d.pick)),
            // A later entry's uuid: with the later entry's own parent, a cycle may close.
            _ if i + 1 < n => Some(format!("u{}", i + 1 + d.other.index(n - i - 1))),
            _ => None,
        }
        // An entry naming itself is left out: the texts call a leaf a node no *other* node
        // names, which leaves a self-loop's leafhood open.
        .filter(|p| *p != uuid);
        time += [0, 0, 0, 0, 0, 1000, 5000, 5100, 60_000, -3000][d.step as usize];
        let sidechain = subagent || d.side == 13;
        let body = if sidechain && !subagent {
            // Sidechain entries are prompts, texts of a response of their own and progress:
            // SPEC §10 leaves them out, the client walks through them (sidechain_01), and
            // whether another entry of a main response, or a result of a main call, that is
            // a sidechain entry joins the history was never measured.
            match d.kind % 3 {
                0 => Body::Prompt {
                    text: format!("side prompt {i}"),
                    array: d.flag,
                },
                1 => Body::Said {
                    message: format!("msg_side{i}"),
                    text: format!("side reply {i}"),
                },
                _ => Body::Progress,
            }
        } else {
            let mut message = || {
                let id = match d.pick {
                    0..6 if last_message.is_some() => last_message.clone().unwrap(),
                    6..8 if !messages.is_empty() => d.other.get(&messages).clone(),
                    _ => format!("msg_{i}"),
                };
                last_message = Some(id.clone());
                messages.push(id.clone());
                id
            };
            let answered = |pick: u8, other: &Index| -> String {
                let before = calls.iter().rev().find(|&&c| c < i);
                match (pick, before) {
                    (0..6, Some(&c)) => format!("toolu_{c}"),
                    (6..9, _) if !calls.is_empty() => format!("toolu_{}", other.get(&calls)),
                    _ => "toolu_gone".to_string(),
                }
            };
            match d.kind {
                0..4 => Body::Prompt {
                    text: format!("prompt {i}"),
                    array: d.flag,
                },
                4..6 => {
                    let mut ids = vec![answered(d.pick, &d.other)];
                    if d.flag {
                        ids.push(answered(d.step, &d.far));
                    }
                    Body::Results(ids)
                }
                6 => Body::Mixed {
                    id: answered(d.pick, &d.other),
                    text: format!("prompt {i}"),
                    result_first: d.flag,
                },
                7..10 => Body::Said {
                    message: message(),
                    text: if d.flag && d.pick == 9 {
                        " \n".to_string()
                    } else {
                        format!("reply {i}")
                    },
                },
                10..13 => Body::Call {
                    message: message(),
                    id: format!("toolu_{i}"),
                },
                13 => Body::Note,
                14 => Body::Boundary,
                15 => Body::Progress,
                _ => Body::Thinking {
                    message: message(),
                    text: format!("thought {i}"),
                },
            }
        };
        // Claude Code writes a compaction boundary with a null parent (the link to the
        // entry before it is `logicalParentUuid`): whether a boundary's parent makes that
        // entry no leaf is not stated.
        let parent = if body == Body::Boundary { None } else { parent };
        nodes.push(Node {
            uuid,
            parent,
            sidechain,
            time,
            model: if d.model {
                "claude-sonnet-4-5-20250929"
            } else {
                "claude-opus-4-6"
            },
            body,
        });
    }
    let leaf = |at: &Index| {
        if at.index(8) == 0 {
            "gone-leaf".to_string()
        } else {
            at.get(&nodes).uuid.clone()
        }
    };
    let mut lines: Vec<Line> = summaries.iter().map(|s| Line::Summary(leaf(s))).collect();
    lines.extend(nodes.iter().cloned().map(Line::Node));
    lines.extend(
        prompts
            .iter()
            .filter(|(_, keep)| *keep != 0)
            .map(|(p, _)| Line::LastPrompt(leaf(p))),
    );
    lines
}

// ---------------------------------------------------------------------------------------------
// The model: the chain

/// A node as the tree has it: the winning copy of a uuid, in the first copy's place.
#[derive(Debug, Clone)]
struct Placed {
    node: Node,
    /// The line of the copy that won.
    line: usize,
    copies: usize,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Step {
    Root,
    Parent(usize),
    /// The parent is no entry: go on at this place, or end.
    Dangling(Option<usize>),
}

/// What the model says of a transcript's chain; uuids throughout.
#[derive(Debug, Clone, PartialEq)]
struct Chain {
    leaf: String,
    chain_length: usize,
    other_leaves: Vec<(String, usize)>,
    dangling: Vec<String>,
    cycles: Vec<String>,
    duplicates: usize,
    sidechain_entries: usize,
    compactions: usize,
    unreachable: usize,
    dangling_first: Option<String>,
    history: Vec<String>,
}

struct Tree {
    placed: Vec<Placed>,
    place: HashMap<String, usize>,
    considered: Vec<bool>,
    duplicates: usize,
    subagent: bool,
}

impl Tree {
    fn new(lines: &[Line]) -> Tree {
        let mut placed: Vec<Placed> = Vec::new();
        let mut place = HashMap::new();
        let mut duplicates = 0;
        for (i, line) in lines.iter().enumerate() {
            let Line::Node(node) = line else { continue };
            // "When a uuid appears twice, the later copy wins, in the first copy's place."
            match place.get(&node.uuid) {
                Some(&at) => {
                    duplicates += 1;
                    let p: &mut Placed = &mut placed[at];
                    p.node = node.clone();
                    p.line = i + 1;
                    p.copies += 1;
                }
                None => {
                    place.insert(node.uuid.clone(), placed.len());
                    placed.push(Placed {
                        node: node.clone(),
                        line: i + 1,
                        copies: 1,
                    });
                }
            }
        }
        // "Sidechain entries are left out of everything below, except in a file where every
        // node is one."
        let subagent = placed.iter().all(|p| p.node.sidechain);
        let considered = placed
            .iter()
            .map(|p| subagent || !p.node.sidechain)
            .collect();
        Tree {
            placed,
            place,
            considered,
            duplicates,
            subagent,
        }
    }

    fn step(&self, i: usize) -> Step {
        let node = &self.placed[i].node;
        let Some(parent) = &node.parent else {
            return Step::Root;
        };
        if node.body == Body::Boundary {
            return Step::Root;
        }
        // The walk goes through sidechain entries when a parent is one (sidechain_01).
        if let Some(&p) = self.place.get(parent) {
            return Step::Parent(p);
        }
        // "When the entry written just before was written at most 5 seconds earlier, the walk
        // goes on there" (a negative gap counts as within: docs/decisions.md).
        let before = i
            .checked_sub(1)
            .filter(|&b| node.time - self.placed[b].node.time <= BRIDGE_MS);
        Step::Dangling(before)
    }

    /// Whether a step of the walk rests on a reading the texts leave open: "the entry written
    /// just before" an entry whose parent is missing is the node in the place before it and
    /// the line before it, unless a later copy of a uuid stands in an earlier place (which of
    /// the two?), or it is a sidechain entry before a main one (does the client skip it?).
    fn unsettled(&self, lines: &[Line]) -> bool {
        (0..self.placed.len()).any(|i| {
            let Step::Dangling(_) = self.step(i) else {
                return false;
            };
            let line_before = (0..self.placed[i].line - 1)
                .rev()
                .find(|&j| matches!(lines[j], Line::Node(_)));
            match (i.checked_sub(1), line_before) {
                (None, None) => false,
                (Some(b), Some(j)) => {
                    self.placed[b].line != j + 1
                        || (!self.subagent && self.placed[b].node.sidechain)
                }
                _ => true,
            }
        })
    }

    fn children(&self, i: usize) -> Vec<usize> {
        (0..self.placed.len())
            .filter(|&c| self.considered[c] && self.step(c) == Step::Parent(i))
            .collect()
    }

    /// "A leaf is an entry that no other entry names as its parent (sidechain entries of a main
    /// session are not leaves)".
    fn leaves(&self) -> Vec<usize> {
        (0..self.placed.len())
            .filter(|&i| self.considered[i] && self.children(i).is_empty())
            .collect()
    }

    /// The walk back from `start`, and the places where it broke: (walk, dangling, cycles).
    fn walk(&self, start: usize) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
        let (mut walk, mut dangling, mut cycles) = (vec![start], Vec::new(), Vec::new());
        let mut at = start;
        loop {
            let next = match self.step(at) {
                Step::Root => break,
                Step::Parent(p) => p,
                Step::Dangling(before) => {
                    dangling.push(at);
                    match before {
                        Some(b) => b,
                        None => break,
                    }
                }
            };
            // "An entry already on the chain (a cycle) ends it."
            if walk.contains(&next) {
                cycles.push(at);
                break;
            }
            walk.push(next);
            at = next;
        }
        (walk, dangling, cycles)
    }

    /// "Resume continues from the leaf the last `last-prompt` entry names (when it names an
    /// entry further up, the leaf written last below it; when it names no entry, it is
    /// ignored). Otherwise from the entry written last in the file."
    fn start(&self, lines: &[Line]) -> usize {
        let written_last = (0..self.placed.len())
            .filter(|&i| self.considered[i])
            .max_by_key(|&i| self.placed[i].line)
            .unwrap();
        let named = lines
            .iter()
            .rev()
            .find_map(|l| match l {
                Line::LastPrompt(leaf) => Some(leaf),
                _ => None,
            })
            .and_then(|leaf| self.place.get(leaf).copied())
            .filter(|&n| self.considered[n]);
        let Some(named) = named else {
            return written_last;
        };
        let leaves = self.leaves();
        if leaves.contains(&named) {
            return named;
        }
        let mut below = vec![named];
        let mut at = 0;
        while at < below.len() {
            for c in self.children(below[at]) {
                if !below.contains(&c) {
                    below.push(c);
                }
            }
            at += 1;
        }
        leaves
            .into_iter()
            .filter(|l| below.contains(l))
            .max_by_key(|&l| self.placed[l].line)
            .unwrap_or(written_last)
    }

    fn message_of(&self, i: usize) -> Option<&str> {
        match &self.placed[i].node.body {
            Body::Said { message, .. }
            | Body::Call { message, .. }
            | Body::Thinking { message, .. } => Some(message),
            _ => None,
        }
    }

    /// SPEC §10's two rules over the chain: every entry of an API response comes at its first
    /// entry on the chain, in line order, followed by the results-only user entries under any
    /// of them, in line order. ("Line order" is the order of places: a later copy stands in
    /// the first copy's place.)
    fn history(&self, chain: &[usize]) -> Vec<usize> {
        let mut history: Vec<usize> = Vec::new();
        let mut add = |n: usize| {
            if !history.contains(&n) {
                history.push(n);
            }
        };
        for &n in chain {
            let Some(id) = self.message_of(n) else {
                add(n);
                continue;
            };
            let places = 0..self.placed.len();
            let group: Vec<usize> = places
                .clone()
                .filter(|&m| self.message_of(m) == Some(id))
                .collect();
            let under_group = |r: &usize| {
                let node = &self.placed[*r].node;
                matches!(node.body, Body::Results(_))
                    && node
                        .parent
                        .as_ref()
                        .and_then(|p| self.place.get(p))
                        .is_some_and(|p| group.contains(p))
            };
            let results: Vec<usize> = places.filter(under_group).collect();
            group.iter().chain(&results).for_each(|&m| add(m));
        }
        history
    }
}

/// The chain and history the texts give, or `None` where they leave the outcome open.
fn chain_model(lines: &[Line]) -> Option<(Chain, Tree, Vec<usize>)> {
    let tree = Tree::new(lines);
    if tree.unsettled(lines) {
        return None;
    }
    let uuid = |i: usize| tree.placed[i].node.uuid.clone();
    let start = tree.start(lines);
    let (mut chain, dangling, cycles) = tree.walk(start);
    chain.reverse();
    let leaves = tree.leaves();
    let mut reached = HashSet::new();
    for &l in &leaves {
        reached.extend(tree.walk(l).0);
    }
    // "The first entry's parentUuid naming no entry of the file ends the walk as a root does:
    // the report says dangling-first-parent, not dangling-parent."
    let first = &tree.placed[0].node;
    let dangling_first = (first.body != Body::Boundary
        && first
            .parent
            .as_ref()
            .is_some_and(|p| !tree.place.contains_key(p)))
    .then(|| first.uuid.clone());
    let history = tree.history(&chain);
    let model = Chain {
        leaf: uuid(start),
        chain_length: chain.len(),
        other_leaves: leaves
            .iter()
            .filter(|&&l| l != start)
            .map(|&l| (uuid(l), tree.walk(l).0.len()))
            .collect(),
        dangling: dangling.into_iter().filter(|&d| d != 0).map(uuid).collect(),
        cycles: cycles.into_iter().map(uuid).collect(),
        duplicates: tree.duplicates,
        sidechain_entries: if tree.subagent {
            0
        } else {
            tree.placed.iter().filter(|p| p.node.sidechain).count()
        },
        compactions: (0..tree.placed.len())
            .filter(|&i| tree.considered[i] && tree.placed[i].node.body == Body::Boundary)
            .count(),
        unreachable: (0..tree.placed.len())
            .filter(|&i| tree.considered[i] && !reached.contains(&i))
            .count(),
        dangling_first,
        history: history.iter().map(|&i| uuid(i)).collect(),
    };
    Some((model, tree, history))
}

// ---------------------------------------------------------------------------------------------
// The model: the prompt view

/// A content block of the view, as far as the rules see it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Block {
    Text(String),
    Thinking(String),
    Use(String),
    Result {
        id: String,
        content: String,
        error: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Message {
    role: Role,
    blocks: Vec<Block>,
}

/// What the model says of the view.
#[derive(Debug, Clone, PartialEq)]
struct ViewModel {
    messages: Vec<Message>,
    /// Tool use ids given a synthetic result, in order.
    synthetic: Vec<String>,
    /// Results removed as orphans, in order.
    orphans: Vec<String>,
}

/// A history entry that is a message, before anything merges.
struct Item {
    role: Role,
    message: Option<String>,
    blocks: Vec<Block>,
}

fn items(tree: &Tree, history: &[usize], resuming: &str) -> Vec<Item> {
    let mut items = Vec::new();
    for &i in history {
        let (node, line) = (&tree.placed[i].node, tree.placed[i].line);
        let text = |t: &str| Block::Text(t.to_string());
        let result = |id: &str| Block::Result {
            id: id.to_string(),
            content: result_text(id, line),
            error: false,
        };
        let (role, message, blocks) = match &node.body {
            Body::Prompt { text: t, .. } => (Role::User, None, vec![text(t)]),
            Body::Results(ids) => (Role::User, None, ids.iter().map(|id| result(id)).collect()),
            Body::Mixed {
                id,
                text: t,
                result_first,
            } => {
                let mut blocks = vec![result(id), text(t)];
                // "Blocks of a user entry keep file order" (§11.3.6).
                if !result_first {
                    blocks.reverse();
                }
                (Role::User, None, blocks)
            }
            // "Whitespace-only assistant text entries are dropped" (§11.3.10).
            Body::Said { text: t, .. } if t.trim().is_empty() => continue,
            Body::Said { message, text: t } => {
                (Role::Assistant, Some(message.clone()), vec![text(t)])
            }
            Body::Call { message, id } => (
                Role::Assistant,
                Some(message.clone()),
                vec![Block::Use(id.clone())],
            ),
            // "Thinking blocks are dropped when the resuming model is not the model that
            // wrote them; kept verbatim otherwise" (§11.3.9).
            Body::Thinking { .. } if node.model != resuming => continue,
            Body::Thinking { message, text: t } => (
                Role::Assistant,
                Some(message.clone()),
                vec![Block::Thinking(t.clone())],
            ),
            // "Other system entries, progress and the rest are not sent."
            Body::Note | Body::Boundary | Body::Progress => continue,
        };
        items.push(Item {
            role,
            message,
            blocks,
        });
    }
    items
}

fn uses(blocks: &[Block]) -> Vec<String> {
    blocks
        .iter()
        .filter_map(|b| match b {
            Block::Use(id) => Some(id.clone()),
            _ => None,
        })
        .collect()
}

fn result_ids(blocks: &[Block]) -> Vec<String> {
    blocks
        .iter()
        .filter_map(|b| match b {
            Block::Result { id, .. } => Some(id.clone()),
            _ => None,
        })
        .collect()
}

fn synthetic(id: &str, text: &str) -> Block {
    Block::Result {
        id: id.to_string(),
        content: text.to_string(),
        error: true,
    }
}

/// The view the texts give of the history, or `None` where they leave it open.
fn view_model(tree: &Tree, lines: &[Line], history: &[usize]) -> Option<ViewModel> {
    // The resuming model: "the model of the history's last assistant entry"
    // (docs/dialects.md); SPEC §11.3.9 says the transcript's. Where the two differ and a
    // thinking block depends on it, the texts disagree.
    let last_model = |nodes: &mut dyn Iterator<Item = &Node>| {
        nodes
            .filter(|n| {
                matches!(
                    n.body,
                    Body::Said { .. } | Body::Call { .. } | Body::Thinking { .. }
                )
            })
            .last()
            .map(|n| n.model)
    };
    let of_history = last_model(&mut history.iter().map(|&i| &tree.placed[i].node));
    let of_transcript = last_model(&mut lines.iter().filter_map(|l| match l {
        Line::Node(n) if tree.subagent || !n.sidechain => Some(n),
        _ => None,
    }));
    let thinks = history
        .iter()
        .any(|&i| matches!(tree.placed[i].node.body, Body::Thinking { .. }));
    if thinks && of_history != of_transcript {
        return None;
    }
    // Retired models are not generated: the default is the model itself.
    let resuming = of_history.unwrap_or("claude-opus-5-5");
    let mut items = items(tree, history, resuming);
    let results_only = |i: &Item| {
        i.role == Role::User && i.blocks.iter().all(|b| matches!(b, Block::Result { .. }))
    };

    // The response the history ends with: the last assistant entry, when only results follow
    // it, with the entries of its response and their results just before it.
    let mut trailing: HashSet<String> = HashSet::new();
    if let Some(last) = items.iter().rposition(|i| i.role == Role::Assistant)
        && items[last + 1..].iter().all(results_only)
    {
        let id = items[last].message.clone();
        let mut from = last;
        while from > 0 {
            let before = &items[from - 1];
            let same = before.role == Role::Assistant && before.message == id;
            if !(same || results_only(before)) {
                break;
            }
            from -= 1;
        }
        // A response whose entries are also further up, with other entries between, "ends the
        // history" or not: the texts do not say.
        if items[..from]
            .iter()
            .any(|i| i.role == Role::Assistant && i.message == id)
        {
            return None;
        }
        for item in &items[from..=last] {
            trailing.extend(uses(&item.blocks));
        }
    }
    let answered: HashSet<String> = items
        .iter()
        .filter(|i| i.role == Role::User)
        .flat_map(|i| result_ids(&i.blocks))
        .collect();
    // "A tool_use that has no tool_result anywhere in the history, unless it belongs to the
    // response the history ends with: the entry goes" (§11.3.4; one block per entry here).
    items.retain(|i| {
        uses(&i.blocks)
            .iter()
            .all(|u| answered.contains(u) || trailing.contains(u))
    });

    // Merging (§10, §11.3.1): consecutive user entries are one message, the last text of an
    // entry followed by another entry's text getting "\n"; consecutive assistant entries of one
    // response are one message.
    let mut messages: Vec<Message> = Vec::new();
    let mut last_message: Option<String> = None;
    for item in items {
        match messages.last_mut() {
            Some(m) if m.role == Role::User && item.role == Role::User => {
                if let (Some(Block::Text(t)), Some(Block::Text(_))) =
                    (m.blocks.last_mut(), item.blocks.first())
                {
                    t.push('\n');
                }
                m.blocks.extend(item.blocks);
            }
            Some(m)
                if m.role == Role::Assistant
                    && item.role == Role::Assistant
                    && last_message == item.message =>
            {
                m.blocks.extend(item.blocks);
            }
            _ => messages.push(Message {
                role: item.role,
                blocks: item.blocks,
            }),
        }
        last_message = item.message;
    }

    // Pairing: each tool use needs its result in the next message, a user message. One the
    // history ends with gets the "interrupted" result after the results there (§11.3.3);
    // another gets the "missing" one, first in the next user message (docs/dialects.md,
    // late_tool_result), or in a user message inserted for it.
    let mut synthesized = Vec::new();
    let mut paired: Vec<Message> = Vec::new();
    let mut at = 0;
    while at < messages.len() {
        let m = messages[at].clone();
        at += 1;
        let calls = uses(&m.blocks);
        paired.push(m);
        if calls.is_empty() {
            continue;
        }
        let next = messages.get(at).filter(|n| n.role == Role::User);
        let there = next.map(|n| result_ids(&n.blocks)).unwrap_or_default();
        let lacking: Vec<&String> = calls.iter().filter(|c| !there.contains(c)).collect();
        // A call of the last response with a result elsewhere in the history: is it
        // "unanswered" (interrupted) or answered too late (missing)? Not stated.
        if lacking
            .iter()
            .any(|c| trailing.contains(*c) && answered.contains(*c))
        {
            return None;
        }
        let missing: Vec<Block> = lacking
            .iter()
            .filter(|c| !trailing.contains(**c))
            .map(|c| synthetic(c, MISSING))
            .collect();
        let interrupted: Vec<Block> = lacking
            .iter()
            .filter(|c| trailing.contains(**c))
            .map(|c| synthetic(c, INTERRUPTED))
            .collect();
        synthesized.extend(result_ids(&missing));
        synthesized.extend(result_ids(&interrupted));
        if next.is_some() {
            let n = &mut messages[at];
            n.blocks.splice(0..0, missing);
            n.blocks.extend(interrupted);
        } else if !(missing.is_empty() && interrupted.is_empty()) {
            let mut blocks = missing;
            blocks.extend(interrupted);
            paired.push(Message {
                role: Role::User,
                blocks,
            });
        }
    }

    // Orphans (§10 repair 2, §11.3.5): a result that answers no tool use of the message just
    // before goes, and so does a second result for one call (docs/decisions.md); a user
    // message left empty is "(no content)", or "[Orphaned …]" when it is the first.
    let mut orphans = Vec::new();
    let mut open: Vec<String> = Vec::new();
    for (k, m) in paired.iter_mut().enumerate() {
        if m.role == Role::Assistant {
            open = uses(&m.blocks);
            continue;
        }
        m.blocks.retain(|b| match b {
            Block::Result { id, .. } => match open.iter().position(|u| u == id) {
                Some(p) => {
                    open.remove(p);
                    true
                }
                None => {
                    orphans.push(id.clone());
                    false
                }
            },
            _ => true,
        });
        if m.blocks.is_empty() {
            let text = if k == 0 { ORPHANED } else { NO_CONTENT };
            m.blocks.push(Block::Text(text.to_string()));
        }
        open.clear();
    }

    // "A history that ends in a user message gets an assistant message 'No response
    // requested.'" (§11.3.2).
    if paired.last().is_some_and(|m| m.role == Role::User) {
        paired.push(Message {
            role: Role::Assistant,
            blocks: vec![Block::Text(NO_RESPONSE.to_string())],
        });
    }
    Some(ViewModel {
        messages: paired,
        synthetic: synthesized,
        orphans,
    })
}

// ---------------------------------------------------------------------------------------------
// What rollcall says

fn render(session: &Loaded, job: Job) -> String {
    let mut out = Vec::new();
    session.render(job, &mut out).expect("rendered");
    String::from_utf8(out).expect("UTF-8")
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn uuids(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|b| b["uuid"].as_str().unwrap().to_string())
        .collect()
}

/// rollcall's chain, in the model's terms, and its view and repairs.
fn rollcall_of(file: &str) -> (Chain, ViewModel) {
    let session = Loaded::from_bytes(file.as_bytes()).expect("a session");
    let report: Value =
        serde_json::from_str(&render(&session, Job::Report { json: true })).expect("JSON");
    let history = render(&session, Job::History)
        .lines()
        .map(|l| {
            let entry: Value = serde_json::from_str(l).expect("JSON");
            entry["uuid"].as_str().unwrap().to_string()
        })
        .collect();
    let chain = Chain {
        leaf: report["leaf"]["uuid"].as_str().unwrap().to_string(),
        chain_length: report["leaf"]["chain_length"].as_u64().unwrap() as usize,
        other_leaves: report["other_leaves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                let uuid = l["uuid"].as_str().unwrap().to_string();
                (uuid, l["chain_length"].as_u64().unwrap() as usize)
            })
            .collect(),
        dangling: uuids(&report["dangling_parents"]),
        cycles: uuids(&report["cycles"]),
        duplicates: report["duplicate_uuids"].as_u64().unwrap() as usize,
        sidechain_entries: report["sidechain_entries"].as_u64().unwrap() as usize,
        compactions: report["compactions"].as_u64().unwrap() as usize,
        unreachable: report["unreachable_entries"].as_u64().unwrap() as usize,
        dangling_first: report["dangling_first_parent"]["uuid"]
            .as_str()
            .map(String::from),
        history,
    };
    let job = Job::View {
        format: Format::Jsonl,
        settings: ViewSettings::default(),
    };
    let messages = render(&session, job).lines().map(message_of).collect();
    let view = ViewModel {
        messages,
        synthetic: strings(&report["repairs"]["missing_outputs"]),
        orphans: strings(&report["repairs"]["orphan_outputs"]),
    };
    (chain, view)
}

fn message_of(line: &str) -> Message {
    let m: Value = serde_json::from_str(line).expect("JSON");
    let role = match m["role"].as_str() {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        other => panic!("role {other:?} in {line}"),
    };
    let blocks = m["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| match b["type"].as_str() {
            Some("text") => Block::Text(b["text"].as_str().unwrap().to_string()),
            Some("tool_use") => Block::Use(b["id"].as_str().unwrap().to_string()),
            Some("thinking") => Block::Thinking(b["thinking"].as_str().unwrap().to_string()),
            Some("tool_result") => Block::Result {
                id: b["tool_use_id"].as_str().unwrap().to_string(),
                content: b["content"].as_str().unwrap().to_string(),
                error: b["is_error"] == true,
            },
            other => panic!("block {other:?} in {line}"),
        })
        .collect();
    Message { role, blocks }
}

/// What the Messages API asks of any request, checked on rollcall's view alone: every tool
/// use is answered in the next message, a user message, and every result answers a tool use
/// of the message just before.
fn api_accepts(messages: &[Message]) -> Result<(), String> {
    for (k, m) in messages.iter().enumerate() {
        let calls = uses(&m.blocks);
        if m.role == Role::Assistant && !calls.is_empty() {
            let next = messages.get(k + 1).filter(|n| n.role == Role::User);
            let answers = next.map(|n| result_ids(&n.blocks)).unwrap_or_default();
            if let Some(c) = calls.iter().find(|c| !answers.contains(c)) {
                return Err(format!("message {k}: {c} is not answered next"));
            }
        }
        if m.role == Role::User {
            let before = k
                .checked_sub(1)
                .map(|b| &messages[b])
                .filter(|b| b.role == Role::Assistant);
            let calls = before.map(|b| uses(&b.blocks)).unwrap_or_default();
            let mut seen = HashSet::new();
            for r in result_ids(&m.blocks) {
                if !calls.contains(&r) || !seen.insert(r.clone()) {
                    return Err(format!("message {k}: result {r} answers nothing before"));
                }
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The properties

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, max_global_rejects: 15000,
        ..ProptestConfig::default() })]

    #[test]
    fn the_chain_and_the_view_are_the_models(lines in transcript()) {
        let model = chain_model(&lines);
        prop_assume!(model.is_some());
        let (chain, tree, history) = model.unwrap();
        let view = view_model(&tree, &lines, &history);
        prop_assume!(view.is_some());
        let file = file_of(&lines);
        let (their_chain, their_view) = rollcall_of(&file);
        prop_assert_eq!(&their_chain, &chain, "transcript:\n{}", file);
        prop_assert_eq!(&their_view, &view.unwrap(), "transcript:\n{}", file);
        if let Err(e) = api_accepts(&their_view.messages) {
            prop_assert!(false, "{}\ntranscript:\n{}", e, file);
        }
    }
}

/// The generator reaches every rule the model states, and the texts leave few cases open: a
/// property over transcripts that never branch, or never lose a result, would pass for nothing.
#[test]
fn the_generator_reaches_every_rule() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let config = Config {
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let strategy = transcript();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let total = 1000;
    for _ in 0..total {
        let lines = strategy.new_tree(&mut runner).unwrap().current();
        let mut count = |what: &'static str, yes: bool| {
            *seen.entry(what).or_default() += usize::from(yes);
        };
        let Some((chain, tree, history)) = chain_model(&lines) else {
            count("open chain", true);
            continue;
        };
        let Some(view) = view_model(&tree, &lines, &history) else {
            count("open view", true);
            continue;
        };
        let texts = |t: &str| {
            view.messages
                .iter()
                .flat_map(|m| &m.blocks)
                .filter(|b| matches!(b, Block::Result { content, .. } | Block::Text(content) if content == t))
                .count()
                > 0
        };
        count("branches", !chain.other_leaves.is_empty());
        count("dangling", !chain.dangling.is_empty());
        count("cycle", !chain.cycles.is_empty());
        count("duplicate", chain.duplicates > 0);
        count("compaction", chain.compactions > 0);
        count("unreachable", chain.unreachable > 0);
        count("dangling first", chain.dangling_first.is_some());
        count("subagent", tree.subagent);
        count(
            "sidechain on the chain",
            history.iter().any(|&i| tree.placed[i].node.sidechain),
        );
        count(
            "history beyond the chain",
            chain.history.len() > chain.chain_length,
        );
        count(
            "last-prompt",
            lines.iter().any(|l| matches!(l, Line::LastPrompt(_))),
        );
        count("missing", texts(MISSING));
        count("interrupted", texts(INTERRUPTED));
        count("orphaned first", texts(ORPHANED));
        count("no content", texts(NO_CONTENT));
        count("orphans", !view.orphans.is_empty());
        count(
            "joined",
            view.messages
                .iter()
                .flat_map(|m| &m.blocks)
                .any(|b| matches!(b, Block::Text(t) if t.ends_with('\n'))),
        );
        count(
            "merged response",
            view.messages
                .iter()
                .any(|m| m.role == Role::Assistant && m.blocks.len() > 1),
        );
        let thinking = |m: &Message| m.blocks.iter().any(|b| matches!(b, Block::Thinking(_)));
        count("thinking kept", view.messages.iter().any(thinking));
        count(
            "thinking dropped",
            history
                .iter()
                .any(|&i| matches!(tree.placed[i].node.body, Body::Thinking { .. }))
                && !view.messages.iter().any(thinking),
        );
        count(
            "answered",
            view.messages
                .iter()
                .flat_map(|m| &m.blocks)
                .any(|b| matches!(b, Block::Result { error: false, .. })),
        );
    }
    let open =
        seen.get("open chain").copied().unwrap_or(0) + seen.get("open view").copied().unwrap_or(0);
    eprintln!("{seen:?}");
    assert!(
        open * 10 < total,
        "{open} of {total} cases left open: {seen:?}"
    );
    for (what, n) in &seen {
        assert!(
            what.starts_with("open") || *n >= 10,
            "{what}: {n} of {total}: {seen:?}"
        );
    }
    assert_eq!(seen.len(), 23, "{seen:?}");
}
