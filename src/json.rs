//! A validating JSON parser that reads each byte once: it checks a line against RFC 8259 while
//! callers pick out the members they need, as byte ranges of the source text. Values nobody asks
//! about are validated and skipped without being built. Strings are only decoded on request.
//!
//! It accepts exactly what strict JSON parsers accept (serde_json's `RawValue`, Python's `json`
//! without its NaN extension): lone surrogate escapes are valid, nesting depth is unlimited (the
//! skipper keeps its own stack), and duplicate keys are left for callers (the last one wins).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::findings::ParseError;

/// Why a text is not JSON, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Error {
    /// Byte offset of the problem.
    pub at: usize,
    pub what: &'static str,
}

pub type Result<T> = std::result::Result<T, Error>;

pub struct Parser<'a> {
    text: &'a str,
    pos: usize,
    /// Open containers of the value being skipped, reused between calls.
    stack: Vec<u8>,
    /// The long strings met so far, when remembering them ([`Parser::remembering`]).
    long: Option<Vec<Walked>>,
    /// Strings of this text already walked, in order: stepped over, not scanned again.
    known: &'a [Walked],
}

/// Where a string of at least [`LONG`] bytes (quotes included) starts and ends, and the length
/// of its decoded text: a walk of a text that has been walked before ([`Parser::knowing`])
/// steps over it instead of scanning its bytes again. A Codex item is walked once to read it
/// and again to check it against Codex's types; its base64 images and long texts are most of
/// its bytes, and whether a long tool output is cut depends on its decoded length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Walked {
    pub at: u32,
    pub end: u32,
    /// As [`decoded_len`] counts it.
    pub decoded: u32,
}

/// The decoded length of the string at `range`, if `known` has it.
pub fn known_decoded_len(known: &[Walked], range: &Range<usize>) -> Option<usize> {
    let i = known
        .binary_search_by_key(&range.start, |w| w.at as usize)
        .ok()?;
    let w = known[i];
    (w.end as usize == range.end).then_some(w.decoded as usize)
}

/// Where the string at `at` of `bytes` ends, when `known` lists it and a quote still ends it
/// there, inside `bytes`: a text read again may not be the one walked, so a string is stepped
/// over only if it still ends where the walk found it (after a quote, so on a character
/// boundary); else it is to be scanned. The strings `known` lists up to `at` are passed.
#[inline]
pub fn known_end(known: &mut &[Walked], bytes: &[u8], at: usize) -> Option<usize> {
    while let Some((k, rest)) = known.split_first()
        && k.at as usize <= at
    {
        *known = rest;
        let end = k.end as usize;
        if k.at as usize == at && end > at + 1 && bytes.get(end - 1) == Some(&b'"') {
            return Some(end);
        }
    }
    None
}

/// The length from which a string is remembered.
const LONG: usize = 256;

impl<'a> Parser<'a> {
    pub fn new(text: &'a str) -> Parser<'a> {
        Parser {
            text,
            pos: 0,
            stack: Vec::new(),
            long: None,
            known: &[],
        }
    }

    /// A parser that remembers where the long strings it walks are ([`Parser::long_strings`]).
    pub fn remembering(text: &'a str) -> Parser<'a> {
        Parser::remembering_in(text, Vec::new())
    }

    /// [`Parser::remembering`], listing the long strings in `long` (emptied first): a vector
    /// kept from line to line.
    pub fn remembering_in(text: &'a str, mut long: Vec<Walked>) -> Parser<'a> {
        long.clear();
        let mut parser = Parser::new(text);
        parser.long = Some(long);
        parser
    }

    /// A parser of a text whose long strings a walk already found valid at `known`.
    pub fn knowing(text: &'a str, known: &'a [Walked]) -> Parser<'a> {
        let mut parser = Parser::new(text);
        parser.known = known;
        parser
    }

    /// The long strings walked so far, in order (none unless [`Parser::remembering`]).
    pub fn long_strings(&mut self) -> Vec<Walked> {
        self.long.take().unwrap_or_default()
    }

    pub fn text(&self) -> &'a str {
        self.text
    }

    /// Moves to byte offset `at`, where a value starts; ranges stay offsets of the whole text.
    /// A remembering parser forgets the long strings from there on: walked again, they are
    /// remembered again.
    pub fn seek(&mut self, at: usize) {
        self.pos = at.min(self.text.len());
        if let Some(long) = &mut self.long {
            let kept = long.partition_point(|w| (w.at as usize) < self.pos);
            long.truncate(kept);
        }
        // The strings known before `at` are of no more use: passed over by a search, not one by
        // one, as many walks of one line each start far into it (the items of a replacement
        // history, each checked on its own).
        let skipped = self
            .known
            .partition_point(|known| (known.at as usize) < self.pos);
        self.known = &self.known[skipped..];
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn fail<T>(&self, what: &'static str) -> Result<T> {
        Err(Error { at: self.pos, what })
    }

    /// The offset the parser is at.
    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn ws(&mut self) {
        let b = self.bytes();
        // Logs are mostly written without whitespace between tokens: one comparison settles a
        // byte above the space.
        while let Some(&c) = b.get(self.pos)
            && c <= b' '
            && matches!(c, b' ' | b'\t' | b'\n' | b'\r')
        {
            self.pos += 1;
        }
    }

    /// The next byte after whitespace.
    pub fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.bytes().get(self.pos).copied()
    }

    /// After the top-level value: only whitespace may follow.
    pub fn end(&mut self) -> Result<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => self.fail("trailing characters after the value"),
        }
    }

    fn eat(&mut self, byte: u8, what: &'static str) -> Result<()> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            self.fail(what)
        }
    }

    /// Validates and skips one value, returning its range.
    #[inline(always)]
    pub fn value(&mut self) -> Result<Range<usize>> {
        self.ws();
        // Most values asked for are strings (ids, names, times): they need no stack.
        if self.bytes().get(self.pos) == Some(&b'"') {
            return self.string();
        }
        self.value_walked()
    }

    /// [`Parser::value`] of any value, at its first byte.
    #[inline(never)]
    fn value_walked(&mut self) -> Result<Range<usize>> {
        let start = self.pos;
        let mut stack = std::mem::take(&mut self.stack);
        if stack.capacity() == 0 {
            stack = STACK.take();
        }
        stack.clear();
        let result = self.skip(&mut stack);
        self.stack = stack;
        result.map(|()| start..self.pos)
    }

    fn skip(&mut self, stack: &mut Vec<u8>) -> Result<()> {
        loop {
            // A value is expected here.
            match self.peek() {
                Some(open @ (b'{' | b'[')) => {
                    self.pos += 1;
                    let close = if open == b'{' { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.pos += 1;
                    } else {
                        stack.push(open);
                        if open == b'{' {
                            self.key()?;
                        }
                        continue;
                    }
                }
                _ => self.scalar()?,
            }
            // After a value: close containers until one continues with a comma.
            loop {
                let Some(&open) = stack.last() else {
                    return Ok(());
                };
                match (open, self.peek()) {
                    (_, Some(b',')) => {
                        self.pos += 1;
                        if open == b'{' {
                            self.key()?;
                        }
                        break;
                    }
                    (b'{', Some(b'}')) | (b'[', Some(b']')) => {
                        self.pos += 1;
                        stack.pop();
                    }
                    (b'{', Some(_)) => return self.fail("expected `,` or `}`"),
                    (_, Some(_)) => return self.fail("expected `,` or `]`"),
                    (b'{', None) => return self.fail("EOF while parsing an object"),
                    (_, None) => return self.fail("EOF while parsing an array"),
                }
            }
        }
    }

    /// A member's key and its colon.
    #[inline(always)]
    fn key(&mut self) -> Result<Key<'a>> {
        if self.peek() != Some(b'"') {
            return self.fail("expected a string key");
        }
        let (range, escaped) = self.string_escaped()?;
        self.eat(b':', "expected `:`")?;
        let text = self.text;
        Ok(Key {
            raw: &text[range],
            escaped,
        })
    }

    /// A string, number or literal.
    fn scalar(&mut self) -> Result<()> {
        match self.bytes().get(self.pos) {
            // Settled inline where it is short: a skipped container is mostly short strings.
            Some(b'"') => self.string_escaped().map(drop),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true"),
            Some(b'f') => self.literal("false"),
            Some(b'n') => self.literal("null"),
            Some(_) => self.fail("expected a value"),
            None => self.fail("EOF while expecting a value"),
        }
    }

    fn literal(&mut self, word: &'static str) -> Result<()> {
        if self.bytes()[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(())
        } else {
            self.fail("expected a value")
        }
    }

    fn number(&mut self) -> Result<()> {
        let b = self.bytes();
        let digits = |mut at: usize| {
            while b.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
            at
        };
        let mut at = self.pos;
        if b.get(at) == Some(&b'-') {
            at += 1;
        }
        match b.get(at) {
            Some(b'0') => at += 1,
            Some(b'1'..=b'9') => at = digits(at),
            _ => return self.fail("invalid number"),
        }
        if b.get(at) == Some(&b'.') {
            let after = digits(at + 1);
            if after == at + 1 {
                self.pos = after;
                return self.fail("invalid number");
            }
            at = after;
        }
        if let Some(b'e' | b'E') = b.get(at) {
            at += 1;
            if let Some(b'+' | b'-') = b.get(at) {
                at += 1;
            }
            let after = digits(at);
            if after == at {
                self.pos = at;
                return self.fail("invalid number");
            }
            at = after;
        }
        self.pos = at;
        Ok(())
    }

    /// A string at the current position (a `"`), quotes included in the range; one already
    /// walked is stepped over.
    fn string(&mut self) -> Result<Range<usize>> {
        self.string_escaped().map(|(range, _)| range)
    }

    /// [`Parser::string`], and whether the string may hold an escape (one stepped over is not
    /// looked at again, and may).
    #[inline(always)]
    fn string_escaped(&mut self) -> Result<(Range<usize>, bool)> {
        // Most strings are keys and ids that end, unescaped, within 16 bytes of their quote:
        // settled here, inline, where the call to the whole scan cost more than the look.
        let start = self.pos;
        if self.known.first().is_none_or(|k| k.at as usize > start)
            && let Some(part) = self.bytes().get(start + 1..).and_then(|r| r.first_chunk())
        {
            let found = specials16(part);
            let end = start + 1 + found.trailing_zeros() as usize;
            if found != 0 && self.bytes()[end] == b'"' {
                self.pos = end + 1;
                return Ok((start..self.pos, false));
            }
        }
        self.string_walked()
    }

    /// [`Parser::string_escaped`] of any string.
    #[inline(never)]
    fn string_walked(&mut self) -> Result<(Range<usize>, bool)> {
        let start = self.pos;
        if let Some(end) = known_end(&mut self.known, self.text.as_bytes(), start) {
            self.pos = end;
            return Ok((start..end, true));
        }
        let (range, shrink) = self.scan_string()?;
        if range.len() >= LONG
            && let Some(long) = &mut self.long
            && let (Ok(at), Ok(end)) = (u32::try_from(range.start), u32::try_from(range.end))
        {
            let decoded = (end - at - 2).saturating_sub(shrink);
            long.push(Walked { at, end, decoded });
        }
        // Every escape is longer than what it stands for.
        Ok((range, shrink > 0))
    }

    /// The bytes are taken 64 at a time as a mask of the ones a string scan must look at (see
    /// [`specials`]); an escape is checked and cleared from the mask, so a run of escapes costs
    /// no new search. Also returns by how many bytes the escapes make the text longer than what
    /// it decodes to (as [`decoded_len`] counts it).
    fn scan_string(&mut self) -> Result<(Range<usize>, u32)> {
        let b = self.bytes();
        let start = self.pos;
        // Most strings are short keys, ids, times and paths: when the first byte of the 64
        // after the quote that a scan must look at is the closing quote, that settles it
        // (looked at 16 bytes at a time: a uuid, 36 bytes, ends in the third 16; a Claude Code
        // entry has a dozen strings of 16 to 63 bytes). The bytes looked at are not looked at
        // again: the scan by 64 goes on from the first 16 that hold a special.
        let mut at = start + 1;
        for _ in 0..4 {
            let Some(part) = b.get(at..).and_then(|rest| rest.first_chunk::<16>()) else {
                break;
            };
            let found = specials16(part);
            if found != 0 {
                let end = at + found.trailing_zeros() as usize;
                if b[end] == b'"' {
                    self.pos = end + 1;
                    return Ok((start..self.pos, 0));
                }
                break;
            }
            at += 16;
        }
        let mut block = at;
        let mut shrink = 0u32;
        loop {
            let mut mask = specials(b, block);
            while mask != 0 {
                let at = block + mask.trailing_zeros() as usize;
                match b.get(at) {
                    Some(b'"') => {
                        self.pos = at + 1;
                        return Ok((start..self.pos, shrink));
                    }
                    Some(b'\\') => {}
                    Some(_) => {
                        self.pos = at;
                        return self.fail("control character in a string");
                    }
                    None => {
                        self.pos = b.len();
                        return self.fail("EOF while parsing a string");
                    }
                }
                let escape = b.get(at + 1).copied().unwrap_or_default();
                let next = if SIMPLE_ESCAPE[usize::from(escape)] {
                    shrink = shrink.saturating_add(1);
                    at + 2
                } else if escape == b'u'
                    && let Some((len, width)) = unicode_escape(b, at)
                {
                    shrink = shrink.saturating_add((len - width) as u32);
                    at + len
                } else {
                    self.pos = at;
                    return self.fail("invalid escape in a string");
                };
                if next >= block + 64 {
                    block = next;
                    mask = specials(b, block);
                } else {
                    // The escaped byte (a `"` or `\\`) is no special of its own.
                    mask &= u64::MAX << (next - block);
                }
            }
            block += 64;
        }
    }

    /// Parses an object, calling `member` with each key and the parser placed at the value.
    /// `member` either parses the value itself and returns true, or returns false to have it
    /// validated and skipped.
    pub fn object(
        &mut self,
        mut member: impl FnMut(&mut Self, Key<'a>) -> Result<bool>,
    ) -> Result<Range<usize>> {
        let start = self.pos;
        self.eat(b'{', "expected `{`")?;
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(start..self.pos);
        }
        loop {
            let key = self.key()?;
            self.ws();
            if !member(self, key)? {
                self.value()?;
            }
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(start..self.pos);
                }
                Some(_) => return self.fail("expected `,` or `}`"),
                None => return self.fail("EOF while parsing an object"),
            }
        }
    }

    /// Parses an array, calling `element` with the parser placed at each element, with the same
    /// contract as [`Parser::object`].
    pub fn array(
        &mut self,
        mut element: impl FnMut(&mut Self) -> Result<bool>,
    ) -> Result<Range<usize>> {
        let start = self.pos;
        self.eat(b'[', "expected `[`")?;
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(start..self.pos);
        }
        loop {
            self.ws();
            if !element(self)? {
                self.value()?;
            }
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(start..self.pos);
                }
                Some(_) => return self.fail("expected `,` or `]`"),
                None => return self.fail("EOF while parsing an array"),
            }
        }
    }
}

impl Drop for Parser<'_> {
    fn drop(&mut self) {
        if (1..=KEPT_STACK).contains(&self.stack.capacity()) {
            STACK.set(std::mem::take(&mut self.stack));
        }
    }
}

/// The deepest stack [`STACK`] keeps: a line nested deeper does not leave its stack behind.
const KEPT_STACK: usize = 4096;

thread_local! {
    /// A skipper's stack, kept for the next parser on this thread: a parser is made for each
    /// line, and its stack was an allocation a line (grown and freed again).
    static STACK: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The bytes that may follow a backslash on their own (`\\u` takes four hex digits).
const SIMPLE_ESCAPE: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    let simple = b"\"\\/bfnrt";
    while i < simple.len() {
        table[simple[i] as usize] = true;
        i += 1;
    }
    table
};

/// The bytes a string scan must look at in `bytes[at..at + 64]`, as a mask (bit `i` for byte
/// `at + i`): `"`, `\\`, and control characters (which JSON strings may not hold raw). Bytes past
/// the end count as specials, so that a scan stops there.
fn specials(bytes: &[u8], at: usize) -> u64 {
    let padded: [u8; 64];
    let block = match bytes.get(at..).and_then(|rest| rest.first_chunk::<64>()) {
        Some(block) => block,
        None => {
            // Zero bytes are controls: everything past the end is a special.
            let rest = bytes.get(at..).unwrap_or_default();
            let mut block = [0; 64];
            block[..rest.len()].copy_from_slice(rest);
            padded = block;
            &padded
        }
    };
    let (parts, _) = block.as_chunks::<16>();
    parts.iter().enumerate().fold(0, |mask, (i, part)| {
        mask | u64::from(specials16(part)) << (16 * i)
    })
}

#[cfg(any(not(target_arch = "x86_64"), test))]
fn is_special(b: u8) -> bool {
    (b == b'"') | (b == b'\\') | (b < 0x20)
}

/// [`specials`] of 16 bytes: SSE2, which every x86-64 processor has.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
fn specials16(part: &[u8; 16]) -> u16 {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of the x86-64 baseline, so its intrinsics are always available; the
    // one load reads the 16 bytes of `part`, and allows them unaligned.
    unsafe {
        let v = _mm_loadu_si128(part.as_ptr().cast());
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        // b < 0x20 exactly when min(b, 0x1f) == b (unsigned).
        let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u16
    }
}

/// [`specials`] of 16 bytes, portably.
#[cfg(any(not(target_arch = "x86_64"), test))]
fn specials16_scalar(part: &[u8; 16]) -> u16 {
    part.iter()
        .enumerate()
        .fold(0, |mask, (i, &b)| mask | u16::from(is_special(b)) << i)
}

#[cfg(not(target_arch = "x86_64"))]
fn specials16(part: &[u8; 16]) -> u16 {
    specials16_scalar(part)
}

/// Whether the text is one valid JSON value, surrounding whitespace allowed.
pub fn validate(text: &str) -> Result<()> {
    let mut p = Parser::new(text);
    p.value()?;
    p.end()
}

/// The value range of member `name` of the object that starts at offset `at` of `text` (a key
/// compared decoded); `None` when there is no such member or no object there.
pub fn member(text: &str, at: usize, name: &str) -> Option<Range<usize>> {
    member_knowing(text, &[], at, name)
}

/// The value ranges of the elements of the array that starts at offset `at` of `text`; `None`
/// when there is no array there.
pub fn elements(text: &str, at: usize) -> Option<Vec<Range<usize>>> {
    let mut p = Parser::new(text);
    p.seek(at);
    let mut out = Vec::new();
    p.array(|p| {
        out.push(p.value()?);
        Ok(true)
    })
    .ok()?;
    Some(out)
}

/// [`member`] of a text whose long strings a walk found valid at `known`.
pub fn member_knowing(text: &str, known: &[Walked], at: usize, name: &str) -> Option<Range<usize>> {
    let mut p = Parser::knowing(text, known);
    p.seek(at);
    let mut found = None;
    p.object(|p, key| {
        if key.name() != name {
            return Ok(false);
        }
        found = Some(p.value()?);
        Ok(true)
    })
    .ok()?;
    found
}

/// The bytes that remove member `name` from the object that starts at offset `at` of `text`:
/// the member and the comma that joins it to the next one (or, for the last member, to the one
/// before). `None` when there is no such member or no object there.
pub fn member_cut(text: &str, at: usize, name: &str) -> Option<Range<usize>> {
    let mut p = Parser::new(text);
    p.seek(at);
    let base = text.as_ptr() as usize;
    let (mut found, mut before, mut next) = (None, None, None);
    let mut last_end = None;
    p.object(|p, key| {
        let start = key.raw().as_ptr() as usize - base;
        if found.is_some() && next.is_none() {
            next = Some(start);
        }
        let value = p.value()?;
        if found.is_none() && key.name() == name {
            found = Some(start..value.end);
            before = last_end;
        }
        last_end = Some(value.end);
        Ok(true)
    })
    .ok()?;
    let found = found?;
    Some(match (next, before) {
        (Some(next), _) => found.start..next,
        (None, Some(before)) => before..found.end,
        (None, None) => found,
    })
}

/// Decodes a raw JSON string (quotes included); `None` when `raw` is not a string.
/// A lone surrogate escape, which JSON allows but UTF-8 cannot hold, becomes U+FFFD.
pub fn decode_str(raw: &str) -> Option<Cow<'_, str>> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    // Without escapes, the text is the source's own (valid UTF-8 already: not checked again).
    if !has_escape(inner.as_bytes()) {
        return Some(Cow::Borrowed(inner));
    }
    let bytes = decode_key(raw)?.into_owned();
    Some(Cow::Owned(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => lossy_key(e.as_bytes()),
    }))
}

/// The length in bytes of what a raw JSON string (quotes included) decodes to, as
/// [`decode_str`] decodes it (a lone surrogate as U+FFFD), without decoding it.
pub fn decoded_len(raw: &str) -> usize {
    let inner = raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(raw)
        .as_bytes();
    decoded_len_of(inner)
}

/// [`decoded_len`] of a string's text from a place where a token starts.
fn decoded_len_of(inner: &[u8]) -> usize {
    let mut len = 0;
    let mut at = 0;
    while let Some(hit) = next_backslash(inner, at) {
        let (taken, width) = escape_size(inner, hit);
        len += hit - at + width;
        at = hit + taken;
    }
    len + inner.len().saturating_sub(at)
}

/// The ends of what the raw JSON string `raw` (quotes included) decodes to, `len` bytes in all,
/// as Codex's truncation keeps them: the longest head of whole characters within `left` bytes,
/// and the longest tail of whole characters within `right` bytes that starts at or after the
/// head's end. Only the ends are decoded: once the head is found, the walk jumps to near the
/// tail (see [`near_tail`]) instead of stepping over the bytes between, escape by escape.
pub fn decode_ends(raw: &str, len: usize, left: usize, right: usize) -> Option<(String, String)> {
    decode_ends_jumping(raw, len, left, right, JUMP)
}

/// [`decode_ends`], jumping to the tail when that skips more than `jump` bytes.
fn decode_ends_jumping(
    raw: &str,
    len: usize,
    left: usize,
    right: usize,
    jump: usize,
) -> Option<(String, String)> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    let b = inner.as_bytes();
    let continues = |p: usize| b.get(p).is_some_and(|&c| c & 0xC0 == 0x80);
    let head_at = left.min(len);
    let tail_from = |head_end: usize| len.saturating_sub(right).max(head_end);
    // Raw and decoded offsets of the head's end, once found.
    let mut head: Option<(usize, usize)> = None;
    let (mut at, mut d) = (0usize, 0);
    let mut jumped = false;
    let tail = loop {
        // Once the head is found, the walk goes on from near the end, where the tail is: a
        // place where a token surely starts, whose decoded offset the bytes after it tell
        // (outputs run to megabytes, and the tail is the last few kilobytes of them).
        if !jumped && let Some((_, head_end)) = head {
            jumped = true;
            if let Some((q, dq)) = near_tail(b, len, tail_from(head_end), at.saturating_add(jump)) {
                (at, d) = (q, dq);
            }
        }
        // A run of bytes that decode to themselves, then an escape (or the end).
        let hit = next_backslash(b, at).unwrap_or(b.len());
        let run_end = d + (hit - at);
        if head.is_none() && head_at <= run_end {
            let mut p = at + (head_at - d);
            while p > at && continues(p) {
                p -= 1;
            }
            head = Some((p, d + (p - at)));
        }
        if let Some((_, head_end)) = head {
            let from = tail_from(head_end);
            if from <= run_end {
                let mut p = at + (from - d);
                while p < hit && continues(p) {
                    p += 1;
                }
                break p;
            }
        }
        if hit == b.len() {
            break b.len();
        }
        let (taken, width) = escape_size(b, hit);
        let after = run_end + width;
        if head.is_none() && head_at < after {
            head = Some((hit, run_end));
        }
        if let Some((_, head_end)) = head
            && tail_from(head_end) < after
        {
            break if tail_from(head_end) == run_end {
                hit
            } else {
                hit + taken
            };
        }
        at = hit + taken;
        d = after;
    };
    let head = head.map_or(b.len(), |(p, _)| p);
    let decoded = |part: &str| decode_str(&format!("\"{part}\"")).map(Cow::into_owned);
    Some((decoded(inner.get(..head)?)?, decoded(inner.get(tail..)?)?))
}

/// Walks shorter than this go on from where they are rather than jump.
const JUMP: usize = 4096;

/// A place of a string's text `b` (decoded length `len`) after `after` from which a walk can
/// find the decoded offset `want`: an offset where a token starts, and its decoded offset, at
/// or before `want`. `None` when there is none.
fn near_tail(b: &[u8], len: usize, want: usize, after: usize) -> Option<(usize, usize)> {
    // A decoded byte takes at most 6 bytes of the text, so that the last `back` bytes hold
    // more than what follows `want`.
    let back = len.checked_sub(want)?.saturating_mul(6).saturating_add(16);
    let from = b.len().checked_sub(back).filter(|&from| from > after)?;
    let q = token_start(b, from)?;
    let dq = len.checked_sub(decoded_len_of(&b[q..]))?;
    (dq <= want).then_some((q, dq))
}

/// The first offset at or after `from` (but not the first) where a token of a string's text
/// `b` surely starts: not inside a character, and right after a byte that cannot be inside an
/// escape, only end one — not a backslash, a `u` or a hex digit. Such a byte ends a character
/// or a two-byte escape such as `\n`; either way a token starts after it. `None` when there is
/// no such place before the end.
fn token_start(b: &[u8], from: usize) -> Option<usize> {
    (from.max(1)..b.len()).find(|&q| {
        let c = b[q - 1];
        c != b'\\' && c != b'u' && !c.is_ascii_hexdigit() && b[q] & 0xC0 != 0x80
    })
}

/// The offset of the first `\` of `bytes` at or after `from`. Runs between escapes are often a
/// line of text, so the search takes a mask of 64 bytes at a time (see [`specials`]) rather than
/// a searcher call per escape. In a string's text a backslash is the only special JSON allows;
/// in a whole JSON text the quotes are stepped over.
fn next_backslash(bytes: &[u8], mut from: usize) -> Option<usize> {
    while from < bytes.len() {
        let mut mask = specials(bytes, from);
        while mask != 0 {
            let at = from + mask.trailing_zeros() as usize;
            match bytes.get(at) {
                Some(b'\\') => return Some(at),
                Some(_) => mask &= mask - 1,
                None => return None,
            }
        }
        from += 64;
    }
    None
}

/// Whether a string's text (quotes stripped) holds a `\` escape. Also true, needlessly but
/// harmlessly (decoding then copies the same bytes), where text that is no JSON string holds a
/// raw `"` or control character.
fn has_escape(inner: &[u8]) -> bool {
    // Most decoded strings are short keys and ids (a uuid is 36 bytes): up to 64 bytes they are
    // looked at 16 at a time, the last 16 overlapping, where a memchr call cost more than the
    // look. Inside a JSON string, the one special byte [`specials16`] can find is a `\`.
    match inner.len() {
        0..16 => {
            // Padded with spaces, which are no special.
            let mut part = [b' '; 16];
            part[..inner.len()].copy_from_slice(inner);
            specials16(&part) != 0
        }
        16..=64 => {
            let last = inner.len() - 16;
            let mut starts = (0..last).step_by(16).chain([last]);
            starts.any(|at| {
                inner[at..]
                    .first_chunk()
                    .is_some_and(|part| specials16(part) != 0)
            })
        }
        _ => memchr::memchr(b'\\', inner).is_some(),
    }
}

/// The decoded string as bytes for comparing: UTF-8, except that each lone surrogate escape is
/// encoded as the three bytes UTF-8 would give its code point (WTF-8). Those bytes never occur in
/// UTF-8, so different strings always have different keys: `"\ud800"` equals neither `"\udc00"`
/// nor any character. Without a lone surrogate the key is the decoded text itself.
///
/// `raw` is JSON string text, quotes included; as bytes, it need not be checked for UTF-8 again
/// when it was cut from a line that was.
pub fn decode_key<R: AsRef<[u8]> + ?Sized>(raw: &R) -> Option<Cow<'_, [u8]>> {
    let bytes = raw.as_ref().strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    if !has_escape(bytes) {
        return Some(Cow::Borrowed(bytes));
    }
    // Runs between escapes are copied whole; only the escapes are looked at one by one.
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while let Some(hit) = next_backslash(bytes, at) {
        out.extend_from_slice(&bytes[at..hit]);
        at = hit;
        let Some(&escape) = bytes.get(at + 1) else {
            break;
        };
        at += 2;
        let decoded = match escape {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'u' => {
                let unit = hex4(bytes, &mut at);
                push_unit(&mut out, unit, bytes, &mut at);
                continue;
            }
            // `"`, `\\`, `/` stand for themselves (and so, leniently, does anything else).
            other => other,
        };
        out.push(decoded);
    }
    out.extend_from_slice(&bytes[at..]);
    Some(Cow::Owned(out))
}

/// Appends the character of the `\\u` escape `unit` (read just before `at`): a high surrogate
/// followed by a low one's escape is one character, and a lone surrogate is kept as WTF-8.
fn push_unit(out: &mut Vec<u8>, unit: u32, bytes: &[u8], at: &mut usize) {
    if (0xD800..0xDC00).contains(&unit) && bytes.get(*at..*at + 2) == Some(b"\\u") {
        let mut look = *at + 2;
        let low = hex4(bytes, &mut look);
        if (0xDC00..0xE000).contains(&low) {
            *at = look;
            let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
            return push_char(out, char::from_u32(c).unwrap_or('\u{FFFD}'));
        }
    }
    if (0xD800..0xE000).contains(&unit) {
        return push_surrogate(out, unit);
    }
    push_char(out, char::from_u32(unit).unwrap_or('\u{FFFD}'));
}

fn push_char(out: &mut Vec<u8>, c: char) {
    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
}

/// Writes `text` (a key from [`decode_key`]: UTF-8, lone surrogates in generalized UTF-8) as a
/// JSON string, spelled as serde_json spells strings: `"` and `\\` escaped, `\n \r \t \b \f` as
/// such, other controls as `\u00xx`, everything else as it is; a lone surrogate as `\udxxx`.
pub fn encode_str(text: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    // 0xED starts a lone surrogate's bytes (and Hangul's): such text goes a byte at a time;
    // other text from one escape to the next, found 64 bytes at a time (see [`specials`]).
    if memchr::memchr(0xED, text).is_some() {
        encode_wtf8(text, out);
    } else {
        let mut start = 0;
        let mut from = 0;
        while from < text.len() {
            let mut mask = specials(text, from);
            while mask != 0 {
                let i = from + mask.trailing_zeros() as usize;
                if i >= text.len() {
                    break;
                }
                out.extend_from_slice(&text[start..i]);
                escape_byte(text[i], out);
                start = i + 1;
                mask &= mask - 1;
            }
            from += 64;
        }
        out.extend_from_slice(&text[start..]);
    }
    out.push(b'"');
}

/// [`encode_str`]'s body for text that may hold lone surrogates.
fn encode_wtf8(text: &[u8], out: &mut Vec<u8>) {
    let mut start = 0;
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        if b < 0x20 || b == b'"' || b == b'\\' {
            out.extend_from_slice(&text[start..i]);
            escape_byte(b, out);
            i += 1;
            start = i;
        } else if b == 0xED && text.get(i + 1).is_some_and(|n| (0xA0..=0xBF).contains(n)) {
            out.extend_from_slice(&text[start..i]);
            let unit = (u32::from(b & 0x0F) << 12)
                | (u32::from(text[i + 1] & 0x3F) << 6)
                | u32::from(text.get(i + 2).copied().unwrap_or(0x80) & 0x3F);
            out.extend_from_slice(format!("\\u{unit:04x}").as_bytes());
            i += 3;
            start = i;
        } else {
            i += 1;
        }
    }
    out.extend_from_slice(&text[start.min(text.len())..]);
}

/// The escape of `b` (a quote, a backslash or a control), as serde_json spells it.
fn escape_byte(b: u8, out: &mut Vec<u8>) {
    let escape: &[u8] = match b {
        b'"' => b"\\\"",
        b'\\' => b"\\\\",
        b'\n' => b"\\n",
        b'\r' => b"\\r",
        b'\t' => b"\\t",
        0x08 => b"\\b",
        0x0c => b"\\f",
        _ => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 15)],
            ]);
            return;
        }
    };
    out.extend_from_slice(escape);
}

fn push_surrogate(out: &mut Vec<u8>, unit: u32) {
    out.extend_from_slice(&[
        0xE0 | (unit >> 12) as u8,
        0x80 | ((unit >> 6) & 0x3F) as u8,
        0x80 | (unit & 0x3F) as u8,
    ]);
}

/// A key from [`decode_key`] as text, each lone surrogate shown as U+FFFD.
pub fn lossy_key(key: &[u8]) -> String {
    let mut out = String::with_capacity(key.len());
    let mut rest = key;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(text) => {
                out.push_str(text);
                break;
            }
            Err(e) => {
                let good = e.valid_up_to();
                out.push_str(std::str::from_utf8(&rest[..good]).unwrap_or_default());
                out.push('\u{FFFD}');
                // A surrogate's three bytes, or whatever single byte is not UTF-8.
                let bad = match rest.get(good..good + 3) {
                    Some([0xED, 0xA0..=0xBF, 0x80..=0xBF]) => 3,
                    _ => e.error_len().unwrap_or(rest.len() - good).max(1),
                };
                rest = &rest[good + bad..];
            }
        }
    }
    out
}

/// `text` with each lone surrogate escape (`"\ud800"`: valid JSON, but no character) spelled as
/// `\ufffd`, which serde_json decodes instead of failing on the whole item.
pub fn lone_surrogates_replaced(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let unit = |at: usize| -> Option<u16> {
        if b.get(at..at + 2)? != b"\\u" {
            return None;
        }
        let hex = std::str::from_utf8(b.get(at + 2..at + 6)?).ok()?;
        u16::from_str_radix(hex, 16).ok()
    };
    let mut out = String::new();
    let (mut copied, mut at) = (0, 0);
    while let Some(found) = next_backslash(b, at) {
        at = found;
        match unit(at) {
            Some(0xD800..=0xDBFF) if matches!(unit(at + 6), Some(0xDC00..=0xDFFF)) => at += 12,
            Some(0xD800..=0xDFFF) => {
                out.push_str(&text[copied..at]);
                out.push_str("\\ufffd");
                at += 6;
                copied = at;
            }
            Some(_) => at += 6,
            None => at += 2, // any other escape, `\\` included
        }
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// The code unit of the four hex digits at `at`, if they are four hex digits.
fn unit_at(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    digits.iter().try_fold(0, |n, &d| {
        let v = (d as char).to_digit(16)?;
        Some(n << 4 | v)
    })
}

/// The `\\u` escape at `at` of a string's bytes: how many bytes it takes and how many its
/// character decodes to. A surrogate pair is one character of four bytes; a lone surrogate
/// decodes to U+FFFD, of three. `None` unless four hex digits follow the `\\u`.
fn unicode_escape(bytes: &[u8], at: usize) -> Option<(usize, usize)> {
    let unit = unit_at(bytes, at + 2)?;
    Some(match unit {
        0..0x80 => (6, 1),
        0x80..0x800 => (6, 2),
        0xD800..0xDC00
            if bytes.get(at + 6..at + 8) == Some(b"\\u")
                && unit_at(bytes, at + 8).is_some_and(|low| (0xDC00..0xE000).contains(&low)) =>
        {
            (12, 4)
        }
        _ => (6, 3),
    })
}

/// How many bytes the escape at `at` of a string's bytes takes, and how many its character
/// decodes to (a `\\u` escape without its four digits as one byte, as [`decode_str`] reads it).
fn escape_size(bytes: &[u8], at: usize) -> (usize, usize) {
    if bytes.get(at + 1) == Some(&b'u') {
        unicode_escape(bytes, at).unwrap_or((6, 1))
    } else {
        (2, 1)
    }
}

/// The four hex digits at `at` as a number, `at` moved past them; a digit that is missing or
/// not hex counts as 0 (only ASCII bytes are taken, so a character is never split).
fn hex4(bytes: &[u8], at: &mut usize) -> u32 {
    let mut n = 0;
    for _ in 0..4 {
        let digit = match bytes.get(*at) {
            Some(&b) if b.is_ascii() => {
                *at += 1;
                char::from(b).to_digit(16).unwrap_or(0)
            }
            _ => 0,
        };
        n = n * 16 + digit;
    }
    n
}

/// An object's key, as [`Parser::object`] meets it.
#[derive(Debug, Clone, Copy)]
pub struct Key<'a> {
    raw: &'a str,
    /// The scan that found it saw an escape (else its name is its text between the quotes).
    escaped: bool,
}

impl<'a> Key<'a> {
    /// The key as the text spells it, quotes included.
    pub fn raw(self) -> &'a str {
        self.raw
    }

    /// The key decoded; borrowed from the text unless it holds an escape, which the string scan
    /// already told (a key is compared with names at every member of every line).
    pub fn name(self) -> Cow<'a, str> {
        if self.escaped {
            decode_str(self.raw).unwrap_or_default()
        } else {
            Cow::Borrowed(&self.raw[1..self.raw.len() - 1])
        }
    }
}

/// The decoded string at `range` of `text`, if it is a string.
pub fn string_at<'t>(text: &'t str, range: &Option<Range<usize>>) -> Option<Cow<'t, str>> {
    range.as_ref().and_then(|r| decode_str(&text[r.clone()]))
}

/// The line as text: UTF-8 checked with the fast validator, located with the standard one.
pub(crate) fn utf8(line: &[u8]) -> std::result::Result<&str, ParseError> {
    simdutf8::basic::from_utf8(line).map_err(|_| {
        let at = std::str::from_utf8(line)
            .err()
            .map_or(0, |e| e.valid_up_to());
        ParseError::InvalidUtf8 { at }
    })
}

/// `text` with each range replaced, ranges in order.
pub fn splice<S: AsRef<[u8]>>(text: &str, edits: Vec<(Range<usize>, S)>, out: &mut Vec<u8>) {
    let mut at = 0;
    for (range, replacement) in edits {
        out.extend_from_slice(&text.as_bytes()[at..range.start]);
        out.extend_from_slice(replacement.as_ref());
        at = range.end;
    }
    out.extend_from_slice(&text.as_bytes()[at..]);
}

/// Shown for a member nested deeper than serde_json decodes (its limit is 128 levels).
const TOO_DEEP: &str = "[nested too deep to show]";

/// A view entry as a `Value` to describe. Valid JSON that serde_json will not decode in full still
/// shows its type and ids: lone surrogates read as U+FFFD, and a member nested too deep is shown
/// as [`TOO_DEEP`].
pub fn value_lossy(text: &[u8]) -> Value {
    let text = String::from_utf8_lossy(text);
    let text = lone_surrogates_replaced(&text);
    if let Ok(item) = serde_json::from_str(&text) {
        return item;
    }
    // Raw members are skipped over without recursion, so only the deep ones are lost.
    let Ok(members) = serde_json::from_str::<BTreeMap<String, &RawValue>>(&text) else {
        return Value::Null;
    };
    let members = members.into_iter().map(|(key, raw)| {
        let value = serde_json::from_str(raw.get()).unwrap_or_else(|_| TOO_DEEP.into());
        (key, value)
    });
    Value::Object(members.collect())
}

/// Texts of a JSON string (without its quotes) made of `count` of `pieces`, characters and
/// escapes, for the property tests of the code that walks them.
#[cfg(test)]
pub(crate) fn string_texts(
    pieces: &[&'static str],
    count: Range<usize>,
) -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::strategy::Strategy;
    let piece = proptest::sample::select(pieces.to_vec());
    proptest::collection::vec(piece, count).prop_map(|pieces| pieces.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_is_cut_with_the_comma_that_joins_it() {
        let cut = |text: &str| {
            let range = member_cut(text, 0, "detail")?;
            let mut out = text.to_string();
            out.replace_range(range, "");
            Some(out)
        };
        assert_eq!(
            cut(r#"{"a":1,"detail":"high","b":2}"#).unwrap(),
            r#"{"a":1,"b":2}"#
        );
        assert_eq!(cut(r#"{"a":1, "detail" : "x" }"#).unwrap(), r#"{"a":1 }"#);
        assert_eq!(cut(r#"{"detail":null,"b":[1]}"#).unwrap(), r#"{"b":[1]}"#);
        assert_eq!(cut(r#"{"detail":{}}"#).unwrap(), "{}");
        assert_eq!(cut(r#"{"d\u0065tail":"x","b":2}"#).unwrap(), r#"{"b":2}"#);
        assert_eq!(cut(r#"{"a":1}"#), None);
        assert_eq!(cut("[1]"), None);
    }

    #[test]
    fn decoded_len_is_the_decoded_strings_length() {
        for raw in [
            r#""""#,
            r#""plain""#,
            r#""a\nb\t\"c\\""#,
            r#""\u00e9\u20ac\u0041""#,
            r#""\ud83d\ude00 pair""#,
            r#""\ud800 lone high""#,
            r#""lone low \udc00""#,
            r#""\ud800\u0041""#,
            r#""\ud800\ud800\udc00""#,
            "\"raw é € 😀\"",
        ] {
            let decoded = decode_str(raw).unwrap();
            assert_eq!(decoded_len(raw), decoded.len(), "{raw}");
        }
    }

    fn members(text: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut p = Parser::new(text);
        p.object(|p, key| {
            let value = p.value()?;
            out.push((key.raw().to_string(), p.text()[value].to_string()));
            Ok(true)
        })
        .unwrap();
        p.end().unwrap();
        out
    }

    #[test]
    fn members_keep_raw_spelling() {
        let text = r#" { "a" : 1e400 , "b\"":{"x":[1,{"y":"]}"}]}, "c":"s\\\"" ,"d":null} "#;
        let got = members(text);
        let want = [
            (r#""a""#, "1e400"),
            (r#""b\"""#, r#"{"x":[1,{"y":"]}"}]}"#),
            (r#""c""#, r#""s\\\"""#),
            (r#""d""#, "null"),
        ];
        assert_eq!(
            got,
            want.map(|(k, v)| (k.to_string(), v.to_string())).to_vec()
        );
        assert_eq!(members("{}"), vec![]);
    }

    /// Every length around the 16-byte steps, a `\\` at every place or none.
    #[test]
    fn an_escape_is_found_wherever_it_is() {
        for len in 0..=80 {
            let plain = vec![b'a'; len];
            assert!(!has_escape(&plain), "{len}");
            for at in 0..len {
                let mut text = plain.clone();
                text[at] = b'\\';
                assert!(has_escape(&text), "{len} {at}");
            }
        }
    }

    /// A key's name is its text between the quotes unless the scan met an escape; a long key a
    /// walk stepped over is decoded like one with escapes.
    #[test]
    fn key_names_are_decoded_only_when_escaped() {
        let names = |p: &mut Parser<'_>| {
            let mut out = Vec::new();
            p.object(|_, key| {
                out.push((
                    key.name().into_owned(),
                    matches!(key.name(), Cow::Borrowed(_)),
                ));
                Ok(false)
            })
            .map(|_| out)
        };
        let text = r#"{"type":1,"t\u0079pe":2,"a\"b":3,"":4}"#;
        let want = [("type", true), ("type", false), ("a\"b", false), ("", true)];
        let want = want.map(|(k, b)| (k.to_string(), b)).to_vec();
        assert_eq!(names(&mut Parser::new(text)).unwrap(), want);
        let long = format!(r#"{{"{}\u0041":0}}"#, "k".repeat(LONG));
        let mut first = Parser::remembering(&long);
        first.value().unwrap();
        let known = first.long_strings();
        assert_eq!(known.len(), 1);
        let got = names(&mut Parser::knowing(&long, &known)).unwrap();
        assert_eq!(got, [(format!("{}A", "k".repeat(LONG)), false)]);
    }

    #[test]
    fn accepts_what_json_accepts() {
        for ok in [
            "0",
            "-0",
            "1.50",
            "-12e+3",
            "4E-2",
            "123456789012345678901234567890",
            r#""\ud800""#,
            r#""\u00e9\/\b\f\n\r\t""#,
            "[]",
            "[ ]",
            "{ }",
            r#"{"a":[true,false,null,{"b":{}}]}"#,
            "\t[1 ,2\r\n]\n",
            "\"\u{7f}\u{80}é\"",
        ] {
            assert_eq!(validate(ok), Ok(()), "{ok:?}");
            assert!(serde_json::from_str::<serde_json::Value>(ok).is_ok() || ok.contains("ud800"));
        }
    }

    #[test]
    fn rejects_what_json_rejects() {
        for bad in [
            "",
            " ",
            "01",
            "1.",
            ".5",
            "1e",
            "+1",
            "-",
            "NaN",
            "Infinity",
            "tru",
            "nul",
            "[1,]",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{a:1}",
            "{\"a\":}",
            "[1 2]",
            "\"\t\"",
            "\"\u{1}\"",
            r#""\x""#,
            r#""\u12g4""#,
            "\"open",
            "[[]",
            "{}}",
            "1 2",
            "\u{feff}{}",
        ] {
            assert!(validate(bad).is_err(), "{bad:?} accepted");
            assert!(
                serde_json::from_str::<&serde_json::value::RawValue>(bad).is_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn errors_say_where() {
        assert_eq!(
            validate(r#"{"a":1 "b":2}"#),
            Err(Error {
                at: 7,
                what: "expected `,` or `}`"
            })
        );
        assert_eq!(
            validate(r#"{"a":"#).map_err(|e| e.what),
            Err("EOF while expecting a value")
        );
    }

    #[test]
    fn deep_nesting_needs_no_stack() {
        let deep = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
        assert_eq!(validate(&format!(r#"{{"a":{deep},"b":2}}"#)), Ok(()));
        assert!(validate(&"[".repeat(200_000)).is_err());
    }

    /// Around the 16-byte steps a short string is settled in, and past them: its end found, an
    /// escape, a control character or the end of the text at each place met as serde_json
    /// meets it, and an escape's length counted wherever it is.
    #[test]
    fn short_strings_end_where_serde_ends_them() {
        for len in 0..100 {
            let body = "k".repeat(len);
            let text = format!(r#"["{body}",1]"#);
            let mut p = Parser::new(&text);
            p.seek(1);
            assert_eq!(p.scan_string(), Ok((1..len + 3, 0)), "{text}");
            for at in 0..=len {
                for special in ["\\n", "\\u00e9", "\\q", "\t", "\""] {
                    let doc = format!(r#"["{}{special}{}"]"#, &body[..at], &body[at..]);
                    assert_eq!(validate(&doc).is_ok(), serde_accepts(&doc), "{doc:?}");
                }
                for escape in ["\\n", "\\u00e9", "\\ud83d\\ude00"] {
                    let raw = format!(r#""{}{escape}{}""#, &body[..at], &body[at..]);
                    let (range, shrink) = Parser::new(&raw).scan_string().unwrap();
                    assert_eq!(range, 0..raw.len(), "{raw:?}");
                    assert_eq!(
                        raw.len() - 2 - shrink as usize,
                        decoded_len(&raw),
                        "{raw:?}"
                    );
                }
                let cut = format!(r#"["{}"#, &body[..at]);
                assert!(validate(&cut).is_err(), "{cut:?}");
            }
        }
    }

    fn serde_accepts(text: &str) -> bool {
        serde_json::from_str::<&serde_json::value::RawValue>(text).is_ok()
    }

    proptest::proptest! {
        /// Decoding a string's ends by jumping to its tail gives what walking to the tail
        /// gives, whatever the escapes, surrogates and characters around the jump. The end is
        /// dense with escapes so that the tail starts close to where the jump lands.
        #[test]
        fn ends_found_by_a_jump_are_the_ends_walked_to(
            body in string_texts(&[
                "a", "g", " ", "bc", "u", "é", "😀", "\\n", "\\\"", "\\\\", "\\/", "\\t", "\\b",
                "\\u0041", "\\u00e9", "\\u00E9", "\\u0800", "\\ud83d\\ude00", "\\ud800",
                "\\udc00", "\\ud800\\u0041", "\\\\u0041",
            ], 0..200),
            end in string_texts(&[
                "a", "é", "\\n", "\\\\", "\\u0041", "\\u00E9", "\\ud83d\\ude00", "\\ud800",
            ], 0..100),
            left in 0usize..100,
            right in 0usize..60,
        ) {
            let raw = format!("\"{body}{end}\"");
            let len = decoded_len(&raw);
            let walked = decode_ends_jumping(&raw, len, left, right, usize::MAX);
            let jumped = decode_ends_jumping(&raw, len, left, right, 0);
            proptest::prop_assert_eq!(jumped, walked, "{}", raw);
        }
    }

    /// Where the tokens of a string's text start, with their decoded offsets, walked from the
    /// start token by token.
    fn token_starts(b: &[u8]) -> Vec<(usize, usize)> {
        let (mut at, mut d, mut starts) = (0, 0, vec![]);
        while at < b.len() {
            starts.push((at, d));
            let (taken, width) = match b[at] {
                b'\\' => escape_size(b, at),
                0..=0x7F => (1, 1),
                0xC0..=0xDF => (2, 2),
                0xE0..=0xEF => (3, 3),
                _ => (4, 4),
            };
            (at, d) = (at + taken, d + width);
        }
        starts
    }

    proptest::proptest! {
        /// A jump lands where a token starts, at the decoded offset a walk from the start
        /// gives it, and not past the offset it was asked for.
        #[test]
        fn a_jump_lands_where_a_token_starts(
            text in string_texts(&[
                "a", "é", "😀", "u", "\\n", "\\\\", "\\\\\\\\", "\\u0041", "\\u00E9", "\\ud83d\\ude00",
                "\\ud800", "\\ud800\\u0041", "\\\\u0041", "\\uDC00",
            ], 0..100),
            from in proptest::prelude::any::<proptest::sample::Index>(),
            right in 0usize..60,
        ) {
            let b = text.as_bytes();
            let starts = token_starts(b);
            if let Some(q) = token_start(b, from.index(b.len() + 1)) {
                proptest::prop_assert!(starts.iter().any(|&(at, _)| at == q), "{} at {}", text, q);
            }
            let len = decoded_len_of(b);
            let want = len.saturating_sub(right);
            if let Some((q, dq)) = near_tail(b, len, want, 0) {
                proptest::prop_assert!(starts.contains(&(q, dq)), "{} at {}", text, q);
                proptest::prop_assert!(dq <= want);
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

        /// Token soup: mostly invalid, sometimes valid, always judged as serde_json judges it.
        #[test]
        fn agrees_with_serde_on_token_soup(
            tokens in proptest::collection::vec(proptest::sample::select(vec![
                "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\n", "0", "1", "-", "+",
                ".", "e", "E", "9", "a", "x", "true", "false", "null", "tru", " ", "\t", "\n",
                "\"k\":", "\"s\"", "\u{1}", "\u{7f}", "é", "d800", "\\ud800",
            ]), 0..24)
        ) {
            let text: String = tokens.concat();
            proptest::prop_assert_eq!(validate(&text).is_ok(), serde_accepts(&text), "{:?}", text);
        }

        /// Long strings, whose escapes and ends fall anywhere in and across 64-byte blocks.
        #[test]
        fn agrees_with_serde_on_long_strings(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "a", "abcdefghijklmnopq", "0123456789abcdef0123456789abcdef01", "é", "\\n",
                "\\\\", "\\\"", "\\u00e9", "\\ud83d\\ude00", "\\u12", "\\x", "\"", "\u{1f}",
                "\u{7f}", " ",
            ]), 0..64),
            tail in proptest::sample::select(vec!["\"", "\"}", "", "\\", "\\\""]),
        ) {
            let text = format!("{{\"s\":\"{}{tail}", pieces.concat());
            proptest::prop_assert_eq!(validate(&text).is_ok(), serde_accepts(&text), "{:?}", text);
        }

        /// Decoding by runs gives what serde_json decodes (lone surrogates, which it refuses,
        /// aside), and [`decoded_len`] its length.
        #[test]
        fn decodes_strings_as_serde_json_does(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "a", "abcdefghijklmnopq", "é", "日本", "\\n", "\\t", "\\r", "\\b", "\\f", "\\/",
                "\\\\", "\\\"", "\\u00e9", "\\u0000", "\\uD83D\\uDE00", "\\ud83d", "\\udc00", "\\uFFFF",
            ]), 0..40),
        ) {
            let raw = format!("\"{}\"", pieces.concat());
            let decoded = decode_str(&raw).map(Cow::into_owned);
            proptest::prop_assert_eq!(decoded_len(&raw), decoded.as_deref().map_or(0, str::len));
            if let Ok(expected) = serde_json::from_str::<String>(&raw) {
                proptest::prop_assert_eq!(decoded, Some(expected));
            }
        }

        #[test]
        fn encodes_long_strings_as_serde_json_does(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "a", "abcdefghijklmnopqrstuvwxyz0123456789", "é", "한", "\"", "\\", "\n", "\t",
                "\u{1}", "\u{1f}", "\u{7f}", "😀",
            ]), 0..80),
        ) {
            let text = pieces.concat();
            let mut out = Vec::new();
            encode_str(text.as_bytes(), &mut out);
            proptest::prop_assert_eq!(String::from_utf8(out).ok(), serde_json::to_string(&text).ok());
        }

        /// The decoded length a scan counts is the length of what the string decodes to.
        #[test]
        fn a_scan_counts_the_decoded_length(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "a", "é", "😀", "\\n", "\\\"", "\\\\", "\\/", "\\u0041", "\\u00e9", "\\u07ff",
                "\\u0800", "\\uffff", "\\ud83d\\ude00", "\\ud800", "\\udc00", "\\ud800\\u0041",
                "\\uDBFF\\uDFFF",
            ]), 0..200),
        ) {
            let raw = format!("\"{}\"", pieces.concat());
            let mut p = Parser::new(&raw);
            let (range, shrink) = p.scan_string().expect("a valid string");
            proptest::prop_assert_eq!(range, 0..raw.len());
            let decoded = raw.len() - 2 - shrink as usize;
            proptest::prop_assert_eq!(decoded, decoded_len(&raw));
            proptest::prop_assert_eq!(decoded, decode_str(&raw).expect("a string").len());
        }

        /// A walk handed the long strings of an earlier walk reads the same values as one
        /// that scans them.
        #[test]
        fn a_walk_that_knows_the_long_strings_reads_the_same(
            texts in proptest::collection::vec("[a-z\\\\\"\\n\u{e9}\u{1F600}]{0,400}", 1..6),
            nested in proptest::bool::ANY,
        ) {
            let strings: Vec<String> = texts.iter().map(|t| serde_json::to_string(t).unwrap()).collect();
            let doc = if nested {
                format!(r#"{{"a":[{}],"b":{{"c":{}}}}}"#, strings.join(","), strings[0])
            } else {
                format!("[{}]", strings.join(","))
            };
            let mut first = Parser::remembering(&doc);
            let scanned = walk(&mut first);
            let long = first.long_strings();
            proptest::prop_assert!(long.iter().all(|w| (w.end - w.at) as usize >= LONG));
            for w in &long {
                let raw = &doc[w.at as usize..w.end as usize];
                proptest::prop_assert_eq!(w.decoded as usize, decoded_len(raw), "{}", raw);
            }
            let mut again = Parser::knowing(&doc, &long);
            proptest::prop_assert_eq!(walk(&mut again), scanned);
        }

        #[test]
        fn specials_of_a_block_are_the_bytes_a_scan_stops_at(part: [u8; 16]) {
            proptest::prop_assert_eq!(specials16(&part), specials16_scalar(&part));
        }

        /// Valid documents with one byte cut out, one inserted, or one changed.
        #[test]
        fn agrees_with_serde_on_mutated_documents(
            doc in proptest::sample::select(vec![
                r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"a\nb \u00e9"}]}}"#,
                r#"[1.5e-3,-0,{"a":[true,false,null]},"\ud83d\ude00",[]]"#,
                r#"{"n":12345678901234567890,"f":-1.25E+10,"s":"\"\\\/\b\f\r\t"}"#,
            ]),
            at in 0usize..200,
            op in 0u8..3,
            byte in proptest::sample::select(b"{}[],:\"\\ 0-.eE+tx\t".to_vec()),
        ) {
            let mut bytes = doc.as_bytes().to_vec();
            let at = at % bytes.len();
            match op {
                0 => { bytes.remove(at); }
                1 => bytes.insert(at, byte),
                _ => bytes[at] = byte,
            }
            if let Ok(text) = std::str::from_utf8(&bytes) {
                proptest::prop_assert_eq!(validate(text).is_ok(), serde_accepts(text), "{:?}", text);
            }
        }
    }

    /// Every value range of the value at `p`, in order.
    fn walk(p: &mut Parser<'_>) -> Vec<Range<usize>> {
        fn go(p: &mut Parser<'_>, out: &mut Vec<Range<usize>>) -> Result<Range<usize>> {
            let range = match p.peek() {
                Some(b'{') => p.object(|p, _| go(p, out).map(|_| true))?,
                Some(b'[') => p.array(|p| go(p, out).map(|_| true))?,
                _ => p.value()?,
            };
            out.push(range.clone());
            Ok(range)
        }
        let mut out = Vec::new();
        go(p, &mut out).expect("valid");
        out
    }

    /// A known string is stepped over, not scanned: the walk takes its end from what it is
    /// handed, as long as a quote is there.
    #[test]
    fn a_known_string_is_not_scanned_again() {
        let long = "x".repeat(LONG);
        let doc = format!(r#"["{long}","{long}"]"#);
        let mut first = Parser::remembering(&doc);
        walk(&mut first);
        let known = first.long_strings();
        let walked = |at, end| Walked {
            at,
            end,
            decoded: LONG as u32,
        };
        let second = LONG as u32 + 4;
        assert_eq!(
            known,
            [
                walked(1, LONG as u32 + 3),
                walked(second, second + LONG as u32 + 2)
            ]
        );
        let elements = |known: &[Walked]| {
            let mut n = 0;
            let mut p = Parser::knowing(&doc, known);
            p.array(|_| {
                n += 1;
                Ok(false)
            })
            .map(|_| n)
        };
        assert_eq!(elements(&known), Ok(2));
        // Told that the first string ends where the second does, the walk believes it.
        let wrong = [Walked {
            end: known[1].end,
            ..known[0]
        }];
        assert_eq!(elements(&wrong), Ok(1));
        // Told an end that is no quote (the text changed since), it scans the string.
        let changed = [Walked {
            end: known[0].end - 1,
            ..known[0]
        }];
        assert_eq!(elements(&changed), Ok(2));
        let beyond = [Walked {
            end: doc.len() as u32 + 9,
            ..known[0]
        }];
        assert_eq!(elements(&beyond), Ok(2));
    }

    /// A walk that starts far into a text does not pass over the strings known before it one
    /// by one: each item of a replacement history is checked by a walk of its own, and a line
    /// holds hundreds of thousands of them.
    #[test]
    fn a_seek_passes_the_known_strings_before_it() {
        let long = "x".repeat(LONG);
        let doc = format!(r#"["{long}","{long}",{{"a":"{long}"}}]"#);
        let mut first = Parser::remembering(&doc);
        let all = walk(&mut first);
        let known = first.long_strings();
        assert_eq!(known.len(), 3);
        let object = all.iter().rev().nth(1).unwrap().start;
        let mut p = Parser::knowing(&doc, &known);
        p.seek(object);
        assert_eq!(p.known, &known[2..]);
        let mut scanning = Parser::new(&doc);
        scanning.seek(object);
        assert_eq!(walk(&mut p), walk(&mut scanning));
    }

    #[test]
    fn decodes_escapes_and_surrogates() {
        assert_eq!(decode_str(r#""plain""#).as_deref(), Some("plain"));
        assert_eq!(
            decode_str(r#""a\n\t\"\\\/\u00e9\ud83d\ude00""#).as_deref(),
            Some("a\n\t\"\\/é😀")
        );
        assert_eq!(decode_str(r#""\ud800x""#).as_deref(), Some("\u{FFFD}x"));
        assert_eq!(decode_str(r#""\udc00""#).as_deref(), Some("\u{FFFD}"));
        assert_eq!(decode_str("12"), None);
        let key = |raw| decode_key(raw).map(Cow::into_owned);
        assert_ne!(key(r#""\ud800""#), key(r#""\udc00""#));
        assert_ne!(key(r#""\ud800""#), key(r#""\ufffd""#));
        assert_eq!(key(r#""\ud800""#), key(r#""\uD800""#));
        assert_eq!(key(r#""a\ud83d\ude00""#), key(r#""a😀""#));
        assert_eq!(
            lossy_key(&key(r#""a\ud800b\udfff""#).unwrap()),
            "a\u{FFFD}b\u{FFFD}"
        );
    }

    #[test]
    fn encodes_strings_as_serde_json_does() {
        for text in ["plain", "q\"b\\s/\n\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f}é😀", ""] {
            let mut out = Vec::new();
            encode_str(text.as_bytes(), &mut out);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string(text).unwrap()
            );
        }
        let mut out = Vec::new();
        encode_str(&decode_key(r#""a\uD800b\udfff""#).unwrap(), &mut out);
        assert_eq!(out, br#""a\ud800b\udfff""#);
    }

    /// Issue 14: a lone surrogate was "answered" by the private-use character its old key used.
    #[test]
    fn lone_surrogate_keys_equal_no_character() {
        let key = |raw: &str| decode_key(raw).map(Cow::into_owned);
        for c in [
            '\u{10F000}',
            '\u{10F3FF}',
            '\u{FFFD}',
            '\u{D7FF}',
            '\u{E000}',
        ] {
            let text = serde_json::to_string(&c.to_string()).unwrap();
            for lone in [r#""\ud800""#, r#""\udbff""#, r#""\udc00""#, r#""\udfff""#] {
                assert_ne!(key(lone), key(&text), "{lone} vs {c:?}");
            }
        }
    }

    #[test]
    fn items_serde_json_cannot_decode_still_show_their_type() {
        let deep = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
        let item = value_lossy(
            format!(r#"{{"type":"function_call","call_id":"\udfff","x":{deep}}}"#).as_bytes(),
        );
        assert_eq!(
            item,
            serde_json::json!({"type": "function_call", "call_id": "\u{fffd}", "x": TOO_DEEP})
        );
    }
}
