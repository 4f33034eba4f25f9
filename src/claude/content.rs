//! The content of a message: its blocks, each a range of the entry's text with its kind and the
//! members the rules read (the id it carries, its text, a tool use's name and input, a tool
//! result's content). The classifier walks them in place; the view walks them again, stepping
//! over the long strings the classifier found, when it writes a message.

use std::ops::Range;

use crate::json::{self, Parser};
use crate::toolcall::{self, ToolFault};

/// A content block's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockKind {
    Text,
    ToolUse,
    ToolResult,
    /// `thinking` or `redacted_thinking`: sent only to the model that wrote it.
    Thinking,
    Other,
}

/// One block of a message's content: its range, its kind, and the range of the id it carries
/// (`id` of a tool use, `tool_use_id` of a tool result) and of its `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Block {
    pub range: Range<usize>,
    pub kind: BlockKind,
    pub id: Option<Range<usize>>,
    pub text: Option<Range<usize>>,
    /// Its `name`, `input` and `content` values.
    pub name: Option<Range<usize>>,
    pub input: Option<Range<usize>>,
    pub content: Option<Range<usize>>,
    /// A `tool_use` whose string `input` starts like JSON but does not parse, or whose `name`
    /// holds control characters.
    pub fault: Option<Box<ToolFault>>,
}

/// The blocks of a `content` array at `value` of `text`, a text whose long strings a walk found
/// valid at `known`; a string content is one text block (whose range is the string itself).
/// Their faults are not looked for: the classifier found them.
pub(crate) fn blocks(text: &str, known: &[json::Walked], value: &Range<usize>) -> Vec<Block> {
    let raw = &text[value.clone()];
    if raw.starts_with('"') {
        return vec![text_block(value.clone())];
    }
    let mut found = Vec::new();
    if !raw.starts_with('[') {
        return found;
    }
    let mut p = Parser::knowing(text, known);
    p.seek(value.start);
    let _ = walk_blocks(&mut p, text, &mut found, false);
    found
}

/// A string content: one text block.
fn text_block(range: Range<usize>) -> Block {
    Block {
        range: range.clone(),
        kind: BlockKind::Text,
        id: None,
        text: Some(range),
        name: None,
        input: None,
        content: None,
        fault: None,
    }
}

/// The blocks of the `content` value the parser is at, walked in place (as [`blocks`] reads
/// them) into `found`, with the faults of tool uses when `faults`; returns the value's range.
pub(crate) fn walk_blocks(
    p: &mut Parser<'_>,
    text: &str,
    found: &mut Vec<Block>,
    faults: bool,
) -> json::Result<Range<usize>> {
    match p.peek() {
        Some(b'"') => {
            let range = p.value()?;
            found.push(text_block(range.clone()));
            Ok(range)
        }
        Some(b'[') => p.array(|p| {
            if p.peek() != Some(b'{') {
                found.push(Block {
                    range: p.value()?,
                    kind: BlockKind::Other,
                    id: None,
                    text: None,
                    name: None,
                    input: None,
                    content: None,
                    fault: None,
                });
                return Ok(true);
            }
            let (mut kind, mut id, mut tool_use_id, mut body) = (None, None, None, None);
            let (mut name, mut input, mut content) = (None, None, None);
            let range = p.object(|p, key| {
                let slot = match &*key.name() {
                    "type" => &mut kind,
                    "id" => &mut id,
                    "tool_use_id" => &mut tool_use_id,
                    "text" => &mut body,
                    "name" => &mut name,
                    "input" => &mut input,
                    "content" => &mut content,
                    _ => return Ok(false),
                };
                *slot = Some(p.value()?);
                Ok(true)
            })?;
            let is_string = |r: &Option<Range<usize>>| {
                r.clone()
                    .filter(|r: &Range<usize>| text.as_bytes()[r.start] == b'"')
            };
            let (kind, id) = match json::string_at(text, &kind).as_deref() {
                Some("tool_use") => (BlockKind::ToolUse, is_string(&id)),
                Some("tool_result") => (BlockKind::ToolResult, tool_use_id),
                Some("text") => (BlockKind::Text, None),
                Some("thinking" | "redacted_thinking") => (BlockKind::Thinking, None),
                _ => (BlockKind::Other, None),
            };
            let fault = (faults && kind == BlockKind::ToolUse)
                .then(|| {
                    let raw = |r: &Option<Range<usize>>| r.as_ref().map(|r| &text[r.clone()]);
                    let json = toolcall::Arguments::Json;
                    toolcall::check(raw(&name), raw(&input), "tool_use", "input", json)
                })
                .flatten()
                .map(Box::new);
            found.push(Block {
                range,
                kind,
                id,
                text: is_string(&body),
                name,
                input,
                content,
                fault,
            });
            Ok(true)
        }),
        _ => p.value(),
    }
}
