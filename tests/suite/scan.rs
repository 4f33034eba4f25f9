//! `rollcall scan` and thread-id look-up against a fake Codex home planted with a few dozen
//! sessions of every kind (clean, crashed mid-call, malformed, orphaned, archived, unusable), each
//! with what the scan must say about it.
//!
//! The tables are goldens in `tests/scan/`, rendered and reviewed; `ROLLCALL_BLESS=1 cargo test
//! --test all scan::` rewrites them.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // tests fail by panicking

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use assert_cmd::Command;
use serde_json::{Value, json};
use tempfile::TempDir;

/// What the scan must report about a planted rollout.
#[derive(Debug, Clone)]
enum Expect {
    Usable {
        thread: String,
        cwd: Option<String>,
        started: Option<String>,
        status: &'static str,
        parse_errors: u64,
        /// The open turn at the end, with its id if it has one.
        incomplete: Option<Option<String>>,
        missing: u64,
        orphans: u64,
    },
    Unusable(&'static str),
    /// Replayed, but with no session_meta: Codex cannot resume it (SPEC §5).
    NoMeta {
        status: &'static str,
        parse_errors: u64,
    },
}

#[derive(Debug, Clone)]
struct Plant {
    path: PathBuf,
    archived: bool,
    size: u64,
    /// What the scan orders by: the time in the name (`YYYY-MM-DDThh-mm-ss`), else the mtime.
    stamp: String,
    expect: Expect,
}

impl Plant {
    fn json(&self) -> Value {
        let mut row = json!({
            "path": self.path.display().to_string(),
            "archived": self.archived,
            "size": self.size,
        });
        let rest = match &self.expect {
            Expect::Usable {
                thread,
                cwd,
                started,
                status,
                parse_errors,
                incomplete,
                missing,
                orphans,
            } => json!({
                "thread_id": thread,
                "cwd": cwd,
                "started": started,
                "status": status,
                "error": null,
                "parse_errors": parse_errors,
                "incomplete": incomplete.is_some(),
                "incomplete_turn_id": incomplete.clone().flatten(),
                "missing_outputs": missing,
                "orphan_outputs": orphans,
            }),
            Expect::Unusable(error) => json!({
                "thread_id": null,
                "cwd": null,
                "started": null,
                "status": "unusable",
                "error": error,
                "parse_errors": 0,
                "incomplete": false,
                "incomplete_turn_id": null,
                "missing_outputs": 0,
                "orphan_outputs": 0,
            }),
            Expect::NoMeta {
                status,
                parse_errors,
            } => json!({
                "thread_id": null,
                "cwd": null,
                "started": null,
                "status": status,
                "error": null,
                "parse_errors": parse_errors,
                "incomplete": false,
                "incomplete_turn_id": null,
                "missing_outputs": 0,
                "orphan_outputs": 0,
                "no_session_meta": true,
            }),
        };
        for (key, value) in [
            ("agent", json!("codex")),
            ("subagent_of", Value::Null),
            ("no_session_meta", json!(false)),
            ("ordinal_faults", json!(0)),
            ("broken_lineage", json!(false)),
            ("unindexed", Value::Null),
            ("missing_file", json!(false)),
        ] {
            row[key] = value;
        }
        for (key, value) in rest.as_object().unwrap() {
            row[key] = value.clone();
        }
        row
    }

    fn status(&self) -> &'static str {
        match self.expect {
            Expect::Usable { status, .. } | Expect::NoMeta { status, .. } => status,
            Expect::Unusable(_) => "unusable",
        }
    }
}

/// A rollout being written, line by line, with Codex's record shapes and key order.
struct Session {
    id: String,
    cwd: String,
    /// `2026-03-01T10:00:00`: the records' clock, from the file name.
    iso: String,
    lines: Vec<String>,
}

fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

impl Session {
    fn new(id: &str, stamp: &str, cwd: &str) -> Session {
        let iso = format!("{}T{}", &stamp[..10], stamp[11..].replace('-', ":"));
        let mut session = Session {
            id: id.into(),
            cwd: cwd.into(),
            iso,
            lines: Vec::new(),
        };
        let at = session.at();
        session.lines.push(format!(
            r#"{{"timestamp":"{at}","type":"session_meta","payload":{{"id":"{id}","timestamp":"{at}","cwd":{},"originator":"codex_cli_rs","cli_version":"0.113.0","source":"cli","model_provider":"openai"}}}}"#,
            quote(cwd)
        ));
        session.item(&format!(
            r#"{{"type":"message","role":"user","content":[{{"type":"input_text","text":{}}}]}}"#,
            quote(&format!(
                "<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>"
            ))
        ));
        session
    }

    fn started(&self) -> String {
        format!("{}.000Z", self.iso)
    }

    fn at(&self) -> String {
        format!("{}.{:03}Z", self.iso, self.lines.len())
    }

    /// The id of the session's (one) turn.
    fn turn(&self) -> String {
        format!("019e{}", &self.id[4..])
    }

    fn item(&mut self, payload: &str) -> &mut Session {
        let at = self.at();
        self.lines.push(format!(
            r#"{{"timestamp":"{at}","type":"response_item","payload":{payload}}}"#
        ));
        self
    }

    fn event(&mut self, payload: &str) -> &mut Session {
        let at = self.at();
        self.lines.push(format!(
            r#"{{"timestamp":"{at}","type":"event_msg","payload":{payload}}}"#
        ));
        self
    }

    fn raw(&mut self, line: &str) -> &mut Session {
        self.lines.push(line.into());
        self
    }

    fn start(&mut self, ask: &str) -> &mut Session {
        let turn = self.turn();
        self.event(&format!(
            r#"{{"type":"task_started","turn_id":"{turn}","model_context_window":258400}}"#
        ))
        .item(&format!(
            r#"{{"type":"message","role":"user","content":[{{"type":"input_text","text":{}}}]}}"#,
            quote(ask)
        ))
    }

    fn call(&mut self, call_id: &str) -> &mut Session {
        self.item(&format!(
            r#"{{"type":"function_call","name":"exec_command","arguments":"{{\"cmd\":\"cargo test\"}}","call_id":"{call_id}"}}"#
        ))
    }

    fn output(&mut self, call_id: &str) -> &mut Session {
        self.item(&format!(
            r#"{{"type":"function_call_output","call_id":"{call_id}","output":"Process exited with code 0\nOutput:\ntest result: ok. 12 passed\n"}}"#
        ))
    }

    fn finish(&mut self) -> &mut Session {
        let turn = self.turn();
        self.item(r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"All 12 tests pass."}]}"#)
            .event(&format!(
                r#"{{"type":"task_complete","turn_id":"{turn}","last_agent_message":"All 12 tests pass."}}"#
            ))
    }

    fn text(&self) -> String {
        let mut text = self.lines.join("\n");
        text.push('\n');
        text
    }

    fn expect(
        &self,
        status: &'static str,
        parse_errors: u64,
        incomplete: Option<Option<String>>,
        missing: u64,
        orphans: u64,
    ) -> Expect {
        Expect::Usable {
            thread: self.id.clone(),
            cwd: Some(self.cwd.clone()),
            started: Some(self.started()),
            status,
            parse_errors,
            incomplete,
            missing,
            orphans,
        }
    }
}

/// A thread id, unique per `n`.
fn thread(n: u32) -> String {
    format!(
        "019d{n:04x}-5e6f-7a10-8b21-{:012x}",
        0xc0de_0000_u64 + u64::from(n)
    )
}

/// A fake `$HOME` holding `.codex` with planted rollouts.
struct Tree {
    tmp: TempDir,
    plants: Vec<Plant>,
}

#[derive(Clone, Copy, PartialEq)]
enum Folder {
    Sessions,
    Archived,
}

impl Tree {
    fn home(&self) -> PathBuf {
        self.tmp.path().join(".codex")
    }

    fn write(&self, path: &Path, bytes: &[u8]) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }

    /// Plants `bytes` as `rollout-<stamp>-<tail>.jsonl` where Codex would put it.
    fn plant(
        &mut self,
        folder: Folder,
        stamp: &str,
        tail: &str,
        bytes: impl AsRef<[u8]>,
        expect: Expect,
    ) {
        self.plant_named(
            folder,
            stamp,
            &format!("rollout-{stamp}-{tail}.jsonl"),
            bytes.as_ref(),
            expect,
        );
    }

    /// Plants `bytes` as they are under `name`, in `folder`.
    fn plant_named(
        &mut self,
        folder: Folder,
        stamp: &str,
        name: &str,
        bytes: &[u8],
        expect: Expect,
    ) {
        let path = match folder {
            Folder::Sessions => self
                .home()
                .join("sessions")
                .join(&stamp[..4])
                .join(&stamp[5..7])
                .join(&stamp[8..10])
                .join(name),
            Folder::Archived => self.home().join("archived_sessions").join(name),
        };
        self.write(&path, bytes);
        self.plants.push(Plant {
            path,
            archived: folder == Folder::Archived,
            size: bytes.len() as u64,
            stamp: stamp.into(),
            expect,
        });
    }

    fn session(&mut self, folder: Folder, stamp: &str, session: &Session, expect: Expect) {
        let id = session.id.clone();
        self.plant(folder, stamp, &id, session.text(), expect);
    }

    /// Copies a fixture in, under the thread id it holds.
    fn fixture(&mut self, folder: Folder, stamp: &str, name: &str, tail: &str, expect: Expect) {
        let bytes = fs::read(format!("fixtures/codex/{name}/rollout.jsonl")).unwrap();
        self.plant(folder, stamp, tail, bytes, expect);
    }

    /// The plants in the order the scan lists them: newest first, ties by path.
    fn expected(&self, keep: impl Fn(&Plant) -> bool) -> Vec<Value> {
        let mut plants: Vec<&Plant> = self.plants.iter().filter(|p| keep(p)).collect();
        plants.sort_by(|a, b| b.stamp.cmp(&a.stamp).then_with(|| a.path.cmp(&b.path)));
        plants.iter().map(|p| p.json()).collect()
    }

    fn rollcall(&self) -> Command {
        let mut cmd = Command::cargo_bin("rollcall").unwrap();
        // Standard output is a pipe, so `--color auto` (the default) colours nothing.
        cmd.env("HOME", self.tmp.path())
            .env("CODEX_HOME", self.home());
        cmd
    }

    /// Output with the temporary folder shown as `~`, for goldens.
    fn tilde(&self, bytes: &[u8]) -> String {
        String::from_utf8_lossy(bytes).replace(&self.tmp.path().display().to_string(), "~")
    }
}

const EMPTY: &str = "empty rollout: no record in it";
/// Planted twice (a live and an archived copy): looking it up is ambiguous.
const TWICE: u32 = 3;

fn plant_tree() -> Tree {
    use Folder::{Archived, Sessions};
    let mut tree = Tree {
        tmp: tempfile::tempdir().unwrap(),
        plants: Vec::new(),
    };
    let cwds = ["/home/ana/exporter", "/srv/app", "/Users/mara/src/ledger"];

    // Clean sessions, one a day, at different hours.
    for n in 1..=12u32 {
        let stamp = format!("2026-03-{n:02}T{:02}-{:02}-{:02}", 8 + n % 9, n * 4 % 60, n);
        let mut s = Session::new(&thread(n), &stamp, cwds[n as usize % 3]);
        s.start("Make the test suite pass.")
            .call("call_1")
            .output("call_1")
            .finish();
        let expect = s.expect("ok", 0, None, 0, 0);
        tree.session(Sessions, &stamp, &s, expect);
    }
    // An archived copy of thread 3 (`codex` archived it, someone restored it).
    {
        let stamp = "2026-02-20T07-00-00";
        let mut s = Session::new(&thread(TWICE), stamp, "/srv/app");
        s.start("Make the test suite pass.").finish();
        let expect = s.expect("ok", 0, None, 0, 0);
        tree.session(Archived, stamp, &s, expect);
    }
    // Crashed right after a tool call: the turn is open and the call has no output.
    for n in 20..24u32 {
        let stamp = format!("2026-03-{:02}T23-{:02}-00", n - 7, n);
        let mut s = Session::new(&thread(n), &stamp, "/srv/app");
        s.start("Run the migrations.")
            .call(&format!("call_crash_{n}"));
        let expect = s.expect("incomplete", 0, Some(Some(s.turn())), 1, 0);
        tree.session(Sessions, &stamp, &s, expect);
    }
    {
        let stamp = "2026-03-18T11-30-00";
        let mut s = Session::new(&thread(24), stamp, "/srv/app");
        s.start("Patch the README.").item(
            r#"{"type":"custom_tool_call","status":"completed","call_id":"call_patch","name":"apply_patch","input":"*** Begin Patch\n*** End Patch\n"}"#,
        );
        let expect = s.expect("incomplete", 0, Some(Some(s.turn())), 1, 0);
        tree.session(Sessions, stamp, &s, expect);
    }
    // An old-style turn without an id, never finished.
    {
        let stamp = "2025-11-02T16-45-10";
        let mut s = Session::new(&thread(25), stamp, "/home/dev/tally");
        s.event(r#"{"type":"task_started","model_context_window":272000}"#)
            .item(r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"Why is CI red?"}]}"#);
        let expect = s.expect("incomplete", 0, Some(None), 0, 0);
        tree.session(Sessions, stamp, &s, expect);
    }
    // Malformed lines among good ones.
    let bad = [
        "not json at all",
        r#"{"timestamp":"2026-03-19T10:00:00.500Z","type":"response_item"}"#,
        r#"["event_msg",{"type":"token_count"}]"#,
    ];
    for k in 1..=3usize {
        let stamp = format!("2026-03-19T1{k}-00-00");
        let mut s = Session::new(&thread(30 + k as u32), &stamp, "/home/ci/web");
        s.start("Why is the lint job failing?");
        for line in &bad[..k] {
            s.raw(line);
        }
        s.call("call_lint").output("call_lint").finish();
        let expect = s.expect("damaged", k as u64, None, 0, 0);
        tree.session(Sessions, &stamp, &s, expect);
    }
    // The writer died mid-line: a torn tail, an open turn and an unanswered call.
    {
        let stamp = "2026-03-20T06-00-00";
        let mut s = Session::new(&thread(34), stamp, "/home/o/ledger");
        s.start("Reconcile March.").call("call_torn");
        let mut text = s.text();
        text.push_str(r#"{"timestamp":"2026-03-20T06:00:00.900Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_torn","output":"Process exi"#);
        let expect = s.expect("damaged", 1, Some(Some(s.turn())), 1, 0);
        tree.plant(Sessions, stamp, &thread(34), text, expect);
    }
    // Outputs whose calls are gone.
    for k in 1..=2u32 {
        let stamp = format!("2026-03-21T0{k}-15-00");
        let mut s = Session::new(&thread(40 + k), &stamp, "/home/ivy/agenda");
        s.start("Resume where the crashed worker left off.");
        for i in 0..k {
            s.output(&format!("call_gone_{i}"));
        }
        s.finish();
        let expect = s.expect("repairs", 0, None, 0, u64::from(k));
        tree.session(Sessions, &stamp, &s, expect);
    }
    // Interrupted: the turn was aborted, its call never answered.
    for k in 1..=2u32 {
        let stamp = format!("2026-03-22T1{k}-00-00");
        let mut s = Session::new(&thread(50 + k), &stamp, "/home/ana/exporter");
        s.start("Build the release.").call("call_build");
        let turn = s.turn();
        s.event(&format!(
            r#"{{"type":"turn_aborted","turn_id":"{turn}","reason":"interrupted"}}"#
        ));
        let expect = s.expect("repairs", 0, None, 1, 0);
        tree.session(Sessions, &stamp, &s, expect);
    }
    // A working directory with terminal escapes in it.
    {
        let stamp = "2026-03-23T09-09-09";
        let mut s = Session::new(&thread(60), stamp, "/tmp/\u{1b}[31mred\u{7}");
        s.start("Hi").finish();
        let expect = s.expect("ok", 0, None, 0, 0);
        tree.session(Sessions, stamp, &s, expect);
    }
    // Two sessions started in the same second: ordered by path.
    for n in [62u32, 61] {
        let stamp = "2026-03-24T12-00-00";
        let mut s = Session::new(&thread(n), stamp, "/srv/app");
        s.start("Twins").finish();
        let expect = s.expect("ok", 0, None, 0, 0);
        tree.session(Sessions, stamp, &s, expect);
    }
    // Compressed the way Codex compresses a cold rollout: read as its plain text.
    {
        let stamp = "2026-03-26T10-00-00";
        let mut s = Session::new(&thread(86), stamp, "/srv/app");
        s.start("Cold storage")
            .call("call_cold")
            .output("call_cold")
            .finish();
        let expect = s.expect("ok", 0, None, 0, 0);
        let packed = zstd::encode_all(s.text().as_bytes(), 3).unwrap();
        let name = format!("rollout-{stamp}-{}.jsonl.zst", thread(86));
        tree.plant_named(Sessions, stamp, &name, &packed, expect);
        // Named like one, but not zstd at all.
        let name = "rollout-2026-03-26T11-00-00-x.jsonl.zst";
        let expect =
            Expect::Unusable("cannot read: not a valid zstd stream (Unknown frame descriptor)");
        tree.plant_named(
            Sessions,
            "2026-03-26T11-00-00",
            name,
            s.text().as_bytes(),
            expect,
        );
    }
    // Unusable files.
    tree.plant(
        Sessions,
        "2026-03-25T08-00-00",
        &thread(70),
        "",
        Expect::Unusable(EMPTY),
    );
    tree.plant(
        Sessions,
        "2026-03-25T08-30-00",
        &thread(71),
        "\n  \n\r\n",
        Expect::Unusable(EMPTY),
    );
    {
        let mut s = Session::new(&thread(72), "2026-03-25T09-00-00", "/srv/app");
        s.start("lost the first line").finish();
        s.lines.remove(0);
        tree.plant(
            Sessions,
            "2026-03-25T09-00-00",
            &thread(72),
            s.text(),
            Expect::NoMeta {
                status: "no-meta",
                parse_errors: 0,
            },
        );
        let text = format!(
            "{{\"timestamp\":\"2026-03-25T09:30:00.000Z\",\"type\":\"session_meta\",\"payload\":{{\"id\":\"\",\"cwd\":\"/srv/app\"}}}}\n{}",
            s.text()
        );
        tree.plant(
            Sessions,
            "2026-03-25T09-30-00",
            &thread(73),
            text,
            Expect::NoMeta {
                status: "damaged",
                parse_errors: 1,
            },
        );
    }
    // Fixture stories, where Codex would have put them.
    let crash = "019c1f40-2b7e-7a9d-8c31-6d5e4f3a2b10";
    tree.fixture(
        Sessions,
        "2026-02-11T09-14-02",
        "crash_mid_tool_call",
        crash,
        story(
            (crash, Some("/srv/app"), Some("2026-02-11T09:14:02.310Z")),
            "incomplete",
            0,
            Some(Some("019c1f41-0e9d-7c12-a3b4-c5d6e7f8a9b0")),
            1,
            0,
        ),
    );
    let orphans = "019cce87-99aa-7bbc-8dde-eff001122334";
    tree.fixture(
        Sessions,
        "2026-03-13T10-00-00",
        "orphan_outputs",
        orphans,
        story(
            (
                orphans,
                Some("/home/ivy/agenda"),
                Some("2026-03-13T09:59:59.990Z"),
            ),
            "repairs",
            0,
            None,
            0,
            3,
        ),
    );
    let malformed = "019c6e21-3344-7556-8778-899aabbccdde";
    tree.fixture(
        Sessions,
        "2026-03-06T09-00-00",
        "malformed_lines",
        malformed,
        story(
            (
                malformed,
                Some("/home/ci/web"),
                Some("2026-03-06T09:00:00.090Z"),
            ),
            "damaged",
            18,
            None,
            0,
            0,
        ),
    );
    let torn = "019c7f32-4455-7667-8889-9aabbccddeef";
    tree.fixture(
        Sessions,
        "2026-03-07T22-10-02",
        "torn_tail",
        torn,
        story(
            (
                torn,
                Some("/home/o/ledger"),
                Some("2026-03-07T22:10:02.480Z"),
            ),
            "damaged",
            1,
            Some(Some("019c7f32-9a01-7b01-8c01-d0e1f2a3b4c5")),
            1,
            0,
        ),
    );
    let interrupted = "019c2a11-9d40-7e55-b2c8-0f1e2d3c4b5a";
    tree.fixture(
        Sessions,
        "2026-02-14T16-20-00",
        "interrupted_turn",
        interrupted,
        story(
            (
                interrupted,
                Some("/home/ana/exporter"),
                Some("2026-02-14T16:20:00.090Z"),
            ),
            "repairs",
            0,
            None,
            1,
            0,
        ),
    );
    let ledger = "019cab52-6e0d-7b43-a5f1-2c9e81d0f6a7";
    tree.fixture(
        Sessions,
        "2026-03-02T17-40-03",
        "session_2026",
        ledger,
        story(
            (
                ledger,
                Some("/Users/mara/src/ledger"),
                Some("2026-03-02T17:40:03.101Z"),
            ),
            "ok",
            0,
            None,
            0,
            0,
        ),
    );
    tree.fixture(
        Sessions,
        "2026-01-05T10-00-00",
        "mini_dialect",
        "mini-7f3a",
        story(("mini-7f3a", None, None), "incomplete", 0, Some(None), 1, 0),
    );
    // Archived sessions.
    for n in 80..83u32 {
        let stamp = format!("2025-12-{:02}T14-00-00", n - 70);
        let mut s = Session::new(&thread(n), &stamp, "/home/kim/dedupe");
        s.start("Deduplicate the contacts.")
            .call("call_1")
            .output("call_1")
            .finish();
        let expect = s.expect("ok", 0, None, 0, 0);
        tree.session(Archived, &stamp, &s, expect);
    }
    {
        let stamp = "2025-12-20T18-05-00";
        let mut s = Session::new(&thread(83), stamp, "/home/kim/dedupe");
        s.start("Merge the duplicates.").call("call_merge");
        let expect = s.expect("incomplete", 0, Some(Some(s.turn())), 1, 0);
        tree.session(Archived, stamp, &s, expect);
    }
    let tally = "01994a8e-3c1f-7d62-9b0e-5f2c7a1d4e90";
    tree.fixture(
        Archived,
        "2025-09-14T08-02-11",
        "clean_2025",
        tally,
        story(
            (
                tally,
                Some("/home/dev/projects/tally"),
                Some("2025-09-14T08:02:11.498Z"),
            ),
            "ok",
            0,
            None,
            0,
            0,
        ),
    );
    tree.fixture(
        Archived,
        "2025-10-01T12-00-00",
        "no_session_meta",
        &thread(84),
        Expect::NoMeta {
            status: "damaged",
            parse_errors: 2,
        },
    );
    // A rollout renamed by hand: no time in its name, so its modification time orders it.
    {
        let mut s = Session::new(&thread(90), "2026-01-15T12-00-00", "/srv/app");
        s.start("recovered").finish();
        let path = tree
            .home()
            .join("sessions/2026/01/15/rollout-recovered.jsonl");
        tree.write(&path, s.text().as_bytes());
        let file = fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(UNIX_EPOCH + Duration::from_secs(1_768_478_400))
            .unwrap();
        tree.plants.push(Plant {
            size: s.text().len() as u64,
            path,
            archived: false,
            stamp: "2026-01-15T12-00-00".into(),
            expect: s.expect("ok", 0, None, 0, 0),
        });
    }
    // Files the scan must pass over.
    let home = tree.home();
    let clean = tree.plants[0].path.clone();
    for ignored in [
        "history.jsonl",
        "sessions/2026/03/notes.txt",
        "sessions/rollout-old.jsonl.bak",
        "log/rollout-2026-03-01T00-00-00-elsewhere.jsonl",
    ] {
        tree.write(&home.join(ignored), &fs::read(&clean).unwrap());
    }
    fs::create_dir_all(home.join("sessions/2026/04/rollout-a-folder.jsonl")).unwrap();
    assert!(tree.plants.len() >= 40, "{}", tree.plants.len());
    tree
}

/// What the scan must say of a fixture story: its session (thread, cwd, start), its findings.
fn story(
    (thread, cwd, started): (&str, Option<&str>, Option<&str>),
    status: &'static str,
    parse_errors: u64,
    incomplete: Option<Option<&str>>,
    missing: u64,
    orphans: u64,
) -> Expect {
    Expect::Usable {
        thread: thread.into(),
        cwd: cwd.map(Into::into),
        started: started.map(Into::into),
        status,
        parse_errors,
        incomplete: incomplete.map(|turn| turn.map(Into::into)),
        missing,
        orphans,
    }
}

fn json_lines(bytes: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

fn stdout_of(cmd: &mut Command, status: i32) -> Vec<u8> {
    let out = cmd.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(status),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The one line on stderr of a command that must fail with status 1 and print nothing.
fn error_of(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

fn assert_rows(actual: Vec<Value>, expected: Vec<Value>) {
    let paths = |rows: &[Value]| -> Vec<String> {
        rows.iter()
            .map(|r| format!("{} {}", r["status"], r["path"]))
            .collect()
    };
    assert_eq!(
        actual.len(),
        expected.len(),
        "actual {:#?}\nexpected {:#?}",
        paths(&actual),
        paths(&expected)
    );
    for (i, (a, e)) in actual.iter().zip(&expected).enumerate() {
        // The problem codes are the report's, checked against it in `codes_are_the_reports`.
        let mut a = a.clone();
        a.as_object_mut().map(|o| o.remove("codes"));
        assert_eq!(&a, e, "row {i}");
    }
}

/// Each row's codes are those of its session's report problems, each once, in order (with
/// scan's own for a file it cannot read).
#[test]
fn codes_are_the_reports() {
    let tree = plant_tree();
    let out = stdout_of(tree.rollcall().args(["scan", "--json"]), 0);
    let rows = json_lines(&out);
    let mut checked = 0;
    for row in &rows {
        let codes: Vec<&str> = row["codes"]
            .as_array()
            .expect("codes")
            .iter()
            .map(|c| c.as_str().expect("a code"))
            .collect();
        if row["missing_file"] == true {
            assert!(codes.contains(&"missing-file"), "{row}");
            continue;
        }
        if !row["error"].is_null() {
            assert_eq!(codes, ["unusable"], "{row}");
            continue;
        }
        let path = row["path"].as_str().unwrap();
        let report: Value = serde_json::from_slice(&stdout_of(
            tree.rollcall().args(["replay", "--report", "--json", path]),
            0,
        ))
        .unwrap();
        let mut want: Vec<&str> = Vec::new();
        for p in report["problems"].as_array().unwrap() {
            let code = p["code"].as_str().unwrap();
            if !want.contains(&code) {
                want.push(code);
            }
        }
        if row["unindexed"] == true {
            want.push("unindexed");
        }
        assert_eq!(codes, want, "{path}");
        checked += 1;
    }
    assert!(checked >= 10, "{checked} rows checked");
}

/// Compares with a golden file in `tests/scan/`, or rewrites it when blessing.
fn golden(name: &str, actual: &str) {
    let path = Path::new("tests/scan").join(name);
    if std::env::var_os("ROLLCALL_BLESS").is_some() {
        fs::write(&path, actual).unwrap();
        return;
    }
    let want = fs::read_to_string(&path).unwrap_or_default();
    assert!(
        want == actual,
        "{} differs\n--- expected\n{want}\n--- actual\n{actual}",
        path.display()
    );
}

#[test]
fn json_lists_every_planted_rollout_newest_first() {
    let tree = plant_tree();
    let out = stdout_of(tree.rollcall().args(["scan", "--json"]), 0);
    assert_rows(json_lines(&out), tree.expected(|_| true));
    // Keys in the documented order.
    let first = String::from_utf8_lossy(&out)
        .lines()
        .next()
        .unwrap()
        .to_string();
    let keys: Vec<String> = serde_json::from_str::<serde_json::Map<String, Value>>(&first)
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys.len(), 21, "{first}");
    assert!(first.starts_with(r#"{"path":"#), "{first}");
}

#[test]
fn problems_lists_only_rollouts_with_a_finding() {
    let tree = plant_tree();
    let out = stdout_of(tree.rollcall().args(["scan", "--json", "--problems"]), 0);
    let expected = tree.expected(|p| p.status() != "ok");
    assert!(expected.len() >= 20);
    assert_rows(json_lines(&out), expected);
}

#[test]
fn the_table_matches_its_golden() {
    let tree = plant_tree();
    let table = tree.tilde(&stdout_of(tree.rollcall().arg("scan"), 0));
    golden("table.txt", &table);
    assert!(!table.contains('\u{1b}'), "raw escape in the table");
    let problems = tree.tilde(&stdout_of(tree.rollcall().args(["scan", "--problems"]), 0));
    golden("problems.txt", &problems);
    // The summary counts every rollout, listed or not.
    assert_eq!(table.lines().last(), problems.lines().last());

    let coloured = stdout_of(tree.rollcall().args(["--color", "always", "scan"]), 0);
    let coloured = String::from_utf8_lossy(&coloured);
    assert!(
        coloured.contains("\u{1b}[31mdamaged\u{1b}[0m"),
        "{coloured}"
    );
    assert!(
        !coloured.contains("\u{1b}[31mred"),
        "log text reached the terminal raw"
    );
    let never = stdout_of(tree.rollcall().args(["scan", "--color", "never"]), 0);
    assert_eq!(tree.tilde(&never), table);
}

#[test]
fn home_defaults_to_dot_codex_in_home() {
    let tree = plant_tree();
    let with_env = stdout_of(tree.rollcall().args(["scan", "--json"]), 0);
    let from_home = stdout_of(
        tree.rollcall()
            .env_remove("CODEX_HOME")
            .args(["scan", "--json"]),
        0,
    );
    assert_eq!(with_env, from_home);
    let empty_env = stdout_of(
        tree.rollcall()
            .env("CODEX_HOME", "")
            .args(["scan", "--json"]),
        0,
    );
    assert_eq!(with_env, empty_env);
}

#[test]
fn dir_arguments_replace_the_default_folders() {
    let tree = plant_tree();
    let archived = tree.home().join("archived_sessions");
    let out = stdout_of(tree.rollcall().args(["scan", "--json"]).arg(&archived), 0);
    assert_rows(json_lines(&out), tree.expected(|p| p.archived));

    // Overlapping folders list each rollout once.
    let march = tree.home().join("sessions/2026/03");
    let out = stdout_of(
        tree.rollcall()
            .args(["scan", "--json"])
            .arg(&march)
            .arg(march.join("01"))
            .arg(&archived),
        0,
    );
    assert_rows(
        json_lines(&out),
        tree.expected(|p| p.archived || p.path.starts_with(&march)),
    );

    // Relative folders give relative paths; a file is taken as it is.
    let out = stdout_of(
        tree.rollcall()
            .current_dir(tree.home())
            .args(["scan", "--json", "archived_sessions"]),
        0,
    );
    let rows = json_lines(&out);
    assert_eq!(rows.len(), tree.expected(|p| p.archived).len());
    assert!(
        rows.iter().all(|r| r["path"]
            .as_str()
            .unwrap()
            .starts_with("archived_sessions/")),
        "{rows:#?}"
    );
    let one = &tree.plants[0];
    let out = stdout_of(tree.rollcall().args(["scan", "--json"]).arg(&one.path), 0);
    assert_rows(json_lines(&out), vec![one.json()]);

    let missing = tree.home().join("nope");
    assert_eq!(
        error_of(tree.rollcall().arg("scan").arg(&archived).arg(&missing)),
        format!(
            "rollcall: {}: cannot scan: No such file or directory\n",
            missing.display()
        )
    );
}

#[test]
fn either_default_folder_is_enough_but_not_neither() {
    let tree = plant_tree();
    fs::remove_dir_all(tree.home().join("sessions")).unwrap();
    let out = stdout_of(tree.rollcall().args(["scan", "--json"]), 0);
    assert_rows(json_lines(&out), tree.expected(|p| p.archived));

    fs::remove_dir_all(tree.home().join("archived_sessions")).unwrap();
    let home = tree.home().display().to_string();
    assert_eq!(
        error_of(tree.rollcall().arg("scan")),
        format!(
            "rollcall: no sessions to scan: neither {home}/sessions nor \
             {home}/archived_sessions exists (CODEX_HOME={home}), and {tmp}/.claude/projects does \
             not exist (CLAUDE_CONFIG_DIR is not set; ~/.claude is {tmp}/.claude); set CODEX_HOME \
             or CLAUDE_CONFIG_DIR, or name a DIR to scan\n",
            tmp = tree.tmp.path().display()
        )
    );
    let err = error_of(tree.rollcall().env_remove("CODEX_HOME").arg("scan"));
    assert!(
        err.contains(&format!("(CODEX_HOME is not set; ~/.codex is {home})")),
        "{err}"
    );

    // With no rollout in the folders, the table is just the summary.
    fs::create_dir_all(tree.home().join("sessions")).unwrap();
    let out = stdout_of(tree.rollcall().arg("scan"), 0);
    assert_eq!(
        String::from_utf8_lossy(&out),
        "0 sessions (0 archived): 0 ok\n"
    );
}

#[test]
fn strict_fails_when_a_rollout_is_unusable_damaged_or_incomplete() {
    let tree = plant_tree();
    tree.rollcall()
        .args(["scan", "--strict", "--problems"])
        .assert()
        .code(3);
    for (status, code) in [
        ("ok", 0),
        ("repairs", 0),
        ("incomplete", 3),
        ("damaged", 3),
        ("unusable", 3),
    ] {
        let plant = tree.plants.iter().find(|p| p.status() == status).unwrap();
        tree.rollcall()
            .args(["scan", "--strict", "--json"])
            .arg(&plant.path)
            .assert()
            .code(code);
    }
}

#[test]
fn a_thread_id_names_its_rollout() {
    let tree = plant_tree();
    let report =
        |cmd: &mut Command| -> Value { serde_json::from_slice(&stdout_of(cmd, 0)).unwrap() };
    for plant in &tree.plants {
        let Expect::Usable { thread: id, .. } = &plant.expect else {
            continue;
        };
        let name = plant.path.file_name().unwrap().to_string_lossy();
        if *id == thread(TWICE) || id == "mini-7f3a" || !name.ends_with(&format!("-{id}.jsonl")) {
            continue;
        }
        let r = report(tree.rollcall().args(["replay", "--json", id]));
        assert_eq!(r["thread_id"], json!(id));
        assert_eq!(r["file"], json!(plant.path.display().to_string()));
    }

    // Upper case, as someone might paste it; from the archive; in repair-view.
    let archived = thread(82);
    let r = report(
        tree.rollcall()
            .args(["replay", "--json", &archived.to_uppercase()]),
    );
    assert_eq!(r["thread_id"], json!(archived));
    let crash = "019c1f40-2b7e-7a9d-8c31-6d5e4f3a2b10";
    let view = stdout_of(tree.rollcall().args(["repair-view", crash]), 0);
    assert_eq!(
        view,
        fs::read("fixtures/codex/crash_mid_tool_call/view.jsonl").unwrap()
    );
    let codex = tree.home();
    let (sessions, archive) = (codex.join("sessions"), codex.join("archived_sessions"));

    // No match.
    let unknown = "019dffff-0000-7000-8000-000000000000";
    assert_eq!(
        error_of(tree.rollcall().args(["replay", "--report", unknown])),
        format!(
            "rollcall: {unknown}: no such file, and no session with this id: looked for \
             rollout-*-{unknown}[_*].jsonl[.zst] under {} and {} (CODEX_HOME={}), and for \
             {unknown}.jsonl under {tmp}/.claude/projects/* (CLAUDE_CONFIG_DIR is not set; \
             ~/.claude is {tmp}/.claude)\n",
            sessions.display(),
            archive.display(),
            codex.display(),
            tmp = tree.tmp.path().display()
        )
    );

    // Two rollouts of one thread: the live one, newest by the time in its name, is the one Codex
    // resumes; the report names the other as superseded.
    let twice = thread(TWICE);
    let mut paths: Vec<String> = tree
        .plants
        .iter()
        .filter(|p| {
            p.path
                .to_string_lossy()
                .ends_with(&format!("-{twice}.jsonl"))
        })
        .map(|p| p.path.display().to_string())
        .collect();
    paths.sort();
    let [archived, live] = &paths[..] else {
        panic!("{paths:?}")
    };
    assert!(archived.contains("/archived_sessions/"), "{archived}");
    let r = report(tree.rollcall().args(["replay", "--json", &twice]));
    assert_eq!(r["file"], json!(live));
    assert_eq!(r["superseded_files"], json!([archived]));
    // Live before archived even when the archived copy's name is newer.
    let newer = archive.join(format!("rollout-2026-04-01T00-00-00-{twice}.jsonl"));
    fs::copy(archived, &newer).unwrap();
    let r = report(tree.rollcall().args(["replay", "--json", &twice]));
    assert_eq!(r["file"], json!(live));
    fs::remove_file(&newer).unwrap();
    // A Claude Code session with the same id makes the id ambiguous.
    let claude = tree.tmp.path().join(".claude/projects/-srv-app");
    fs::create_dir_all(&claude).unwrap();
    let other = claude.join(format!("{twice}.jsonl"));
    fs::write(&other, "{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n").unwrap();
    assert_eq!(
        error_of(tree.rollcall().args(["repair-view", &twice])),
        format!(
            "rollcall: {twice}: 2 sessions have this id ({live}, {}): name one by its path\n",
            other.display()
        )
    );
    fs::remove_file(&other).unwrap();

    // A file of that name in the current folder wins over the look-up.
    let here = tree.tmp.path().join("here");
    fs::create_dir_all(&here).unwrap();
    fs::write(
        here.join(&twice),
        "{\"type\":\"session_meta\",\"thread_id\":\"local\"}\n",
    )
    .unwrap();
    let r = report(
        tree.rollcall()
            .current_dir(&here)
            .args(["replay", "--json", &twice]),
    );
    assert_eq!(r["thread_id"], json!("local"));

    // Not a thread id: the usual error about the path.
    assert_eq!(
        error_of(
            tree.rollcall()
                .current_dir(&here)
                .args(["replay", "not-a-thread"])
        ),
        "rollcall: not-a-thread: cannot open: No such file or directory\n"
    );
}

#[test]
fn completions_and_help_with_examples() {
    let tree = plant_tree();
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout_of(tree.rollcall().args(["completions", shell]), 0);
        let script = String::from_utf8_lossy(&script);
        for word in ["rollcall", "scan", "repair-view", "problems", "modalities"] {
            assert!(script.contains(word), "{shell}: no {word}");
        }
    }
    tree.rollcall()
        .args(["completions", "tcsh"])
        .assert()
        .code(2);
    for args in [
        &["--help"][..],
        &["replay", "--help"],
        &["repair-view", "--help"],
        &["scan", "--help"],
        &["completions", "--help"],
    ] {
        let help = stdout_of(tree.rollcall().args(args), 0);
        assert!(
            String::from_utf8_lossy(&help).contains("Examples:\n  rollcall "),
            "{args:?}"
        );
    }
}

/// Regression: scan replays files on the thread pool, and each replay once parsed its chunks on
/// that same pool from a helper thread, so with every pool thread waiting for its helper and
/// every helper waiting for the pool, scanning a few files of a few hundred lines hung.
#[test]
fn scan_of_many_long_files_does_not_deadlock() {
    let dir = tempfile::tempdir().unwrap();
    let mut body = String::from("{\"type\":\"session_meta\",\"thread_id\":\"t\"}\n");
    for _ in 0..500 {
        body.push_str("{\"type\":\"turn_started\"}\n");
    }
    for i in 0..8 {
        fs::write(dir.path().join(format!("rollout-{i}.jsonl")), &body).unwrap();
    }
    let out = Command::cargo_bin("rollcall")
        .unwrap()
        .args(["scan", "--json"])
        .arg(dir.path())
        .env("RAYON_NUM_THREADS", "2")
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "timed out or failed: {out:?}");
    assert_eq!(json_lines(&out.stdout).len(), 8);
}

/// A 2.1.92 subagent whose first reply names a parent that is not in its file: Claude Code 2.1.328
/// resumes the agent without its task prompt (the story's agent capture), and scan says so in
/// Claude Code's words, beside a Codex fork whose parent is missing, in Codex's.
#[test]
fn a_claude_chain_breaks_and_a_codex_lineage_breaks_each_in_its_words() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join(".claude/projects/-home-dev-src-tidepool");
    let story = Path::new("fixtures/claude/subagent_first_reply_missing_parent_2_1_92");
    let id = "5e55a0c2-0034-4000-8000-000000000000";
    let agent = format!("{id}/subagents/agent-a34b2c3d4e5f6a7b8.jsonl");
    for name in [format!("{id}.jsonl"), agent.clone()] {
        fs::create_dir_all(project.join(&name).parent().unwrap()).unwrap();
        fs::copy(story.join(&name), project.join(&name)).unwrap();
    }
    let fork = tmp
        .path()
        .join(".codex/sessions/2026/02/11/rollout-2026-02-11T09-14-02-019c1f40-2b7e-7a9d-8c31-6d5e4f3a2b10.jsonl");
    fs::create_dir_all(fork.parent().unwrap()).unwrap();
    let meta = json!({"timestamp": "2026-02-11T09:14:02Z", "type": "session_meta", "payload": {
        "id": "019c1f40-2b7e-7a9d-8c31-6d5e4f3a2b10", "timestamp": "2026-02-11T09:14:02Z",
        "cwd": "/w", "originator": "codex_cli_rs", "cli_version": "0.169.0",
        "history_mode": "paginated", "history_base": {"thread_id":
            "019c1f40-2b7e-7a9d-8c31-000000000000", "end_ordinal_exclusive": 3,
            "end_byte_offset": 100}}, "ordinal": 3});
    fs::write(&fork, format!("{meta}\n")).unwrap();
    let mut cmd = Command::cargo_bin("rollcall").unwrap();
    cmd.env("HOME", tmp.path())
        .env_remove("CODEX_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .args(["scan", "--json"]);
    let rows = json_lines(&stdout_of(&mut cmd, 0));
    let row = |path: &Path| -> &Value {
        rows.iter()
            .find(|r| r["path"] == json!(path.display().to_string()))
            .unwrap_or_else(|| panic!("no row for {} in {rows:#?}", path.display()))
    };
    let sub = row(&project.join(&agent));
    assert_eq!(sub["status"], json!("broken-chain"), "{sub}");
    assert!(
        sub["codes"]
            .as_array()
            .unwrap()
            .contains(&json!("dangling-parent"))
    );
    assert_eq!(
        row(&project.join(format!("{id}.jsonl")))["status"],
        json!("ok")
    );
    assert_eq!(row(&fork)["status"], json!("broken-lineage"));
    let mut cmd = Command::cargo_bin("rollcall").unwrap();
    cmd.env("HOME", tmp.path())
        .env_remove("CODEX_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .arg("scan");
    let table = String::from_utf8(stdout_of(&mut cmd, 0)).unwrap();
    assert!(
        table.ends_with("1 ok, 1 broken-lineage, 1 broken-chain\n"),
        "{table}"
    );
}

/// Claude Code's sessions are scanned beside Codex's (SPEC §10): an `agent` key, `--agent`,
/// subagent transcripts listed under their session, and session ids looked up in `projects/`.
#[test]
fn claude_code_sessions_are_scanned_with_codex_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join(".claude/projects/-srv-app");
    let copy = |from: &Path, to: &Path| {
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(from, to).unwrap();
    };
    let stories = [
        (
            "clean_session",
            "5e55a0c2-0001-4000-8000-000000000000",
            "ok",
        ),
        (
            "crash_between_tool_use_and_result",
            "5e55a0c2-0002-4000-8000-000000000000",
            "incomplete",
        ),
        (
            "dangling_parent",
            "5e55a0c2-0007-4000-8000-000000000000",
            "broken-chain",
        ),
    ];
    for (story, id, _) in stories {
        let name = format!("{id}.jsonl");
        copy(
            &Path::new("fixtures/claude").join(story).join(&name),
            &project.join(&name),
        );
    }
    let real = "29ccd257-68b1-427f-ae5f-6524b7cb6f20";
    let from = Path::new("fixtures/claude/real_subagent_file_parallel_2_1_17");
    copy(
        &from.join(format!("{real}.jsonl")),
        &project.join(format!("{real}.jsonl")),
    );
    let subagent = project.join(format!("{real}/subagents/agent-a2271d1.jsonl"));
    copy(
        &from.join(format!("{real}/subagents/agent-a2271d1.jsonl")),
        &subagent,
    );
    let codex = tmp
        .path()
        .join(".codex/sessions/2026/02/11/rollout-2026-02-11T09-14-02-019c1f40-2b7e-7a9d-8c31-6d5e4f3a2b10.jsonl");
    copy(
        Path::new("fixtures/codex/crash_mid_tool_call/rollout.jsonl"),
        &codex,
    );
    let rollcall = || {
        let mut cmd = Command::cargo_bin("rollcall").unwrap();
        cmd.env("HOME", tmp.path())
            .env_remove("CODEX_HOME")
            .env_remove("CLAUDE_CONFIG_DIR");
        cmd
    };

    let rows = json_lines(&stdout_of(rollcall().args(["scan", "--json"]), 0));
    assert_eq!(rows.len(), 6, "{rows:#?}");
    let row = |path: &Path| -> &Value {
        rows.iter()
            .find(|r| r["path"] == json!(path.display().to_string()))
            .unwrap_or_else(|| panic!("no row for {}", path.display()))
    };
    for (_, id, status) in stories {
        let r = row(&project.join(format!("{id}.jsonl")));
        assert_eq!(r["agent"], json!("claude"));
        assert_eq!(r["thread_id"], json!(id));
        assert_eq!(r["status"], json!(status), "{id}");
        assert_eq!(r["subagent_of"], Value::Null);
    }
    let session = row(&project.join(format!("{real}.jsonl")));
    assert_eq!(session["status"], json!("ok"));
    assert_eq!(row(&codex)["agent"], json!("codex"));
    assert_eq!(row(&codex)["status"], json!("incomplete"));
    // The subagent's transcript comes right after its session.
    let at = |path: &Path| {
        rows.iter()
            .position(|r| r["path"] == json!(path.display().to_string()))
            .unwrap()
    };
    assert_eq!(
        at(&subagent),
        at(&project.join(format!("{real}.jsonl"))) + 1
    );
    assert_eq!(row(&subagent)["subagent_of"], json!(real));
    assert_eq!(row(&subagent)["agent"], json!("claude"));

    for (agent, n) in [("claude", 5), ("codex", 1)] {
        let only = json_lines(&stdout_of(
            rollcall().args(["scan", "--json", "--agent", agent]),
            0,
        ));
        assert_eq!(only.len(), n, "{agent}");
        assert!(only.iter().all(|r| r["agent"] == json!(agent)), "{agent}");
    }
    rollcall()
        .args(["scan", "--agent", "cursor"])
        .assert()
        .code(2);

    let table = String::from_utf8(stdout_of(rollcall().arg("scan"), 0)).unwrap();
    assert!(table.contains("  ↳ agent-a2271d1  "), "{table}");
    assert!(
        table.ends_with("5 sessions and 1 subagent transcript (0 archived): 3 ok, 2 incomplete, 1 broken-chain\n"),
        "{table}"
    );

    // A session id names its file under projects/, as a thread id names a rollout.
    let (_, crash, _) = stories[1];
    let report: Value =
        serde_json::from_slice(&stdout_of(rollcall().args(["replay", "--json", crash]), 0))
            .unwrap();
    assert_eq!(report["dialect"], json!("claude"));
    assert_eq!(report["thread_id"], json!(crash));
    assert_eq!(
        report["file"],
        json!(project.join(format!("{crash}.jsonl")).display().to_string())
    );
    let view = stdout_of(rollcall().args(["repair-view", crash]), 0);
    assert_eq!(
        view,
        fs::read("fixtures/claude/crash_between_tool_use_and_result/view.jsonl").unwrap()
    );

    // CLAUDE_CONFIG_DIR moves the home.
    let moved = tmp.path().join("elsewhere");
    fs::rename(tmp.path().join(".claude"), &moved).unwrap();
    let rows = json_lines(&stdout_of(
        rollcall()
            .env("CLAUDE_CONFIG_DIR", &moved)
            .args(["scan", "--json", "--agent", "claude"]),
        0,
    ));
    assert_eq!(rows.len(), 5);
    assert!(rows.iter().all(|r| {
        r["path"]
            .as_str()
            .unwrap()
            .starts_with(&moved.display().to_string())
    }));
}

/// A file named on the command line is labelled by what it turns out to be, not by its name: a
/// Claude Code transcript called `session.jsonl`, a subagent's transcript out of its folder.
#[test]
fn files_named_to_scan_are_labelled_by_their_dialect() {
    let tmp = tempfile::tempdir().unwrap();
    let named = tmp.path().join("session.jsonl");
    fs::copy(
        "fixtures/claude/clean_session/5e55a0c2-0001-4000-8000-000000000000.jsonl",
        &named,
    )
    .unwrap();
    let subagent = tmp.path().join("agent-a1b2c3.jsonl");
    fs::copy(
        "fixtures/claude/subagent_file/agent-a1b2c3.jsonl",
        &subagent,
    )
    .unwrap();
    let out = Command::cargo_bin("rollcall")
        .unwrap()
        .args(["scan", "--json"])
        .arg(&named)
        .arg(&subagent)
        .output()
        .unwrap();
    let rows = json_lines(&out.stdout);
    let row = |path: &Path| {
        rows.iter()
            .find(|r| r["path"] == json!(path.display().to_string()))
            .unwrap()
            .clone()
    };
    assert_eq!(row(&named)["agent"], json!("claude"));
    // Dated by its first entry, not by when it was copied here.
    assert_eq!(row(&named)["started"], json!("2026-03-02T09:14:20.000Z"));
    assert_eq!(row(&subagent)["agent"], json!("claude"));
    assert_ne!(row(&subagent)["subagent_of"], Value::Null);
}
