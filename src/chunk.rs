//! Bytes to lines: streams an input in large chunks that end on a line boundary, so that lines can
//! be classified in parallel and input is buffered a few chunks at a time, whatever its size.
//! Chunks know their absolute offset in the input (a BOM counted), which is what item spans are
//! made of. A line longer than the cap is never held: it is skipped to its end and reported.

use std::io::{self, Read};
use std::ops::Range;

/// How many bytes a chunk aims for. Large enough to amortise thread hand-offs, small enough that
/// a report over a gigabyte stays within a few tens of megabytes.
pub(crate) const CHUNK_BYTES: usize = 4 << 20;

/// The default longest line: far above the 43 MB lines seen in real rollouts.
pub(crate) const MAX_LINE_BYTES: usize = 256 << 20;

/// What the chunker hands on: lines to classify, or a line too long to hold.
pub(crate) enum Piece {
    Lines(Chunk),
    /// A line longer than the cap, skipped without being held.
    Long(LongLine),
}

/// A line longer than the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LongLine {
    pub at: u64,
    /// Bytes of it seen (all of it, unless reading stopped inside it).
    pub len: u64,
    /// How it ended: with `\n`, at the end of the input, or not at all (reading stopped there,
    /// because the input is a stream that may never end).
    pub end: LineEnd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineEnd {
    Newline,
    Eof,
    NotRead,
}

/// A run of whole lines: the first `len` bytes of `buf`, starting at offset `at` of the input.
pub(crate) struct Chunk {
    buf: Vec<u8>,
    len: usize,
    pub at: u64,
    /// The chunk's last line has no `\n`: the input ended mid-line.
    pub unterminated: bool,
}

impl Chunk {
    pub fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The buffer, to hand back to [`Chunker::next_piece`] for reuse.
    pub fn into_buffer(self) -> Vec<u8> {
        self.buf
    }

    /// The chunk cut into runs of whole lines of about `target` bytes, for parallel work.
    pub fn runs(&self, target: usize) -> Vec<Range<usize>> {
        let data = self.bytes();
        let mut runs = Vec::with_capacity(data.len() / target.max(1) + 1);
        let mut start = 0;
        while start < data.len() {
            let guess = (start + target).min(data.len());
            let end = match memchr::memchr(b'\n', &data[guess..]) {
                Some(i) => guess + i + 1,
                None => data.len(),
            };
            runs.push(start..end);
            start = end;
        }
        runs
    }
}

/// The lines of `run` (bytes of whole lines), each without its `\n` and one trailing `\r`, with
/// its offset in `run`.
pub(crate) fn lines(run: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= run.len() {
            return None;
        }
        let mut end = memchr::memchr(b'\n', &run[start..]).map_or(run.len(), |i| start + i);
        let next = end + 1;
        if end > start && run[end - 1] == b'\r' {
            end -= 1;
        }
        let line = (start, &run[start..end]);
        start = next;
        Some(line)
    })
}

/// Whether a line holds nothing but whitespace (such lines are skipped without a word).
/// Whitespace is Unicode's (U+00A0 and U+3000 too), as `str::trim` sees it.
pub(crate) fn is_blank(line: &[u8]) -> bool {
    match line
        .iter()
        .position(|b| !b.is_ascii_whitespace() && *b != b'\x0b')
    {
        None => true,
        Some(at) if line[at] < 0x80 => false,
        Some(_) => std::str::from_utf8(line).is_ok_and(|text| text.trim().is_empty()),
    }
}

/// Splits a byte stream into [`Piece`]s.
pub(crate) struct Chunker<R> {
    source: R,
    /// Bytes read after the last complete line so far.
    carry: Vec<u8>,
    /// Offset in the input of the first byte of `carry` (or of the next read, when empty).
    at: u64,
    at_start: bool,
    done: bool,
    /// What the next chunk aims for: small at first, so that a small input costs little,
    /// doubling up to `chunk_bytes`.
    target: usize,
    chunk_bytes: usize,
    max_line: usize,
    /// Stop at a long line instead of skipping it: the input may never end.
    endless: bool,
}

impl<R: Read> Chunker<R> {
    pub fn new(source: R, max_line: usize, bounded: bool) -> Self {
        Self::with_chunk_bytes(source, CHUNK_BYTES, max_line, bounded)
    }

    pub fn with_chunk_bytes(source: R, chunk_bytes: usize, max_line: usize, bounded: bool) -> Self {
        Chunker {
            source,
            carry: Vec::new(),
            at: 0,
            at_start: true,
            done: false,
            target: chunk_bytes.clamp(1, 64 << 10),
            chunk_bytes: chunk_bytes.max(1),
            max_line: max_line.max(1),
            endless: !bounded,
        }
    }

    /// The next piece, or `None` at the end of input. `buf` is a buffer to fill (a used chunk's,
    /// or a new empty one).
    pub fn next_piece(&mut self, mut buf: Vec<u8>) -> io::Result<Option<Piece>> {
        if self.done {
            return Ok(None);
        }
        // At least a BOM's worth, so that the first fill can tell whether one is there.
        let want = (self.carry.len() + self.target).max(3);
        self.target = (self.target * 2).min(self.chunk_bytes);
        if buf.len() < want {
            buf.resize(want, 0); // a new buffer comes from calloc: zeroed lazily, when written
        }
        buf[..self.carry.len()].copy_from_slice(&self.carry);
        let mut filled = self.carry.len();
        self.carry.clear();
        let mut scanned = 0;
        loop {
            let eof = fill(&mut self.source, &mut buf, &mut filled)?;
            if self.at_start {
                self.at_start = false;
                if buf[..filled].starts_with(b"\xEF\xBB\xBF") {
                    buf.copy_within(3..filled, 0);
                    filled -= 3;
                    self.at = 3;
                }
            }
            let at = self.at;
            if let Some(last) = memchr::memrchr(b'\n', &buf[scanned..filled]) {
                let len = scanned + last + 1;
                self.carry.extend_from_slice(&buf[len..filled]);
                self.at += len as u64;
                // At the end of input, what is left is a final line without `\n`.
                self.done = eof && self.carry.is_empty();
                return Ok(Some(Piece::Lines(Chunk {
                    buf,
                    len,
                    at,
                    unterminated: false,
                })));
            }
            scanned = filled;
            if eof {
                self.done = true;
                if filled == 0 {
                    return Ok(None);
                }
                self.at += filled as u64;
                return Ok(Some(Piece::Lines(Chunk {
                    buf,
                    len: filled,
                    at,
                    unterminated: true,
                })));
            }
            if filled > self.max_line {
                return self.skip_long_line(buf, filled).map(Some);
            }
            // A line longer than the buffer: make room for more of it, up to just past the cap.
            let grown = (buf.len() * 2).min(self.max_line + 1).max(buf.len() + 1);
            buf.resize(grown, 0);
        }
    }

    /// The buffer holds `filled` bytes of one line, more than the cap: reads on to its end
    /// without keeping it (or stops, on an endless input).
    fn skip_long_line(&mut self, mut buf: Vec<u8>, filled: usize) -> io::Result<Piece> {
        let at = self.at;
        let mut len = filled as u64;
        if self.endless {
            self.done = true;
            return Ok(Piece::Long(LongLine {
                at,
                len,
                end: LineEnd::NotRead,
            }));
        }
        buf.truncate(self.chunk_bytes.min(buf.len()).max(1));
        loop {
            let mut got = 0;
            let eof = fill(&mut self.source, &mut buf, &mut got)?;
            if let Some(i) = memchr::memchr(b'\n', &buf[..got]) {
                len += i as u64;
                self.carry.extend_from_slice(&buf[i + 1..got]);
                self.at += len + 1;
                self.done = eof && self.carry.is_empty();
                return Ok(Piece::Long(LongLine {
                    at,
                    len,
                    end: LineEnd::Newline,
                }));
            }
            len += got as u64;
            if eof {
                self.done = true;
                self.at += len;
                return Ok(Piece::Long(LongLine {
                    at,
                    len,
                    end: LineEnd::Eof,
                }));
            }
        }
    }
}

/// Reads into `buf[*filled..]` until it is full or the input ends; returns whether it ended.
fn fill(source: &mut impl Read, buf: &mut [u8], filled: &mut usize) -> io::Result<bool> {
    while *filled < buf.len() {
        match source.read(&mut buf[*filled..]) {
            Ok(0) => return Ok(true),
            Ok(n) => *filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line with its absolute offset and whether it ended its chunk unterminated; lines
    /// over `max_line` as `LONG` with their length.
    fn all_lines(input: &[u8], chunk_bytes: usize, max_line: usize) -> Vec<(u64, String, bool)> {
        let mut chunker = Chunker::with_chunk_bytes(input, chunk_bytes, max_line, true);
        let mut out = Vec::new();
        let mut buf = Vec::new();
        while let Some(piece) = chunker.next_piece(buf).unwrap() {
            let chunk = match piece {
                Piece::Lines(chunk) => chunk,
                Piece::Long(long) => {
                    let end = long.end == LineEnd::Eof;
                    out.push((long.at, format!("LONG {}", long.len), end));
                    buf = Vec::new();
                    continue;
                }
            };
            let all: Vec<_> = lines(chunk.bytes()).collect();
            for (i, (offset, line)) in all.iter().enumerate() {
                let torn = chunk.unterminated && i + 1 == all.len();
                // The pipeline holds lines inside a chunk to the same cap.
                let text = if line.len() > max_line {
                    format!("LONG {}", line.len())
                } else {
                    String::from_utf8_lossy(line).into_owned()
                };
                out.push((chunk.at + *offset as u64, text, torn));
            }
            buf = chunk.into_buffer();
        }
        out
    }

    #[test]
    fn splits_lines_across_chunk_sizes() {
        let input = b"\xEF\xBB\xBFa\r\n\nbb\r\r\nccc\nlast";
        let expected = vec![
            (3, "a".to_string(), false),
            (6, String::new(), false),
            (7, "bb\r".to_string(), false),
            (12, "ccc".to_string(), false),
            (16, "last".to_string(), true),
        ];
        for size in [1, 2, 3, 5, 7, 64] {
            assert_eq!(
                all_lines(input, size, 1 << 20),
                expected,
                "chunk size {size}"
            );
        }
    }

    #[test]
    fn terminated_input_has_no_extra_line() {
        assert_eq!(
            all_lines(b"x\ny\n", 3, 100),
            vec![(0, "x".into(), false), (2, "y".into(), false)]
        );
        assert_eq!(all_lines(b"", 3, 100), vec![]);
        assert_eq!(all_lines(b"\xEF\xBB\xBF", 3, 100), vec![]);
        assert_eq!(
            all_lines(b"\xEF\xBB", 8, 100),
            vec![(0, "\u{FFFD}".into(), true)]
        );
        assert_eq!(
            all_lines(b"a\xEF\xBB\xBF\n", 1, 100),
            vec![(0, "a\u{FEFF}".into(), false)]
        );
    }

    #[test]
    fn long_lines_are_skipped_to_their_end() {
        let mut input = b"ab\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', 50));
        input.extend(b"\ncd\n");
        input.extend(std::iter::repeat_n(b'y', 20));
        for size in [1, 4, 16, 64] {
            assert_eq!(
                all_lines(&input, size, 10),
                vec![
                    (0, "ab".into(), false),
                    (3, "LONG 50".into(), false),
                    (54, "cd".into(), false),
                    (57, "LONG 20".into(), true),
                ],
                "chunk size {size}"
            );
        }
        // Exactly at the cap is still a line.
        assert_eq!(
            all_lines(b"0123456789\n", 4, 10),
            vec![(0, "0123456789".into(), false)]
        );
    }

    #[test]
    fn an_endless_input_stops_at_its_first_long_line() {
        let zeros = std::io::repeat(0).take(1 << 30);
        let mut chunker = Chunker::with_chunk_bytes(zeros, 64, 1000, false);
        let Some(Piece::Long(long)) = chunker.next_piece(Vec::new()).unwrap() else {
            panic!("expected a long line");
        };
        assert_eq!((long.at, long.end), (0, LineEnd::NotRead));
        assert!(long.len > 1000 && long.len < 4000, "{}", long.len);
        assert!(chunker.next_piece(Vec::new()).unwrap().is_none());
    }

    #[test]
    fn runs_end_on_line_boundaries() {
        let mut chunker = Chunker::new(&b"aa\nbbbb\nc\ndd\n"[..], 1 << 20, true);
        let Some(Piece::Lines(chunk)) = chunker.next_piece(Vec::new()).unwrap() else {
            panic!("expected lines");
        };
        assert_eq!(chunk.runs(3), vec![0..8, 8..13]);
        assert_eq!(chunk.runs(100), vec![0..13]);
    }

    #[test]
    fn blank_lines() {
        assert!(is_blank(b""));
        assert!(is_blank(b" \t\r"));
        assert!(!is_blank(b" x "));
        assert!(is_blank("\u{a0}\u{3000} \u{85}".as_bytes()));
        assert!(!is_blank("\u{a0}x".as_bytes()));
        assert!(!is_blank(b"\xa0"));
    }
}
