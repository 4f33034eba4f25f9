//! The application: runs one command as the resolved configuration says, printing to stdout, with
//! progress bars on stderr. The one place that decides, per command, which view and which report
//! to build (each once) and hands them to the renderers.

use std::io::{self, BufWriter, IsTerminal, StdoutLock, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::CommandFactory;

use crate::cli::{self, Config, Task};
use crate::escape;
use crate::exit::{Failure, Status};
use crate::homes;
use crate::render::{self, Format, Job, Paint, Printed};
use crate::repair;
use crate::report::Report;
use crate::scan;
use crate::session::{self, Session, ViewSettings};
use crate::source::{self, Input};

/// A session log replayed in memory: what `replay`, `repair-view` and the report print of it.
#[derive(Debug)]
pub struct Loaded(session::Session);

impl Loaded {
    /// Replays `bytes` as a session log of any dialect rollcall reads, on one thread.
    pub fn from_bytes(bytes: &[u8]) -> Result<Loaded, Failure> {
        let load = session::Load::alone(crate::chunk::MAX_LINE_BYTES);
        session::load_bytes("<bytes>", bytes.to_vec(), load).map(Loaded)
    }

    /// Writes what `job` prints, without colour.
    pub fn render(&self, job: Job, out: &mut impl Write) -> io::Result<()> {
        print(&self.0, &job, false, Paint(false), Built::Freed, out).map(|_| ())
    }

    /// Whether `--strict` would exit with status 3.
    pub fn fails_strict(&self) -> bool {
        fails_strict(&self.0, &ViewSettings::default()).unwrap_or(false)
    }
}

/// What becomes of the view and report a command built, once printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Built {
    Freed,
    /// Left to the process's exit, which follows: a Claude Code view is hundreds of thousands of
    /// blocks in small vectors, and freeing them one by one took 2–4% of a report.
    LeftToExit,
}

/// Prints what `job` asks of `session`; returns whether `--strict` fails, when `strict` asks
/// (the report is built only when it is printed or `strict` asks for it).
pub(crate) fn print(
    session: &Session,
    job: &Job,
    strict: bool,
    paint: Paint,
    built: Built,
    out: &mut impl Write,
) -> io::Result<bool> {
    let view = match job {
        Job::History => None,
        Job::Report { .. } => Some(session.view(&ViewSettings::default())?),
        Job::View { settings, .. } | Job::Diff { settings } => Some(session.view(settings)?),
    };
    let report = match (&view, job) {
        (Some(view), Job::Report { .. }) => Some(Report::new(session, view)?),
        _ => None,
    };
    let printed = match (job, &view, &report) {
        (&Job::Report { json }, _, Some(report)) => Printed::Report { report, json },
        (&Job::View { format, .. }, Some(view), _) => Printed::View { view, format },
        (Job::Diff { .. }, Some(view), _) => Printed::Diff { view },
        _ => Printed::History,
    };
    render::render(printed, session, paint, out)?;
    let fails = match (strict, &report, &view) {
        (false, _, _) => false,
        (true, Some(report), _) => report.fails_strict(),
        (true, None, Some(view)) => Report::new(session, view)?.fails_strict(),
        (true, None, None) => fails_strict(session, &ViewSettings::default())?,
    };
    if built == Built::LeftToExit {
        std::mem::forget(report);
        std::mem::forget(view);
    }
    Ok(fails)
}

/// Whether `--strict` fails on `session`, judged with the view for `settings`.
pub(crate) fn fails_strict(session: &Session, settings: &ViewSettings) -> io::Result<bool> {
    let view = session.view(settings)?;
    Ok(Report::new(session, &view)?.fails_strict())
}

/// Answers a command line clap did not turn into a command: help and the version go to stdout,
/// which can fail like any other output (a full disk is status 1, a closed pipe is not a
/// failure); a usage error goes to stderr with status 2.
pub fn answer(e: &clap::Error) -> Result<Status, Failure> {
    if e.use_stderr() {
        // Where stderr cannot be written there is no one to tell; the status still tells.
        let _ = e.print();
        return Ok(Status::Usage);
    }
    let text = e.render();
    let text = if io::stdout().is_terminal() {
        text.ansi().to_string()
    } else {
        text.to_string()
    };
    to_stdout(|out| out.write_all(text.as_bytes()))?;
    Ok(Status::Success)
}

/// The manual page of rollcall, or of one of its commands (`rollcall-replay(1)`, as git names
/// its commands' pages).
fn manual_page(command: Option<&str>) -> io::Result<Vec<u8>> {
    let top = cli::Cli::command().disable_help_subcommand(true);
    let cmd = match command {
        None => top,
        Some(name) => {
            const PAGES: [(&str, &str); 5] = [
                ("replay", "rollcall-replay"),
                ("repair-view", "rollcall-repair-view"),
                ("scan", "rollcall-scan"),
                ("completions", "rollcall-completions"),
                ("man", "rollcall-man"),
            ];
            let missing = || io::Error::other(format!("no command {name}"));
            let (_, page) = PAGES.iter().find(|(n, _)| *n == name).ok_or_else(missing)?;
            let mut top = top;
            top.build();
            let sub = top.find_subcommand(name).cloned().ok_or_else(missing)?;
            sub.name(*page)
                .bin_name(*page)
                .version(env!("CARGO_PKG_VERSION"))
        }
    };
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut page)?;
    Ok(page)
}

/// Runs one command as `config` says, printing to stdout.
pub fn run(config: &Config) -> anyhow::Result<Status> {
    let paint = Paint(config.color);
    raise_open_file_limit();
    Ok(match &config.task {
        Task::Rollout { input, job, strict } => run_rollout(config, input, job, *strict, paint)?,
        Task::Scan(scan) => run_scan(config, scan, paint)?,
        Task::Repair(options) => {
            let written = repair::run(options, config.load, &config.homes)?;
            to_stdout(|out| {
                if options.json {
                    serde_json::to_writer(&mut *out, &written).map_err(io::Error::other)?;
                    out.write_all(b"\n")
                } else {
                    repair::human(&written, out)
                }
            })?;
            Status::Success
        }
        Task::Completions(shell) => {
            // Generated whole first: clap_complete panics on a failed write.
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut cli::Cli::command(), "rollcall", &mut script);
            to_stdout(|out| out.write_all(&script))?;
            Status::Success
        }
        Task::Man(command) => {
            let page = manual_page(command.as_deref())
                .map_err(|e| Failure::unusable("<manual page>", e))?;
            to_stdout(|out| out.write_all(&page))?;
            Status::Success
        }
    })
}

fn run_rollout(
    config: &Config,
    input: &Input,
    job: &Job,
    strict: bool,
    paint: Paint,
) -> Result<Status, Failure> {
    let resolved = homes::resolve(input, &config.homes)?;
    let input = resolved.input;
    let size = match &input {
        Input::Path(path) => std::fs::metadata(path).map_or(0, |m| m.len()),
        Input::Stdin | Input::Latest(_) => 0,
    };
    // Only a long read is worth a bar; a regular file says how long it will be.
    let bar = progress_bar(
        config.progress && size >= 64 << 20,
        size,
        "{binary_bytes}/{binary_total_bytes} {wide_bar} {eta}",
    );
    let session = session::load(&input, config.load, &config.homes, &mut |n| bar.inc(n));
    bar.finish_and_clear();
    let mut session = session?;
    session.superseded = resolved.superseded;
    // Items are printed as the log spells them; on a terminal, what in them would act on it
    // is escaped (the same JSON, other bytes).
    let raw_json = matches!(
        job,
        Job::History
            | Job::View {
                format: Format::Jsonl | Format::Json,
                ..
            }
    );
    let safe = raw_json && io::stdout().is_terminal();
    let mut fails = false;
    let written = to_stdout(|out| {
        fails = if safe {
            print(
                &session,
                job,
                strict,
                paint,
                Built::LeftToExit,
                &mut escape::SafeJson::new(&mut *out),
            )?
        } else {
            print(&session, job, strict, paint, Built::LeftToExit, out)?
        };
        Ok(())
    })
    .map_err(|failure| match failure.subject.as_deref() {
        // The source could not be read back: the failure is the file's, not stdout's.
        Some(READ_BACK) => Failure::unusable(&session.name, failure.problem),
        _ => failure,
    })?;
    // Like the view and the report ([`Built::LeftToExit`]): a large transcript's session is
    // hundreds of thousands of nodes, ids and texts, and freeing them took ~10 ms of 0.9 s.
    std::mem::forget(session);
    Ok(if written && strict && fails {
        Status::Findings
    } else {
        Status::Success
    })
}

fn run_scan(config: &Config, scan: &cli::Scan, paint: Paint) -> Result<Status, Failure> {
    let roots = scan::roots(scan, &config.homes)?;
    let mut warnings = Vec::new();
    let found = scan::files(&roots, &mut warnings);
    let bytes = found.iter().map(|f| f.size).sum();
    let rows = with_progress(config.progress, found.len(), bytes, |read, finished| {
        scan::rows(
            found,
            &roots,
            config.load,
            &config.homes,
            read,
            finished,
            &mut warnings,
        )
    });
    for warning in &warnings {
        // Not eprintln!, which panics when stderr cannot be written.
        let _ = writeln!(io::stderr(), "rollcall: {}", escape::escape(warning));
    }
    let shown = rows
        .iter()
        .filter(|row| !scan.problems || row.health().is_problem());
    let written = to_stdout(|out| {
        if scan.json {
            render::scan_jsonl(shown, out)
        } else {
            render::scan_table(shown, &rows, paint, out)
        }
    })?;
    if !written {
        return Ok(Status::Success);
    }
    let failing = rows.iter().any(scan::Row::fails_strict);
    Ok(if scan.strict && failing {
        Status::Findings
    } else {
        Status::Success
    })
}

/// The subject of a failure to read a source back while printing.
const READ_BACK: &str = "<source>";

/// Writes to stdout through `write`. Returns whether all was written: a reader that has seen
/// enough (`| head`) closes the pipe, which is not an error.
fn to_stdout(
    write: impl FnOnce(&mut BufWriter<StdoutLock<'static>>) -> io::Result<()>,
) -> Result<bool, Failure> {
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    match write(&mut out).and_then(|()| out.flush()) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) if source::is_read_back(&e) => Err(Failure::unusable(READ_BACK, e)),
        Err(e) => Err(Failure::unusable(
            "<stdout>",
            format!("cannot write: {}", source::io_reason(&e)),
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

/// Raises the soft limit of open files to the hard one: a parent rollout larger than what is
/// held in memory stays open to be read again, and a lineage of over a thousand such forks would
/// stop at the usual soft limit of 1024 where the hard one (often half a million) allows it.
fn raise_open_file_limit() {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: both calls read or write only the `rlimit` passed, which lives on this stack.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0
            && limit.rlim_cur < limit.rlim_max
        {
            limit.rlim_cur = limit.rlim_max;
            let _ = unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) };
        }
    }
}
