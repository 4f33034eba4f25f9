//! What the repairs changed, entry by entry against the history: inserted, removed and changed
//! entries as their dialect words them. Untouched entries are not shown.

use std::io::{self, Write};

use super::Paint;
use crate::escape::escape;
use crate::source::SpanReader;
use crate::view::{PromptView, Sign};

/// A unit's name for `n` of it: `items` for 0 or 2, `item` for 1.
fn unit(n: u64, plural: &str) -> &str {
    if n == 1 {
        plural.strip_suffix('s').unwrap_or(plural)
    } else {
        plural
    }
}

pub(super) fn write(
    name: &str,
    view: &impl PromptView,
    reader: &mut SpanReader<'_>,
    paint: Paint,
    out: &mut impl Write,
) -> io::Result<()> {
    let shape = view.shape();
    writeln!(
        out,
        "{}",
        paint.bold(&format!(
            "prompt view of {} ({}): history {} {} → view {} {}",
            escape(name),
            shape.settings,
            shape.history,
            unit(shape.history, shape.history_unit),
            shape.view,
            unit(shape.view, shape.view_unit),
        ))
    )?;
    let footer = view.changes(reader, &mut |change| {
        let sign = match change.sign {
            Sign::Inserted => paint.green("+"),
            Sign::Removed => paint.red("-"),
            Sign::Modified => paint.yellow("~"),
        };
        writeln!(
            out,
            "\n{sign} {:<10} {}",
            change.position,
            escape(&change.head)
        )?;
        writeln!(out, "             {}", escape(&change.detail))
    })?;
    writeln!(out, "\n{}", escape(&footer))
}
