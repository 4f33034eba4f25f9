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
}
