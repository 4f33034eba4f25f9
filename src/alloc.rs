//! The binary's allocator: the system's, asking Linux for transparent huge pages in every large
//! block it hands out.
//!
//! A Claude Code transcript's replay builds tens of megabytes of nodes, ids and view (about 30,000
//! fresh 4 KiB pages at 512 MiB). In this project's VM each page's first touch cost ~2 µs of
//! kernel time (fault, zeroing, cgroup accounting): a fifth of the main thread's time, much of it
//! in the serial steps after the pass. Where the kernel only gives huge pages to memory that asks
//! for them (`/sys/kernel/mm/transparent_hugepage/enabled` set to `madvise`, a common default),
//! a block of 2 MiB or more asks (`madvise(MADV_HUGEPAGE)`), and one fault maps 2 MiB.
//! Where huge pages are off, or on another system, the advice is nothing.
//!
//! Only blocks of at least 2 MiB are advised, and only their whole 2 MiB pages: what the
//! kernel maps for a block stays within the block's own address range, so at most the untouched
//! tail of a growing vector's capacity is backed, up to 2 MiB per large block.

use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator, with large blocks advised to use huge pages.
pub struct HugePages;

/// The smallest block advised: one huge page.
const LARGE: usize = 2 << 20;

// SAFETY: every call is passed to `System` as it came; the advice after it changes how the
// kernel backs the block's pages, never their contents, address or size.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's guarantees for `layout` are `System`'s.
        let block = unsafe { System.alloc(layout) };
        advise(block, layout.size());
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let block = unsafe { System.alloc_zeroed(layout) };
        advise(block, layout.size());
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: `block` came from `System` (every block here does), with `layout`.
        unsafe { System.dealloc(block, layout) }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`; `size` is the caller's, valid for `layout`'s alignment.
        let moved = unsafe { System.realloc(block, layout, size) };
        advise(moved, size);
        moved
    }
}

/// Asks for huge pages for the `len` bytes at `block`, if it is large: the whole pages it
/// spans, which for a block the system maps on its own (glibc does above a size) is exactly its
/// mapping. Advice to part of a mapping would split it in two, and the system could then no
/// longer grow the block in place (`mremap` moves one mapping): it would copy it instead.
#[cfg(target_os = "linux")]
fn advise(block: *mut u8, len: usize) {
    if block.is_null() || len < LARGE {
        return;
    }
    const PAGE: usize = 4096;
    let start = block as usize / PAGE * PAGE;
    let end = (block as usize + len).next_multiple_of(PAGE);
    // SAFETY: the pages hold bytes of a block the allocator just handed out, so they are
    // mapped and the process's; MADV_HUGEPAGE is advice, which changes no byte of them. A
    // failure (huge pages not built into the kernel) leaves them as they were.
    #[allow(unsafe_code)]
    unsafe {
        libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_: *mut u8, _: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A large block keeps its bytes as it grows through the sizes the advice starts at (the
    /// system moves or grows it in place; advice to part of its mapping made it copy).
    #[test]
    #[allow(unsafe_code)]
    fn a_large_block_keeps_its_bytes_as_it_grows_and_shrinks() {
        let pattern = |i: usize| (i % 251) as u8;
        let mut size = 1 << 20;
        let mut layout = Layout::from_size_align(size, 8).unwrap_or_else(|_| unreachable!());
        // SAFETY: the layout is non-zero; every block is written and read within its size and
        // freed with the layout it has.
        unsafe {
            let mut block = HugePages.alloc(layout);
            assert!(!block.is_null());
            for i in 0..size {
                *block.add(i) = pattern(i);
            }
            for grown in [3 << 20, 9 << 20, 40 << 20, 5 << 20] {
                block = HugePages.realloc(block, layout, grown);
                assert!(!block.is_null());
                let kept = size.min(grown);
                assert!((0..kept).all(|i| *block.add(i) == pattern(i)));
                for i in kept..grown {
                    *block.add(i) = pattern(i);
                }
                size = grown;
                layout = Layout::from_size_align(size, 8).unwrap_or_else(|_| unreachable!());
            }
            HugePages.dealloc(block, layout);
            let zeroed = HugePages.alloc_zeroed(layout);
            assert!(!zeroed.is_null());
            assert!((0..size).all(|i| *zeroed.add(i) == 0));
            HugePages.dealloc(zeroed, layout);
        }
    }
}
