//! What a command asks to be printed about one session, and in which format.

use clap::ValueEnum;

use crate::session::ViewSettings;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One item per line.
    Jsonl,
    /// One indented JSON array.
    Json,
    /// A transcript for people.
    Text,
}

/// What to print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Job {
    History,
    Report {
        json: bool,
    },
    View {
        format: Format,
        settings: ViewSettings,
    },
    Diff {
        settings: ViewSettings,
    },
}
