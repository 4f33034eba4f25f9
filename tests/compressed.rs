//! Compressed rollouts: a decompression bomb stops with a clear one-line error after a bounded
//! amount of work, never hanging or filling the temporary folder.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // tests fail by panicking

use std::io::Write;
use std::time::Duration;

mod common;
use common::{binary, run};

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

/// A compressed rollout larger than what is held in memory is read back by decompressing it
/// again, never by copying it into the temporary folder: the view is the plain file's, with a
/// `TMPDIR` that cannot be written to.
#[test]
fn a_large_compressed_rollout_is_read_back_without_a_temporary_copy() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("rollout.jsonl");
    let mut text = String::from(
        "{\"type\":\"session_meta\",\"payload\":{\"id\":\"019c1f40-2b7e-7a9d-8c31-6d5e4f3a2b10\"}}\n",
    );
    // 40 MiB of calls and outputs, every other call unanswered: the view reads items back from
    // all over the file, in order, and inserts outputs between them.
    let filler = "y".repeat(8 << 10);
    for i in 0..10_000 {
        text.push_str(&format!(
            "{{\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call\",\"call_id\":\"c{i}\",\"name\":\"f\",\"arguments\":\"{{}}\"}}}}\n"
        ));
        if i % 2 == 0 {
            text.push_str(&format!(
                "{{\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call_output\",\"call_id\":\"c{i}\",\"output\":\"{filler}\"}}}}\n"
            ));
        }
    }
    assert!(text.len() > 32 << 20);
    std::fs::write(&plain, &text).unwrap();
    let compressed = dir.path().join("rollout.jsonl.zst");
    let mut encoder = zstd::Encoder::new(std::fs::File::create(&compressed).unwrap(), 1).unwrap();
    encoder.write_all(text.as_bytes()).unwrap();
    encoder.finish().unwrap();
    let no_tmp = dir.path().join("no-such-folder");
    let view = |path: &std::path::Path| {
        let mut cmd = std::process::Command::new(binary());
        cmd.env("TMPDIR", &no_tmp)
            .args(["repair-view", "--no-lineage", "--model", "gpt-5.5"])
            .arg(path);
        let out = run(&mut cmd, Duration::from_secs(120));
        assert_eq!(out.status, 0, "{}", out.stderr);
        out.stdout
    };
    let from_plain = view(&plain);
    assert!(from_plain.len() > 32 << 20);
    assert!(
        from_plain == view(&compressed),
        "the compressed file's view differs"
    );
}
