//! The report, for people (aligned, short even for millions of bad lines) and as one JSON object.

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::{Paint, plural};
use serde::Serialize;

use crate::escape::{self, escape};
use crate::report::{Report, TurnRef};
use crate::session::Session;

/// How many entries of a long list the human report shows before "… and N more".
const SHOWN: usize = 20;

pub(super) fn json(session: &Session, out: &mut impl Write) -> io::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(&mut *out, TerminalSafe);
    Report::new(session).serialize(&mut serializer)?;
    out.write_all(b"\n")
}

/// Compact JSON that also escapes what serde_json leaves raw but a terminal would act on
/// (DEL, C1 controls, bidirectional overrides), so the report is safe to print as it is.
pub(crate) struct TerminalSafe;

impl serde_json::ser::Formatter for TerminalSafe {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        out: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if escape::is_unsafe(c) {
                out.write_all(&fragment.as_bytes()[start..i])?;
                write!(out, "\\u{:04x}", c as u32)?;
                start = i + c.len_utf8();
            }
        }
        out.write_all(&fragment.as_bytes()[start..])
    }
}

pub(super) fn human(session: &Session, paint: Paint, out: &mut impl Write) -> io::Result<()> {
    let r = Report::new(session);
    // Padded before it is painted: escape codes have width in format!'s eyes, not on screen.
    let row = |out: &mut dyn Write, label: &str, value: &str| {
        writeln!(out, "{}{value}", paint.bold(&format!("{label:<17}")))
    };
    let none = paint.dim("none");

    row(out, "rollout", &escape(r.file))?;
    row(out, "thread", &escape(r.thread_id.unwrap_or("-")))?;
    if let Some(cwd) = r.cwd {
        row(out, "working dir", &escape(cwd))?;
    }
    if let Some(started) = r.started {
        row(out, "started", &escape(started))?;
    }
    row(out, "dialect", r.dialect)?;
    row(
        out,
        "lines",
        &format!(
            "{} ({} {}, {} blank)",
            r.lines,
            r.records,
            plural(r.records, "record", "records"),
            r.blank_lines
        ),
    )?;

    let errors = if r.parse_errors == 0 {
        none.clone()
    } else {
        paint.red(&r.parse_errors.to_string())
    };
    row(out, "parse errors", &errors)?;
    for e in r.errors.0.iter().take(SHOWN) {
        writeln!(
            out,
            "  line {:<8} {}",
            e.line,
            escape(&e.reason.to_string())
        )?;
    }
    more(out, r.parse_errors, SHOWN)?;
    if r.torn_tail {
        let last = r.error_lines.0.error_runs.last().map_or(0, |&(_, end)| end);
        row(
            out,
            "torn tail",
            &paint.yellow(&format!("line {last} was cut off mid-write")),
        )?;
    }
    row(
        out,
        "unknown records",
        &tally(r.unknown_records, r.unknown_record_kinds, &none),
    )?;
    if let Some(c) = &r.codex_records {
        row(
            out,
            "unknown events",
            &tally(c.unknown_events, c.unknown_event_types, &none),
        )?;
        if c.session_metas > 1 {
            row(
                out,
                "session metas",
                &format!("{} (the first one names the thread)", c.session_metas),
            )?;
        }
    }
    let items = r.history_items;
    row(
        out,
        "history",
        &format!("{items} {}", plural(items, "item", "items")),
    )?;
    let incomplete = match &r.incomplete_turn {
        Some(turn) => paint.yellow(&turn_text(turn)),
        None => none.clone(),
    };
    row(out, "incomplete turn", &incomplete)?;
    if let Some(t) = &r.codex_turns {
        let abandoned = if t.abandoned_turns.is_empty() {
            none.clone()
        } else {
            t.abandoned_turns.len().to_string()
        };
        row(out, "abandoned turns", &abandoned)?;
        for turn in t.abandoned_turns.iter().take(SHOWN) {
            writeln!(out, "  {}", turn_text(turn))?;
        }
        more(out, t.abandoned_turns.len() as u64, SHOWN)?;
        row(
            out,
            "turns",
            &format!(
                "{} completed, {} aborted",
                t.completed_turns, t.aborted_turns
            ),
        )?;
        row(out, "compactions", &t.compactions.to_string())?;
        row(out, "rollbacks", &t.rollbacks.to_string())?;
    }

    let repairs = &r.repairs;
    let missing = repairs.missing_outputs.len();
    let orphans = repairs.orphan_outputs.len();
    let summary = if missing + orphans == 0 && repairs.images_replaced + repairs.audio_replaced == 0
    {
        none
    } else {
        paint.yellow(&format!(
            "{missing} synthetic {}, {orphans} orphan {} removed, {} {} and {} audio {} replaced",
            plural(missing as u64, "output", "outputs"),
            plural(orphans as u64, "output", "outputs"),
            repairs.images_replaced,
            plural(repairs.images_replaced, "image", "images"),
            repairs.audio_replaced,
            plural(repairs.audio_replaced, "part", "parts"),
        ))
    };
    row(out, "prompt view", &summary)?;
    for (label, ids) in [
        ("missing output", &repairs.missing_outputs),
        ("orphan output", &repairs.orphan_outputs),
    ] {
        for id in ids.iter().take(SHOWN) {
            writeln!(out, "  {label:<15}call_id {}", escape(&id.text()))?;
        }
        more(out, ids.len() as u64, SHOWN)?;
    }
    Ok(())
}

fn more(out: &mut dyn Write, total: u64, shown: usize) -> io::Result<()> {
    match total.checked_sub(shown as u64) {
        Some(rest) if rest > 0 => writeln!(out, "  … and {rest} more"),
        _ => Ok(()),
    }
}

fn turn_text(turn: &TurnRef<'_>) -> String {
    match turn.turn_id {
        Some(id) => format!("{} (opened at line {})", escape(id), turn.line),
        None => format!("turn without id (opened at line {})", turn.line),
    }
}

fn tally(total: u64, names: &BTreeMap<Box<str>, u64>, none: &str) -> String {
    if total == 0 {
        return none.to_string();
    }
    let named: Vec<String> = names
        .iter()
        .map(|(name, n)| format!("{} ×{n}", escape(name)))
        .collect();
    format!("{total}: {}", named.join(", "))
}
