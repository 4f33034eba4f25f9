//! The `rollcall` binary: parse the arguments, run the library, map the outcome to an exit status.
//! Errors reach this edge as `anyhow::Error`; the library's own [`Failure`] inside one carries
//! the documented status, and anything else is status 1.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use rollcall::exit::{Failure, Status};

/// Large blocks on huge pages where the kernel gives them only when asked (see `alloc`).
#[global_allocator]
static ALLOCATOR: rollcall::alloc::HugePages = rollcall::alloc::HugePages;

fn main() -> ExitCode {
    match run() {
        Ok(status) => status.into(),
        Err(error) => {
            let status = error
                .downcast_ref::<Failure>()
                .map_or(Status::Unusable, |failure| failure.status);
            let message = format!("{error:#}");
            let message = rollcall::cli::terminal_safe(&message);
            // When stderr cannot be written (`2>/dev/full`) there is nowhere to say it, but the
            // status still tells; `eprintln!` would panic instead.
            let _ = writeln!(std::io::stderr(), "rollcall: {message}");
            status.into()
        }
    }
}

fn run() -> anyhow::Result<Status> {
    Ok(match rollcall::cli::Cli::try_parse() {
        Ok(cli) => rollcall::run(&cli.resolve())?,
        Err(e) => rollcall::answer(&e)?,
    })
}
