//! The process's allocator: the system one, asking Linux to back large
//! blocks with 2 MiB pages.
//!
//! Signing a 100 MB document holds a few hundred MB of buffers and tables
//! that are touched once each page: in 4 KiB pages that is about 100,000
//! page faults and a TLB miss on nearly every probe of a large table. This
//! machine's kernels give huge pages only where asked (`madvise`, the
//! default of `transparent_hugepage`), so blocks of 4 MiB and more are
//! advised `MADV_HUGEPAGE` right after they are allocated, before they are
//! touched. It is advice: where it is refused nothing changes.

use std::alloc::{GlobalAlloc, Layout, System};

pub struct HugeForLarge;

/// Blocks this large are advised.
const LARGE: usize = 4 << 20;

#[cfg(target_os = "linux")]
fn advise(ptr: *mut u8, len: usize) {
    const HUGE: usize = 2 << 20;
    const MADV_HUGEPAGE: i32 = 14;
    extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    // Only whole huge pages inside the block.
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize + len) / HUGE * HUGE;
    if end > start {
        // SAFETY: the range lies inside a block this allocator just handed
        // out; MADV_HUGEPAGE changes how its pages are backed, never their
        // contents, and its result is only advice, so it is ignored.
        unsafe { madvise(start as *mut std::ffi::c_void, end - start, MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_: *mut u8, _: usize) {}

// SAFETY: every method forwards to `System` with the same arguments, and
// only adds advice about blocks `System` returned.
unsafe impl GlobalAlloc for HugeForLarge {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let ptr = unsafe { System.alloc(layout) };
        if layout.size() >= LARGE && !ptr.is_null() {
            advise(ptr, layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if layout.size() >= LARGE && !ptr.is_null() {
            advise(ptr, layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let ptr = unsafe { System.realloc(ptr, layout, new_size) };
        if new_size >= LARGE && !ptr.is_null() {
            advise(ptr, new_size);
        }
        ptr
    }
}
