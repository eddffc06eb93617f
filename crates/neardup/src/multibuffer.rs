//! Multi-buffer SHA-256: many short messages hashed side by side, one per
//! lane, for the base hash `h0` of SPEC §3.
//!
//! A shingle is a short message (one 64-byte block for almost every
//! 5-word shingle), so hashing one at a time spends most of its time
//! waiting on the dependency chain of 64 rounds. Here the rounds run on
//! `L` independent messages at once: every state word is an array of `L`
//! lanes and each round is plain lane-wise arithmetic that the compiler
//! turns into vector instructions (16 lanes of AVX-512 or 8 of AVX2, see
//! `platform.rs`). The code is portable and safe; only the choice of
//! target features differs per backend.

use sha2::{Digest as _, Sha256};

/// A message fits in one block when its padding (0x80 and the 8-byte
/// length) fits after it.
pub const MAX_ONE_BLOCK: usize = 55;

const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

const IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// The first 8 bytes of SHA-256 of `message`, big-endian: `h0` is the top
/// half. One message at a time, for messages of any length.
pub fn key_one(message: &[u8]) -> u64 {
    let d = Sha256::digest(message);
    u64::from_be_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
}

/// Keys (see [`key_one`]) of `L` messages of at most [`MAX_ONE_BLOCK`]
/// bytes each, hashed in lanes. Unused lanes may hold empty messages.
///
/// `inline(always)` matters: each backend calls this from a function
/// compiled with its own target features, and only an inlined copy gets
/// them.
#[inline(always)]
pub fn keys_one_block<const L: usize>(messages: &[&[u8]; L]) -> [u64; L] {
    // Pad every message into its own block first, then read the blocks
    // word-major (w[t][lane]), so that each step below is one vector
    // operation across lanes. Building w by scalar stores and reading it
    // back as vectors would stall on store forwarding.
    let mut blocks = [[0u8; 64]; L];
    for (block, m) in blocks.iter_mut().zip(messages) {
        block[..m.len()].copy_from_slice(m);
        block[m.len()] = 0x80;
        block[56..].copy_from_slice(&(8 * m.len() as u64).to_be_bytes());
    }
    let mut w = [[0u32; L]; 16];
    for (t, word) in w.iter_mut().enumerate() {
        for (l, block) in blocks.iter().enumerate() {
            word[l] = u32::from_be_bytes([
                block[4 * t],
                block[4 * t + 1],
                block[4 * t + 2],
                block[4 * t + 3],
            ]);
        }
    }

    // The rounds are written out with fixed register roles (the usual
    // `a..h` rotation by renaming, not by moving arrays) and constant
    // schedule indices, so every lane array can live in a vector register.
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = IV.map(|v| [v; L]);
    macro_rules! round {
        ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident, $t:expr, $j:expr) => {
            for l in 0..L {
                let s1 = $e[l].rotate_right(6) ^ $e[l].rotate_right(11) ^ $e[l].rotate_right(25);
                let ch = ($e[l] & $f[l]) ^ (!$e[l] & $g[l]);
                let t1 = $h[l]
                    .wrapping_add(s1)
                    .wrapping_add(ch)
                    .wrapping_add(K[$t + $j])
                    .wrapping_add(w[$j][l]);
                let s0 = $a[l].rotate_right(2) ^ $a[l].rotate_right(13) ^ $a[l].rotate_right(22);
                let maj = ($a[l] & $b[l]) ^ ($a[l] & $c[l]) ^ ($b[l] & $c[l]);
                $d[l] = $d[l].wrapping_add(t1);
                $h[l] = t1.wrapping_add(s0).wrapping_add(maj);
            }
        };
    }
    macro_rules! sixteen_rounds {
        ($t:expr) => {
            round!(a, b, c, d, e, f, g, h, $t, 0);
            round!(h, a, b, c, d, e, f, g, $t, 1);
            round!(g, h, a, b, c, d, e, f, $t, 2);
            round!(f, g, h, a, b, c, d, e, $t, 3);
            round!(e, f, g, h, a, b, c, d, $t, 4);
            round!(d, e, f, g, h, a, b, c, $t, 5);
            round!(c, d, e, f, g, h, a, b, $t, 6);
            round!(b, c, d, e, f, g, h, a, $t, 7);
            round!(a, b, c, d, e, f, g, h, $t, 8);
            round!(h, a, b, c, d, e, f, g, $t, 9);
            round!(g, h, a, b, c, d, e, f, $t, 10);
            round!(f, g, h, a, b, c, d, e, $t, 11);
            round!(e, f, g, h, a, b, c, d, $t, 12);
            round!(d, e, f, g, h, a, b, c, $t, 13);
            round!(c, d, e, f, g, h, a, b, $t, 14);
            round!(b, c, d, e, f, g, h, a, $t, 15);
        };
    }
    macro_rules! schedule {
        ($($j:expr),*) => {$(
            for l in 0..L {
                let w15 = w[($j + 1) % 16][l];
                let w2 = w[($j + 14) % 16][l];
                let s0 = w15.rotate_right(7) ^ w15.rotate_right(18) ^ (w15 >> 3);
                let s1 = w2.rotate_right(17) ^ w2.rotate_right(19) ^ (w2 >> 10);
                w[$j][l] = w[$j][l].wrapping_add(s0).wrapping_add(w[($j + 9) % 16][l]).wrapping_add(s1);
            }
        )*};
    }
    sixteen_rounds!(0);
    schedule!(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    sixteen_rounds!(16);
    schedule!(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    sixteen_rounds!(32);
    schedule!(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    sixteen_rounds!(48);
    // Only the first two state words are needed for the 8-byte key.
    let _ = (c, d, e, f, g, h);
    let mut keys = [0u64; L];
    for (l, key) in keys.iter_mut().enumerate() {
        let hi = a[l].wrapping_add(IV[0]);
        let lo = b[l].wrapping_add(IV[1]);
        *key = u64::from(hi) << 32 | u64::from(lo);
    }
    keys
}

/// Keys of all `messages`, `L` at a time in lanes; longer messages go one
/// at a time through [`key_one`]. The result is in input order.
#[inline(always)]
pub fn keys<const L: usize>(messages: &[&str], out: &mut Vec<u64>) {
    let start = out.len();
    out.resize(start + messages.len(), 0);
    let out = &mut out[start..];
    let mut lanes: [&[u8]; L] = [&[]; L];
    let mut slots = [0usize; L];
    let mut filled = 0;
    for (i, m) in messages.iter().enumerate() {
        let m = m.as_bytes();
        if m.len() > MAX_ONE_BLOCK {
            out[i] = key_one(m);
            continue;
        }
        lanes[filled] = m;
        slots[filled] = i;
        filled += 1;
        if filled == L {
            let keys = keys_one_block(&lanes);
            for (slot, key) in slots.iter().zip(keys) {
                out[*slot] = key;
            }
            filled = 0;
        }
    }
    if filled > 0 {
        let keys = keys_one_block(&lanes);
        for (slot, key) in slots.iter().zip(keys).take(filled) {
            out[*slot] = key;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_agree_with_sha2_at_every_length() {
        let text: String = (0..200)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let messages: Vec<&str> = (0..=120).map(|n| &text[..n]).collect();
        let mut got = Vec::new();
        keys::<16>(&messages, &mut got);
        keys::<3>(&messages, &mut got);
        let want: Vec<u64> = messages.iter().map(|m| key_one(m.as_bytes())).collect();
        assert_eq!(got[..messages.len()], want[..]);
        assert_eq!(got[messages.len()..], want[..]);
    }
}
