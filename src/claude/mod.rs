//! Claude Code's rules, in one place: what a transcript entry is (`entry`), how resume picks the
//! chain of entries it continues from (`chain`), and the Messages API view the chain becomes,
//! repaired (`view`), with Claude Code's words for people (`words`).

pub(crate) mod attach;
pub(crate) mod chain;
pub(crate) mod entry;
pub(crate) mod home;
pub(crate) mod view;
pub(crate) mod wire;
pub(crate) mod words;

pub(crate) use chain::State;
