//! Rendering: one module per output format, chosen once from the resolved config. Renderers
//! write to a `Write` and print what the view and the report say; nothing here re-derives a rule
//! or prints directly.

mod diff;
mod job;
mod report;
mod scan;
mod text;
mod view;

use std::io::{self, Write};

use crate::report::Report;
use crate::session::{AnyView, Session};
use crate::source::SpanReader;
use crate::view::PromptView;

pub use job::{Format, Job};
pub(crate) use scan::{jsonl as scan_jsonl, table as scan_table};

/// What a command prints about one session, built once by the caller: the view for `View` and
/// `Diff`, the report for `Report`.
pub(crate) enum Printed<'a> {
    History,
    Report {
        report: &'a Report<'a>,
        json: bool,
    },
    View {
        view: &'a AnyView<'a>,
        format: Format,
    },
    Diff {
        view: &'a AnyView<'a>,
    },
}

/// Writes `what`, reading the entries it prints from `session`'s sources.
pub(crate) fn render(
    what: Printed<'_>,
    session: &Session,
    paint: Paint,
    out: &mut impl Write,
) -> io::Result<()> {
    let mut reader = SpanReader::new(&session.sources);
    match what {
        Printed::History => session.write_history(out),
        Printed::Report { report, json: true } => report::json(report, out),
        Printed::Report {
            report,
            json: false,
        } => report::human(report, paint, out),
        Printed::View { view, format } => match format {
            Format::Jsonl => view.lines(&mut reader, out),
            Format::Json => view::json_array(view, &mut reader, out),
            Format::Text => text::transcript(view, &mut reader, paint, out),
        },
        Printed::Diff { view } => diff::write(&session.name, view, &mut reader, paint, out),
    }
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
