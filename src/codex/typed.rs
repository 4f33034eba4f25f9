//! Codex's typed `ResponseItem` (SPEC §11.2 #1–#4, checked against Codex 0.169.0): whether an
//! item's JSON deserializes into it, and the wire form Codex sends of it once it did — members
//! the typed item lacks are not sent, nor `null` members, nor an `id` that is not `prefix_rest`,
//! and of the passthrough metadata only `turn_id` and `create_time` (none at all with a
//! provider other than `openai`). One walk over the item's text does both: at classify time it
//! only checks and says whether the wire form differs; the view walks again, writing, only the
//! items that differ.

use std::ops::Range;

use super::item::{Fields, ItemKind};
use crate::json::{self, Parser};

/// What Codex's typed item makes of an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Typed {
    /// It deserializes. `wire`: what Codex sends differs from the log's text; `passthrough`:
    /// it has passthrough metadata (which a non-`openai` provider does not send).
    Item { wire: bool, passthrough: bool },
    /// Its `type` is none Codex knows: `ResponseItem::Other`.
    Other,
    /// It does not deserialize: why.
    Invalid(&'static str),
}

/// Checks the item at `at` of `text` (an object whose `type` is of `kind`), a text whose long
/// strings a walk found valid at `walked`.
pub(crate) fn check(text: &str, walked: &[json::Walked], at: usize, kind: ItemKind) -> Typed {
    let Some(schema) = schema(kind) else {
        return Typed::Other;
    };
    let mut w = Walk::checking(text, walked);
    let mut p = Parser::knowing(text, walked);
    p.seek(at);
    match w.object(&mut p, schema) {
        Ok(changed) => Typed::Item {
            wire: changed,
            passthrough: w.saw_passthrough,
        },
        Err(problem) => Typed::Invalid(problem),
    }
}

/// Reads the members of the item object at the parser into `f`, as [`Fields::read`] does, and
/// in the same walk makes Codex's typed check of it, when its `type` comes first (as Codex
/// writes it): the classifier walks an item once. The check is `None` when the type does not
/// come first, is given twice (the last one counts), or is none Codex knows: [`check`] then
/// answers alone.
pub(crate) fn read(
    p: &mut Parser<'_>,
    f: &mut Fields,
) -> json::Result<(Range<usize>, Option<Typed>)> {
    let text = p.text();
    let mut check: Option<Check<'_>> = None;
    let mut first = true;
    let range = p.object(|p, key| {
        let name = key.name();
        if std::mem::take(&mut first) && name == "type" && p.peek() == Some(b'"') {
            let tag = p.value()?;
            f.kind = Some(tag.clone());
            let kind = json::string_at(text, &Some(tag.clone()));
            check = kind.and_then(|k| Check::new(text, ItemKind::from_type(&k)));
            if let Some(check) = &mut check {
                p.seek(tag.start);
                check.member(p, &name)?;
            }
            return Ok(true);
        }
        if name == "type" {
            check = None;
        }
        match (&mut check, f.slot(&name)) {
            (Some(check), slot) => {
                let range = check.member(p, &name)?;
                if let Some(slot) = slot {
                    *slot = Some(range);
                }
            }
            (None, Some(slot)) => *slot = Some(p.value()?),
            (None, None) => return Ok(false),
        }
        Ok(true)
    })?;
    Ok((range, check.map(Check::finish)))
}

/// Codex's typed check of an item, member by member, as another walk of the item meets them
/// (what [`Walk::object`] does for a walk of its own).
struct Check<'t> {
    walk: Walk<'t, 'static>,
    members: &'static [Member],
    seen: u64,
    changed: bool,
    error: Option<&'static str>,
}

impl<'t> Check<'t> {
    /// A check of an item of `kind` in `text`; `None` for a type Codex does not know.
    fn new(text: &'t str, kind: ItemKind) -> Option<Check<'t>> {
        Some(Check {
            walk: Walk::checking(text, &[]),
            members: schema(kind)?,
            seen: 0,
            changed: false,
            error: None,
        })
    }

    /// Checks member `name`, whose value the parser is at, and steps over the value: its range.
    fn member(&mut self, p: &mut Parser<'t>, name: &str) -> json::Result<Range<usize>> {
        p.ws();
        let start = p.pos();
        let at = self.members.iter().position(|m| m.name == name);
        let member = match at {
            Some(at) if self.error.is_none() => {
                self.seen |= 1 << at;
                self.members[at]
            }
            Some(_) => return p.value(),
            None => {
                self.changed = true;
                return p.value();
            }
        };
        match self.walk.value(p, member) {
            Ok(Sent::Same) => {}
            Ok(Sent::Written | Sent::Dropped) => self.changed = true,
            Err(problem) => {
                self.error = Some(problem);
                // The check may have stopped inside the value: it is walked again, whole.
                p.seek(start);
                p.value()?;
            }
        }
        Ok(start..p.pos())
    }

    fn finish(self) -> Typed {
        if let Some(problem) = self.error {
            return Typed::Invalid(problem);
        }
        for (i, member) in self.members.iter().enumerate() {
            if member.required && self.seen & (1 << i) == 0 {
                return Typed::Invalid(member.problem);
            }
        }
        Typed::Item {
            wire: self.changed,
            passthrough: self.walk.saw_passthrough,
        }
    }
}

/// Writes the wire form of `item` (the JSON text of an item that [`check`] found valid) into
/// `out`; `passthrough`: the provider is `openai`, so passthrough metadata is sent; `lite`: the
/// model uses Responses Lite, which also sends the passthrough's `content_item_metadata` (live
/// check, Codex 0.169.0 with gpt-5.6-sol). An item of a type Codex does not know is
/// `{"type":"other"}`.
pub(crate) fn wire(
    item: &str,
    known: &[json::Walked],
    kind: ItemKind,
    (passthrough, lite): (bool, bool),
    out: &mut Vec<u8>,
) {
    let Some(schema) = schema(kind) else {
        out.extend_from_slice(br#"{"type":"other"}"#);
        return;
    };
    let mut buf = Vec::with_capacity(item.len());
    let mut w = Walk {
        text: item,
        known,
        out: Some(&mut buf),
        passthrough,
        lite,
        saw_passthrough: false,
        retag: false,
    };
    let mut p = Parser::knowing(item, known);
    match w.object(&mut p, schema) {
        Ok(_) => out.extend_from_slice(&buf),
        // Checked at classify time; should the bytes have changed since, print them as they are.
        Err(_) => out.extend_from_slice(item.as_bytes()),
    }
}

/// Whether Codex sends an item `id`: only one of the form `prefix_rest` (SPEC §11.2 #4).
pub(crate) fn sent_id(id: &str) -> bool {
    id.split_once('_')
        .is_some_and(|(prefix, rest)| !prefix.is_empty() && !rest.is_empty())
}

/// The type of a member's value, as Codex's struct declares it.
#[derive(Debug, Clone, Copy)]
enum Ty {
    /// The `type` tag; `Some` renames it (an alias such as `compaction_summary`).
    Tag(Option<&'static str>),
    /// `Option<ResponseItemId>`: a string; sent only when `prefix_rest`.
    Id,
    /// `String`.
    Str,
    /// `Option<String>`.
    OptStr,
    /// `Option<u64>`.
    OptU64,
    /// `Option<serde_json::Number>`.
    OptNumber,
    /// `Vec<String>`.
    StrList,
    /// `Option<Vec<String>>`.
    OptStrList,
    /// `Option<HashMap<String, String>>`.
    OptStrMap,
    /// `serde_json::Value` (a missing one is `null`).
    Any,
    /// `Vec<serde_json::Value>`.
    List,
    /// A unit enum: one of these strings.
    Enum(&'static [&'static str]),
    /// `Option` of such an enum.
    OptEnum(&'static [&'static str]),
    /// `InternalChatMessageMetadataPassthrough`.
    Passthrough,
    /// A `Vec` of tagged parts, each of these variants.
    Parts(&'static [Variant]),
    /// `FunctionCallOutputPayload`: a string, or an array of output parts.
    Output,
    /// `LocalShellAction`.
    ShellAction,
    /// `Option<WebSearchAction>` (an unknown action type is `{"type":"other"}`).
    WebAction,
    /// `reasoning.content`: sent only when it holds a `reasoning_text` part.
    ReasoningContent,
}

/// One member of a struct: its name, type, whether it is required, and what is wrong when it is
/// missing (if required) or of another type.
#[derive(Debug, Clone, Copy)]
struct Member {
    name: &'static str,
    ty: Ty,
    required: bool,
    problem: &'static str,
}

const fn req(name: &'static str, ty: Ty, problem: &'static str) -> Member {
    Member {
        name,
        ty,
        required: true,
        problem,
    }
}

const fn opt(name: &'static str, ty: Ty, problem: &'static str) -> Member {
    Member {
        name,
        ty,
        required: false,
        problem,
    }
}

/// A variant of a tagged enum: its `type` and members (the tag excluded).
#[derive(Debug, Clone, Copy)]
struct Variant {
    tag: &'static str,
    members: &'static [Member],
}

const TYPE: Member = opt("type", Ty::Tag(None), "");
const ID: Member = opt("id", Ty::Id, r#""id" is not a string"#);
const PASSTHROUGH: Member = opt(
    "internal_chat_message_metadata_passthrough",
    Ty::Passthrough,
    "internal_chat_message_metadata_passthrough is not metadata Codex reads",
);

const DETAILS: &[&str] = &["auto", "low", "high", "original"];

const TEXT: &[Member] = &[req(
    "text",
    Ty::Str,
    r#"a content part has no string "text""#,
)];
const IMAGE: &[Member] = &[
    req(
        "image_url",
        Ty::Str,
        r#"an input_image part has no string "image_url""#,
    ),
    opt(
        "detail",
        Ty::OptEnum(DETAILS),
        r#"an input_image part has a "detail" Codex does not know"#,
    ),
];
const AUDIO: &[Member] = &[req(
    "audio_url",
    Ty::Str,
    r#"an input_audio part has no string "audio_url""#,
)];
const ENCRYPTED: &[Member] = &[req(
    "encrypted_content",
    Ty::Str,
    r#"an encrypted_content part has no string "encrypted_content""#,
)];

/// `ContentItem`.
const MESSAGE_PARTS: &[Variant] = &[
    Variant {
        tag: "input_text",
        members: TEXT,
    },
    Variant {
        tag: "input_image",
        members: IMAGE,
    },
    Variant {
        tag: "input_audio",
        members: AUDIO,
    },
    Variant {
        tag: "output_text",
        members: &[
            req(
                "text",
                Ty::Str,
                r#"an output_text part has no string "text""#,
            ),
            opt("annotations", Ty::Any, ""),
            opt("logprobs", Ty::Any, ""),
        ],
    },
];

/// `FunctionCallOutputContentItem`.
const OUTPUT_PARTS: &[Variant] = &[
    Variant {
        tag: "input_text",
        members: TEXT,
    },
    Variant {
        tag: "input_image",
        members: IMAGE,
    },
    Variant {
        tag: "input_audio",
        members: AUDIO,
    },
    Variant {
        tag: "encrypted_content",
        members: ENCRYPTED,
    },
];

const AGENT_PARTS: &[Variant] = &[
    Variant {
        tag: "input_text",
        members: TEXT,
    },
    Variant {
        tag: "encrypted_content",
        members: ENCRYPTED,
    },
];

const SUMMARY_PARTS: &[Variant] = &[Variant {
    tag: "summary_text",
    members: TEXT,
}];

const REASONING_PARTS: &[Variant] = &[
    Variant {
        tag: "reasoning_text",
        members: TEXT,
    },
    Variant {
        tag: "text",
        members: TEXT,
    },
];

const SHELL_EXEC: &[Member] = &[
    req(
        "command",
        Ty::StrList,
        r#"local_shell_call action has no "command" list of strings"#,
    ),
    opt(
        "timeout_ms",
        Ty::OptU64,
        r#"local_shell_call action "timeout_ms" is not a whole number"#,
    ),
    opt(
        "working_directory",
        Ty::OptStr,
        r#"local_shell_call action "working_directory" is not a string"#,
    ),
    opt(
        "env",
        Ty::OptStrMap,
        r#"local_shell_call action "env" is not a map of strings"#,
    ),
    opt(
        "user",
        Ty::OptStr,
        r#"local_shell_call action "user" is not a string"#,
    ),
];

const WEB_ACTIONS: &[Variant] = &[
    Variant {
        tag: "search",
        members: &[
            opt(
                "query",
                Ty::OptStr,
                r#"web_search_call action "query" is not a string"#,
            ),
            opt(
                "queries",
                Ty::OptStrList,
                r#"web_search_call action "queries" is not a list of strings"#,
            ),
        ],
    },
    Variant {
        tag: "open_page",
        members: &[opt(
            "url",
            Ty::OptStr,
            r#"web_search_call action "url" is not a string"#,
        )],
    },
    Variant {
        tag: "find_in_page",
        members: &[
            opt(
                "url",
                Ty::OptStr,
                r#"web_search_call action "url" is not a string"#,
            ),
            opt(
                "pattern",
                Ty::OptStr,
                r#"web_search_call action "pattern" is not a string"#,
            ),
        ],
    },
];

/// The members each known item type has in Codex 0.169.0 (its `ResponseItem` variant, with the
/// `status` members 0.169 sends for messages and function calls).
fn schema(kind: ItemKind) -> Option<&'static [Member]> {
    const MESSAGE: &[Member] = &[
        TYPE,
        ID,
        req("role", Ty::Str, r#"no string "role""#),
        req(
            "content",
            Ty::Parts(MESSAGE_PARTS),
            r#"no "content" list of parts Codex reads (input_text, input_image, input_audio, output_text)"#,
        ),
        opt(
            "phase",
            Ty::OptEnum(&["commentary", "final_answer"]),
            r#""phase" is none Codex knows (commentary, final_answer)"#,
        ),
        opt("status", Ty::OptStr, r#""status" is not a string"#),
        PASSTHROUGH,
    ];
    const AGENT_MESSAGE: &[Member] = &[
        TYPE,
        ID,
        req("author", Ty::Str, r#"no string "author""#),
        req("recipient", Ty::Str, r#"no string "recipient""#),
        req(
            "content",
            Ty::Parts(AGENT_PARTS),
            r#"no "content" list of input_text or encrypted_content parts"#,
        ),
        PASSTHROUGH,
    ];
    const REASONING: &[Member] = &[
        TYPE,
        ID,
        req(
            "summary",
            Ty::Parts(SUMMARY_PARTS),
            r#"no "summary" list of summary_text parts"#,
        ),
        opt(
            "content",
            Ty::ReasoningContent,
            r#""content" is not a list of reasoning_text or text parts"#,
        ),
        opt(
            "encrypted_content",
            Ty::OptStr,
            r#""encrypted_content" is not a string"#,
        ),
        PASSTHROUGH,
    ];
    const LOCAL_SHELL_CALL: &[Member] = &[
        TYPE,
        ID,
        opt("call_id", Ty::OptStr, r#""call_id" is not a string"#),
        req(
            "status",
            Ty::Enum(&["completed", "in_progress", "incomplete"]),
            r#""status" is none Codex knows (completed, in_progress, incomplete)"#,
        ),
        req(
            "action",
            Ty::ShellAction,
            r#"no "action" Codex reads (an exec action)"#,
        ),
        PASSTHROUGH,
    ];
    const FUNCTION_CALL: &[Member] = &[
        TYPE,
        ID,
        req("name", Ty::Str, r#"no string "name""#),
        opt("namespace", Ty::OptStr, r#""namespace" is not a string"#),
        req("arguments", Ty::Str, r#"no string "arguments""#),
        opt(
            "encrypted_function_args",
            Ty::OptStrList,
            r#""encrypted_function_args" is not a list of strings"#,
        ),
        req("call_id", Ty::Str, r#"no string "call_id""#),
        opt("status", Ty::OptStr, r#""status" is not a string"#),
        PASSTHROUGH,
    ];
    const TOOL_SEARCH_CALL: &[Member] = &[
        TYPE,
        ID,
        opt("call_id", Ty::OptStr, r#""call_id" is not a string"#),
        opt("status", Ty::OptStr, r#""status" is not a string"#),
        req("execution", Ty::Str, r#"no string "execution""#),
        opt("arguments", Ty::Any, ""),
        PASSTHROUGH,
    ];
    const FUNCTION_CALL_OUTPUT: &[Member] = &[
        TYPE,
        ID,
        opt("call_id", Ty::OptStr, r#""call_id" is not a string"#),
        opt("name", Ty::OptStr, r#""name" is not a string"#),
        opt("namespace", Ty::OptStr, r#""namespace" is not a string"#),
        req(
            "output",
            Ty::Output,
            r#"no "output" Codex reads (a string, or a list of input_text, input_image, input_audio or encrypted_content parts)"#,
        ),
        PASSTHROUGH,
    ];
    const CUSTOM_TOOL_CALL: &[Member] = &[
        TYPE,
        ID,
        opt("status", Ty::OptStr, r#""status" is not a string"#),
        req("call_id", Ty::Str, r#"no string "call_id""#),
        req("name", Ty::Str, r#"no string "name""#),
        opt("namespace", Ty::OptStr, r#""namespace" is not a string"#),
        req("input", Ty::Str, r#"no string "input""#),
        PASSTHROUGH,
    ];
    const CUSTOM_TOOL_CALL_OUTPUT: &[Member] = &[
        TYPE,
        ID,
        req("call_id", Ty::Str, r#"no string "call_id""#),
        opt("name", Ty::OptStr, r#""name" is not a string"#),
        req(
            "output",
            Ty::Output,
            r#"no "output" Codex reads (a string, or a list of input_text, input_image, input_audio or encrypted_content parts)"#,
        ),
        PASSTHROUGH,
    ];
    const TOOL_SEARCH_OUTPUT: &[Member] = &[
        TYPE,
        ID,
        opt("call_id", Ty::OptStr, r#""call_id" is not a string"#),
        req("status", Ty::Str, r#"no string "status""#),
        req("execution", Ty::Str, r#"no string "execution""#),
        req("tools", Ty::List, r#"no "tools" list"#),
        PASSTHROUGH,
    ];
    const WEB_SEARCH_CALL: &[Member] = &[
        TYPE,
        ID,
        opt("status", Ty::OptStr, r#""status" is not a string"#),
        opt(
            "action",
            Ty::WebAction,
            r#""action" is not an action object with a string "type""#,
        ),
        PASSTHROUGH,
    ];
    const IMAGE_GENERATION_CALL: &[Member] = &[
        TYPE,
        ID,
        req("status", Ty::Str, r#"no string "status""#),
        opt(
            "revised_prompt",
            Ty::OptStr,
            r#""revised_prompt" is not a string"#,
        ),
        req("result", Ty::Str, r#"no string "result""#),
        PASSTHROUGH,
    ];
    const COMPACTION: &[Member] = &[
        opt("type", Ty::Tag(Some("compaction")), ""),
        ID,
        req(
            "encrypted_content",
            Ty::Str,
            r#"no string "encrypted_content""#,
        ),
        PASSTHROUGH,
    ];
    const CONTEXT_COMPACTION: &[Member] = &[
        TYPE,
        ID,
        opt(
            "encrypted_content",
            Ty::OptStr,
            r#""encrypted_content" is not a string"#,
        ),
        PASSTHROUGH,
    ];
    const ADDITIONAL_TOOLS: &[Member] = &[
        TYPE,
        ID,
        req("role", Ty::Str, r#"no string "role""#),
        req("tools", Ty::List, r#"no "tools" list"#),
    ];
    Some(match kind {
        ItemKind::Message => MESSAGE,
        ItemKind::AgentMessage => AGENT_MESSAGE,
        ItemKind::Reasoning => REASONING,
        ItemKind::LocalShellCall => LOCAL_SHELL_CALL,
        ItemKind::FunctionCall => FUNCTION_CALL,
        ItemKind::ToolSearchCall => TOOL_SEARCH_CALL,
        ItemKind::FunctionCallOutput => FUNCTION_CALL_OUTPUT,
        ItemKind::CustomToolCall => CUSTOM_TOOL_CALL,
        ItemKind::CustomToolCallOutput => CUSTOM_TOOL_CALL_OUTPUT,
        ItemKind::ToolSearchOutput => TOOL_SEARCH_OUTPUT,
        ItemKind::WebSearchCall => WEB_SEARCH_CALL,
        ItemKind::ImageGenerationCall => IMAGE_GENERATION_CALL,
        ItemKind::Compaction => COMPACTION,
        ItemKind::ContextCompaction => CONTEXT_COMPACTION,
        ItemKind::AdditionalTools => ADDITIONAL_TOOLS,
        ItemKind::GhostSnapshot | ItemKind::Other => return None,
    })
}

/// The walk: checks values against their types, and, with `out`, writes the wire form.
struct Walk<'t, 'o> {
    text: &'t str,
    /// The text's long strings, found valid by an earlier walk.
    known: &'t [json::Walked],
    out: Option<&'o mut Vec<u8>>,
    /// Passthrough metadata is sent (the provider is `openai`).
    passthrough: bool,
    /// A Responses Lite model: `content_item_metadata` is sent too.
    lite: bool,
    saw_passthrough: bool,
    /// A tagged object walked for the tag it starts with has a second `type` (see
    /// [`Walk::tagged`]).
    retag: bool,
}

/// A check's result: `Ok(changed)` says whether the wire form differs from the text.
type Checked = Result<bool, &'static str>;

/// What becomes of a member on the wire.
enum Sent {
    /// As it is in the text.
    Same,
    /// Not sent.
    Dropped,
    /// Sent as the bytes written.
    Written,
}

fn first(text: &str, range: &std::ops::Range<usize>) -> u8 {
    text.as_bytes()[range.start]
}

/// The tag of the object at `at` when it is spelled first and plainly, as Codex writes it:
/// `{"type":"input_text",…`.
fn first_tag(text: &str, at: usize) -> Option<&str> {
    let rest = text.get(at..)?.strip_prefix(r#"{"type":""#)?;
    let tag = &rest[..rest.find('"')?];
    (!tag.contains('\\')).then_some(tag)
}

impl<'t> Walk<'t, 'static> {
    /// A walk that only checks `text` (whose long strings a walk found valid at `known`), as
    /// Codex's own provider sends it: passthrough metadata is looked at, nothing is written.
    fn checking(text: &'t str, known: &'t [json::Walked]) -> Walk<'t, 'static> {
        Walk {
            text,
            known,
            out: None,
            passthrough: true,
            lite: false,
            saw_passthrough: false,
            retag: false,
        }
    }
}

impl Walk<'_, '_> {
    fn write(&mut self, bytes: &[u8]) {
        if let Some(out) = self.out.as_deref_mut() {
            out.extend_from_slice(bytes);
        }
    }

    /// An object of `members`: unknown members are not sent; required ones must be there.
    fn object(&mut self, p: &mut Parser<'_>, members: &'static [Member]) -> Checked {
        self.object_of(p, members, false)
    }

    /// An object of `members`; `tagged`: its `type` member is kept as it is besides them.
    fn object_of(
        &mut self,
        p: &mut Parser<'_>,
        members: &'static [Member],
        tagged: bool,
    ) -> Checked {
        if p.peek() != Some(b'{') {
            return Err("not an object");
        }
        let mut seen = 0u64;
        let mut changed = false;
        let mut error = None;
        let mut wrote_any = false;
        let mut tags = 0;
        self.write(b"{");
        let walked = p.object(|p, key| {
            let name = key.name();
            // A tag given twice is counted even past an error: the last one names the variant.
            if tagged && name == "type" {
                tags += 1;
                self.retag |= tags > 1;
            }
            if error.is_some() {
                return Ok(false);
            }
            let member = match members.iter().position(|m| m.name == name) {
                Some(at) => {
                    seen |= 1 << at;
                    members[at]
                }
                None if tagged && name == "type" => TYPE,
                None => {
                    changed = true;
                    return Ok(false);
                }
            };
            // The key as written, and a mark to take it back when the member is not sent.
            let mark = self.out.as_deref().map_or(0, Vec::len);
            if wrote_any {
                self.write(b",");
            }
            self.write(key.raw().as_bytes());
            self.write(b":");
            match self.value(p, member) {
                Ok(Sent::Same) => {
                    // The value's raw text is written by `value` itself.
                    wrote_any = true;
                }
                Ok(Sent::Written) => {
                    changed = true;
                    wrote_any = true;
                }
                Ok(Sent::Dropped) => {
                    changed = true;
                    if let Some(out) = self.out.as_deref_mut() {
                        out.truncate(mark);
                    }
                }
                Err(problem) => error = Some(problem),
            }
            Ok(true)
        });
        if let Some(problem) = error {
            return Err(problem);
        }
        if walked.is_err() {
            return Err("not valid JSON");
        }
        for (i, member) in members.iter().enumerate() {
            if member.required && seen & (1 << i) == 0 {
                return Err(member.problem);
            }
        }
        self.write(b"}");
        Ok(changed)
    }

    /// Writes the raw value at `range`.
    fn raw(&mut self, range: std::ops::Range<usize>) -> Sent {
        let text = self.text;
        self.write(&text.as_bytes()[range]);
        Sent::Same
    }

    /// The value of `member` at the parser's position.
    fn value(&mut self, p: &mut Parser<'_>, member: Member) -> Result<Sent, &'static str> {
        let text = self.text;
        let bad = member.problem;
        let null = p.peek() == Some(b'n');
        match member.ty {
            Ty::Tag(rename) => {
                let range = p.value().map_err(|_| bad)?;
                Ok(match rename {
                    Some(name)
                        if json::decode_str(&text[range.clone()]).as_deref() != Some(name) =>
                    {
                        self.write(format!("\"{name}\"").as_bytes());
                        Sent::Written
                    }
                    _ => self.raw(range),
                })
            }
            Ty::Id => {
                let range = p.value().map_err(|_| bad)?;
                if null {
                    return Ok(Sent::Dropped);
                }
                let id = json::decode_str(&text[range.clone()]).ok_or(bad)?;
                Ok(if sent_id(&id) {
                    self.raw(range)
                } else {
                    Sent::Dropped
                })
            }
            Ty::Str | Ty::OptStr => {
                let range = p.value().map_err(|_| bad)?;
                if null && matches!(member.ty, Ty::OptStr) {
                    return Ok(Sent::Dropped);
                }
                if first(text, &range) != b'"' {
                    return Err(bad);
                }
                Ok(self.raw(range))
            }
            Ty::Enum(names) | Ty::OptEnum(names) => {
                let range = p.value().map_err(|_| bad)?;
                if null && matches!(member.ty, Ty::OptEnum(_)) {
                    return Ok(Sent::Dropped);
                }
                let name = json::decode_str(&text[range.clone()]).ok_or(bad)?;
                if !names.contains(&&*name) {
                    return Err(bad);
                }
                Ok(self.raw(range))
            }
            Ty::OptU64 => {
                let range = p.value().map_err(|_| bad)?;
                if null {
                    return Ok(Sent::Dropped);
                }
                let digits = &text[range.clone()];
                if digits.is_empty()
                    || !digits.bytes().all(|b| b.is_ascii_digit())
                    || digits.parse::<u64>().is_err()
                {
                    return Err(bad);
                }
                Ok(self.raw(range))
            }
            Ty::StrList | Ty::OptStrList => {
                if null {
                    p.value().map_err(|_| bad)?;
                    return match member.ty {
                        Ty::OptStrList => Ok(Sent::Dropped),
                        _ => Err(bad),
                    };
                }
                if p.peek() != Some(b'[') {
                    return Err(bad);
                }
                let mut ok = true;
                let range = p
                    .array(|p| {
                        let r = p.value()?;
                        ok &= first(p.text(), &r) == b'"';
                        Ok(true)
                    })
                    .map_err(|_| bad)?;
                if !ok {
                    return Err(bad);
                }
                Ok(self.raw(range))
            }
            Ty::OptStrMap => {
                if null {
                    p.value().map_err(|_| bad)?;
                    return Ok(Sent::Dropped);
                }
                if p.peek() != Some(b'{') {
                    return Err(bad);
                }
                let mut ok = true;
                let range = p
                    .object(|p, _| {
                        let r = p.value()?;
                        ok &= first(p.text(), &r) == b'"';
                        Ok(true)
                    })
                    .map_err(|_| bad)?;
                if !ok {
                    return Err(bad);
                }
                Ok(self.raw(range))
            }
            Ty::Any => {
                let range = p.value().map_err(|_| bad)?;
                Ok(if null { Sent::Dropped } else { self.raw(range) })
            }
            Ty::List => {
                if p.peek() != Some(b'[') {
                    return Err(bad);
                }
                let range = p.value().map_err(|_| bad)?;
                Ok(self.raw(range))
            }
            Ty::Passthrough => {
                if null {
                    p.value().map_err(|_| bad)?;
                    return Ok(Sent::Dropped);
                }
                self.saw_passthrough = true;
                let send = self.passthrough;
                // Checked always; written only when sent.
                let out = if send { self.out.take() } else { None };
                let mut inner = Walk {
                    text,
                    known: self.known,
                    out,
                    passthrough: true,
                    lite: self.lite,
                    saw_passthrough: false,
                    retag: false,
                };
                const TURN_ID: Member =
                    opt("turn_id", Ty::OptStr, "passthrough turn_id is not a string");
                const CREATE_TIME: Member = opt(
                    "create_time",
                    Ty::OptNumber,
                    "passthrough create_time is not a number",
                );
                const META: &[Member] = &[TURN_ID, CREATE_TIME];
                const LITE_META: &[Member] = &[
                    TURN_ID,
                    CREATE_TIME,
                    opt(
                        "content_item_metadata",
                        Ty::List,
                        "passthrough content_item_metadata is not a list",
                    ),
                ];
                let result = inner.object(p, if self.lite { LITE_META } else { META });
                if send {
                    self.out = inner.out.take();
                }
                let changed = result.map_err(|_| bad)?;
                if !send {
                    return Ok(Sent::Dropped);
                }
                Ok(if changed { Sent::Written } else { Sent::Same })
            }
            Ty::OptNumber => {
                let range = p.value().map_err(|_| bad)?;
                if null {
                    return Ok(Sent::Dropped);
                }
                let c = first(text, &range);
                if !(c == b'-' || c.is_ascii_digit()) {
                    return Err(bad);
                }
                Ok(self.raw(range))
            }
            Ty::Parts(variants) => self.parts(p, variants, bad),
            Ty::Output => {
                if p.peek() == Some(b'"') {
                    let range = p.value().map_err(|_| bad)?;
                    return Ok(self.raw(range));
                }
                self.parts(p, OUTPUT_PARTS, bad)
            }
            Ty::ShellAction => {
                if p.peek() != Some(b'{') {
                    return Err(bad);
                }
                let at = p.pos();
                let tag = json::member_knowing(text, self.known, at, "type");
                if json::string_at(text, &tag).as_deref() != Some("exec") {
                    p.value().map_err(|_| bad)?;
                    return Err(bad);
                }
                let changed = self.object_of(p, SHELL_EXEC, true).map_err(|_| bad)?;
                Ok(if changed { Sent::Written } else { Sent::Same })
            }
            Ty::WebAction => {
                if null {
                    p.value().map_err(|_| bad)?;
                    return Ok(Sent::Dropped);
                }
                self.tagged(p, WEB_ACTIONS, bad, true)
            }
            Ty::ReasoningContent => {
                if null {
                    p.value().map_err(|_| bad)?;
                    return Ok(Sent::Dropped);
                }
                // Checked first, without writing: whether it is sent depends on its parts.
                let at = p.pos();
                let out = self.out.take();
                let checked = self.parts(p, REASONING_PARTS, bad);
                self.out = out;
                checked?;
                let mut has_reasoning_text = false;
                let mut q = Parser::knowing(text, self.known);
                q.seek(at);
                let _ = q.array(|q| {
                    let part = q.value()?;
                    let tag = json::member_knowing(text, self.known, part.start, "type");
                    has_reasoning_text |=
                        json::string_at(text, &tag).as_deref() == Some("reasoning_text");
                    Ok(true)
                });
                if !has_reasoning_text {
                    return Ok(Sent::Dropped);
                }
                let mut q = Parser::knowing(text, self.known);
                q.seek(at);
                self.parts(&mut q, REASONING_PARTS, bad)
            }
        }
    }

    /// A list of tagged parts of `variants`.
    fn parts(
        &mut self,
        p: &mut Parser<'_>,
        variants: &'static [Variant],
        bad: &'static str,
    ) -> Result<Sent, &'static str> {
        if p.peek() != Some(b'[') {
            p.value().map_err(|_| bad)?;
            return Err(bad);
        }
        let mut changed = false;
        let mut error = None;
        let mut count = 0usize;
        self.write(b"[");
        let walked = p.array(|p| {
            if error.is_some() {
                return Ok(false);
            }
            if count > 0 {
                self.write(b",");
            }
            count += 1;
            match self.tagged(p, variants, bad, false) {
                Ok(Sent::Same) => {}
                Ok(Sent::Written | Sent::Dropped) => changed = true,
                Err(problem) => error = Some(problem),
            }
            Ok(true)
        });
        if let Some(problem) = error {
            return Err(problem);
        }
        walked.map_err(|_| bad)?;
        self.write(b"]");
        Ok(if changed { Sent::Written } else { Sent::Same })
    }

    /// One object of a tagged enum; `other`: an unknown tag is the `Other` variant, sent as
    /// `{"type":"other"}` (else it does not deserialize).
    fn tagged(
        &mut self,
        p: &mut Parser<'_>,
        variants: &'static [Variant],
        bad: &'static str,
        other: bool,
    ) -> Result<Sent, &'static str> {
        if p.peek() != Some(b'{') {
            p.value().map_err(|_| bad)?;
            return Err(bad);
        }
        let text = self.text;
        let at = p.pos();
        // Codex writes the tag first: the object is then walked once, for the variant that
        // tag names, unless another `type` follows (the last one counts).
        if let Some(variant) =
            first_tag(text, at).and_then(|t| variants.iter().find(|v| v.tag == t))
        {
            let mark = self.out.as_deref().map_or(0, Vec::len);
            let outer = std::mem::replace(&mut self.retag, false);
            let checked = self.object_of(p, variant.members, true);
            let retag = std::mem::replace(&mut self.retag, outer);
            if !retag {
                return checked.map(|changed| if changed { Sent::Written } else { Sent::Same });
            }
            if let Some(out) = self.out.as_deref_mut() {
                out.truncate(mark);
            }
            p.seek(at);
        }
        let tag = json::member_knowing(text, self.known, at, "type");
        let name = json::string_at(text, &tag).ok_or_else(|| {
            let _ = p.value();
            bad
        })?;
        let Some(variant) = variants.iter().find(|v| v.tag == name) else {
            p.value().map_err(|_| bad)?;
            if other {
                self.write(br#"{"type":"other"}"#);
                return Ok(Sent::Written);
            }
            return Err(bad);
        };
        let changed = self.object_of(p, variant.members, true)?;
        Ok(if changed { Sent::Written } else { Sent::Same })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(item: &str, kind: ItemKind, openai: bool) -> String {
        let mut out = Vec::new();
        wire(item, &[], kind, (openai, false), &mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    #[test]
    fn items_codex_cannot_read_are_invalid() {
        for (kind, item) in [
            (
                ItemKind::FunctionCall,
                r#"{"type":"function_call","name":"f","arguments":"{}"}"#,
            ),
            (
                ItemKind::FunctionCall,
                r#"{"type":"function_call","name":"f","arguments":{},"call_id":"c"}"#,
            ),
            (
                ItemKind::FunctionCallOutput,
                r#"{"type":"function_call_output","call_id":"c","output":{"content":"x"}}"#,
            ),
            (
                ItemKind::FunctionCallOutput,
                r#"{"type":"function_call_output","call_id":"c","output":[{"type":"output_text","text":"x"}]}"#,
            ),
            (
                ItemKind::LocalShellCall,
                r#"{"type":"local_shell_call","status":"weird","action":{"type":"exec","command":[]}}"#,
            ),
            (
                ItemKind::Message,
                r#"{"type":"message","role":"assistant","content":[],"phase":"thinking_out_loud"}"#,
            ),
            (
                ItemKind::Message,
                r#"{"type":"message","role":"assistant","content":[{"type":"refusal","refusal":"no"}]}"#,
            ),
            (
                ItemKind::Message,
                r#"{"type":"message","role":"user","content":"hi"}"#,
            ),
            (
                ItemKind::Message,
                r#"{"type":"message","role":"user","content":[{"type":"input_text"}]}"#,
            ),
        ] {
            assert!(
                matches!(check(item, &[], 0, kind), Typed::Invalid(_)),
                "{item}"
            );
        }
        let shell = r#"{"type":"local_shell_call","status":"completed","action":{"type":"exec","command":["ls"]}}"#;
        assert_eq!(
            check(shell, &[], 0, ItemKind::LocalShellCall),
            Typed::Item {
                wire: false,
                passthrough: false
            }
        );
        assert_eq!(check("{}", &[], 0, ItemKind::Other), Typed::Other);
    }

    /// The check made as the classifier reads an item says what the check of its own says, on
    /// every item of the fixtures and on items made to fail it; it is none where the type does
    /// not come first or comes twice.
    #[test]
    fn the_check_made_while_reading_agrees_with_the_check_alone() {
        let answer = |text: &str| {
            let mut p = Parser::new(text);
            let mut fields = Fields::default();
            let read = read(&mut p, &mut fields).expect("valid JSON").1;
            let kind = json::member(text, 0, "type")
                .and_then(|r| json::string_at(text, &Some(r)))
                .map_or(ItemKind::Other, |k| ItemKind::from_type(&k));
            (read, check(text, &[], 0, kind))
        };
        let mut made = 0;
        let mut items = Vec::new();
        for story in std::fs::read_dir("fixtures/codex").expect("fixtures") {
            let story = story.expect("entry").path();
            for file in std::fs::read_dir(&story).into_iter().flatten().flatten() {
                let path = file.path();
                if path.extension().is_none_or(|e| e != "jsonl") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                for line in text.lines() {
                    let payload = json::member(line, 0, "payload");
                    if let Some(r) = payload.filter(|r| line.as_bytes()[r.start] == b'{') {
                        items.push(line[r].to_string());
                    }
                }
            }
        }
        assert!(items.len() > 1000, "{} items", items.len());
        items.extend(
            [
                r#"{"type":"function_call","name":"f","arguments":{},"call_id":"c"}"#,
                r#"{"type":"message","role":"user","content":[{"type":"input_text"}],"id":"x"}"#,
                r#"{"type":"message","role":"user","content":[{"type":"input_text","text":[1,{"a":"b"}]},{"type":"input_text","text":"t"}]}"#,
                r#"{"type":"message","role":"assistant","content":[],"phase":"thinking","status":null}"#,
                r#"{"type":"local_shell_call","status":"completed","action":{"type":"exec","command":["ls"]},"id":"ls_1"}"#,
                r#"{"type":"reasoning","summary":[],"content":[{"type":"text","text":"t"}],"x":1}"#,
            ]
            .map(String::from),
        );
        for item in &items {
            let (read, alone) = answer(item);
            if let Some(read) = read {
                made += 1;
                assert_eq!(read, alone, "{item}");
            }
        }
        assert!(made > 1000, "{made} checks made while reading");
        for item in [
            r#"{"role":"user","type":"message","content":[]}"#,
            r#"{"type":"message","role":"user","content":[],"type":"message"}"#,
            r#"{"type":"not_an_item","a":1}"#,
        ] {
            assert_eq!(answer(item).0, None, "{item}");
        }
    }

    /// A part's tag is read where Codex writes it, first; given twice, the last one names the
    /// part, as it does when the tag is not first (the answers of the walk that looked the tag
    /// up before walking each part).
    #[test]
    fn a_part_tagged_twice_is_the_last_tags() {
        let item = |part: &str| format!(r#"{{"type":"message","role":"user","content":[{part}]}}"#);
        let sent = |wire| Typed::Item {
            wire,
            passthrough: false,
        };
        for (part, typed) in [
            (
                r#"{"type":"input_text","type":"input_image","image_url":"u"}"#,
                sent(false),
            ),
            (
                r#"{"image_url":"u","type":"input_text","type":"input_image"}"#,
                sent(false),
            ),
            (
                r#"{"type":"input_text","text":"t","type":"input_image","image_url":"u"}"#,
                sent(true),
            ),
            (r#"{"type":"input_image","image_url":"u"}"#, sent(false)),
        ] {
            assert_eq!(
                check(&item(part), &[], 0, ItemKind::Message),
                typed,
                "{part}"
            );
        }
        for part in [
            r#"{"type":"input_image","image_url":"u","type":"input_text"}"#,
            r#"{"type":"input_image","type":"refusal"}"#,
        ] {
            let checked = check(&item(part), &[], 0, ItemKind::Message);
            assert!(matches!(checked, Typed::Invalid(_)), "{part}");
        }
    }

    #[test]
    fn the_wire_form_leaves_out_what_codex_does_not_send() {
        let item = r#"{"type":"image_generation_call","id":"ig_124","status":"generating","result":"iVBOR","output_format":"png"}"#;
        assert!(matches!(
            check(item, &[], 0, ItemKind::ImageGenerationCall),
            Typed::Item { wire: true, .. }
        ));
        assert_eq!(
            sent(item, ItemKind::ImageGenerationCall, true),
            r#"{"type":"image_generation_call","id":"ig_124","status":"generating","result":"iVBOR"}"#
        );
        let message = r#"{"type":"message","id":"msg-1","role":"assistant","content":[{"type":"output_text","text":"a","x_extra":1}],"end_turn":true,"status":"completed","internal_chat_message_metadata_passthrough":{"turn_id":"t","content_item_metadata":[],"create_time":1.5}}"#;
        assert_eq!(
            sent(message, ItemKind::Message, true),
            r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}],"status":"completed","internal_chat_message_metadata_passthrough":{"turn_id":"t","create_time":1.5}}"#
        );
        assert_eq!(
            sent(message, ItemKind::Message, false),
            r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}],"status":"completed"}"#
        );
        // A Responses Lite model also gets the content item metadata (gen message_fields-4).
        let mut lite = Vec::new();
        wire(message, &[], ItemKind::Message, (true, true), &mut lite);
        assert_eq!(
            String::from_utf8(lite).unwrap(),
            r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}],"status":"completed","internal_chat_message_metadata_passthrough":{"turn_id":"t","content_item_metadata":[],"create_time":1.5}}"#
        );
        let reasoning = r#"{"type":"reasoning","id":"rs_1","summary":[],"content":[{"type":"text","text":"t"}],"status":"done"}"#;
        assert_eq!(
            sent(reasoning, ItemKind::Reasoning, true),
            r#"{"type":"reasoning","id":"rs_1","summary":[]}"#
        );
        let search = r#"{"type":"web_search_call","status":"completed","action":{"type":"browse","sources":[]}}"#;
        assert_eq!(
            sent(search, ItemKind::WebSearchCall, true),
            r#"{"type":"web_search_call","status":"completed","action":{"type":"other"}}"#
        );
        assert_eq!(
            sent("{\"type\":\"x\"}", ItemKind::Other, true),
            r#"{"type":"other"}"#
        );
    }

    #[test]
    fn ids_are_sent_only_in_the_form_prefix_rest() {
        for (id, kept) in [
            ("msg_x", true),
            ("MSG_1", true),
            ("a__", true),
            ("msg-1", false),
            ("m1", false),
            ("msg_", false),
            ("_x", false),
        ] {
            let item = format!(r#"{{"type":"message","id":"{id}","role":"user","content":[]}}"#);
            assert_eq!(
                sent(&item, ItemKind::Message, true).contains("\"id\""),
                kept,
                "{id}"
            );
        }
    }
}
