//! Bytes to lines: streams a file, FIFO or stdin in large chunks that end on a line boundary, so
//! that lines can be parsed in parallel and input is buffered a few chunks at a time, whatever
//! the file's size (what replay keeps of it is replay's business). Buffers are handed back and
//! reused, so a gigabyte costs no allocation or page faults after the first few.

use std::io::{self, Read};
use std::ops::Range;

/// How many bytes a chunk aims for. Large enough to amortise thread hand-offs, small enough that
/// a report over a gigabyte stays within a few tens of megabytes.
pub const CHUNK_BYTES: usize = 8 << 20;

/// A run of whole lines: the first `len` bytes of `buf`.
pub struct Chunk {
    buf: Vec<u8>,
    len: usize,
    /// The chunk's last line has no `\n`: the input ended mid-line.
    pub unterminated: bool,
}

impl Chunk {
    pub fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The buffer, to hand back to [`Chunker::next_chunk`] for reuse.
    pub fn into_buffer(self) -> Vec<u8> {
        self.buf
    }

    /// Where the lines are, without their `\n` and without one trailing `\r`.
    pub fn line_ranges(&self) -> Vec<Range<usize>> {
        let data = self.bytes();
        let mut lines = Vec::new();
        let mut start = 0;
        while start < data.len() {
            let mut end = memchr::memchr(b'\n', &data[start..]).map_or(data.len(), |i| start + i);
            let next = end + 1;
            if end > start && data[end - 1] == b'\r' {
                end -= 1;
            }
            lines.push(start..end);
            start = next;
        }
        lines
    }
}

/// Whether a line holds nothing but whitespace (such lines are skipped without a word).
/// Whitespace is Unicode's (U+00A0 and U+3000 too), as `str::trim` sees it.
pub fn is_blank(line: &[u8]) -> bool {
    match line
        .iter()
        .position(|b| !b.is_ascii_whitespace() && *b != b'\x0b')
    {
        None => true,
        Some(at) if line[at] < 0x80 => false,
        Some(_) => std::str::from_utf8(line).is_ok_and(|text| text.trim().is_empty()),
    }
}

/// Splits a byte stream into [`Chunk`]s.
pub struct Chunker<R> {
    source: R,
    /// Bytes read after the last complete line so far.
    carry: Vec<u8>,
    at_start: bool,
    done: bool,
    /// What the next chunk aims for: small at first, so that a small input costs little,
    /// doubling up to `chunk_bytes`.
    target: usize,
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
            at_start: true,
            done: false,
            target: chunk_bytes.clamp(1, 64 << 10),
            chunk_bytes: chunk_bytes.max(1),
        }
    }

    /// The next run of whole lines, or `None` at the end of input. `buf` is a buffer to fill
    /// (a used chunk's, or a new empty one): its initialised bytes are reused as they are.
    pub fn next_chunk(&mut self, mut buf: Vec<u8>) -> io::Result<Option<Chunk>> {
        if self.done {
            return Ok(None);
        }
        // At least a BOM's worth, so that the first fill can tell whether one is there.
        let want = (self.carry.len() + self.target).max(3);
        self.target = (self.target * 2).min(self.chunk_bytes);
        if buf.is_empty() {
            buf = vec![0; want]; // calloc: the pages are zeroed lazily, when first written
        } else if buf.len() < want {
            buf.resize(want, 0);
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
                }
            }
            if let Some(last) = memchr::memrchr(b'\n', &buf[scanned..filled]) {
                let len = scanned + last + 1;
                self.carry.extend_from_slice(&buf[len..filled]);
                // At the end of input, what is left is a final line without `\n`.
                self.done = eof && self.carry.is_empty();
                return Ok(Some(Chunk {
                    buf,
                    len,
                    unterminated: false,
                }));
            }
            scanned = filled;
            if eof {
                self.done = true;
                if filled == 0 {
                    return Ok(None);
                }
                return Ok(Some(Chunk {
                    buf,
                    len: filled,
                    unterminated: true,
                }));
            }
            // A line longer than the buffer: make room for more of it.
            let grown = buf.len() * 2;
            buf.resize(grown, 0);
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

    /// Every line with whether it ended its chunk unterminated.
    fn all_lines(input: &[u8], chunk_bytes: usize) -> Vec<(String, bool)> {
        let mut chunker = Chunker::with_chunk_bytes(input, chunk_bytes);
        let mut out = Vec::new();
        let mut buf = Vec::new();
        while let Some(chunk) = chunker.next_chunk(buf).unwrap() {
            let lines = chunk.line_ranges();
            for (i, range) in lines.iter().enumerate() {
                let torn = chunk.unterminated && i + 1 == lines.len();
                let line = &chunk.bytes()[range.clone()];
                out.push((String::from_utf8_lossy(line).into_owned(), torn));
            }
            buf = chunk.into_buffer();
        }
        out
    }

    #[test]
    fn splits_lines_across_chunk_sizes() {
        let input = b"\xEF\xBB\xBFa\r\n\nbb\r\r\nccc\nlast";
        let expected = vec![
            ("a".to_string(), false),
            (String::new(), false),
            ("bb\r".to_string(), false),
            ("ccc".to_string(), false),
            ("last".to_string(), true),
        ];
        for size in [1, 2, 3, 5, 7, 64] {
            assert_eq!(all_lines(input, size), expected, "chunk size {size}");
        }
    }

    #[test]
    fn terminated_input_has_no_extra_line() {
        assert_eq!(
            all_lines(b"x\ny\n", 3),
            vec![("x".into(), false), ("y".into(), false)]
        );
        assert_eq!(all_lines(b"", 3), vec![]);
        assert_eq!(all_lines(b"\xEF\xBB\xBF", 3), vec![]);
        assert_eq!(all_lines(b"\xEF\xBB", 8), vec![("\u{FFFD}".into(), true)]);
        assert_eq!(
            all_lines(b"a\xEF\xBB\xBF\n", 1),
            vec![("a\u{FEFF}".into(), false)]
        );
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
