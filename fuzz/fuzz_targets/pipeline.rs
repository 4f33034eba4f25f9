//! Fuzzes the whole pipeline on arbitrary bytes: load → replay → normalize → render, in every
//! output format and for every modality set, checking the invariants that hold for any input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rollcall::cli::{Config, Format, Input, Job};
use rollcall::normalize::{self, Modalities};
use rollcall::replay::{self, Unusable};

fuzz_target!(|data: &[u8]| pipeline(data));

fn pipeline(data: &[u8]) {
    let state = match replay::replay(data, true, &mut |_| {}) {
        Ok(state) => state,
        Err(replay::Error::Unusable(Unusable::Empty | Unusable::NoSessionMeta)) => return,
        Err(replay::Error::Io(e)) => panic!("reading a byte slice failed: {e}"),
    };
    let errors = state.error_lines.len() as u64;
    assert_eq!(state.records + errors + state.blank_lines, state.lines);
    assert!(state.error_lines.is_sorted());
    if state.torn_tail {
        assert_eq!(state.error_lines.last(), Some(&state.lines));
    }

    let all = [false, true];
    let modality_sets = all
        .iter()
        .flat_map(|&image| all.map(|audio| Modalities { image, audio }));
    let mut jobs = vec![
        Job::History,
        Job::Report { json: false },
        Job::Report { json: true },
    ];
    for modalities in modality_sets {
        let view = normalize::normalize(&state.history, modalities);
        for (_, _, text) in view.entries() {
            // IgnoredAny validates without recursion: items may nest deeper than a `Value` may.
            let parsed: Result<serde::de::IgnoredAny, _> = serde_json::from_str(&text);
            assert!(parsed.is_ok(), "view entry is not JSON: {text}");
        }
        jobs.push(Job::Diff { modalities });
        for format in [Format::Jsonl, Format::Json, Format::Text] {
            jobs.push(Job::View { format, modalities });
        }
    }
    for job in jobs {
        let config = Config {
            input: Input::Stdin,
            job,
            strict: false,
            color: false,
            progress: false,
        };
        let mut out = Vec::new();
        if let Err(e) = rollcall::render::render(&config, "fuzz.jsonl", &state, &mut out) {
            panic!("{job:?}: writing to memory failed: {e}");
        }
        match job {
            Job::Report { json: true } => {
                let parsed: Result<serde::de::IgnoredAny, _> = serde_json::from_slice(&out);
                assert!(parsed.is_ok(), "the JSON report is not JSON");
            }
            // Human output never passes a raw control character to a terminal.
            Job::Report { json: false }
            | Job::Diff { .. }
            | Job::View {
                format: Format::Text,
                ..
            } => {
                let text = String::from_utf8_lossy(&out);
                let raw = text.chars().find(|&c| c.is_control() && c != '\n');
                assert_eq!(raw, None, "{job:?} printed a raw control character");
            }
            Job::History
            | Job::View {
                format: Format::Jsonl | Format::Json,
                ..
            } => {}
        }
    }
}
