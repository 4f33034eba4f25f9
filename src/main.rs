//! The `rollcall` binary: parse the arguments, run the library, map the outcome to an exit status.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let config = rollcall::cli::Cli::parse().resolve();
    match rollcall::run(&config) {
        Ok(status) => status.into(),
        Err(failure) => {
            eprintln!("rollcall: {}", rollcall::escape::escape(&failure.message));
            failure.status.into()
        }
    }
}
