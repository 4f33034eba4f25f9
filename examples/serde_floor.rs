//! Benchmark floor: how fast can a program that streams a file the way rollcall must (`read()` in
//! chunks of whole lines, so pipes work) merely check that every line is valid JSON with
//! serde_json, on as many threads as rollcall uses? `scripts/bench.sh` prints this beside rollcall:
//! replaying a log should cost no more than validating it.
//!
//! `cargo run --release --example serde_floor -- FILE` prints (to stderr) the line count and how many lines
//! were not valid JSON. The reading thread hands 1 MiB chunks ending on a line boundary to one
//! validator per core (`serde_json::from_slice::<IgnoredAny>` per line, a full strict parse that
//! builds nothing); a line longer than a chunk grows the chunk. Buffers go back to the reader to
//! be filled again, so steady state allocates nothing, as in rollcall.

use std::fs::File;
use std::io::{self, Read};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, mpsc};
use std::thread;

use serde::de::IgnoredAny;

const CHUNK_BYTES: usize = 1 << 20;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: serde_floor FILE");
        return ExitCode::from(2);
    };
    match run(&path) {
        // The count goes to stderr, as gen_rollout's summary does: stdout stays free.
        Ok((lines, invalid)) => {
            eprintln!("lines: {lines}, invalid: {invalid}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("serde_floor: {}: {err}", path.to_string_lossy());
            ExitCode::FAILURE
        }
    }
}

/// Lines, and lines that are not valid JSON.
fn run(path: &std::ffi::OsStr) -> io::Result<(u64, u64)> {
    let mut file = File::open(path)?;
    let workers = thread::available_parallelism().map_or(1, |n| n.get());
    let (send, receive) = mpsc::sync_channel::<Vec<u8>>(workers * 2);
    let receive = Arc::new(Mutex::new(receive));
    let (give_back, spare) = mpsc::channel::<Vec<u8>>();
    thread::scope(|scope| {
        let validators: Vec<_> = (0..workers)
            .map(|_| {
                let receive = Arc::clone(&receive);
                let give_back = give_back.clone();
                scope.spawn(move || {
                    let (mut lines, mut invalid) = (0u64, 0u64);
                    loop {
                        let next = receive.lock().map(|r| r.recv());
                        let Ok(Ok(chunk)) = next else { break };
                        let mut start = 0;
                        let ends = memchr::memchr_iter(b'\n', &chunk).chain([chunk.len()]);
                        for end in ends {
                            let line = &chunk[start..end];
                            start = end + 1;
                            if line.is_empty() {
                                continue;
                            }
                            lines += 1;
                            let parsed = serde_json::from_slice::<IgnoredAny>(line);
                            invalid += u64::from(parsed.is_err());
                        }
                        let _ = give_back.send(chunk);
                    }
                    (lines, invalid)
                })
            })
            .collect();
        drop(give_back);
        let read = read_chunks(&mut file, &send, &spare);
        drop(send);
        let mut total = (0, 0);
        for validator in validators {
            let (lines, invalid) = validator.join().unwrap_or_default();
            total = (total.0 + lines, total.1 + invalid);
        }
        read.map(|()| total)
    })
}

/// Reads `file` in chunks of whole lines (the last one may lack its `\n`) and sends each on.
fn read_chunks(
    file: &mut File,
    send: &mpsc::SyncSender<Vec<u8>>,
    spare: &mpsc::Receiver<Vec<u8>>,
) -> io::Result<()> {
    let mut carry = Vec::new();
    loop {
        // A buffer that comes back keeps its length: it is zeroed only where it grows, as
        // rollcall's chunker does, so the floor pays no memset per chunk.
        let mut buf = spare.try_recv().unwrap_or_default();
        let want = CHUNK_BYTES.max(carry.len() * 2);
        if buf.len() < want {
            buf.resize(want, 0);
        }
        buf[..carry.len()].copy_from_slice(&carry);
        let mut filled = carry.len();
        carry.clear();
        let mut at_end = false;
        while filled < buf.len() {
            match file.read(&mut buf[filled..]) {
                Ok(0) => {
                    at_end = true;
                    break;
                }
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if at_end {
            buf.truncate(filled);
            // A closed channel means the validators are gone; there is nobody to tell.
            if !buf.is_empty() {
                let _ = send.send(buf);
            }
            return Ok(());
        }
        match memchr::memrchr(b'\n', &buf[..filled]) {
            Some(last) => {
                carry.extend_from_slice(&buf[last + 1..filled]);
                buf.truncate(last + 1);
                if send.send(buf).is_err() {
                    return Ok(());
                }
            }
            // One line fills the whole chunk: read on into a larger one.
            None => {
                buf.truncate(filled);
                carry = buf;
            }
        }
    }
}
