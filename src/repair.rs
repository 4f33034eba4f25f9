//! `rollcall repair`: a new session the agent resumes as the prompt view says (SPEC §12), written
//! beside the original in the agent's home, atomically, and read back before it is announced.
//! The original is only ever read.

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, anyhow, bail};
use serde::Serialize;
use sha2::{Digest as _, Sha256};

use crate::claude;
use crate::codex;
use crate::codex::home::CodexHome;
use crate::exit::Failure;
use crate::homes::Homes;
use crate::report::Report;
use crate::session::{self, Agent, AnyView, Load, Session, ViewSettings};
use crate::source::{Input, SpanReader};
use crate::view::{Origin, PromptView};

/// What `rollcall repair` was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub input: Input,
    /// Write here instead of beside the original in the agent's home.
    pub output: Option<PathBuf>,
    pub dry_run: bool,
    pub json: bool,
    /// Repair a session that looks as if it is still being written.
    pub force: bool,
    pub settings: ViewSettings,
}

/// What was (or would be) written, as `--json` prints it.
#[derive(Debug, Serialize)]
pub(crate) struct Written {
    pub agent: &'static str,
    pub source: String,
    pub id: String,
    pub path: String,
    pub resume_command: String,
    /// The folder to run the resume command in.
    pub cwd: Option<String>,
    pub dry_run: bool,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub entries: u64,
    pub repairs: Repairs,
}

/// What the copy leaves behind or adds, against the original's log.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Repairs {
    /// Malformed or torn lines, which are not in the copy.
    pub lines_dropped: u64,
    pub torn_tail: bool,
    /// Answers written for calls that never got one (Claude Code), or that the agent itself adds
    /// on resume with the same ids (Codex).
    pub missing_outputs: u64,
    pub orphan_outputs_removed: u64,
    /// Other branches of a Claude Code session, which the copy does not hold.
    pub other_branches: u64,
    /// Parent rollouts whose history the copy holds itself.
    pub parents_folded_in: u64,
}

/// Runs `rollcall repair`: returns what to print.
pub(crate) fn run(options: &Options, load: Load, homes: &Homes) -> anyhow::Result<Written> {
    let resolved = crate::homes::resolve(&options.input, homes)?;
    let input = resolved.input;
    let name = input.name();
    let before = stat(&input);
    let session = session::load(&input, load, homes, &mut |_| {})?;
    if !options.force && stat(&input) != before {
        return Err(Failure::unusable(
            &name,
            "it changed while it was read: is the agent still writing it? (--force repairs it \
             all the same)",
        )
        .into());
    }
    let view = session.view(&options.settings)?;
    let report = Report::new(&session, &view)?;
    let agent = match view {
        AnyView::Codex(_) => Agent::Codex,
        AnyView::Claude(_) => Agent::Claude,
    };
    let original_path = input.path();
    if agent == Agent::Codex && !options.force {
        refuse_if_locked(&name, original_path, report.thread_id, homes)?;
    }
    // Claude Code resumes a session by its file name: a copy written with -o to `<uuid>.jsonl`
    // is that session.
    let named = options
        .output
        .as_deref()
        .and_then(Path::file_stem)
        .and_then(|stem| uuid::Uuid::try_parse(&stem.to_string_lossy()).ok())
        .filter(|_| agent == Agent::Claude);
    let new_id = match agent {
        Agent::Codex => uuid::Uuid::now_v7(),
        Agent::Claude => named.unwrap_or_else(uuid::Uuid::new_v4),
    }
    .to_string();
    let now = SystemTime::now();
    let target = match &options.output {
        Some(path) => path.clone(),
        None => beside(agent, original_path, report.cwd, homes, &new_id, now)?,
    };
    let repairs = Repairs {
        lines_dropped: session.findings.parse_errors,
        torn_tail: session.findings.torn_tail,
        missing_outputs: report.repairs.missing_outputs.len() as u64,
        orphan_outputs_removed: report.repairs.orphan_outputs.len() as u64,
        other_branches: report
            .claude
            .as_ref()
            .map_or(0, |c| c.other_leaves.len() as u64),
        parents_folded_in: session.sources.len().saturating_sub(1) as u64,
    };
    let resume_command = match agent {
        Agent::Codex => format!("codex resume {new_id}"),
        Agent::Claude => format!("claude --resume {new_id}"),
    };
    let mut written = Written {
        agent: agent.name(),
        source: name.clone(),
        id: new_id.clone(),
        path: target.display().to_string(),
        resume_command,
        cwd: report.cwd.map(str::to_owned),
        dry_run: options.dry_run,
        bytes_read: session.sources.iter().map(|s| s.len()).sum(),
        bytes_written: 0,
        entries: 0,
        repairs,
    };
    let copy = Copy {
        session: &session,
        view: &view,
        original: original_path,
        new_id: &new_id,
        now: &rfc3339(now),
        cwd: report.cwd,
        model: options.settings.model.as_deref(),
    };
    if options.dry_run {
        let mut counter = Counter::default();
        let promised = copy.write(&mut counter)?;
        written.bytes_written = counter.0;
        written.entries = promised.entries;
        return Ok(written);
    }
    if target.exists() {
        bail!(
            "{}: already exists: rollcall never writes over a file",
            target.display()
        );
    }
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir).with_context(|| format!("creating the folder {}", dir.display()))?;
    let temporary = tempfile::Builder::new()
        .prefix(".rollcall-repair-")
        .suffix(".tmp")
        .tempfile_in(&dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    let mut out = BufWriter::new(temporary.as_file());
    let promised = copy
        .write(&mut out)
        .with_context(|| format!("writing the copy into {}", dir.display()))?;
    out.flush()
        .and_then(|()| temporary.as_file().sync_all())
        .with_context(|| format!("writing the copy into {}", dir.display()))?;
    drop(out);
    written.bytes_written = temporary.as_file().metadata().map_or(0, |m| m.len());
    written.entries = promised.entries;
    check_copy(
        temporary.path(),
        &promised,
        &options.settings,
        copy.model_for_copy(),
    )
    .with_context(|| format!("reading back the copy before writing {}", target.display()))?;
    temporary
        .persist_noclobber(&target)
        .map_err(|e| anyhow!(e.error))
        .with_context(|| format!("moving the copy to {}", target.display()))?;
    // The new name is only durable once the folder holding it is.
    if let Ok(folder) = File::open(&dir) {
        let _ = folder.sync_all();
    }
    Ok(written)
}

/// A file's size and modification time, to tell whether it changed while it was read.
fn stat(input: &Input) -> Option<(u64, Option<SystemTime>)> {
    let meta = fs::metadata(input.path()?).ok()?;
    Some((meta.len(), meta.modified().ok()))
}

/// Refuses a Codex thread whose writer lock a running Codex holds (`thread-writer-locks/<id>
/// .lock` locked, as `/proc/locks` shows: rollcall takes no lock itself).
fn refuse_if_locked(
    name: &str,
    path: Option<&Path>,
    thread: Option<&str>,
    homes: &Homes,
) -> anyhow::Result<()> {
    let Some(thread) = thread else {
        return Ok(());
    };
    let home = path
        .and_then(CodexHome::of_file)
        .or_else(|| homes.codex.clone());
    let Some(home) = home else {
        return Ok(());
    };
    let lock = home
        .dir
        .join("thread-writer-locks")
        .join(format!("{thread}.lock"));
    if is_locked(&lock) {
        return Err(Failure::unusable(
            name,
            format!(
                "a running Codex holds its writer lock ({}): finish or close that session first \
                 (--force repairs it all the same)",
                lock.display()
            ),
        )
        .into());
    }
    Ok(())
}

/// Whether some process holds a lock on `path`, read from `/proc/locks` (Linux; elsewhere,
/// never).
fn is_locked(path: &Path) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::MetadataExt;
        let Ok(meta) = fs::metadata(path) else {
            return false;
        };
        let Ok(locks) = fs::read_to_string("/proc/locks") else {
            return false;
        };
        let inode = meta.ino().to_string();
        // `1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF`: the device and inode are the
        // sixth field, `major:minor:inode`, in hexadecimal device numbers.
        let device = format!(
            "{:02x}:{:02x}",
            libc::major(meta.dev()),
            libc::minor(meta.dev())
        );
        return locks.lines().any(|line| {
            line.split_whitespace().nth(5).is_some_and(|field| {
                let mut parts = field.rsplitn(2, ':');
                parts.next() == Some(inode.as_str()) && parts.next() == Some(device.as_str())
            })
        });
    }
    #[allow(unreachable_code)]
    {
        let _ = path;
        false
    }
}

/// Where the agent keeps a new session: Codex's `sessions/YYYY/MM/DD/rollout-<local time>-<id>
/// .jsonl`; for Claude Code, `<id>.jsonl` in the original's project folder.
fn beside(
    agent: Agent,
    original: Option<&Path>,
    cwd: Option<&str>,
    homes: &Homes,
    id: &str,
    now: SystemTime,
) -> anyhow::Result<PathBuf> {
    match agent {
        Agent::Codex => {
            let home = original
                .and_then(CodexHome::of_file)
                .or_else(|| homes.codex.clone())
                .ok_or_else(|| anyhow!("no Codex home to write into: name one with -o PATH"))?;
            let (y, mo, d, h, mi, s) = local_time(now);
            Ok(home
                .sessions()
                .join(format!("{y:04}/{mo:02}/{d:02}"))
                .join(format!(
                    "rollout-{y:04}-{mo:02}-{d:02}T{h:02}-{mi:02}-{s:02}-{id}.jsonl"
                )))
        }
        Agent::Claude => {
            let project = match original.and_then(Path::parent) {
                // A subagent's transcript (`<session>/subagents/agent-*.jsonl`): its copy is a
                // session of the project.
                Some(dir) if dir.file_name().is_some_and(|n| n == "subagents") => {
                    dir.parent().and_then(Path::parent).map(Path::to_path_buf)
                }
                Some(dir) => Some(dir.to_path_buf()),
                None => match (&homes.claude, cwd) {
                    (Some(home), Some(cwd)) => {
                        Some(home.projects().join(claude::home::folder_of(cwd)))
                    }
                    _ => None,
                },
            };
            let project = project
                .ok_or_else(|| anyhow!("no project folder to write into: name one with -o PATH"))?;
            Ok(project.join(format!("{id}.jsonl")))
        }
    }
}

/// The local time of `now` as Codex names files: year, month, day, hour, minute, second.
fn local_time(now: SystemTime) -> (i64, i64, i64, i64, i64, i64) {
    let secs = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let mut offset = 0;
    #[cfg(unix)]
    {
        let t = secs as libc::time_t;
        // SAFETY: `localtime_r` reads `t` and writes only into `tm`, which it fully initializes
        // on success; both live on this stack frame for the whole call.
        let mut tm: libc::tm = unsafe { std::mem::zeroed() };
        if !unsafe { libc::localtime_r(&t, &mut tm) }.is_null() {
            offset = tm.tm_gmtoff;
        }
    }
    let local = secs + offset;
    let (days, rest) = (local.div_euclid(86_400), local.rem_euclid(86_400));
    let (y, m, d) = crate::text::civil_from_days(days);
    (y, m, d, rest / 3600, rest % 3600 / 60, rest % 60)
}

/// `2026-12-01T16:13:25.123Z`.
fn rfc3339(now: SystemTime) -> String {
    let since = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    crate::text::utc_time(since.as_secs() as i64, i64::from(since.subsec_millis()))
}

/// What a copy is made from.
struct Copy<'a> {
    session: &'a Session,
    view: &'a AnyView<'a>,
    original: Option<&'a Path>,
    new_id: &'a str,
    now: &'a str,
    cwd: Option<&'a str>,
    model: Option<&'a str>,
}

/// What a written copy promises: its view, as a digest of its entries.
struct Promise {
    entries: u64,
    digest: [u8; 32],
    /// The digest of every entry but the last, and whether the last is Claude Code's
    /// `No response requested.` filler.
    before_last: [u8; 32],
    last_is_filler: bool,
}

impl Copy<'_> {
    /// The model the copy's view is made for (Claude Code: the one its assistant entries name).
    fn model_for_copy(&self) -> Option<&str> {
        match self.view {
            AnyView::Claude(view) => Some(self.model.unwrap_or(&view.model)),
            // The model Codex resumes the original with, wherever the copy lies.
            AnyView::Codex(view) => Some(&view.settings.model.slug),
        }
    }

    /// Writes the copy into `out`; returns what its view must be.
    fn write(&self, out: &mut impl Write) -> anyhow::Result<Promise> {
        let mut reader = SpanReader::new(&self.session.sources);
        let mut digest = ViewDigest::default();
        match self.view {
            AnyView::Codex(view) => {
                let line = first_meta_line(self.original)?;
                let head = codex::write::Head {
                    meta_line: &line,
                    new_id: self.new_id,
                    now: self.now,
                };
                let meta = codex::write::session_meta(&head)
                    .map_err(|why| anyhow!("cannot repair it: {why}"))?;
                codex::write::begin(self.now, &meta, out)?;
                let mut written = 0;
                let mut last_user = None;
                view.entries(&mut reader, &mut |entry| {
                    let item = digest.add(entry.text)?;
                    // Codex answers an unanswered call itself on resume, with the same id: the
                    // copy records only what happened.
                    if entry.origin == Origin::Synthetic {
                        return Ok(());
                    }
                    if let Some(text) = codex::write::user_text(&item) {
                        last_user = Some(text);
                    }
                    codex::write::item(written, entry.text, out)?;
                    written += 1;
                    Ok(())
                })?;
                codex::write::end(self.now, last_user.as_deref(), out)?;
            }
            AnyView::Claude(view) => {
                let head = claude::write::Head {
                    session_id: self.new_id,
                    cwd: self.cwd,
                    version: None,
                    model: self.model_for_copy(),
                    now: self.now,
                };
                let mut writer = claude::write::Writer::new(head);
                view.entries(&mut reader, &mut |entry| {
                    digest.add(entry.text)?;
                    writer.message(entry.text, out)
                })?;
            }
        }
        Ok(digest.finish())
    }
}

/// A running digest of view entries, each as its parsed JSON (so that spelling does not count).
#[derive(Default)]
struct ViewDigest {
    hash: Sha256,
    /// The digest before the last entry was added.
    before_last: Option<Sha256>,
    entries: u64,
    last_is_filler: bool,
}

impl ViewDigest {
    /// Adds `entry`; returns it parsed, for callers that read it too.
    fn add(&mut self, entry: &[u8]) -> io::Result<serde_json::Value> {
        let value: serde_json::Value = serde_json::from_slice(entry).map_err(io::Error::other)?;
        self.before_last = Some(self.hash.clone());
        self.hash.update(value.to_string().as_bytes());
        self.hash.update(b"\n");
        self.entries += 1;
        self.last_is_filler = value
            == serde_json::json!({"role": "assistant",
                "content": [{"type": "text", "text": "No response requested."}]});
        Ok(value)
    }

    fn finish(self) -> Promise {
        Promise {
            entries: self.entries,
            before_last: self.before_last.unwrap_or_default().finalize().into(),
            digest: self.hash.finalize().into(),
            last_is_filler: self.last_is_filler,
        }
    }
}

/// Replays the copy at `path` and checks that its view is the one promised.
fn check_copy(
    path: &Path,
    promised: &Promise,
    settings: &ViewSettings,
    model: Option<&str>,
) -> anyhow::Result<()> {
    let load = Load::alone(crate::chunk::MAX_LINE_BYTES);
    let copy = session::load(
        &Input::Path(path.to_path_buf()),
        load,
        &Homes::default(),
        &mut |_| {},
    )?;
    let settings = ViewSettings {
        model: model.map(str::to_owned),
        ..settings.clone()
    };
    let view = copy.view(&settings)?;
    let mut reader = SpanReader::new(&copy.sources);
    let mut digest = ViewDigest::default();
    view.entries(&mut reader, &mut |entry| digest.add(entry.text).map(drop))?;
    let found = digest.finish();
    let same = found.entries == promised.entries && found.digest == promised.digest;
    // A Claude Code copy ends where the original's view ends; when that is a user message the
    // client (and so the view) answers it with its filler, which the original's trailing local
    // command output was spared: the one difference a copy may show.
    let filler = matches!(view, AnyView::Claude(_))
        && found.entries == promised.entries + 1
        && found.before_last == promised.digest
        && found.last_is_filler;
    if !same && !filler {
        bail!(
            "the copy would resume differently from the original ({} entries, {} promised): \
             nothing was written (please report this)",
            found.entries,
            promised.entries
        );
    }
    let report = Report::new(&copy, &view)?;
    if report.fails_strict() {
        bail!(
            "the copy still has findings --strict fails on: nothing was written (please report this)"
        );
    }
    Ok(())
}

/// The original's first `session_meta` record line.
fn first_meta_line(original: Option<&Path>) -> anyhow::Result<String> {
    let path = original
        .ok_or_else(|| anyhow!("cannot repair a Codex rollout read from stdin: name the file"))?;
    let file = File::open(path).with_context(|| format!("reopening {}", path.display()))?;
    for line in BufReader::new(file).split(b'\n').take(64) {
        let line = line.with_context(|| format!("reading {}", path.display()))?;
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&line);
        let Ok(text) = std::str::from_utf8(line) else {
            continue;
        };
        let text = text.trim_end_matches('\r');
        let is_meta = serde_json::from_str::<serde_json::Value>(text)
            .is_ok_and(|v| v["type"] == "session_meta");
        if is_meta {
            return Ok(text.to_owned());
        }
    }
    bail!(
        "cannot repair it: no session_meta record to name the thread by (Codex needs its cwd and originator)"
    )
}

/// A writer that only counts, for `--dry-run`.
#[derive(Default)]
struct Counter(u64);

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// What `repair` prints for people.
pub(crate) fn human(w: &Written, out: &mut impl Write) -> io::Result<()> {
    let verb = if w.dry_run { "would write" } else { "wrote" };
    let e = crate::escape::escape;
    writeln!(out, "{verb} {}", e(&w.path))?;
    writeln!(
        out,
        "  {} {} entries, {} bytes (the original: {} bytes)",
        w.agent, w.entries, w.bytes_written, w.bytes_read
    )?;
    let r = &w.repairs;
    let mut done = Vec::new();
    let mut say = |n: u64, one: &'static str, many: &'static str, done_to: &str| {
        if n > 0 {
            done.push(format!(
                "{n} {} {done_to}",
                crate::text::plural(n, one, many)
            ));
        }
    };
    say(r.lines_dropped, "bad line", "bad lines", "left out");
    say(
        r.missing_outputs,
        "unanswered call",
        "unanswered calls",
        "answered",
    );
    say(
        r.orphan_outputs_removed,
        "orphan output",
        "orphan outputs",
        "left out",
    );
    say(
        r.other_branches,
        "other branch",
        "other branches",
        "left out",
    );
    say(
        r.parents_folded_in,
        "parent rollout",
        "parent rollouts",
        "folded in",
    );
    if !done.is_empty() {
        writeln!(out, "  repairs: {}", done.join(", "))?;
    }
    if !w.dry_run {
        match &w.cwd {
            Some(cwd) => writeln!(out, "resume it with: cd {} && {}", e(cwd), w.resume_command)?,
            None => writeln!(out, "resume it with: {}", w.resume_command)?,
        }
    }
    Ok(())
}
