//! Where a rollout's bytes come from, and how they are read a second time. Replay keeps items as
//! byte ranges ([`Span`]s) of their source and prints them by reading those ranges again, so that
//! memory holds headers, not text. A regular file larger than [`HELD_BYTES`] is re-read in place
//! (`pread`), as is every file scan reads; a compressed `.zst` file is decompressed again from its
//! start, forward, as far as a read needs; a smaller file, and any stream (a pipe, a FIFO), is
//! copied while it is read: into memory up to [`HELD_BYTES`], into an unlinked temporary file
//! beyond that.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

/// Where a session is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Stdin,
    Path(std::path::PathBuf),
    /// The newest session whose working directory is this folder (`--latest`), still to be
    /// looked up in the agents' homes.
    Latest(std::path::PathBuf),
}

impl Input {
    /// How messages name the input.
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".into(),
            Input::Path(path) => path.display().to_string(),
            Input::Latest(cwd) => format!("the newest session of {}", cwd.display()),
        }
    }

    /// The file, when the input is one.
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            Input::Path(path) => Some(path),
            Input::Stdin | Input::Latest(_) => None,
        }
    }
}

/// Inputs up to this size are held in memory while they are read: a true snapshot, whatever
/// happens to the file afterwards. Larger streams spill the rest to a temporary file.
pub(crate) const HELD_BYTES: u64 = 16 << 20;

/// A byte range of one source: where an item's text (or the raw value it is rebuilt from) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Span {
    pub at: u64,
    pub len: u32,
}

impl Span {
    pub fn end(self) -> u64 {
        self.at + u64::from(self.len)
    }
}

/// One input's bytes, readable again at any offset, from any thread.
#[derive(Debug)]
pub(crate) struct Source {
    store: Store,
}

#[derive(Debug)]
enum Store {
    /// A regular file, read in place up to the length it had when opened.
    File { file: File, len: u64 },
    /// A copy made while reading.
    Copy(Mutex<Copy>),
    /// A zstd-compressed regular file, decompressed again where it is read: nothing is copied.
    Zstd(Mutex<Rezstd>),
}

/// A compressed file's plain bytes, read again: decoders from the file's start, each moved
/// forward to the reads it serves. A read takes the decoder furthest along that has not passed
/// it; when every one has, a new one starts from the start (the one least far along gives its
/// place up). Several let threads that each read forward through their own part share the file.
struct Rezstd {
    file: File,
    /// Plain bytes the pass read: reads stay within them.
    len: u64,
    /// The decoders and how many plain bytes each has given.
    at: Vec<(Unzstd<io::BufReader<FileAt>>, u64)>,
    /// How many times a decoder was started (a measure of backward reads).
    starts: u64,
}

/// Decoders kept at once: one per thread that reads back, and some to spare.
const DECODERS: usize = 4;

impl std::fmt::Debug for Rezstd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rezstd")
            .field("len", &self.len)
            .field("starts", &self.starts)
            .finish_non_exhaustive()
    }
}

/// A file read from an offset of its own (`pread`), whatever other handles do.
struct FileAt {
    file: File,
    at: u64,
}

impl Read for FileAt {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = read_at(&self.file, self.at, buf)?;
        self.at += n as u64;
        Ok(n)
    }
}

impl Rezstd {
    fn read_exact_at(&mut self, at: u64, buf: &mut [u8]) -> io::Result<()> {
        if at + buf.len() as u64 > self.len {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let best = (0..self.at.len())
            .filter(|&i| self.at[i].1 <= at)
            .max_by_key(|&i| self.at[i].1);
        let i = match best {
            Some(i) => i,
            None => {
                let file = FileAt {
                    file: self.file.try_clone()?,
                    at: 0,
                };
                let fresh = (Unzstd::new(file)?, 0);
                self.starts += 1;
                if self.at.len() < DECODERS {
                    self.at.push(fresh);
                    self.at.len() - 1
                } else {
                    let least = (0..self.at.len())
                        .min_by_key(|&i| self.at[i].1)
                        .unwrap_or(0);
                    self.at[least] = fresh;
                    least
                }
            }
        };
        let (decoder, pos) = &mut self.at[i];
        let skip = at - *pos;
        let skipped = io::copy(&mut decoder.by_ref().take(skip), &mut io::sink())?;
        *pos += skipped;
        if skipped < skip {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        decoder.read_exact(buf)?;
        *pos += buf.len() as u64;
        Ok(())
    }
}

#[derive(Debug, Default)]
struct Copy {
    head: Vec<u8>,
    /// Bytes past `head`, once there are any.
    rest: Option<File>,
    len: u64,
}

/// Why an input could not be opened, in words for the one-line error.
#[derive(Debug)]
pub(crate) enum OpenError {
    EmptyName,
    Directory,
    Socket,
    Io(io::Error),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::EmptyName => {
                f.write_str("empty file name: give the path of a rollout, or - for standard input")
            }
            OpenError::Directory => f.write_str("is a directory, not a rollout file"),
            OpenError::Socket => f.write_str("is a socket, not a rollout file"),
            OpenError::Io(e) => write!(f, "cannot open: {}", io_reason(e)),
        }
    }
}

/// An input opened for its one pass: the source to keep, and the reader of the pass, which fills
/// the source's copy (if it makes one) as it goes.
pub(crate) struct Opened {
    pub source: Source,
    pub reader: Box<dyn Read + Send>,
    /// The input has an end: a regular file, or a stream made from one. An endless stream
    /// (`/dev/zero`, a pipe that never closes) is not read past a line longer than the cap.
    pub bounded: bool,
}

impl Source {
    /// Standard input: always copied, since it cannot be read twice.
    pub fn stdin() -> Opened {
        Source::copying(Box::new(io::stdin()), false)
    }

    /// A stream made from something finite (bytes in memory), copied as it is read.
    pub fn stream(reader: Box<dyn Read + Send>) -> Opened {
        Source::copying(reader, true)
    }

    /// A zstd-compressed regular file read by `reader` (its decoder for the pass, bounded as the
    /// caller sees fit): its bytes are counted, not copied, and decompressed again where read.
    pub fn zstd(file: File, reader: Box<dyn Read + Send>) -> Opened {
        Opened {
            source: Source {
                store: Store::Zstd(Mutex::new(Rezstd {
                    file,
                    len: 0,
                    at: Vec::new(),
                    starts: 0,
                })),
            },
            reader,
            bounded: true,
        }
    }

    fn copying(reader: Box<dyn Read + Send>, bounded: bool) -> Opened {
        Opened {
            source: Source {
                store: Store::Copy(Mutex::new(Copy::default())),
            },
            reader,
            bounded,
        }
    }

    /// Opens `path` read-only. A regular file is read up to the length it has now (a consistent
    /// snapshot even while an agent appends to it), at most `limit` bytes of it when given. With
    /// `snapshot`, one of up to [`HELD_BYTES`] is copied as it is read, a true snapshot; any
    /// other is read again where items are printed (scan reads thousands of small files, and
    /// copying them cost it a tenth of its time).
    pub fn open(path: &Path, limit: Option<u64>, snapshot: bool) -> Result<Opened, OpenError> {
        if path.as_os_str().is_empty() {
            return Err(OpenError::EmptyName);
        }
        let file = File::open(path).map_err(|e| open_problem(path, e))?;
        let meta = file.metadata().map_err(OpenError::Io)?;
        if meta.is_dir() {
            return Err(OpenError::Directory);
        }
        if !meta.is_file() {
            // A FIFO or a device: a stream.
            return Ok(Source::copying(Box::new(file), false));
        }
        let len = limit.map_or(meta.len(), |limit| limit.min(meta.len()));
        if snapshot && len <= HELD_BYTES {
            return Ok(Source::copying(Box::new(file.take(len)), true));
        }
        let reader = Box::new(file.try_clone().map_err(OpenError::Io)?.take(len));
        Ok(Opened {
            source: Source {
                store: Store::File { file, len },
            },
            reader,
            bounded: true,
        })
    }

    /// Bytes known so far (the whole input once its pass is over).
    pub fn len(&self) -> u64 {
        match &self.store {
            Store::File { len, .. } => *len,
            Store::Copy(copy) => lock(copy).len,
            Store::Zstd(z) => lock(z).len,
        }
    }

    /// Appends bytes the pass read (a copying source only).
    pub fn append(&self, bytes: &[u8]) -> io::Result<()> {
        let copy = match &self.store {
            Store::Copy(copy) => copy,
            Store::Zstd(z) => {
                lock(z).len += bytes.len() as u64;
                return Ok(());
            }
            Store::File { .. } => return Ok(()),
        };
        let mut copy = lock(copy);
        let room = (HELD_BYTES as usize).saturating_sub(copy.head.len());
        let (held, spilled) = bytes.split_at(room.min(bytes.len()));
        copy.head.extend_from_slice(held);
        if !spilled.is_empty() {
            if copy.rest.is_none() {
                copy.rest = Some(tempfile::tempfile().map_err(|e| {
                    io::Error::new(
                        e.kind(),
                        format!(
                            "more than {} MiB of it, and no temporary file to hold the rest \
                             (set TMPDIR to a writable folder): {}",
                            HELD_BYTES >> 20,
                            io_reason(&e)
                        ),
                    )
                })?);
            }
            if let Some(rest) = copy.rest.as_mut() {
                rest.write_all(spilled)?;
            }
        }
        copy.len += bytes.len() as u64;
        Ok(())
    }

    /// Fills `buf` with the bytes at `at`. Fails with [`io::ErrorKind::UnexpectedEof`] when the
    /// source no longer has them (the file was truncated after its pass).
    pub fn read_exact_at(&self, at: u64, buf: &mut [u8]) -> io::Result<()> {
        match &self.store {
            Store::File { file, len } => {
                if at + buf.len() as u64 > *len {
                    return Err(io::ErrorKind::UnexpectedEof.into());
                }
                read_exact_at(file, at, buf)
            }
            Store::Zstd(z) => lock(z).read_exact_at(at, buf),
            Store::Copy(copy) => {
                let copy = lock(copy);
                if at + buf.len() as u64 > copy.len {
                    return Err(io::ErrorKind::UnexpectedEof.into());
                }
                let held = copy.head.len() as u64;
                let mut filled = 0;
                if at < held {
                    let from = at as usize;
                    let n = buf.len().min(copy.head.len() - from);
                    buf[..n].copy_from_slice(&copy.head[from..from + n]);
                    filled = n;
                }
                if filled < buf.len() {
                    let Some(rest) = &copy.rest else {
                        return Err(io::ErrorKind::UnexpectedEof.into());
                    };
                    let offset = at + filled as u64 - held;
                    read_exact_at(rest, offset, &mut buf[filled..])?;
                }
                Ok(())
            }
        }
    }
}

fn lock<T>(copy: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere cannot leave a copy half-updated in a way reads would trip over.
    copy.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(unix)]
fn read_exact_at(file: &File, at: u64, buf: &mut [u8]) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut at: u64, mut buf: &mut [u8]) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, at) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                at += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(unix)]
fn read_at(file: &File, at: u64, buf: &mut [u8]) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, at)
}

#[cfg(windows)]
fn read_at(file: &File, at: u64, buf: &mut [u8]) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, at)
}

/// A reader that copies what it reads into its source, for the one pass over a stream.
pub(crate) struct Tee<'s, R> {
    pub reader: R,
    pub source: &'s Source,
}

impl<R: Read> Read for Tee<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.reader.read(buf)?;
        self.source.append(&buf[..n])?;
        Ok(n)
    }
}

/// Reads spans of several sources in order, through a window, so that printing a history in file
/// order reads each byte once in large blocks instead of with a system call per item.
pub(crate) struct SpanReader<'s> {
    sources: &'s [Source],
    /// How much a read takes at least.
    block: usize,
    /// Holds the window in its first `filled` bytes; it only grows, so that a window read again
    /// is not zeroed first (and kept for the next reader on this thread: see [`SPARE_WINDOW`]).
    window: Vec<u8>,
    filled: usize,
    /// Which source and where the window starts.
    src: usize,
    start: u64,
    /// Bytes read into the window so far: what printing costs, which tests hold to the size of
    /// what is printed.
    pub copied: u64,
}

/// How much the window reads at a time.
const WINDOW: usize = 4 << 20;

/// A window read forwards starts this fraction of its block before the span asked for.
const LOOK_BACK: usize = 16;

thread_local! {
    /// The window of the last reader dropped on this thread, when no larger than [`WINDOW`]: a
    /// view is read in thousands of parts, each with a reader of its own, and a fresh window
    /// for each cost the faulting in and zeroing of its pages (a third of drafting a Claude Code
    /// view).
    static SPARE_WINDOW: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

impl Drop for SpanReader<'_> {
    fn drop(&mut self) {
        if self.window.len() <= WINDOW {
            let window = std::mem::take(&mut self.window);
            // The larger of the two stays: an `exact` reader's small window does not push out
            // a part reader's.
            SPARE_WINDOW.with(|spare| {
                let kept = spare.take();
                spare.set(if kept.len() > window.len() {
                    kept
                } else {
                    window
                });
            });
        }
    }
}

impl<'s> SpanReader<'s> {
    pub fn new(sources: &'s [Source]) -> Self {
        SpanReader::reading(sources, WINDOW)
    }

    /// A reader that reads just the spans asked for, for a few reads out of order.
    pub fn exact(sources: &'s [Source]) -> Self {
        SpanReader::reading(sources, 0)
    }

    /// A reader over the same sources whose reads take at least `block` bytes: for one
    /// thread's share of spans that lie together.
    pub fn sibling(&self, block: usize) -> SpanReader<'s> {
        SpanReader::reading(self.sources, block)
    }

    fn reading(sources: &'s [Source], block: usize) -> Self {
        SpanReader {
            sources,
            block,
            window: SPARE_WINDOW.with(|spare| spare.take()),
            filled: 0,
            src: usize::MAX,
            start: 0,
            copied: 0,
        }
    }

    /// The bytes of `span` in source `src`. Errors are [`ReadBack`] errors.
    pub fn read(&mut self, src: usize, span: Span) -> io::Result<&[u8]> {
        let end = span.end();
        let inside =
            self.src == src && span.at >= self.start && end <= self.start + self.filled as u64;
        if !inside {
            let source = self.sources.get(src).ok_or(io::ErrorKind::NotFound)?;
            let want = (span.len as usize).max(self.block) as u64;
            // Reading backwards (a chain printed root first from a file written leaf last), the
            // window ends at the span, so that the spans before it come from it too; else it
            // starts a little before the span: a chain that steps back over a branch, a few
            // entries at a time, finds the entries it steps back to still in the window instead
            // of reading two windows again (that was two thirds more reading on a real
            // transcript with branches).
            let backwards = self.src == src && span.at < self.start;
            let start = if backwards {
                end.saturating_sub(want)
            } else {
                span.at.saturating_sub((self.block / LOOK_BACK) as u64)
            };
            let available = source.len().saturating_sub(start);
            let take = want.min(available).max(end - start) as usize;
            if self.window.len() < take {
                self.window.resize(take, 0);
            }
            self.filled = take;
            self.copied += take as u64;
            self.src = src;
            self.start = start;
            if let Err(e) = source.read_exact_at(start, &mut self.window[..take]) {
                self.src = usize::MAX;
                return Err(match e.kind() {
                    io::ErrorKind::UnexpectedEof => changed(),
                    _ => read_back(format!("cannot read it again: {}", io_reason(&e))),
                });
            }
        }
        let from = (span.at - self.start) as usize;
        Ok(&self.window[from..from + span.len as usize])
    }
}

/// A source that could not be read again while printing: the failure is the source's, not the
/// output's.
#[derive(Debug)]
pub(crate) struct ReadBack(String);

impl std::fmt::Display for ReadBack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ReadBack {}

fn read_back(problem: String) -> io::Error {
    io::Error::other(ReadBack(problem))
}

/// The error for a source whose bytes are no longer what its pass read.
pub(crate) fn changed() -> io::Error {
    read_back("changed while being read (truncated or rewritten in place)".into())
}

pub(crate) fn is_read_back(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<ReadBack>())
}

/// Why `path` could not be opened, in words that say what is wrong where the OS's do not.
fn open_problem(path: &Path, e: io::Error) -> OpenError {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        // Opening a socket fails with "No such device or address".
        if std::fs::metadata(path).is_ok_and(|m| m.file_type().is_socket()) {
            return OpenError::Socket;
        }
    }
    let _ = path;
    OpenError::Io(e)
}

/// An I/O error's message without the `(os error N)` suffix.
/// Reads a zstd stream (a `.jsonl.zst` rollout) as its plain text; a stream that is not zstd, or
/// is cut short, fails with an error that says so.
pub(crate) struct Unzstd<R: io::BufRead> {
    decoder: zstd::stream::read::Decoder<'static, R>,
    /// Bytes decompressed so far, and how many may be (`u64::MAX`: no bound).
    out: u64,
    limit: u64,
}

/// How many times its compressed size a zstd stream may expand: real rollouts compress 5 to
/// 50 times; a stream that expands a thousand times is a decompression bomb, not a session log.
pub(crate) const MAX_RATIO: u64 = 1000;

impl<R: Read> Unzstd<io::BufReader<R>> {
    pub(crate) fn new(reader: R) -> io::Result<Self> {
        Ok(Unzstd {
            decoder: zstd::stream::read::Decoder::new(reader)?,
            out: 0,
            limit: u64::MAX,
        })
    }

    /// A decoder of a stream of `compressed` bytes that stops with an error once it has expanded
    /// [`MAX_RATIO`] times (and past 64 MiB, so that small files are never judged).
    pub(crate) fn bounded(reader: R, compressed: u64) -> io::Result<Self> {
        let mut unzstd = Unzstd::new(reader)?;
        unzstd.limit = compressed.saturating_mul(MAX_RATIO).max(64 << 20);
        Ok(unzstd)
    }
}

impl<R: io::BufRead> Read for Unzstd<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.decoder.read(buf).map_err(|e| match e.kind() {
            io::ErrorKind::Interrupted => e,
            kind => io::Error::new(kind, format!("not a valid zstd stream ({})", io_reason(&e))),
        })?;
        self.out += n as u64;
        if self.out > self.limit {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "decompresses to over {MAX_RATIO} times its size (stopped at {} MiB): a \
                     decompression bomb, not a session log",
                    self.out >> 20
                ),
            ));
        }
        Ok(n)
    }
}

pub(crate) fn io_reason(e: &io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(cut) => text[..cut].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads back and forth through a compressed file: each gets the bytes at its offset.
    #[test]
    fn a_compressed_file_is_read_again_at_any_offset() {
        let plain: Vec<u8> = (0..300_000u32).flat_map(|n| n.to_le_bytes()).collect();
        let mut file = tempfile::tempfile().unwrap();
        zstd::stream::copy_encode(&plain[..], &mut file, 1).unwrap();
        let pass = Unzstd::new(file.try_clone().unwrap()).unwrap();
        let Opened { source, .. } = Source::zstd(file, Box::new(pass));
        source.append(&plain).unwrap();
        let mut buf = [0u8; 4];
        for at in [1_000_000u64, 4, 1_199_996, 600_000, 8, 599_996, 1_000_004] {
            source.read_exact_at(at, &mut buf).unwrap();
            assert_eq!(buf[..], plain[at as usize..at as usize + 4], "at {at}");
        }
        let past = source.read_exact_at(1_199_998, &mut buf).unwrap_err();
        assert_eq!(past.kind(), io::ErrorKind::UnexpectedEof);
    }

    /// Lines in the test sources below: 20 MB, five windows.
    const LINES: u64 = 200_000;

    /// A source of [`LINES`] lines of 99 `x`s each.
    fn lines_of_x() -> [Source; 1] {
        let Opened { source, .. } = Source::stdin();
        for _ in 0..LINES {
            source.append(&[b'x'; 99]).unwrap();
            source.append(b"\n").unwrap();
        }
        [source]
    }

    /// Reads line `n` of [`lines_of_x`] and checks it.
    fn read_line(reader: &mut SpanReader<'_>, n: u64) {
        let span = Span {
            at: n * 100,
            len: 99,
        };
        assert_eq!(reader.read(0, span).unwrap(), &[b'x'; 99][..]);
    }

    #[test]
    fn spans_read_backwards_cost_the_bytes_once() {
        let (sources, lines) = (lines_of_x(), LINES);
        let mut reader = SpanReader::new(&sources);
        for n in (0..lines).rev() {
            read_line(&mut reader, n);
        }
        // One window's worth more than the source at most, not a window per span.
        assert!(
            reader.copied <= lines * 100 + WINDOW as u64,
            "{}",
            reader.copied
        );
    }

    #[test]
    fn a_chain_that_steps_back_over_branches_reads_each_byte_about_once() {
        let (sources, lines) = (lines_of_x(), LINES);
        let mut reader = SpanReader::new(&sources);
        // Forwards in steps of 64 lines, each step then going back over the 32 lines before
        // it, as a chain returns to the entry a branch left from.
        for step in (0..lines).step_by(64) {
            for n in (step..(step + 64).min(lines)).chain(step.saturating_sub(32)..step) {
                read_line(&mut reader, n);
            }
        }
        let once = lines * 100;
        assert!(
            reader.copied <= once + once / LOOK_BACK as u64 + WINDOW as u64,
            "{}",
            reader.copied
        );
    }

    #[test]
    fn a_copy_spills_past_what_it_holds_and_reads_back_across_the_seam() {
        let Opened { source, .. } = Source::stdin();
        let big: Vec<u8> = (0..HELD_BYTES + 1000).map(|i| (i % 251) as u8).collect();
        for piece in big.chunks(1 << 20) {
            source.append(piece).unwrap();
        }
        assert_eq!(source.len(), big.len() as u64);
        let at = HELD_BYTES - 10;
        let mut buf = [0; 30];
        source.read_exact_at(at, &mut buf).unwrap();
        assert_eq!(buf, big[at as usize..at as usize + 30]);
        let past = source.read_exact_at(big.len() as u64 - 5, &mut [0; 10]);
        assert_eq!(past.unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn the_span_reader_reads_spans_bigger_than_its_window() {
        let Opened { source, .. } = Source::stdin();
        let bytes: Vec<u8> = (0..WINDOW * 2 + 7).map(|i| (i % 13) as u8).collect();
        source.append(&bytes).unwrap();
        let sources = [source];
        let mut reader = SpanReader::new(&sources);
        let whole = Span {
            at: 3,
            len: (WINDOW + 100) as u32,
        };
        assert_eq!(reader.read(0, whole).unwrap(), &bytes[3..WINDOW + 103]);
        let later = Span { at: 10, len: 4 };
        assert_eq!(reader.read(0, later).unwrap(), &bytes[10..14]);
        assert!(reader.read(1, later).is_err());
    }
}
