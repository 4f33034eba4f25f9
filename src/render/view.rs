//! A prompt view as one indented JSON array, each entry printed as its exact text (JSONL is the
//! view's own [`PromptView::lines`]).

use std::io::{self, Write};

use crate::source::SpanReader;
use crate::view::PromptView;

/// One indented array; each entry stays exactly as it was (its inner spacing is not redone).
pub(super) fn json_array(
    view: &impl PromptView,
    reader: &mut SpanReader<'_>,
    out: &mut impl Write,
) -> io::Result<()> {
    let mut first = true;
    out.write_all(b"[")?;
    view.entries(reader, &mut |entry| {
        out.write_all(if first { b"\n  " } else { b",\n  " })?;
        out.write_all(entry.text)?;
        first = false;
        Ok(())
    })?;
    out.write_all(if first { b"]\n" } else { b"\n]\n" })
}
