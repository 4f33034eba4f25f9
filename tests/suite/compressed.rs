//! Compressed rollouts, read back by decompressing them again. (A decompression bomb's bounded
//! memory is `tests/memory.rs`'s.)
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // tests fail by panicking

use std::io::Write;
use std::time::Duration;

use crate::common::{binary, run};

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
