//! Interned byte strings: each distinct string stored once in an arena, referred to by a `u32`
//! index, with a hash table of indices for look-up. Call ids and uuids cost their bytes and a few
//! bytes of table, not a heap allocation each.

use std::hash::BuildHasher;

use hashbrown::HashTable;

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

/// Interned byte strings: one arena, one hash table of indices into it.
#[derive(Debug, Default)]
pub(crate) struct Strings {
    bytes: Vec<u8>,
    ends: Vec<u64>,
    /// The hash of each string, so that growing the table does not hash every string again
    /// (that was half of the interning of a large Claude Code transcript).
    hashes: Vec<u64>,
    table: HashTable<u32>,
    /// Keyed by the process, so that crafted ids cannot make lookups slow.
    hasher: std::hash::RandomState,
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
        self.find_hashed(key, self.hasher.hash_one(key))
    }

    /// [`Strings::find`] of a key whose hash is `hash`.
    fn find_hashed(&self, key: &[u8], hash: u64) -> Option<u32> {
        let same = |&i: &u32| self.hashes[i as usize] == hash && self.get(i) == key;
        self.table.find(hash, same).copied()
    }

    /// The index of `key`, added if new.
    pub fn intern(&mut self, key: &[u8]) -> u32 {
        // Ids are asked for soon after they are added (an entry names the one before it as its
        // parent; an output follows its call): the newest two strings are tried first, at the
        // arena's end, without hashing the key.
        // The index a new string gets.
        let next = self.ends.len() as u32;
        for index in [next.checked_sub(1), next.checked_sub(2)]
            .into_iter()
            .flatten()
        {
            if self.get(index) == key {
                return index;
            }
        }
        let hash = self.hasher.hash_one(key);
        if let Some(index) = self.find_hashed(key, hash) {
            return index;
        }
        let index = next;
        self.bytes.extend_from_slice(key);
        self.ends.push(self.bytes.len() as u64);
        self.hashes.push(hash);
        let hashes = &self.hashes;
        self.table
            .insert_unique(hash, index, |&i| hashes[i as usize]);
        index
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }
}

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
}
