//! Peak memory of rollcall on inputs that used to cost it far more than their size. A binary of
//! its own: the kernel's count of a child's peak memory includes this process's peak at the
//! moment it started the child, so this process stays small (inputs are written to files as
//! they are made, never held), and no other subject's tests run beside these.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{META, SESSION_COMMANDS, Scratch, binary, run};
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

/// An endless line (hostile round two: `replay --report /dev/zero` died on an allocation) ends
/// in little memory in every command, from a file and from standard input, with a lower cap
/// than the default.
#[test]
fn endless_lines_stay_small() {
    for args in SESSION_COMMANDS {
        for from_stdin in [false, true] {
            let mut cmd = Command::new(binary());
            cmd.args(["--max-line-bytes", "4194304"]).args(args);
            if from_stdin {
                cmd.arg("-").stdin(File::open("/dev/zero").unwrap());
            } else {
                cmd.arg("/dev/zero");
            }
            let out = run(&mut cmd, Duration::from_secs(60));
            assert_eq!(out.status, 1, "{args:?} {from_stdin}: {}", out.stderr);
            let peak = out.peak_kib;
            assert!(peak < 64 << 10, "{args:?} stdin {from_stdin}: {peak} KiB");
        }
    }
}

/// A compressed rollout stops with a clear one-line error after a bounded amount of work, never
/// hanging or filling the temporary folder.
#[test]
fn a_decompression_bomb_stops_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("codex/sessions/2026/05/01");
    std::fs::create_dir_all(&sessions).unwrap();
    let path =
        sessions.join("rollout-2026-05-01T10-00-00-019c1f40-2b7e-7a9d-8c31-6d5e4f3a2b10.jsonl.zst");
    let mut encoder = zstd::Encoder::new(std::fs::File::create(&path).unwrap(), 3).unwrap();
    encoder
        .write_all(
            br#"{"type":"session_meta","payload":{"id":"019c1f40-2b7e-7a9d-8c31-6d5e4f3a2b10"}}"#,
        )
        .unwrap();
    encoder.write_all(b"\n").unwrap();
    // One line of 72 MiB, just past the 64 MiB that is never judged: a few kilobytes.
    let run_of = vec![b'x'; 1 << 20];
    for _ in 0..72 {
        encoder.write_all(&run_of).unwrap();
    }
    encoder.finish().unwrap();
    let compressed = std::fs::metadata(&path).unwrap().len();
    assert!(compressed < 64 << 10, "{compressed}");
    let spool = dir.path().join("tmp");
    std::fs::create_dir(&spool).unwrap();
    for args in [&["replay", "--report"][..], &["repair-view"], &["scan"]] {
        let mut cmd = std::process::Command::new(binary());
        cmd.env("TMPDIR", &spool)
            .env("CODEX_HOME", dir.path().join("codex"))
            .env("CLAUDE_CONFIG_DIR", dir.path().join("none"))
            .args(args);
        if args[0] != "scan" {
            cmd.arg(&path);
        }
        let out = run(&mut cmd, Duration::from_secs(60));
        let said = format!("{}{}", out.stderr, String::from_utf8_lossy(&out.stdout));
        assert!(said.contains("decompression bomb"), "{args:?}: {said}");
        if args[0] != "scan" {
            assert_eq!(out.status, 1, "{args:?}");
            assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
        }
        assert!(out.peak_kib < 96 << 10, "{args:?}: {} KiB", out.peak_kib);
        assert_eq!(std::fs::read_dir(&spool).unwrap().count(), 0);
    }
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
