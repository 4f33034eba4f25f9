//! What a recorded tool call must hold for a model API to take it back when the history is sent
//! again, checked the same way for every dialect: arguments that start like JSON must be JSON (a
//! stream cut short leaves them unterminated), and a tool's name holds no control characters.
//! Only calls are looked at, and only the members already found while reading the line.

use crate::json::{self, Parser};

/// Names are shown up to this many characters.
const NAME_SHOWN: usize = 80;

/// What is wrong with one tool call. `line` is where it was read; the dialect's fold sets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolFault {
    pub line: u64,
    /// What the call is: `function_call`, `custom_tool_call`, `tool_use`.
    pub call: &'static str,
    /// The tool's name, decoded, cut to [`NAME_SHOWN`] characters.
    pub name: Box<str>,
    /// The member that holds the arguments (`arguments`, `input`).
    pub member: &'static str,
    /// Why the arguments do not parse, when they start like JSON and do not.
    pub arguments: Option<Unparsed>,
    /// The name holds control characters (C0, DEL, C1).
    pub control_in_name: bool,
}

/// Where JSON arguments stop parsing: the parser's reason at byte `at` of their `len` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unparsed {
    pub at: usize,
    pub len: usize,
    pub what: &'static str,
}

impl Unparsed {
    /// The text ends inside a value: what a cut leaves, rather than a text that is no JSON.
    pub fn cut_short(self) -> bool {
        self.what.starts_with("EOF")
    }
}

/// How strictly arguments are held to JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arguments {
    /// They are JSON by contract (a Codex `function_call`, a Claude Code `tool_use`): any text
    /// that starts like JSON must parse.
    Json,
    /// Free text a tool's own grammar reads (a Codex `custom_tool_call`): code may start with
    /// `{` or `[` too, so only a JSON text cut short counts.
    FreeText,
}

/// The fault of a `call` whose name and arguments (its `member`) are the raw JSON values `name`
/// and `args` (a string each, quotes included, else not looked at), or `None` when there is
/// nothing wrong.
pub(crate) fn check(
    name: Option<&str>,
    args: Option<&str>,
    call: &'static str,
    member: &'static str,
    strictness: Arguments,
) -> Option<ToolFault> {
    let name = name.and_then(json::decode_str);
    let control_in_name = name
        .as_deref()
        .is_some_and(|n| n.chars().any(char::is_control));
    let arguments = args
        .and_then(unparsed)
        .filter(|u| strictness == Arguments::Json || u.cut_short());
    if !control_in_name && arguments.is_none() {
        return None;
    }
    let name: String = name
        .as_deref()
        .unwrap_or("")
        .chars()
        .take(NAME_SHOWN)
        .collect();
    Some(ToolFault {
        line: 0,
        call,
        name: name.into(),
        member,
        arguments,
        control_in_name,
    })
}

/// Why the text the raw JSON string `raw` holds is not the JSON it starts like (`{` or `[`
/// after JSON whitespace); `None` when it parses, or starts like something else.
pub(crate) fn unparsed(raw: &str) -> Option<Unparsed> {
    if !raw.starts_with('"') || !starts_like_json(&raw[1..]) {
        return None;
    }
    let text = json::decode_str(raw)?;
    let mut p = Parser::new(&text);
    if !matches!(p.peek(), Some(b'{' | b'[')) {
        return None;
    }
    let error = p.value().and_then(|_| p.end()).err()?;
    Some(Unparsed {
        at: error.at,
        len: text.len(),
        what: error.what,
    })
}

/// Whether the inside of a raw JSON string may decode to `{` or `[` after whitespace, told from
/// its first bytes: most arguments are decoded only when they are JSON.
fn starts_like_json(inner: &str) -> bool {
    let b = inner.as_bytes();
    let mut at = 0;
    loop {
        match (b.get(at), b.get(at + 1)) {
            (Some(b' '), _) => at += 1,
            (Some(b'\\'), Some(b'n' | b't' | b'r')) => at += 2,
            // Any other escape is rare here: decode and look.
            (Some(b'\\'), Some(b'u')) => return true,
            (Some(b'{' | b'['), _) => return true,
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> String {
        serde_json::to_string(text).unwrap()
    }

    #[test]
    fn json_arguments_cut_short_do_not_parse() {
        let cut = unparsed(&raw(r#"{"cmd":"ls -la /tm"#)).unwrap();
        assert_eq!((cut.at, cut.len), (18, 18));
        assert!(cut.cut_short(), "{cut:?}");
        let bad = unparsed(&raw("[1, 2,]")).unwrap();
        assert!(!bad.cut_short(), "{bad:?}");
        assert!(unparsed(&raw("\n\t {\"a\": [1]}\n")).is_none());
        assert!(unparsed(r#"" \u0020[""#).is_some());
        assert!(unparsed(r#""\u007b""#).is_some());
    }

    #[test]
    fn text_that_does_not_start_like_json_is_not_held_to_it() {
        for text in ["", "ls -la", "*** Begin Patch\n{", "\"{\"", "x{"] {
            assert_eq!(unparsed(&raw(text)), None, "{text}");
        }
        // Not a string at all: Codex's typed check has its own word for that.
        assert_eq!(unparsed("{}"), None);
    }

    #[test]
    fn free_text_counts_only_when_cut_short() {
        let js = raw("[a, b] = [b, a];");
        assert_eq!(
            check(None, Some(&js), "c", "input", Arguments::FreeText),
            None
        );
        assert!(check(None, Some(&js), "c", "input", Arguments::Json).is_some());
        let cut = raw(r#"{"patch": "*** Begin"#);
        assert!(check(None, Some(&cut), "c", "input", Arguments::FreeText).is_some());
    }

    #[test]
    fn names_with_control_characters() {
        let fault = check(
            Some(&raw("exec\u{1b}[0m")),
            None,
            "c",
            "arguments",
            Arguments::Json,
        );
        assert_eq!(
            fault,
            Some(ToolFault {
                line: 0,
                call: "c",
                name: "exec\u{1b}[0m".into(),
                member: "arguments",
                arguments: None,
                control_in_name: true,
            })
        );
        for clean in ["exec_command", "mcp__files__read", "写"] {
            assert_eq!(
                check(
                    Some(&raw(clean)),
                    Some(&raw("{}")),
                    "c",
                    "arguments",
                    Arguments::Json
                ),
                None
            );
        }
        assert!(
            check(
                Some(&raw("a\u{85}")),
                None,
                "c",
                "arguments",
                Arguments::Json
            )
            .is_some()
        );
    }
}
