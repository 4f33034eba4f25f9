//! Lineage (SPEC §9): a paginated fork or reverted thread stores only its own records, and its
//! `session_meta.history_base` points into the parent rollout whose records come first. The chain
//! of parents is found before replay, by rollout id, with cycles caught; replay then reads each
//! parent up to its cut, root first, its session_meta left out.

use std::ops::Range;
use std::path::{Path, PathBuf};

use uuid::Uuid;

use super::home::{self, CodexHome};
use crate::json;

/// Where a fork's history continues from: the parent rollout, and where it is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Base {
    /// The parent's rollout id (named `thread_id` in the record).
    pub rollout: Uuid,
    pub end_ordinal: u64,
    pub end_offset: u64,
}

/// A parent rollout to read first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parent {
    pub path: PathBuf,
    pub base: Base,
}

/// Why the chain of parents is incomplete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Broken {
    /// No rollout with this rollout id under the Codex home.
    Missing(Uuid),
    /// This rollout id is already on the chain.
    Cycle(Uuid),
    /// A `history_base` that names no parent Codex could read: what is wrong with it.
    Unreadable(&'static str),
}

/// Whether the `session_meta` payload at `payload` says `history_mode: "paginated"`.
pub(crate) fn is_paginated(text: &str, payload: &Range<usize>) -> bool {
    json::member(text, payload.start, "history_mode")
        .is_some_and(|r| json::string_at(text, &Some(r)).as_deref() == Some("paginated"))
}

/// The `history_base` of a rollout's first `session_meta`, found among its first lines: `None`
/// when there is none (or it is `null`), an error when it is there but cannot be read (its
/// thread id no UUID, a cut no whole number that fits in 64 bits).
pub(crate) fn base_in(lines: &[u8]) -> Result<Option<Base>, &'static str> {
    for line in lines.split(|&b| b == b'\n') {
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        let Ok(text) = std::str::from_utf8(line) else {
            continue;
        };
        let text = text.trim_end_matches('\r');
        if json::member(text, 0, "type")
            .is_none_or(|r| json::string_at(text, &Some(r)).as_deref() != Some("session_meta"))
        {
            continue;
        }
        let Some(payload) = json::member(text, 0, "payload") else {
            return Ok(None);
        };
        let Some(base) = json::member(text, payload.start, "history_base") else {
            return Ok(None);
        };
        if &text[base.clone()] == "null" {
            return Ok(None);
        }
        if !text[base.clone()].starts_with('{') {
            return Err("history_base is not an object");
        }
        // Only digits: `-1`, `1.5`, `1e3` and `"41"` are not the u64 Codex reads.
        let number = |name| {
            json::member(text, base.start, name)
                .map(|r| &text[r])
                .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|n| n.parse::<u64>().ok())
        };
        let rollout = json::member(text, base.start, "thread_id")
            .and_then(|r| json::string_at(text, &Some(r)))
            .and_then(|id| Uuid::try_parse(&id).ok())
            .ok_or("history_base.thread_id is not a rollout id")?;
        return Ok(Some(Base {
            rollout,
            end_ordinal: number("end_ordinal_exclusive")
                .ok_or("history_base.end_ordinal_exclusive is not a whole number of 64 bits")?,
            end_offset: number("end_byte_offset")
                .ok_or("history_base.end_byte_offset is not a whole number of 64 bits")?,
        }));
    }
    Ok(None)
}

/// The `history_base` of the rollout at `path` (plain or `.zst`), read from its first
/// `session_meta` line, which is read whole however long (up to the longest line rollcall
/// reads); `None` when the file cannot be read.
fn base_of(path: &Path) -> Option<Result<Option<Base>, &'static str>> {
    use std::io::{BufRead, BufReader, Read};
    let file = std::fs::File::open(path).ok()?;
    let reader: Box<dyn Read> = if path.extension().is_some_and(|e| e == "zst") {
        // Bounded as every read of a .zst is: a bomb among the parents stops here too.
        let compressed = file.metadata().map_or(0, |m| m.len());
        Box::new(crate::source::Unzstd::bounded(file, compressed).ok()?)
    } else {
        Box::new(file)
    };
    let mut reader = BufReader::new(reader);
    let mut line = Vec::new();
    for _ in 0..8 {
        line.clear();
        let cap = crate::chunk::MAX_LINE_BYTES as u64;
        let n = (&mut reader).take(cap).read_until(b'\n', &mut line).ok()?;
        if n == 0 {
            break;
        }
        let is_meta = {
            let text = std::str::from_utf8(line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&line));
            text.ok().is_some_and(|t| {
                json::member(t.trim_end(), 0, "type").is_some_and(|r| {
                    json::string_at(t, &Some(r)).as_deref() == Some("session_meta")
                })
            })
        };
        if is_meta {
            return Some(base_in(&line));
        }
    }
    Some(Ok(None))
}

/// The parents of a rollout whose first lines are `first`, nearest first; where the chain
/// breaks, why.
pub(crate) fn parents(
    child: &Path,
    first: &[u8],
    homes: &[CodexHome],
) -> (Vec<Parent>, Option<Broken>) {
    let mut parents: Vec<Parent> = Vec::new();
    let mut base = match base_in(first) {
        Ok(base) => base,
        Err(why) => return (parents, Some(Broken::Unreadable(why))),
    };
    let mut seen = Vec::new();
    if let Some(name) = child
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(home::RolloutName::parse)
    {
        seen.push(name.rollout);
    }
    while let Some(b) = base {
        if seen.contains(&b.rollout) {
            return (parents, Some(Broken::Cycle(b.rollout)));
        }
        seen.push(b.rollout);
        let Some(path) = home::find_rollout(homes, b.rollout, child) else {
            return (parents, Some(Broken::Missing(b.rollout)));
        };
        let next = base_of(&path);
        parents.push(Parent { path, base: b });
        base = match next {
            Some(Ok(next)) => next,
            Some(Err(why)) => return (parents, Some(Broken::Unreadable(why))),
            None => None,
        };
    }
    (parents, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bases_are_read_from_the_first_session_meta() {
        let lines = br#"
{"timestamp":"t","ordinal":41,"type":"session_meta","payload":{"id":"019ff1a2-b3c4-7d5e-8f60-112233445566","history_mode":"paginated","history_base":{"thread_id":"019ff1a2-b3c4-7d5e-8f60-667788990011","end_ordinal_exclusive":41,"end_byte_offset":12345}}}
{"timestamp":"t","ordinal":42,"type":"event_msg","payload":{"type":"task_started"}}
"#;
        assert_eq!(
            base_in(lines),
            Ok(Some(Base {
                rollout: Uuid::parse_str("019ff1a2-b3c4-7d5e-8f60-667788990011").unwrap(),
                end_ordinal: 41,
                end_offset: 12_345
            }))
        );
        assert_eq!(
            base_in(br#"{"type":"session_meta","payload":{"id":"x"}}"#),
            Ok(None)
        );
        assert_eq!(
            base_in(br#"{"type":"session_meta","payload":{"history_base":null}}"#),
            Ok(None)
        );
        let thread = "019ff1a2-b3c4-7d5e-8f60-667788990011";
        for bad in ["-1", "1.5", "1e3", "null", "\"41\"", "18446744073709551616"] {
            let line = format!(
                r#"{{"type":"session_meta","payload":{{"history_base":{{"thread_id":"{thread}","end_ordinal_exclusive":{bad},"end_byte_offset":1}}}}}}"#
            );
            assert!(base_in(line.as_bytes()).is_err(), "{bad}");
        }
        assert!(base_in(br#"{"type":"session_meta","payload":{"history_base":"x"}}"#).is_err());
        let text = r#"{"history_mode":"paginated"}"#;
        assert!(is_paginated(text, &(0..text.len())));
    }
}
