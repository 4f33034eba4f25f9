//! Hostile input, round two: each test is named after a way an attacker or an unlucky disk broke
//! a promise of the README, and holds rollcall to it. (The first round is `hostile.rs`.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::{META, Run, SESSION_COMMANDS, Scratch, binary, run};
use serde_json::{Value, json};

const LIMIT: Duration = Duration::from_secs(60);

fn rollcall() -> Command {
    let mut cmd = Command::new(binary());
    cmd.args(["--color", "never"]).env_remove("CODEX_HOME");
    cmd
}

/// A character that must not reach a terminal raw (as the README lists them).
fn unsafe_char(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(
            c,
            '\u{00AD}'
                | '\u{061C}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{E0000}'..='\u{E007F}'
        )
}

fn assert_no_unsafe_char(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let found: Vec<char> = text.chars().filter(|&c| unsafe_char(c)).collect();
    assert!(found.is_empty(), "{what}: raw {found:?}");
}

fn output(args: &[&str], path: &Path) -> Run {
    run(rollcall().args(args).arg(path), LIMIT)
}

/// An orphan output whose `call_id` is an array or an object full of what a terminal acts on, or
/// a lone surrogate: it was copied into the JSON report raw, and made it invalid JSON for strict
/// parsers.
#[test]
fn json_report_injection() {
    let dir = Scratch::new("json-injection");
    // Raw in the log (JSON allows DEL, C1 and the rest unescaped inside strings), and escaped.
    let raw = "\u{7f}|\u{9b}2J|\u{202e}|\u{2066}|\u{200b}|\u{feff}|\u{e0041}";
    let lines = [
        META.to_string(),
        format!(
            r#"{{"type":"item","item":{{"type":"function_call_output","call_id":["{raw}","\u009b31m","\ud800"],"output":"x"}}}}"#
        ),
        format!(
            r#"{{"type":"item","item":{{"type":"custom_tool_call_output","call_id":{{"k{raw}":"\udc00","n":[1.50,-0.0]}},"output":"x"}}}}"#
        ),
    ];
    let path = dir.file("injection.jsonl", lines.join("\n") + "\n");

    let json = output(&["replay", "--report", "--json"], &path);
    assert_eq!(json.status, 0, "{}", json.stderr);
    // Nothing raw, and valid JSON for a strict parser (a lone surrogate would not be).
    assert_no_unsafe_char("JSON report", &json.stdout);
    let text = std::str::from_utf8(&json.stdout).expect("UTF-8");
    let report: Value = serde_json::from_str(text).expect("strict JSON");
    assert_eq!(
        report["repairs"]["orphan_outputs"],
        json!([
            [raw, "\u{9b}31m", "\u{fffd}"],
            {"k".to_owned() + raw: "\u{fffd}", "n": [1.50, -0.0]}
        ])
    );
    // The human report and the diff say it escaped.
    for args in [&["replay", "--report"][..], &["repair-view", "--diff"]] {
        let human = output(args, &path);
        assert_eq!(human.status, 0, "{args:?}: {}", human.stderr);
        assert_no_unsafe_char(&format!("{args:?}"), &human.stdout);
    }
    let human = String::from_utf8(output(&["replay", "--report"], &path).stdout).unwrap();
    assert!(
        human.contains(r#"\u{7f}|\u{9b}2J|\u{202e}|\u{2066}|\u{200b}|\u{feff}|\u{e0041}"#),
        "{human}"
    );
}

/// Lone-surrogate call ids were keyed as the supplementary characters whose UTF-8 they share
/// bytes with, so `"\ud800"` was "answered" by U+10F000 (and `"\udbc0\udc00"`'s neighbours):
/// both the synthetic output and the orphan removal were lost.
#[test]
fn call_id_collisions() {
    let dir = Scratch::new("call-id-collisions");
    let call = |id: &str| {
        format!(r#"{{"type":"function_call","call_id":"{id}","name":"f","arguments":"{{}}"}}"#)
    };
    let out =
        |id: &str| format!(r#"{{"type":"function_call_output","call_id":"{id}","output":"ok"}}"#);
    // U+10F000 is \udbfc\udc00 and U+F0000 is \udb80\udc00, written raw or escaped.
    let items = [
        call(r"\ud800"),
        out(r"\udbfc\udc00"),
        call(r"\udc00"),
        out("\u{f0000}"),
        call(r"\ud800\udc00"),
        out("\u{10000}"),
    ];
    let mut log = format!("{META}\n");
    for item in &items {
        log.push_str(&format!(
            "{{\"type\":\"response_item\",\"payload\":{item}}}\n"
        ));
    }
    let path = dir.file("collisions.jsonl", log);
    let view = output(&["repair-view"], &path);
    assert_eq!(view.status, 0, "{}", view.stderr);
    let view = String::from_utf8(view.stdout).unwrap();
    // The two lone-surrogate calls get outputs, the two outputs that answer nothing go; the
    // escaped surrogate pair and the raw U+10000 are one id, and pair.
    assert_eq!(
        view.lines().collect::<Vec<_>>(),
        [
            &*items[0],
            r#"{"type":"function_call_output","call_id":"\ud800","output":"aborted"}"#,
            &items[2],
            r#"{"type":"function_call_output","call_id":"\udc00","output":"aborted"}"#,
            &items[4],
            &items[5],
        ]
    );
    let report: Value =
        serde_json::from_slice(&output(&["replay", "--json"], &path).stdout).unwrap();
    assert_eq!(
        report["repairs"],
        json!({
            "missing_outputs": ["\u{fffd}", "\u{fffd}"],
            "orphan_outputs": ["\u{10f000}", "\u{f0000}"],
            "images_replaced": 0,
            "audio_replaced": 0,
            "outputs_truncated": 0,
            "media_prepared": 0,
            "images_codex_would_resize": 0,
            "dropped_items": [],
        })
    );
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

fn symlink(target: &Path, link: &Path) {
    fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// A `rollout-*.jsonl` link to a FIFO hung `scan` forever, one to `/dev/zero` killed it on a
/// 4 GiB allocation, and a look-up by thread id followed them too. Only regular files are read
/// where rollcall finds files itself; the others are rows that say what they are.
#[test]
fn scan_and_lookup_follow_links_to_anything() {
    let dir = Scratch::new("links-to-anything");
    let home = dir.0.join("home");
    let day = home.join(".codex/sessions/2026/05/01");
    let id = |n: u32| format!("019e{n:04x}-0000-7000-8000-00000000{n:04x}");
    let rollout = |n: u32| day.join(format!("rollout-2026-05-01T10-00-0{n}-{}.jsonl", id(n)));
    let fifo = dir.0.join("fifo");
    mkfifo(&fifo);
    symlink(&fifo, &rollout(1));
    symlink(Path::new("/dev/zero"), &rollout(2));
    symlink(&dir.0.join("nowhere"), &rollout(3));
    mkfifo(&rollout(4));
    fs::write(rollout(5), format!("{META}\n")).unwrap();
    // Claude Code's home: a session file that is a link to a FIFO.
    // (Another FIFO: links to one file are listed once.)
    let claude = home.join(".claude/projects/-srv/5e55a0c2-00ff-4000-8000-000000000000.jsonl");
    let other_fifo = dir.0.join("other-fifo");
    mkfifo(&other_fifo);
    symlink(&other_fifo, &claude);
    // A fork whose parent is a FIFO: the parent is not found, and nothing hangs.
    let parent_id = id(6);
    let parent_fifo = dir.0.join("parent-fifo");
    mkfifo(&parent_fifo);
    symlink(&parent_fifo, &rollout(6));
    let fork = day.join(format!("rollout-2026-05-01T11-00-00-{}.jsonl", id(7)));
    fs::write(
        &fork,
        format!(
            "{{\"timestamp\":\"t\",\"ordinal\":3,\"type\":\"session_meta\",\"payload\":{{\"id\":\"{}\",\"history_mode\":\"paginated\",\"history_base\":{{\"thread_id\":\"{parent_id}\",\"end_ordinal_exclusive\":3,\"end_byte_offset\":100}}}}}}\n",
            id(7)
        ),
    )
    .unwrap();

    let scan = |args: &[&str]| run(rollcall().env("HOME", &home).arg("scan").args(args), LIMIT);
    let out = scan(&["--json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let rows: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let row = |path: &Path| {
        rows.iter()
            .find(|r| r["path"] == json!(path.display().to_string()))
            .unwrap_or_else(|| panic!("no row for {}: {rows:#?}", path.display()))
    };
    for (path, what) in [
        (rollout(1), "is a FIFO, not a regular file: not read"),
        (rollout(2), "is a device, not a regular file: not read"),
        (rollout(4), "is a FIFO, not a regular file: not read"),
        (claude.clone(), "is a FIFO, not a regular file: not read"),
    ] {
        assert_eq!(
            row(&path)["status"],
            json!("unusable"),
            "{}",
            path.display()
        );
        assert_eq!(row(&path)["error"], json!(what), "{}", path.display());
    }
    assert_eq!(row(&rollout(3))["status"], json!("unusable"));
    assert_eq!(row(&rollout(5))["status"], json!("ok"));
    assert_eq!(row(&fork)["status"], json!("broken-lineage"));
    // In CI: the scan ends, and fails.
    assert_eq!(scan(&["--strict"]).status, 3);

    // Look-up by id names what it found, and does not read it.
    for (n, what) in [(1, "a FIFO"), (2, "a device"), (4, "a FIFO")] {
        let out = run(
            rollcall()
                .env("HOME", &home)
                .args(["replay", "--report", &id(n)]),
            LIMIT,
        );
        assert_eq!(out.status, 1);
        assert_eq!(
            out.stderr,
            format!(
                "rollcall: {}: found {}, which is {what}, not a regular file: not read\n",
                id(n),
                rollout(n).display()
            )
        );
    }
    let out = run(
        rollcall()
            .env("HOME", &home)
            .args(["repair-view", "5e55a0c2-00ff-4000-8000-000000000000"]),
        LIMIT,
    );
    assert_eq!(out.status, 1, "{}", out.stderr);
    assert!(out.stderr.contains("which is a FIFO"), "{}", out.stderr);
    let report: Value = serde_json::from_slice(
        &run(
            rollcall()
                .env("HOME", &home)
                .args(["replay", "--json", &id(7)]),
            LIMIT,
        )
        .stdout,
    )
    .unwrap();
    assert_eq!(report["findings"][0]["kind"], json!("missing_parent"));
}

/// `replay --report /dev/zero` died on an allocation: an endless line must end with a clear
/// finding, in every command, from a file and from standard input, in little memory.
#[test]
fn endless_lines() {
    for args in SESSION_COMMANDS {
        for from_stdin in [false, true] {
            let mut cmd = rollcall();
            cmd.args(["--max-line-bytes", "4194304"]).args(args);
            let name = if from_stdin {
                cmd.arg("-").stdin(fs::File::open("/dev/zero").unwrap());
                "<stdin>"
            } else {
                cmd.arg("/dev/zero");
                "/dev/zero"
            };
            let out = run(&mut cmd, LIMIT);
            assert_eq!(out.status, 1, "{args:?} {name}: {}", out.stderr);
            assert!(out.stdout.is_empty(), "{args:?} {name}");
            assert_eq!(
                out.stderr,
                format!(
                    "rollcall: {name}: line 1 is longer than 4194304 bytes (--max-line-bytes) \
                     and the input may never end, so reading stopped there: not a rollout\n"
                ),
                "{args:?}"
            );
        }
    }
    // (`memory.rs` holds them to little memory, with this cap and the default one.)

    // A regular file with a line over the cap: a parse error, the rest read, in scan too.
    let dir = Scratch::new("endless-lines");
    let sessions = dir.0.join("sessions");
    fs::create_dir_all(&sessions).unwrap();
    let mut text = format!("{META}\n");
    text.push_str(&"z".repeat(3 << 20));
    text.push('\n');
    text.push_str(
        r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[]}}"#,
    );
    text.push('\n');
    let path = sessions.join("rollout-2026-05-01T10-00-00-long.jsonl");
    fs::write(&path, text).unwrap();
    let out = run(
        rollcall()
            .args(["--max-line-bytes", "1048576", "replay", "--json"])
            .arg(&path),
        LIMIT,
    );
    assert_eq!(out.status, 0, "{}", out.stderr);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["error_lines"], json!([2]));
    assert_eq!(report["history_items"], json!(1));
    let out = run(
        rollcall()
            .args(["--max-line-bytes", "1048576", "scan", "--json"])
            .arg(&sessions),
        LIMIT,
    );
    let row: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(row["status"], json!("damaged"));
    assert_eq!(row["parse_errors"], json!(1));
}

/// Many legacy compactions after many user messages took time in the square of the log (a
/// 6 MB file: 11–16 s). The unit test `legacy_compactions_cost_what_came_since_the_last_one`
/// counts the work; this one checks that what such a file gives is right.
#[test]
fn quadratic_legacy_compactions() {
    let dir = Scratch::new("legacy-compactions");
    let n = 20_000;
    let mut text = format!("{META}\n");
    for i in 0..n {
        text.push_str(&format!(
            r#"{{"type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":"question {i}"}}]}}}}"#
        ));
        text.push('\n');
        text.push_str(&format!(
            r#"{{"type":"compacted","payload":{{"message":"summary {i}"}}}}"#
        ));
        text.push('\n');
    }
    let path = dir.file("compactions.jsonl", text);
    let out = output(&["replay"], &path);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let history = String::from_utf8(out.stdout).unwrap();
    let texts: Vec<String> = history
        .lines()
        .map(|line| {
            let item: Value = serde_json::from_str(line).unwrap();
            item["content"][0]["text"].as_str().unwrap().to_string()
        })
        .collect();
    // Every text is a user message (none starts with Codex's summary prefix), so each
    // compaction keeps the newest that fit 20,000 tokens and adds its summary: the history ends
    // with the last question and summary, and all of it fits the budget but for one last
    // summary's worth.
    assert_eq!(
        texts[texts.len() - 2..],
        [format!("question {}", n - 1), format!("summary {}", n - 1)]
    );
    let kept: usize = texts[..texts.len() - 1]
        .iter()
        .map(|t| t.len().div_ceil(4))
        .sum();
    assert!(kept <= 20_000 && kept > 19_990, "{kept}");
    // Alternately "question i" and "summary i", newest last.
    for pair in texts.windows(2) {
        let number = |t: &str| t.rsplit(' ').next().unwrap().parse::<u32>().unwrap();
        let (a, b) = (&pair[0], &pair[1]);
        if a.starts_with("question") {
            assert_eq!(
                (b.as_str(), number(a)),
                (&*format!("summary {}", number(a)), number(b))
            );
        } else {
            assert_eq!(b, &format!("question {}", number(a) + 1));
        }
    }
}

/// Where no thread can be started (a container's process limit), rollcall panicked with status
/// 101; it must run on one thread. The limit is set with `prlimit`, as a user for whom it holds
/// (root ignores it, so root runs the binary as `nobody`).
#[test]
fn no_threads() {
    let tools = ["prlimit", "setpriv"].iter().all(|tool| {
        Command::new(tool)
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    assert!(tools, "this test needs prlimit and setpriv (util-linux)");
    // Readable by anyone, as the binary is.
    let shared = std::env::temp_dir().join(format!("rollcall-no-threads-{}", std::process::id()));
    fs::create_dir_all(&shared).unwrap();
    let fixture = Path::new("fixtures/codex/crash_mid_tool_call/rollout.jsonl");
    let file = shared.join("rollout.jsonl");
    fs::copy(fixture, &file).unwrap();
    let sessions = shared.join("sessions/2026/02/11");
    fs::create_dir_all(&sessions).unwrap();
    fs::copy(
        fixture,
        sessions.join("rollout-2026-02-11T09-14-02-019c1f40-2b7e-7a9d-8c31-6d5e4f3a2b10.jsonl"),
    )
    .unwrap();
    let _ = Command::new("chmod")
        .args(["-R", "a+rX"])
        .arg(&shared)
        .status();
    let root = unsafe { libc::geteuid() } == 0;
    let limited = |args: &[&dyn AsRef<std::ffi::OsStr>]| {
        let mut cmd = Command::new("prlimit");
        cmd.arg("--nproc=1");
        if root {
            cmd.args([
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
            ]);
        }
        cmd.arg(binary()).args(["--color", "never"]);
        for arg in args {
            cmd.arg(arg.as_ref());
        }
        run(&mut cmd, LIMIT)
    };
    // The limit holds: no thread can start for that user.
    let probe = Command::new("prlimit")
        .arg("--nproc=1")
        .args(if root {
            &[
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
            ][..]
        } else {
            &[][..]
        })
        .args(["sh", "-c", "sleep 0 & wait"])
        .output()
        .unwrap();
    assert!(!probe.status.success(), "the process limit did not hold");

    for args in [
        &[&"replay" as &dyn AsRef<std::ffi::OsStr>, &"--report", &file][..],
        &[&"repair-view", &file],
        &[&"scan", &shared.join("sessions")],
    ] {
        let out = limited(args);
        assert_eq!(out.status, 0, "{}", out.stderr);
        assert!(out.stderr.is_empty(), "{}", out.stderr);
    }
    let view = limited(&[&"repair-view", &file]);
    assert_eq!(
        view.stdout,
        fs::read("fixtures/codex/crash_mid_tool_call/view.jsonl").unwrap()
    );
    let _ = fs::remove_dir_all(&shared);
}

/// `--help`, `--version` and `help CMD` with stdout on a full disk exited 0 and lost the
/// output; like every other output, they must fail with status 1 and say so.
#[test]
fn help_to_a_full_disk() {
    for args in [
        &["--help"][..],
        &["-h"],
        &["--version"],
        &["-V"],
        &["help"],
        &["help", "replay"],
        &["replay", "--help"],
        &["scan", "-h"],
        &["completions", "bash"],
    ] {
        let mut cmd = rollcall();
        cmd.args(args);
        let full = fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let output = cmd.stdout(full).stderr(Stdio::piped()).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            "rollcall: <stdout>: cannot write: No space left on device\n",
            "{args:?}"
        );
        // To a closed pipe, help is no failure.
        let mut child = rollcall()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{args:?}");
    }
    // A usage error is still status 2, on stderr.
    let out = run(rollcall().arg("--bogus"), LIMIT);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr
            .starts_with("error: unexpected argument '--bogus'"),
        "{}",
        out.stderr
    );
}

/// Zero-width and invisible marks (U+200B, U+200E/F, U+2028/9, U+FEFF, U+00AD, tag characters)
/// can hide or reorder what a reader sees: human output shows them escaped, and JSON written
/// to a terminal escapes them as `\uXXXX`.
#[test]
fn invisible_marks_in_human_output() {
    let dir = Scratch::new("invisible-marks");
    let text = "pay\u{200b}pal \u{200e}\u{200f} a\u{2028}b\u{2029} \u{feff}x \u{ad}y \u{e0070}\u{e0077}\u{e007f} ok ❤\u{fe0f}";
    let item = serde_json::to_string(&json!({
        "type": "message", "role": "user",
        "content": [{"type": "input_text", "text": text}]}))
    .unwrap();
    let path = dir.file(
        "marks.jsonl",
        format!("{META}\n{{\"type\":\"response_item\",\"payload\":{item}}}\n"),
    );
    let transcript =
        String::from_utf8(output(&["repair-view", "--format", "text"], &path).stdout).unwrap();
    assert!(
        transcript.contains(
            r"pay\u{200b}pal \u{200e}\u{200f} a\u{2028}b\u{2029} \u{feff}x \u{ad}y \u{e0070}\u{e0077}\u{e007f} ok ❤"
        ),
        "{transcript}"
    );
    // A variation selector only picks the look of the heart: it stays.
    assert!(transcript.contains("ok ❤\u{fe0f}"), "{transcript}");
    assert_no_unsafe_char("transcript", transcript.as_bytes());
    // The human report escapes them in what it quotes (the file name here).
    let named = dir.file("a\u{200b}b\u{202e}.jsonl", format!("{META}\n"));
    let report = output(&["replay", "--report"], &named);
    assert_no_unsafe_char("report", &report.stdout);
    assert!(
        String::from_utf8_lossy(&report.stdout).contains(r"a\u{200b}b\u{202e}.jsonl"),
        "{}",
        String::from_utf8_lossy(&report.stdout)
    );
    // Piped, the items are the log's own bytes.
    let replay = output(&["replay"], &path);
    assert_eq!(
        String::from_utf8(replay.stdout).unwrap(),
        format!("{item}\n")
    );
}

/// On a terminal, JSONL items are shown with what would act on the terminal escaped; piped,
/// they are the log's bytes.
#[test]
fn jsonl_on_a_terminal_is_escaped() {
    let Some(script) = which("script") else {
        panic!("this test needs script(1) (util-linux) for a terminal");
    };
    let dir = Scratch::new("jsonl-terminal");
    let text = "a\u{9b}2J\u{7f} \u{202e}b \u{200b}c \u{e0041} ❤\u{fe0f}";
    let item = serde_json::to_string(&json!({
        "type": "message", "role": "user",
        "content": [{"type": "input_text", "text": text}]}))
    .unwrap();
    let path = dir.file(
        "terminal.jsonl",
        format!("{META}\n{{\"type\":\"response_item\",\"payload\":{item}}}\n"),
    );
    let command = format!("{} replay {}", binary().display(), path.display());
    let out = run(
        Command::new(script).args(["-qec", &command, "/dev/null"]),
        LIMIT,
    );
    let shown = String::from_utf8(out.stdout).unwrap();
    assert_no_unsafe_char("terminal", shown.replace('\r', "").as_bytes());
    assert!(
        shown.contains(r#""a\u009b2J\u007f \u202eb \u200bc \udb40\udc41 ❤️""#),
        "{shown:?}"
    );
    let piped = output(&["replay"], &path);
    assert_eq!(
        String::from_utf8(piped.stdout).unwrap(),
        format!("{item}\n")
    );
}

fn which(tool: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(tool))
            .find(|p| p.is_file())
    })
}

/// Items of a file over 16 MiB are printed by reading their bytes again from the file. A file
/// cut short after the pass has read it (printing has begun) makes the command fail with one
/// line naming the file, never print other bytes (docs/decisions.md). A smaller file is a
/// snapshot, which the hostile suite's `file_truncated_while_read` holds to.
#[test]
fn a_file_cut_short_while_printing_fails_in_one_line() {
    use std::io::Read as _;
    let dir = Scratch::new("cut-while-printing");
    let mut log = format!("{META}\n");
    // Over 16 MiB: a smaller file is copied as it is read, a snapshot nothing can cut.
    for i in 0..200_000 {
        log.push_str(&format!(
            r#"{{"type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":"message number {i} of a long session"}}]}}}}"#
        ));
        log.push('\n');
    }
    let path = dir.file("cut.jsonl", &log);
    let mut child = rollcall()
        .arg("replay")
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    // Printing has begun: the pass is over.
    let mut first = [0u8; 4096];
    stdout.read_exact(&mut first).unwrap();
    fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(log.len() as u64 / 3)
        .unwrap();
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "rollcall: {}: changed while being read (truncated or rewritten in place)\n",
            path.display()
        )
    );
    // What was printed is whole lines of the log as it was.
    let printed = [&first[..], &rest[..]].concat();
    let printed = String::from_utf8(printed).unwrap();
    let complete = &printed[..printed.rfind('\n').unwrap() + 1];
    assert!(log.contains(complete.lines().nth(1).unwrap()));
    assert!(complete.lines().count() < 200_000);
}
