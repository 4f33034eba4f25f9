//! Bytes to numbered lines: streams a file, FIFO or stdin in large chunks that end on a line
//! boundary, so that lines can be parsed in parallel and memory stays bounded by the chunk size.

use std::io::{self, Read};

/// How many bytes a chunk aims for. Large enough to amortise thread hand-offs, small enough that
/// a report over a gigabyte stays within a few tens of megabytes.
pub const CHUNK_BYTES: usize = 8 << 20;

/// A run of whole lines.
pub struct Chunk {
    pub data: Vec<u8>,
    /// The number of the chunk's first line (1-based).
    pub first_line: u64,
    /// The chunk's last line has no `\n`: the input ended mid-line.
    pub unterminated: bool,
}

impl Chunk {
    /// The lines, numbered, without their `\n` and without one trailing `\r`.
    pub fn lines(&self) -> impl Iterator<Item = (u64, &[u8])> {
        let data = self.data.as_slice();
        let mut start = 0;
        let mut number = self.first_line;
        std::iter::from_fn(move || {
            if start >= data.len() {
                return None;
            }
            let end = memchr::memchr(b'\n', &data[start..]).map_or(data.len(), |i| start + i);
            let mut line = &data[start..end];
            if let Some(stripped) = line.strip_suffix(b"\r") {
                line = stripped;
            }
            start = end + 1;
            number += 1;
            Some((number - 1, line))
        })
    }
}

/// Whether a line holds nothing but whitespace (such lines are skipped without a word).
pub fn is_blank(line: &[u8]) -> bool {
    line.iter()
        .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0b' | b'\x0c'))
}

/// Splits a byte stream into [`Chunk`]s.
pub struct Chunker<R> {
    source: R,
    /// Bytes read after the last complete line so far.
    carry: Vec<u8>,
    next_line: u64,
    at_start: bool,
    done: bool,
    chunk_bytes: usize,
}

impl<R: Read> Chunker<R> {
    pub fn new(source: R) -> Self {
        Self::with_chunk_bytes(source, CHUNK_BYTES)
    }

    pub fn with_chunk_bytes(source: R, chunk_bytes: usize) -> Self {
        Chunker {
            source,
            carry: Vec::new(),
            next_line: 1,
            at_start: true,
            done: false,
            chunk_bytes: chunk_bytes.max(1),
        }
    }

    /// The next run of whole lines, or `None` at the end of input.
    pub fn next_chunk(&mut self) -> io::Result<Option<Chunk>> {
        if self.done {
            return Ok(None);
        }
        let mut data = std::mem::take(&mut self.carry);
        let mut scanned = 0;
        loop {
            let target = (data.len() + self.chunk_bytes).max(self.chunk_bytes);
            let eof = fill(&mut self.source, &mut data, target)?;
            if self.at_start {
                if data.len() < 3 && !eof {
                    continue; // too few bytes yet to tell whether a BOM starts the input
                }
                self.at_start = false;
                if data.starts_with(b"\xEF\xBB\xBF") {
                    data.drain(..3);
                }
            }
            if let Some(last) = memchr::memrchr(b'\n', &data[scanned..]) {
                let cut = scanned + last + 1;
                self.carry = data.split_off(cut);
                if eof {
                    // The rest, if any, is a final line without `\n`.
                    self.done = self.carry.is_empty();
                }
                return Ok(Some(self.chunk(data, false)));
            }
            scanned = data.len();
            if eof {
                self.done = true;
                if data.is_empty() {
                    return Ok(None);
                }
                return Ok(Some(self.chunk(data, true)));
            }
        }
    }

    fn chunk(&mut self, data: Vec<u8>, unterminated: bool) -> Chunk {
        let first_line = self.next_line;
        self.next_line += memchr::memchr_iter(b'\n', &data).count() as u64;
        if unterminated {
            self.next_line += 1;
        }
        Chunk {
            data,
            first_line,
            unterminated,
        }
    }
}

/// Reads until `data` holds `target` bytes or the input ends; returns whether it ended.
fn fill(source: &mut impl Read, data: &mut Vec<u8>, target: usize) -> io::Result<bool> {
    let want = target.saturating_sub(data.len());
    data.reserve(want);
    // `read_to_end` reads into the spare capacity without zeroing it again before every read:
    // resizing the buffer to the target for each read made a pipe, which hands over 64 KiB at a
    // time, pay a memset of the whole chunk per read (stdin ten times slower than a path).
    let got = source.take(want as u64).read_to_end(data)?;
    Ok(got < want)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line with its number and whether it ended its chunk unterminated.
    fn all_lines(input: &[u8], chunk_bytes: usize) -> Vec<(u64, String, bool)> {
        let mut chunker = Chunker::with_chunk_bytes(input, chunk_bytes);
        let mut out = Vec::new();
        while let Some(chunk) = chunker.next_chunk().unwrap_or_else(|e| panic!("{e}")) {
            let count = chunk.lines().count();
            for (i, (n, line)) in chunk.lines().enumerate() {
                let torn = chunk.unterminated && i + 1 == count;
                out.push((n, String::from_utf8_lossy(line).into_owned(), torn));
            }
        }
        out
    }

    #[test]
    fn numbers_lines_across_chunk_sizes() {
        let input = b"\xEF\xBB\xBFa\r\n\nbb\r\r\nccc\nlast";
        let expected = vec![
            (1, "a".to_string(), false),
            (2, String::new(), false),
            (3, "bb\r".to_string(), false),
            (4, "ccc".to_string(), false),
            (5, "last".to_string(), true),
        ];
        for size in [1, 2, 3, 5, 7, 64] {
            assert_eq!(all_lines(input, size), expected, "chunk size {size}");
        }
    }

    #[test]
    fn terminated_input_has_no_extra_line() {
        assert_eq!(
            all_lines(b"x\ny\n", 3),
            vec![(1, "x".into(), false), (2, "y".into(), false)]
        );
        assert_eq!(all_lines(b"", 3), vec![]);
        assert_eq!(all_lines(b"\xEF\xBB\xBF", 3), vec![]);
        assert_eq!(
            all_lines(b"\xEF\xBB", 8),
            vec![(1, "\u{FFFD}".into(), true)]
        );
    }

    #[test]
    fn blank_lines() {
        assert!(is_blank(b""));
        assert!(is_blank(b" \t\r"));
        assert!(!is_blank(b" x "));
    }
}
