//! Claude Code's home folder (SPEC §10): `$CLAUDE_CONFIG_DIR` (default `~/.claude`) holds
//! `projects/<project>/<session id>.jsonl`, and the transcripts of a session's subagents in
//! `projects/<project>/<session id>/subagents/agent-*.jsonl` (older versions wrote `agent-*.jsonl`
//! beside the sessions).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use uuid::Uuid;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudeHome {
    pub dir: PathBuf,
    /// Whether it came from CLAUDE_CONFIG_DIR (else from HOME), for messages.
    pub from_env: bool,
}

impl ClaudeHome {
    pub(crate) fn from_env(
        config_dir: Option<OsString>,
        home: Option<OsString>,
    ) -> Option<ClaudeHome> {
        let (dir, from_env) = crate::home::agent_home(config_dir, home, ".claude")?;
        Some(ClaudeHome { dir, from_env })
    }

    pub fn projects(&self) -> PathBuf {
        self.dir.join("projects")
    }

    /// Where the folder came from, for messages.
    pub fn origin(&self) -> String {
        crate::home::origin("CLAUDE_CONFIG_DIR", ".claude", &self.dir, self.from_env)
    }

    /// The session files named by `id`: `projects/*/<id>.jsonl`.
    pub(crate) fn lookup(&self, id: Uuid) -> Vec<PathBuf> {
        let Ok(projects) = std::fs::read_dir(self.projects()) else {
            return Vec::new();
        };
        let name = format!("{}.jsonl", id.hyphenated());
        let mut found: Vec<PathBuf> = projects
            .flatten()
            .map(|project| project.path().join(&name))
            .filter(|path| !path.is_dir() && path.symlink_metadata().is_ok())
            .collect();
        found.sort();
        found
    }
}

/// The file of session `id`, the parent a forked subagent's transcript at `agent` inherits
/// from: `<project>/<id>.jsonl` of the subagent's own project folder (`<project>/<session>/
/// subagents/agent-*.jsonl`), where Claude Code 2.1.328 looks, else `projects/*/<id>.jsonl` of
/// `home`. `None` when `id` is no session id or no such file is there.
pub(crate) fn fork_parent(agent: &Path, id: &str, home: Option<&ClaudeHome>) -> Option<PathBuf> {
    let id = Uuid::try_parse(id).ok()?;
    let name = format!("{}.jsonl", id.hyphenated());
    let project = agent
        .parent()
        .filter(|d| d.file_name().is_some_and(|n| n == "subagents"))
        .and_then(Path::parent)
        .and_then(Path::parent);
    project
        .map(|p| p.join(&name))
        .filter(|p| p.is_file())
        .or_else(|| home?.lookup(id).into_iter().find(|p| p.is_file()))
}

/// For a subagent's transcript (`agent-*.jsonl`), the session it belongs to when its place
/// tells: `<session id>/subagents/agent-*.jsonl`, perhaps a folder deeper for workflows.
pub(crate) fn subagent_of(path: &Path) -> Option<Option<String>> {
    let name = path.file_name()?.to_string_lossy();
    if !name.starts_with("agent-") {
        return None;
    }
    Some(
        path.ancestors()
            .skip(1)
            .take(4)
            .find(|dir| dir.file_name().is_some_and(|n| n == "subagents"))
            .and_then(|subagents| subagents.parent())
            .and_then(|session| session.file_name())
            .map(|id| id.to_string_lossy().into_owned()),
    )
}

/// The folder under `projects/` that Claude Code keeps the sessions of working directory `cwd`
/// in: every character but an ASCII letter or digit becomes `-`.
pub(crate) fn folder_of(cwd: &str) -> String {
    cwd.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}
