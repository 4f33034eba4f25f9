//! The prompt view, agent-neutral: what every dialect's view offers the renderers. A view is a plan
//! over its history (computed from headers); entries are made into text only as they are printed,
//! reading their spans again. Renderers print what a view says and never re-derive its rules.

use std::io;

use crate::source::SpanReader;

/// How a view entry came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A history entry, byte for byte.
    Kept,
    /// A history entry with parts replaced, truncated or moved.
    Changed,
    /// Made by the repairs: nothing in the log stands for it.
    Synthetic,
}

/// One entry of the view as JSON text.
pub(crate) struct Entry<'a> {
    pub origin: Origin,
    pub text: &'a [u8],
}

/// How many bytes of input (and at most how many steps) one thread works on at a time, and
/// how many such parts are worked on before their results are taken: memory stays a few parts'
/// worth whatever the view's size.
pub(crate) const PART_BYTES: u64 = 1 << 20;
pub(crate) const PART_STEPS: usize = 4096;
pub(crate) const PARTS_AT_ONCE: usize = 8;

/// Works on `steps` in parts of at most `part_steps` steps and about `part_bytes` of input (as
/// `bytes` counts a step; a step of `part_bytes` or more is a part of its own), each part read
/// with a reader of its own, and hands each part's result to `take`, in order. With `parallel`,
/// a batch of parts is worked on the pool while this thread takes the batch before it; else
/// each part in turn, here.
pub(crate) fn in_parts<T: Send + Sync, R: Send>(
    steps: impl Iterator<Item = T>,
    (part_bytes, part_steps): (u64, usize),
    bytes: impl Fn(&T) -> u64,
    work: impl Fn(&[T], &mut SpanReader<'_>) -> io::Result<R> + Sync,
    reader: &SpanReader<'_>,
    parallel: bool,
    mut take: impl FnMut(R) -> io::Result<()>,
) -> io::Result<()> {
    use rayon::prelude::*;
    let mut steps = steps.peekable();
    let mut batch = || {
        let mut parts: Vec<(Vec<T>, u64)> = Vec::new();
        let at_once = if parallel { PARTS_AT_ONCE } else { 1 };
        while parts.len() < at_once && steps.peek().is_some() {
            let (mut part, mut size) = (Vec::new(), 0);
            while size < part_bytes && part.len() < part_steps {
                match steps.peek() {
                    Some(next) if part.is_empty() || bytes(next) < part_bytes => {}
                    _ => break,
                }
                let Some(step) = steps.next() else { break };
                size += bytes(&step);
                part.push(step);
            }
            parts.push((part, size));
        }
        (!parts.is_empty()).then_some(parts)
    };
    let run = |parts: Vec<(Vec<T>, u64)>| -> io::Result<Vec<R>> {
        let one = |(part, size): &(Vec<T>, u64)| {
            let mut reader = reader.sibling((*size).clamp(64 << 10, 4 << 20) as usize);
            work(part, &mut reader)
        };
        if parallel && parts.len() > 1 {
            parts.par_iter().map(one).collect()
        } else {
            parts.iter().map(one).collect()
        }
    };
    let mut ready = batch().map(run);
    while let Some(results) = ready {
        let results = results?;
        let next = batch();
        let mut taken = Ok(());
        ready = if parallel && next.is_some() {
            let mut worked = None;
            rayon::in_place_scope(|scope| {
                scope.spawn(|_| worked = next.map(run));
                taken = results.into_iter().try_for_each(&mut take);
            });
            worked
        } else {
            taken = results.into_iter().try_for_each(&mut take);
            next.map(run)
        };
        taken?;
    }
    Ok(())
}

/// The entries of one part: their texts one after another, and where each ends.
#[derive(Default)]
struct Made {
    bytes: Vec<u8>,
    ends: Vec<(Origin, usize)>,
}

/// The `part_steps` of [`entries_in_parts`] for a view printed on every core: `None`, one
/// entry at a time on this thread, when there is only one.
pub(crate) fn part_steps() -> Option<usize> {
    crate::pipeline::threads_available().then_some(PART_STEPS)
}

/// Where [`entries_in_parts`] puts the entries it makes.
pub(crate) enum Sink<'a> {
    /// Each entry, in turn.
    Each(&'a mut dyn FnMut(Entry<'_>) -> io::Result<()>),
    /// Every entry as one JSON line. A part's lines are written in one piece, straight from
    /// the buffer they were made in: handed over one entry at a time they were copied into the
    /// output's buffer first, a tenth of a Codex `repair-view`.
    Lines(&'a mut dyn io::Write),
}

/// Hands `sink` the entry `make` writes for every step, in order ([`in_parts`] with
/// `part_steps`, one at a time here with `None`). `make` appends an entry's text to the buffer
/// it is given and gives its origin, or `None` (and appends nothing) for a step with no entry.
pub(crate) fn entries_in_parts<T: Send + Sync>(
    steps: impl Iterator<Item = T>,
    bytes: impl Fn(&T) -> u64 + Sync,
    make: impl Fn(&T, &mut SpanReader<'_>, &mut Vec<u8>) -> io::Result<Option<Origin>> + Sync,
    reader: &mut SpanReader<'_>,
    sink: Sink<'_>,
    part_steps: Option<usize>,
) -> io::Result<()> {
    let lines = matches!(sink, Sink::Lines(_));
    let Some(part_steps) = part_steps else {
        let mut text = Vec::new();
        let mut sink = sink;
        for step in steps {
            text.clear();
            if let Some(origin) = make(&step, reader, &mut text)? {
                match &mut sink {
                    Sink::Each(each) => each(Entry {
                        origin,
                        text: &text,
                    })?,
                    Sink::Lines(out) => {
                        text.push(b'\n');
                        out.write_all(&text)?;
                    }
                }
            }
        }
        return Ok(());
    };
    let work = |part: &[T], reader: &mut SpanReader<'_>| {
        // The entries go straight into the part's buffer, sized from the steps' input first:
        // written into a buffer of their own and copied, and grown by doubling, they were
        // copied twice over (9% of a Codex view's instructions).
        let mut made = Made::default();
        made.bytes
            .reserve(part.iter().map(&bytes).sum::<u64>() as usize);
        for step in part {
            if let Some(origin) = make(step, reader, &mut made.bytes)? {
                if lines {
                    made.bytes.push(b'\n');
                } else {
                    made.ends.push((origin, made.bytes.len()));
                }
            }
        }
        Ok(made)
    };
    let sizes = (PART_BYTES, part_steps);
    match sink {
        Sink::Each(each) => {
            let print = |made: Made| {
                let mut start = 0;
                for (origin, end) in made.ends {
                    each(Entry {
                        origin,
                        text: &made.bytes[start..end],
                    })?;
                    start = end;
                }
                Ok(())
            };
            in_parts(steps, sizes, &bytes, work, reader, true, print)
        }
        Sink::Lines(out) => {
            let print = |made: Made| out.write_all(&made.bytes);
            in_parts(steps, sizes, &bytes, work, reader, true, print)
        }
    }
}

/// What the diff shows of one change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Change {
    pub sign: Sign,
    /// `view #3` or `history #3` (1-based).
    pub position: String,
    pub head: String,
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sign {
    Inserted,
    Removed,
    Modified,
}

/// A view's size against its history's, for the diff's first line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shape {
    /// What the history is made of, named for the diff (`items`, `messages`).
    pub history: u64,
    pub history_unit: &'static str,
    pub view: u64,
    pub view_unit: &'static str,
    /// What the view was made for, e.g. `modalities text,image`.
    pub settings: String,
}

/// What a dialect's prompt view offers the renderers.
pub(crate) trait PromptView {
    fn shape(&self) -> Shape;

    /// Calls `each` with every entry, in order.
    fn entries(
        &self,
        reader: &mut SpanReader<'_>,
        each: &mut dyn FnMut(Entry<'_>) -> io::Result<()>,
    ) -> io::Result<()>;

    /// Writes every entry as one JSON line, in order (what [`PromptView::entries`] gives,
    /// each followed by `\n`).
    fn lines(&self, reader: &mut SpanReader<'_>, out: &mut dyn io::Write) -> io::Result<()>;

    /// Calls `each` with every change, in order; returns the diff's closing line.
    fn changes(
        &self,
        reader: &mut SpanReader<'_>,
        each: &mut dyn FnMut(Change) -> io::Result<()>,
    ) -> io::Result<String>;

    /// A transcript entry for people: its heading, a mark for a changed or synthetic entry, and
    /// the lines of its body (raw log text: the renderer makes it terminal-safe).
    fn describe(&self, entry: &Entry<'_>) -> (String, Option<&'static str>, Vec<String>);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries made in parts come out as one at a time, in order, whichever sink takes them,
    /// over many batches of parts.
    #[test]
    fn entries_made_in_parts_are_the_entries_made_one_at_a_time() {
        // Steps of every size up to a few parts' bytes; every seventh has no entry.
        let steps: Vec<u64> = (0..3_000u64).map(|i| (i * 7919) % 1500).collect();
        let make = |&step: &u64, _: &mut SpanReader<'_>, text: &mut Vec<u8>| {
            if step % 7 == 0 {
                return Ok(None);
            }
            let fill = b'a' + (step % 26) as u8;
            text.extend(std::iter::repeat_n(fill, step as usize));
            let origin = [Origin::Kept, Origin::Changed, Origin::Synthetic][step as usize % 3];
            Ok(Some(origin))
        };
        let bytes = |&step: &u64| step * 1000;
        let every_step = || steps.iter().copied();
        let print = |part_steps: Option<usize>| -> io::Result<_> {
            let mut reader = SpanReader::new(&[]);
            let mut each = Vec::new();
            let mut take = |e: Entry<'_>| {
                each.push((e.origin, e.text.to_vec()));
                Ok(())
            };
            let sink = Sink::Each(&mut take);
            entries_in_parts(every_step(), bytes, make, &mut reader, sink, part_steps)?;
            let mut lines = Vec::new();
            let sink = Sink::Lines(&mut lines);
            entries_in_parts(every_step(), bytes, make, &mut reader, sink, part_steps)?;
            Ok((each, lines))
        };
        let Ok(alone) = print(None) else {
            unreachable!("made without reading")
        };
        let (each, lines) = &alone;
        assert_eq!(each.len(), steps.iter().filter(|&s| s % 7 != 0).count());
        let joined: Vec<u8> = each
            .iter()
            .flat_map(|(_, text)| text.iter().copied().chain([b'\n']))
            .collect();
        assert_eq!(*lines, joined);
        for part_steps in [Some(1), Some(5), Some(PART_STEPS)] {
            // Not assert_eq!: the entries are megabytes, too many to print.
            let same = print(part_steps).ok().as_ref() == Some(&alone);
            assert!(same, "in parts of {part_steps:?} steps");
        }
    }
}
