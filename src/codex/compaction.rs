//! Legacy compaction (SPEC §2.2): a `compacted` record without a replacement history rebuilds the
//! history as current Codex does (`compact::build_compacted_history`): the newest user texts that
//! fit 20,000 tokens, the first that does not fit cut to what is left, then the summary message.
//!
//! Each compaction costs what was appended since the last one, not the whole history: the user
//! messages a compaction keeps stay at the front of the history with the prefix sums of their
//! costs, so the next one finds where its budget runs out in them by binary search.

use super::item::{Flags, Form, Item, ItemKind};
use super::truncate;

/// `COMPACT_USER_MESSAGE_MAX_TOKENS`.
pub(crate) const BUDGET: u64 = 20_000;

/// What the last legacy compaction left at the front of the history.
#[derive(Debug, Clone, Default)]
pub(crate) struct Kept {
    /// `history[..len]` are the user messages it kept; `history[len]` is its summary.
    pub len: usize,
    /// `sums[j] - sums[i]` is the cost of `history[i..j]`, for `i <= j <= len`.
    sums: Vec<u64>,
}

/// A user message's cost: its text's tokens.
pub(crate) fn cost(item: &Item) -> u64 {
    truncate::tokens_for_bytes(u64::from(item.aux))
}

/// Whether a legacy compaction collects this item: a user message with no contextual part that
/// is not an earlier summary.
pub(crate) fn collected(item: &Item) -> bool {
    item.kind == ItemKind::Message && item.has(Flags::USER) && !item.has(Flags::SUMMARY)
}

/// A kept user message as the compaction writes it: its id and text parts (no media).
fn rebuilt(item: Item) -> Item {
    let mut kept = match item.form() {
        Form::Verbatim => Item::new(
            item.src() as u16,
            item.span(),
            ItemKind::Message,
            Form::Rebuilt,
        ),
        Form::InterAgent | Form::Summary | Form::Rebuilt | Form::Owned => item,
    };
    kept.flags = item.flags & (Flags::USER | Flags::ROLE_USER);
    kept.prep = super::item::PrepCounts::default();
    kept.aux = item.aux;
    kept
}

/// The plan of one compaction: what stays of the front, which later messages are taken, and the
/// one message that is cut.
pub(crate) struct Plan {
    /// How many of the front's kept messages are dropped (the rest stay where they are).
    pub drop_front: usize,
    /// Messages taken from after the front, oldest first, already rebuilt.
    pub taken: Vec<Item>,
    /// The message cut to the budget left, and that budget (in tokens), if any.
    pub cut: Option<(Item, u64)>,
    /// Whether the cut message is the last one dropped from the front (it takes its place).
    pub cut_in_front: bool,
}

impl Kept {
    pub fn new(history: &[Item]) -> Kept {
        let mut sums = Vec::with_capacity(history.len() + 1);
        sums.push(0);
        for item in history {
            sums.push(sums[sums.len() - 1] + cost(item));
        }
        Kept {
            len: history.len(),
            sums,
        }
    }

    /// A rollback cut the history at `len`, inside this front: what is left of it stays a front
    /// (its prefix sums still hold), so the next compaction still costs only what came after.
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
        self.sums.truncate(self.len + 1);
    }

    /// The cost of the front's messages from `j` on.
    fn suffix(&self, j: usize) -> u64 {
        self.sums[self.len] - self.sums[j]
    }

    /// Plans the compaction of `history`, whose first `self.len` items are this front.
    pub fn plan(&self, history: &[Item]) -> Plan {
        let mut remaining = BUDGET;
        let mut taken = Vec::new();
        let later = history[self.len.min(history.len())..]
            .iter()
            .filter(|i| collected(i));
        for item in later.rev() {
            if remaining == 0 {
                return self.after_later(taken, None);
            }
            let c = cost(item);
            if c <= remaining {
                taken.push(rebuilt(*item));
                remaining -= c;
            } else {
                return self.after_later(taken, Some((*item, remaining)));
            }
        }
        // Every later message fits: the walk goes on into the front, newest first. It takes the
        // longest run of the front's newest messages that fits with budget left before each.
        let r = remaining;
        let first_fitting = (0..=self.len).find_or_last(|&j| self.suffix(j) <= r);
        let first_with_room = (0..=self.len).find_or_last(|&j| self.suffix(j) < r);
        let start = first_fitting.max(first_with_room.saturating_sub(1));
        let start = if r == 0 { self.len } else { start };
        let cut = (start > 0 && r > self.suffix(start)).then(|| {
            let left = r - self.suffix(start);
            (history[start - 1], left)
        });
        taken.reverse();
        Plan {
            drop_front: start,
            taken,
            cut_in_front: cut.is_some(),
            cut,
        }
    }

    /// The walk stopped among the later messages: the whole front is dropped.
    fn after_later(&self, mut taken: Vec<Item>, cut: Option<(Item, u64)>) -> Plan {
        taken.reverse();
        Plan {
            drop_front: self.len,
            taken,
            cut,
            cut_in_front: false,
        }
    }

    /// Applies a plan to `history` (whose front this is), `cut` being the cut message already
    /// made; returns the new front. The summary is pushed by the caller.
    pub fn apply(mut self, history: &mut Vec<Item>, plan: Plan, cut: Option<Item>) -> Kept {
        history.truncate(self.len);
        self.sums.truncate(self.len + 1);
        let mut start = plan.drop_front;
        if let Some(cut) = cut.filter(|_| plan.cut_in_front) {
            start -= 1;
            history[start] = cut;
            self.sums[start] = self.sums[start + 1].wrapping_sub(cost(&cut));
        }
        history.drain(..start);
        self.sums.drain(..start);
        if let Some(cut) = cut.filter(|_| !plan.cut_in_front) {
            debug_assert!(history.is_empty());
            self.sums = vec![0, cost(&cut)];
            history.push(cut);
        }
        for item in plan.taken {
            let last = self.sums[self.sums.len() - 1];
            self.sums.push(last.wrapping_add(cost(&item)));
            history.push(item);
        }
        self.len = history.len();
        self
    }
}

/// `find` over a range, falling back to its last element (which always qualifies here).
trait FindOrLast {
    fn find_or_last(self, f: impl Fn(&usize) -> bool) -> usize;
}

impl FindOrLast for std::ops::RangeInclusive<usize> {
    /// The first index that qualifies, by binary search: qualifying is monotone (the suffix costs
    /// only shrink as the index grows).
    fn find_or_last(self, f: impl Fn(&usize) -> bool) -> usize {
        let (mut lo, mut hi) = (*self.start(), *self.end());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if f(&mid) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }
}

/// The cut message's parts, as Codex 0.169.0 cuts them: the joined text cut by a token policy
/// of the budget left (no ×1.2), sent as the parts of the head, the marker as a part of its own,
/// then the parts of the tail (a one-part message becomes `[head, marker, tail]`).
pub(crate) fn cut_parts(pieces: &[String], tokens: u64) -> Vec<String> {
    let joined: String = pieces.concat();
    let Some((head, marker, tail)) = truncate::token_cut(&joined, tokens) else {
        return pieces.to_vec();
    };
    let mut out = Vec::new();
    let mut at = 0;
    let mut spans = Vec::with_capacity(pieces.len());
    for piece in pieces {
        spans.push((at, at + piece.len()));
        at += piece.len();
    }
    for &(start, end) in &spans {
        if start < head {
            out.push(joined[start..end.min(head)].to_owned());
        }
    }
    out.push(marker);
    for &(start, end) in &spans {
        if end > tail {
            out.push(joined[start.max(tail)..end].to_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;
    use proptest::prelude::*;

    /// A user message of `len` text bytes, told apart by `at`.
    fn message(at: u64, len: u32) -> Item {
        let mut item = Item::new(0, Span { at, len: 1 }, ItemKind::Message, Form::Verbatim);
        item.flags = Flags::USER | Flags::ROLE_USER;
        item.aux = len;
        item
    }

    /// The cut message a test makes: what is left of the budget, in bytes.
    fn cut_of(item: Item, tokens: u64) -> Item {
        // Marked as cut by its span's length, which survives being kept again.
        let span = Span {
            at: item.span().at,
            len: 2,
        };
        let mut cut = Item::new(0, span, ItemKind::Message, Form::Verbatim);
        cut.flags = item.flags;
        cut.aux = (tokens * 4) as u32;
        cut
    }

    /// Codex's walk over the whole history, written plainly.
    fn naive(history: &[Item]) -> Vec<Item> {
        let mut remaining = BUDGET;
        let mut out = Vec::new();
        for item in history.iter().rev().filter(|i| collected(i)) {
            if remaining == 0 {
                break;
            }
            let c = cost(item);
            if c <= remaining {
                out.push(rebuilt(*item));
                remaining -= c;
            } else {
                out.push(cut_of(rebuilt(*item), remaining));
                break;
            }
        }
        out.reverse();
        out
    }

    #[derive(Debug, Clone)]
    enum Step {
        Message(u32),
        Compact,
        Rollback(usize),
    }

    /// What identifies a message for comparing: its span, text length and whether it was cut.
    fn key(item: &Item) -> (u64, u32, bool) {
        (item.span().at, item.aux, item.span().len == 2)
    }

    #[test]
    fn a_cut_message_keeps_its_parts_around_the_marker() {
        let s = |v: &[&str]| v.iter().map(|p| p.to_string()).collect::<Vec<_>>();
        // One part: head, marker, tail (fixture legacy_compaction_budget_cut).
        let one = cut_parts(&s(&["abcdefghijkl"]), 1);
        assert_eq!(one, s(&["ab", "…2 tokens truncated…", "kl"]));
        // Parts are cut where the joined text is, and stay apart.
        let many = cut_parts(&s(&["a", "bcdefghij", "kl"]), 1);
        assert_eq!(many, s(&["a", "b", "…2 tokens truncated…", "kl"]));
        assert_eq!(cut_parts(&s(&["ab", "c"]), 1), s(&["ab", "c"]));
    }

    proptest! {
        #[test]
        fn the_fast_path_walks_as_codex_does(
            steps in prop::collection::vec(prop_oneof![
                8 => (0u32..40_000).prop_map(Step::Message),
                2 => Just(Step::Compact),
                1 => (0usize..100).prop_map(Step::Rollback),
            ], 1..200),
        ) {
            let mut fast: Vec<Item> = Vec::new();
            let mut kept: Option<Kept> = None;
            let mut plain: Vec<Item> = Vec::new();
            for (at, step) in steps.into_iter().enumerate() {
                let at = at as u64;
                match step {
                    // Small texts often, so that many fit and the budget runs out in the front.
                    Step::Message(len) => {
                        let len = if len % 3 == 0 { len } else { len % 64 };
                        fast.push(message(at, len));
                        plain.push(message(at, len));
                    }
                    // A rollback cuts anywhere, the front included.
                    Step::Rollback(back) => {
                        let cut = fast.len().saturating_sub(back);
                        fast.truncate(cut);
                        plain.truncate(cut);
                        if let Some(k) = kept.as_mut() {
                            k.truncate(cut);
                        }
                    }
                    Step::Compact => {
                        let front = match kept.take() {
                            Some(k) if k.len <= fast.len() => k,
                            _ => Kept::new(&[]),
                        };
                        let plan = front.plan(&fast);
                        let cut = plan.cut.map(|(item, tokens)| cut_of(rebuilt(item), tokens));
                        kept = Some(front.apply(&mut fast, plan, cut));
                        let summary = message(1 << 40 | at, 7);
                        fast.push(summary);
                        plain = naive(&plain);
                        plain.push(summary);
                    }
                }
                let a: Vec<_> = fast.iter().map(key).collect();
                let b: Vec<_> = plain.iter().map(key).collect();
                prop_assert_eq!(a, b);
            }
        }
    }
}
