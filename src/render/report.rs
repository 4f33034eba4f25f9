//! The report, for people (aligned, short even for millions of bad lines) and as one JSON object.

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::Paint;
use crate::text::plural;
use serde::Serialize;

use crate::escape::{self, escape};
use crate::report::advice::Severity;
use crate::report::{LeafRef, Report, TurnRef};

/// How many entries of a long list the human report shows before "… and N more".
const SHOWN: usize = 20;

pub(super) fn json(report: &Report<'_>, out: &mut impl Write) -> io::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(&mut *out, TerminalSafe);
    report.serialize(&mut serializer)?;
    out.write_all(b"\n")
}

/// Compact JSON that also escapes what serde_json leaves raw but a terminal would act on or a
/// reader would not see (DEL, C1 controls, bidirectional controls, invisible marks), so the
/// report is safe to print as it is.
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
                escape::json_escape(c, out)?;
                start = i + c.len_utf8();
            }
        }
        out.write_all(&fragment.as_bytes()[start..])
    }
}

/// One line of the human report: a label, its value, and indented lines under it.
struct Row {
    label: &'static str,
    value: String,
    under: Vec<String>,
}

impl Row {
    fn new(label: &'static str, value: impl Into<String>) -> Row {
        Row {
            label,
            value: value.into(),
            under: Vec::new(),
        }
    }

    fn under(mut self, lines: Vec<String>) -> Row {
        self.under = lines;
        self
    }
}

pub(super) fn human(r: &Report<'_>, paint: Paint, out: &mut impl Write) -> io::Result<()> {
    let none = paint.dim("none");
    let mut rows = identity(r);
    rows.extend(loading(r, paint, &none));
    rows.extend(resume_state(r, paint, &none));
    rows.extend(chain(r, paint, &none));
    rows.extend(repairs(r, paint, &none));
    for row in rows {
        // Padded before it is painted: escape codes have width in format!'s eyes, not on screen.
        writeln!(
            out,
            "{}{}",
            paint.bold(&format!("{:<17}", row.label)),
            row.value
        )?;
        for line in row.under {
            writeln!(out, "  {line}")?;
        }
    }
    problems(r, paint, out)
}

/// What to do about each problem: its severity and code, the problem, and the next step.
fn problems(r: &Report<'_>, paint: Paint, out: &mut impl Write) -> io::Result<()> {
    if r.problems.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    let shown = r.problems.len().min(SHOWN);
    for p in &r.problems[..shown] {
        let severity = match p.severity {
            Severity::Error => paint.red("error"),
            Severity::Warning => paint.yellow("warning"),
            Severity::Info => paint.dim("info"),
        };
        let at = p.line.map(|l| format!(" (line {l})")).unwrap_or_default();
        writeln!(
            out,
            "{severity} {}{at}: {}",
            paint.bold(p.code),
            escape(&p.message)
        )?;
        writeln!(out, "  next: {}", escape(&p.next))?;
    }
    if let Some(line) = more(r.problems.len() as u64, SHOWN) {
        writeln!(out, "{line} (replay --report --json lists them all)")?;
    }
    Ok(())
}

fn identity(r: &Report<'_>) -> Vec<Row> {
    let (file, id) = if r.claude.is_some() {
        ("session", "session id")
    } else {
        ("rollout", "thread")
    };
    let mut rows = vec![
        Row::new(file, escape(r.file)),
        Row::new(id, escape(r.thread_id.unwrap_or("-"))),
    ];
    if let Some(cwd) = r.cwd {
        rows.push(Row::new("working dir", escape(cwd)));
    }
    if let Some(started) = r.started {
        rows.push(Row::new("started", escape(started)));
    }
    rows.push(Row::new("dialect", r.dialect));
    rows
}

fn loading(report: &Report<'_>, paint: Paint, none: &str) -> Vec<Row> {
    let r = &report.loading;
    let records = plural(r.records, "record", "records");
    let lines = format!(
        "{} ({} {records}, {} blank)",
        r.lines, r.records, r.blank_lines
    );
    let errors = if r.parse_errors == 0 {
        none.to_string()
    } else {
        paint.red(&r.parse_errors.to_string())
    };
    let mut listed: Vec<String> = r
        .errors
        .0
        .iter()
        .take(SHOWN)
        .map(|e| format!("line {:<8} {}", e.line, escape(&e.reason.to_string())))
        .collect();
    listed.extend(more(r.parse_errors, SHOWN));
    let mut rows = Vec::new();
    if let Some(size) = r.size {
        let bytes = plural(size, "byte", "bytes");
        let input = match &r.sha256 {
            Some(sha256) => format!("{size} {bytes}, sha256 {sha256}"),
            None => format!("{size} {bytes}"),
        };
        rows.push(Row::new("input", input));
    }
    rows.push(Row::new("lines", lines));
    rows.push(Row::new("parse errors", errors).under(listed));
    if r.torn_tail {
        let last = r.error_lines.0.error_runs.last().map_or(0, |&(_, end)| end);
        rows.push(Row::new(
            "torn tail",
            paint.yellow(&format!("line {last} was cut off mid-write")),
        ));
    }
    rows.push(Row::new(
        "unknown records",
        tally(r.unknown_records, r.unknown_record_kinds, none),
    ));
    if let Some(c) = &report.codex_records {
        rows.push(Row::new(
            "unknown events",
            tally(c.unknown_events, c.unknown_event_types, none),
        ));
        if c.session_metas > 1 {
            let metas = format!("{} (the first one names the thread)", c.session_metas);
            rows.push(Row::new("session metas", metas));
        }
        if c.no_session_meta {
            rows.push(Row::new(
                "session meta",
                paint.red("none: Codex cannot resume this file (no session_meta record)"),
            ));
        }
        if !c.findings.is_empty() {
            let listed = c
                .findings
                .iter()
                .take(SHOWN)
                .map(|f| match f.line {
                    Some(line) => format!("line {line:<8} {}", escape(&f.message)),
                    None => escape(&f.message).into_owned(),
                })
                .chain(more(c.findings.len() as u64, SHOWN))
                .collect();
            rows.push(Row::new("findings", paint.red(&c.findings.len().to_string())).under(listed));
        }
        if c.files_read.len() > 1 {
            let files = c
                .files_read
                .iter()
                .map(|f| escape(f).into_owned())
                .collect();
            let value = format!("{} files, parent rollouts first", c.files_read.len());
            rows.push(Row::new("lineage", value).under(files));
        }
        if !c.superseded_files.is_empty() {
            let files = c
                .superseded_files
                .iter()
                .map(|f| escape(f).into_owned())
                .collect();
            let n = c.superseded_files.len();
            let value = format!(
                "{n} other {} of this thread",
                plural(n as u64, "file", "files")
            );
            rows.push(Row::new("superseded", value).under(files));
        }
    }
    rows
}

fn resume_state(r: &Report<'_>, paint: Paint, none: &str) -> Vec<Row> {
    let items = r.history_items;
    let incomplete = match &r.incomplete_turn {
        Some(turn) => paint.yellow(&turn_text(turn)),
        None => none.to_string(),
    };
    let mut rows = vec![
        Row::new(
            "history",
            format!("{items} {}", plural(items, "item", "items")),
        ),
        Row::new("incomplete turn", incomplete),
    ];
    if let Some(why) = &r.not_resumable {
        rows.insert(
            0,
            Row::new("resumable", paint.red(&format!("no: {}", escape(why)))),
        );
    }
    if let Some(t) = &r.codex_turns {
        let abandoned = if t.abandoned_turns.is_empty() {
            none.to_string()
        } else {
            t.abandoned_turns.len().to_string()
        };
        let mut listed: Vec<String> = t
            .abandoned_turns
            .iter()
            .take(SHOWN)
            .map(turn_text)
            .collect();
        listed.extend(more(t.abandoned_turns.len() as u64, SHOWN));
        let turns = format!(
            "{} completed, {} aborted",
            t.completed_turns, t.aborted_turns
        );
        rows.push(Row::new("abandoned turns", abandoned).under(listed));
        if !t.rolled_back_turns.is_empty() {
            let mut listed: Vec<String> = t
                .rolled_back_turns
                .iter()
                .take(SHOWN)
                .map(|turn| {
                    let opened = turn_text(&TurnRef {
                        turn_id: turn.turn_id.clone(),
                        line: turn.line,
                    });
                    format!("{opened}, rolled back at line {}", turn.rollback_line)
                })
                .collect();
            listed.extend(more(t.rolled_back_turns.len() as u64, SHOWN));
            let count = format!("{} (rolled back while running)", t.rolled_back_turns.len());
            rows.push(Row::new("rolled back", count).under(listed));
        }
        rows.extend([
            Row::new("turns", turns),
            Row::new("compactions", t.compactions.to_string()),
            Row::new("rollbacks", t.rollbacks.to_string()),
        ]);
    }
    rows
}

fn repairs(r: &Report<'_>, paint: Paint, none: &str) -> Vec<Row> {
    let repairs = &r.repairs;
    let missing = repairs.missing_outputs.len() as u64;
    let orphans = repairs.orphan_outputs.len() as u64;
    let (what, id) = if r.claude.is_some() {
        ("tool_result", "tool_use_id")
    } else {
        ("output", "call_id")
    };
    let mut said = vec![
        format!(
            "{missing} synthetic {what}{}",
            if missing == 1 { "" } else { "s" }
        ),
        format!(
            "{orphans} orphan {what}{} removed",
            if orphans == 1 { "" } else { "s" }
        ),
    ];
    let mut changed = missing + orphans;
    if let Some(m) = &repairs.media {
        let (images, audio) = (m.images_replaced, m.audio_replaced);
        changed += images + audio;
        said.push(format!(
            "{images} {} and {audio} audio {} replaced",
            plural(images, "image", "images"),
            plural(audio, "part", "parts"),
        ));
    }
    let view = if changed == 0 {
        none.to_string()
    } else {
        paint.yellow(&said.join(", "))
    };
    let mut ids = Vec::new();
    for (label, list) in [
        ("missing output", &repairs.missing_outputs),
        ("orphan output", &repairs.orphan_outputs),
    ] {
        for listed in list.iter().take(SHOWN) {
            ids.push(format!("{label:<15}{id} {}", escape(&listed.text())));
        }
        ids.extend(more(list.len() as u64, SHOWN));
    }
    let mut rows = vec![Row::new("prompt view", view).under(ids)];
    if let Some(m) = &repairs.media {
        let (truncated, prepared, resize) = (
            m.outputs_truncated,
            m.media_prepared,
            m.images_codex_would_resize,
        );
        let resume = if truncated + prepared + resize == 0 {
            none.to_string()
        } else {
            paint.yellow(&format!(
                "{truncated} {} truncated, {prepared} media {} prepared, {resize} {} Codex would resize",
                plural(truncated, "output", "outputs"),
                plural(prepared, "part", "parts"),
                plural(resize, "image", "images"),
            ))
        };
        rows.push(Row::new("resume prep", resume));
        let dropped = m.dropped_items.len() as u64;
        if dropped > 0 {
            let listed = m
                .dropped_items
                .iter()
                .take(SHOWN)
                .map(|d| format!("line {:<9} {}", d.line, escape(&d.kind)));
            let mut under: Vec<String> = listed.collect();
            under.extend(more(dropped, SHOWN));
            let said = format!(
                "{dropped} {} of a type Codex does not send",
                plural(dropped, "item", "items")
            );
            rows.push(Row::new("dropped items", paint.yellow(&said)).under(under));
        }
    }
    rows
}

/// What the chain of a Claude Code session is made of.
fn chain(r: &Report<'_>, paint: Paint, none: &str) -> Vec<Row> {
    let Some(c) = &r.claude else {
        return Vec::new();
    };
    let leaf_text = |l: &LeafRef| {
        format!(
            "{} (line {}, {}, {} {} back)",
            escape(&l.uuid),
            l.line,
            l.timestamp.as_deref().unwrap_or("no time"),
            l.chain_length,
            plural(l.chain_length, "entry", "entries")
        )
    };
    let mut rows = vec![Row::new(
        "leaf",
        c.leaf.as_ref().map_or_else(|| none.to_string(), leaf_text),
    )];
    let others = if c.other_leaves.is_empty() {
        none.to_string()
    } else {
        paint.yellow(&format!(
            "{} (branches resume does not take)",
            c.other_leaves.len()
        ))
    };
    let mut listed: Vec<String> = c.other_leaves.iter().take(SHOWN).map(leaf_text).collect();
    listed.extend(more(c.other_leaves.len() as u64, SHOWN));
    rows.push(Row::new("other leaves", others).under(listed));
    for (label, breaks, what) in [
        (
            "dangling parents",
            &c.dangling_parents,
            "names a missing parent",
        ),
        ("cycles", &c.cycles, "names a parent already on the chain"),
    ] {
        let value = if breaks.is_empty() {
            none.to_string()
        } else {
            paint.red(&breaks.len().to_string())
        };
        let listed = breaks
            .iter()
            .take(SHOWN)
            .map(|b| {
                format!(
                    "line {:<8} {} {what} {}",
                    b.line,
                    escape(&b.uuid),
                    escape(&b.parent)
                )
            })
            .collect();
        rows.push(Row::new(label, value).under(listed));
    }
    if let Some(fork) = &c.fork {
        let value = match fork.missing {
            None => format!(
                "a forked subagent: {} {} inherited from session {}",
                fork.inherited_entries,
                plural(fork.inherited_entries, "entry", "entries"),
                escape(&fork.parent_session)
            ),
            Some(_) => paint.red(&format!(
                "a forked subagent whose parent session {} (entry {}) is missing: its own \
                 entries alone",
                escape(&fork.parent_session),
                escape(&fork.parent_last_uuid)
            )),
        };
        let files = c
            .files_read
            .iter()
            .map(|f| escape(f).into_owned())
            .collect();
        rows.push(Row::new("lineage", value).under(files));
    }
    if c.unreachable_entries > 0 {
        let listed = c
            .unreachable
            .iter()
            .map(|u| escape(u).into_owned())
            .collect();
        let value = paint.yellow(&format!(
            "{} (no leaf leads to them)",
            c.unreachable_entries
        ));
        rows.push(Row::new("unreachable", value).under(listed));
    }
    let duplicates = if c.duplicate_uuids == 0 {
        none.to_string()
    } else {
        format!("{} (the first copy of each wins)", c.duplicate_uuids)
    };
    rows.extend([
        Row::new("compactions", c.compactions.to_string()),
        Row::new("duplicate uuids", duplicates),
        Row::new(
            "sidechain",
            if c.subagent {
                "a subagent's transcript: read whole".to_string()
            } else {
                format!("{} entries left out", c.sidechain_entries)
            },
        ),
    ]);
    rows
}

/// `… and N more`, when a list was cut at `shown`.
fn more(total: u64, shown: usize) -> Option<String> {
    match total.checked_sub(shown as u64) {
        Some(rest) if rest > 0 => Some(format!("… and {rest} more")),
        _ => None,
    }
}

fn turn_text(turn: &TurnRef<'_>) -> String {
    match &turn.turn_id {
        Some(id) => format!("{} (opened at line {})", escape(id.as_ref()), turn.line),
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
