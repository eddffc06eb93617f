//! The AVX2 backend: the portable minimum loop, compiled 8 lanes wide.
//!
//! Hashing stays on the portable path (`sha2`, which uses SHA-NI by itself
//! where present): SHA-256 in 8 AVX2 lanes measured slower, because without
//! AVX-512's vector rotate the compiler keeps the rounds scalar.

/// [`super::portable::min_slots`] with AVX2. Calling it is `unsafe` where
/// AVX2 is not enabled at compile time: the caller must hold a backend
/// whose constructor checked AVX2.
#[target_feature(enable = "avx2")]
pub fn min_slots(hashes: &[u32], a: &[u32], b: &[u32], slots: &mut [u32]) {
    super::portable::min_slots(hashes, a, b, slots);
}
