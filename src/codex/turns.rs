//! User turns (SPEC §2.1): which items are turn boundaries, which texts are contextual fragments
//! that Codex injects as user messages but that are not a user's turn.

/// Start and end markers of the text that Codex injects as user messages but that are context,
/// not a user's turn.
const FRAGMENTS: [(&str, &str); 7] = [
    ("# AGENTS.md instructions for ", "</INSTRUCTIONS>"),
    ("<environment_context>", "</environment_context>"),
    ("<user_instructions>", "</user_instructions>"),
    ("<skill>", "</skill>"),
    ("<user_shell_command>", "</user_shell_command>"),
    ("<turn_aborted>", "</turn_aborted>"),
    ("<subagent_notification>", "</subagent_notification>"),
];

pub(crate) fn is_contextual_fragment(text: &str) -> bool {
    let t = text.trim().as_bytes();
    FRAGMENTS.iter().any(|(start, end)| {
        let (start, end) = (start.as_bytes(), end.as_bytes());
        t.len() >= start.len()
            && t.len() >= end.len()
            && t[..start.len()].eq_ignore_ascii_case(start)
            && t[t.len() - end.len()..].eq_ignore_ascii_case(end)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragment_markers_need_both_ends() {
        assert!(is_contextual_fragment(
            "# agents.md INSTRUCTIONS FOR /repo\n\n<INSTRUCTIONS>x</instructions>"
        ));
        assert!(is_contextual_fragment("<turn_aborted></turn_aborted>"));
        assert!(!is_contextual_fragment("<skill> unterminated"));
        assert!(!is_contextual_fragment("say <skill>x</skill>"));
        assert!(!is_contextual_fragment(""));
    }
}
