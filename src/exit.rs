//! Exit statuses, one documented type mapped in one place (SPEC §7).

/// How the program ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The job ran; findings such as parse errors are reported, not failed on.
    Success = 0,
    /// The input cannot be used: missing, unreadable, a directory, empty, no session_meta.
    Unusable = 1,
    /// The command line is wrong (clap reports these itself).
    Usage = 2,
    /// With `--strict`: the rollout has parse errors or an incomplete turn.
    Findings = 3,
}

impl From<Status> for std::process::ExitCode {
    fn from(status: Status) -> Self {
        std::process::ExitCode::from(status as u8)
    }
}

/// A failure that ends the program: its status and the one line that explains it.
#[derive(Debug)]
pub struct Failure {
    pub status: Status,
    pub message: String,
}

impl Failure {
    pub fn unusable(name: &str, problem: impl std::fmt::Display) -> Failure {
        Failure {
            status: Status::Unusable,
            message: format!("{name}: {problem}"),
        }
    }
}
