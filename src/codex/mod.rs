//! The Codex CLI's rules, in one place: what a rollout record is (`record`, `item`, `parts`), how
//! replay folds records into the history Codex resumes from (`fold`, `turns`), and the prompt view
//! the Responses API is sent (`view`), with Codex's words for people (`words`). The mini teaching
//! dialect is a second spelling of the same records and lives here too.

pub(crate) mod calls;
pub(crate) mod compaction;
pub(crate) mod events;
pub(crate) mod fold;
pub(crate) mod forms;
pub(crate) mod home;
pub(crate) mod item;
pub(crate) mod lineage;
pub(crate) mod media;
pub(crate) mod models;
pub(crate) mod parts;
pub(crate) mod plan;
pub(crate) mod prep;
pub(crate) mod record;
pub(crate) mod reencode;
pub(crate) mod resample;
pub(crate) mod truncate;
pub(crate) mod turns;
pub(crate) mod typed;
pub(crate) mod view;
pub(crate) mod words;
pub(crate) mod write;

pub(crate) use fold::State;
