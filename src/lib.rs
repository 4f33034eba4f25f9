//! rollcall reads AI coding agent session logs, replays them into the state an agent would resume
//! from, and renders the history, a report, or the repaired prompt view. The pipeline:
//!
//! ```text
//! bytes ─source/chunk─▶ lines ─classify─▶ records ─fold─▶ Session ─view─▶ PromptView ─render─▶ stdout
//! ```
//!
//! The stages are shared; each agent's rules live in one folder (`codex/`), behind the
//! pipeline's `Classify` and `Fold` traits and the view's `PromptView`. `scan` runs the first half
//! over every session file `home` turns up, in parallel.
//!
//! As a library, [`Loaded`] is the whole surface: replay bytes, then render what a command
//! would print.
//!
//! ```
//! let log = br#"{"type":"session_meta","payload":{"id":"t1"}}
//! {"type":"response_item","payload":{"type":"function_call","call_id":"c1","name":"ls","arguments":"{}"}}
//! "#;
//! let session = rollcall::Loaded::from_bytes(log).expect("a rollout");
//! let mut view = Vec::new();
//! let job = rollcall::Job::View { format: rollcall::Format::Jsonl, settings: Default::default() };
//! session.render(job, &mut view).expect("rendered");
//! // The unanswered call gets an "aborted" output right after it.
//! assert!(String::from_utf8(view).unwrap().ends_with(r#""output":"aborted"}
//! "#));
//! ```
#![deny(clippy::print_stdout)]

pub mod alloc;
mod app;
pub mod cli;
pub mod exit;
#[doc(hidden)]
pub mod testing;

pub(crate) mod chunk;
pub(crate) mod claude;
pub(crate) mod codex;
pub(crate) mod escape;
pub(crate) mod findings;
pub(crate) mod home;
pub(crate) mod homes;
pub(crate) mod intern;
pub(crate) mod json;
pub(crate) mod pipeline;
pub(crate) mod render;
pub(crate) mod repair;
pub(crate) mod report;
pub(crate) mod scan;
pub(crate) mod session;
pub(crate) mod source;
pub(crate) mod text;
pub(crate) mod toolcall;
pub(crate) mod view;

pub use app::{Loaded, answer, run};
pub use codex::models::Modalities;
pub use codex::truncate::Policy;
pub use render::{Format, Job};
pub use session::ViewSettings;
