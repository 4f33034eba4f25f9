//! rollcall reads AI coding agent rollouts, replays them into the state an agent would resume
//! from, and renders the history, a report, or the repaired prompt view. The pipeline:
//!
//! ```text
//! bytes ─read─▶ lines ─record─▶ records ─replay─▶ ResumeState ─normalize─▶ PromptView ─render─▶ stdout
//! ```
#![deny(clippy::print_stdout)]

pub mod cli;
pub mod escape;
pub mod exit;
pub mod item;
pub mod json;
pub mod normalize;
pub mod read;
pub mod record;
pub mod render;
pub mod replay;
pub mod report;

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;

use cli::{Config, Input};
use exit::{Failure, Status};
use replay::ResumeState;

/// Runs one command as `config` says, printing to stdout.
pub fn run(config: &Config) -> Result<Status, Failure> {
    let name = config.input.name();
    let state = load(&config.input, config.job.needs_text())?;
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let written = render::render(config, &name, &state, &mut out).and_then(|()| out.flush());
    match written {
        Ok(()) => {}
        // A reader that has seen enough (`| head`) is not an error.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(Status::Success),
        Err(e) => {
            return Err(Failure::unusable(
                "<stdout>",
                format!("cannot write: {}", io_reason(&e)),
            ));
        }
    }
    let findings = !state.error_lines.is_empty() || state.incomplete_turn.is_some();
    Ok(if config.strict && findings {
        Status::Findings
    } else {
        Status::Success
    })
}

/// Opens and replays the input. Never writes to it: files are opened read-only.
pub fn load(input: &Input, keep_text: bool) -> Result<ResumeState, Failure> {
    let name = input.name();
    let result = match input {
        Input::Stdin => replay::replay(io::stdin(), keep_text, &mut |_| {}),
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
            replay::replay(source, keep_text, &mut |_| {})
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
fn io_reason(e: &io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(cut) => text[..cut].to_string(),
        None => text,
    }
}
