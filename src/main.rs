//! The `rollcall` binary: parse the arguments, run the library, map the outcome to an exit status.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let outcome = match rollcall::cli::Cli::try_parse() {
        Ok(cli) => rollcall::run(&cli.resolve()),
        Err(e) => rollcall::answer(&e),
    };
    match outcome {
        Ok(status) => status.into(),
        Err(failure) => {
            let message = failure.to_string();
            let message = rollcall::cli::terminal_safe(&message);
            // When stderr cannot be written (`2>/dev/full`) there is nowhere to say it, but the
            // status still tells; `eprintln!` would panic instead.
            let _ = writeln!(std::io::stderr(), "rollcall: {message}");
            failure.status.into()
        }
    }
}
