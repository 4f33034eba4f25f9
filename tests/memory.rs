//! Peak memory of rollcall on inputs that used to cost it far more than their size. One test,
//! run alone in its own process: the kernel's count of a child's peak memory includes this
//! process's at the moment it started the child, so this process stays small (inputs are
//! written to files as they are made, never held).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{META, Scratch, binary, run};
use serde_json::{Value, json};

/// Writes `head`, then `unit` `n` times (joined by `sep`), then `tail`, to `path`.
fn write(path: &Path, head: &str, unit: &str, sep: &str, n: usize, tail: &str) -> PathBuf {
    let mut out = BufWriter::new(File::create(path).unwrap());
    out.write_all(head.as_bytes()).unwrap();
    for i in 0..n {
        if i > 0 {
            out.write_all(sep.as_bytes()).unwrap();
        }
        out.write_all(unit.as_bytes()).unwrap();
    }
    out.write_all(tail.as_bytes()).unwrap();
    out.flush().unwrap();
    path.to_path_buf()
}

/// Peak memory of `rollcall ARGS`, in MiB, after checking it ended with `status`.
fn peak_mib(args: &[&str], status: i32) -> (i64, Vec<u8>) {
    let out = run(Command::new(binary()).args(args), Duration::from_secs(120));
    assert_eq!(out.status, status, "{args:?}: {}", out.stderr);
    (out.peak_kib >> 10, out.stdout)
}

/// Regression (hostile round two, "memory per line and per item"): 8 MiB of blank lines cost
/// about 530 MiB, and one 20 MiB `replacement_history` of `{}` items 697 MiB (here 9 MiB of
/// them, which cost over 300 MiB then). A blank or
/// rejected line may cost only a counter (and a bounded line number), a kept item a small
/// constant; an endless line (`/dev/zero`) is never held.
#[test]
fn memory_per_line_and_per_item() {
    let dir = Scratch::new("memory");
    let at = |name: &str| dir.0.join(name);
    let head = format!("{META}\n");
    let blank = write(&at("blank.jsonl"), &head, "\n", "", 8 << 20, "");
    let rejected = write(&at("rejected.jsonl"), &head, "x\n\n", "", 3 << 20, "");
    let items = 3 << 20;
    // The mini spelling: a Codex replacement history of untyped objects is no history Codex
    // reads (SPEC §11.2), a mini one keeps them.
    let compacted = format!("{head}{{\"type\":\"compacted\",\"replacement_history\":[");
    let replacement = write(
        &at("replacement.jsonl"),
        &compacted,
        "{}",
        ",",
        items,
        "]}\n",
    );
    let numbers = write(&at("numbers.jsonl"), &compacted, "1", ",", items, "]}\n");

    let commands: [&[&str]; 3] = [
        &["replay", "--report", "--json"],
        &["replay"],
        &["repair-view"],
    ];
    for args in commands {
        for (path, limit_mib) in [
            (&blank, 64),
            (&rejected, 64),
            // 3 Mi kept items at 24 bytes each, and the 9 MiB line while it is read.
            (&replacement, 64 + 24 * 3 + 9),
            // Numbers are no items: nothing is kept but the 6 MiB line while it is read.
            (&numbers, 64 + 6),
        ] {
            let mut all = args.to_vec();
            let name = path.display().to_string();
            all.push(&name);
            let (peak, _) = peak_mib(&all, 0);
            assert!(peak < limit_mib, "{args:?} {name}: {peak} MiB");
        }
    }
    let count = |path: &Path, key: &str| -> Value {
        let (_, out) = peak_mib(
            &["replay", "--report", "--json", &path.display().to_string()],
            0,
        );
        serde_json::from_slice::<Value>(&out).unwrap()[key].clone()
    };
    assert_eq!(count(&replacement, "history_items"), json!(items));
    assert_eq!(count(&numbers, "history_items"), json!(0));
    assert_eq!(count(&rejected, "parse_errors"), json!(3 << 20));
    assert_eq!(count(&blank, "blank_lines"), json!(8 << 20));

    // Endless: the default cap is 256 MiB, and the line is skipped, not held.
    for args in [&["replay", "--report"][..], &["repair-view"], &["replay"]] {
        let mut all = args.to_vec();
        all.push("/dev/zero");
        let (peak, _) = peak_mib(&all, 1);
        assert!(peak < 64, "{args:?}: {peak} MiB");
    }

    // Hostile round three: one Claude Code message merged from 800k assistant entries (one
    // `message.id`) peaked at 780 MiB in `--format text`, which decoded the whole message at once
    // (here 200k entries: 247 MiB, twice the JSON view's 123). Text may cost what the JSON view
    // costs, and a line of transcript per block.
    let merged = merged_message(&dir.0, MERGED);
    let name = merged.display().to_string();
    let (json_peak, json) = peak_mib(&["repair-view", &name], 0);
    let (text_peak, text) = peak_mib(&["repair-view", "--format", "text", &name], 0);
    assert!(
        text_peak < json_peak + 24,
        "merged message: text {text_peak} MiB, JSON {json_peak} MiB"
    );
    assert!(json_peak < 200, "merged message: JSON view {json_peak} MiB");
    let blocks = |out: &[u8], what: &[u8]| out.windows(what.len()).filter(|w| w == &what).count();
    // The prompt is a text block too.
    assert_eq!(blocks(&json, br#""type":"text""#), MERGED + 1);
    assert_eq!(blocks(&text, b"block "), MERGED);
}

/// Entries of the merged Claude Code message.
const MERGED: usize = 200_000;

/// A Claude Code transcript of one prompt and `n` assistant entries of one response (one
/// `message.id`), a text block each: the view merges them into one message.
fn merged_message(dir: &Path, n: usize) -> PathBuf {
    let path = dir.join("5e55a0c2-0000-4000-8000-000000000000.jsonl");
    let mut out = BufWriter::new(File::create(&path).unwrap());
    let uuid = |i: usize| format!("00000000-0000-4000-8000-{i:012x}");
    let common = r#""isSidechain":false,"sessionId":"5e55a0c2-0000-4000-8000-000000000000","timestamp":"2026-01-01T00:00:00.000Z""#;
    writeln!(
        out,
        r#"{{"parentUuid":null,{common},"type":"user","uuid":"{}","message":{{"role":"user","content":"go"}}}}"#,
        uuid(0)
    )
    .unwrap();
    for i in 1..=n {
        writeln!(
            out,
            r#"{{"parentUuid":"{}",{common},"type":"assistant","uuid":"{}","message":{{"id":"msg_merged","type":"message","role":"assistant","model":"claude-opus-4-6","content":[{{"type":"text","text":"block {i}"}}]}}}}"#,
            uuid(i - 1),
            uuid(i)
        )
        .unwrap();
    }
    out.flush().unwrap();
    path
}
