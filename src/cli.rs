//! The command line: clap types, parsed once, then resolved into a [`Config`] of decisions (input,
//! output format, modalities, colour, where Codex keeps its sessions). Nothing below this module
//! reads flags or the environment.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use clap_complete::Shell;

use crate::codex::models::Modalities;
use crate::codex::truncate::Policy;
use crate::homes::Homes;
use crate::session::{Digest, Load};
use crate::source::Input;

const EXAMPLES: &str = "\
Examples:
  rollcall scan --problems
  rollcall replay --report 019c1f40-2b7e-7a9d-8c31-6d5e4f3a2b10
  rollcall replay --report ~/.codex/sessions/2026/11/30/rollout-….jsonl
  rollcall repair-view --diff session.jsonl
  rollcall repair-view --modalities text session.jsonl > prompt.jsonl

FILE is a path, `-` for standard input, or a session id: a Codex thread id as `codex resume`
shows it (looked up as Codex does, in $CODEX_HOME, default ~/.codex), or a Claude Code session id
(looked up in $CLAUDE_CONFIG_DIR/projects, default ~/.claude/projects). Documentation: docs/ in
the source, and `rollcall man` for the manual page.";

#[derive(Debug, Parser)]
#[command(
    name = "rollcall",
    version,
    about = "Replay AI coding agent sessions and show the repaired history a model would be sent",
    long_about = "Replay AI coding agent session logs (Codex CLI rollouts of every era, Claude \
                  Code sessions, and the mini format) into the state an agent resumes from, \
                  report what is broken, and show the repaired prompt view. The log is never \
                  changed.",
    after_help = EXAMPLES
)]
pub struct Cli {
    /// When to colour human-readable output.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, global = true)]
    pub color: ColorWhen,

    /// The longest line read, in bytes; a longer one is a parse error, skipped without being held.
    #[arg(long, value_name = "BYTES", default_value_t = crate::chunk::MAX_LINE_BYTES, global = true, value_parser = parse_line_cap)]
    pub max_line_bytes: usize,

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

    /// Write a new, repaired copy of a session that the agent resumes as repair-view shows, and
    /// say how to resume it. The original is only read.
    #[command(after_help = "\
Examples:
  rollcall repair ~/.codex/sessions/2026/11/30/rollout-…-019c….jsonl
  rollcall repair --dry-run 5e55a0c2-0001-4000-8000-000000000000
  rollcall repair -o /tmp/copy.jsonl session.jsonl
  rollcall repair --json session.jsonl | jq -r .resume_command")]
    Repair(RepairArgs),

    /// List every Codex and Claude Code session on this machine with what is wrong with it,
    /// newest first.
    #[command(after_help = "\
Examples:
  rollcall scan                      every session of both agents, as a table
  rollcall scan --problems           only the ones with a finding
  rollcall scan --agent claude       only Claude Code's
  rollcall scan --json | jq -r 'select(.incomplete) | .path'
  rollcall scan ~/backup/codex/sessions
  rollcall scan --strict > /dev/null || echo 'some session is broken'

Status, one word per session (the first that applies):
  unusable        cannot be replayed: unreadable, empty, not a session log, not a regular file
  missing-file    Codex's state database names a rollout file that is not there
  broken-lineage  a Codex fork's parent rollout is missing, or the lineage cycles
  broken-chain    a Claude Code entry's parent (or a fork's parent session) is missing, or cycles
  ordinal-fault   a paginated rollout's ordinals repeat, go back, or end missing; or a record
                  is over 16 MiB
  damaged         has parse errors (malformed or torn lines were skipped)
  no-meta         no session_meta record: Codex cannot resume it
  incomplete      a turn was still open at the end of the file (the agent died mid-turn)
  unindexed       Codex's state database has no row for it: `codex resume` may not list it
  repairs         the prompt view inserts outputs for unanswered calls or drops orphan outputs
  ok              none of the above")]
    Scan(ScanArgs),

    /// Print a shell completion script for rollcall.
    #[command(after_help = "\
Examples:
  rollcall completions bash > ~/.local/share/bash-completion/completions/rollcall
  rollcall completions zsh > ~/.zfunc/_rollcall       (with fpath+=~/.zfunc in ~/.zshrc)
  rollcall completions fish > ~/.config/fish/completions/rollcall.fish")]
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: Shell,
    },

    /// Print a manual page (roff), made from these same definitions: rollcall(1), or a
    /// command's own page, rollcall-replay(1) and so on.
    #[command(after_help = "\
Examples:
  rollcall man | man -l -
  rollcall man scan | man -l -
  for c in '' replay repair-view scan completions man; do
    rollcall man $c > ~/.local/share/man/man1/rollcall${c:+-$c}.1
  done")]
    Man {
        /// The command whose page to print; none for rollcall(1).
        #[arg(value_parser = ["replay", "repair-view", "scan", "completions", "man"])]
        command: Option<String>,
    },
}

#[derive(Debug, Args)]
pub struct InputArgs {
    /// The session log to read: a path, `-` for standard input, or a session id (a Codex thread
    /// id, looked up as `codex resume` finds it, or a Claude Code session id; a path that exists
    /// wins).
    #[arg(value_name = "FILE", required_unless_present = "latest")]
    pub file: Option<OsString>,

    /// Read the newest session started in the current folder, of either agent (as `codex
    /// resume --last` and `claude --continue` pick one); which one is said on stderr.
    #[arg(long, conflicts_with = "file")]
    pub latest: bool,

    /// Exit with status 3 when resuming would differ from the log: parse errors, an incomplete
    /// turn, no session_meta, a missing parent rollout, ordinal faults, a broken chain.
    #[arg(long)]
    pub strict: bool,

    /// Read only this file, not the parent rollouts a Codex fork or revert continues.
    #[arg(long)]
    pub no_lineage: bool,

    /// Claude Code: resume from this entry instead of the client's leaf (a branch the report
    /// lists under `other leaves`, or an entry above one: the leaf written last below it).
    #[arg(long, value_name = "UUID")]
    pub leaf: Option<uuid::Uuid>,
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

    /// With --report: also take the SHA-256 of the input as it is read, to tie the report to
    /// those exact bytes (implies --report; costs about 0.5 s a GiB).
    #[arg(long)]
    pub sha256: bool,
}

#[derive(Debug, Args)]
pub struct RepairViewArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Output format of the view.
    #[arg(long, value_enum, default_value_t = Format::Jsonl)]
    pub format: Format,

    /// Input kinds the target model takes, a comma list from text,image,audio [default: what
    /// the resuming model takes; text,image for every model Codex 0.169 knows]
    #[arg(long, value_name = "LIST", value_parser = parse_modalities)]
    pub modalities: Option<Modalities>,

    /// Show what normalization changed, item by item, instead of the view.
    #[arg(long, conflicts_with = "format")]
    pub diff: bool,

    /// How Codex cuts long tool outputs on resume: tokens:N, bytes:N or none [default: the
    /// resuming model's policy; tokens:10000 for every model Codex 0.169 knows]
    #[arg(long, value_name = "POLICY", value_parser = parse_truncation)]
    pub truncation: Option<Truncation>,

    /// Show the history repaired per request only, without what Codex does once on resume
    /// (cutting long tool outputs, preparing images and audio).
    #[arg(long)]
    pub no_resume_prep: bool,

    /// The model the agent resumes with, as the agent names it (Codex: its catalog entry sets the
    /// truncation, the modalities and whether images keep their `detail`; Claude Code: thinking
    /// blocks survive only for the model that wrote them) [default: Codex: `model` in the
    /// home's config.toml, else Codex's default; Claude Code: the last assistant entry's]
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
}

/// A `--truncation` policy; `None` for `none`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Truncation(pub Option<Policy>);

fn parse_truncation(text: &str) -> Result<Truncation, String> {
    if text == "none" {
        return Ok(Truncation(None));
    }
    let bad = || format!("`{text}`: expected tokens:N, bytes:N or none (N a whole number)");
    let (unit, n) = text.split_once(':').ok_or_else(bad)?;
    let n: u64 = n.parse().map_err(|_| bad())?;
    match unit {
        "tokens" => Ok(Truncation(Some(Policy::Tokens(n)))),
        "bytes" => Ok(Truncation(Some(Policy::Bytes(n)))),
        _ => Err(bad()),
    }
}

#[derive(Debug, Args)]
pub struct RepairArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Write the copy here instead of beside the original in the agent's home (never over an
    /// existing file).
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,

    /// Say what would be written, and where, without writing anything.
    #[arg(long)]
    pub dry_run: bool,

    /// Print what was written as one JSON object.
    #[arg(long)]
    pub json: bool,

    /// Repair a session that looks as if it is still being written (it changed while it was
    /// read, or a running Codex holds its writer lock).
    #[arg(long)]
    pub force: bool,

    /// The model the agent will resume with (see repair-view --model).
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
}

#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Folders (or session files) to scan instead of the agents' homes ($CODEX_HOME/sessions,
    /// $CODEX_HOME/archived_sessions, $CLAUDE_CONFIG_DIR/projects). Folders are searched
    /// recursively for rollout-*.jsonl[.zst] and Claude Code's `<session id>.jsonl` and agent-*.jsonl.
    #[arg(value_name = "DIR")]
    pub dirs: Vec<PathBuf>,

    /// Print one JSON object per rollout (JSONL) instead of the table.
    #[arg(long)]
    pub json: bool,

    /// Show only sessions with a finding: every status but `ok`.
    #[arg(long)]
    pub problems: bool,

    /// Exit with status 3 when a session cannot be resumed as logged: unusable, a missing file
    /// or parent, an ordinal fault, parse errors, no session_meta, or an incomplete turn.
    #[arg(long)]
    pub strict: bool,

    /// Only this agent's sessions.
    #[arg(long, value_enum)]
    pub agent: Option<Agent>,
}

/// A line cap: a whole number of bytes from 1 to 4 GiB - 1 (a line's length is kept in 32 bits).
fn parse_line_cap(text: &str) -> Result<usize, String> {
    match text.parse::<u64>() {
        Ok(n) if (1..u64::from(u32::MAX)).contains(&n) => Ok(n as usize),
        _ => Err(format!(
            "`{text}`: expected a number of bytes from 1 to 4294967294"
        )),
    }
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

pub use crate::render::{Format, Job};
pub use crate::scan::Options as Scan;
pub use crate::session::Agent;
pub use crate::session::ViewSettings;

/// Every decision the arguments and environment imply, made once.
#[derive(Debug, Clone)]
pub struct Config {
    pub task: Task,
    pub color: bool,
    /// Show progress on stderr (only when it is a terminal, and not in CI).
    pub progress: bool,
    /// Where the agents keep their sessions.
    pub homes: Homes,
    pub load: Load,
}

/// The command to carry out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Task {
    /// Read one rollout and print what `job` asks for.
    Rollout {
        input: Input,
        job: Job,
        strict: bool,
    },
    Scan(Scan),
    Repair(crate::repair::Options),
    Completions(Shell),
    /// A manual page: rollcall's, or one command's.
    Man(Option<String>),
}

impl Cli {
    pub fn resolve(self) -> Config {
        let stderr_tty = std::io::stderr().is_terminal();
        // A CI log or a dumb terminal would only collect the bar's redraws.
        let progress = stderr_tty
            && std::env::var_os("CI").is_none_or(|v| v.is_empty())
            && std::env::var_os("TERM").is_none_or(|v| v != "dumb");
        let color = match self.color {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => {
                std::io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        };
        let rollout = |input: InputArgs, job: Job| Task::Rollout {
            input: input_of(&input),
            job,
            strict: input.strict,
        };
        let leaf = match &self.command {
            Command::Replay(args) => args.input.leaf,
            Command::RepairView(args) => args.input.leaf,
            Command::Repair(args) => args.input.leaf,
            Command::Scan(_) | Command::Completions { .. } | Command::Man { .. } => None,
        };
        let lineage = match &self.command {
            Command::Replay(args) => !args.input.no_lineage,
            Command::RepairView(args) => !args.input.no_lineage,
            Command::Repair(args) => !args.input.no_lineage,
            Command::Scan(_) | Command::Completions { .. } | Command::Man { .. } => true,
        };
        let digest = match &self.command {
            Command::Replay(args) if args.sha256 => Digest::Sha256,
            Command::Replay(args) if args.report || args.json => Digest::Size,
            _ => Digest::Nothing,
        };
        let task = match self.command {
            Command::Replay(args) => {
                let job = if args.report || args.json || args.sha256 {
                    Job::Report { json: args.json }
                } else {
                    Job::History
                };
                rollout(args.input, job)
            }
            Command::RepairView(args) => {
                let settings = ViewSettings {
                    modalities: args.modalities,
                    truncation: args.truncation.map(|t| t.0),
                    no_resume_prep: args.no_resume_prep,
                    model: args.model,
                };
                let job = if args.diff {
                    Job::Diff { settings }
                } else {
                    Job::View {
                        format: args.format,
                        settings,
                    }
                };
                rollout(args.input, job)
            }
            Command::Repair(args) => Task::Repair(crate::repair::Options {
                input: input_of(&args.input),
                output: args.output,
                dry_run: args.dry_run,
                json: args.json,
                force: args.force,
                settings: ViewSettings {
                    model: args.model,
                    ..ViewSettings::default()
                },
            }),
            Command::Scan(args) => Task::Scan(Scan {
                dirs: args.dirs,
                json: args.json,
                problems: args.problems,
                strict: args.strict,
                agent: args.agent,
            }),
            Command::Completions { shell } => Task::Completions(shell),
            Command::Man { command } => Task::Man(command),
        };
        let snapshot = !matches!(task, Task::Scan(_));
        let views = !matches!(
            task,
            Task::Rollout {
                job: Job::History,
                strict: false,
                ..
            }
        );
        Config {
            task,
            color,
            progress,
            homes: Homes::from_env(),
            load: Load {
                threads: crate::pipeline::threads_available(),
                max_line: self.max_line_bytes,
                lineage,
                snapshot,
                digest,
                leaf,
                views,
            },
        }
    }
}

/// The input the arguments name: `-` is standard input; `--latest`, the current folder's newest
/// session.
fn input_of(args: &InputArgs) -> Input {
    match &args.file {
        Some(file) if file == "-" => Input::Stdin,
        Some(file) => Input::Path(file.into()),
        None => Input::Latest(std::env::current_dir().unwrap_or_default()),
    }
}

/// `text` with control characters escaped, for the one line an error prints.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    crate::escape::escape(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_policies() {
        let t = |s| parse_truncation(s).map(|t| t.0);
        assert_eq!(t("tokens:10000"), Ok(Some(Policy::Tokens(10_000))));
        assert_eq!(t("bytes:0"), Ok(Some(Policy::Bytes(0))));
        assert_eq!(t("none"), Ok(None));
        for bad in [
            "tokens",
            "tokens:",
            "tokens:-1",
            "chars:5",
            "Tokens:5",
            "tokens:1.5",
            "",
        ] {
            assert!(t(bad).is_err(), "{bad}");
        }
    }

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
        let Task::Rollout { input, .. } = config.task else {
            panic!("{:?}", config.task)
        };
        assert_eq!(input, Input::Path(name.into()));
    }

    #[test]
    fn cli_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
