//! Interned byte strings: each distinct string stored once in an arena, referred to by a `u32`
//! index, with a hash table of indices for look-up. Call ids and uuids cost their bytes and a few
//! bytes of table, not a heap allocation each.

use std::hash::BuildHasher;

use hashbrown::HashTable;

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

/// The `i`th string of an arena whose strings end at `ends`.
fn nth<'a>(bytes: &'a [u8], ends: &[u64], i: u32) -> &'a [u8] {
    let i = i as usize;
    let start = if i == 0 { 0 } else { ends[i - 1] as usize };
    &bytes[start..ends[i] as usize]
}

impl Strings {
    pub fn get(&self, index: u32) -> &[u8] {
        nth(&self.bytes, &self.ends, index)
    }

    /// The index of `key`, added if new.
    pub fn intern(&mut self, key: &[u8]) -> u32 {
        let hash = self.hasher.hash_one(key);
        let Strings {
            bytes,
            ends,
            hashes,
            table,
            ..
        } = self;
        let same = |&i: &u32| hashes[i as usize] == hash && nth(bytes, ends, i) == key;
        if let Some(&index) = table.find(hash, same) {
            return index;
        }
        let index = ends.len() as u32;
        bytes.extend_from_slice(key);
        ends.push(bytes.len() as u64);
        hashes.push(hash);
        table.insert_unique(hash, index, |&i| hashes[i as usize]);
        index
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }
}
