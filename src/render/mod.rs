//! Rendering: one module per output format, chosen once from the resolved config. Renderers
//! write to a `Write`; nothing here prints directly.

mod diff;
mod report;
mod scan;
mod text;
mod view;

use std::io::{self, Write};

use crate::cli::{self, Format, Job};
use crate::normalize;
use crate::replay::ResumeState;
use crate::scan::Row;

/// Writes what `job` asks for about `state` (read from the input called `name`).
pub fn render(
    job: Job,
    paint: Paint,
    name: &str,
    state: &ResumeState,
    out: &mut impl Write,
) -> io::Result<()> {
    match job {
        Job::History => view::history_jsonl(state, out),
        Job::Report { json: true } => report::json(name, state, out),
        Job::Report { json: false } => report::human(name, state, paint, out),
        Job::View { format, modalities } => {
            let view = normalize::normalize(&state.history, modalities);
            match format {
                Format::Jsonl => view::jsonl(&view, out),
                Format::Json => view::json_array(&view, out),
                Format::Text => text::transcript(&view, paint, out),
            }
        }
        Job::Diff { modalities } => {
            let view = normalize::normalize(&state.history, modalities);
            diff::write(name, &view, paint, out)
        }
    }
}

/// Writes the rows of a scan, all of them or only those with a finding, as `scan` asks.
pub fn scan(rows: &[Row], scan: &cli::Scan, paint: Paint, out: &mut impl Write) -> io::Result<()> {
    let shown = rows
        .iter()
        .filter(|row| !scan.problems || row.health().is_problem());
    if scan.json {
        scan::jsonl(shown, out)
    } else {
        scan::table(shown, rows, paint, out)
    }
}

/// `one` or `many`, as `n` asks.
pub(crate) fn plural(n: impl Into<u64>, one: &'static str, many: &'static str) -> &'static str {
    if n.into() == 1 { one } else { many }
}

/// ANSI colour for human output, or nothing.
#[derive(Debug, Clone, Copy)]
pub struct Paint(pub bool);

impl Paint {
    pub fn bold(self, text: &str) -> String {
        self.sgr("1", text)
    }
    pub fn red(self, text: &str) -> String {
        self.sgr("31", text)
    }
    pub fn green(self, text: &str) -> String {
        self.sgr("32", text)
    }
    pub fn yellow(self, text: &str) -> String {
        self.sgr("33", text)
    }
    pub fn dim(self, text: &str) -> String {
        self.sgr("2", text)
    }

    fn sgr(self, code: &str, text: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}
