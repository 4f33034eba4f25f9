//! Bytes to lines: streams an input in large chunks that end on a line boundary, so that lines can
//! be classified in parallel and input is buffered a few chunks at a time, whatever its size.
//! Chunks know their absolute offset in the input (a BOM counted), which is what item spans are
//! made of. A line longer than the cap is never held: it is skipped to its end and reported.

use std::io::{self, Read};
use std::ops::Range;

use crate::findings::ParseError;

/// How many bytes a chunk aims for. Large enough to amortise thread hand-offs, small enough that
/// the chunks in flight cost little memory: 1 MiB read a 1 GiB rollout as fast as 4 MiB did,
/// with peak memory 40 → 25 MiB.
pub(crate) const CHUNK_BYTES: usize = 1 << 20;

/// A line that outgrows this much of a read is judged on its first bytes (see
/// [`Chunker::next_piece`]).
const JUDGE_BYTES: usize = 4 << 20;

/// The most lines in one chunk.
pub(crate) const MAX_LINES: usize = 1 << 15;

/// The default longest line: far above the 43 MB lines seen in real rollouts.
pub(crate) const MAX_LINE_BYTES: usize = 256 << 20;

/// What the chunker hands on: lines to classify, or a line too long to hold.
pub(crate) enum Piece {
    Lines(Chunk),
    /// A line longer than the cap, skipped without being held.
    Long(LongLine),
}

/// A line skipped without being held: longer than the cap, or longer than a chunk and already
/// known to be no record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LongLine {
    pub at: u64,
    /// Bytes of it seen (all of it, unless reading stopped inside it).
    pub len: u64,
    /// Why it is no record, when that was known before its end and it is within the cap.
    pub reason: Option<ParseError>,
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
    /// Where each line ends: the offset of its `\n` (of the chunk's end, for an unterminated
    /// last line). The reader finds them as it cuts the chunk, so that no stage after it
    /// looks for a newline again.
    ends: Vec<u32>,
    /// Some line ends in `\r\n` (the reader looks while the bytes are at hand; a stage after
    /// it would touch each line's last byte again only to find none).
    returns: bool,
}

impl Chunk {
    pub fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The buffer, to hand back to [`Chunker::next_piece`] for reuse.
    pub fn into_buffer(self) -> Vec<u8> {
        self.buf
    }

    /// The chunk's lines cut into runs of about `target` bytes or more, for parallel work: each
    /// run a range of line indices.
    pub fn runs(&self, target: usize) -> Vec<Range<usize>> {
        let mut runs = Vec::with_capacity(self.len / target.max(1) + 1);
        let (mut first, mut start) = (0, 0);
        for (i, &end) in self.ends.iter().enumerate() {
            let next = end as usize + 1;
            if next - start >= target {
                runs.push(first..i + 1);
                (first, start) = (i + 1, next);
            }
        }
        if first < self.ends.len() {
            runs.push(first..self.ends.len());
        }
        runs
    }

    /// How many lines the chunk holds.
    #[cfg(test)]
    pub fn lines(&self) -> usize {
        self.ends.len()
    }

    /// Line `i`: its offset in the chunk and its bytes, without its `\n` and one trailing `\r`.
    pub fn line(&self, i: usize) -> (usize, &[u8]) {
        let start = match i {
            0 => 0,
            _ => self.ends[i - 1] as usize + 1,
        };
        let mut end = self.ends[i] as usize;
        if self.returns && end > start && self.buf[end - 1] == b'\r' {
            end -= 1;
        }
        (start, &self.buf[start..end])
    }
}

/// Where the lines of `bytes` (whole lines, each ending in `\n`) end, up to [`MAX_LINES`] of
/// them; the bytes they take, and whether a line ends in `\r\n`.
fn line_ends(bytes: &[u8], ends: &mut Vec<u32>) -> (usize, bool) {
    let mut returns = false;
    for end in memchr::memchr_iter(b'\n', bytes) {
        ends.push(end as u32);
        returns |= end > 0 && bytes[end - 1] == b'\r';
        if ends.len() == MAX_LINES {
            return (end + 1, returns);
        }
    }
    (bytes.len(), returns)
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
    /// The last chunk ended at [`MAX_LINES`]: the target stays as it is.
    dense: bool,
    /// The buffer handed in when there was nothing left to read, for the caller to keep.
    spare: Vec<u8>,
    chunk_bytes: usize,
    /// A line that outgrows this much is judged on its first bytes.
    judge_at: usize,
    max_line: usize,
    /// Stop at a long line instead of skipping it: the input may never end.
    endless: bool,
}

impl<R: Read> Chunker<R> {
    pub fn new(source: R, max_line: usize, bounded: bool) -> Self {
        Chunker {
            judge_at: JUDGE_BYTES,
            ..Self::with_chunk_bytes(source, CHUNK_BYTES, max_line, bounded)
        }
    }

    pub fn with_chunk_bytes(source: R, chunk_bytes: usize, max_line: usize, bounded: bool) -> Self {
        Chunker {
            source,
            carry: Vec::new(),
            at: 0,
            at_start: true,
            done: false,
            target: chunk_bytes.clamp(1, 64 << 10),
            dense: false,
            spare: Vec::new(),
            chunk_bytes: chunk_bytes.max(1),
            judge_at: chunk_bytes.max(1),
            max_line: max_line.max(1),
            endless: !bounded,
        }
    }

    /// The next piece, or `None` at the end of input. `buf` is a buffer to fill (a used chunk's,
    /// or a new empty one).
    pub fn next_piece(&mut self, mut buf: Vec<u8>) -> io::Result<Option<Piece>> {
        if self.done {
            self.spare = buf;
            return Ok(None);
        }
        // At least a BOM's worth, so that the first fill can tell whether one is there.
        let want = (self.carry.len() + self.target).max(3);
        if !std::mem::take(&mut self.dense) {
            self.target = (self.target * 2).min(self.chunk_bytes);
        }
        if buf.len() < want {
            buf.resize(want, 0); // a new buffer comes from calloc: zeroed lazily, when written
        }
        buf[..self.carry.len()].copy_from_slice(&self.carry);
        let mut filled = self.carry.len();
        self.carry.clear();
        let mut scanned = 0;
        let mut judged = false;
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
                let whole = scanned + last + 1;
                // Each line costs the stages after this one a record header while its chunk is
                // in flight: a chunk of tiny lines (blank, or a byte each) ends early, and the
                // chunks after it aim for that size until lines grow longer again.
                let mut ends = Vec::new();
                let (len, returns) = line_ends(&buf[..whole], &mut ends);
                if len < whole {
                    self.target = len;
                    self.dense = true;
                }
                self.carry.extend_from_slice(&buf[len..filled]);
                self.at += len as u64;
                // At the end of input, what is left is a final line without `\n`.
                self.done = eof && self.carry.is_empty();
                return Ok(Some(Piece::Lines(Chunk {
                    buf,
                    len,
                    at,
                    unterminated: false,
                    ends,
                    returns,
                })));
            }
            scanned = filled;
            if eof {
                self.done = true;
                if filled == 0 {
                    self.spare = buf;
                    return Ok(None);
                }
                self.at += filled as u64;
                // No `\n` anywhere in it: one line the input ends inside.
                let returns = buf[..filled].ends_with(b"\r");
                return Ok(Some(Piece::Lines(Chunk {
                    buf,
                    len: filled,
                    at,
                    unterminated: true,
                    ends: vec![filled as u32],
                    returns,
                })));
            }
            if filled > self.max_line {
                return self.skip_long_line(buf, filled, None).map(Some);
            }
            // A line outgrows a read: if its first bytes already make it no record, it is
            // skipped like an overlong one instead of being held (`/dev/zero`, binary junk).
            if filled >= self.judge_at && !judged {
                judged = true;
                if let Some(reason) = early_verdict(&buf[..filled]) {
                    return self.skip_long_line(buf, filled, Some(reason)).map(Some);
                }
            }
            // A line longer than the buffer: make room for more of it, up to just past the cap.
            let grown = (buf.len() * 2).min(self.max_line + 1).max(buf.len() + 1);
            buf.resize(grown, 0);
        }
    }

    /// The buffer handed in last, once the input has ended.
    pub fn take_spare(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.spare)
    }

    /// The buffer holds `filled` bytes of one line, more than the cap, or a line already known
    /// to be no record for `reason`: reads on to its end without keeping it. On an endless
    /// input, reading stops once the line is over the cap.
    fn skip_long_line(
        &mut self,
        mut buf: Vec<u8>,
        filled: usize,
        mut reason: Option<ParseError>,
    ) -> io::Result<Piece> {
        let at = self.at;
        let mut len = filled as u64;
        let stop = |len: u64, reason: Option<ParseError>| LongLine {
            at,
            len,
            reason,
            end: LineEnd::NotRead,
        };
        let over = |len: u64| len > self.max_line as u64;
        if self.endless && over(len) {
            self.done = true;
            return Ok(Piece::Long(stop(len, None)));
        }
        // UTF-8 is checked before JSON: invalid UTF-8 later in the line is its reason.
        let mut utf8 = Utf8Tail::after(&buf[..filled], &reason);
        buf.truncate(self.chunk_bytes.min(buf.len()).max(1));
        loop {
            let mut got = 0;
            let eof = fill(&mut self.source, &mut buf, &mut got)?;
            let end = memchr::memchr(b'\n', &buf[..got]);
            let part = &buf[..end.unwrap_or(got)];
            if let Some(bad) = utf8.as_mut().and_then(|u| u.check(part, len)) {
                reason = Some(ParseError::InvalidUtf8 { at: bad });
                utf8 = None;
            }
            len += part.len() as u64;
            if (end.is_some() || eof)
                && let Some(bad) = utf8.as_ref().and_then(|u| u.cut_short(len))
            {
                reason = Some(ParseError::InvalidUtf8 { at: bad });
            }
            let reason = reason.filter(|_| !over(len));
            if let Some(i) = end {
                self.carry.extend_from_slice(&buf[i + 1..got]);
                self.at += len + 1;
                self.done = eof && self.carry.is_empty();
                return Ok(Piece::Long(LongLine {
                    at,
                    len,
                    reason,
                    end: LineEnd::Newline,
                }));
            }
            if eof {
                self.done = true;
                self.at += len;
                return Ok(Piece::Long(LongLine {
                    at,
                    len,
                    reason,
                    end: LineEnd::Eof,
                }));
            }
            if self.endless && over(len) {
                self.done = true;
                return Ok(Piece::Long(stop(len, None)));
            }
        }
    }
}

/// Why the line starting with `prefix` (more than a chunk of it, no end yet) is no record, when
/// its first bytes already say so: invalid UTF-8, or a JSON syntax error well before the end of
/// what is here. JSON is read left to right, so such an error is the whole line's; the dialects'
/// classifiers report the same one, as they validate with the same reader. (Invalid UTF-8
/// further on would be reported first: the skip looks for it.)
pub(crate) fn early_verdict(prefix: &[u8]) -> Option<ParseError> {
    /// Errors this close to the end may be the cut, not the line.
    const MARGIN: usize = 16;
    let valid = match std::str::from_utf8(prefix) {
        Ok(text) => text,
        Err(e) if e.error_len().is_some() => {
            return Some(ParseError::InvalidUtf8 {
                at: e.valid_up_to(),
            });
        }
        Err(e) => std::str::from_utf8(&prefix[..e.valid_up_to()]).ok()?,
    };
    let mut p = crate::json::Parser::new(valid);
    let error = p.value().err()?;
    (error.at + MARGIN < valid.len()).then_some(ParseError::InvalidJson {
        at: error.at,
        what: error.what,
    })
}

/// Looks for invalid UTF-8 in the rest of a line being skipped, whose first bytes were valid.
struct Utf8Tail {
    /// The first bytes of a character cut by the last piece.
    cut: Vec<u8>,
}

impl Utf8Tail {
    /// After `seen` bytes of the line: `None` when there is nothing to look for (the reason is
    /// already UTF-8, or the line is over the cap and its reason is its length).
    fn after(seen: &[u8], reason: &Option<ParseError>) -> Option<Utf8Tail> {
        if !matches!(reason, Some(ParseError::InvalidJson { .. })) {
            return None;
        }
        let cut = match std::str::from_utf8(seen) {
            Err(e) if e.error_len().is_none() => seen[e.valid_up_to()..].to_vec(),
            _ => Vec::new(),
        };
        Some(Utf8Tail { cut })
    }

    /// The line ended (at `len`) inside a character: where that character starts.
    fn cut_short(&self, len: u64) -> Option<usize> {
        (!self.cut.is_empty()).then(|| len as usize - self.cut.len())
    }

    /// The line offset of the first invalid byte in `part`, which starts at offset `at`.
    fn check(&mut self, part: &[u8], at: u64) -> Option<usize> {
        let mut joined = std::mem::take(&mut self.cut);
        let start = at as usize - joined.len();
        joined.extend_from_slice(part);
        match std::str::from_utf8(&joined) {
            Ok(_) => None,
            Err(e) if e.error_len().is_some() => Some(start + e.valid_up_to()),
            Err(e) => {
                self.cut = joined[e.valid_up_to()..].to_vec();
                None
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
            let all: Vec<_> = (0..chunk.lines()).map(|i| chunk.line(i)).collect();
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
    fn a_return_before_a_newline_or_the_end_is_not_the_lines() {
        let input = b"a\nb\r\nc\r";
        let expected = vec![
            (0, "a".to_string(), false),
            (2, "b".to_string(), false),
            (5, "c".to_string(), true),
        ];
        for size in [1, 2, 4, 64] {
            assert_eq!(
                all_lines(input, size, 1 << 20),
                expected,
                "chunk size {size}"
            );
        }
    }

    #[test]
    fn a_chunk_holds_at_most_max_lines() {
        let mut input = Vec::new();
        for i in 0..(MAX_LINES * 3 + 7) {
            input.extend_from_slice(if i % 1000 == 0 {
                b"a longer line\n"
            } else {
                b"x\n"
            });
        }
        let mut chunker = Chunker::new(&input[..], 1 << 20, true);
        let (mut buf, mut seen, mut chunks) = (Vec::new(), 0, 0);
        while let Some(Piece::Lines(chunk)) = chunker.next_piece(buf).unwrap() {
            let n = chunk.lines();
            assert!(n <= MAX_LINES, "{n}");
            assert_eq!(chunk.at as usize, offset_of(&input, seen));
            seen += n;
            chunks += 1;
            buf = chunk.into_buffer();
        }
        assert_eq!(seen, MAX_LINES * 3 + 7);
        assert!(chunks >= 4, "{chunks}");
    }

    /// The offset of line `n` (0-based) of `input`.
    fn offset_of(input: &[u8], n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        memchr::memchr_iter(b'\n', input)
            .nth(n - 1)
            .map_or(input.len(), |i| i + 1)
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
        let lines: Vec<_> = (0..chunk.lines()).map(|i| chunk.line(i)).collect();
        let expected: [(usize, &[u8]); 4] = [(0, b"aa"), (3, b"bbbb"), (8, b"c"), (10, b"dd")];
        assert_eq!(lines, expected);
        assert_eq!(chunk.runs(3), vec![0..1, 1..2, 2..4]);
        assert_eq!(chunk.runs(6), vec![0..2, 2..4]);
        assert_eq!(chunk.runs(100), vec![0..4]);
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

#[cfg(test)]
mod verdicts {
    use super::*;
    use crate::pipeline::Classify;
    use proptest::prelude::*;

    /// Pieces of lines: JSON that may go on, JSON that cannot, and bytes that are no UTF-8.
    fn fragment() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            Just(
                b"{\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"text\":\""
                    .to_vec()
            ),
            Just(b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".to_vec()),
            Just("ééééé€€€😀😀".as_bytes().to_vec()),
            Just(b"\",\"k\":[1,2,{\"x\":null}],\"s\":\"".to_vec()),
            Just(b"\0".to_vec()),
            Just(b"\xff".to_vec()),
            Just(b"\xe2\x82".to_vec()),
            Just(b"}".to_vec()),
            Just(b"\\u12".to_vec()),
            Just(b"[".to_vec()),
            Just(b" ".to_vec()),
        ]
    }

    proptest! {
        /// A line skipped early for a reason has that reason in both dialects' eyes.
        #[test]
        fn an_early_verdict_is_the_whole_lines(parts in prop::collection::vec(fragment(), 1..40)) {
            let line: Vec<u8> = parts.concat();
            let mut input = line.clone();
            input.push(b'\n');
            let mut chunker = Chunker::with_chunk_bytes(&input[..], 32, 1 << 20, true);
            while let Some(piece) = chunker.next_piece(Vec::new()).unwrap() {
                let Piece::Long(long) = piece else { continue };
                let Some(reason) = long.reason else { continue };
                prop_assert_eq!(long.len as usize, line.len());
                let codex = crate::codex::record::Classifier { pre_envelope: false };
                prop_assert_eq!(codex.classify(&line, 0, &mut ()).err(), Some(reason));
                let claude = crate::claude::entry::Classifier { facts: true };
                prop_assert_eq!(claude.classify(&line, 0, &mut Default::default()).err(), Some(reason));
            }
        }
    }
}
