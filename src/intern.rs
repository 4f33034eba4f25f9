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
            table,
            hasher,
        } = self;
        if let Some(&index) = table.find(hash, |&i| nth(bytes, ends, i) == key) {
            return index;
        }
        let index = ends.len() as u32;
        bytes.extend_from_slice(key);
        ends.push(bytes.len() as u64);
        table.insert_unique(hash, index, |&i| hasher.hash_one(nth(bytes, ends, i)));
        index
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }
}
