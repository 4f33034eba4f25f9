//! Rendering: one module per output format, chosen once from the resolved config. Renderers
//! write to a `Write` and print what the view and the report say; nothing here re-derives a rule
//! or prints directly.

mod diff;
mod report;
mod scan;
mod text;
mod view;

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde_json::Value;
use serde_json::value::RawValue;

use crate::claude;
use crate::cli::{Format, Job, ViewSettings};
use crate::codex;
use crate::json;
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

/// Shown for a member nested deeper than serde_json decodes (its limit is 128 levels).
const TOO_DEEP: &str = "[nested too deep to show]";

/// A view entry as a `Value` to describe. Valid JSON that serde_json will not decode in full still
/// shows its type and ids: lone surrogates read as U+FFFD, and a member nested too deep is shown
/// as [`TOO_DEEP`].
pub(crate) fn decode_json(text: &[u8]) -> Value {
    let text = String::from_utf8_lossy(text);
    let text = json::lone_surrogates_replaced(&text);
    if let Ok(item) = serde_json::from_str(&text) {
        return item;
    }
    // Raw members are skipped over without recursion, so only the deep ones are lost.
    let Ok(members) = serde_json::from_str::<BTreeMap<String, &RawValue>>(&text) else {
        return Value::Null;
    };
    let members = members.into_iter().map(|(key, raw)| {
        let value = serde_json::from_str(raw.get()).unwrap_or_else(|_| TOO_DEEP.into());
        (key, value)
    });
    Value::Object(members.collect())
}

/// `one` or `many`, as `n` asks.
pub(crate) fn plural(n: impl Into<u64>, one: &'static str, many: &'static str) -> &'static str {
    if n.into() == 1 { one } else { many }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_serde_json_cannot_decode_still_show_their_type() {
        let deep = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
        let item = decode_json(
            format!(r#"{{"type":"function_call","call_id":"\udfff","x":{deep}}}"#).as_bytes(),
        );
        assert_eq!(
            item,
            serde_json::json!({"type": "function_call", "call_id": "\u{fffd}", "x": TOO_DEEP})
        );
    }
}
