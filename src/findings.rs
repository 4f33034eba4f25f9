//! What loading found in one file, whatever its dialect (SPEC §1): lines, blank lines, parse
//! errors with their reasons, a torn tail, records of unknown kinds. Memory stays bounded for any
//! number of bad lines: reasons for the first [`MAX_REASONS`], line numbers as runs.

use std::collections::BTreeMap;
use std::fmt;

/// Parse errors kept with their reasons; beyond this only line numbers are kept.
pub(crate) const MAX_REASONS: usize = 1000;
/// Runs of consecutive error lines kept; beyond this, errors are only counted.
pub(crate) const MAX_ERROR_RUNS: usize = 1 << 16;
/// Distinct unknown kinds named in the report; the rest are only counted.
const MAX_KIND_NAMES: usize = 64;

/// Why a line is not a record. `Copy`, so that a million bad lines allocate nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParseError {
    /// Not UTF-8; `at` is the 0-based offset of the first bad byte.
    InvalidUtf8 {
        at: usize,
    },
    /// Not JSON; `at` is the 0-based offset of the problem.
    InvalidJson {
        at: usize,
        what: &'static str,
    },
    NotObject,
    NoType,
    /// A known record kind with the wrong shape: `kind: problem`.
    Shape {
        kind: &'static str,
        problem: &'static str,
    },
    /// Longer than the line cap; not held, not parsed.
    TooLong {
        cap: usize,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::InvalidUtf8 { at } => write!(f, "invalid UTF-8 at byte {}", at + 1),
            ParseError::InvalidJson { at, what } => {
                write!(f, "invalid JSON at column {}: {what}", at + 1)
            }
            ParseError::NotObject => f.write_str("not a JSON object"),
            ParseError::NoType => f.write_str(r#"no string "type""#),
            ParseError::Shape { kind, problem } => write!(f, "{kind}: {problem}"),
            ParseError::TooLong { cap } => {
                write!(
                    f,
                    "line longer than {cap} bytes (--max-line-bytes): not read"
                )
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineError {
    pub line: u64,
    pub reason: ParseError,
}

/// Kind names with how often each was seen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub total: u64,
    pub by_name: BTreeMap<Box<str>, u64>,
}

impl Tally {
    pub fn add(&mut self, name: &str) {
        self.total += 1;
        if let Some(n) = self.by_name.get_mut(name) {
            *n += 1;
        } else if self.by_name.len() < MAX_KIND_NAMES {
            self.by_name.insert(name.into(), 1);
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Findings {
    /// Lines in the file, blank ones included.
    pub lines: u64,
    pub blank_lines: u64,
    /// Lines that are records (of known or unknown kinds).
    pub records: u64,
    pub parse_errors: u64,
    /// Line numbers of parse errors as inclusive runs, ascending.
    pub error_runs: Vec<(u64, u64)>,
    /// Every error line is in `error_runs` (false past [`MAX_ERROR_RUNS`]).
    pub error_lines_complete: bool,
    /// The first [`MAX_REASONS`] parse errors with their reasons.
    pub errors: Vec<LineError>,
    /// The last line had no `\n` and did not parse: a writer died mid-line.
    pub torn_tail: bool,
    pub unknown_records: Tally,
    /// Reading stopped inside this line, too long to hold, of an input that may never end.
    pub stopped_at: Option<u64>,
    /// A UTF-8 byte order mark came before the first line.
    pub bom: bool,
    /// Lines that are not valid UTF-8 (parse errors too).
    pub invalid_utf8_lines: u64,
    /// The input's size, and its SHA-256, when they were asked for.
    pub digest: Option<(u64, Option<[u8; 32]>)>,
}

impl Findings {
    pub fn new() -> Findings {
        Findings {
            error_lines_complete: true,
            ..Findings::default()
        }
    }

    pub fn error(&mut self, line: u64, reason: ParseError, last: bool) {
        self.parse_errors += 1;
        self.invalid_utf8_lines += u64::from(matches!(reason, ParseError::InvalidUtf8 { .. }));
        if self.errors.len() < MAX_REASONS {
            self.errors.push(LineError { line, reason });
        }
        let runs = self.error_runs.len();
        match self.error_runs.last_mut() {
            Some((_, end)) if *end + 1 == line => *end = line,
            _ if runs < MAX_ERROR_RUNS => self.error_runs.push((line, line)),
            _ => self.error_lines_complete = false,
        }
        self.torn_tail = last;
    }

    /// The error line numbers kept, ascending.
    pub fn error_lines(&self) -> impl Iterator<Item = u64> + '_ {
        self.error_runs.iter().flat_map(|&(start, end)| start..=end)
    }

    /// A record of a kind the dialect does not know (a newer agent): counted, not an error.
    pub fn unknown(&mut self, kind: &str) {
        self.unknown_records.add(kind);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_lines_are_kept_as_runs() {
        let mut f = Findings::new();
        for line in [2, 3, 4, 9, 11, 12] {
            f.error(line, ParseError::NoType, false);
        }
        assert_eq!(f.error_runs, vec![(2, 4), (9, 9), (11, 12)]);
        assert_eq!(f.error_lines().collect::<Vec<_>>(), [2, 3, 4, 9, 11, 12]);
        assert_eq!(f.parse_errors, 6);
        assert!(f.error_lines_complete);
    }

    #[test]
    fn reasons_read_as_before() {
        let shape = ParseError::Shape {
            kind: "event_msg",
            problem: "no payload",
        };
        assert_eq!(shape.to_string(), "event_msg: no payload");
        assert_eq!(
            ParseError::InvalidJson {
                at: 8,
                what: "EOF while expecting a value"
            }
            .to_string(),
            "invalid JSON at column 9: EOF while expecting a value"
        );
        assert_eq!(
            ParseError::InvalidUtf8 { at: 0 }.to_string(),
            "invalid UTF-8 at byte 1"
        );
    }
}
