//! The portable backend: plain Rust, no CPU feature. It is what wasm and
//! non-x86 machines run, and the reference that every other backend must
//! equal value for value, so it stays the plainest way to write each loop.

use sha2::{Digest as _, Sha256};

/// The first 8 bytes of SHA-256 of `message`, big-endian: `h0` (SPEC §3) is
/// the top half, and the whole is the key a shingle set deduplicates on.
pub fn key_one(message: &[u8]) -> u64 {
    let d = Sha256::digest(message);
    u64::from_be_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
}

/// Appends to `out` the keys of the messages `text[start..end]`, one per
/// span, in order.
pub fn keys(text: &[u8], spans: &[(usize, usize)], out: &mut Vec<u64>) {
    out.extend(spans.iter().map(|&(s, e)| key_one(&text[s..e])));
}

/// Appends to `out` the position of every space of `text`, in order.
pub fn spaces(text: &[u8], out: &mut Vec<u32>) {
    let at = text.iter().enumerate().filter(|&(_, &b)| b == b' ');
    out.extend(at.map(|(i, _)| i as u32));
}

/// `slots[i] = min(slots[i], min_h (a[i]·h + b[i]) mod 2³²)` over `hashes`
/// (SPEC §5).
///
/// Written so that the compiler vectorizes it across `hashes` with whatever
/// instructions the caller's target features allow: the AVX2 and AVX-512
/// backends are this loop, inlined into a function compiled with more
/// features. Hashes go in blocks small enough to stay in L1 while all `N`
/// slots pass over them.
#[inline(always)]
pub fn min_slots(hashes: &[u32], a: &[u32], b: &[u32], slots: &mut [u32]) {
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
