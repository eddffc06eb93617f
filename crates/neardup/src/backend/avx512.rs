//! The AVX-512 backend: SHA-256 of 16 messages side by side, one per lane
//! (`multibuffer.rs`), and the portable minimum loop 16 lanes wide. Both
//! are portable code; only the target features they are compiled with are
//! this file's.

use super::multibuffer;

/// The keys of the messages `text[start..end]`, appended in order, 16 at a
/// time. Calling it is `unsafe` where AVX-512F is not enabled at compile
/// time: the caller must hold a backend whose constructor checked it.
#[target_feature(enable = "avx512f")]
pub fn keys(text: &[u8], spans: &[(usize, usize)], out: &mut Vec<u64>) {
    multibuffer::keys::<16>(text, spans, out);
}

/// [`super::portable::min_slots`] with AVX-512F, under the same contract.
#[target_feature(enable = "avx512f")]
pub fn min_slots(hashes: &[u32], a: &[u32], b: &[u32], slots: &mut [u32]) {
    super::portable::min_slots(hashes, a, b, slots);
}
