//! Issue 38: what a document holds in memory does not depend on how far
//! its parts inflate. Each container kind is given as a bomb that
//! inflates to 256 MiB and as one that inflates to 1 GiB, read with the
//! default limits; both must be refused having allocated less than
//! [`BOUND`] at their peak, and the same at both sizes, measured by a
//! counting allocator (net bytes allocated, so deterministic, unlike the
//! RSS that `bench/run-bombs` reports). Before the readers streamed, a
//! part was read whole, up to `max_size` (1 GiB): the first bomb alone
//! peaked past 256 MiB.
//!
//! One test in its own binary, so that no other test allocates while it
//! measures.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use neardup_extract::{extract, Limits, Options};

mod bomb;
use bomb::{docx, epub, odt, pdf, repeated, DOC, MIB};

/// Net bytes allocated now, and the most since the last [`reset`].
static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

struct Counting;

fn grow(n: usize) {
    let now = NOW.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is passed to the system allocator unchanged; the
// counters only watch.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        // SAFETY: the caller upholds `alloc`'s contract, which `System` shares.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        NOW.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            grow(new_size - layout.size());
        } else {
            NOW.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: the caller upholds `realloc`'s contract, which `System` shares.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most a bomb may allocate at its peak: the 32 MiB token a parser
/// may hold (its buffer doubles to 64 MiB), the 64 MiB of a PDF page's
/// content, or the text given before a cap stops it, and buffers.
const BOUND: usize = 96 << 20;

/// Pseudo-random lowercase letters (an LCG), for blocks that compress
/// too little to trip the running ratio.
struct Letters(u64);

impl Letters {
    fn next(&mut self) -> u8 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        b'a' + ((self.0 >> 33) % 26) as u8
    }
}

/// Bombs of every container kind that inflate to `mib` MiB: dense ones
/// (a pattern repeated, near deflate's 1032:1), or `sparse` ones, with
/// random letters strewn through, that compress under 100:1 and so are
/// stopped by the other caps (the token, `max_expanded`).
fn bombs(mib: usize, sparse: bool) -> Vec<(&'static str, Vec<u8>)> {
    let mut letters = Letters(7);
    let mut spaces = vec![b' '; MIB];
    let mut paragraphs = Vec::new();
    let mut chapter = Vec::new();
    while paragraphs.len() < MIB - 64 {
        paragraphs.extend_from_slice(b"<w:p><w:r><w:t>word");
        chapter.extend_from_slice(b"<p>a word ");
        if sparse {
            for _ in 0..3 {
                paragraphs.push(letters.next());
                chapter.push(letters.next());
            }
        }
        paragraphs.extend_from_slice(b"</w:t></w:r></w:p>");
        chapter.extend_from_slice(b"</p>");
    }
    if sparse {
        for i in (0..MIB).step_by(32) {
            spaces[i] = letters.next();
        }
    }
    vec![
        (
            "DOCX, spaces in one w:t",
            docx(repeated(
                &[DOC, b"<w:p><w:r><w:t>"].concat(),
                &spaces,
                mib,
                b"",
            )),
        ),
        (
            "DOCX, one-word paragraphs",
            docx(repeated(DOC, &paragraphs, mib, b"")),
        ),
        (
            "ODT, spaces in a paragraph",
            odt(repeated(
                b"<document-content><body><text><p>",
                &spaces,
                mib,
                b"",
            )),
        ),
        (
            "EPUB, a chapter of paragraphs",
            epub(repeated(b"<html><body>", &chapter, mib, b"")),
        ),
        (
            "EPUB, a chapter that is a comment",
            epub(repeated(b"<html><body><!--", &spaces, mib, b"")),
        ),
        ("PDF, a page of spaces", pdf(&spaces, mib.min(80))),
    ]
}

#[test]
fn peak_memory_does_not_grow_with_how_far_a_bomb_inflates() {
    // Dense bombs with the default limits: the running ratio stops them.
    // Sparse ones with `max_expanded` at 64 MiB (a quarter of the
    // default, to keep the test fast): the token cap and `max_expanded`.
    let sparse_limits = Options {
        limits: Limits {
            max_expanded: 64 << 20,
            ..Limits::default()
        },
        ..Options::default()
    };
    for (sparse, opts) in [(false, Options::default()), (true, sparse_limits)] {
        peaks(sparse, &opts);
    }
}

fn peaks(sparse: bool, opts: &Options) {
    let mut first = Vec::new();
    for mib in [256, 1024] {
        for (i, (name, bomb)) in bombs(mib, sparse).into_iter().enumerate() {
            let base = NOW.load(Ordering::Relaxed);
            PEAK.store(base, Ordering::Relaxed);
            let got = extract(&bomb, None, opts);
            let peak = PEAK.load(Ordering::Relaxed) - base;
            let error = got.expect_err(name).to_string();
            println!(
                "{name}{} ({mib} MiB, {} KiB on disk): peak {} KiB, '{error}'",
                if sparse { ", sparse" } else { "" },
                bomb.len() >> 10,
                peak >> 10
            );
            assert!(peak < BOUND, "{name}: peak {peak} bytes, over {BOUND}");
            // Four times the expansion, the same peak (within a MiB).
            match first.get(i) {
                None => first.push(peak),
                Some(&before) => assert!(
                    peak.abs_diff(before) < MIB,
                    "{name}: peak {before} bytes at 256 MiB, {peak} at 1 GiB"
                ),
            }
        }
    }
}
