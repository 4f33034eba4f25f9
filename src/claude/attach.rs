//! Claude Code's `attachment` entries as the model sees them: the `<system-reminder>` texts
//! Claude Code 2.1.328 renders from them when it resumes (SPEC §11.3.7). An attachment that
//! renders nothing (`hook_success` of most hooks, an empty `todo_reminder`, the kinds listed
//! nowhere here) is not sent.

use serde_json::Value;

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

/// The reminder texts of one attachment (its `attachment` member), in order.
pub(crate) fn render(attachment: &Value) -> Vec<String> {
    let field = |name: &str| attachment.get(name).and_then(Value::as_str);
    let wrap = |body: String| vec![format!("<system-reminder>\n{body}\n</system-reminder>")];
    match field("type").unwrap_or_default() {
        "hook_additional_context" => {
            let lines: Vec<&str> = match attachment.get("content") {
                Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
                Some(Value::String(text)) => vec![text.as_str()],
                _ => Vec::new(),
            };
            if lines.is_empty() {
                return Vec::new();
            }
            let event = field("hookEvent").unwrap_or_default();
            wrap(format!(
                "{event} hook additional context: {}",
                lines.join("\n")
            ))
        }
        "hook_success" => {
            let event = field("hookEvent").unwrap_or_default();
            match field("content") {
                Some(content)
                    if !content.is_empty()
                        && matches!(event, "SessionStart" | "UserPromptSubmit") =>
                {
                    wrap(format!("{event} hook success: {content}"))
                }
                _ => Vec::new(),
            }
        }
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
