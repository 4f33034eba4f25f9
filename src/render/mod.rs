//! Rendering: one module per output format, chosen once from the resolved config. Renderers
//! write to a `Write` and print what the view and the report say; nothing here re-derives a rule
//! or prints directly.

mod diff;
mod report;
mod scan;
mod text;
mod view;

use std::io::{self, Write};

use crate::claude;
use crate::cli::{Format, Job, ViewSettings};
use crate::codex;
use crate::session::{Session, State};
use crate::source::SpanReader;
use crate::view::PromptView;

pub(crate) use scan::{jsonl as scan_jsonl, table as scan_table};

/// Writes what `job` asks for about `session`.
pub(crate) fn render(
    job: Job,
    paint: Paint,
    session: &Session,
    out: &mut impl Write,
) -> io::Result<()> {
    let mut reader = SpanReader::new(&session.sources);
    match (job, &session.state) {
        (Job::History, state) => history(state, &mut reader, out),
        (Job::Report { json: true }, _) => report::json(session, out),
        (Job::Report { json: false }, _) => report::human(session, paint, out),
        (Job::View { format, settings }, State::Codex(state)) => {
            let view = codex::view::View::new(state, settings);
            view_as(format, &view, &mut reader, paint, out)
        }
        (Job::View { format, .. }, State::Claude(state)) => {
            let view = claude::view::View::new(state, &mut SpanReader::new(&session.sources))?;
            view_as(format, &view, &mut reader, paint, out)
        }
        (Job::Diff { settings }, State::Codex(state)) => {
            let view = codex::view::View::new(state, settings);
            diff::write(&session.name, &view, &mut reader, paint, out)
        }
        (Job::Diff { .. }, State::Claude(state)) => {
            let view = claude::view::View::new(state, &mut SpanReader::new(&session.sources))?;
            diff::write(&session.name, &view, &mut reader, paint, out)
        }
    }
}

fn view_as(
    format: Format,
    view: &impl PromptView,
    reader: &mut SpanReader<'_>,
    paint: Paint,
    out: &mut impl Write,
) -> io::Result<()> {
    match format {
        Format::Jsonl => view::jsonl(view, reader, out),
        Format::Json => view::json_array(view, reader, out),
        Format::Text => text::transcript(view, reader, paint, out),
    }
}

/// The resume state's history, one entry per line, as the log has it.
fn history(state: &State, reader: &mut SpanReader<'_>, out: &mut impl Write) -> io::Result<()> {
    let mut text = Vec::new();
    match state {
        State::Codex(state) => {
            let view = codex::view::View::new(state, ViewSettings::default());
            for item in &state.history {
                view.item_text(*item, reader, &mut text)?;
                out.write_all(&text)?;
                out.write_all(b"\n")?;
            }
        }
        State::Claude(state) => {
            for &node in &state.history {
                let line = reader.read(0, state.nodes[node as usize].span)?;
                out.write_all(line)?;
                out.write_all(b"\n")?;
            }
        }
    }
    Ok(())
}

/// ANSI colour for human output, or nothing.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Paint(pub bool);

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
