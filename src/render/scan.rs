//! The scan's rows: an aligned table with a summary line for people, or one JSON object per
//! rollout (JSONL) for jq and DuckDB. Text from logs and paths is shown terminal-safe.

use std::io::{self, Write};

use serde::Serialize;
use unicode_width::UnicodeWidthStr;

use super::Paint;
use super::report::TerminalSafe;
use crate::escape::escape;
use crate::scan::{Health, Row};
use crate::session::Agent;
use crate::text::plural;

/// One line of `scan --json`; its fields are the schema in docs/scan.md.
#[derive(Serialize)]
struct JsonRow<'a> {
    path: String,
    agent: &'static str,
    /// For a subagent's transcript: the session it belongs to (`""` when its place does not say).
    subagent_of: Option<&'a str>,
    archived: bool,
    size: u64,
    thread_id: Option<&'a str>,
    cwd: Option<&'a str>,
    started: Option<&'a str>,
    status: &'static str,
    error: Option<&'a str>,
    parse_errors: u64,
    incomplete: bool,
    incomplete_turn_id: Option<&'a str>,
    missing_outputs: usize,
    orphan_outputs: usize,
    no_session_meta: bool,
    ordinal_faults: usize,
    broken_lineage: bool,
    /// Whether the Codex state database lacks a row for it; null without a database.
    unindexed: Option<bool>,
    /// The row is the state database's, and names a rollout file that is not there.
    missing_file: bool,
    /// The codes of its problems (docs/codes.md): the report's, and scan's own (`unusable`,
    /// `missing-file`, `unindexed`).
    codes: Vec<&'static str>,
}

pub fn jsonl<'a>(rows: impl Iterator<Item = &'a Row>, out: &mut impl Write) -> io::Result<()> {
    for row in rows {
        let found = row.outcome.as_ref().ok();
        let json = JsonRow {
            path: row.found.path.display().to_string(),
            agent: row.found.agent.name(),
            subagent_of: row
                .found
                .subagent_of
                .as_ref()
                .map(|s| s.as_deref().unwrap_or("")),
            archived: row.found.archived,
            size: row.found.size,
            thread_id: found
                .and_then(|f| f.thread_id.as_deref())
                .or(row.missing_file.as_deref()),
            cwd: found.and_then(|f| f.cwd.as_deref()),
            started: found.and_then(|f| f.started.as_deref()),
            status: row.status(),
            error: row.outcome.as_ref().err().map(String::as_str),
            parse_errors: found.map_or(0, |f| f.parse_errors),
            incomplete: found.is_some_and(|f| f.incomplete),
            incomplete_turn_id: found.and_then(|f| f.incomplete_turn_id.as_deref()),
            missing_outputs: found.map_or(0, |f| f.missing_outputs),
            orphan_outputs: found.map_or(0, |f| f.orphan_outputs),
            no_session_meta: found.is_some_and(|f| f.no_session_meta),
            ordinal_faults: found.map_or(0, |f| f.ordinal_faults),
            broken_lineage: found.is_some_and(|f| f.broken_lineage),
            unindexed: row.unindexed,
            missing_file: row.missing_file.is_some(),
            codes: {
                let mut codes = found.map(|f| f.codes.clone()).unwrap_or_default();
                if row.missing_file.is_some() {
                    codes.push("missing-file");
                } else if row.outcome.is_err() {
                    codes.push("unusable");
                }
                if row.unindexed == Some(true) {
                    codes.push("unindexed");
                }
                codes
            },
        };
        json.serialize(&mut serde_json::Serializer::with_formatter(
            &mut *out,
            TerminalSafe,
        ))?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

const COLUMNS: usize = 10;
const HEADER: [&str; COLUMNS] = [
    "DATE",
    "AGENT",
    "THREAD",
    "WORKING DIR",
    "SIZE",
    "PARSE ERRORS",
    "INCOMPLETE",
    "MISSING",
    "ORPHANS",
    "STATUS",
];
/// Numbers are right-aligned.
const RIGHT: [bool; COLUMNS] = [
    false, false, false, false, true, true, false, true, true, false,
];

/// The table of `shown` rows, why those whose status needs a word have it, then a summary of
/// `all`.
pub fn table<'a>(
    shown: impl Iterator<Item = &'a Row>,
    all: &[Row],
    paint: Paint,
    out: &mut impl Write,
) -> io::Result<()> {
    let shown: Vec<&Row> = shown.collect();
    let cells: Vec<[String; COLUMNS]> = shown.iter().map(|row| cells(row)).collect();
    if !cells.is_empty() {
        let mut widths = HEADER.map(UnicodeWidthStr::width);
        for line in &cells {
            for (width, cell) in widths.iter_mut().zip(line) {
                *width = (*width).max(cell.width());
            }
        }
        write_line(out, &HEADER.map(String::from), &widths, |_, text| {
            paint.bold(text)
        })?;
        for (row, line) in shown.iter().zip(&cells) {
            write_line(out, line, &widths, |column, text| {
                if column + 1 < COLUMNS {
                    return text.to_string();
                }
                match row.health() {
                    Health::Ok => paint.green(text),
                    Health::Repairs | Health::Incomplete | Health::Unindexed | Health::NoMeta => {
                        paint.yellow(text)
                    }
                    Health::Damaged
                    | Health::OrdinalFault
                    | Health::BrokenLineage
                    | Health::MissingFile
                    | Health::Unusable => paint.red(text),
                }
            })?;
        }
    }
    for row in &shown {
        if let Some(reason) = row.reason() {
            writeln!(
                out,
                "{}: {}: {}",
                row.status(),
                escape(&row.found.path.display().to_string()),
                escape(&reason)
            )?;
        }
    }

    let archived = all.iter().filter(|row| row.found.archived).count();
    // Each status in each agent's words: "1 broken-lineage" (Codex), "1 broken-chain" (Claude).
    let counts: Vec<String> = Health::ALL
        .iter()
        .flat_map(|&health| {
            let names = [Agent::Codex, Agent::Claude].map(|a| health.name_for(a));
            let distinct = if names[0] == names[1] { 1 } else { 2 };
            names
                .into_iter()
                .take(distinct)
                .map(move |name| (health, name))
        })
        .map(|(health, name)| {
            let n = all
                .iter()
                .filter(|row| row.health() == health && row.status() == name)
                .count();
            (health, name, n)
        })
        .filter(|&(health, _, n)| n > 0 || matches!(health, Health::Ok))
        .map(|(_, name, n)| format!("{n} {name}"))
        .collect();
    let sessions = all.iter().filter(|r| r.found.subagent_of.is_none()).count();
    let subagents = all.len() - sessions;
    let subagents = if subagents == 0 {
        String::new()
    } else {
        format!(
            " and {subagents} subagent {}",
            plural(subagents as u64, "transcript", "transcripts")
        )
    };
    writeln!(
        out,
        "{sessions} {}{subagents} ({archived} archived): {}",
        plural(sessions as u64, "session", "sessions"),
        counts.join(", ")
    )
}

fn cells(row: &Row) -> [String; COLUMNS] {
    let found = &row.found;
    let date = found.stamp.map_or_else(|| "-".into(), |s| s.to_string());
    let size = human_size(found.size);
    let status = row.status().to_string();
    let agent = found.agent.name().to_string();
    let indent = |id: String| {
        if found.subagent_of.is_some() {
            format!("↳ {id}")
        } else {
            id
        }
    };
    let none = || "-".to_string();
    match &row.outcome {
        Ok(f) => [
            date,
            agent,
            indent(
                f.thread_id
                    .as_deref()
                    .map_or_else(none, |t| escape(t).into_owned()),
            ),
            f.cwd
                .as_deref()
                .map_or_else(none, |cwd| escape(cwd).into_owned()),
            size,
            f.parse_errors.to_string(),
            (if f.incomplete { "yes" } else { "no" }).into(),
            f.missing_outputs.to_string(),
            f.orphan_outputs.to_string(),
            status,
        ],
        Err(_) => [
            date,
            agent,
            row.missing_file
                .as_deref()
                .map_or_else(none, |t| escape(t).into_owned()),
            none(),
            size,
            none(),
            none(),
            none(),
            none(),
            status,
        ],
    }
}

/// Writes cells padded to `widths`, two spaces apart, without trailing spaces; `paint` colours
/// a cell's text (the padding is measured on the plain text).
fn write_line(
    out: &mut impl Write,
    cells: &[String; COLUMNS],
    widths: &[usize; COLUMNS],
    paint: impl Fn(usize, &str) -> String,
) -> io::Result<()> {
    let mut line = String::new();
    for (column, cell) in cells.iter().enumerate() {
        if column > 0 {
            line.push_str("  ");
        }
        let pad = " ".repeat(widths[column].saturating_sub(cell.width()));
        let text = paint(column, cell);
        if RIGHT[column] {
            line.push_str(&pad);
            line.push_str(&text);
        } else {
            line.push_str(&text);
            if column + 1 < COLUMNS {
                line.push_str(&pad);
            }
        }
    }
    writeln!(out, "{line}")
}

/// `812 B`, `3.1 KiB`, `12.0 MiB`.
fn human_size(bytes: u64) -> String {
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    for unit in ["KiB", "MiB", "GiB"] {
        // Below 1023.95 so that one decimal never shows `1024.0`.
        if value < 1023.95 {
            return format!("{value:.1} {unit}");
        }
        value /= 1024.0;
    }
    format!("{value:.1} TiB")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_for_people() {
        let sizes: Vec<String> = [0, 812, 1024, 3174, 1_048_575, 12 << 20, 5 << 40]
            .into_iter()
            .map(human_size)
            .collect();
        assert_eq!(
            sizes,
            [
                "0 B", "812 B", "1.0 KiB", "3.1 KiB", "1.0 MiB", "12.0 MiB", "5.0 TiB"
            ]
        );
    }
}
