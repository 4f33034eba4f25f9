//! A prompt view as a transcript for people: each entry's heading and body as its dialect
//! describes it, synthetic and changed entries marked, log text shown terminal-safe.

use std::io::{self, Write};

use super::Paint;
use crate::escape::{escape, escape_multiline};
use crate::source::SpanReader;
use crate::view::PromptView;

pub(super) fn transcript(
    view: &impl PromptView,
    reader: &mut SpanReader<'_>,
    paint: Paint,
    out: &mut impl Write,
) -> io::Result<()> {
    let mut n = 0;
    view.entries(reader, &mut |entry| {
        n += 1;
        let (head, mark, body) = view.describe(&entry);
        let mark = mark.map_or(String::new(), |m| format!("  {}", paint.yellow(m)));
        writeln!(
            out,
            "{} {}{mark}",
            paint.dim(&format!("#{n}")),
            paint.bold(&escape(&head))
        )?;
        for line in body {
            for l in escape_multiline(&line).lines() {
                writeln!(out, "    {l}")?;
            }
        }
        Ok(())
    })
}
