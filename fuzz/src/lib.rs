//! What the fuzz targets share: a heap meter, so "never allocates unboundedly" is an assertion rather
//! than a hope that libFuzzer's RSS limit notices in time.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting live bytes.
struct Metered;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Live bytes past which the process aborts (0: no limit). libFuzzer records an abort as a crash with
/// its input, which is what an unbounded allocation should be.
static CEILING: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(live, Ordering::Relaxed);
    let ceiling = CEILING.load(Ordering::Relaxed);
    if ceiling != 0 && live > ceiling {
        // No limit while reporting: writing may allocate.
        CEILING.store(0, Ordering::Relaxed);
        let _ = std::io::stderr().write_all(b"heap limit exceeded: the code under test allocates beyond its bound\n");
        std::process::abort();
    }
}

fn shrank(by: usize) {
    LIVE.fetch_sub(by, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; the counters only observe sizes.
unsafe impl GlobalAlloc for Metered {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Metered = Metered;

/// Runs `f`, aborting the process if it ever holds more than `limit` heap bytes beyond what was live
/// when it started. Returns `f`'s result and the most it held.
pub fn within_heap<T>(limit: usize, f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    CEILING.store(base.saturating_add(limit).max(1), Ordering::Relaxed);
    let out = f();
    CEILING.store(0, Ordering::Relaxed);
    (out, PEAK.load(Ordering::Relaxed).saturating_sub(base))
}
