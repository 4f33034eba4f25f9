//! The integration tests, one binary grouped by subject (codex-rs's `tests/all.rs`): a change
//! links one test binary, not one per subject. `tests/memory.rs` stays a binary of its own, since
//! it measures its children's peak memory, which counts this process's at the moment it starts
//! them.

mod common;
mod suite;
