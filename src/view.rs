//! The prompt view, agent-neutral: what every dialect's view offers the renderers. A view is a plan
//! over its history (computed from headers); entries are made into text only as they are printed,
//! reading their spans again. Renderers print what a view says and never re-derive its rules.

use std::io;

use crate::source::SpanReader;

/// How a view entry came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A history entry, byte for byte.
    Kept,
    /// A history entry with parts replaced, truncated or moved.
    Changed,
    /// Made by the repairs: nothing in the log stands for it.
    Synthetic,
}

/// One entry of the view as JSON text.
pub(crate) struct Entry<'a> {
    pub origin: Origin,
    pub text: &'a [u8],
}

/// How many bytes of input (and at most how many steps) one thread makes entries of at a
/// time, and how many such parts are made before they are printed: memory stays a few parts'
/// worth whatever the view's size.
const PART_BYTES: u64 = 1 << 20;
pub(crate) const PART_STEPS: usize = 4096;
const PARTS_AT_ONCE: usize = 8;

/// The entries of one part: their texts one after another, and where each ends.
#[derive(Default)]
struct Made {
    bytes: Vec<u8>,
    ends: Vec<(Origin, usize)>,
}

/// Hands `each` the entry `make` writes for every step, in order. With `part_steps`, the
/// entries are made on the pool, in parts of at most that many steps and about `PART_BYTES`
/// of input (as `bytes` counts a step), each part read with a reader of its own; with `None`,
/// here, one at a time. `make` gives an entry's origin, or `None` for a step with no entry.
pub(crate) fn entries_in_parts<T: Sync>(
    steps: impl Iterator<Item = T>,
    bytes: impl Fn(&T) -> u64,
    make: impl Fn(&T, &mut SpanReader<'_>, &mut Vec<u8>) -> io::Result<Option<Origin>> + Sync,
    reader: &mut SpanReader<'_>,
    each: &mut dyn FnMut(Entry<'_>) -> io::Result<()>,
    part_steps: Option<usize>,
) -> io::Result<()> {
    use rayon::prelude::*;
    let mut text = Vec::new();
    let Some(part_steps) = part_steps else {
        for step in steps {
            if let Some(origin) = make(&step, reader, &mut text)? {
                each(Entry {
                    origin,
                    text: &text,
                })?;
            }
        }
        return Ok(());
    };
    let mut steps = steps.peekable();
    let reader = &*reader;
    while steps.peek().is_some() {
        let mut parts: Vec<(Vec<T>, u64)> = Vec::new();
        while parts.len() < PARTS_AT_ONCE && steps.peek().is_some() {
            let (mut part, mut size) = (Vec::new(), 0);
            while size < PART_BYTES && part.len() < part_steps {
                // A large step starts a part of its own, so that its text is never copied.
                match steps.peek() {
                    Some(next) if part.is_empty() || bytes(next) < PART_BYTES => {}
                    _ => break,
                }
                let Some(step) = steps.next() else { break };
                size += bytes(&step);
                part.push(step);
            }
            parts.push((part, size));
        }
        let made: io::Result<Vec<Made>> = parts
            .par_iter()
            .map(|(part, size)| {
                let mut reader = reader.sibling((*size).clamp(64 << 10, 4 << 20) as usize);
                let (mut made, mut text) = (Made::default(), Vec::new());
                for step in part {
                    if let Some(origin) = make(step, &mut reader, &mut text)? {
                        if made.bytes.is_empty() {
                            std::mem::swap(&mut made.bytes, &mut text);
                        } else {
                            made.bytes.extend_from_slice(&text);
                        }
                        made.ends.push((origin, made.bytes.len()));
                    }
                }
                Ok(made)
            })
            .collect();
        for made in made? {
            let mut start = 0;
            for (origin, end) in made.ends {
                each(Entry {
                    origin,
                    text: &made.bytes[start..end],
                })?;
                start = end;
            }
        }
    }
    Ok(())
}

/// What the diff shows of one change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Change {
    pub sign: Sign,
    /// `view #3` or `history #3` (1-based).
    pub position: String,
    pub head: String,
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sign {
    Inserted,
    Removed,
    Modified,
}

/// A view's size against its history's, for the diff's first line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shape {
    /// What the history is made of, named for the diff (`items`, `messages`).
    pub history: u64,
    pub history_unit: &'static str,
    pub view: u64,
    pub view_unit: &'static str,
    /// What the view was made for, e.g. `modalities text,image`.
    pub settings: String,
}

/// What a dialect's prompt view offers the renderers.
pub(crate) trait PromptView {
    fn shape(&self) -> Shape;

    /// Calls `each` with every entry, in order.
    fn entries(
        &self,
        reader: &mut SpanReader<'_>,
        each: &mut dyn FnMut(Entry<'_>) -> io::Result<()>,
    ) -> io::Result<()>;

    /// Calls `each` with every change, in order; returns the diff's closing line.
    fn changes(
        &self,
        reader: &mut SpanReader<'_>,
        each: &mut dyn FnMut(Change) -> io::Result<()>,
    ) -> io::Result<String>;

    /// A transcript entry for people: its heading, a mark for a changed or synthetic entry, and
    /// the lines of its body (raw log text: the renderer makes it terminal-safe).
    fn describe(&self, entry: &Entry<'_>) -> (String, Option<&'static str>, Vec<String>);
}
