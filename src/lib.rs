//! rollcall reads AI coding agent rollouts, replays them into the state an agent would resume
//! from, and renders the history, a report, or the repaired prompt view. The pipeline:
//!
//! ```text
//! bytes ─read─▶ lines ─record─▶ records ─replay─▶ ResumeState ─normalize─▶ PromptView ─render─▶ stdout
//! ```
//!
//! `scan` runs the first half of it over every rollout that `find` turns up, in parallel.
#![deny(clippy::print_stdout)]

pub mod cli;
pub mod escape;
pub mod exit;
pub mod find;
pub mod item;
pub mod json;
pub mod normalize;
pub mod read;
pub mod record;
pub mod render;
pub mod replay;
pub mod report;
pub mod scan;

use std::fs::File;
use std::io::{self, BufWriter, Read, StdoutLock, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::CommandFactory;
use cli::{Config, Input, Task};
use exit::{Failure, Status};
use render::Paint;
use replay::ResumeState;

/// Runs one command as `config` says, printing to stdout.
pub fn run(config: &Config) -> Result<Status, Failure> {
    let paint = Paint(config.color);
    match &config.task {
        Task::Rollout { input, job, strict } => {
            let input = find::resolve(input, config.codex_home.as_ref())?;
            let name = input.name();
            let size = match &input {
                Input::Path(path) => std::fs::metadata(path).map_or(0, |m| m.len()),
                Input::Stdin => 0,
            };
            // Only a long read is worth a bar; a regular file says how long it will be.
            let bar = progress_bar(
                config.progress && size >= 64 << 20,
                size,
                "{binary_bytes}/{binary_total_bytes} {wide_bar} {eta}",
            );
            let state = load_reporting(&input, job.needs_text(), &mut |n| bar.inc(n));
            bar.finish_and_clear();
            let state = state?;
            if !to_stdout(|out| render::render(*job, paint, &name, &state, out))? {
                return Ok(Status::Success);
            }
            let findings = !state.error_lines.is_empty() || state.incomplete_turn.is_some();
            Ok(if *strict && findings {
                Status::Findings
            } else {
                Status::Success
            })
        }
        Task::Scan(scan) => {
            let roots = scan::roots(scan, config.codex_home.as_ref())?;
            let mut warnings = Vec::new();
            let found = scan::find(&roots, &mut warnings);
            let bytes = found.iter().map(|f| f.size).sum();
            let rows = with_progress(config.progress, found.len(), bytes, |read, finished| {
                scan::replay(found, read, finished)
            });
            for warning in &warnings {
                // Not eprintln!, which panics when stderr cannot be written.
                let _ = writeln!(io::stderr(), "rollcall: {}", escape::escape(warning));
            }
            if !to_stdout(|out| render::scan(&rows, scan, paint, out))? {
                return Ok(Status::Success);
            }
            let failing = rows.iter().any(|row| row.health().fails_strict());
            Ok(if scan.strict && failing {
                Status::Findings
            } else {
                Status::Success
            })
        }
        Task::Completions(shell) => {
            // Generated whole first: clap_complete panics on a failed write.
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut cli::Cli::command(), "rollcall", &mut script);
            to_stdout(|out| out.write_all(&script))?;
            Ok(Status::Success)
        }
    }
}

/// Writes to stdout through `write`. Returns whether all was written: a reader that has seen
/// enough (`| head`) closes the pipe, which is not an error.
fn to_stdout(
    write: impl FnOnce(&mut BufWriter<StdoutLock<'static>>) -> io::Result<()>,
) -> Result<bool, Failure> {
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    match write(&mut out).and_then(|()| out.flush()) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(Failure::unusable(
            "<stdout>",
            format!("cannot write: {}", io_reason(&e)),
        )),
    }
}

/// Runs `work` over `files` files of `total` bytes, showing a progress bar on stderr when `show`
/// is set (stderr is a terminal). `work` reports bytes as it reads them and each file it finishes.
fn with_progress<T>(
    show: bool,
    files: usize,
    total: u64,
    work: impl FnOnce(&(dyn Fn(u64) + Sync), &(dyn Fn() + Sync)) -> T,
) -> T {
    let bar = progress_bar(
        show,
        total,
        "scanning {wide_bar} {binary_bytes}/{binary_total_bytes}, {msg} rollouts",
    );
    bar.set_message(format!("0/{files}"));
    let finished = AtomicUsize::new(0);
    let result = work(&|bytes| bar.inc(bytes), &|| {
        let n = finished.fetch_add(1, Ordering::Relaxed) + 1;
        bar.set_message(format!("{n}/{files}"));
    });
    bar.finish_and_clear();
    result
}

/// A progress bar on stderr of `total` bytes, drawn only when `show` (stderr is a terminal).
fn progress_bar(show: bool, total: u64, template: &str) -> indicatif::ProgressBar {
    let target = if show {
        indicatif::ProgressDrawTarget::stderr()
    } else {
        indicatif::ProgressDrawTarget::hidden()
    };
    let bar = indicatif::ProgressBar::with_draw_target(Some(total), target);
    let style = indicatif::ProgressStyle::with_template(template)
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

/// Opens and replays the input. Never writes to it: files are opened read-only.
pub fn load(input: &Input, keep_text: bool) -> Result<ResumeState, Failure> {
    load_reporting(input, keep_text, &mut |_| {})
}

/// [`load`], telling `progress` how many bytes each chunk read had.
pub fn load_reporting(
    input: &Input,
    keep_text: bool,
    progress: &mut dyn FnMut(u64),
) -> Result<ResumeState, Failure> {
    let name = input.name();
    let result = match input {
        Input::Stdin => replay::replay(io::stdin(), keep_text, progress),
        Input::Path(path) if path.as_os_str().is_empty() => {
            return Err(Failure::unusable(
                "\"\"",
                "empty file name: give the path of a rollout, or - for standard input",
            ));
        }
        Input::Path(path) => {
            let file =
                File::open(path).map_err(|e| Failure::unusable(&name, open_problem(path, &e)))?;
            let meta = file
                .metadata()
                .map_err(|e| Failure::unusable(&name, format!("cannot read: {}", io_reason(&e))))?;
            if meta.is_dir() {
                return Err(Failure::unusable(
                    &name,
                    "is a directory, not a rollout file",
                ));
            }
            // A regular file is read up to the size it had when opened: a consistent snapshot
            // even while an agent keeps appending to it.
            let source: Box<dyn Read + Send> = if meta.is_file() {
                Box::new(file.take(meta.len()))
            } else {
                Box::new(file)
            };
            replay::replay(source, keep_text, progress)
        }
    };
    result.map_err(|e| match e {
        replay::Error::Io(e) => Failure::unusable(&name, format!("cannot read: {}", io_reason(&e))),
        replay::Error::Unusable(why) => Failure::unusable(&name, why),
    })
}

/// Why `path` could not be opened, in words that say what is wrong where the OS's do not.
fn open_problem(path: &Path, e: &io::Error) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        // Opening a socket fails with "No such device or address".
        if std::fs::metadata(path).is_ok_and(|m| m.file_type().is_socket()) {
            return "is a socket, not a rollout file".into();
        }
    }
    format!("cannot open: {}", io_reason(e))
}

/// An I/O error's message without the `(os error N)` suffix.
pub(crate) fn io_reason(e: &io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(cut) => text[..cut].to_string(),
        None => text,
    }
}
