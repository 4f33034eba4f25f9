//! The command line as a user meets it: inputs of every kind, exit statuses, one-line errors,
//! stdout closed early, and the source left untouched.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // tests fail by panicking

use std::fs;
use std::path::Path;

use crate::common::{META, Scratch, rollcall, stderr_of};

fn one_line_error(path: &Path, args: &[&str], status: i32) -> String {
    let out = rollcall().args(args).arg(path).output().expect("runs");
    assert_eq!(out.status.code(), Some(status), "{}", stderr_of(&out));
    assert!(out.stdout.is_empty());
    let err = stderr_of(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

#[test]
fn missing_file_directory_and_empty_input_exit_1() {
    let dir = Scratch::new("unusable");
    let missing = dir.0.join("nope.jsonl");
    assert_eq!(
        one_line_error(&missing, &["replay"], 1),
        format!(
            "rollcall: {}: cannot open: No such file or directory\n",
            missing.display()
        )
    );
    assert_eq!(
        one_line_error(&dir.0, &["replay"], 1),
        format!(
            "rollcall: {}: is a directory, not a rollout file\n",
            dir.0.display()
        )
    );
    let empty = dir.file("empty.jsonl", "");
    let blank = dir.file("blank.jsonl", "\n  \r\n\t\n");
    for path in [&empty, &blank, Path::new("/dev/null")] {
        assert_eq!(
            one_line_error(path, &["repair-view"], 1),
            format!(
                "rollcall: {}: empty rollout: no record in it\n",
                path.display()
            )
        );
    }
    let unknown = dir.file("unknown.jsonl", "{\"type\":\"thread_goal\"}\n{\"no\":1}\n");
    assert_eq!(
        one_line_error(&unknown, &["replay", "--report"], 1),
        format!(
            "rollcall: {}: not a rollout: no record of a known kind (neither a Codex rollout nor a \
             Claude Code session)\n",
            unknown.display()
        )
    );
}

/// SPEC §5: an export that starts mid-session is replayed, its missing session_meta a finding.
#[test]
fn a_rollout_without_session_meta_is_replayed_with_a_finding() {
    let dir = Scratch::new("no-meta");
    let no_meta = dir.file(
        "no_meta.jsonl",
        "{\"type\":\"item\",\"item\":{\"type\":\"message\",\"role\":\"user\",\"content\":[]}}\n",
    );
    let out = rollcall()
        .args(["replay", "--report", "--json"])
        .arg(&no_meta)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["thread_id"], serde_json::Value::Null);
    assert_eq!(report["no_session_meta"], true);
    assert_eq!(report["history_items"], 1);
    let strict = rollcall()
        .args(["replay", "--strict"])
        .arg(&no_meta)
        .output()
        .expect("runs");
    assert_eq!(strict.status.code(), Some(3));
}

#[test]
fn bad_usage_exits_2() {
    for args in [
        &["replay"][..],
        &["frobnicate", "x"],
        &["repair-view", "--modalities", "text,video", "x"],
        &["repair-view", "--format", "yaml", "x"],
        &["repair-view", "--diff", "--format", "json", "x"],
    ] {
        let out = rollcall().args(args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr_of(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn stdin_is_read_with_a_dash() {
    let input = format!(
        "{META}\n{{\"type\":\"item\",\"item\":{{\"type\":\"function_call\",\"call_id\":\"c\"}}}}\n"
    );
    let out = rollcall()
        .args(["repair-view", "-"])
        .write_stdin(input)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"type\":\"function_call\",\"call_id\":\"c\"}\n{\"type\":\"function_call_output\",\"call_id\":\"c\",\"output\":\"aborted\"}\n"
    );
    let out = rollcall()
        .args(["replay", "-"])
        .write_stdin("")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr_of(&out),
        "rollcall: <stdin>: empty rollout: no record in it\n"
    );
}

#[test]
fn strict_exits_3_on_findings_only() {
    let dir = Scratch::new("strict");
    let clean = dir.file("clean.jsonl", format!("{META}\n"));
    let broken = dir.file("broken.jsonl", format!("{META}\nnot json\n"));
    let open = dir.file(
        "open.jsonl",
        format!("{META}\n{{\"type\":\"turn_started\",\"turn_id\":\"t\"}}\n"),
    );
    let strict = [
        &["replay", "--strict"][..],
        &["repair-view", "--strict"],
        &["replay", "--report", "--strict"],
    ];
    for args in strict {
        rollcall().args(args).arg(&clean).assert().code(0);
        rollcall().args(args).arg(&broken).assert().code(3);
        rollcall().args(args).arg(&open).assert().code(3);
    }
    // A Claude Code session is judged by its view, built for --strict alone too (a pass that
    // prints only the history tells no more than the history needs).
    let claude = |story: &str, id: &str| format!("fixtures/claude/{story}/5e55a0c2-{id}.jsonl");
    let clean = claude("clean_session", "0001-4000-8000-000000000000");
    let open = claude(
        "crash_between_tool_use_and_result",
        "0002-4000-8000-000000000000",
    );
    for args in strict {
        rollcall().args(args).arg(&clean).assert().code(0);
        rollcall().args(args).arg(&open).assert().code(3);
    }
    // Without --strict, findings are reported, not failed on.
    rollcall()
        .arg("replay")
        .arg(&broken)
        .assert()
        .code(0)
        .stderr("");
}

#[test]
fn closed_stdout_ends_quietly() {
    let dir = Scratch::new("pipe");
    let mut big = format!("{META}\n");
    for i in 0..50_000 {
        big.push_str(&format!(
            "{{\"type\":\"item\",\"item\":{{\"type\":\"function_call\",\"call_id\":\"c{i}\"}}}}\n"
        ));
    }
    let path = dir.file("big.jsonl", big);
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "{} repair-view '{}' | head -1; echo \"status=${{PIPESTATUS:-?}}\"",
            assert_cmd::cargo::cargo_bin("rollcall").display(),
            path.display()
        ))
        .output()
        .expect("sh runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("{\"type\":\"function_call\",\"call_id\":\"c0\"}\n"),
        "{stdout}"
    );
    assert!(out.stderr.is_empty(), "{}", stderr_of(&out));

    // The status itself, with bash's PIPESTATUS.
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "{} repair-view '{}' | head -c 10 > /dev/null; echo ${{PIPESTATUS[0]}}",
            assert_cmd::cargo::cargo_bin("rollcall").display(),
            path.display()
        ))
        .output()
        .expect("bash runs");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "0\n");
    assert!(out.stderr.is_empty(), "{}", stderr_of(&out));
}

#[test]
fn source_is_never_changed() {
    let dir = Scratch::new("untouched");
    let content = format!(
        "{META}\nnot json\n{{\"type\":\"item\",\"item\":{{\"type\":\"custom_tool_call\",\"call_id\":\"k\"}}}}\n{{\"type\":\"turn_started\"}}"
    );
    let path = dir.file("s.jsonl", &content);
    let before = fs::metadata(&path).expect("stat");
    std::thread::sleep(std::time::Duration::from_millis(20));
    for args in [
        &["replay"][..],
        &["replay", "--report"],
        &["replay", "--report", "--json", "--strict"],
        &["repair-view"],
        &["repair-view", "--format", "json"],
        &["repair-view", "--format", "text", "--modalities", "text"],
        &["repair-view", "--diff"],
    ] {
        rollcall().args(args).arg(&path).output().expect("runs");
    }
    let after = fs::metadata(&path).expect("stat");
    assert_eq!(fs::read_to_string(&path).expect("read"), content);
    assert_eq!(before.modified().ok(), after.modified().ok());
    assert_eq!(before.len(), after.len());
    let names: Vec<_> = fs::read_dir(&dir.0)
        .expect("list")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(
        names,
        vec![std::ffi::OsString::from("s.jsonl")],
        "no file created beside it"
    );
}

#[test]
fn terminal_output_never_carries_raw_control_characters() {
    let dir = Scratch::new("escapes");
    let evil = r#"\u001b[2J\u001b]0;pwned\u0007\u009b31m\u202e"#;
    let content = format!(
        "{{\"type\":\"session_meta\",\"thread_id\":\"id{evil}\"}}\n\
         {{\"type\":\"item\",\"item\":{{\"type\":\"message\",\"role\":\"user\",\"content\":[{{\"type\":\"input_text\",\"text\":\"hi{evil}\"}}]}}}}\n\
         {{\"type\":\"item\",\"item\":{{\"type\":\"function_call\",\"name\":\"n{evil}\",\"call_id\":\"c{evil}\",\"arguments\":\"{evil}\"}}}}\n\
         {{\"type\":\"turn_started\",\"turn_id\":\"t{evil}\"}}\n\
         {{\"type\":\"kind{evil}\"}}\n"
    );
    let path = dir.file("evil.jsonl", content);
    for args in [
        &["replay", "--report"][..],
        &["repair-view", "--format", "text"],
        &["repair-view", "--diff"],
        &["replay", "--report", "--json"],
        &["repair-view"],
    ] {
        let out = rollcall().args(args).arg(&path).output().expect("runs");
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        let raw = text
            .chars()
            .find(|c| (c.is_control() && *c != '\n') || *c == '\u{202e}');
        // The prompt view prints items verbatim: JSON escapes C0 controls, but C1 and bidi
        // characters may stand raw in JSON text, and a verbatim item keeps them.
        if args == ["repair-view"] {
            assert!(!text.contains('\u{1b}'), "{args:?}");
            continue;
        }
        assert_eq!(
            raw, None,
            "{args:?} printed a raw control character:\n{text}"
        );
        let shown = if args.contains(&"--json") {
            "\\u001b"
        } else {
            "\\u{1b}"
        };
        assert!(text.contains(shown), "{args:?}: escape not shown:\n{text}");
    }
}

/// `rollcall man` prints rollcall(1), and `rollcall man CMD` each command's page, made from the
/// same definitions as --help: every option of a command is on its page.
#[test]
fn manual_pages_for_rollcall_and_each_command() {
    let page = |args: &[&str]| {
        let out = rollcall().arg("man").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let top = page(&[]);
    assert!(top.starts_with(".ie \\n(.g .ds Aq"), "{top}");
    assert!(top.contains(".TH rollcall 1"), "{top}");
    for command in ["replay", "repair-view", "scan", "completions", "man"] {
        assert!(top.contains(&format!("rollcall\\-{}(1)", command.replace('-', "\\-"))));
        let own = page(&[command]);
        let title = format!(".TH rollcall-{command} 1 ");
        assert!(own.contains(&title), "{own}");
        assert!(own.contains(env!("CARGO_PKG_VERSION")), "{own}");
    }
    for flag in [
        "truncation",
        "no\\-resume\\-prep",
        "modalities",
        "no\\-lineage",
    ] {
        assert!(
            page(&["repair-view"]).contains(&format!("\\-\\-{flag}")),
            "{flag}"
        );
    }
    assert!(page(&["scan"]).contains("broken\\-lineage"));
    rollcall().args(["man", "nothing"]).assert().code(2);
}

/// A Claude Code `tool_result` with no string `tool_use_id` is an orphan, listed as null (as a
/// Codex call id that is no string is listed as the JSON value it was), not as the text "null".
#[test]
fn an_orphan_result_without_an_id_is_listed_as_null() {
    let dir = Scratch::new("claude-null-id");
    let entry = |uuid: &str, parent: &str, kind: &str, message: &str| {
        format!(
            r#"{{"parentUuid":{parent},"isSidechain":false,"sessionId":"s","type":"{kind}","message":{message},"uuid":"{uuid}","timestamp":"2026-03-02T09:00:0{}.000Z"}}"#,
            &uuid[1..]
        )
    };
    let log = [
        entry("u1", "null", "user", r#"{"role":"user","content":"hi"}"#),
        entry(
            "u2",
            r#""u1""#,
            "assistant",
            r#"{"id":"m1","role":"assistant","content":[{"type":"text","text":"hello"}]}"#,
        ),
        entry(
            "u3",
            r#""u2""#,
            "user",
            r#"{"role":"user","content":[{"type":"tool_result","content":"stray"}]}"#,
        ),
    ]
    .join("\n");
    let path = dir.file("5e55a0c2-00aa-4000-8000-000000000000.jsonl", log + "\n");
    let out = rollcall()
        .args(["replay", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["dialect"], "claude");
    assert_eq!(
        report["repairs"]["orphan_outputs"],
        serde_json::json!([null])
    );
}

/// The report is tied to the exact bytes it read: their count, and with `--sha256` their
/// SHA-256, from a file (BOM and all), from standard input, and for the decompressed text of a
/// `.jsonl.zst`.
#[test]
fn the_report_names_the_size_and_sha256_of_what_it_read() {
    use sha2::Digest;
    let hex = |bytes: &[u8]| -> String {
        sha2::Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    let dir = Scratch::new("digest");
    let bom = fs::read("fixtures/codex/crlf_bom/rollout.jsonl").unwrap();
    let zst = dir.file("rollout.jsonl.zst", zstd::encode_all(&bom[..], 3).unwrap());
    for (args, stdin) in [
        (vec!["fixtures/codex/crlf_bom/rollout.jsonl"], None),
        (vec!["-"], Some(bom.clone())),
        (vec![zst.to_str().unwrap()], None),
    ] {
        for (flags, sha256) in [
            (&["--json", "--sha256"][..], serde_json::json!(hex(&bom))),
            (&["--json"], serde_json::Value::Null),
        ] {
            let mut cmd = rollcall();
            cmd.args(["replay"]).args(flags).args(&args);
            if let Some(bytes) = &stdin {
                cmd.write_stdin(bytes.clone());
            }
            let out = cmd.output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
            let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(report["size"], bom.len(), "{args:?} {flags:?}");
            assert_eq!(report["sha256"], sha256, "{args:?} {flags:?}");
        }
    }
    let human = |flag| {
        let out = rollcall()
            .args(["replay", flag, "fixtures/codex/crlf_bom/rollout.jsonl"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let with = human("--sha256");
    let input = format!("input            {} bytes", bom.len());
    assert!(
        with.contains(&format!("{input}, sha256 {}\n", hex(&bom))),
        "{with}"
    );
    let without = human("--report");
    assert!(without.contains(&format!("{input}\n")), "{without}");
}

/// Issue 22: a Claude Code `tool_use` whose `input` is a string that starts like JSON and does
/// not parse, or whose name holds a control character, is a warning with its line, when it is
/// on the chain resume sends; a branch resume does not take is not looked at.
#[test]
fn claude_tool_uses_the_api_may_refuse_are_warnings_with_their_line() {
    let dir = Scratch::new("claude-tool-faults");
    let entry = |uuid: &str, parent: &str, kind: &str, message: &str| {
        format!(
            r#"{{"parentUuid":{parent},"isSidechain":false,"sessionId":"s","type":"{kind}","message":{message},"uuid":"{uuid}","timestamp":"2026-03-02T09:00:0{}.000Z"}}"#,
            &uuid[1..]
        )
    };
    let tool_use = |id: &str, name: &str, input: &str| {
        format!(
            r#"{{"id":"m{id}","role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"{name}","input":{input}}}]}}"#
        )
    };
    let result = |id: &str| {
        format!(
            r#"{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":"ok"}}]}}"#
        )
    };
    let log = [
        entry(
            "u1",
            "null",
            "user",
            r#"{"role":"user","content":"list it"}"#,
        ),
        // A branch resume does not take (the leaf written last is on the other one).
        entry(
            "u2",
            r#""u1""#,
            "assistant",
            &tool_use("t0", r"Bash\u0007", r#"{"command":"ls"}"#),
        ),
        entry(
            "u3",
            r#""u1""#,
            "assistant",
            &tool_use("t1", "Bash", r#""{\"command\": \"ls -la /tm""#),
        ),
        entry("u4", r#""u3""#, "user", &result("t1")),
        entry(
            "u5",
            r#""u4""#,
            "assistant",
            &tool_use("t2", r"Read\u001b", r#"{"file_path":"/a"}"#),
        ),
        entry("u6", r#""u5""#, "user", &result("t2")),
        // A string input that parses, and one that does not start like JSON: nothing to say.
        entry(
            "u7",
            r#""u6""#,
            "assistant",
            &tool_use("t3", "Bash", r#""{\"command\": \"ls\"}""#),
        ),
        entry("u8", r#""u7""#, "user", &result("t3")),
        entry(
            "u9",
            r#""u8""#,
            "assistant",
            &tool_use("t4", "Bash", r#""ls -la""#),
        ),
    ]
    .join("\n");
    let path = dir.file("5e55a0c2-00ab-4000-8000-000000000000.jsonl", log + "\n");
    let out = rollcall()
        .args(["replay", "--report", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let found: Vec<(String, u64, String)> = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["code"].as_str().is_some_and(|c| c.contains("tool")))
        .map(|p| {
            (
                p["code"].as_str().unwrap().to_owned(),
                p["line"].as_u64().unwrap(),
                p["severity"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let warning = |code: &str, line| (code.to_owned(), line, "warning".to_owned());
    assert_eq!(
        found,
        [
            warning("invalid-tool-arguments", 3),
            warning("tool-name-control-characters", 5)
        ]
    );
}
