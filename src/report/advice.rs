//! Findings a user can act on: every problem the report knows, with a stable code, how serious
//! it is, and the next step, in the words of the agent that wrote the session. docs/codes.md lists
//! every code; a test holds the two together.

use serde::Serialize;

use crate::report::Report;
use crate::text::plural;

/// How much a problem matters for resuming.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Severity {
    /// The agent cannot resume the session, or resumes it without part of its history.
    Error,
    /// The agent resumes it, but not as the log reads.
    Warning,
    /// Worth knowing; nothing to do.
    Info,
}

/// One problem: what it is, where, and what to do now.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Problem {
    pub code: &'static str,
    pub severity: Severity,
    pub line: Option<u64>,
    pub message: String,
    pub next: String,
}

/// Every code rollcall can report, with what it means: the list docs/codes.md must hold.
pub(crate) const CODES: &[&str] = &[
    "not-resumable",
    "parse-errors",
    "torn-tail",
    "unknown-records",
    "incomplete-turn",
    "missing-output",
    "orphan-output",
    "invalid-tool-arguments",
    "tool-name-control-characters",
    "no-session-meta",
    "pre-envelope",
    "missing-parent",
    "lineage-cycle",
    "unreadable-history-base",
    "duplicate-ordinal",
    "regressed-ordinal",
    "final-without-ordinal",
    "oversize-record",
    "abandoned-turns",
    "rolled-back-running-turn",
    "superseded-files",
    "unknown-events",
    "dangling-parent",
    "dangling-first-parent",
    "unreachable-entries",
    "missing-fork-parent",
    "missing-fork-entry",
    "parent-cycle",
    "other-branches",
    "duplicate-uuids",
    // Scan's own, about a file rather than what is in it.
    "unusable",
    "missing-file",
    "unindexed",
];

/// The problems of `report`, most serious first within each kind, in a stable order.
pub(crate) fn problems(report: &Report<'_>) -> Vec<Problem> {
    let codex = report.dialect != "claude";
    let repair = format!("rollcall repair {}", shell_word(report.file));
    let resume = match (codex, report.thread_id) {
        (true, Some(id)) => format!("codex resume {id}"),
        (false, Some(id)) => format!("claude --resume {id}"),
        (true, None) => "codex resume".to_owned(),
        (false, None) => "claude --resume".to_owned(),
    };
    let mut out = Vec::new();
    let mut add = |code: &'static str, severity, line, message: String, next: String| {
        debug_assert!(CODES.contains(&code), "{code} is not in CODES");
        out.push(Problem {
            code,
            severity,
            line,
            message,
            next,
        })
    };
    if let Some(why) = &report.not_resumable {
        let next = if report
            .codex_records
            .as_ref()
            .is_some_and(|c| c.no_session_meta)
            || report.dialect == "codex-2025"
        {
            format!(
                "nothing can resume this file as it is: read it with `rollcall repair-view \
                 --format text {}` and start a new session with what you need",
                shell_word(report.file)
            )
        } else if let Some(remote) = report
            .claude
            .as_ref()
            .and_then(|c| c.teleported_from.as_deref())
            .filter(|_| report.history_items == 0)
        {
            format!(
                "nothing here to repair: `claude --teleport {remote}` fetches the conversation \
                 from Claude Code on the web (it needs the network and your account)"
            )
        } else {
            format!("`{repair}` writes a copy the agent resumes; run the command it prints")
        };
        add("not-resumable", Severity::Error, None, why.clone(), next);
    }
    let l = &report.loading;
    if l.parse_errors > 0 {
        add(
            "parse-errors",
            Severity::Warning,
            first_error_line(report),
            format!(
                "{} malformed {} skipped",
                l.parse_errors,
                plural(l.parse_errors, "line", "lines")
            ),
            format!(
                "the agent skips them too; `rollcall replay --report --json {}` lists each \
                 with its reason, and `{repair}` writes a copy without them",
                shell_word(report.file)
            ),
        );
    }
    if l.torn_tail {
        add(
            "torn-tail",
            Severity::Warning,
            Some(l.lines),
            "the last line was cut mid-write: the writer died while writing it".into(),
            "what it held is lost; check what the agent was doing at the end before you \
             continue"
                .into(),
        );
    }
    if l.unknown_records > 0 {
        add(
            "unknown-records",
            Severity::Info,
            None,
            format!(
                "{} {} of kinds rollcall does not know (a newer agent?)",
                l.unknown_records,
                plural(l.unknown_records, "record", "records")
            ),
            "nothing to do: they are skipped; a newer rollcall may know them".into(),
        );
    }
    if let Some(turn) = &report.incomplete_turn {
        let calls = report.repairs.missing_outputs.len();
        let message = if calls > 0 {
            format!(
                "the turn was still open at the end: {calls} {} no recorded {}",
                plural(calls as u64, "call has", "calls have"),
                if codex { "output" } else { "result" }
            )
        } else {
            "the turn was still open at the end: the agent stopped mid-turn".into()
        };
        add(
            "incomplete-turn",
            Severity::Warning,
            Some(turn.line),
            message,
            format!(
                "check whether the last tool calls ran (their effects on disk) before you \
                 continue; then `{resume}`, or `{repair}` for a copy that says so"
            ),
        );
    }
    for id in &report.repairs.missing_outputs {
        let (kind, sent) = if codex {
            ("output", "Codex sends \"aborted\" as its output")
        } else {
            ("result", "Claude Code sends an error result for it")
        };
        add(
            "missing-output",
            Severity::Warning,
            None,
            format!("call {} has no recorded {kind}: {sent}", id.text()),
            "check whether the call ran before relying on it, or running it again".into(),
        );
    }
    for id in &report.repairs.orphan_outputs {
        add(
            "orphan-output",
            Severity::Info,
            None,
            format!(
                "an output for call {} whose call is not in the history: it is left out",
                id.text()
            ),
            "nothing to do: the agent leaves it out too".into(),
        );
    }
    for t in &report.tool_call_faults {
        let here = t.file == report.file;
        let line = here.then_some(t.line);
        let place = if here {
            String::new()
        } else {
            format!(" (line {} of the parent rollout {})", t.line, t.file)
        };
        let tool = if t.tool.is_empty() {
            "(no name)"
        } else {
            &t.tool
        };
        let back = if codex {
            format!(
                "if resuming fails on it, fork the thread before that turn: in `{resume}`, press \
                 Esc twice and pick that turn's prompt or an earlier one"
            )
        } else {
            format!("if resuming fails on it, run `{resume}` and `/rewind` to a message before it")
        };
        let agent = if codex { "Codex" } else { "Claude Code" };
        if let Some(why) = &t.arguments_error {
            add(
                "invalid-tool-arguments",
                Severity::Warning,
                line,
                format!(
                    "{} {tool}: its {} {} ({why}){place}",
                    t.call,
                    t.member,
                    if t.member == "arguments" {
                        "start like JSON but do not parse"
                    } else {
                        "starts like JSON but does not parse"
                    }
                ),
                format!(
                    "{agent} sends the call again as it is, and the model API may refuse the \
                     whole request; {back}"
                ),
            );
        }
        if t.control_characters_in_name {
            add(
                "tool-name-control-characters",
                Severity::Warning,
                line,
                format!(
                    "{} {tool}: its name holds control characters{place}",
                    t.call
                ),
                format!(
                    "{agent} sends the name again as it is, and the model API may refuse the \
                     whole request; {back}"
                ),
            );
        }
    }
    if let Some(c) = &report.codex_records {
        if c.no_session_meta && report.not_resumable.is_none() {
            add(
                "no-session-meta",
                Severity::Error,
                None,
                "no session_meta record: Codex cannot tell which thread this is".into(),
                "Codex cannot resume it; read it with `rollcall repair-view --format text`".into(),
            );
        }
        for f in &c.findings {
            let (code, severity, next) = match f.kind {
                "pre_envelope" => (
                    "pre-envelope",
                    Severity::Info,
                    "current Codex cannot resume it; rollcall still reads and shows it".to_owned(),
                ),
                "missing_parent" => (
                    "missing-parent",
                    Severity::Error,
                    "the history is incomplete: restore the parent rollout into the Codex home \
                     (from a backup), or accept the part that is here with `rollcall repair`"
                        .to_owned(),
                ),
                "lineage_cycle" => (
                    "lineage-cycle",
                    Severity::Error,
                    format!("`{repair}` writes a self-contained copy of what could be read"),
                ),
                "unreadable_history_base" => (
                    "unreadable-history-base",
                    Severity::Error,
                    "the session_meta's history_base was damaged: fix its thread_id and cuts by \
                     hand, or accept the part that is here with `rollcall repair`"
                        .to_owned(),
                ),
                "duplicate_ordinal" | "regressed_ordinal" | "final_without_ordinal" => (
                    match f.kind {
                        "duplicate_ordinal" => "duplicate-ordinal",
                        "regressed_ordinal" => "regressed-ordinal",
                        _ => "final-without-ordinal",
                    },
                    Severity::Error,
                    format!(
                        "Codex refuses the file's history index; `{repair}` writes a copy \
                         without ordinals"
                    ),
                ),
                _ => (
                    "oversize-record",
                    Severity::Warning,
                    "Codex's migration drops the record; nothing to do unless it mattered"
                        .to_owned(),
                ),
            };
            add(code, severity, f.line, f.message.clone(), next);
        }
        if c.unknown_events > 0 {
            add(
                "unknown-events",
                Severity::Info,
                None,
                format!(
                    "{} events of kinds rollcall does not know",
                    c.unknown_events
                ),
                "nothing to do: events carry nothing the model sees".into(),
            );
        }
        if !c.superseded_files.is_empty() {
            add(
                "superseded-files",
                Severity::Info,
                None,
                format!(
                    "{} other {} of this thread, which `codex resume` does not take",
                    c.superseded_files.len(),
                    plural(c.superseded_files.len() as u64, "file", "files")
                ),
                "nothing to do, unless you meant one of them: the report lists them".into(),
            );
        }
    }
    if let Some(t) = &report.codex_turns
        && !t.abandoned_turns.is_empty()
    {
        add(
            "abandoned-turns",
            Severity::Info,
            t.abandoned_turns.first().map(|t| t.line),
            format!(
                "{} {} replaced by a later turn while still open",
                t.abandoned_turns.len(),
                plural(t.abandoned_turns.len() as u64, "turn was", "turns were")
            ),
            "nothing to do: Codex resumes from the later turn".into(),
        );
    }
    if let Some(t) = &report.codex_turns {
        for turn in &t.rolled_back_turns {
            let id = turn.turn_id.as_deref().unwrap_or("without id");
            add(
                "rolled-back-running-turn",
                Severity::Info,
                Some(turn.line),
                format!(
                    "turn {id} was still running when the rollback at line {} took it out \
                     (no turn_aborted was written, as Codex 0.144 did): it was rolled back, not \
                     abandoned",
                    turn.rollback_line
                ),
                "nothing to do: Codex resumes without that turn; a rollback does not undo what \
                 its tool calls changed on disk"
                    .into(),
            );
        }
    }
    if let Some(c) = &report.claude {
        for b in &c.dangling_parents {
            add(
                "dangling-parent",
                Severity::Warning,
                Some(b.line),
                format!(
                    "entry {} names a parent {} that is not in the file",
                    b.uuid, b.parent
                ),
                format!(
                    "Claude Code goes on from the entry written before it; `{repair}` writes \
                     the chain as one"
                ),
            );
        }
        if let Some(b) = &c.dangling_first_parent {
            add(
                "dangling-first-parent",
                Severity::Info,
                Some(b.line),
                format!(
                    "the first entry {} names a parent {} that is not in the file: the chain \
                     starts there",
                    b.uuid, b.parent
                ),
                "nothing of this file is lost: Claude Code starts the chain there too; the \
                 entries before it, if any, are in another file (a session this one continued)"
                    .into(),
            );
        }
        if c.unreachable_entries > 0 {
            add(
                "unreachable-entries",
                Severity::Warning,
                None,
                format!(
                    "{} {} that no branch leads to (their parents loop, with no leaf below): no \
                     resume sends {}",
                    c.unreachable_entries,
                    plural(c.unreachable_entries, "entry", "entries"),
                    plural(c.unreachable_entries, "it", "them")
                ),
                format!(
                    "the resumed chain does not change; if they mattered, read them with \
                     `rollcall replay --report --json {}` (it lists the first of them) and paste \
                     what you need into the next prompt",
                    shell_word(report.file)
                ),
            );
        }
        if let Some(fork) = &c.fork
            && let Some(missing) = fork.missing
        {
            let (code, what) = if missing == "session" {
                (
                    "missing-fork-parent",
                    format!("its parent session {} is not found", fork.parent_session),
                )
            } else {
                (
                    "missing-fork-entry",
                    format!(
                        "its parent session {} has no entry {}",
                        fork.parent_session, fork.parent_last_uuid
                    ),
                )
            };
            add(
                code,
                Severity::Error,
                None,
                format!(
                    "a forked subagent whose inherited history is missing: {what}, so Claude \
                     Code sends the fork's own entries alone"
                ),
                format!(
                    "restore {}.jsonl (from a backup) into the project folder beside this \
                     subagent's session before you message the agent again; without it the fork \
                     goes on without the conversation it was forked from",
                    fork.parent_session
                ),
            );
        }
        for b in &c.cycles {
            add(
                "parent-cycle",
                Severity::Error,
                Some(b.line),
                format!("the parents of entry {} come back to it", b.uuid),
                format!("`{repair}` writes the chain the view took as one linear chain"),
            );
        }
        if !c.other_leaves.is_empty() {
            add(
                "other-branches",
                Severity::Info,
                None,
                format!(
                    "{} other {} that resume does not take",
                    c.other_leaves.len(),
                    plural(c.other_leaves.len() as u64, "branch", "branches")
                ),
                "if the resume lost recent work, it is on another branch: the report lists \
                 each with its time"
                    .into(),
            );
        }
        if c.duplicate_uuids > 0 {
            add(
                "duplicate-uuids",
                Severity::Info,
                None,
                format!(
                    "{} {} written twice",
                    c.duplicate_uuids,
                    plural(c.duplicate_uuids, "entry id", "entry ids")
                ),
                "nothing to do: Claude Code takes the later copy".into(),
            );
        }
    }
    out
}

fn first_error_line(report: &Report<'_>) -> Option<u64> {
    report.loading.error_lines.0.error_lines().next()
}

/// `path` as one word for a shell: quoted when it holds anything but plain path characters.
fn shell_word(path: &str) -> String {
    let plain = path
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%".contains(&b));
    if plain && !path.is_empty() {
        path.to_owned()
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_quoted_for_the_shell_only_when_they_need_it() {
        assert_eq!(shell_word("/a/b.jsonl"), "/a/b.jsonl");
        assert_eq!(shell_word("/a b/it's"), r"'/a b/it'\''s'");
    }

    #[test]
    fn docs_list_every_code_and_no_other() {
        let docs = include_str!("../../docs/codes.md");
        let listed: Vec<&str> = docs
            .lines()
            .filter_map(|line| line.strip_prefix("| `"))
            .filter_map(|rest| rest.split_once('`').map(|(code, _)| code))
            .collect();
        assert_eq!(listed, CODES, "docs/codes.md and CODES differ");
    }

    #[test]
    fn codes_are_kebab_case_and_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for code in CODES {
            assert!(
                code.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{code}"
            );
            assert!(seen.insert(code), "{code} twice");
        }
    }
}
