//! Claude Code's `attachment` entries as the model sees them: the `<system-reminder>` texts
//! Claude Code 2.1.328 renders from them when it resumes (SPEC §11.3.7). An attachment that
//! renders nothing (`hook_success` of most hooks, an empty `todo_reminder`, the kinds listed
//! nowhere here) is not sent.

use std::ops::Range;

use serde_json::Value;

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
/// `hook_success` does: [`render`] renders nothing of any other, and [`render_at`] does not read
/// them further.
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

/// The reminder texts of the attachment object at `range` of `text`, in order. Most
/// attachments render nothing (a `hook_success` after each tool call): their kind is told from
/// their members' text, and only the others are read into a `Value`.
pub(crate) fn render_at(text: &str, range: Range<usize>) -> Vec<String> {
    let member = |name| json::string_at(text, &json::member(text, range.start, name));
    let kind = member("type").unwrap_or_default();
    let event = || member("hookEvent").unwrap_or_default();
    if !renders(&kind, || SUCCESS_EVENTS.contains(&&*event())) {
        return Vec::new();
    }
    render(&serde_json::from_str(&text[range]).unwrap_or(Value::Null))
}

/// Whether an attachment of `kind` can render a reminder; `success_event` tells, for a
/// `hook_success` only, whether its hook event is one that does.
fn renders(kind: &str, success_event: impl FnOnce() -> bool) -> bool {
    match kind {
        "hook_success" => success_event(),
        kind => RENDERED.contains(&kind),
    }
}

/// The reminder texts of one attachment (its `attachment` member), in order.
pub(crate) fn render(attachment: &Value) -> Vec<String> {
    let field = |name: &str| attachment.get(name).and_then(Value::as_str);
    let wrap = |body: String| vec![format!("<system-reminder>\n{body}\n</system-reminder>")];
    let kind = field("type").unwrap_or_default();
    let event = field("hookEvent").unwrap_or_default();
    if !renders(kind, || SUCCESS_EVENTS.contains(&event)) {
        return Vec::new();
    }
    match kind {
        "hook_additional_context" => {
            let lines: Vec<&str> = match attachment.get("content") {
                Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
                Some(Value::String(text)) => vec![text.as_str()],
                _ => Vec::new(),
            };
            if lines.is_empty() {
                return Vec::new();
            }
            wrap(format!(
                "{event} hook additional context: {}",
                lines.join("\n")
            ))
        }
        "hook_success" => match field("content") {
            Some(content) if !content.is_empty() => {
                wrap(format!("{event} hook success: {content}"))
            }
            _ => Vec::new(),
        },
        "queued_command" => match field("prompt") {
            Some(prompt) => wrap(format!(
                "The user sent a new message while you were working:\n{prompt}\n\n{QUEUED_TAIL}"
            )),
            None => Vec::new(),
        },
        "date_change" => match field("newDate") {
            Some(date) => wrap(format!(
                "The date has changed. Today's date is now {date}. No need to announce the new \
                 date — the user's own clock shows it."
            )),
            None => Vec::new(),
        },
        "deferred_tools_delta" => {
            let names: Vec<&str> = attachment
                .get("addedNames")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if names.is_empty() {
                return Vec::new();
            }
            wrap(format!("{DEFERRED_HEAD}\n{}", names.join("\n")))
        }
        "skill_listing" => match field("content") {
            Some(content) if !content.is_empty() => wrap(format!(
                "The following skills are available for use with the Skill tool:\n\n{content}"
            )),
            _ => Vec::new(),
        },
        "task_reminder" => {
            let tasks: Vec<String> = attachment
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|t| {
                    let f = |name: &str| t.get(name).and_then(Value::as_str).unwrap_or_default();
                    format!("#{}. [{}] {}", f("id"), f("status"), f("subject"))
                })
                .collect();
            // With no task the client was not seen to say anything (as for todo_reminder).
            if tasks.is_empty() {
                return Vec::new();
            }
            wrap(format!(
                "{TASK_HEAD}\n\n\nHere are the existing tasks:\n\n{}",
                tasks.join("\n")
            ))
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Told from its members' text, an attachment renders what its `Value` renders; one of a
    /// kind that renders nothing is not read further.
    #[test]
    fn an_attachment_renders_the_same_told_from_its_text() {
        let kinds = RENDERED
            .iter()
            .chain(&["todo_reminder", "plan_mode", "nested_memory"]);
        let events = SUCCESS_EVENTS.iter().chain(&["PostToolUse", "Stop"]);
        for kind in kinds {
            for event in events.clone() {
                let attachment = serde_json::json!({"type": kind, "hookEvent": event,
                    "content": ["c"], "prompt": "p", "newDate": "2026-12-02",
                    "addedNames": ["Tool"]});
                let text = format!(r#"{{"attachment":{attachment}}}"#);
                let at = json::member(&text, 0, "attachment").unwrap();
                assert_eq!(render_at(&text, at), render(&attachment), "{text}");
            }
        }
        // A `content` that is a string, for the kinds that take one.
        for kind in ["hook_success", "skill_listing", "hook_additional_context"] {
            let attachment = serde_json::json!({"type": kind, "hookEvent": "SessionStart",
                "content": "c"});
            let text = format!(r#"{{"attachment":{attachment}}}"#);
            let at = json::member(&text, 0, "attachment").unwrap();
            let rendered = render_at(&text, at);
            assert!(!rendered.is_empty(), "{text}");
            assert_eq!(rendered, render(&attachment), "{text}");
        }
    }

    #[test]
    fn hooks_render_as_the_client_renders_them() {
        let context = serde_json::json!({"type": "hook_additional_context",
            "content": ["extra context 0"], "hookEvent": "UserPromptSubmit"});
        assert_eq!(
            render(&context),
            [
                "<system-reminder>\nUserPromptSubmit hook additional context: extra context 0\n</system-reminder>"
            ]
        );
        let quiet = serde_json::json!({"type": "hook_success", "hookEvent": "PostToolUse",
            "content": "Status set to busy"});
        assert!(render(&quiet).is_empty());
        let empty = serde_json::json!({"type": "todo_reminder", "content": [], "itemCount": 0});
        assert!(render(&empty).is_empty());
        let tasks = serde_json::json!({"type": "task_reminder", "content": [
            {"id": "1", "subject": "Plan", "status": "completed"}]});
        assert_eq!(
            render(&tasks),
            [format!(
                "<system-reminder>\n{TASK_HEAD}\n\n\nHere are the existing tasks:\n\n\
                 #1. [completed] Plan\n</system-reminder>"
            )]
        );
    }
}
