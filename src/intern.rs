//! Interned byte strings: each distinct string stored once in an arena, referred to by a `u32`
//! index, with a table of slots for look-up. Call ids and uuids cost their bytes and a few
//! bytes of table, not a heap allocation each.

use std::hash::{BuildHasher, RandomState};
use std::sync::OnceLock;

/// A short string's bytes, carried by value: a classifier decodes an id (a Codex call id) while
/// it has the line at hand, and the fold interns it from the record, without reading the line
/// again (another core parsed it, and no cache holds it any longer by then). A Claude Code
/// record's ids are decoded into its run's side instead (`claude::entry::Id`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Short {
    len: u8,
    bytes: [u8; Short::MAX],
}

impl Short {
    /// The longest string carried (a uuid is 36 bytes).
    pub const MAX: usize = 39;

    /// `bytes`, when they are short enough.
    pub fn new(bytes: &[u8]) -> Option<Short> {
        let mut short = Short {
            len: u8::try_from(bytes.len())
                .ok()
                .filter(|&n| usize::from(n) <= Short::MAX)?,
            bytes: [0; Short::MAX],
        };
        short.bytes[..bytes.len()].copy_from_slice(bytes);
        Some(short)
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// Interned byte strings: one arena, and a table of slots that finds a string's index by its
/// hash.
///
/// The table is open-addressed (linear probing, at most three quarters full), each slot a word
/// holding the upper half of a string's hash and its index: a probe reads one slot, and a
/// string is compared only where the halves agree. Most strings interned are new (a Claude Code
/// entry's uuid), and the table is far larger than a core's caches: adding one costs the one
/// miss of its slot, which [`Strings::prefetch`] can take early (a table of tags beside a table
/// of indices, hashbrown's, took two misses and one more for the stored hash, and cannot be
/// prefetched).
#[derive(Debug, Default)]
pub(crate) struct Strings {
    bytes: Vec<u8>,
    ends: Vec<u64>,
    /// `hash >> 32 << 32 | index + 1`; 0 is a free slot. Empty, or a power of two long.
    slots: Vec<u64>,
}

/// The hash of `key` in every table of strings: keyed by the process, so that crafted ids cannot
/// make lookups slow, and the same on every thread, so that a classifier can hash the ids its
/// fold will intern.
pub(crate) fn hash(key: &[u8]) -> u64 {
    static KEYS: OnceLock<RandomState> = OnceLock::new();
    KEYS.get_or_init(RandomState::new).hash_one(key)
}

impl Strings {
    /// The `index`th string.
    pub fn get(&self, index: u32) -> &[u8] {
        let i = index as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }

    /// The index of `key`, if it is there.
    pub fn find(&self, key: &[u8]) -> Option<u32> {
        self.probe(key, hash(key)).ok()
    }

    /// The index of `key`, or the free slot where it would go.
    fn probe(&self, key: &[u8], hash: u64) -> Result<u32, usize> {
        let Some(mask) = self.slots.len().checked_sub(1) else {
            return Err(0);
        };
        let tag = hash >> 32;
        let mut at = home(hash, mask);
        loop {
            let slot = self.slots[at];
            if slot == 0 {
                return Err(at);
            }
            if slot >> 32 == tag {
                let index = (slot as u32).wrapping_sub(1);
                if self.get(index) == key {
                    return Ok(index);
                }
            }
            at = (at + 1) & mask;
        }
    }

    /// The index of `key`, added if new.
    pub fn intern(&mut self, key: &[u8]) -> u32 {
        self.newest(key)
            .unwrap_or_else(|| self.add_hashed(key, hash(key)))
    }

    /// [`Strings::intern`] of a key whose [`hash`] is `hash`.
    pub fn intern_hashed(&mut self, key: &[u8], hash: u64) -> u32 {
        self.newest(key)
            .unwrap_or_else(|| self.add_hashed(key, hash))
    }

    /// Starts fetching the slot where a key whose hash is `hash` is found or would go, for an
    /// [`Strings::intern_hashed`] to come: a table of hundreds of thousands of ids is larger than
    /// a core's caches, and a new id's slot is a miss (one per entry of a Claude Code transcript).
    pub fn prefetch(&self, hash: u64) {
        if let Some(mask) = self.slots.len().checked_sub(1) {
            prefetch(&self.slots[home(hash, mask)]);
        }
    }

    /// Ids are asked for soon after they are added (an entry names the one before it as its
    /// parent; an output follows its call): the newest two strings are tried first, at the
    /// arena's end, without hashing the key.
    fn newest(&self, key: &[u8]) -> Option<u32> {
        let next = self.ends.len() as u32;
        [next.checked_sub(1), next.checked_sub(2)]
            .into_iter()
            .flatten()
            .find(|&index| self.get(index) == key)
    }

    /// The index of `key`, whose hash is `hash`, added if it is not there.
    fn add_hashed(&mut self, key: &[u8], hash: u64) -> u32 {
        let mut free = match self.probe(key, hash) {
            Ok(index) => return index,
            Err(free) => free,
        };
        if 4 * (self.ends.len() + 1) > 3 * self.slots.len() {
            self.grow();
            free = self.probe(key, hash).err().unwrap_or_default();
        }
        // The index a new string gets.
        let next = self.ends.len() as u32;
        self.bytes.extend_from_slice(key);
        self.ends.push(self.bytes.len() as u64);
        self.slots[free] = (hash >> 32 << 32) | (u64::from(next) + 1);
        next
    }

    /// Doubles the table: every slot placed again by the half hash it holds (no string is
    /// hashed again).
    fn grow(&mut self) {
        let len = (2 * self.slots.len()).max(64);
        let mask = len - 1;
        let mut slots = vec![0u64; len];
        for &slot in self.slots.iter().filter(|&&slot| slot != 0) {
            let mut at = home(slot, mask);
            while slots[at] != 0 {
                at = (at + 1) & mask;
            }
            slots[at] = slot;
        }
        self.slots = slots;
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }
}

/// Where the probe for a hash starts in a table of `mask + 1` slots. `word` is the hash, or a
/// slot, which holds the same upper half: a lookup, a prefetch and a growth agree on it.
fn home(word: u64, mask: usize) -> usize {
    (word >> 32) as usize & mask
}

/// Starts fetching `slot` into the caches.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
fn prefetch(slot: &u64) {
    use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    // SAFETY: SSE, which has the instruction, is part of the x86-64 baseline; a prefetch reads
    // nothing the program sees and cannot fault, and the address is a live slot's.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(slot).cast()) }
}

#[cfg(not(target_arch = "x86_64"))]
fn prefetch(_: &u64) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_string_is_carried_whole_and_a_longer_one_not_at_all() {
        let uuid = b"7f3a0c2e-0001-4000-8000-000000000007";
        assert_eq!(
            Short::new(uuid).map(|s| s.bytes().to_vec()),
            Some(uuid.to_vec())
        );
        let longest = [b'x'; Short::MAX];
        assert_eq!(
            Short::new(&longest).map(|s| s.bytes().len()),
            Some(Short::MAX)
        );
        assert_eq!(Short::new(&[b'x'; Short::MAX + 1]), None);
        assert_eq!(Short::new(b"").map(|s| s.bytes().len()), Some(0));
    }

    #[test]
    fn a_string_interned_twice_is_one_index_as_the_table_grows() {
        let mut strings = Strings::default();
        let indices: Vec<u32> = (0..10_000)
            .map(|i| strings.intern(format!("id-{i}").as_bytes()))
            .collect();
        for (i, &index) in indices.iter().enumerate() {
            assert_eq!(strings.intern(format!("id-{i}").as_bytes()), index);
            assert_eq!(strings.get(index), format!("id-{i}").as_bytes());
        }
        assert_eq!(strings.len(), 10_000);
    }

    /// Strings whose hashes agree (wholly, or in the half a slot keeps) are told apart by their
    /// bytes, through every growth of the table; a key hashed elsewhere is interned as here.
    #[test]
    fn strings_of_one_hash_are_told_apart_by_their_bytes() {
        let mut strings = Strings::default();
        strings.prefetch(7);
        let hashes = [7, 7 << 32, 7 << 32 | 1, u64::MAX];
        let key = |i: usize| format!("key-{i}").into_bytes();
        for round in 0..2 {
            for i in 0..2_000 {
                let index = strings.intern_hashed(&key(i), hashes[i % hashes.len()]);
                assert_eq!(index, i as u32, "round {round}");
                assert_eq!(strings.get(index), key(i));
            }
        }
        assert_eq!(strings.len(), 2_000);
        let new = b"a key hashed by its classifier";
        let index = strings.intern_hashed(new, hash(new));
        assert_eq!(strings.intern(new), index);
        assert_eq!(strings.find(new), Some(index));
        assert_eq!(strings.find(b"never interned"), None);
    }
}
