//! Throughput of the library on a generated Codex-shaped rollout held in memory: replay with the
//! report, and replay with the prompt view printed. `cargo bench --bench pipeline`;
//! `scripts/bench.sh` measures the whole binary against `cat`.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::hint::black_box;
use std::io::Write;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rollcall::{Format, Job, Loaded};

/// A rollout of about `mb` megabytes: turns of user messages (some with images), reasoning,
/// tool calls with escape-heavy outputs, events; every fifth call left unanswered.
fn rollout(mb: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(mb << 20);
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let base64: String = (0..200_000)
        .map(|i| (b'A' + (i % 26) as u8) as char)
        .collect();
    writeln!(out, r#"{{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{{"id":"bench","cwd":"/r"}}}}"#).unwrap();
    let mut call = 0;
    while out.len() < mb << 20 {
        let image = if next() % 30 == 0 {
            let len = 20_000 + (next() % 180_000) as usize;
            format!(
                r#",{{"type":"input_image","image_url":"data:image/png;base64,{}"}}"#,
                &base64[..len]
            )
        } else {
            String::new()
        };
        writeln!(
            out,
            r#"{{"type":"event_msg","payload":{{"type":"task_started","turn_id":"t{call}"}}}}"#
        )
        .unwrap();
        writeln!(out, r#"{{"type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":"please fix the \"bug\"\n"}}{image}]}}}}"#).unwrap();
        writeln!(out, r#"{{"type":"response_item","payload":{{"type":"reasoning","summary":[],"encrypted_content":"{}"}}}}"#, &base64[..2_000 + (next() % 6_000) as usize]).unwrap();
        for _ in 0..1 + next() % 4 {
            call += 1;
            writeln!(out, r#"{{"type":"response_item","payload":{{"type":"function_call","name":"shell","arguments":"{{\"cmd\":\"ls -la\"}}","call_id":"call_{call}"}}}}"#).unwrap();
            if call % 5 != 0 {
                let lines = (next() % 200) as usize;
                let body =
                    "drwxr-xr-x  2 user user 4096 Jan  1 00:00 \\u00e9t\\u00e9\\n".repeat(lines);
                writeln!(out, r#"{{"type":"response_item","payload":{{"type":"function_call_output","call_id":"call_{call}","output":"{body}"}}}}"#).unwrap();
            }
        }
        writeln!(out, r#"{{"type":"event_msg","payload":{{"type":"token_count","info":{{"total":{{"input_tokens":{}}}}}}}}}"#, next() % 100_000).unwrap();
        writeln!(
            out,
            r#"{{"type":"event_msg","payload":{{"type":"task_complete","turn_id":"t{call}"}}}}"#
        )
        .unwrap();
    }
    out
}

fn stages(c: &mut Criterion) {
    let input = rollout(32);
    let mut group = c.benchmark_group("pipeline");
    group.throughput(Throughput::Bytes(input.len() as u64));
    group.sample_size(10);

    group.bench_function("replay + report (replay --report --json)", |b| {
        b.iter(|| {
            let session = Loaded::from_bytes(&input).unwrap();
            let mut out = Vec::new();
            session
                .render(Job::Report { json: true }, &mut out)
                .unwrap();
            black_box(out.len())
        });
    });
    group.bench_function("replay + prompt view (repair-view)", |b| {
        b.iter(|| {
            let session = Loaded::from_bytes(&input).unwrap();
            let mut out = Vec::new();
            let job = Job::View {
                format: Format::Jsonl,
                settings: Default::default(),
            };
            session.render(job, &mut out).unwrap();
            black_box(out.len())
        });
    });
    group.finish();
}

criterion_group!(benches, stages);
criterion_main!(benches);
