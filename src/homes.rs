//! Both agents' homes, and finding a session by its id in them: the one place below the command
//! line that knows both dialects' folders.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use uuid::Uuid;

use crate::claude::home::ClaudeHome;
use crate::codex::home::CodexHome;
use crate::exit::Failure;
use crate::home::not_regular;
use crate::source::Input;

/// Both agents' homes, as the environment names them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Homes {
    pub codex: Option<CodexHome>,
    pub claude: Option<ClaudeHome>,
}

impl Homes {
    pub(crate) fn from_env() -> Homes {
        Homes {
            codex: CodexHome::from_env(std::env::var_os("CODEX_HOME"), std::env::var_os("HOME")),
            claude: ClaudeHome::from_env(
                std::env::var_os("CLAUDE_CONFIG_DIR"),
                std::env::var_os("HOME"),
            ),
        }
    }
}

/// An input as found: the file to read, and the other files of the same Codex thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resolved {
    pub input: Input,
    /// Other files of the thread, which `codex resume` does not take.
    pub superseded: Vec<PathBuf>,
}

/// The input to read: `input` itself, unless it names nothing that exists and reads as a session
/// id, which is then looked up as the agents look it up (a path that exists always wins): a Codex
/// thread under the Codex home, a Claude Code session under `projects/`.
pub(crate) fn resolve(input: &Input, homes: &Homes) -> Result<Resolved, Failure> {
    let as_is = || Resolved {
        input: input.clone(),
        superseded: Vec::new(),
    };
    if let Input::Latest(cwd) = input {
        let path = latest(homes, cwd)?;
        // Said on stderr, as `codex resume --last` shows what it picked.
        let _ = writeln!(
            std::io::stderr(),
            "rollcall: the newest session of {}: {}",
            crate::escape::escape(&cwd.display().to_string()),
            crate::escape::escape(&path.display().to_string())
        );
        return Ok(Resolved {
            input: Input::Path(path),
            superseded: Vec::new(),
        });
    }
    let Input::Path(path) = input else {
        return Ok(as_is());
    };
    if fs::symlink_metadata(path).is_ok() {
        return Ok(as_is());
    }
    let Some(id) = path.to_str().and_then(|s| Uuid::try_parse(s.trim()).ok()) else {
        return Ok(as_is());
    };
    let name = path.display().to_string();
    let fail = |message: String| Failure::unusable(&name, message);
    if homes.codex.is_none() && homes.claude.is_none() {
        return Err(fail(
            "no such file, and no home folder to look the session id up in (set CODEX_HOME, \
             CLAUDE_CONFIG_DIR or HOME)"
                .into(),
        ));
    }
    let codex = homes
        .codex
        .as_ref()
        .and_then(|home| crate::codex::home::lookup(home, id));
    let claude = homes
        .claude
        .as_ref()
        .map(|home| home.lookup(id))
        .unwrap_or_default();
    let mut found: Vec<PathBuf> = codex.iter().map(|l| l.path.clone()).collect();
    found.extend(claude);
    match found.len() {
        0 => {
            let mut looked = Vec::new();
            if let Some(home) = &homes.codex {
                looked.push(format!(
                    "rollout-*-{}[_*].jsonl[.zst] under {} and {} ({})",
                    id.hyphenated(),
                    home.sessions().display(),
                    home.archived().display(),
                    home.origin()
                ));
            }
            if let Some(home) = &homes.claude {
                looked.push(format!(
                    "{}.jsonl under {}/* ({})",
                    id.hyphenated(),
                    home.projects().display(),
                    home.origin()
                ));
            }
            Err(fail(format!(
                "no such file, and no session with this id: looked for {}",
                looked.join(", and for ")
            )))
        }
        1 => {
            let path = found.remove(0);
            match fs::metadata(&path) {
                Err(e) => Err(fail(format!(
                    "found {}, which cannot be opened: {}",
                    path.display(),
                    crate::source::io_reason(&e)
                ))),
                Ok(meta) => match not_regular(&meta) {
                    Some(kind) => Err(fail(format!(
                        "found {}, which is {kind}, not a regular file: not read",
                        path.display()
                    ))),
                    None => Ok(Resolved {
                        input: Input::Path(path),
                        superseded: codex.map(|l| l.superseded).unwrap_or_default(),
                    }),
                },
            }
        }
        n => {
            let list: Vec<String> = found.iter().map(|p| p.display().to_string()).collect();
            Err(fail(format!(
                "{n} sessions have this id ({}): name one by its path",
                list.join(", ")
            )))
        }
    }
}

/// The newest session whose working directory is `cwd`: of Codex's live rollouts whose
/// `session_meta` names `cwd` (newest by the time in its name, as `codex resume --last` picks),
/// and of the Claude Code sessions in `cwd`'s project folder (newest by modification time, as
/// `claude --continue` picks), the one changed last.
fn latest(homes: &Homes, cwd: &Path) -> Result<PathBuf, Failure> {
    let name = format!("the newest session of {}", cwd.display());
    let cwd_text = cwd.to_string_lossy();
    let mut found: Vec<(SystemTime, PathBuf)> = Vec::new();
    if let Some(home) = &homes.codex {
        let mut rollouts = crate::codex::home::rollouts(home);
        rollouts.retain(|(_, _, archived)| !archived);
        rollouts.sort_by_key(|r| std::cmp::Reverse(r.1.stamp));
        if let Some((path, _, _)) = rollouts
            .into_iter()
            .find(|(path, _, _)| crate::codex::home::meta_cwd(path).as_deref() == Some(&*cwd_text))
        {
            found.extend(modified(&path).map(|t| (t, path)));
        }
    }
    if let Some(home) = &homes.claude {
        let project = home
            .projects()
            .join(crate::claude::home::folder_of(&cwd_text));
        let sessions = fs::read_dir(project).into_iter().flatten().flatten();
        let newest = sessions
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl") && p.is_file())
            .filter_map(|p| modified(&p).map(|t| (t, p)))
            .max();
        found.extend(newest);
    }
    found
        .into_iter()
        .max()
        .map(|(_, path)| path)
        .ok_or_else(|| {
            Failure::unusable(
                &name,
                "no Codex or Claude Code session was started in this folder",
            )
        })
}

fn modified(path: &Path) -> Option<SystemTime> {
    fs::metadata(path).ok()?.modified().ok()
}
