//! The code paths for the two hot loops, hashing shingles (SHA-256) and the
//! `N`-slot minimum, and the choice between them.
//!
//! Every backend computes exactly the same values; they differ only in the
//! CPU instructions they use. One file per backend, in the style of
//! RustCrypto's `sha256/{soft,x86_shani}.rs`:
//!
//! - `portable.rs`: plain Rust, no CPU feature; what wasm and non-x86
//!   machines run, and the reference the others must equal;
//! - `avx2.rs`: the portable minimum loop compiled for AVX2, and the
//!   normalizer and the spaces of a text 64 bytes a step;
//! - `sha_ni.rs`: SHA-256 on the x86 SHA extensions, six messages
//!   interleaved, with the AVX2 minimum loop, normalizer and spaces; it
//!   also hashes the normalized texts, two side by side, for this backend
//!   and for `avx512` where the CPU has the extensions;
//! - `avx512.rs`: SHA-256 in the 16 lanes of AVX-512 registers, written
//!   with intrinsics, and a 16-wide minimum loop.
//!
//! `sha256.rs` holds the constants and padding the last two share.
//!
//! A [`Backend`] is a value, never process-wide state: whoever signs passes
//! one in (the convenience entry points take [`Backend::detect`]). It can
//! only be built after checking that this CPU has the features, so holding
//! one is the proof that its code may run. That is the whole argument for
//! the `unsafe` calls below, the only `unsafe` in the crate besides two
//! memory hints ([`prefetch`], [`advise_huge_pages`]) that cannot change
//! what any code computes.

use crate::Digest;

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod portable;
#[cfg(target_arch = "x86_64")]
mod sha256;
#[cfg(target_arch = "x86_64")]
mod sha_ni;

/// A code path for the hot loops that this CPU can run.
///
/// There is no public way to name a backend without checking for it:
/// [`Backend::detect`] and [`Backend::portable`] always give one, the other
/// constructors give `None` when the CPU lacks the features.
///
/// ```
/// use neardup::{Backend, Fingerprint, Params};
/// let text = "one two three four five six seven";
/// let want = Fingerprint::of_with(text, Params::DEFAULT, Backend::portable());
/// for backend in Backend::supported() {
///     assert_eq!(Fingerprint::of_with(text, Params::DEFAULT, backend), want);
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Backend(Kind);

/// The backends' identities. Private, so that a [`Backend`] holding one of
/// the x86 kinds exists only once its constructor checked the CPU. The x86
/// kinds are not even declared elsewhere, so the dispatch below needs no
/// fallback arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    ShaNi,
    /// With AVX-512 VBMI2 (Ice Lake and later), whose byte compress
    /// instruction normalizes 64 ASCII bytes at a time, or without; with
    /// the SHA extensions, which hash normalized texts several at a time,
    /// or without.
    #[cfg(target_arch = "x86_64")]
    Avx512 {
        vbmi2: bool,
        sha: bool,
    },
}

impl Backend {
    /// The name of every backend, whether or not this CPU can run it, in
    /// order of preference (the last one this CPU has is the fastest). These
    /// are the names of [`Backend::name`] and [`Backend::from_name`].
    pub const ALL: [&'static str; 4] = ["portable", "avx2", "sha-ni", "avx512"];

    /// The fastest backend this CPU can run.
    ///
    /// Detection is cheap to repeat: the standard library caches what the
    /// CPU reported, so this reads a few flags and keeps no state of its own.
    pub fn detect() -> Backend {
        Backend::avx512()
            .or_else(Backend::sha_ni)
            .or_else(Backend::avx2)
            .unwrap_or(Backend::portable())
    }

    /// Plain Rust: the `sha2` crate one message at a time (it uses SHA-NI
    /// by itself where present) and a scalar minimum loop. Runs anywhere.
    pub const fn portable() -> Backend {
        Backend(Kind::Portable)
    }

    /// x86-64 AVX2: the portable hashing, an 8-wide minimum loop, and the
    /// normalizer and spaces 64 bytes a step.
    /// (SHA-256 in 8 AVX2 lanes measured slower than `sha2`: without
    /// AVX-512's vector rotate the compiler keeps the rounds scalar.)
    /// `None` when the CPU lacks AVX2.
    pub fn avx2() -> Option<Backend> {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            return Some(Backend(Kind::Avx2));
        }
        None
    }

    /// x86-64 SHA extensions, six messages interleaved, with the AVX2
    /// minimum loop, normalizer and spaces. `None` unless the CPU has SHA,
    /// SSSE3, SSE4.1 and AVX2.
    pub fn sha_ni() -> Option<Backend> {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("sha")
            && std::is_x86_feature_detected!("sse2")
            && std::is_x86_feature_detected!("ssse3")
            && std::is_x86_feature_detected!("sse4.1")
            && std::is_x86_feature_detected!("avx2")
        {
            return Some(Backend(Kind::ShaNi));
        }
        None
    }

    /// x86-64 AVX-512F and AVX-512BW: 16 messages hashed side by side,
    /// 16-wide minimum. `None` when the CPU lacks either (or AVX2, which
    /// every AVX-512 CPU has, and whose normalizer runs without VBMI2).
    pub fn avx512() -> Option<Backend> {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx2")
        {
            let vbmi2 = std::is_x86_feature_detected!("avx512vbmi2");
            let sha = std::is_x86_feature_detected!("sha")
                && std::is_x86_feature_detected!("sse2")
                && std::is_x86_feature_detected!("ssse3")
                && std::is_x86_feature_detected!("sse4.1");
            return Some(Backend(Kind::Avx512 { vbmi2, sha }));
        }
        None
    }

    /// The backend of that [`Backend::name`], if this CPU can run it.
    /// `None` both for a name not in [`Backend::ALL`] and for a backend
    /// the CPU lacks; a caller that reports the difference checks `ALL`.
    ///
    /// ```
    /// use neardup::Backend;
    /// assert_eq!(Backend::from_name("portable"), Some(Backend::portable()));
    /// assert_eq!(Backend::from_name("mmx"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Backend> {
        match name {
            "portable" => Some(Backend::portable()),
            "avx2" => Backend::avx2(),
            "sha-ni" => Backend::sha_ni(),
            "avx512" => Backend::avx512(),
            _ => None,
        }
    }

    /// Every backend this CPU can run, in the order of [`Backend::ALL`]:
    /// portable first. For tests that run each one.
    pub fn supported() -> impl Iterator<Item = Backend> {
        Backend::ALL.into_iter().filter_map(Backend::from_name)
    }

    /// The name used by `NEARDUP_BACKEND` and in reports: one of
    /// [`Backend::ALL`].
    pub fn name(self) -> &'static str {
        match self.0 {
            Kind::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Kind::ShaNi => "sha-ni",
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 { .. } => "avx512",
        }
    }

    /// Appends the normalized `text` (SPEC §1) to `out`.
    #[allow(unsafe_code)]
    pub(crate) fn normalize_into(self, text: &str, out: &mut Vec<u8>) {
        use crate::normalize::{no_ascii_block, normalize_into_with};
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 { vbmi2: true, .. } => {
                // SAFETY: `avx512::normalize_into` needs AVX-512F, BW and
                // VBMI2. A `Kind::Avx512 { vbmi2: true, .. }` is built only by
                // `Backend::avx512`, after it checked all three at run time.
                unsafe { avx512::normalize_into(text, out) }
            }
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 | Kind::ShaNi | Kind::Avx512 { vbmi2: false, .. } => {
                // SAFETY: `avx2::normalize_into` needs AVX2. `Kind::Avx2`
                // and `Kind::ShaNi` are built only by `Backend::avx2` and
                // `Backend::sha_ni`, which checked AVX2 at run time, and
                // `Kind::Avx512` by `Backend::avx512`, which checked it too.
                unsafe { avx2::normalize_into(text, out) }
            }
            Kind::Portable => normalize_into_with(text, out, no_ascii_block),
        }
    }

    /// Appends to `out` the position of every space of `text`, in order:
    /// the word boundaries of a normalized text.
    #[allow(unsafe_code)]
    pub(crate) fn spaces(self, text: &[u8], out: &mut Vec<u32>) {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 { .. } => {
                // SAFETY: `avx512::spaces` needs AVX-512F and AVX-512BW. A
                // `Kind::Avx512` is built only by `Backend::avx512`, after
                // it checked both at run time.
                unsafe { avx512::spaces(text, out) }
            }
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 | Kind::ShaNi => {
                // SAFETY: `avx2::spaces` needs AVX2. A `Kind::Avx2` or
                // `Kind::ShaNi` is built only by `Backend::avx2` or
                // `Backend::sha_ni`, and both checked AVX2 at run time.
                unsafe { avx2::spaces(text, out) }
            }
            Kind::Portable => portable::spaces(text, out),
        }
    }

    /// Appends the SHA-256 keys (see [`portable::key_one`]) of the messages
    /// `text[start..end]` to `out`, one per span.
    #[allow(unsafe_code)]
    pub(crate) fn keys(self, text: &[u8], spans: &[(usize, usize)], out: &mut Vec<u64>) {
        match self.0 {
            // AVX2 lanes measured slower than `sha2` (see `Backend::avx2`).
            Kind::Portable => portable::keys(text, spans, out),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => portable::keys(text, spans, out),
            #[cfg(target_arch = "x86_64")]
            Kind::ShaNi => {
                // SAFETY: `sha_ni::keys` needs SHA, SSE2, SSSE3 and SSE4.1.
                // A `Kind::ShaNi` is built only by `Backend::sha_ni`, after
                // it checked those features at run time.
                unsafe { sha_ni::keys(text, spans, out) }
            }
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 { .. } => {
                // SAFETY: `avx512::keys` needs AVX-512F and AVX-512BW. A
                // `Kind::Avx512` is built only by `Backend::avx512`, after
                // it checked both at run time.
                unsafe { avx512::keys(text, spans, out) }
            }
        }
    }

    /// Appends the SHA-256 digest of each `text[start..end]` to `out`: the
    /// normalized texts' hashes of a batch of documents, two at a time
    /// where the CPU has the SHA extensions.
    #[allow(unsafe_code)]
    pub(crate) fn digests(self, text: &[u8], spans: &[(usize, usize)], out: &mut Vec<Digest>) {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            Kind::ShaNi | Kind::Avx512 { sha: true, .. } => {
                let base = out.len();
                out.resize(base + spans.len(), Digest([0; 32]));
                // SAFETY: `sha_ni::digests` needs SHA, SSE2, SSSE3 and
                // SSE4.1. `Backend::sha_ni` checked them at run time before
                // building a `Kind::ShaNi`, and `Backend::avx512` before
                // building a `Kind::Avx512 { sha: true, .. }`.
                unsafe { sha_ni::digests(text, spans, &mut out[base..]) };
            }
            _ => out.extend(spans.iter().map(|&(s, e)| Digest::of(&text[s..e]))),
        }
    }

    /// `slots[i] = min(slots[i], min_h (a[i]·h + b[i]) mod 2³²)` over `hashes`.
    #[allow(unsafe_code)]
    pub(crate) fn min_slots(self, hashes: &[u32], a: &[u32], b: &[u32], slots: &mut [u32]) {
        match self.0 {
            Kind::Portable => portable::min_slots(hashes, a, b, slots),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 | Kind::ShaNi => {
                // SAFETY: `avx2::min_slots` needs AVX2. A `Kind::Avx2` or
                // `Kind::ShaNi` is built only by `Backend::avx2` or
                // `Backend::sha_ni`, and both checked AVX2 at run time.
                unsafe { avx2::min_slots(hashes, a, b, slots) }
            }
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 { .. } => {
                // SAFETY: `avx512::min_slots` needs AVX-512F and
                // AVX-512BW. A `Kind::Avx512` is built only by
                // `Backend::avx512`, after it checked both at run time.
                unsafe { avx512::min_slots(hashes, a, b, slots) }
            }
        }
    }
}

/// Asks the CPU to start loading the cache line of `at`, for a table
/// probed at random: a hint, which never faults whatever the address, and
/// nothing where there is no such instruction.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn prefetch<T>(at: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of x86-64, and a prefetch accesses no memory
    // architecturally: it cannot fault, even on an invalid address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at.cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// Asks the kernel to back `table` with huge pages, for a table of many
/// megabytes probed at random: with 4 KiB pages nearly every probe also
/// misses the TLB, and every page is a fault on first touch. (For a 100 MB
/// document `neardup sign --threads 1` took 1.27 s with 4 KiB pages and
/// 0.96 s with transparent huge pages, median of 4.) Call it before the
/// table is first written: pages already faulted in stay small. A hint:
/// nothing happens where there is no such call, or the kernel declines.
#[allow(unsafe_code)]
pub(crate) fn advise_huge_pages<T>(table: &[T]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let (start, len) = (table.as_ptr() as usize, std::mem::size_of_val(table));
        let first = start.next_multiple_of(PAGE);
        let end = (start + len) / PAGE * PAGE;
        if end > first {
            // SAFETY: `first..end` lies within `table`'s allocation, which
            // we hold, and is page-aligned as madvise requires.
            // MADV_HUGEPAGE changes only how the range is backed, never its
            // contents, so no reference to it is affected; a failure (an
            // old kernel, THP off) leaves the range as it was.
            unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = table;
}

/// The fastest backend this CPU can run, [`Backend::detect`].
impl Default for Backend {
    fn default() -> Backend {
        Backend::detect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_agree_with_all() {
        assert_eq!(Backend::portable().name(), Backend::ALL[0]);
        for (i, name) in Backend::ALL.into_iter().enumerate() {
            assert!(!Backend::ALL[..i].contains(&name), "{name} twice");
            if let Some(b) = Backend::from_name(name) {
                assert_eq!(b.name(), name);
            }
        }
        let supported: Vec<Backend> = Backend::supported().collect();
        assert_eq!(supported[0], Backend::portable());
        assert_eq!(supported.last(), Some(&Backend::detect()));
        assert_eq!(Backend::from_name("mmx"), None);
        assert_eq!(Backend::from_name("AVX2"), None);
    }

    #[test]
    fn detect_agrees_with_each_constructor() {
        let best = [Backend::avx512(), Backend::sha_ni(), Backend::avx2()]
            .into_iter()
            .flatten()
            .next();
        assert_eq!(Backend::detect(), best.unwrap_or(Backend::portable()));
        #[cfg(not(target_arch = "x86_64"))]
        assert_eq!(Backend::supported().count(), 1);
    }

    #[test]
    fn every_backend_gives_the_reference_keys_and_minimum() {
        let text: Vec<u8> = (0..400).map(|i| b'a' + (i % 26) as u8).collect();
        // Every length at several offsets, including spans that end at the
        // text's end, where no full window can be read: one to four blocks
        // (lanes) and longer (one at a time). Under Miri, where the portable
        // backend is the only one, a sample of the lengths keeps this to
        // minutes.
        let step = if cfg!(miri) { 13 } else { 1 };
        let mut spans = Vec::new();
        for len in (0..=300).step_by(step) {
            for start in [0, 1, 37, 400 - len] {
                spans.push((start, start + len));
            }
        }
        let mut want = Vec::new();
        portable::keys(&text, &spans, &mut want);
        let hashes: Vec<u32> = want.iter().map(|k| (k >> 32) as u32).collect();
        let perm = crate::permutations();
        let mut want_slots = vec![u32::MAX; 256];
        portable::min_slots(&hashes, &perm.a, &perm.b, &mut want_slots);
        for b in Backend::supported() {
            let mut got = vec![7];
            b.keys(&text, &spans, &mut got);
            assert_eq!(got[0], 7, "{b:?} overwrote what was there");
            assert_eq!(got[1..], want[..], "{b:?}");
            // Odd lengths too, so that vector loops leave a remainder.
            for n in [16, 17, 255, 256] {
                let mut slots = vec![u32::MAX; n];
                b.min_slots(
                    &hashes[..hashes.len().min(777)],
                    &perm.a[..n],
                    &perm.b[..n],
                    &mut slots,
                );
                let mut want = vec![u32::MAX; n];
                portable::min_slots(
                    &hashes[..hashes.len().min(777)],
                    &perm.a[..n],
                    &perm.b[..n],
                    &mut want,
                );
                assert_eq!(slots, want, "{b:?} n={n}");
            }
            let mut slots = vec![u32::MAX; 256];
            b.min_slots(&hashes, &perm.a, &perm.b, &mut slots);
            assert_eq!(slots, want_slots, "{b:?}");
            // Spaces at every position relative to 64-byte blocks, runs
            // of them, and tails of every length.
            let spaced: Vec<u8> = (0..300u32)
                .map(|i| {
                    if (i * i + i / 7) % 5 == 0 || (130..140).contains(&i) {
                        b' '
                    } else {
                        b'x'
                    }
                })
                .collect();
            for end in (0..=300).step_by(7).chain([63, 64, 65, 128, 299]) {
                let mut want = vec![9];
                portable::spaces(&spaced[..end], &mut want);
                let mut got = vec![9];
                b.spaces(&spaced[..end], &mut got);
                assert_eq!(got, want, "{b:?} end={end}");
            }
        }
    }

    /// Texts of every length around the block and padding edges, at
    /// several offsets, with long ones among them so that lanes finish at
    /// different times and take new texts, and none at all.
    #[test]
    fn every_backend_gives_the_reference_digests() {
        let text: Vec<u8> = (0..20_000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        let step = if cfg!(miri) { 17 } else { 1 };
        let mut spans = vec![(0, 20_000), (5, 12_345)];
        for len in (0..=200).step_by(step) {
            for start in [0, 3, 20_000 - len] {
                spans.push((start, start + len));
            }
        }
        spans.extend([(1, 4_000), (0, 0), (100, 9_999)]);
        let want: Vec<Digest> = spans
            .iter()
            .map(|&(s, e)| Digest::of(&text[s..e]))
            .collect();
        for b in Backend::supported() {
            let mut got = vec![Digest([7; 32])];
            b.digests(&text, &spans, &mut got);
            assert_eq!(got[0], Digest([7; 32]), "{b:?} overwrote what was there");
            assert_eq!(got[1..], want[..], "{b:?}");
            got.clear();
            b.digests(&text, &[], &mut got);
            assert!(got.is_empty());
        }
    }

    /// The shortest of 9 runs of `f`: on a shared machine the others
    /// measure the neighbours.
    fn best_of_9(mut f: impl FnMut()) -> std::time::Duration {
        (0..9)
            .map(|_| {
                let t = std::time::Instant::now();
                f();
                t.elapsed()
            })
            .min()
            .unwrap_or_default()
    }

    /// Prints MB/s of the digests of 200 texts of 2 to 64 KB for each
    /// backend. A measurement, not a check.
    #[test]
    #[ignore = "a measurement: cargo test --release -p neardup digests_speed -- --ignored --nocapture"]
    fn digests_speed() {
        let text: Vec<u8> = (0..8_000_000u32).map(|i| i as u8).collect();
        let mut spans = Vec::new();
        let mut at = 0;
        for i in 0..200 {
            let len = 2_000 + (i * i * 37) % 62_000;
            spans.push((at, at + len));
            at += len;
        }
        let bytes: usize = spans.iter().map(|&(s, e)| e - s).sum();
        for b in Backend::supported() {
            let mut out = Vec::with_capacity(spans.len());
            let best = best_of_9(|| {
                out.clear();
                b.digests(&text, &spans, &mut out);
            });
            let mbs = bytes as f64 / best.as_secs_f64() / 1e6;
            eprintln!("{:9} {mbs:.0} MB/s (best of 9)", b.name());
        }
    }

    /// Prints ns per hash of the 128-slot minimum for each backend. A
    /// measurement, not a check.
    #[test]
    #[ignore = "a measurement: cargo test --release -p neardup min_speed -- --ignored --nocapture"]
    fn min_speed() {
        let hashes: Vec<u32> = (0..1_000_000u32)
            .map(|i| i.wrapping_mul(0x9e37_79b9))
            .collect();
        let perm = crate::permutations();
        for b in Backend::supported() {
            let mut slots = vec![u32::MAX; 128];
            let t = std::time::Instant::now();
            for chunk in hashes.chunks(700) {
                b.min_slots(chunk, &perm.a[..128], &perm.b[..128], &mut slots);
            }
            let ns = t.elapsed().as_nanos() as f64 / hashes.len() as f64;
            eprintln!("{:9} {ns:.2} ns/hash ({})", b.name(), slots[0]);
        }
    }

    /// Prints ns per message for each backend. A measurement, not a check.
    #[test]
    #[ignore = "a measurement: cargo test --release -p neardup keys_speed -- --ignored --nocapture"]
    fn keys_speed() {
        let words = [
            "alpha", "be", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
        ];
        let text: Vec<String> = (0..200_000)
            .map(|i| words[i % 9].repeat(1 + i % 3))
            .collect();
        let joined = text.join(" ");
        let spans: Vec<(usize, usize)> = crate::shingle::shingles(&joined, 5)
            .map(|s| {
                let start = s.as_ptr() as usize - joined.as_ptr() as usize;
                (start, start + s.len())
            })
            .collect();
        for b in Backend::supported() {
            let mut out = Vec::with_capacity(spans.len());
            let best = best_of_9(|| {
                out.clear();
                b.keys(joined.as_bytes(), &spans, &mut out);
            });
            let ns = best.as_nanos() as f64 / spans.len() as f64;
            eprintln!("{:9} {ns:.1} ns/message (best of 9)", b.name());
        }
    }
}
