//! What must hold for any input, as one check that the hostile-input property tests and the fuzz
//! target share: no panic; counts that agree; every view entry a JSON object; the prompt view of a
//! prompt view is itself (SPEC §6.1); no raw control character in human output.
#![allow(clippy::panic, clippy::expect_used)] // a broken invariant panics, as tests and fuzzers expect

use crate::app::Loaded;
use crate::codex::models::Modalities;
use crate::render::{Format, Job};
use crate::session::ViewSettings;

/// A count of the JSON report, which must be there.
fn count(report: &serde_json::Value, key: &str) -> u64 {
    report[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key}: {}", report[key]))
}

/// The JSON report's counts agree with each other: every line is a record, a parse error or
/// blank; each parse error has its line, ascending; a torn tail is the last line.
pub fn check_report_counts(report: &serde_json::Value) {
    let n = |key: &str| count(report, key);
    assert_eq!(
        n("records") + n("parse_errors") + n("blank_lines"),
        n("lines"),
        "line counts"
    );
    let error_lines = report["error_lines"].as_array().expect("error_lines");
    assert_eq!(error_lines.len() as u64, n("parse_errors"));
    assert!(
        error_lines
            .windows(2)
            .all(|w| w[0].as_u64() < w[1].as_u64())
    );
    if report["torn_tail"] == true {
        assert_eq!(error_lines.last(), Some(&report["lines"]), "torn tail line");
    }
}

/// Every modality set.
fn all_modalities() -> [Modalities; 4] {
    [(false, false), (true, false), (false, true), (true, true)]
        .map(|(image, audio)| Modalities { image, audio })
}

/// Runs `bytes` through loading, the report and every renderer, panicking on a broken invariant.
pub fn check_pipeline(bytes: &[u8]) {
    let session = match Loaded::from_bytes(bytes) {
        Ok(session) => session,
        Err(failure) => {
            assert_eq!(failure.status, crate::exit::Status::Unusable, "{failure}");
            return;
        }
    };
    let report = render(&session, Job::Report { json: true });
    let report: serde_json::Value = serde_json::from_slice(&report).expect("the report is JSON");
    check_report_counts(&report);
    let history = render(&session, Job::History);
    assert_eq!(
        history
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .count() as u64,
        count(&report, "history_items")
    );

    for modalities in all_modalities() {
        let settings = ViewSettings {
            modalities: Some(modalities),
            ..ViewSettings::default()
        };
        let view = render(
            &session,
            Job::View {
                format: Format::Jsonl,
                settings: settings.clone(),
            },
        );
        for entry in view.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let text = String::from_utf8_lossy(entry);
            // JSON as strict parsers take it, lone surrogate escapes included (serde_json's
            // `Value` refuses those).
            let valid = crate::json::validate(&text);
            assert!(
                valid.is_ok() && text.starts_with('{'),
                "not a JSON object: {text}"
            );
        }
        // The view fed back as the mini dialect's replacement history (installed as it is, with
        // no resume preparation) is itself.
        let mut again = br#"{"type":"session_meta","thread_id":"t"}
{"type":"compacted","replacement_history":["#
            .to_vec();
        for (i, entry) in view
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .enumerate()
        {
            if i > 0 {
                again.push(b',');
            }
            again.extend_from_slice(entry);
        }
        again.extend_from_slice(b"]}");
        let again = Loaded::from_bytes(&again).expect("a view replays");
        let twice = render(
            &again,
            Job::View {
                format: Format::Jsonl,
                settings: settings.clone(),
            },
        );
        assert_eq!(
            String::from_utf8_lossy(&twice),
            String::from_utf8_lossy(&view),
            "the view of the view differs"
        );
        for job in [
            Job::Diff {
                settings: settings.clone(),
            },
            Job::View {
                format: Format::Json,
                settings: settings.clone(),
            },
            Job::View {
                format: Format::Text,
                settings,
            },
        ] {
            render(&session, job);
        }
    }
    render(&session, Job::Report { json: false });
}

/// What `job` prints; human output is checked for raw control characters.
fn render(session: &Loaded, job: Job) -> Vec<u8> {
    let mut out = Vec::new();
    session
        .render(job.clone(), &mut out)
        .unwrap_or_else(|e| panic!("{job:?}: {e}"));
    let human = matches!(
        job,
        Job::Diff { .. }
            | Job::Report { json: false }
            | Job::View {
                format: Format::Text,
                ..
            }
    );
    if human {
        let text = String::from_utf8_lossy(&out);
        let raw = text.chars().find(|&c| c.is_control() && c != '\n');
        assert_eq!(raw, None, "{job:?} printed a raw control character");
    }
    out
}
