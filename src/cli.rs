//! The command line: clap types, parsed once, then resolved into a [`Config`] of decisions (input,
//! output format, modalities, colour). Nothing below this module reads flags or the environment.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::normalize::Modalities;

const EXAMPLES: &str = "\
Examples:
  rollcall replay --report ~/.codex/sessions/2026/11/30/rollout-….jsonl
  rollcall repair-view --diff session.jsonl
  rollcall repair-view --modalities text session.jsonl > prompt.jsonl";

#[derive(Debug, Parser)]
#[command(
    name = "rollcall",
    version,
    about = "Replay AI coding agent rollouts and show the repaired history a model would be sent",
    long_about = "Replay AI coding agent session logs (Codex CLI rollouts and the mini format) \
                  into the state an agent resumes from, report what is broken, and show the \
                  repaired prompt view. The log is never changed.",
    after_help = EXAMPLES
)]
pub struct Cli {
    /// When to colour human-readable output.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, global = true)]
    pub color: ColorWhen,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the resume state's history as JSONL, each item exactly as the log has it.
    #[command(after_help = "\
Examples:
  rollcall replay session.jsonl | jq -c .type
  rollcall replay --report session.jsonl
  rollcall replay --report --json session.jsonl | jq .repairs
  rollcall replay --strict session.jsonl > /dev/null || echo broken")]
    Replay(ReplayArgs),

    /// Print the prompt view: the history repaired as it would be sent to the model.
    #[command(after_help = "\
Examples:
  rollcall repair-view session.jsonl > prompt.jsonl
  rollcall repair-view --diff session.jsonl
  rollcall repair-view --format text --modalities text session.jsonl | less -R")]
    RepairView(RepairViewArgs),
}

#[derive(Debug, Args)]
pub struct InputArgs {
    /// The rollout to read: a path, or `-` for standard input.
    #[arg(value_name = "FILE")]
    pub file: OsString,

    /// Exit with status 3 when the rollout has parse errors or an incomplete turn.
    #[arg(long)]
    pub strict: bool,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Print a readable report instead of the history.
    #[arg(long)]
    pub report: bool,

    /// With --report: print the report as one JSON object (implies --report).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RepairViewArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Output format of the view.
    #[arg(long, value_enum, default_value_t = Format::Jsonl)]
    pub format: Format,

    /// Input kinds the target model takes, a comma list from text,image,audio.
    #[arg(long, value_name = "LIST", default_value = "text,image", value_parser = parse_modalities)]
    pub modalities: Modalities,

    /// Show what normalization changed, item by item, instead of the view.
    #[arg(long, conflicts_with = "format")]
    pub diff: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One item per line.
    Jsonl,
    /// One indented JSON array.
    Json,
    /// A transcript for people.
    Text,
}

fn parse_modalities(list: &str) -> Result<Modalities, String> {
    let mut modalities = Modalities {
        image: false,
        audio: false,
    };
    for name in list.split(',').map(str::trim) {
        match name {
            "text" => {}
            "image" => modalities.image = true,
            "audio" => modalities.audio = true,
            other => {
                return Err(format!(
                    "unknown modality `{other}`: expected a comma list from text,image,audio"
                ));
            }
        }
    }
    Ok(modalities)
}

/// Where the rollout comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Stdin,
    Path(PathBuf),
}

impl Input {
    /// How messages name the input.
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".into(),
            Input::Path(path) => path.display().to_string(),
        }
    }
}

/// What to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Job {
    History,
    Report {
        json: bool,
    },
    View {
        format: Format,
        modalities: Modalities,
    },
    Diff {
        modalities: Modalities,
    },
}

impl Job {
    /// Whether the job prints items, so replay must keep their text.
    pub fn needs_text(self) -> bool {
        match self {
            Job::History | Job::View { .. } | Job::Diff { .. } => true,
            Job::Report { .. } => false,
        }
    }
}

/// Every decision the arguments and environment imply, made once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub input: Input,
    pub job: Job,
    pub strict: bool,
    pub color: bool,
    /// Show progress on stderr (only when it is a terminal).
    pub progress: bool,
}

impl Cli {
    pub fn resolve(self) -> Config {
        let stderr_tty = std::io::stderr().is_terminal();
        let color = match self.color {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => {
                std::io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        };
        let (input, job) = match self.command {
            Command::Replay(args) => {
                let job = if args.report || args.json {
                    Job::Report { json: args.json }
                } else {
                    Job::History
                };
                (args.input, job)
            }
            Command::RepairView(args) => {
                let job = if args.diff {
                    Job::Diff {
                        modalities: args.modalities,
                    }
                } else {
                    Job::View {
                        format: args.format,
                        modalities: args.modalities,
                    }
                };
                (args.input, job)
            }
        };
        Config {
            input: if input.file == "-" {
                Input::Stdin
            } else {
                Input::Path(input.file.into())
            },
            job,
            strict: input.strict,
            color,
            progress: stderr_tty,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modality_lists() {
        let m = |image, audio| Modalities { image, audio };
        assert_eq!(parse_modalities("text"), Ok(m(false, false)));
        assert_eq!(parse_modalities("text,image"), Ok(m(true, false)));
        assert_eq!(parse_modalities("audio, text"), Ok(m(false, true)));
        assert_eq!(parse_modalities("text,image,audio"), Ok(m(true, true)));
        assert!(parse_modalities("text,video").is_err());
        assert!(parse_modalities("").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn file_names_need_not_be_utf8() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let name = OsStr::from_bytes(b"rollout-\xff.jsonl");
        let args = [OsStr::new("rollcall"), OsStr::new("replay"), name];
        let config = Cli::try_parse_from(args).expect("parses").resolve();
        assert_eq!(config.input, Input::Path(name.into()));
    }

    #[test]
    fn cli_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
