//! Exit statuses, one documented type mapped in one place (SPEC §7), and the failure that ends a
//! run with its one-line reason.

use std::fmt;

/// How the program ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The job ran; findings such as parse errors are reported, not failed on.
    Success = 0,
    /// The input cannot be used: missing, unreadable, a directory, empty, not a rollout.
    Unusable = 1,
    /// The command line is wrong (clap reports these itself).
    Usage = 2,
    /// With `--strict`: a finding that makes resuming differ from the log.
    Findings = 3,
}

impl From<Status> for std::process::ExitCode {
    fn from(status: Status) -> Self {
        std::process::ExitCode::from(status as u8)
    }
}

/// A failure that ends the program: its status, what it is about (a file, `<stdout>`), and what
/// is wrong. The one line is composed only where it is printed.
#[derive(Debug)]
pub struct Failure {
    pub status: Status,
    pub subject: Option<String>,
    pub problem: String,
}

impl Failure {
    /// `subject` cannot be used, because of `problem`.
    pub fn unusable(subject: &str, problem: impl fmt::Display) -> Failure {
        Failure {
            status: Status::Unusable,
            subject: Some(subject.to_string()),
            problem: problem.to_string(),
        }
    }

    /// A failure about no one file (`scan` with nothing to scan).
    pub fn general(problem: impl fmt::Display) -> Failure {
        Failure {
            status: Status::Unusable,
            subject: None,
            problem: problem.to_string(),
        }
    }
}

impl std::error::Error for Failure {}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.subject {
            Some(subject) => write!(f, "{subject}: {}", self.problem),
            None => f.write_str(&self.problem),
        }
    }
}
