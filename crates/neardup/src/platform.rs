//! Picks the fastest backend the CPU supports, at run time, for the two hot
//! loops: hashing shingles (SHA-256 in lanes) and the `N`-slot minimum.
//!
//! Every backend computes exactly the same values; they differ only in the
//! vector instructions the compiler may use. The portable backend needs no
//! CPU feature at all and is what wasm and non-x86 machines run.

// The one module allowed `unsafe`: calling a backend compiled for CPU
// features, after checking at run time that the CPU has them.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicU8, Ordering};

use crate::multibuffer;

/// A code path for the hot loops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Plain Rust: the `sha2` crate one message at a time (it uses SHA-NI
    /// by itself where present) and a scalar minimum loop.
    Portable,
    /// x86-64 AVX2: the `sha2` crate's hashing (SHA-NI where present) and
    /// an 8-wide minimum loop. (SHA-256 in 8 AVX2 lanes measured slower
    /// than `sha2`: without AVX-512's vector rotate the compiler keeps the
    /// rounds scalar.)
    Avx2,
    /// x86-64 SHA extensions, four messages interleaved, with the AVX2
    /// minimum loop.
    ShaNi,
    /// x86-64 AVX-512F: 16 messages per lane group, 16-wide minimum.
    Avx512,
}

/// 0 = not chosen yet; otherwise `Backend as u8 + 1`.
static CHOSEN: AtomicU8 = AtomicU8::new(0);

impl Backend {
    /// Every backend, in declaration order, which is the order of
    /// preference: the last supported one is picked.
    pub const ALL: [Backend; 4] = [
        Backend::Portable,
        Backend::Avx2,
        Backend::ShaNi,
        Backend::Avx512,
    ];

    /// The name used by `NEARDUP_BACKEND` and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Portable => "portable",
            Backend::Avx2 => "avx2",
            Backend::ShaNi => "sha-ni",
            Backend::Avx512 => "avx512",
        }
    }

    /// Parses a [`Backend::name`].
    pub fn from_name(name: &str) -> Option<Backend> {
        Backend::ALL.into_iter().find(|b| b.name() == name)
    }

    /// Whether this CPU can run the backend.
    pub fn is_supported(self) -> bool {
        match self {
            Backend::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => std::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Backend::ShaNi => {
                std::is_x86_feature_detected!("sha")
                    && std::is_x86_feature_detected!("sse4.1")
                    && std::is_x86_feature_detected!("ssse3")
                    && std::is_x86_feature_detected!("avx2")
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => std::is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The fastest supported backend.
    pub fn detect() -> Backend {
        let best = Backend::ALL.into_iter().rev().find(|b| b.is_supported());
        best.unwrap_or(Backend::Portable)
    }

    /// The backend in use: the one [`Backend::force`] chose, else the
    /// fastest supported one.
    pub fn active() -> Backend {
        match CHOSEN.load(Ordering::Relaxed) {
            0 => {
                let b = Backend::detect();
                CHOSEN.store(b as u8 + 1, Ordering::Relaxed);
                b
            }
            n => Backend::ALL[usize::from(n - 1)],
        }
    }

    /// Makes every later computation in this process use `self`, so that
    /// tests can run the vectors through each backend. Refused (returning
    /// `false`) when the CPU cannot run it.
    pub fn force(self) -> bool {
        if self.is_supported() {
            CHOSEN.store(self as u8 + 1, Ordering::Relaxed);
        }
        self.is_supported()
    }

    /// Appends the SHA-256 keys (see [`multibuffer::key_one`]) of the
    /// messages `text[start..end]` to `out`, one per span.
    pub(crate) fn keys(self, text: &[u8], spans: &[(usize, usize)], out: &mut Vec<u64>) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 if self.is_supported() => {
                // SAFETY: AVX-512F support was just checked at run time.
                unsafe { x86::keys_avx512(text, spans, out) }
            }
            #[cfg(target_arch = "x86_64")]
            Backend::ShaNi if self.is_supported() => {
                // SAFETY: SHA, SSE4.1 and SSSE3 support was just checked.
                unsafe { crate::sha_ni::keys(text, spans, out) }
            }
            _ => out.extend(
                spans
                    .iter()
                    .map(|&(s, e)| multibuffer::key_one(&text[s..e])),
            ),
        }
    }

    /// `slots[i] = min(slots[i], min_h (a[i]·h + b[i]) mod 2³²)` over `hashes`.
    pub(crate) fn min_slots(self, hashes: &[u32], a: &[u32], b: &[u32], slots: &mut [u32]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 if self.is_supported() => {
                // SAFETY: AVX-512F support was just checked at run time.
                unsafe { x86::min_slots_avx512(hashes, a, b, slots) }
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 | Backend::ShaNi if self.is_supported() => {
                // SAFETY: both backends check AVX2 support at run time.
                unsafe { x86::min_slots_avx2(hashes, a, b, slots) }
            }
            _ => min_slots(hashes, a, b, slots),
        }
    }
}

/// The minimum loop, written so that the compiler vectorizes it across
/// `hashes` with whatever instructions the caller's target features allow.
/// Hashes go in blocks small enough to stay in L1 while all `N` slots pass
/// over them.
#[inline(always)]
fn min_slots(hashes: &[u32], a: &[u32], b: &[u32], slots: &mut [u32]) {
    for block in hashes.chunks(2048) {
        for ((slot, &a), &b) in slots.iter_mut().zip(a).zip(b) {
            let m = block
                .iter()
                .map(|&h| a.wrapping_mul(h).wrapping_add(b))
                .fold(u32::MAX, u32::min);
            *slot = (*slot).min(m);
        }
    }
}

/// The x86-64 backends: the portable code above, compiled with more
/// target features. The `unsafe` is only in calling them, which the
/// dispatcher does after checking the features at run time.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use crate::multibuffer;

    #[target_feature(enable = "avx512f")]
    pub fn keys_avx512(text: &[u8], spans: &[(usize, usize)], out: &mut Vec<u64>) {
        multibuffer::keys::<16>(text, spans, out);
    }

    #[target_feature(enable = "avx2")]
    pub fn min_slots_avx2(hashes: &[u32], a: &[u32], b: &[u32], slots: &mut [u32]) {
        super::min_slots(hashes, a, b, slots);
    }

    #[target_feature(enable = "avx512f")]
    pub fn min_slots_avx512(hashes: &[u32], a: &[u32], b: &[u32], slots: &mut [u32]) {
        super::min_slots(hashes, a, b, slots);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Prints ns per message for each backend. A measurement, not a check.
    #[test]
    fn all_is_in_declaration_order() {
        // `active` maps the stored discriminant back through `ALL`.
        for (i, b) in Backend::ALL.into_iter().enumerate() {
            assert_eq!(b as usize, i);
            assert_eq!(Backend::from_name(b.name()), Some(b));
        }
    }

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
        for b in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
            let mut out = Vec::with_capacity(spans.len());
            let t = std::time::Instant::now();
            for _ in 0..5 {
                out.clear();
                b.keys(joined.as_bytes(), &spans, &mut out);
            }
            let ns = t.elapsed().as_nanos() as f64 / (5 * spans.len()) as f64;
            eprintln!("{:9} {ns:.1} ns/message", b.name());
        }
    }
}
