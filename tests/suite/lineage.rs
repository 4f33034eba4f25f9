//! Codex homes of 2026 (SPEC §9): paginated rollouts and their ordinals, forks and reverts
//! that store only their own records on top of a parent's prefix, compressed rollouts, the
//! state database `codex resume` looks threads up in, and 2025 files.
//!
//! Every home is built here, in a temporary folder, with files shaped as Codex writes them
//! (`rollout/src/recorder.rs`, `ordinal.rs`, `rollout_file_name.rs` at 343074d4). What each test
//! expects is written from the rules of §9, not from running rollcall: replay prints history
//! items verbatim, so the expected history is the list of payloads planted.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::common::state_db;

/// A thread or rollout id, unique per `n` (UUIDv7-shaped, growing with `n`).
fn id(n: u32) -> String {
    format!(
        "019f{n:04x}-0000-7000-8000-{:012x}",
        0xabc0_0000_u64 + u64::from(n)
    )
}

/// A user message, the simplest history item.
fn said(text: &str) -> String {
    format!(
        r#"{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{text}"}}]}}"#
    )
}

fn answered(text: &str) -> String {
    format!(
        r#"{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"{text}"}}]}}"#
    )
}

/// A paginated rollout as Codex writes it: every line `{"timestamp","ordinal","type","payload"}`,
/// the session_meta first at the first ordinal.
struct Paged {
    lines: Vec<String>,
    /// The ordinal of each line (None for a line written without one).
    ordinals: Vec<Option<u64>>,
    /// History items, in order, with the ordinal of their line.
    items: Vec<(u64, String)>,
    next: u64,
}

/// Where a fork or revert's history starts: `history_base` of its session_meta.
#[derive(Clone)]
struct Base {
    rollout: String,
    end_ordinal: u64,
    end_offset: u64,
}

impl Paged {
    fn new(thread: &str, base: Option<&Base>) -> Paged {
        let first = base.map_or(0, |b| b.end_ordinal);
        let history_base = base.map_or(String::new(), |b| {
            format!(
                r#","history_base":{{"thread_id":"{}","end_ordinal_exclusive":{},"end_byte_offset":{}}}"#,
                b.rollout, b.end_ordinal, b.end_offset
            )
        });
        let mut paged = Paged {
            lines: Vec::new(),
            ordinals: Vec::new(),
            items: Vec::new(),
            next: first,
        };
        paged.record(
            "session_meta",
            &format!(
                r#"{{"id":"{thread}","timestamp":"2026-08-20T10:00:00.000Z","cwd":"/srv/app","originator":"codex_work_desktop","cli_version":"0.150.0","source":"vscode","model_provider":"openai","base_instructions":null,"history_mode":"paginated"{history_base}}}"#
            ),
        );
        paged
    }

    fn record(&mut self, kind: &str, payload: &str) -> &mut Paged {
        let ordinal = self.next;
        self.next += 1;
        self.lines.push(format!(
            r#"{{"timestamp":"2026-08-20T10:00:{:02}.000Z","ordinal":{ordinal},"type":"{kind}","payload":{payload}}}"#,
            ordinal % 60
        ));
        self.ordinals.push(Some(ordinal));
        if kind == "response_item" {
            self.items.push((ordinal, payload.to_string()));
        }
        self
    }

    fn item(&mut self, payload: &str) -> &mut Paged {
        self.record("response_item", payload)
    }

    /// A line written with `ordinal` as given (a fault, unless it is the next one).
    fn item_at(&mut self, ordinal: Option<u64>, payload: &str) -> &mut Paged {
        let ordinal_key = ordinal.map_or(String::new(), |o| format!(r#""ordinal":{o},"#));
        self.lines.push(format!(
            r#"{{"timestamp":"2026-08-20T10:01:00.000Z",{ordinal_key}"type":"response_item","payload":{payload}}}"#
        ));
        self.ordinals.push(ordinal);
        self.items
            .push((ordinal.unwrap_or(u64::MAX), payload.to_string()));
        if let Some(o) = ordinal {
            self.next = self.next.max(o + 1);
        }
        self
    }

    fn text(&self) -> String {
        self.lines.iter().map(|l| format!("{l}\n")).collect()
    }

    /// The `history_base` of a fork of this file that keeps records before `ordinal`, as
    /// `paginated_fork.rs` computes it: the cut's ordinal, and the byte offset where that
    /// record's line starts.
    fn cut_before(&self, rollout: &str, ordinal: u64) -> Base {
        let mut offset = 0;
        for (line, o) in self.lines.iter().zip(&self.ordinals) {
            if *o == Some(ordinal) {
                break;
            }
            offset += line.len() as u64 + 1;
        }
        Base {
            rollout: rollout.into(),
            end_ordinal: ordinal,
            end_offset: offset,
        }
    }

    /// The items a child inherits through `base`.
    fn prefix(&self, base: &Base) -> Vec<String> {
        self.items
            .iter()
            .filter(|(o, _)| *o < base.end_ordinal)
            .map(|(_, item)| item.clone())
            .collect()
    }

    fn own(&self) -> Vec<String> {
        self.items.iter().map(|(_, item)| item.clone()).collect()
    }
}

/// A Codex home in a temporary folder.
struct Home {
    tmp: TempDir,
}

impl Home {
    fn new() -> Home {
        let home = Home {
            tmp: tempfile::tempdir().unwrap(),
        };
        fs::create_dir_all(home.codex().join("sessions")).unwrap();
        home
    }

    fn codex(&self) -> PathBuf {
        self.tmp.path().join(".codex")
    }

    /// Writes `text` as the rollout `rollout-<time>-<ids>.jsonl` under `sessions/2026/08/20`.
    fn write(&self, time: &str, ids: &str, text: &str) -> PathBuf {
        let dir = self.codex().join("sessions/2026/08/20");
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("rollout-2026-08-20T{time}-{ids}.jsonl"));
        fs::write(&path, text).unwrap();
        path
    }

    fn rollcall(&self) -> Command {
        let mut cmd = Command::cargo_bin("rollcall").unwrap();
        cmd.env("HOME", self.tmp.path())
            .env("CODEX_HOME", self.codex())
            .env_remove("CLAUDE_CONFIG_DIR")
            .args(["--color", "never"]);
        cmd
    }

    fn run(&self, args: &[&str], status: i32) -> Vec<u8> {
        let out = self.rollcall().args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
        out.stdout
    }

    fn replay(&self, args: &[&str]) -> Vec<String> {
        let mut all = vec!["replay"];
        all.extend(args);
        String::from_utf8(self.run(&all, 0))
            .unwrap()
            .lines()
            .map(String::from)
            .collect()
    }

    fn report(&self, args: &[&str]) -> Value {
        let mut all = vec!["replay", "--report", "--json"];
        all.extend(args);
        serde_json::from_slice(&self.run(&all, 0)).unwrap()
    }

    fn strict(&self, target: &str) -> i32 {
        let out = self
            .rollcall()
            .args(["replay", "--report", "--strict", target])
            .output()
            .unwrap();
        out.status.code().unwrap()
    }

    fn scan(&self) -> Vec<Value> {
        String::from_utf8(self.run(&["scan", "--json"], 0))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

fn text(path: &Path) -> String {
    path.display().to_string()
}

fn kinds(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap().to_string())
        .collect()
}

/// A parent of five messages, and a fork keeping its first three.
fn parent_and_fork(home: &Home) -> (Paged, PathBuf, Paged, PathBuf) {
    let (p, f) = (id(1), id(2));
    let mut parent = Paged::new(&p, None);
    for n in 1..=5 {
        parent.item(&said(&format!("parent {n}")));
    }
    let parent_path = home.write("10-00-00", &p, &parent.text());
    let base = parent.cut_before(&p, 4);
    let mut fork = Paged::new(&f, Some(&base));
    fork.item(&said("fork 1")).item(&answered("fork 2"));
    let fork_path = home.write("11-00-00", &f, &fork.text());
    (parent, parent_path, fork, fork_path)
}

#[test]
fn a_fork_replays_its_parents_prefix_then_its_own_records() {
    let home = Home::new();
    let (parent, parent_path, fork, fork_path) = parent_and_fork(&home);
    let base = parent.cut_before(&id(1), 4);
    let mut want = parent.prefix(&base);
    assert_eq!(want.len(), 3);
    want.extend(fork.own());

    assert_eq!(home.replay(&[&text(&fork_path)]), want);
    // By thread id too, and the prompt view has the same items (nothing to repair).
    assert_eq!(home.replay(&[&id(2)]), want);
    let view = String::from_utf8(home.run(&["repair-view", &id(2)], 0)).unwrap();
    assert_eq!(view.lines().collect::<Vec<_>>(), want);

    let report = home.report(&[&id(2)]);
    assert_eq!(report["thread_id"], json!(id(2)));
    assert_eq!(report["paginated"], json!(true));
    assert_eq!(report["history_items"], json!(5));
    assert_eq!(
        report["files_read"],
        json!([text(&parent_path), text(&fork_path)])
    );
    assert_eq!(kinds(&report), Vec::<String>::new());
    assert_eq!(home.strict(&id(2)), 0);

    // --no-lineage: the one file.
    assert_eq!(home.replay(&["--no-lineage", &id(2)]), fork.own());
    let alone = home.report(&["--no-lineage", &id(2)]);
    assert_eq!(alone["files_read"], json!([text(&fork_path)]));
}

#[test]
fn the_parent_is_cut_by_ordinal_and_by_byte_offset() {
    let home = Home::new();
    let p = id(1);
    let mut parent = Paged::new(&p, None);
    for n in 1..=4 {
        parent.item(&said(&format!("parent {n}")));
    }
    home.write("10-00-00", &p, &parent.text());
    // A byte offset that stops one record earlier than the ordinal: both bounds hold.
    let mut base = parent.cut_before(&p, 3);
    base.end_ordinal = 4;
    let mut fork = Paged::new(&id(2), Some(&base));
    fork.item(&said("fork"));
    let fork_path = home.write("11-00-00", &id(2), &fork.text());
    let mut want = vec![said("parent 1"), said("parent 2")];
    want.extend(fork.own());
    assert_eq!(home.replay(&[&text(&fork_path)]), want);

    // And an ordinal that stops one record earlier than the byte offset.
    let mut base = parent.cut_before(&p, 4);
    base.end_ordinal = 3;
    let mut fork = Paged::new(&id(3), Some(&base));
    fork.item(&said("fork"));
    let fork_path = home.write("12-00-00", &id(3), &fork.text());
    let mut want = vec![said("parent 1"), said("parent 2")];
    want.extend(fork.own());
    assert_eq!(home.replay(&[&text(&fork_path)]), want);
}

#[test]
fn a_two_level_lineage_replays_root_first() {
    let home = Home::new();
    let (parent, parent_path, fork, fork_path) = parent_and_fork(&home);
    // A fork of the fork, keeping the parent's prefix and the fork's first record.
    let base = fork.cut_before(&id(2), fork.next - 1);
    let mut grandchild = Paged::new(&id(3), Some(&base));
    grandchild.item(&said("grandchild"));
    let path = home.write("12-00-00", &id(3), &grandchild.text());

    let mut want = parent.prefix(&parent.cut_before(&id(1), 4));
    want.push(said("fork 1"));
    want.extend(grandchild.own());
    assert_eq!(home.replay(&[&id(3)]), want);
    let report = home.report(&[&id(3)]);
    assert_eq!(
        report["files_read"],
        json!([text(&parent_path), text(&fork_path), text(&path)])
    );
    assert_eq!(kinds(&report), Vec::<String>::new());
    // Ordinals continue across the lineage: no ordinal finding anywhere.
    for row in home.scan() {
        assert_eq!(row["status"], json!("ok"), "{row}");
    }
}

#[test]
fn a_missing_parent_is_a_finding_not_a_failure() {
    let home = Home::new();
    let base = Base {
        rollout: id(9),
        end_ordinal: 3,
        end_offset: 700,
    };
    let mut fork = Paged::new(&id(2), Some(&base));
    fork.item(&said("fork 1"));
    let fork_path = home.write("11-00-00", &id(2), &fork.text());

    assert_eq!(home.replay(&[&text(&fork_path)]), fork.own());
    let report = home.report(&[&text(&fork_path)]);
    assert_eq!(kinds(&report), ["missing_parent"]);
    let message = report["findings"][0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("history incomplete: parent rollout")
            && message.contains(&id(9))
            && message.ends_with("not found"),
        "{message}"
    );
    assert_eq!(home.strict(&text(&fork_path)), 3);
    let rows = home.scan();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["status"], json!("broken-lineage"));
    assert_eq!(rows[0]["broken_lineage"], json!(true));
    // The human report says it in words.
    let human = String::from_utf8(home.run(&["replay", "--report", &id(2)], 0)).unwrap();
    assert!(human.contains(message), "{human}");
}

#[test]
fn a_cycle_is_a_finding_and_ends() {
    let home = Home::new();
    let (a, b) = (id(1), id(2));
    // Each one's base is the other: a cycle no Codex would write, but a copied home can hold.
    let to_b = Base {
        rollout: b.clone(),
        end_ordinal: 2,
        end_offset: 10,
    };
    let to_a = Base {
        rollout: a.clone(),
        end_ordinal: 2,
        end_offset: 10,
    };
    let mut first = Paged::new(&a, Some(&to_b));
    first.item(&said("a"));
    home.write("10-00-00", &a, &first.text());
    let mut second = Paged::new(&b, Some(&to_a));
    second.item(&said("b"));
    home.write("11-00-00", &b, &second.text());

    let report = home.report(&[&a]);
    assert_eq!(kinds(&report), ["lineage_cycle"]);
    assert_eq!(home.strict(&a), 3);
    // What can be read is read: the history ends with the file's own item.
    assert_eq!(home.replay(&[&a]).last(), Some(&said("a")));
    for row in home.scan() {
        assert_eq!(row["status"], json!("broken-lineage"), "{row}");
    }
}

#[test]
fn a_revert_is_the_thread_codex_resumes_and_the_old_file_is_superseded() {
    let home = Home::new();
    let thread = id(1);
    let mut original = Paged::new(&thread, None);
    for n in 1..=4 {
        original.item(&said(&format!("turn {n}")));
    }
    let original_path = home.write("10-00-00", &thread, &original.text());
    // `thread/revert` to before the third turn: a new file, same thread id, a fresh rollout id.
    let rollout = id(5);
    let base = original.cut_before(&thread, 3);
    let mut revert = Paged::new(&thread, Some(&base));
    revert.item(&said("turn 3, again"));
    let revert_path = home.write("12-00-00", &format!("{thread}_{rollout}"), &revert.text());

    let mut want = original.prefix(&base);
    want.extend(revert.own());
    assert_eq!(home.replay(&[&thread]), want);
    let report = home.report(&[&thread]);
    assert_eq!(report["file"], json!(text(&revert_path)));
    assert_eq!(report["superseded_files"], json!([text(&original_path)]));
    assert_eq!(
        report["files_read"],
        json!([text(&original_path), text(&revert_path)])
    );

    // A second revert in the same second: the larger rollout id wins.
    let later = id(6);
    let mut again = Paged::new(&thread, Some(&base));
    again.item(&said("turn 3, third try"));
    let again_path = home.write("12-00-00", &format!("{thread}_{later}"), &again.text());
    let report = home.report(&[&thread]);
    assert_eq!(report["file"], json!(text(&again_path)));
    assert_eq!(
        report["superseded_files"],
        json!([text(&revert_path), text(&original_path)])
    );
}

#[test]
fn a_compressed_rollout_reads_as_its_plain_text() {
    let home = Home::new();
    let (_, parent_path, _, fork_path) = parent_and_fork(&home);
    let plain_view = home.run(&["repair-view", &id(2)], 0);
    let plain_history = home.replay(&[&id(2)]);

    // Compress the fork, as Codex's cold-storage pass does: `X.jsonl` becomes `X.jsonl.zst`.
    let zst = PathBuf::from(format!("{}.zst", fork_path.display()));
    let bytes = fs::read(&fork_path).unwrap();
    fs::write(&zst, zstd::encode_all(&bytes[..], 3).unwrap()).unwrap();
    fs::remove_file(&fork_path).unwrap();
    assert_eq!(home.replay(&[&id(2)]), plain_history);
    assert_eq!(home.run(&["repair-view", &id(2)], 0), plain_view);
    assert_eq!(home.replay(&[&text(&zst)]), plain_history);
    let report = home.report(&[&id(2)]);
    assert_eq!(report["file"], json!(text(&zst)));
    assert_eq!(
        report["files_read"],
        json!([text(&parent_path), text(&zst)])
    );
    // From standard input, the same stream is read as plain text only after decompression
    // by whoever pipes it: `-` is read as it comes.
    let rows = home.scan();
    assert!(
        rows.iter()
            .any(|r| r["path"] == json!(text(&zst)) && r["status"] == json!("ok"))
    );

    // The plain file wins over its compressed twin: put a different plain file back.
    let mut other = Paged::new(&id(2), None);
    other.item(&said("the plain one"));
    fs::write(&fork_path, other.text()).unwrap();
    assert_eq!(home.replay(&[&id(2)]), other.own());
    let rows = home.scan();
    assert!(
        rows.iter().all(|r| r["path"] != json!(text(&zst))),
        "{rows:?}"
    );
}

#[test]
fn the_state_database_says_which_file_a_thread_is() {
    let home = Home::new();
    let thread = id(1);
    let mut older = Paged::new(&thread, None);
    older.item(&said("the indexed one"));
    let indexed = home.write("10-00-00", &thread, &older.text());
    let mut newer = Paged::new(&thread, None);
    newer.item(&said("newer by name"));
    let rollout = id(4);
    let newest = home.write("12-00-00", &format!("{thread}_{rollout}"), &newer.text());
    // Without a database, the newest name wins.
    assert_eq!(home.replay(&[&thread]), newer.own());

    // A thread whose row names a file that is gone, and one with no row.
    let stale = id(2);
    let mut gone = Paged::new(&stale, None);
    gone.item(&said("moved by hand"));
    let moved = home.write("10-30-00", &stale, &gone.text());
    let stale_path = home.codex().join("sessions/2026/08/19/rollout-gone.jsonl");
    let unlisted = id(3);
    let mut missing_row = Paged::new(&unlisted, None);
    missing_row.item(&said("never indexed"));
    let unlisted_path = home.write("11-00-00", &unlisted, &missing_row.text());

    state_db(
        &home.codex().join("state_5.sqlite"),
        &[(&thread, &indexed), (&stale, &stale_path)],
    );
    // An older state database that says otherwise is not read.
    state_db(&home.codex().join("state_4.sqlite"), &[(&thread, &newest)]);

    assert_eq!(home.replay(&[&thread]), older.own());
    let report = home.report(&[&thread]);
    assert_eq!(report["file"], json!(text(&indexed)));
    assert_eq!(report["superseded_files"], json!([text(&newest)]));
    // A row whose file is gone: look-up falls back to the names.
    assert_eq!(home.replay(&[&stale]), gone.own());

    let rows = home.scan();
    let row = |path: &Path| {
        rows.iter()
            .find(|r| r["path"] == json!(text(path)))
            .unwrap_or_else(|| panic!("no row for {}: {rows:?}", path.display()))
    };
    assert_eq!(row(&indexed)["status"], json!("ok"));
    assert_eq!(row(&indexed)["unindexed"], json!(false));
    assert_eq!(row(&unlisted_path)["status"], json!("unindexed"));
    assert_eq!(row(&unlisted_path)["unindexed"], json!(true));
    // The newest file of the indexed thread is not the thread's row, but the thread has one.
    assert_eq!(row(&newest)["unindexed"], json!(false));
    // The moved file has no row of its own path, but its thread has a row.
    assert_eq!(row(&moved)["unindexed"], json!(false));
    let missing = row(&stale_path);
    assert_eq!(missing["status"], json!("missing-file"));
    assert_eq!(missing["thread_id"], json!(stale));
    assert_eq!(missing["missing_file"], json!(true));
    // A scan of one day's folder lists no missing file of another folder.
    let day = home.codex().join("sessions/2026/08/20");
    let out = home
        .rollcall()
        .args(["scan", "--json"])
        .arg(&day)
        .output()
        .unwrap();
    let listed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(listed.lines().count(), 4, "{listed}");
    assert!(!listed.contains("missing-file"), "{listed}");
    assert_eq!(row(&indexed)["missing_file"], json!(false));
    assert_eq!(rows.len(), 5);
}

#[test]
fn a_database_being_written_is_read_without_locking_it() {
    let home = Home::new();
    let thread = id(1);
    let mut first = Paged::new(&thread, None);
    first.item(&said("first"));
    let indexed = home.write("10-00-00", &thread, &first.text());
    let mut second = Paged::new(&thread, None);
    second.item(&said("second"));
    home.write("12-00-00", &format!("{thread}_{}", id(4)), &second.text());
    let db = home.codex().join("state_5.sqlite");
    state_db(&db, &[(&thread, &indexed)]);

    // Codex holds a write transaction open while rollcall reads.
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer.execute_batch("PRAGMA journal_mode=WAL;").unwrap();
    writer
        .execute_batch("BEGIN IMMEDIATE; UPDATE threads SET title = 'busy';")
        .unwrap();
    assert_eq!(home.replay(&[&thread]), first.own());
    writer.execute_batch("COMMIT;").unwrap();
    // A database that is not SQLite at all reads as no database.
    fs::write(&db, "not a database").unwrap();
    assert_eq!(home.replay(&[&thread]), second.own());
}

#[test]
fn ordinal_faults_are_findings_with_their_lines() {
    let home = Home::new();
    /// A name, how the rollout goes wrong, the finding's kind and its line.
    type Case = (&'static str, Box<dyn Fn(&mut Paged)>, &'static str, u64);
    let cases: [Case; 3] = [
        (
            "duplicate",
            Box::new(|p: &mut Paged| {
                p.item(&said("one")).item_at(Some(1), &said("one again"));
            }),
            "duplicate_ordinal",
            3,
        ),
        (
            "regressed",
            Box::new(|p: &mut Paged| {
                p.item(&said("one"))
                    .item(&said("two"))
                    .item_at(Some(1), &said("back"));
            }),
            "regressed_ordinal",
            4,
        ),
        (
            "final",
            Box::new(|p: &mut Paged| {
                p.item(&said("one")).item_at(None, &said("no ordinal"));
            }),
            "final_without_ordinal",
            3,
        ),
    ];
    for (n, (name, build, kind, line)) in cases.iter().enumerate() {
        let thread = id(10 + n as u32);
        let mut paged = Paged::new(&thread, None);
        build(&mut paged);
        let path = home.write(&format!("1{n}-00-00"), &thread, &paged.text());
        let report = home.report(&[&text(&path)]);
        assert_eq!(kinds(&report), [*kind], "{name}");
        assert_eq!(report["findings"][0]["line"], json!(line), "{name}");
        assert_eq!(home.strict(&text(&path)), 3, "{name}");
        // The items are all replayed all the same: the log is shown as it is.
        assert_eq!(home.replay(&[&text(&path)]), paged.own(), "{name}");
    }
    for row in home.scan() {
        assert_eq!(row["status"], json!("ordinal-fault"), "{row}");
        assert_eq!(row["ordinal_faults"], json!(1), "{row}");
    }
    // A gap is no fault: Codex's writer continues after 0, 4 at 5.
    let thread = id(20);
    let mut gap = Paged::new(&thread, None);
    gap.item_at(Some(4), &said("after a gap"))
        .item(&said("next"));
    let path = home.write("20-00-00", &thread, &gap.text());
    assert_eq!(kinds(&home.report(&[&text(&path)])), Vec::<String>::new());
    // Nor is a legacy rollout without ordinals.
    let legacy = format!(
        "{}\n{}\n",
        r#"{"timestamp":"2026-08-20T10:00:00.000Z","type":"session_meta","payload":{"id":"019f0015-0000-7000-8000-0000abc00015","timestamp":"2026-08-20T10:00:00.000Z","cwd":"/srv/app","originator":"codex-tui","cli_version":"0.150.0","history_mode":"legacy"}}"#,
        r#"{"timestamp":"2026-08-20T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[]}}"#
    );
    let path = home.write("21-00-00", &id(21), &legacy);
    assert_eq!(kinds(&home.report(&[&text(&path)])), Vec::<String>::new());
}

#[test]
fn a_record_over_16_mib_is_a_finding_but_not_strict() {
    const LIMIT: usize = 16 << 20;
    let home = Home::new();
    // Codex's migration drops a record whose bytes, newline included, are over 16 MiB: one of
    // exactly 16 MiB stays, one byte more goes.
    for (n, with_newline) in [(1, LIMIT), (2, LIMIT + 1)] {
        let thread = id(n);
        let mut paged = Paged::new(&thread, None);
        paged.item(&said("small"));
        paged.item(&said(""));
        let bare = paged.lines.pop().unwrap().len();
        paged.items.pop();
        paged.next -= 1;
        paged.item(&said(&"x".repeat(with_newline - 1 - bare)));
        assert_eq!(paged.lines.last().unwrap().len() + 1, with_newline);
        paged.item(&said("after"));
        let path = home.write(&format!("1{n}-00-00"), &thread, &paged.text());
        let report = home.report(&[&text(&path)]);
        assert_eq!(report["history_items"], json!(3));
        assert_eq!(home.strict(&text(&path)), 0);
        if with_newline == LIMIT {
            assert_eq!(kinds(&report), Vec::<String>::new());
            continue;
        }
        assert_eq!(kinds(&report), ["oversize_record"]);
        assert_eq!(report["findings"][0]["line"], json!(3));
        let rows = home.scan();
        let row = rows
            .iter()
            .find(|r| r["path"] == json!(text(&path)))
            .unwrap();
        assert_eq!(row["status"], json!("ordinal-fault"));
        // scan --strict fails on what replay --strict fails on, and this is not that.
        let strict = home.rollcall().args(["scan", "--strict"]).output().unwrap();
        assert_eq!(strict.status.code(), Some(0));
    }
}

#[test]
fn an_unreadable_history_base_is_a_finding_and_strict_fails() {
    let home = Home::new();
    for (n, bad) in ["-1", "1.5", "1e3", "\"41\"", "null", "18446744073709551616"]
        .iter()
        .enumerate()
    {
        let thread = id(20 + n as u32);
        let mut fork = Paged::new(&thread, None);
        fork.item(&said("fork 1"));
        let good = r#""history_mode":"paginated"}"#;
        let broken = format!(
            r#""history_mode":"paginated","history_base":{{"thread_id":"{}","end_ordinal_exclusive":{bad},"end_byte_offset":7}}}}"#,
            id(9)
        );
        let text_of = fork.text().replacen(good, &broken, 1);
        assert_ne!(text_of, fork.text(), "the base was written");
        let path = home.write("11-00-00", &thread, &text_of);
        let report = home.report(&[&text(&path)]);
        assert_eq!(kinds(&report), ["unreadable_history_base"], "{bad}");
        assert_eq!(home.strict(&text(&path)), 3, "{bad}");
    }
}

#[test]
fn heads_are_read_whole_however_long_the_session_meta() {
    let home = Home::new();
    // Megabytes of base instructions, as a real session_meta can hold.
    let big = |p: &mut Paged, mib: usize| {
        let text = format!(
            r#""base_instructions":{{"text":"{}"}}"#,
            "i".repeat(mib << 20)
        );
        p.lines[0] = p.lines[0].replacen(r#""base_instructions":null"#, &text, 1);
    };
    let (r, m, c) = (id(31), id(32), id(33));
    let mut root = Paged::new(&r, None);
    root.item(&said("root 1")).item(&said("root 2"));
    home.write("09-00-00", &r, &root.text());
    // A parent whose session_meta is over 4 MiB, and a child whose own is over 1 MiB.
    let mut middle = Paged::new(&m, Some(&root.cut_before(&r, 3)));
    big(&mut middle, 5);
    middle.item(&said("middle 1"));
    home.write("10-00-00", &m, &middle.text());
    let mut child = Paged::new(&c, Some(&middle.cut_before(&m, 5)));
    big(&mut child, 2);
    child.item(&said("child 1"));
    let path = home.write("11-00-00", &c, &child.text());
    let replayed = home.replay(&[&text(&path)]);
    let said_in = |line: &str| {
        serde_json::from_str::<Value>(line).unwrap()["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        replayed.iter().map(|l| said_in(l)).collect::<Vec<_>>(),
        ["root 1", "root 2", "middle 1", "child 1"]
    );
    assert_eq!(kinds(&home.report(&[&text(&path)])), Vec::<String>::new());
}

/// A chain of 1,100 forks replays with 256 files allowed open, soft and hard limit alike: a
/// parent is opened when its turn comes and closed once read, not held open beside the others.
#[cfg(target_os = "linux")]
#[test]
fn a_lineage_deeper_than_the_open_file_limit_replays() {
    use std::os::unix::process::CommandExt;
    const DEPTH: u32 = 1_100;
    const OPEN_FILES: u64 = 256;
    let home = Home::new();
    let mut base = None;
    let mut last = PathBuf::new();
    for n in 0..DEPTH {
        let thread = id(1_000 + n);
        let mut rollout = Paged::new(&thread, base.as_ref());
        rollout.item(&said(&format!("turn {n}")));
        last = home.write(
            &format!("10-{:02}-{:02}", n / 60 % 60, n % 60),
            &thread,
            &rollout.text(),
        );
        base = Some(rollout.cut_before(&thread, rollout.next));
    }
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("rollcall"));
    cmd.env("CODEX_HOME", home.codex()).arg("replay").arg(&last);
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: OPEN_FILES,
                rlim_max: OPEN_FILES,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        out.stdout
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .count(),
        DEPTH as usize
    );
}

/// Issue 22: a fork made while its parent's turn was open reads that open turn from the parent;
/// the fork's own turn does not abandon it (it goes on in the parent). A call the parent's
/// stream cut short is reported with the parent's file, not with a line of the fork's.
#[test]
fn a_fork_does_not_abandon_its_parents_open_turn_and_names_the_parents_line() {
    let home = Home::new();
    let (p, f) = (id(1), id(2));
    let mut parent = Paged::new(&p, None);
    parent
        .record("event_msg", &format!(r#"{{"type":"task_started","turn_id":"{}"}}"#, id(10)))
        .item(&said("parent 1"))
        .item(r#"{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls /sr","call_id":"c1"}"#)
        .item(r#"{"type":"function_call_output","call_id":"c1","output":"failed to parse function arguments"}"#);
    let parent_path = home.write("10-00-00", &p, &parent.text());
    let base = parent.cut_before(&p, 5);
    let mut fork = Paged::new(&f, Some(&base));
    fork.record(
        "event_msg",
        &format!(r#"{{"type":"task_started","turn_id":"{}"}}"#, id(20)),
    )
    .item(&said("fork 1"))
    .record(
        "event_msg",
        &format!(r#"{{"type":"task_complete","turn_id":"{}"}}"#, id(20)),
    );
    home.write("11-00-00", &f, &fork.text());

    let report = home.report(&[&id(2)]);
    assert_eq!(report["abandoned_turns"], json!([]));
    assert_eq!(report["incomplete_turn"], json!(null));
    assert_eq!(report["completed_turns"], json!(1));
    // The call is line 4 of the parent (its session_meta, the start, the message, the call).
    let faults = &report["tool_call_faults"];
    assert_eq!(faults.as_array().map(Vec::len), Some(1), "{faults}");
    assert_eq!(faults[0]["file"], json!(text(&parent_path)));
    assert_eq!(faults[0]["line"], json!(4));
    let problem = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == "invalid-tool-arguments")
        .expect("the cut call is a problem");
    assert_eq!(problem["line"], json!(null));
    assert!(
        problem["message"].as_str().unwrap().ends_with(&format!(
            "(line 4 of the parent rollout {})",
            text(&parent_path)
        )),
        "{problem}"
    );
}
