//! Benchmark input: a large Claude Code transcript made of copies of a real one, chained.
//!
//! `cargo run --release --example gen_transcript -- --mb 512 SOURCE.jsonl OUT` writes copies of
//! SOURCE (a real transcript, e.g. one under `fixtures/claude/`) one after another until OUT holds
//! about N MiB. Each copy gets fresh ids: every UUID in it except the session id is replaced by
//! one derived from the copy number and the old id (UUID v5, so the same arguments give the same
//! bytes), and so is every API id (`msg_…`, `req_…`, `toolu_…`: copies must not share a message,
//! or the client would merge them into one), and the copy's first root entry (`"parentUuid":null`) is parented to the last entry of
//! the copy before it, so the file is one long conversation rather than many. Everything else is
//! the source's own bytes.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use uuid::Uuid;

const USAGE: &str = "usage: gen_transcript --mb N SOURCE.jsonl OUT";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("gen_transcript: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [flag, mb, source, out] = args.as_slice() else {
        bail!("{USAGE}");
    };
    if flag != "--mb" {
        bail!("{USAGE}");
    }
    let mb: f64 = mb
        .parse()
        .with_context(|| format!("--mb: not a number: {mb}"))?;
    let target = (mb * 1_048_576.0) as u64;
    let text = std::fs::read_to_string(source).with_context(|| format!("reading {source}"))?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let session = lines
        .iter()
        .find_map(|l| top_string(l, "sessionId"))
        .with_context(|| format!("{source}: no entry has a sessionId"))?;
    let file = File::create(out).with_context(|| format!("creating {out}"))?;
    let mut out_file = BufWriter::with_capacity(1 << 20, file);
    let (mut written, mut copies, mut previous_last) = (0u64, 0u64, None::<String>);
    // Each source line's own uuid, read once: a copy's is the fresh id it maps to.
    let uuids: Vec<Option<String>> = lines.iter().map(|l| top_string(l, "uuid")).collect();
    let mut line_buf = String::new();
    while written < target {
        let mut ids = HashMap::new();
        let mut linked = false;
        let mut last = None;
        for (line, uuid) in lines.iter().zip(&uuids) {
            line_buf.clear();
            fresh_ids(line, &session, copies, &mut ids, &mut line_buf);
            if !linked
                && let Some(parent) = &previous_last
                && let Some(at) = line_buf.find(r#""parentUuid":null"#)
            {
                line_buf.replace_range(at..at + 17, &format!(r#""parentUuid":"{parent}""#));
                linked = true;
            }
            if let Some(uuid) = uuid {
                last = Some(ids.get(uuid).unwrap_or(uuid).clone());
            }
            line_buf.push('\n');
            out_file.write_all(line_buf.as_bytes())?;
            written += line_buf.len() as u64;
        }
        previous_last = last.or(previous_last);
        copies += 1;
    }
    out_file.flush()?;
    let mut err = io::stderr().lock();
    writeln!(err, "bytes: {written}")?;
    writeln!(err, "lines: {}", copies * lines.len() as u64)?;
    writeln!(err, "copies: {copies} of {source} ({} lines)", lines.len())?;
    Ok(())
}

/// The top-level string member `name` of the JSON object `line`, if it has one.
fn top_string(line: &str, name: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    Some(value.get(name)?.as_str()?.to_owned())
}

/// Appends `line` to `out` with every UUID but `keep`, and every API id, replaced by a fresh one
/// for copy `copy`.
fn fresh_ids(
    line: &str,
    keep: &str,
    copy: u64,
    ids: &mut HashMap<String, String>,
    out: &mut String,
) {
    let bytes = line.as_bytes();
    let mut copied = 0;
    let mut at = 0;
    while at < bytes.len() {
        let len = id_at(bytes, at);
        if len == 0 {
            at += 1;
            continue;
        }
        // ASCII, so these are character boundaries.
        let id = &line[at..at + len];
        if id != keep {
            let fresh = ids
                .entry(id.to_owned())
                .or_insert_with(|| fresh_id(id, copy));
            out.push_str(&line[copied..at]);
            out.push_str(fresh);
            copied = at + len;
        }
        at += len;
    }
    out.push_str(&line[copied..]);
}

const API_PREFIXES: [&str; 4] = ["msg_", "req_", "toolu_", "srvtoolu_"];

/// The length of the id (a UUID, or an API id) that starts at `at`, or 0.
fn id_at(bytes: &[u8], at: usize) -> usize {
    if at > 0 && bytes[at - 1].is_ascii_alphanumeric() {
        return 0;
    }
    let rest = &bytes[at..];
    if rest.len() >= 36 && is_uuid(&rest[..36]) {
        return 36;
    }
    for prefix in API_PREFIXES {
        if rest.starts_with(prefix.as_bytes()) {
            let body = rest[prefix.len()..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric())
                .count();
            if body >= 8 {
                return prefix.len() + body;
            }
        }
    }
    0
}

/// A new id of the same kind and length as `id`, for copy `copy`.
fn fresh_id(id: &str, copy: u64) -> String {
    let name = format!("{copy}:{id}");
    let uuid = Uuid::new_v5(&Uuid::NAMESPACE_OID, name.as_bytes());
    if is_uuid(id.as_bytes()) {
        return uuid.to_string();
    }
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let prefix = API_PREFIXES
        .iter()
        .find(|p| id.starts_with(**p))
        .map_or("", |p| p);
    let mut state = uuid.as_u128();
    let mut fresh = String::from(prefix);
    for _ in prefix.len()..id.len() {
        if state == 0 {
            state = Uuid::new_v5(&uuid, fresh.as_bytes()).as_u128();
        }
        fresh.push(char::from(ALPHABET[(state % 62) as usize]));
        state /= 62;
    }
    fresh
}

fn is_uuid(b: &[u8]) -> bool {
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}
