//! Claude Code's `attachment` entries as the model sees them: the `<system-reminder>` texts
//! Claude Code 2.1.328 renders from them when it resumes (SPEC §11.3.7). An attachment that
//! renders nothing (`hook_success` of most hooks, an empty `todo_reminder`, the kinds listed
//! nowhere here) is not sent.

use std::borrow::Cow;
use std::ops::Range;

use crate::json;

/// What the client says after a queued prompt (claude.md class 3, attachments_01).
const QUEUED_TAIL: &str = "This is how Claude Code surfaces messages the user sends mid-turn — \
within the running turn, often alongside the next tool result, rather than as a separate \
conversation turn. Address the message above as you continue this turn.";

/// The head of a `deferred_tools_delta` reminder (real_subagents_parallel_attachments_2_1_114).
const DEFERRED_HEAD: &str = "The following deferred tools are now available via ToolSearch. \
Their schemas are NOT loaded — calling them directly will fail with InputValidationError. Use \
ToolSearch with query \"select:<name>[,<name>...]\" to load tool schemas before calling them:";

/// The head of a `task_reminder` (real_subagents_parallel_attachments_2_1_114).
const TASK_HEAD: &str = "The task tools haven't been used recently. If you're working on tasks \
that would benefit from tracking progress, consider using TaskCreate to add new tasks and \
TaskUpdate to update task status (set to in_progress when starting, completed when done). Also \
consider cleaning up the task list if it has become stale. Only use these if relevant to the \
current work. This is just a gentle reminder - ignore if not applicable.";

/// The kinds of attachment that can render a reminder, and the hook events whose
/// `hook_success` does: [`render`] renders nothing of any other.
const RENDERED: [&str; 7] = [
    "hook_additional_context",
    "hook_success",
    "queued_command",
    "date_change",
    "deferred_tools_delta",
    "skill_listing",
    "task_reminder",
];
const SUCCESS_EVENTS: [&str; 2] = ["SessionStart", "UserPromptSubmit"];

/// Whether an attachment of `kind` can render a reminder; `success_event` tells, for a
/// `hook_success` only, whether its hook event is one that does.
fn renders(kind: &str, success_event: impl FnOnce() -> bool) -> bool {
    match kind {
        "hook_success" => success_event(),
        kind => RENDERED.contains(&kind),
    }
}

/// Walks the attachment value the parser is at, and gives the reminder it renders, if any. The
/// classifier renders it while the line is at hand, so that the view reads no
/// attachment again (read again one by one, they were half of drafting a large transcript's
/// view).
pub(crate) fn read(p: &mut json::Parser<'_>) -> json::Result<Option<String>> {
    if p.peek() != Some(b'{') {
        p.value()?;
        return Ok(None);
    }
    let text = p.text();
    let mut m = Members::default();
    p.object(|p, key| {
        let slot = match &*key.name() {
            "type" => &mut m.kind,
            "hookEvent" => &mut m.event,
            "content" => &mut m.content,
            "prompt" => &mut m.prompt,
            "newDate" => &mut m.new_date,
            "addedNames" => &mut m.added_names,
            _ => return Ok(false),
        };
        *slot = Some(p.value()?);
        Ok(true)
    })?;
    Ok(render(text, &m))
}

/// The members of an attachment that its reminder can show (of a member given twice, the last,
/// as `JSON.parse` keeps it): value ranges of its text.
#[derive(Default)]
struct Members {
    kind: Option<Range<usize>>,
    event: Option<Range<usize>>,
    content: Option<Range<usize>>,
    prompt: Option<Range<usize>>,
    new_date: Option<Range<usize>>,
    added_names: Option<Range<usize>>,
}

/// The value ranges of the elements of the array at `range` of `text` (none if it is no array).
fn elements(text: &str, range: &Option<Range<usize>>) -> Vec<Range<usize>> {
    let elements = range.as_ref().and_then(|r| json::elements(text, r.start));
    elements.unwrap_or_default()
}

/// The strings among the elements of the array at `range` of `text`, decoded; any other
/// element is passed over.
fn strings<'t>(text: &'t str, range: &Option<Range<usize>>) -> Vec<Cow<'t, str>> {
    let elements = elements(text, range).into_iter();
    elements
        .filter_map(|e| json::string_at(text, &Some(e)))
        .collect()
}

/// The reminder the attachment whose members are `m` renders, if any. Its members are read
/// where they are in `text`: most attachments render nothing (a `hook_success` after each tool
/// call), and the others are large (a skill listing, a task list), where building a `Value` of
/// each was a fifth of drafting a Claude Code view.
fn render(text: &str, m: &Members) -> Option<String> {
    let string = |r: &Option<Range<usize>>| json::string_at(text, r);
    let kind = string(&m.kind).unwrap_or_default();
    let event = string(&m.event).unwrap_or_default();
    if !renders(&kind, || SUCCESS_EVENTS.contains(&&*event)) {
        return None;
    }
    let wrap = |body: String| Some(format!("<system-reminder>\n{body}\n</system-reminder>"));
    let joined = |parts: Vec<Cow<'_, str>>| parts.join("\n");
    match &*kind {
        "hook_additional_context" => {
            let lines = match string(&m.content) {
                Some(text) => vec![text],
                None => strings(text, &m.content),
            };
            if lines.is_empty() {
                return None;
            }
            wrap(format!(
                "{event} hook additional context: {}",
                joined(lines)
            ))
        }
        "hook_success" => match string(&m.content) {
            Some(content) if !content.is_empty() => {
                wrap(format!("{event} hook success: {content}"))
            }
            _ => None,
        },
        "queued_command" => match string(&m.prompt) {
            Some(prompt) => wrap(format!(
                "The user sent a new message while you were working:\n{prompt}\n\n{QUEUED_TAIL}"
            )),
            None => None,
        },
        "date_change" => match string(&m.new_date) {
            Some(date) => wrap(format!(
                "The date has changed. Today's date is now {date}. No need to announce the new \
                 date — the user's own clock shows it."
            )),
            None => None,
        },
        "deferred_tools_delta" => {
            let names = strings(text, &m.added_names);
            if names.is_empty() {
                return None;
            }
            wrap(format!("{DEFERRED_HEAD}\n{}", joined(names)))
        }
        "skill_listing" => match string(&m.content) {
            Some(content) if !content.is_empty() => wrap(format!(
                "The following skills are available for use with the Skill tool:\n\n{content}"
            )),
            _ => None,
        },
        "task_reminder" => {
            let tasks: Vec<String> = elements(text, &m.content)
                .into_iter()
                .map(|t| {
                    let f = |name| {
                        let value = json::member(text, t.start, name);
                        string(&value).unwrap_or_default()
                    };
                    format!("#{}. [{}] {}", f("id"), f("status"), f("subject"))
                })
                .collect();
            // With no task the client was not seen to say anything (as for todo_reminder).
            if tasks.is_empty() {
                return None;
            }
            wrap(format!(
                "{TASK_HEAD}\n\n\nHere are the existing tasks:\n\n{}",
                tasks.join("\n")
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reminders of an entry whose `attachment` member is `attachment`.
    fn render(attachment: &str) -> Vec<String> {
        let text = format!(r#"{{"type":"attachment","attachment":{attachment}}}"#);
        let at = json::member(&text, 0, "attachment").unwrap();
        let mut p = json::Parser::new(&text);
        p.seek(at.start);
        let reminder = read(&mut p).unwrap();
        assert_eq!(p.pos(), at.end);
        reminder.into_iter().collect()
    }

    fn reminder(body: &str) -> Vec<String> {
        vec![format!("<system-reminder>\n{body}\n</system-reminder>")]
    }

    /// Every member a reminder can show, given; of the kinds that take a string `content`,
    /// only those given an array render nothing.
    #[test]
    fn each_kind_renders_its_own_members() {
        let members = r#""hookEvent":"SessionStart","content":["c"],"prompt":"p","newDate":"2026-12-02","addedNames":["Tool"]"#;
        let of = |kind: &str| render(&format!(r#"{{"type":"{kind}",{members}}}"#));
        assert_eq!(
            of("hook_additional_context"),
            reminder("SessionStart hook additional context: c")
        );
        assert!(of("hook_success").is_empty());
        assert!(of("skill_listing").is_empty());
        assert_eq!(
            of("queued_command"),
            reminder(&format!(
                "The user sent a new message while you were working:\np\n\n{QUEUED_TAIL}"
            ))
        );
        assert_eq!(
            of("date_change"),
            reminder(
                "The date has changed. Today's date is now 2026-12-02. No need to announce the \
                 new date — the user's own clock shows it."
            )
        );
        assert_eq!(
            of("deferred_tools_delta"),
            reminder(&format!("{DEFERRED_HEAD}\nTool"))
        );
        // A task that is no object has no id, status or subject.
        assert_eq!(
            of("task_reminder"),
            reminder(&format!(
                "{TASK_HEAD}\n\n\nHere are the existing tasks:\n\n#. [] "
            ))
        );
        for kind in ["todo_reminder", "plan_mode", "nested_memory"] {
            assert!(of(kind).is_empty(), "{kind}");
        }
        let success = |event: &str| {
            render(&format!(
                r#"{{"type":"hook_success","hookEvent":"{event}","content":"c"}}"#
            ))
        };
        assert_eq!(
            success("SessionStart"),
            reminder("SessionStart hook success: c")
        );
        assert_eq!(
            success("UserPromptSubmit"),
            reminder("UserPromptSubmit hook success: c")
        );
        assert!(success("PostToolUse").is_empty());
        assert!(success("Stop").is_empty());
        let listing = render(r#"{"type":"skill_listing","content":"- review"}"#);
        assert_eq!(
            listing,
            reminder("The following skills are available for use with the Skill tool:\n\n- review")
        );
    }

    /// Members are read as `JSON.parse` reads them: keys decoded, the last of a member given
    /// twice, strings decoded, array elements that are no strings passed over.
    #[test]
    fn members_are_read_as_json_reads_them() {
        let twice = r#"{ "t\u0079pe" : "hook_success", "hookEvent":"SessionStart",
            "content":"first", "content":"a\nb \u00e9" }"#;
        assert_eq!(render(twice), reminder("SessionStart hook success: a\nb é"));
        let mixed = r#"{"type":"hook_additional_context","hookEvent":"UserPromptSubmit",
            "content":[1,"x",null,{"y":"z"},"w"]}"#;
        assert_eq!(
            render(mixed),
            reminder("UserPromptSubmit hook additional context: x\nw")
        );
        assert!(render(r#""hook_success""#).is_empty());
        assert!(render(r#"{"type":"deferred_tools_delta","addedNames":"Tool"}"#).is_empty());
    }

    #[test]
    fn hooks_render_as_the_client_renders_them() {
        let context = r#"{"type": "hook_additional_context",
            "content": ["extra context 0"], "hookEvent": "UserPromptSubmit"}"#;
        assert_eq!(
            render(context),
            [
                "<system-reminder>\nUserPromptSubmit hook additional context: extra context 0\n</system-reminder>"
            ]
        );
        let quiet = r#"{"type": "hook_success", "hookEvent": "PostToolUse",
            "content": "Status set to busy"}"#;
        assert!(render(quiet).is_empty());
        let empty = r#"{"type": "todo_reminder", "content": [], "itemCount": 0}"#;
        assert!(render(empty).is_empty());
        let tasks = r#"{"type": "task_reminder", "content": [
            {"id": "1", "subject": "Plan", "status": "completed"}]}"#;
        assert_eq!(
            render(tasks),
            [format!(
                "<system-reminder>\n{TASK_HEAD}\n\n\nHere are the existing tasks:\n\n\
                 #1. [completed] Plan\n</system-reminder>"
            )]
        );
    }
}
