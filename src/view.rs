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
