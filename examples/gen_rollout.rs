//! Benchmark input: a deterministic, std-only generator of large, realistic Codex-dialect rollouts.
//!
//! `cargo run --release --example gen_rollout -- --mb 1024 [--seed N] [--unanswered-every K]
//! [--compact-every T] OUT` streams a rollout of about N MiB to OUT (`-` for stdout): one
//! `session_meta`, then complete turns (context, user message, reasoning, tool calls and their
//! outputs, assistant message, token counts) with a `compacted` record every T turns, and finally one
//! unfinished turn whose last function call has no output. The same arguments always give the same
//! bytes (hand-written splitmix64, integer arithmetic only). A summary goes to stderr, including the
//! history length and unanswered calls that `rollcall` should find, so benchmarks can cross-check.
//!
//! `--content` picks what the bulk of the bytes looks like, so a benchmark can measure more than
//! the easy case: `mixed` (the default above), `images` (an image in every prompt, its bytes random
//! base64 with no known image header, as a damaged or foreign log holds), `escapes` (tool output
//! dense with quotes, backslashes, tabs and `\uXXXX`) or `outputs` (tool outputs of 64 KiB–2 MiB).

use std::collections::VecDeque;
use std::env;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::process;
use std::time::Instant;

const USAGE: &str = "\
usage: gen_rollout --mb N [--seed N] [--unanswered-every K] [--compact-every T]
                   [--content mixed|images|escapes|outputs] OUT

  --mb N                 size target in MiB (fractions allowed); one unfinished turn is
                         appended once the target is reached
  --seed N               PRNG seed (default 1); the same arguments give the same bytes
  --unanswered-every K   every K-th function_call gets no output (default 0: only the call
                         of the final, unfinished turn is unanswered)
  --compact-every T      write a `compacted` record every T turns (default 300, 0 = never)
  --content KIND         what most bytes are (default mixed): images = an image with no
                         known header in every prompt; escapes = quote- and backslash-dense
                         tool output; outputs = tool outputs of 64 KiB to 2 MiB
  OUT                    output path, or `-` for standard output
";

/// 2026-01-01T00:00:00Z in milliseconds since the Unix epoch.
const START_2026_MS: u64 = 1_767_225_600_000;
const CONTEXT_WINDOW: u64 = 272_000;
/// How many recent user prompts a compaction can carry over.
const RECENT_PROMPTS: usize = 16;

const HEX: &[u8; 16] = b"0123456789abcdef";
const B64_STD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64_URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

const CWDS: &[&str] = &[
    "/home/dev/src/widget",
    "/Users/alice/code/rollcall",
    "/workspace/app",
    "/home/dev/projets/résumé-builder",
    "C:\\Users\\bob\\source\\repos\\tracker",
];
const MODELS: &[&str] = &["gpt-5-codex", "gpt-5.1-codex", "gpt-5.1-codex-max", "gpt-5"];
const DIRS: &[&str] = &[
    "src",
    "src/replay",
    "src/cli",
    "tests",
    "tests/fixtures",
    "crates/core/src",
    "docs",
    "scripts",
    "web/src/components",
    "internal/store",
];
const FILES: &[&str] = &[
    "main.rs",
    "lib.rs",
    "mod.rs",
    "parser.rs",
    "config.toml",
    "README.md",
    "handler.py",
    "index.ts",
    "store.go",
    "schema.json",
    "Makefile",
    "test_replay.py",
    "App.tsx",
    "build.gradle.kts",
];
#[rustfmt::skip]
const WORDS: &[&str] = &[
    "the", "parser", "record", "line", "history", "call", "output", "turn", "session", "file",
    "error", "value", "returns", "reads", "writes", "skips", "keeps", "fails", "because", "when",
    "with", "without", "each", "buffer", "stream", "cache", "index", "offset", "byte", "UTF-8",
    "JSON", "replay", "rollout", "item", "function", "test", "fixture", "config", "path", "cursor",
    "window", "token", "model", "prompt", "view", "missing", "orphan", "synthetic", "compaction",
    "rollback", "image", "audio", "modalities", "deterministic", "quickly", "correctly", "again",
    "still", "now", "then", "first", "last", "every", "some",
];
const CODE: &[&str] = &[
    "    let line = line.trim_end_matches('\\r');",
    "    println!(\"{}\\t{}\", key, value);",
    "    return Err(format!(\"bad record at line {}: {:?}\", n, e));",
    "    if (x == null) { throw new Error(\"unexpected \\\"null\\\"\"); }",
    "def parse(path: str) -> dict:",
    "    with open(path, encoding=\"utf-8\") as f:",
    "        data = json.loads(f.read())",
    "  \"name\": \"widget\",",
    "#include <stdio.h>",
    "    printf(\"%s\\n\", buf);",
    "SELECT id, name FROM users WHERE email LIKE '%@example.com';",
    "    path = r\"C:\\Users\\dev\\AppData\\Local\\Temp\"",
    "    // TODO: handle CRLF line endings",
    "fn main() -> Result<(), Box<dyn std::error::Error>> {",
    "\tfmt.Fprintf(w, \"%d items\\n\", len(items))",
    "}",
    "",
];
const UNICODE: &[&str] = &[
    "✓ all checks passed",
    "naïve café résumé — déjà vu",
    "日本語のテキストを処理しています",
    "Größe überschritten: 12 МБ",
    "🚀 deployed to staging 🎉",
    "→ warning: ∑ of weights ≠ 1.0",
    "emoji test: 😀😃😄 👍🏽",
    "Привет, мир",
    "中文字符 和 标点。",
    "العربية نص تجريبي",
];
const COMMANDS: &[&str] = &[
    "rg -n \"fn replay\" src",
    "sed -n '1,160p' src/main.rs",
    "cargo test -q 2>&1 | tail -n 40",
    "git status --short && git diff --stat",
    "ls -la",
    "grep -R \"TODO\\|FIXME\" --include='*.rs' .",
    "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"type\"])' < x.json",
    "find . -name '*.jsonl' -size +1M",
    "cat Cargo.toml",
    "printf 'a\\tb\\n' | column -t",
    "jq -c '.payload | select(.type == \"function_call\")' rollout.jsonl | head",
    "npm test -- --watch=false",
    "go test ./... 2>&1 | head -n 80",
];
const PROMPTS: &[&str] = &[
    "Fix the failing test.",
    "Why does `cargo build` fail with \"error[E0425]: cannot find value\"?",
    "Add a --json flag to the report command.",
    "Refactor the loader to stream the file instead of reading it all at once.",
    "Please review my last change and point out anything risky.",
    "Translate the error messages to 日本語 and keep the English ones as a fallback.",
    "The CI run is red on Windows (paths like C:\\tmp\\x). Can you look?",
    "Write a property test for the pairing invariant.",
    "Summarize what changed since yesterday.",
    "Make the output deterministic; two runs differ in key order.",
    "continue",
];
const PLAN_STATUSES: &[&str] = &["completed", "in_progress", "pending"];

/// splitmix64: tiny, fast and plenty for synthetic data; integer-only so output is portable.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` by multiply-shift; the bias is far below anything a benchmark notices.
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    fn percent(&mut self, p: u64) -> bool {
        self.below(100) < p
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }

    /// Roughly log-uniform in `lo..=hi`: a uniform power-of-two band, then uniform inside it,
    /// so small sizes are common and large ones still occur.
    fn log_size(&mut self, lo: u64, hi: u64) -> usize {
        let bits = self.range(
            u64::from(64 - lo.leading_zeros()),
            u64::from(64 - hi.leading_zeros()),
        );
        let band_lo = (1u64 << (bits - 1)).max(lo);
        let band_hi = ((1u64 << bits) - 1).min(hi);
        self.range(band_lo, band_hi) as usize
    }
}

/// Text buffers the generator appends to: the record line (`Vec<u8>`) and scratch strings.
trait Sink {
    fn put(&mut self, s: &str);
    fn put_ascii(&mut self, b: u8);
}

impl Sink for Vec<u8> {
    fn put(&mut self, s: &str) {
        self.extend_from_slice(s.as_bytes());
    }
    fn put_ascii(&mut self, b: u8) {
        self.push(b);
    }
}

impl Sink for String {
    fn put(&mut self, s: &str) {
        self.push_str(s);
    }
    fn put_ascii(&mut self, b: u8) {
        self.push(char::from(b));
    }
}

/// Decimal `n`, zero-padded to at least `width` digits.
fn put_padded(out: &mut impl Sink, mut n: u64, width: usize) {
    let mut digits = [b'0'; 20];
    let mut start = digits.len();
    while n > 0 || start == digits.len() {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    start = start.min(digits.len() - width);
    for &d in &digits[start..] {
        out.put_ascii(d);
    }
}

fn put_num(out: &mut impl Sink, n: u64) {
    put_padded(out, n, 1);
}

/// Milliseconds as seconds with three decimals, e.g. `0.412`.
fn put_seconds(out: &mut impl Sink, ms: u64) {
    put_num(out, ms / 1000);
    out.put_ascii(b'.');
    put_padded(out, ms % 1000, 3);
}

fn put_hex(out: &mut impl Sink, rng: &mut Rng, len: usize) {
    for _ in 0..len {
        out.put_ascii(HEX[rng.below(16) as usize]);
    }
}

/// A random (version 4) UUID, lower-case and hyphenated.
fn uuid(rng: &mut Rng) -> String {
    let hi = rng.next_u64() & !0xF000 | 0x4000;
    let lo = rng.next_u64() & !(0b11 << 62) | 1 << 63;
    let hex = format!("{hi:016x}{lo:016x}");
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// An OpenAI-style id: `prefix` then `len` hex digits, e.g. `call_68c1…`.
fn prefixed_id(rng: &mut Rng, prefix: &str, len: usize) -> String {
    let mut id = String::with_capacity(prefix.len() + len);
    id.push_str(prefix);
    put_hex(&mut id, rng, len);
    id
}

/// Random base64 text of exactly `len` bytes (no escaping needed in JSON).
fn put_base64(out: &mut Vec<u8>, rng: &mut Rng, len: usize, alphabet: &[u8; 64]) {
    let start = out.len();
    out.resize(start + len, 0);
    for chunk in out[start..].chunks_mut(10) {
        let mut bits = rng.next_u64();
        for b in chunk {
            *b = alphabet[(bits & 63) as usize];
            bits >>= 6;
        }
    }
}

/// `s` as a JSON string literal: `"`, `\` and control characters escaped, other text verbatim.
fn put_json(out: &mut impl Sink, s: &str) {
    out.put_ascii(b'"');
    put_json_inner(out, s);
    out.put_ascii(b'"');
}

/// The body of a JSON string literal, without the quotes.
fn put_json_inner(out: &mut impl Sink, s: &str) {
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        out.put(&s[start..i]);
        put_escape(out, b);
        start = i + 1;
    }
    out.put(&s[start..]);
}

/// Like [`put_json_inner`], but non-ASCII characters become `\uXXXX` (surrogate pairs included),
/// as writers with "ensure ASCII" output produce them.
fn put_json_inner_ascii(out: &mut impl Sink, s: &str) {
    for c in s.chars() {
        if c.is_ascii() {
            let b = c as u8;
            if b >= 0x20 && b != b'"' && b != b'\\' {
                out.put_ascii(b);
            } else {
                put_escape(out, b);
            }
            continue;
        }
        let mut units = [0u16; 2];
        for &unit in c.encode_utf16(&mut units).iter() {
            out.put("\\u");
            for shift in [12, 8, 4, 0] {
                out.put_ascii(HEX[usize::from(unit >> shift & 15)]);
            }
        }
    }
}

fn put_escape(out: &mut impl Sink, b: u8) {
    match b {
        b'"' => out.put("\\\""),
        b'\\' => out.put("\\\\"),
        b'\n' => out.put("\\n"),
        b'\r' => out.put("\\r"),
        b'\t' => out.put("\\t"),
        0x08 => out.put("\\b"),
        0x0c => out.put("\\f"),
        _ => {
            out.put("\\u00");
            out.put_ascii(HEX[usize::from(b >> 4)]);
            out.put_ascii(HEX[usize::from(b & 15)]);
        }
    }
}

/// `2026-03-04T05:06:07.089Z`.
fn put_timestamp(out: &mut impl Sink, ms: u64) {
    let secs = ms / 1000;
    let (year, month, day) = civil_from_days(secs / 86_400);
    let second_of_day = secs % 86_400;
    put_padded(out, year, 4);
    out.put_ascii(b'-');
    put_padded(out, month, 2);
    out.put_ascii(b'-');
    put_padded(out, day, 2);
    out.put_ascii(b'T');
    put_padded(out, second_of_day / 3600, 2);
    out.put_ascii(b':');
    put_padded(out, second_of_day / 60 % 60, 2);
    out.put_ascii(b':');
    put_padded(out, second_of_day % 60, 2);
    out.put_ascii(b'.');
    put_padded(out, ms % 1000, 3);
    out.put_ascii(b'Z');
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day); Howard Hinnant's algorithm.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

fn put_path(out: &mut impl Sink, rng: &mut Rng) {
    out.put(rng.pick(DIRS));
    out.put_ascii(b'/');
    out.put(rng.pick(FILES));
}

/// Between `min` and `max` words, space-separated.
fn put_words(out: &mut impl Sink, rng: &mut Rng, min: u64, max: u64) {
    for i in 0..rng.range(min, max) {
        if i > 0 {
            out.put_ascii(b' ');
        }
        out.put(rng.pick(WORDS));
    }
}

/// Appends about `len` bytes of tool output: listings, grep hits, source lines, compiler
/// diagnostics, tabs, ANSI colours, carriage returns, non-ASCII text and the odd raw control byte.
fn put_tool_output(out: &mut String, rng: &mut Rng, len: usize) {
    let end = out.len() + len;
    while out.len() < end {
        match rng.below(100) {
            0..=13 => {
                out.put("-rw-r--r--  1 dev staff ");
                put_num(out, rng.range(0, 99_999));
                out.put(" Mar ");
                put_num(out, rng.range(1, 28));
                out.put(" 12:");
                put_padded(out, rng.below(60), 2);
                out.put_ascii(b' ');
                put_path(out, rng);
            }
            14..=27 => {
                put_path(out, rng);
                out.put_ascii(b':');
                put_num(out, rng.range(1, 2000));
                out.put_ascii(b':');
                out.put(rng.pick(CODE));
            }
            28..=41 => out.put(rng.pick(CODE)),
            42..=48 => {
                out.put("warning: unused variable: `");
                out.put(rng.pick(WORDS));
                out.put("`\n  --> ");
                put_path(out, rng);
                out.put_ascii(b':');
                put_num(out, rng.range(1, 900));
                out.put_ascii(b':');
                put_num(out, rng.range(1, 80));
                out.put("\n   |\n   = note: `#[warn(unused_variables)]` on by default");
            }
            49..=57 => {
                out.put("test ");
                out.put(rng.pick(WORDS));
                out.put("::tests::");
                put_words(out, rng, 1, 1);
                out.put_ascii(b'_');
                put_words(out, rng, 1, 1);
                out.put(" ... ");
                out.put(rng.pick(&["ok", "ok", "ok", "ok", "FAILED", "ignored"]));
            }
            58..=62 => out.put(rng.pick(UNICODE)),
            63..=69 => {
                put_num(out, rng.below(5000));
                out.put_ascii(b'\t');
                put_num(out, rng.below(5000));
                out.put_ascii(b'\t');
                put_path(out, rng);
            }
            70..=74 => {
                out.put(rng.pick(&["\u{1b}[32mPASS\u{1b}[0m ", "\u{1b}[1;31mFAIL\u{1b}[0m "]));
                put_path(out, rng);
                out.put(" (");
                put_num(out, rng.range(1, 4000));
                out.put(" ms)");
            }
            75..=81 => {
                out.put(rng.pick(&[" M ", "?? ", " D ", "A  "]));
                put_path(out, rng);
            }
            82..=88 => {
                out.put("{\"level\":\"info\",\"ts\":");
                put_num(out, START_2026_MS / 1000 + rng.below(10_000_000));
                out.put(",\"msg\":\"");
                put_words(out, rng, 2, 7);
                out.put("\",\"path\":\"/api/v1/");
                out.put(rng.pick(WORDS));
                out.put("\",\"status\":200}");
            }
            89..=93 => {
                for _ in 0..rng.range(1, 4) {
                    out.put("Downloading crates ... ");
                    put_num(out, rng.below(100));
                    out.put("%\r");
                }
                out.put("Downloaded 12 crates");
            }
            _ => {
                put_words(out, rng, 3, 12);
                out.put(rng.pick(&["", "", "", "\u{0}", "\u{7}", "\u{7f}", "\u{c}", "\u{8}"]));
            }
        }
        out.put_ascii(b'\n');
    }
    let mut cut = end;
    while !out.is_char_boundary(cut) {
        cut -= 1;
    }
    out.truncate(cut);
}

/// Appends about `len` bytes of output whose JSON form is dense with escapes: JSON log lines
/// (quotes), Windows paths and regular expressions (backslashes), tab-indented tables, and
/// non-ASCII text, so that a JSON string holds an escape every few bytes.
fn put_escape_dense_output(out: &mut String, rng: &mut Rng, len: usize) {
    let end = out.len() + len;
    while out.len() < end {
        match rng.below(6) {
            0 | 1 => {
                out.put("{\"level\":\"");
                out.put(rng.pick(&["info", "warn", "debug"]));
                out.put("\",\"msg\":\"");
                put_words(out, rng, 1, 4);
                out.put("\",\"file\":\"");
                put_path(out, rng);
                out.put("\",\"n\":");
                put_num(out, rng.below(10_000));
                out.put_ascii(b'}');
            }
            2 => {
                out.put("C:\\Users\\dev\\");
                out.put(rng.pick(DIRS));
                out.put_ascii(b'\\');
                out.put(rng.pick(FILES));
                out.put(": \"");
                put_words(out, rng, 1, 3);
                out.put_ascii(b'"');
            }
            3 => {
                for _ in 0..rng.range(2, 6) {
                    out.put_ascii(b'\t');
                    put_num(out, rng.below(1000));
                }
                out.put("\t\"");
                out.put(rng.pick(WORDS));
                out.put_ascii(b'"');
            }
            4 => out.put(rng.pick(&[
                r#"re: "^\s*(\w+)\s*=\s*\"([^\"]*)\"$""#,
                r#"assert_eq!(s, "a\tb\\c\"d");"#,
                r#"printf("%s\n", "\"quoted\"");"#,
            ])),
            _ => out.put(rng.pick(UNICODE)),
        }
        out.put_ascii(b'\n');
    }
}

/// Appends at least `len` bytes of Markdown prose: sentences, bullets, inline code, code fences.
fn put_prose(out: &mut String, rng: &mut Rng, len: usize) {
    let end = out.len() + len;
    while out.len() < end {
        match rng.below(12) {
            0 => {
                out.put("\n\n- ");
                put_words(out, rng, 4, 12);
            }
            1 => {
                out.put(" `");
                put_path(out, rng);
                out.put_ascii(b'`');
            }
            2 => {
                out.put("\n\n```rust\n");
                for _ in 0..rng.range(2, 6) {
                    out.put(rng.pick(CODE));
                    out.put_ascii(b'\n');
                }
                out.put("```\n\n");
            }
            3 => {
                out.put(" **");
                put_words(out, rng, 1, 3);
                out.put("**");
            }
            4 => {
                out.put_ascii(b' ');
                out.put(rng.pick(UNICODE));
            }
            _ => {
                out.put_ascii(b' ');
                put_words(out, rng, 5, 16);
                out.put_ascii(b'.');
            }
        }
    }
}

/// What the bulk of the generated bytes looks like (`--content`).
#[derive(Clone, Copy, PartialEq)]
enum Content {
    Mixed,
    Images,
    Escapes,
    Outputs,
}

impl Content {
    fn parse(value: Option<String>) -> Result<Content, String> {
        match value.as_deref() {
            Some("mixed") => Ok(Content::Mixed),
            Some("images") => Ok(Content::Images),
            Some("escapes") => Ok(Content::Escapes),
            Some("outputs") => Ok(Content::Outputs),
            Some(other) => Err(format!(
                "--content: {other} is not one of mixed, images, escapes, outputs"
            )),
            None => Err("--content needs a value".to_owned()),
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Tool {
    Shell,
    ShellCommand,
    ExecCommand,
    UpdatePlan,
    Mcp,
    ViewImage,
}

impl Tool {
    fn pick(rng: &mut Rng) -> Tool {
        match rng.below(100) {
            0..=54 => Tool::Shell,
            55..=66 => Tool::ShellCommand,
            67..=76 => Tool::ExecCommand,
            77..=86 => Tool::UpdatePlan,
            87..=98 => Tool::Mcp,
            _ => Tool::ViewImage,
        }
    }
}

struct Opts {
    target_bytes: u64,
    seed: u64,
    unanswered_every: u64,
    compact_every: u64,
    content: Content,
    out: String,
}

/// `Ok(None)` means `--help`.
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Opts>, String> {
    fn number<T: std::str::FromStr>(flag: &str, value: Option<String>) -> Result<T, String> {
        let value = value.ok_or_else(|| format!("{flag} needs a value"))?;
        value
            .parse()
            .map_err(|_| format!("{flag}: not a valid number: {value}"))
    }
    let (mut mb, mut seed, mut unanswered_every, mut compact_every, mut out) =
        (None, 1, 0, 300, None);
    let mut content = Content::Mixed;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--mb" => mb = Some(number::<f64>("--mb", args.next())?),
            "--seed" => seed = number("--seed", args.next())?,
            "--unanswered-every" => unanswered_every = number("--unanswered-every", args.next())?,
            "--compact-every" => compact_every = number("--compact-every", args.next())?,
            "--content" => content = Content::parse(args.next())?,
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            _ if out.is_some() => return Err(format!("unexpected argument {arg}")),
            _ => out = Some(arg),
        }
    }
    let mb = mb.ok_or("--mb is required")?;
    if !(mb.is_finite() && mb > 0.0) {
        return Err(format!("--mb must be a positive number, not {mb}"));
    }
    Ok(Some(Opts {
        target_bytes: (mb * 1_048_576.0) as u64,
        seed,
        unanswered_every,
        compact_every,
        content,
        out: out.ok_or("missing OUT (a path, or - for stdout)")?,
    }))
}

#[derive(Default)]
struct Stats {
    bytes: u64,
    lines: u64,
    turns: u64,
    function_calls: u64,
    custom_tool_calls: u64,
    local_shell_calls: u64,
    unanswered: u64,
    /// Unanswered calls since the last compaction: the synthetic outputs the prompt view needs.
    unanswered_in_history: u64,
    /// Items `rollcall replay` should print (ghost snapshots are filtered out).
    history_items: u64,
    compactions: u64,
    images: u64,
}

/// The generator: session-wide settings, the PRNG, reusable buffers and the output.
struct Rollout<W: Write> {
    out: W,
    rng: Rng,
    /// The record being built; written out whole by [`Rollout::close`].
    line: Vec<u8>,
    /// Large generated text (tool output), escaped into `line`.
    text: String,
    /// JSON built to be embedded as a string (function arguments, legacy outputs).
    scratch: String,
    clock_ms: u64,
    thread_id: String,
    cwd: &'static str,
    model: &'static str,
    instructions: String,
    recent_prompts: VecDeque<String>,
    total_input_tokens: u64,
    total_cached_tokens: u64,
    total_output_tokens: u64,
    total_reasoning_tokens: u64,
    unanswered_every: u64,
    content: Content,
    stats: Stats,
}

impl<W: Write> Rollout<W> {
    fn new(out: W, seed: u64, unanswered_every: u64, content: Content) -> Self {
        let mut rng = Rng(seed);
        let thread_id = uuid(&mut rng);
        let clock_ms = START_2026_MS + rng.below(180 * 86_400_000);
        let cwd = rng.pick(CWDS);
        let model = rng.pick(MODELS);
        let mut instructions = String::from("Follow the repository conventions.");
        put_prose(&mut instructions, &mut rng, 600);
        Rollout {
            out,
            rng,
            line: Vec::with_capacity(1 << 20),
            text: String::with_capacity(1 << 16),
            scratch: String::with_capacity(1 << 16),
            clock_ms,
            thread_id,
            cwd,
            model,
            instructions,
            recent_prompts: VecDeque::new(),
            total_input_tokens: 0,
            total_cached_tokens: 0,
            total_output_tokens: 0,
            total_reasoning_tokens: 0,
            unanswered_every,
            content,
            stats: Stats::default(),
        }
    }

    /// Starts a record of `kind`; the caller appends the payload, then calls [`Rollout::close`].
    fn open(&mut self, kind: &str) {
        self.clock_ms += self.rng.range(3, 2500);
        self.line.clear();
        self.line.put("{\"timestamp\":\"");
        put_timestamp(&mut self.line, self.clock_ms);
        self.line.put("\",\"type\":\"");
        self.line.put(kind);
        self.line.put("\",\"payload\":");
    }

    fn close(&mut self) -> io::Result<()> {
        self.line.put("}\n");
        self.out.write_all(&self.line)?;
        self.stats.bytes += self.line.len() as u64;
        self.stats.lines += 1;
        Ok(())
    }

    /// A `response_item` record holding the item that `write_item` appends.
    fn response_item(&mut self, write_item: impl FnOnce(&mut Self)) -> io::Result<()> {
        self.open("response_item");
        write_item(self);
        self.stats.history_items += 1;
        self.close()
    }

    /// An `event_msg` record: `{"type":EVENT` then whatever `write_fields` appends, then `}`.
    fn event(&mut self, event: &str, write_fields: impl FnOnce(&mut Self)) -> io::Result<()> {
        self.open("event_msg");
        self.line.put("{\"type\":\"");
        self.line.put(event);
        self.line.put_ascii(b'"');
        write_fields(self);
        self.line.put_ascii(b'}');
        self.close()
    }

    fn session_meta(&mut self) -> io::Result<()> {
        self.open("session_meta");
        self.line.put("{\"id\":\"");
        self.line.put(&self.thread_id);
        self.line.put("\",\"timestamp\":\"");
        put_timestamp(&mut self.line, self.clock_ms);
        self.line.put("\",\"cwd\":");
        put_json(&mut self.line, self.cwd);
        self.line
            .put(",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.64.0\",\"instructions\":");
        put_json(&mut self.line, &self.instructions);
        self.line
            .put(",\"source\":\"cli\",\"model_provider\":\"openai\",\"git\":{\"commit_hash\":\"");
        put_hex(&mut self.line, &mut self.rng, 40);
        self.line.put(
            "\",\"branch\":\"main\",\"repository_url\":\"https://github.com/acme/widget.git\"}}",
        );
        self.close()
    }

    /// One turn. The last one stops after an unanswered function call, as if the agent died.
    fn turn(&mut self, unfinished: bool) -> io::Result<()> {
        self.stats.turns += 1;
        self.clock_ms += self.rng.range(5_000, 600_000);
        if self.rng.percent(2) {
            self.model = self.rng.pick(MODELS);
        }
        let turn_id = uuid(&mut self.rng);
        self.turn_context(&turn_id)?;
        self.event("task_started", |g| {
            g.line.put(",\"turn_id\":\"");
            g.line.put(&turn_id);
            g.line.put("\",\"model_context_window\":");
            put_num(&mut g.line, CONTEXT_WINDOW);
        })?;
        if self.stats.turns == 1 {
            self.response_item(Self::item_agents_md)?;
        }
        self.response_item(Self::item_environment_context)?;
        if self.rng.percent(10) {
            self.open("response_item");
            self.item_ghost_snapshot();
            self.close()?;
        }

        let mut prompt = String::from(self.rng.pick(PROMPTS));
        if self.rng.percent(40) {
            prompt.push_str(" Start with `");
            put_path(&mut prompt, &mut self.rng);
            prompt.push_str("`.");
        }
        if self.rng.percent(10) {
            prompt.push_str("\n\nHere is what I see:\n\n```\n");
            let len = self.rng.log_size(200, 4000);
            put_tool_output(&mut prompt, &mut self.rng, len);
            prompt.push_str("\n```");
        }
        self.event("user_message", |g| {
            g.line.put(",\"message\":");
            put_json(&mut g.line, &prompt);
            g.line.put(",\"images\":[]");
        })?;
        let image = self.content == Content::Images || self.rng.below(1000) < 30;
        self.stats.images += u64::from(image);
        self.response_item(|g| g.item_user_message(&prompt, image))?;
        if self.recent_prompts.len() == RECENT_PROMPTS {
            self.recent_prompts.pop_front();
        }
        self.recent_prompts.push_back(prompt);

        if unfinished {
            self.response_item(Self::item_reasoning)?;
            let call_id = prefixed_id(&mut self.rng, "call_", 24);
            self.stats.function_calls += 1;
            self.stats.unanswered += 1;
            self.stats.unanswered_in_history += 1;
            return self.response_item(|g| g.item_function_call(Tool::Shell, &call_id, true));
        }

        let calls = self.rng.range(1, 6);
        let mut done = 0;
        while done < calls {
            if done == 0 || self.rng.percent(40) {
                self.reasoning()?;
            }
            let parallel = if calls - done >= 2 && self.rng.percent(15) {
                self.rng.range(2, (calls - done).min(3))
            } else {
                1
            };
            if parallel > 1 {
                self.parallel_function_calls(parallel)?;
            } else {
                match self.rng.below(100) {
                    0..=84 => self.function_call()?,
                    85..=94 => self.custom_tool_call()?,
                    _ => self.local_shell_call()?,
                }
            }
            self.token_count()?;
            done += parallel;
        }

        if self.rng.percent(50) {
            self.reasoning()?;
        }
        let mut answer = String::new();
        let len = self.rng.log_size(200, 3000);
        put_prose(&mut answer, &mut self.rng, len);
        self.response_item(|g| g.item_assistant_message(&answer))?;
        self.event("agent_message", |g| {
            g.line.put(",\"message\":");
            put_json(&mut g.line, &answer);
        })?;
        self.token_count()?;
        if self.rng.percent(1) {
            return self.event("turn_aborted", |g| {
                g.line.put(",\"turn_id\":\"");
                g.line.put(&turn_id);
                g.line.put("\",\"reason\":\"interrupted\"");
            });
        }
        self.event("task_complete", |g| {
            g.line.put(",\"turn_id\":\"");
            g.line.put(&turn_id);
            g.line.put("\",\"last_agent_message\":");
            put_json(&mut g.line, &answer);
        })
    }

    fn turn_context(&mut self, turn_id: &str) -> io::Result<()> {
        let full_access = self.rng.percent(5);
        self.open("turn_context");
        self.line.put("{\"turn_id\":\"");
        self.line.put(turn_id);
        self.line.put("\",\"cwd\":");
        put_json(&mut self.line, self.cwd);
        if full_access {
            self.line.put(
                ",\"approval_policy\":\"never\",\"sandbox_policy\":{\"type\":\"danger-full-access\"}",
            );
        } else {
            self.line.put(
                ",\"approval_policy\":\"on-request\",\"sandbox_policy\":{\"type\":\"workspace-write\",\
                 \"writable_roots\":[],\"network_access\":false,\"exclude_tmpdir_env_var\":false,\
                 \"exclude_slash_tmp\":false}",
            );
        }
        self.line.put(",\"model\":\"");
        self.line.put(self.model);
        self.line
            .put("\",\"effort\":\"medium\",\"summary\":\"auto\"}");
        self.close()
    }

    fn reasoning(&mut self) -> io::Result<()> {
        self.response_item(Self::item_reasoning)?;
        if !self.rng.percent(50) {
            return Ok(());
        }
        self.event("agent_reasoning", |g| {
            g.line.put(",\"text\":\"**");
            put_words(&mut g.line, &mut g.rng, 3, 3);
            g.line.put("**\"");
        })
    }

    /// Whether the next function call goes unanswered under `--unanswered-every`.
    fn next_call_unanswered(&mut self) -> bool {
        self.stats.function_calls += 1;
        let unanswered = self.unanswered_every > 0
            && self
                .stats
                .function_calls
                .is_multiple_of(self.unanswered_every);
        self.stats.unanswered += u64::from(unanswered);
        self.stats.unanswered_in_history += u64::from(unanswered);
        unanswered
    }

    fn function_call(&mut self) -> io::Result<()> {
        let tool = Tool::pick(&mut self.rng);
        let call_id = prefixed_id(&mut self.rng, "call_", 24);
        let with_id = self.rng.percent(50);
        self.response_item(|g| g.item_function_call(tool, &call_id, with_id))?;
        if self.next_call_unanswered() {
            return Ok(());
        }
        self.stats.images += u64::from(tool == Tool::ViewImage);
        self.response_item(|g| g.item_function_output(tool, &call_id))
    }

    /// Several shell calls in a row, then their outputs (sometimes in reverse order).
    fn parallel_function_calls(&mut self, count: u64) -> io::Result<()> {
        let mut answered = Vec::new();
        for _ in 0..count {
            let call_id = prefixed_id(&mut self.rng, "call_", 24);
            let with_id = self.rng.percent(50);
            self.response_item(|g| g.item_function_call(Tool::Shell, &call_id, with_id))?;
            if !self.next_call_unanswered() {
                answered.push(call_id);
            }
        }
        if self.rng.percent(30) {
            answered.reverse();
        }
        for call_id in &answered {
            self.response_item(|g| g.item_function_output(Tool::Shell, call_id))?;
        }
        Ok(())
    }

    fn custom_tool_call(&mut self) -> io::Result<()> {
        self.stats.custom_tool_calls += 1;
        let call_id = prefixed_id(&mut self.rng, "call_", 24);
        let mut path = String::new();
        put_path(&mut path, &mut self.rng);
        self.response_item(|g| g.item_apply_patch(&call_id, &path))?;
        self.response_item(|g| {
            g.line
                .put("{\"type\":\"custom_tool_call_output\",\"call_id\":");
            put_json(&mut g.line, &call_id);
            g.line.put(",\"output\":");
            g.scratch.clear();
            g.scratch
                .put("{\"output\":\"Success. Updated the following files:\\nM ");
            put_json_inner(&mut g.scratch, &path);
            g.scratch
                .put("\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":");
            put_seconds(&mut g.scratch, g.rng.range(0, 200));
            g.scratch.put("}}");
            put_json(&mut g.line, &g.scratch);
            g.line.put_ascii(b'}');
        })
    }

    fn local_shell_call(&mut self) -> io::Result<()> {
        self.stats.local_shell_calls += 1;
        let call_id = prefixed_id(&mut self.rng, "call_", 24);
        self.response_item(|g| {
            g.line.put("{\"type\":\"local_shell_call\",\"id\":\"");
            put_hex(&mut g.line, &mut g.rng, 8);
            g.line.put("\",\"call_id\":");
            put_json(&mut g.line, &call_id);
            g.line.put(
                ",\"status\":\"completed\",\"action\":{\"type\":\"exec\",\"command\":[\"bash\",\"-lc\",",
            );
            put_json(&mut g.line, g.rng.pick(COMMANDS));
            g.line.put("],\"timeout_ms\":120000,\"working_directory\":");
            put_json(&mut g.line, g.cwd);
            g.line.put(",\"env\":null,\"user\":null}}");
        })?;
        self.response_item(|g| g.item_function_output(Tool::Shell, &call_id))
    }

    fn token_count(&mut self) -> io::Result<()> {
        let input = self.rng.range(8_000, 200_000);
        let cached = input * self.rng.range(50, 95) / 100;
        let output = self.rng.range(50, 3000);
        let reasoning = output * self.rng.range(0, 80) / 100;
        self.total_input_tokens += input;
        self.total_cached_tokens += cached;
        self.total_output_tokens += output;
        self.total_reasoning_tokens += reasoning;
        let total = [
            self.total_input_tokens,
            self.total_cached_tokens,
            self.total_output_tokens,
            self.total_reasoning_tokens,
        ];
        self.event("token_count", |g| {
            g.line.put(",\"info\":{\"total_token_usage\":");
            put_usage(&mut g.line, total);
            g.line.put(",\"last_token_usage\":");
            put_usage(&mut g.line, [input, cached, output, reasoning]);
            g.line.put(",\"model_context_window\":");
            put_num(&mut g.line, CONTEXT_WINDOW);
            g.line.put("},\"rate_limits\":{");
            for (i, (name, window)) in [("primary", 300), ("secondary", 10_080)]
                .into_iter()
                .enumerate()
            {
                if i > 0 {
                    g.line.put_ascii(b',');
                }
                g.line.put_ascii(b'"');
                g.line.put(name);
                g.line.put("\":{\"used_percent\":");
                put_num(&mut g.line, g.rng.below(100));
                g.line.put_ascii(b'.');
                put_num(&mut g.line, g.rng.below(10));
                g.line.put(",\"window_minutes\":");
                put_num(&mut g.line, window);
                g.line.put(",\"resets_in_seconds\":");
                put_num(&mut g.line, g.rng.below(window * 60));
                g.line.put_ascii(b'}');
            }
            g.line.put_ascii(b'}');
        })
    }

    /// A `compacted` record whose replacement history keeps the context messages, recent
    /// prompts, sometimes an answered call, and the summary; every call in it is answered.
    fn compacted(&mut self) -> io::Result<()> {
        let mut summary = String::from("Summary of the work so far:");
        let len = self.rng.log_size(800, 4000);
        put_prose(&mut summary, &mut self.rng, len);
        self.open("compacted");
        self.line.put("{\"message\":");
        put_json(&mut self.line, &summary);
        self.line.put(",\"replacement_history\":[");
        self.item_agents_md();
        self.line.put_ascii(b',');
        self.item_environment_context();
        let mut items = 2;
        let prompts = self
            .rng
            .range(2, (self.recent_prompts.len() as u64).clamp(2, 12));
        let skip = self.recent_prompts.len().saturating_sub(prompts as usize);
        let recent = std::mem::take(&mut self.recent_prompts);
        for prompt in recent.iter().skip(skip) {
            self.line.put_ascii(b',');
            self.item_user_message(prompt, false);
            items += 1;
        }
        self.recent_prompts = recent;
        if self.rng.percent(50) {
            let call_id = prefixed_id(&mut self.rng, "call_", 24);
            self.line.put_ascii(b',');
            self.item_function_call(Tool::Shell, &call_id, true);
            self.line.put_ascii(b',');
            self.item_function_output(Tool::Shell, &call_id);
            items += 2;
        }
        if self.rng.percent(30) {
            let mut answer = String::new();
            put_prose(&mut answer, &mut self.rng, 300);
            self.line.put_ascii(b',');
            self.item_assistant_message(&answer);
            items += 1;
        }
        if self.rng.percent(20) {
            self.line.put_ascii(b',');
            self.item_ghost_snapshot();
        }
        summary.insert_str(
            0,
            "Another language model started to solve this problem and produced a summary of its \
             thinking process.\n\n",
        );
        self.line.put_ascii(b',');
        self.item_user_message(&summary, false);
        items += 1;
        self.line.put("]}");
        self.stats.compactions += 1;
        self.stats.history_items = items;
        self.stats.unanswered_in_history = 0;
        self.close()
    }

    fn item_agents_md(&mut self) {
        self.line
            .put("{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"# AGENTS.md instructions for ");
        put_json_inner(&mut self.line, self.cwd);
        self.line.put("\\n\\n<INSTRUCTIONS>\\n");
        put_json_inner(&mut self.line, &self.instructions);
        self.line.put("\\n</INSTRUCTIONS>\"}]}");
    }

    fn item_environment_context(&mut self) {
        self.line.put(
            "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\
             \"<environment_context>\\n  <cwd>",
        );
        put_json_inner(&mut self.line, self.cwd);
        self.line.put(
            "</cwd>\\n  <approval_policy>on-request</approval_policy>\\n  <sandbox_mode>\
             workspace-write</sandbox_mode>\\n  <network_access>restricted</network_access>\\n  \
             <shell>bash</shell>\\n</environment_context>\"}]}",
        );
    }

    /// Filtered out of history by replay (SPEC §4), so it is not counted there.
    fn item_ghost_snapshot(&mut self) {
        self.line
            .put("{\"type\":\"ghost_snapshot\",\"ghost_commit\":{\"id\":\"");
        put_hex(&mut self.line, &mut self.rng, 40);
        self.line.put("\",\"parent\":\"");
        put_hex(&mut self.line, &mut self.rng, 40);
        self.line
            .put("\",\"preexisting_untracked_files\":[],\"preexisting_untracked_dirs\":[]}}");
    }

    fn item_user_message(&mut self, text: &str, image: bool) {
        self.line.put(
            "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":",
        );
        put_json(&mut self.line, text);
        self.line.put_ascii(b'}');
        if image {
            self.line.put_ascii(b',');
            self.put_image_part();
        }
        self.line.put("]}");
    }

    /// An `input_image` part with a 20–200 KB base64 PNG data URL; with `--content images`
    /// its bytes are random from the first one, so no image format is recognised.
    fn put_image_part(&mut self) {
        const PNG_HEADER: &str = "iVBORw0KGgoAAAANSUhEUgAA";
        let header = if self.content == Content::Images {
            ""
        } else {
            PNG_HEADER
        };
        let len = self.rng.log_size(20_000, 200_000) / 4 * 4;
        self.line
            .put("{\"type\":\"input_image\",\"image_url\":\"data:image/png;base64,");
        self.line.put(header);
        put_base64(
            &mut self.line,
            &mut self.rng,
            len - header.len() - 1,
            B64_STD,
        );
        self.line.put("=\"}");
    }

    fn item_assistant_message(&mut self, text: &str) {
        self.line.put(
            "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":",
        );
        put_json(&mut self.line, text);
        self.line.put("}]}");
    }

    fn item_reasoning(&mut self) {
        self.line
            .put("{\"type\":\"reasoning\",\"summary\":[{\"type\":\"summary_text\",\"text\":\"**");
        put_words(&mut self.line, &mut self.rng, 3, 3);
        self.line.put("**\\n\\n");
        self.text.clear();
        let len = self.rng.log_size(100, 800);
        put_prose(&mut self.text, &mut self.rng, len);
        put_json_inner(&mut self.line, &self.text);
        self.line
            .put("\"}],\"content\":null,\"encrypted_content\":\"gAAAAAB");
        let len = self.rng.log_size(1024, 8192) / 4 * 4;
        put_base64(&mut self.line, &mut self.rng, len - 7, B64_URL);
        self.line.put("\"}");
    }

    fn item_function_call(&mut self, tool: Tool, call_id: &str, with_id: bool) {
        let s = &mut self.scratch;
        s.clear();
        let name = match tool {
            Tool::Shell => {
                s.put("{\"command\":[\"bash\",\"-lc\",");
                put_json(s, self.rng.pick(COMMANDS));
                s.put("],\"workdir\":");
                put_json(s, self.cwd);
                s.put(",\"timeout_ms\":120000}");
                "shell"
            }
            Tool::ShellCommand => {
                s.put("{\"command\":");
                put_json(s, self.rng.pick(COMMANDS));
                s.put(",\"workdir\":");
                put_json(s, self.cwd);
                s.put_ascii(b'}');
                "shell_command"
            }
            Tool::ExecCommand => {
                s.put("{\"cmd\":");
                put_json(s, self.rng.pick(COMMANDS));
                s.put(",\"yield_time_ms\":1000,\"max_output_tokens\":6000}");
                "exec_command"
            }
            Tool::UpdatePlan => {
                s.put("{\"explanation\":\"");
                put_words(s, &mut self.rng, 8, 8);
                s.put("\",\"plan\":[");
                for i in 0..self.rng.range(2, 6) {
                    if i > 0 {
                        s.put_ascii(b',');
                    }
                    s.put("{\"step\":\"");
                    put_words(s, &mut self.rng, 5, 5);
                    s.put("\",\"status\":\"");
                    s.put(self.rng.pick(PLAN_STATUSES));
                    s.put("\"}");
                }
                s.put("]}");
                "update_plan"
            }
            Tool::Mcp => {
                s.put("{\"query\":\"");
                put_words(s, &mut self.rng, 3, 3);
                s.put(" is:open\",\"repo\":\"acme/widget\",\"per_page\":20}");
                "mcp__github__search_issues"
            }
            Tool::ViewImage => {
                s.put("{\"path\":\"/tmp/screenshot-");
                put_num(s, self.rng.below(1000));
                s.put(".png\"}");
                "view_image"
            }
        };
        self.line.put("{\"type\":\"function_call\"");
        if with_id {
            self.line.put(",\"id\":\"fc_");
            put_hex(&mut self.line, &mut self.rng, 48);
            self.line.put_ascii(b'"');
        }
        self.line.put(",\"name\":\"");
        self.line.put(name);
        self.line.put("\",\"arguments\":");
        put_json(&mut self.line, &self.scratch);
        self.line.put(",\"call_id\":");
        put_json(&mut self.line, call_id);
        self.line.put_ascii(b'}');
    }

    fn item_function_output(&mut self, tool: Tool, call_id: &str) {
        self.line
            .put("{\"type\":\"function_call_output\",\"call_id\":");
        put_json(&mut self.line, call_id);
        self.line.put(",\"output\":");
        match tool {
            Tool::Shell | Tool::ShellCommand | Tool::ExecCommand => self.put_shell_output(),
            Tool::UpdatePlan => self.line.put("\"Plan updated\""),
            Tool::Mcp => {
                // MCP results are JSON text inside the output string: escaped twice.
                let s = &mut self.scratch;
                s.clear();
                s.put("{\"total_count\":");
                put_num(s, self.rng.range(1, 500));
                s.put(",\"items\":[");
                let end = self.rng.log_size(200, 20_000);
                let mut first = true;
                while s.len() < end {
                    if !first {
                        s.put_ascii(b',');
                    }
                    first = false;
                    s.put("{\"number\":");
                    put_num(s, self.rng.range(1, 9999));
                    s.put(",\"title\":\"");
                    put_words(s, &mut self.rng, 6, 6);
                    s.put("\",\"body\":");
                    self.text.clear();
                    let len = self.rng.log_size(50, 3000);
                    put_tool_output(&mut self.text, &mut self.rng, len);
                    put_json(s, &self.text);
                    s.put_ascii(b'}');
                }
                s.put("]}");
                put_json(&mut self.line, &self.scratch);
            }
            Tool::ViewImage => {
                self.line
                    .put("[{\"type\":\"input_text\",\"text\":\"Image attached.\"},");
                self.put_image_part();
                self.line.put_ascii(b']');
            }
        }
        self.line.put_ascii(b'}');
    }

    /// Shell output as a string: mostly the current `Exit code: …\nOutput:\n…` text, sometimes
    /// the legacy JSON-in-a-string form, sometimes with non-ASCII escaped as `\uXXXX`.
    fn put_shell_output(&mut self) {
        self.text.clear();
        match self.content {
            Content::Escapes => {
                let len = self.rng.log_size(100, 30_000);
                put_escape_dense_output(&mut self.text, &mut self.rng, len);
            }
            Content::Outputs => {
                let len = self.rng.log_size(64 << 10, 2 << 20);
                put_tool_output(&mut self.text, &mut self.rng, len);
            }
            Content::Mixed | Content::Images => {
                let len = self.rng.log_size(100, 30_000);
                put_tool_output(&mut self.text, &mut self.rng, len);
            }
        }
        let exit_code = match self.rng.below(100) {
            0..=84 => 0,
            85..=94 => 1,
            95..=97 => 101,
            _ => 127,
        };
        let wall_ms = self.rng.log_size(5, 120_000) as u64;
        if self.rng.percent(30) {
            let s = &mut self.scratch;
            s.clear();
            s.put("{\"output\":");
            put_json(s, &self.text);
            s.put(",\"metadata\":{\"exit_code\":");
            put_num(s, exit_code);
            s.put(",\"duration_seconds\":");
            put_seconds(s, wall_ms);
            s.put("}}");
            put_json(&mut self.line, &self.scratch);
            return;
        }
        self.line.put("\"Exit code: ");
        put_num(&mut self.line, exit_code);
        self.line.put("\\nWall time: ");
        put_seconds(&mut self.line, wall_ms);
        self.line.put(" seconds\\nOutput:\\n");
        if self.rng.percent(10) {
            put_json_inner_ascii(&mut self.line, &self.text);
        } else {
            put_json_inner(&mut self.line, &self.text);
        }
        self.line.put_ascii(b'"');
    }

    fn item_apply_patch(&mut self, call_id: &str, path: &str) {
        self.text.clear();
        self.text.put("*** Begin Patch\n*** Update File: ");
        self.text.put(path);
        self.text.put("\n@@\n");
        for _ in 0..self.rng.range(3, 40) {
            self.text.put(self.rng.pick(&["-", "+", " ", " "]));
            self.text.put(self.rng.pick(CODE));
            self.text.put_ascii(b'\n');
        }
        self.text.put("*** End Patch\n");
        self.line
            .put("{\"type\":\"custom_tool_call\",\"status\":\"completed\",\"call_id\":");
        put_json(&mut self.line, call_id);
        if self.rng.percent(50) {
            self.line.put(",\"id\":\"ctc_");
            put_hex(&mut self.line, &mut self.rng, 48);
            self.line.put_ascii(b'"');
        }
        self.line.put(",\"name\":\"apply_patch\",\"input\":");
        put_json(&mut self.line, &self.text);
        self.line.put_ascii(b'}');
    }
}

/// `{"input_tokens":…,"cached_input_tokens":…,"output_tokens":…,"reasoning_output_tokens":…,
/// "total_tokens":…}` from `[input, cached, output, reasoning]`.
fn put_usage(out: &mut Vec<u8>, [input, cached, output, reasoning]: [u64; 4]) {
    out.put("{\"input_tokens\":");
    put_num(out, input);
    out.put(",\"cached_input_tokens\":");
    put_num(out, cached);
    out.put(",\"output_tokens\":");
    put_num(out, output);
    out.put(",\"reasoning_output_tokens\":");
    put_num(out, reasoning);
    out.put(",\"total_tokens\":");
    put_num(out, input + output);
    out.put_ascii(b'}');
}

fn generate(opts: &Opts, out: impl Write) -> io::Result<Stats> {
    let out = BufWriter::with_capacity(1 << 20, out);
    let mut rollout = Rollout::new(out, opts.seed, opts.unanswered_every, opts.content);
    rollout.session_meta()?;
    while rollout.stats.bytes < opts.target_bytes {
        rollout.turn(false)?;
        let turns = rollout.stats.turns;
        if opts.compact_every > 0
            && turns.is_multiple_of(opts.compact_every)
            && rollout.stats.bytes < opts.target_bytes
        {
            rollout.compacted()?;
        }
    }
    rollout.turn(true)?;
    rollout.out.flush()?;
    Ok(rollout.stats)
}

fn main() -> process::ExitCode {
    let Err(err) = run() else {
        return process::ExitCode::SUCCESS;
    };
    // A reader that has seen enough (`| head`) is no failure.
    let closed = err
        .root_cause()
        .downcast_ref::<io::Error>()
        .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe);
    if closed {
        return process::ExitCode::SUCCESS;
    }
    let _ = writeln!(io::stderr(), "gen_rollout: {err:#}");
    process::ExitCode::FAILURE
}

fn run() -> anyhow::Result<()> {
    use anyhow::Context as _;
    let opts = match parse_args(env::args().skip(1)) {
        Ok(Some(opts)) => opts,
        Ok(None) => return Ok(io::stdout().write_all(USAGE.as_bytes())?),
        Err(message) => {
            eprint!("gen_rollout: {message}\n\n{USAGE}");
            process::exit(2);
        }
    };
    let started = Instant::now();
    let stats = if opts.out == "-" {
        generate(&opts, io::stdout().lock()).context("writing the rollout to standard output")?
    } else {
        let file =
            File::create(&opts.out).with_context(|| format!("cannot create {}", opts.out))?;
        generate(&opts, file).with_context(|| format!("writing the rollout to {}", opts.out))?
    };
    let seconds = started.elapsed().as_secs_f64();
    let mut err = io::stderr().lock();
    writeln!(err, "bytes: {}", stats.bytes)?;
    writeln!(err, "lines: {}", stats.lines)?;
    writeln!(err, "turns: {} (the last one unfinished)", stats.turns)?;
    writeln!(
        err,
        "calls: {} ({} function_call, {} custom_tool_call, {} local_shell_call)",
        stats.function_calls + stats.custom_tool_calls + stats.local_shell_calls,
        stats.function_calls,
        stats.custom_tool_calls,
        stats.local_shell_calls
    )?;
    writeln!(err, "unanswered calls: {}", stats.unanswered)?;
    writeln!(
        err,
        "unanswered since last compaction: {}",
        stats.unanswered_in_history
    )?;
    writeln!(err, "history items: {}", stats.history_items)?;
    writeln!(err, "compactions: {}", stats.compactions)?;
    writeln!(err, "images: {}", stats.images)?;
    writeln!(
        err,
        "elapsed: {seconds:.2} s ({:.0} MiB/s)",
        stats.bytes as f64 / 1_048_576.0 / seconds.max(1e-9)
    )?;
    Ok(())
}
