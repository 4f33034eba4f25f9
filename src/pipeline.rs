//! The loading pipeline, the same for every dialect: a thread reads chunks of whole lines, the
//! thread pool classifies their lines (a dialect's pure `classify`), and this thread folds the
//! records in file order (the dialect's `fold`). The three stages run at once; buffers go back to
//! the reader once folded, so steady state allocates nothing for input. Where no thread can be
//! started, or when already on a pool thread (scan), the stages take turns on one thread.

use std::io::{self, Read};
use std::sync::mpsc;

use rayon::prelude::*;

use crate::chunk::{self, Chunk, Chunker, LineEnd, Piece};
use crate::findings::{Findings, ParseError};
use crate::source::Span;

/// A dialect's rule for one line: what record it is, or why it is none. Runs on the pool.
pub(crate) trait Classify: Sync {
    type Record: Send;
    /// What the records of a run of lines keep together, in a few vectors a record indexes,
    /// instead of each record owning vectors of its own (an allocation on a classifier's thread,
    /// freed on the fold's); `()` for a dialect whose records own all they have.
    type Side: Default + Send;
    /// `line` is one non-blank line without its ending; `at` is its offset in the input; `side`
    /// is what the records of its run keep together.
    fn classify(
        &self,
        line: &[u8],
        at: u64,
        side: &mut Self::Side,
    ) -> Result<Self::Record, ParseError>;
}

/// A dialect's fold: records, in file order, into its resume state.
pub(crate) trait Fold {
    type Record;
    type Side;
    /// Told of each record of a run, in order, [`AHEAD`] lines before it is folded (a line that
    /// is no record counts as one): a fold can start fetching what it will look up for it while
    /// it folds the ones before.
    fn ahead(&mut self, _record: &Self::Record, _side: &Self::Side) {}
    fn fold(
        &mut self,
        line: LineAt,
        record: Self::Record,
        side: &Self::Side,
        chunk: &Bytes<'_>,
        f: &mut Findings,
    );
}

/// Where a record's line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineAt {
    /// 1-based, blank lines counted.
    pub number: u64,
    pub at: u64,
    pub len: u64,
}

/// The bytes of the chunk being folded, addressed by absolute offset.
pub(crate) struct Bytes<'a> {
    pub at: u64,
    pub bytes: &'a [u8],
}

impl Bytes<'_> {
    /// The bytes of `span`, which must lie in this chunk (records only point into their line).
    pub fn get(&self, span: Span) -> &[u8] {
        let start = span.at.saturating_sub(self.at) as usize;
        let end = (start + span.len as usize).min(self.bytes.len());
        self.bytes.get(start..end).unwrap_or_default()
    }
}

/// How a pass runs.
pub(crate) struct Options<'p> {
    /// Threads may be started (the thread pool could be built).
    pub threads: bool,
    pub max_line: usize,
    /// Hears the size of each piece read.
    pub progress: &'p mut dyn FnMut(u64),
}

/// The records of one run of lines.
struct Run<R, S> {
    lines: u32,
    parsed: Vec<Parsed<R>>,
    /// What the records keep together (see [`Classify::Side`]).
    side: S,
}

/// A non-blank line of a run: its index in the run, offset in the chunk, length, and what it is.
type Parsed<R> = (u32, u32, u32, Result<R, ParseError>);

enum Classified<R, S> {
    Lines(Chunk, Vec<Run<R, S>>),
    Long(chunk::LongLine),
}

/// Lines per parallel task: enough to amortise the hand-off.
const RUN_BYTES: usize = 64 << 10;

/// Reads `reader` to its end through `classify` into `fold`, counting lines into `findings`.
pub(crate) fn run<C, F>(
    reader: impl Read + Send,
    bounded: bool,
    classify: &C,
    fold: &mut F,
    findings: &mut Findings,
    options: &mut Options<'_>,
) -> io::Result<()>
where
    C: Classify,
    F: Fold<Record = C::Record, Side = C::Side>,
{
    let mut chunker = Chunker::new(reader, options.max_line, bounded);
    let parallel = options.threads;
    // Already on a pool thread (scan replays many files at once), the stages would block this
    // thread on a channel while their parse waits for a pool thread: there they take turns.
    if parallel && rayon::current_thread_index().is_none() {
        match staged(chunker, classify, fold, findings, options) {
            Ok(done) => return done,
            Err(unstarted) => chunker = unstarted,
        }
    }
    // Scan reads thousands of files here, one after another on each pool thread: each thread
    // keeps its chunk buffer from one file to the next, instead of having the allocator map and
    // fault in fresh pages for every file (that was half of a scan's time).
    let mut buf = SPARE.with(|spare| spare.take());
    let read = loop {
        match chunker.next_piece(buf) {
            Ok(Some(piece)) => {
                let classified = classify_piece(piece, classify, options.max_line, parallel);
                buf = fold_piece(classified, fold, findings, options);
            }
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    SPARE.with(|spare| spare.set(chunker.take_spare()));
    read
}

thread_local! {
    /// A chunk buffer kept for the next file read on this thread (see [`run`]).
    static SPARE: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The stages on their own threads: a reader, one classifier per core, each taking whole
/// pieces (no barrier between pieces), and this thread folding them back in input order. Gives
/// the chunker back, untouched, when no thread can be started (a container's process limit).
fn staged<R, C, F>(
    chunker: Chunker<R>,
    classify: &C,
    fold: &mut F,
    findings: &mut Findings,
    options: &mut Options<'_>,
) -> Result<io::Result<()>, Chunker<R>>
where
    R: Read + Send,
    C: Classify,
    F: Fold<Record = C::Record, Side = C::Side>,
{
    let max_line = options.max_line;
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    // At most this many pieces exist at once (read, being classified, or waiting to be folded):
    // the reader reads into a buffer only once the fold has given one back. Memory stays
    // bounded whatever the order pieces finish in, and the reader never waits on a full queue.
    let buffers = 2 * workers + 1;
    let (piece_tx, piece_rx) = mpsc::sync_channel::<(u64, io::Result<Option<Piece>>)>(buffers);
    let piece_rx = std::sync::Mutex::new(piece_rx);
    std::thread::scope(|scope| {
        let (chunker_tx, chunker_rx) = mpsc::channel::<Chunker<R>>();
        let (empty_tx, empty_rx) = mpsc::channel::<Vec<u8>>();
        for _ in 0..buffers {
            let _ = empty_tx.send(Vec::new());
        }
        // Unbounded, but never longer than the pieces in flight: a full queue here would stall
        // the classifier of the piece this thread waits for.
        let (parsed_tx, parsed_rx) = mpsc::channel();
        let mut started = 0;
        for _ in 0..workers {
            let (piece_rx, parsed_tx) = (&piece_rx, parsed_tx.clone());
            let worker = std::thread::Builder::new().spawn_scoped(scope, move || {
                loop {
                    let next = match piece_rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok((seq, next)) = next else {
                        return;
                    };
                    let classified = next
                        .map(|piece| piece.map(|p| classify_piece(p, classify, max_line, false)));
                    if parsed_tx.send((seq, classified)).is_err() {
                        return;
                    }
                }
            });
            if worker.is_ok() {
                started += 1;
            }
        }
        drop(parsed_tx);
        if started == 0 {
            return Err(chunker);
        }
        // The reader is handed its chunker only once it runs, so a failed start loses nothing;
        // the classifiers then end with the reader's channel.
        let reader = std::thread::Builder::new().spawn_scoped(scope, move || {
            let Ok(mut chunker) = chunker_rx.recv() else {
                return;
            };
            for seq in 0.. {
                // No buffer back means the fold has stopped.
                let Ok(buf) = empty_rx.recv() else {
                    return;
                };
                let next = chunker.next_piece(buf);
                let stop = !matches!(next, Ok(Some(_)));
                if piece_tx.send((seq, next)).is_err() || stop {
                    return;
                }
            }
        });
        if reader.is_err() {
            return Err(chunker);
        }
        if let Err(mpsc::SendError(chunker)) = chunker_tx.send(chunker) {
            return Err(chunker);
        }
        // Pieces come back in any order; they are folded in the order they were read.
        let mut waiting = std::collections::BTreeMap::new();
        let mut next_seq = 0;
        loop {
            let next = match waiting.remove(&next_seq) {
                Some(next) => next,
                None => match parsed_rx.recv() {
                    Ok((seq, next)) if seq != next_seq => {
                        waiting.insert(seq, next);
                        continue;
                    }
                    Ok((_, next)) => next,
                    Err(_) => return Ok(Ok(())),
                },
            };
            next_seq += 1;
            let classified = match next {
                Ok(Some(classified)) => classified,
                Ok(None) => return Ok(Ok(())),
                Err(e) => return Ok(Err(e)),
            };
            let buf = fold_piece(classified, fold, findings, options);
            let _ = empty_tx.send(buf);
        }
    })
}

/// Classifies the lines of a piece, on the pool when `parallel`.
fn classify_piece<C: Classify>(
    piece: Piece,
    classify: &C,
    max_line: usize,
    parallel: bool,
) -> Classified<C::Record, C::Side> {
    let chunk = match piece {
        Piece::Lines(chunk) => chunk,
        Piece::Long(long) => return Classified::Long(long),
    };
    let runs = chunk.runs(RUN_BYTES);
    let one =
        |lines: &std::ops::Range<usize>| classify_run(&chunk, lines.clone(), classify, max_line);
    let runs = if parallel && runs.len() > 1 {
        runs.par_iter().map(one).collect()
    } else {
        runs.iter().map(one).collect()
    };
    Classified::Lines(chunk, runs)
}

/// Classifies the lines `lines` of `chunk` (indices).
fn classify_run<C: Classify>(
    chunk: &Chunk,
    lines: std::ops::Range<usize>,
    classify: &C,
    max_line: usize,
) -> Run<C::Record, C::Side> {
    let first = lines.start;
    let mut parsed = Vec::with_capacity(lines.len());
    let mut side = C::Side::default();
    for i in lines.clone() {
        let (in_chunk, line) = chunk.line(i);
        if chunk::is_blank(line) {
            continue;
        }
        let outcome = if line.len() > max_line {
            Err(ParseError::TooLong { cap: max_line })
        } else {
            classify.classify(line, chunk.at + in_chunk as u64, &mut side)
        };
        parsed.push((
            (i - first) as u32,
            in_chunk as u32,
            line.len() as u32,
            outcome,
        ));
    }
    Run {
        lines: lines.len() as u32,
        parsed,
        side,
    }
}

/// Folds a classified piece; returns its buffer for reuse.
fn fold_piece<F: Fold>(
    classified: Classified<F::Record, F::Side>,
    fold: &mut F,
    findings: &mut Findings,
    options: &mut Options<'_>,
) -> Vec<u8> {
    let (chunk, runs) = match classified {
        Classified::Lines(chunk, runs) => (chunk, runs),
        Classified::Long(long) => {
            (options.progress)(long.len);
            findings.lines += 1;
            let torn = long.end == LineEnd::Eof;
            let reason = long.reason.unwrap_or(ParseError::TooLong {
                cap: options.max_line,
            });
            findings.error(findings.lines, reason, torn);
            if long.end == LineEnd::NotRead {
                findings.stopped_at = Some(findings.lines);
            }
            return Vec::new();
        }
    };
    (options.progress)(chunk.bytes().len() as u64);
    // Only a byte order mark makes the first chunk start past the input's first byte.
    if findings.lines == 0 && chunk.at == 3 {
        findings.bom = true;
    }
    let bytes = Bytes {
        at: chunk.at,
        bytes: chunk.bytes(),
    };
    let last_run = runs.len();
    for (r, run) in runs.into_iter().enumerate() {
        let first = findings.lines + 1;
        let last_line = first + u64::from(run.lines) - 1;
        let mut blank_until = first;
        let side = &run.side;
        let ahead = |fold: &mut F, parsed: Option<&Parsed<F::Record>>| {
            if let Some((_, _, _, Ok(record))) = parsed {
                fold.ahead(record, side);
            }
        };
        let mut parsed = run.parsed.into_iter();
        for next in parsed.as_slice().iter().take(AHEAD) {
            ahead(fold, Some(next));
        }
        while let Some((index, offset, len, outcome)) = parsed.next() {
            ahead(fold, parsed.as_slice().get(AHEAD - 1));
            let number = first + u64::from(index);
            findings.blank_lines += number - blank_until;
            blank_until = number + 1;
            match outcome {
                Err(reason) => {
                    let torn = chunk.unterminated && r + 1 == last_run && number == last_line;
                    findings.error(number, reason, torn);
                }
                Ok(record) => {
                    findings.records += 1;
                    let line = LineAt {
                        number,
                        at: chunk.at + u64::from(offset),
                        len: u64::from(len),
                    };
                    fold.fold(line, record, &run.side, &bytes, findings);
                }
            }
        }
        findings.blank_lines += last_line + 1 - blank_until;
        findings.lines = last_line;
    }
    chunk.into_buffer()
}

/// How many lines ahead of the one being folded a fold is told of a record ([`Fold::ahead`]):
/// enough for the memory it fetches to arrive in time, few enough that it is still cached when
/// used.
const AHEAD: usize = 8;

/// Whether threads can be started: the global pool is built here, once, so that a process limit
/// that allows none makes rollcall run on one thread instead of panicking.
pub(crate) fn threads_available() -> bool {
    static BUILT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *BUILT.get_or_init(|| rayon::ThreadPoolBuilder::new().build_global().is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each line is its own number.
    struct Numbers;

    impl Classify for Numbers {
        type Record = u64;
        type Side = ();
        fn classify(&self, line: &[u8], _: u64, _: &mut ()) -> Result<u64, ParseError> {
            std::str::from_utf8(line)
                .ok()
                .and_then(|l| l.parse().ok())
                .ok_or(ParseError::NotObject)
        }
    }

    /// What a fold was told, in order: `(true, n)` ahead of `n`, `(false, n)` folding it.
    #[derive(Default)]
    struct Told(Vec<(bool, u64)>);

    impl Fold for Told {
        type Record = u64;
        type Side = ();
        fn ahead(&mut self, record: &u64, _: &()) {
            self.0.push((true, *record));
        }
        fn fold(&mut self, _: LineAt, record: u64, _: &(), _: &Bytes<'_>, _: &mut Findings) {
            self.0.push((false, record));
        }
    }

    #[test]
    fn a_fold_is_told_of_each_record_once_and_a_few_records_ahead() {
        // Runs of many lines, blank lines and lines that are no record between them.
        let mut input = String::new();
        for n in 1..=20_000u64 {
            input.push_str(&format!("{n}\n"));
            if n % 97 == 0 {
                input.push_str("\nnot a number\n");
            }
        }
        for threads in [false, true] {
            let mut told = Told::default();
            let mut findings = Findings::new();
            let mut options = Options {
                threads,
                max_line: 1 << 20,
                progress: &mut |_| {},
            };
            let reader = io::Cursor::new(input.as_bytes());
            run(
                reader,
                true,
                &Numbers,
                &mut told,
                &mut findings,
                &mut options,
            )
            .unwrap();
            let ahead: Vec<u64> = told.0.iter().filter(|t| t.0).map(|t| t.1).collect();
            let folded: Vec<u64> = told.0.iter().filter(|t| !t.0).map(|t| t.1).collect();
            let all: Vec<u64> = (1..=20_000).collect();
            assert_eq!((&ahead, &folded), (&all, &all), "threads: {threads}");
            // Told of `n` after `n - AHEAD - 1` was folded and before `n` is.
            let mut last_folded = 0;
            for &(is_ahead, n) in &told.0 {
                if is_ahead {
                    assert!(
                        n > last_folded && n - last_folded <= AHEAD as u64 + 1,
                        "{n}"
                    );
                } else {
                    last_folded = n;
                }
            }
        }
    }
}
