//! User turns (SPEC §2.1), as Codex has them at the reference commit: which texts are contextual
//! fragments that Codex injects as user messages but that are no user's turn, which developer
//! texts are context updates a rollback trims, and which assistant messages carry an inter-agent
//! communication (a turn boundary too).

use crate::json::{self, Parser};

/// Start and end markers compared ASCII-case-insensitively, the start after `trim_start`, the
/// end before `trim_end` (`context-fragments/src/fragment.rs`).
const MARKED: [(&str, &str); 7] = [
    ("# AGENTS.md instructions", "</INSTRUCTIONS>"),
    ("<environment_context>", "</environment_context>"),
    ("<skill>", "</skill>"),
    ("<user_shell_command>", "</user_shell_command>"),
    ("<turn_aborted>", "</turn_aborted>"),
    ("<subagent_notification>", "</subagent_notification>"),
    ("<recommended_plugins>", "</recommended_plugins>"),
];

/// Codex's legacy warnings: (start, end) compared case-sensitively after `trim`.
const LEGACY_WARNINGS: [(&str, &str); 3] = [
    (
        "Warning: The maximum number of unified exec processes you can keep open is",
        "",
    ),
    (
        "Warning: apply_patch was requested via ",
        "Use the apply_patch tool instead of exec_command.",
    ),
    (
        "Warning: Your account was flagged for potentially high-risk cyber activity",
        "",
    ),
];

/// Starts of developer texts that are context updates (`event_mapping.rs`), compared
/// ASCII-case-insensitively after `trim_start`.
const DEVELOPER_CONTEXT: [&str; 19] = [
    "<permissions instructions>",
    "Approved command prefix saved:",
    "<model_switch>",
    "<managed_developer_instructions>",
    "<apps_instructions>",
    "<collaboration_mode>",
    "<multi_agent_role>",
    "<multi_agent_mode>",
    "<environments_instructions>",
    "<git_attribution>",
    "<plugins_instructions>",
    "<realtime_conversation>",
    "<skills_instructions>",
    "<tools>",
    "<personality_spec>",
    "<token_budget>",
    "<context_window>",
    "<context_window_guidance>",
    "<rollout_budget>",
];

fn starts_ci(text: &str, start: &str) -> bool {
    text.as_bytes()
        .get(..start.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(start.as_bytes()))
}

fn ends_ci(text: &str, end: &str) -> bool {
    let b = text.as_bytes();
    b.len() >= end.len() && b[b.len() - end.len()..].eq_ignore_ascii_case(end.as_bytes())
}

/// A marked text: `start` … `end`, both ASCII-case-insensitive.
fn marked(text: &str, start: &str, end: &str) -> bool {
    starts_ci(text.trim_start(), start) && ends_ci(text.trim_end(), end)
}

/// Whether an `input_text` part of a user message is a contextual fragment (SPEC §2.1).
pub(crate) fn is_contextual_fragment(text: &str) -> bool {
    MARKED.iter().any(|(start, end)| marked(text, start, end))
        || is_external(text)
        || is_internal_context(text)
        || is_legacy_warning(text)
        || is_hook_prompt(text)
}

/// `<external_KEY>…</external_KEY>`, case-sensitive; KEY is anything up to the first `>`.
fn is_external(text: &str) -> bool {
    let Some(rest) = text.trim().strip_prefix("<external_") else {
        return false;
    };
    let Some((key, value_and_close)) = rest.split_once('>') else {
        return false;
    };
    value_and_close.ends_with(&format!("</external_{key}>"))
}

/// `<goal_context>` (legacy) or `<codex_internal_context source="…">`, case-sensitive, with a
/// source of `[a-z][a-z0-9_]*`.
fn is_internal_context(text: &str) -> bool {
    let t = text.trim();
    if t.starts_with("<goal_context>") && t.ends_with("</goal_context>") {
        return true;
    }
    let Some(rest) = t
        .strip_prefix("<codex_internal_context")
        .and_then(|r| r.strip_prefix(" source=\""))
    else {
        return false;
    };
    let Some((source, body_and_close)) = rest.split_once("\">") else {
        return false;
    };
    let mut chars = source.bytes();
    let valid = chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_');
    valid && body_and_close.ends_with("</codex_internal_context>")
}

fn is_legacy_warning(text: &str) -> bool {
    let t = text.trim();
    LEGACY_WARNINGS
        .iter()
        .any(|(start, end)| t.starts_with(start) && t.ends_with(end))
}

/// Whether a developer `input_text` part is a context update a rollback trims.
pub(crate) fn is_developer_context(text: &str) -> bool {
    let t = text.trim_start();
    DEVELOPER_CONTEXT.iter().any(|start| starts_ci(t, start))
}

/// A whole `<model_switch>…</model_switch>` text, which a first-turn rollback strips.
pub(crate) fn is_model_switch(text: &str) -> bool {
    marked(text, "<model_switch>", "</model_switch>")
}

/// A hook prompt: one XML element, of any name, with a non-blank `hook_run_id` attribute and
/// non-blank text (Codex reads it with quick-xml; what follows the element is not looked at).
fn is_hook_prompt(text: &str) -> bool {
    xml_element(text.trim()).is_some_and(|element| {
        element.hook_run_id.is_some_and(|id| !id.trim().is_empty())
            && element.text.chars().any(|c| !c.is_whitespace())
    })
}

/// What a hook prompt check needs of an XML element.
struct Element {
    hook_run_id: Option<String>,
    /// The element's own text (not its children's), entities decoded.
    text: String,
}

/// Reads one XML element at the start of `s`; `None` unless it is well-formed up to its end tag.
fn xml_element(s: &str) -> Option<Element> {
    let mut at = 0;
    let (name, hook_run_id, empty) = xml_start_tag(s, &mut at)?;
    let mut text = String::new();
    if empty {
        return Some(Element { hook_run_id, text });
    }
    let mut open = vec![name];
    while let Some(rel) = s[at..].find('<') {
        let chunk = &s[at..at + rel];
        if open.len() == 1 {
            text.push_str(&xml_unescape(chunk)?);
        }
        at += rel;
        if s[at..].starts_with("<!--") {
            at += s[at..].find("-->")? + 3;
        } else if let Some(rest) = s[at..].strip_prefix("<![CDATA[") {
            let end = rest.find("]]>")?;
            if open.len() == 1 {
                text.push_str(&rest[..end]);
            }
            at += 9 + end + 3;
        } else if s[at..].starts_with("</") {
            let end = at + s[at..].find('>')?;
            let closing = s[at + 2..end].trim_end();
            if open.pop()? != closing {
                return None;
            }
            at = end + 1;
            if open.is_empty() {
                return Some(Element { hook_run_id, text });
            }
        } else if s[at..].starts_with("<?") {
            at += s[at..].find("?>")? + 2;
        } else {
            let (child, _, empty) = xml_start_tag(s, &mut at)?;
            if !empty {
                open.push(child);
            }
        }
    }
    None
}

/// A start tag at `*at`: its name, its `hook_run_id`, and whether it closes itself.
fn xml_start_tag<'s>(s: &'s str, at: &mut usize) -> Option<(&'s str, Option<String>, bool)> {
    let rest = s[*at..].strip_prefix('<')?;
    let name_len = rest
        .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
        .unwrap_or(rest.len());
    if name_len == 0 {
        return None;
    }
    let name = &rest[..name_len];
    let mut i = *at + 1 + name_len;
    let mut hook_run_id = None;
    loop {
        while s[i..].starts_with(|c: char| c.is_whitespace()) {
            i += s[i..].chars().next()?.len_utf8();
        }
        let r = &s[i..];
        if let Some(after) = r.strip_prefix("/>") {
            *at = s.len() - after.len();
            return Some((name, hook_run_id, true));
        }
        if let Some(after) = r.strip_prefix('>') {
            *at = s.len() - after.len();
            return Some((name, hook_run_id, false));
        }
        let eq = r.find('=')?;
        let key = r[..eq].trim();
        if key.is_empty() || key.contains(|c: char| c.is_whitespace()) {
            return None;
        }
        let value = r[eq + 1..].trim_start();
        let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let close = value[1..].find(quote)?;
        let raw = &value[1..1 + close];
        if key == "hook_run_id" {
            hook_run_id = Some(xml_unescape(raw)?);
        }
        i = s.len() - value.len() + 1 + close + 1;
    }
}

/// XML text with its entities decoded; `None` for an unknown entity.
fn xml_unescape(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let semi = rest[amp..].find(';')?;
        let entity = &rest[amp + 1..amp + semi];
        let c = match entity {
            "lt" => '<',
            "gt" => '>',
            "amp" => '&',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let code = match entity.strip_prefix("#x") {
                    Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                    None => entity.strip_prefix('#')?.parse().ok()?,
                };
                char::from_u32(code)?
            }
        };
        out.push(c);
        rest = &rest[amp + semi + 1..];
    }
    out.push_str(rest);
    Some(out)
}

/// A valid agent path: `/morpheus`, or `/root` then segments of `[a-z0-9_]` other than `root`,
/// `.` and `..`, with no trailing slash (`protocol/src/agent_path.rs`).
pub(crate) fn is_agent_path(path: &str) -> bool {
    if path == "/morpheus" {
        return true;
    }
    let Some(rest) = path.strip_prefix("/root") else {
        return false;
    };
    if rest.is_empty() {
        return true;
    }
    let Some(rest) = rest.strip_prefix('/') else {
        return false;
    };
    rest.split('/').all(|name| {
        !name.is_empty()
            && name != "root"
            && name
                .bytes()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
    })
}

/// The members of an inter-agent communication (Codex's `InterAgentCommunication`), as ranges of
/// the text they were read from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Communication {
    pub id: Option<std::ops::Range<usize>>,
    pub author: std::ops::Range<usize>,
    pub recipient: std::ops::Range<usize>,
    pub content: std::ops::Range<usize>,
    pub trigger_turn: bool,
    pub encrypted_content: Option<std::ops::Range<usize>>,
    /// `turn_id` and `create_time` of the passthrough, when present and not null.
    pub passthrough: Option<Passthrough>,
}

/// `internal_chat_message_metadata_passthrough`, reduced to what Codex keeps of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Passthrough {
    pub turn_id: Option<std::ops::Range<usize>>,
    pub create_time: Option<std::ops::Range<usize>>,
}

/// Reads a passthrough object at the parser's position: `None` for `null`, `Err` for a shape
/// Codex cannot read (not an object; a `turn_id` that is no string, a `create_time` no number;
/// either of them twice, which serde's derived reader refuses).
pub(crate) fn passthrough(p: &mut Parser<'_>) -> Result<Option<Passthrough>, ()> {
    let text = p.text();
    match p.peek() {
        Some(b'n') => {
            p.value().map_err(|_| ())?;
            return Ok(None);
        }
        Some(b'{') => {}
        _ => return Err(()),
    }
    let mut out = Passthrough::default();
    let mut bad = false;
    let mut seen = [false; 2];
    p.object(|p, key| {
        let (slot, wants, which) = match &*key.name() {
            "turn_id" => (&mut out.turn_id, b'"', 0),
            "create_time" => (&mut out.create_time, b'0', 1),
            _ => return Ok(false),
        };
        bad |= std::mem::replace(&mut seen[which], true);
        let range = p.value()?;
        match (text.as_bytes()[range.start], wants) {
            (b'n', _) => *slot = None,
            (b'"', b'"') | (b'-' | b'0'..=b'9', b'0') => *slot = Some(range),
            _ => bad = true,
        }
        Ok(true)
    })
    .map_err(|_| ())?;
    if bad { Err(()) } else { Ok(Some(out)) }
}

/// Reads the object at `range` of `text` as an inter-agent communication, as serde would:
/// required `author`, `recipient` (agent paths), `content` (string) and `trigger_turn` (bool);
/// optional fields well typed; a known key twice is an error.
pub(crate) fn communication(text: &str, range: std::ops::Range<usize>) -> Option<Communication> {
    let mut p = Parser::new(text);
    p.seek(range.start);
    if p.peek() != Some(b'{') {
        return None;
    }
    let mut c = Communication::default();
    let (mut author, mut recipient, mut content, mut trigger) = (None, None, None, None);
    let mut seen: Vec<&'static str> = Vec::new();
    let mut bad = false;
    let is_string = |r: &std::ops::Range<usize>| text.as_bytes()[r.start] == b'"';
    let decoded = |r: &std::ops::Range<usize>| json::decode_str(&text[r.clone()]);
    let walked = p.object(|p, key| {
        let name: &'static str = match &*key.name() {
            "id" => "id",
            "author" => "author",
            "recipient" => "recipient",
            "other_recipients" => "other_recipients",
            "content" => "content",
            "trigger_turn" => "trigger_turn",
            "encrypted_content" => "encrypted_content",
            "internal_chat_message_metadata_passthrough" => "passthrough",
            _ => return Ok(false),
        };
        if seen.contains(&name) {
            bad = true;
        }
        seen.push(name);
        if name == "passthrough" {
            match passthrough(p) {
                Ok(found) => c.passthrough = found,
                Err(()) => bad = true,
            }
            return Ok(true);
        }
        let value = p.value()?;
        let raw = &text[value.clone()];
        match name {
            "id" | "encrypted_content" => {
                let slot = if name == "id" {
                    &mut c.id
                } else {
                    &mut c.encrypted_content
                };
                match raw.as_bytes()[0] {
                    b'"' => *slot = Some(value),
                    b'n' => *slot = None,
                    _ => bad = true,
                }
            }
            "author" => author = Some(value),
            "recipient" => recipient = Some(value),
            "content" => content = Some(value),
            "trigger_turn" => {
                trigger = Some(raw == "true").filter(|_| raw == "true" || raw == "false")
            }
            _ => {
                // other_recipients: an array of agent paths (null is not one).
                let mut q = Parser::new(text);
                q.seek(value.start);
                if !raw.starts_with('[') {
                    bad = true;
                } else {
                    let _ = q.array(|q| {
                        let r = q.value()?;
                        let ok = is_string(&r) && decoded(&r).is_some_and(|s| is_agent_path(&s));
                        bad |= !ok;
                        Ok(true)
                    });
                }
            }
        }
        Ok(true)
    });
    if walked.is_err() || bad {
        return None;
    }
    let path = |r: &Option<std::ops::Range<usize>>| {
        r.clone()
            .filter(|r| is_string(r) && decoded(r).is_some_and(|s| is_agent_path(&s)))
    };
    c.author = path(&author)?;
    c.recipient = path(&recipient)?;
    c.content = content.filter(is_string)?;
    c.trigger_turn = trigger?;
    Some(c)
}

/// Whether an assistant message's decoded text part holds an inter-agent communication.
pub(crate) fn is_communication_text(text: &str) -> bool {
    let trimmed = text.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
    if !trimmed.starts_with('{') || json::validate(trimmed).is_err() {
        return false;
    }
    communication(trimmed, 0..trimmed.len()).is_some()
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
        assert!(!is_contextual_fragment(
            "<user_instructions>x</user_instructions>"
        ));
    }

    #[test]
    fn case_sensitive_markers() {
        assert!(is_contextual_fragment("<external_a b>v</external_a b>"));
        assert!(is_contextual_fragment("<external_></external_>"));
        assert!(!is_contextual_fragment("<EXTERNAL_a>v</EXTERNAL_a>"));
        assert!(is_contextual_fragment(
            "<codex_internal_context source=\"goal_1\">x</codex_internal_context>"
        ));
        assert!(!is_contextual_fragment(
            "<codex_internal_context source=\"Goal\">x</codex_internal_context>"
        ));
        assert!(is_contextual_fragment("<goal_context>g</goal_context>"));
    }

    #[test]
    fn hook_prompts_are_elements_with_an_id_and_text() {
        assert!(is_contextual_fragment(
            "<hook_prompt hook_run_id=\"hook-run-1\">Retry with \"waves\" &amp; &lt;tides&gt;</hook_prompt>"
        ));
        assert!(is_contextual_fragment(
            "<anything hook_run_id='h'>x</anything> trailing"
        ));
        assert!(!is_contextual_fragment(
            "<hook_prompt hook_run_id=\"  \">x</hook_prompt>"
        ));
        assert!(!is_contextual_fragment("<hook_prompt>x</hook_prompt>"));
        assert!(!is_contextual_fragment(
            "<hook_prompt hook_run_id=\"h\"></hook_prompt>"
        ));
        assert!(!is_contextual_fragment(
            "<hook_prompt hook_run_id=\"h\">x</other>"
        ));
        assert!(is_contextual_fragment(
            "<h hook_run_id=\"h\"><child a='1'>c</child> text</h>"
        ));
    }

    #[test]
    fn agent_paths() {
        for ok in ["/root", "/root/worker_1", "/root/a/b", "/morpheus"] {
            assert!(is_agent_path(ok), "{ok}");
        }
        for bad in [
            "/root/",
            "/root/root",
            "/root/Worker",
            "/root/my-worker",
            "/worker",
            "root/x",
            "/morpheus/x",
            "/root/.",
            "/root/..",
        ] {
            assert!(!is_agent_path(bad), "{bad}");
        }
    }

    #[test]
    fn communications_are_read_as_serde_would() {
        let ok = r#"{"author":"/root","recipient":"/root/worker","other_recipients":[],"content":"continue","trigger_turn":true}"#;
        assert!(is_communication_text(ok));
        assert!(is_communication_text(&format!(" {ok}\n")));
        for bad in [
            r#"{"author":"/root","recipient":"/root/worker","content":"c","trigger_turn":1}"#,
            r#"{"author":"/root","recipient":"/worker","content":"c","trigger_turn":true}"#,
            r#"{"author":"/root","recipient":"/root/w","content":"c","trigger_turn":true,"other_recipients":null}"#,
            r#"{"author":"/root","author":"/root","recipient":"/root/w","content":"c","trigger_turn":true}"#,
            r#"{"author":"/root","recipient":"/root/w","trigger_turn":true}"#,
            "author: /root\nrecipient: /root/worker\nContent: continue",
        ] {
            assert!(!is_communication_text(bad), "{bad}");
        }
    }
}
