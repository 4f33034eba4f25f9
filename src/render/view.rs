//! Item lists as JSON: the replayed history and the prompt view, each item as its exact text.

use std::io::{self, Write};

use crate::normalize::PromptView;
use crate::replay::ResumeState;

pub fn history_jsonl(state: &ResumeState, out: &mut impl Write) -> io::Result<()> {
    for item in &state.history {
        out.write_all(item.text.as_deref().unwrap_or_default().as_bytes())?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

pub fn jsonl(view: &PromptView<'_>, out: &mut impl Write) -> io::Result<()> {
    for (_, _, text) in view.entries() {
        out.write_all(text.as_bytes())?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// One indented array; each item stays exactly as it was (its inner spacing is not redone).
pub fn json_array(view: &PromptView<'_>, out: &mut impl Write) -> io::Result<()> {
    let mut first = true;
    out.write_all(b"[")?;
    for (_, _, text) in view.entries() {
        out.write_all(if first { b"\n  " } else { b",\n  " })?;
        out.write_all(text.as_bytes())?;
        first = false;
    }
    out.write_all(if first { b"]\n" } else { b"\n]\n" })
}
