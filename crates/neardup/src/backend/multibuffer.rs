//! Multi-buffer SHA-256: many short messages hashed side by side, one per
//! lane, for the base hash `h0` of SPEC §3.
//!
//! A shingle is a short message (one 64-byte block for almost every
//! 5-word shingle), so hashing one at a time spends most of its time
//! waiting on the dependency chain of 64 rounds. Here the rounds run on
//! `L` independent messages at once: every state word is an array of `L`
//! lanes and each round is plain lane-wise arithmetic that the compiler
//! turns into vector instructions (16 lanes of AVX-512, see `avx512.rs`).
//! The code is portable and safe; only the target features it is compiled
//! with are the backend's. `sha_ni.rs` shares its padding and constants.

use super::portable::key_one;

/// A message fits in one block when its padding (0x80 and the 8-byte
/// length) fits after it.
pub const MAX_ONE_BLOCK: usize = 55;

pub(crate) const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

pub(crate) const IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// Pads the message `text[start..end]` into `B` blocks (SHA-256 padding:
/// 0x80, zeros, the bit length). Reads a fixed-size window when the text
/// has one, which the compiler turns into a few vector moves instead of a
/// `memcpy` call of variable length.
#[inline(always)]
pub(crate) fn pad<const B: usize>(text: &[u8], start: usize, end: usize) -> [[u8; 64]; B] {
    let len = end - start;
    let mut blocks = [[0u8; 64]; B];
    for (b, block) in blocks.iter_mut().enumerate() {
        let from = start + 64 * b;
        match text.get(from..from + 64) {
            Some(window) => {
                block.copy_from_slice(window);
                // A branch-free mask (0xff before the end, 0 after), so
                // that this is a vector compare and AND, not 64 branches.
                for (j, byte) in block.iter_mut().enumerate() {
                    *byte &= u8::from(64 * b + j < len).wrapping_neg();
                }
            }
            None => {
                let from = from.min(end);
                block[..end - from].copy_from_slice(&text[from..end]);
            }
        }
    }
    blocks[len / 64][len % 64] = 0x80;
    blocks[B - 1][56..].copy_from_slice(&(8 * len as u64).to_be_bytes());
    blocks
}

/// One SHA-256 compression of `L` blocks, one per lane, into `state`.
///
/// `inline(always)` matters: each backend calls this from a function
/// compiled with its own target features, and only an inlined copy gets
/// them.
#[inline(always)]
fn compress<const L: usize>(state: &mut [[u32; L]; 8], blocks: &[[u8; 64]; L]) {
    // Word-major (w[t][lane]), so that each step below is one vector
    // operation across lanes. Reading the padded blocks column by column
    // avoids building w with scalar stores and reading it back as vectors,
    // which would stall on store forwarding.
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
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
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
    // One statement per word: written as a loop over the words, the
    // compiler vectorized across them, built vectors of pointers and
    // gathered through them, which cost more than the 64 rounds (measured:
    // 45 → 28 ns per message-block).
    let add =
        |x: [u32; L], y: [u32; L]| -> [u32; L] { std::array::from_fn(|l| x[l].wrapping_add(y[l])) };
    *state = [
        add(state[0], a),
        add(state[1], b),
        add(state[2], c),
        add(state[3], d),
        add(state[4], e),
        add(state[5], f),
        add(state[6], g),
        add(state[7], h),
    ];
}

/// Messages of `B` blocks waiting for a full set of `L` lanes.
struct Lanes<const L: usize, const B: usize> {
    blocks: [[[u8; 64]; L]; B],
    slots: [usize; L],
    filled: usize,
}

impl<const L: usize, const B: usize> Lanes<L, B> {
    fn new() -> Self {
        Lanes {
            blocks: [[[0; 64]; L]; B],
            slots: [0; L],
            filled: 0,
        }
    }

    /// Queues the message for output slot `slot`; hashes the lanes when full.
    #[inline(always)]
    fn push(&mut self, text: &[u8], (start, end): (usize, usize), slot: usize, out: &mut [u64]) {
        let padded = pad::<B>(text, start, end);
        for (lane_blocks, block) in self.blocks.iter_mut().zip(padded) {
            lane_blocks[self.filled] = block;
        }
        self.slots[self.filled] = slot;
        self.filled += 1;
        if self.filled == L {
            self.flush(out);
        }
    }

    /// Hashes the queued messages (unused lanes hash stale data, ignored).
    #[inline(always)]
    fn flush(&mut self, out: &mut [u64]) {
        if self.filled == 0 {
            return;
        }
        let mut state = IV.map(|v| [v; L]);
        for blocks in &self.blocks {
            compress(&mut state, blocks);
        }
        for l in 0..self.filled {
            out[self.slots[l]] = u64::from(state[0][l]) << 32 | u64::from(state[1][l]);
        }
        self.filled = 0;
    }
}

/// Appends to `out` the keys (see [`key_one`]) of the messages
/// `text[start..end]`, one per span, in order. Messages of one or two
/// blocks (up to 119 bytes: nearly every shingle of a few words) are hashed
/// `L` at a time in lanes; longer ones one at a time.
#[inline(always)]
pub fn keys<const L: usize>(text: &[u8], spans: &[(usize, usize)], out: &mut Vec<u64>) {
    let base = out.len();
    out.resize(base + spans.len(), 0);
    let out = &mut out[base..];
    let mut one = Lanes::<L, 1>::new();
    let mut two = Lanes::<L, 2>::new();
    for (slot, &(start, end)) in spans.iter().enumerate() {
        match end - start {
            0..=MAX_ONE_BLOCK => one.push(text, (start, end), slot, out),
            56..=119 => two.push(text, (start, end), slot, out),
            _ => out[slot] = key_one(&text[start..end]),
        }
    }
    one.flush(out);
    two.flush(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(
        miri,
        ignore = "the AVX-512 backend's lanes, which Miri never runs: Backend::supported() is the portable one under Miri"
    )]
    fn lanes_agree_with_sha2_at_every_length() {
        let text: Vec<u8> = (0..300).map(|i| b'a' + (i % 26) as u8).collect();
        // Every length at several offsets, including spans that end at the
        // text's end, where no full window can be read.
        let mut spans = Vec::new();
        for len in 0..=200 {
            for start in [0, 1, 37, 300 - len] {
                spans.push((start, start + len));
            }
        }
        let want: Vec<u64> = spans.iter().map(|&(s, e)| key_one(&text[s..e])).collect();
        let mut got = vec![7];
        keys::<16>(&text, &spans, &mut got);
        keys::<3>(&text, &spans, &mut got);
        assert_eq!(got[0], 7);
        assert_eq!(got[1..=spans.len()], want[..]);
        assert_eq!(got[1 + spans.len()..], want[..]);
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod speed {
    #![allow(unsafe_code)]
    use super::*;

    #[target_feature(enable = "avx512f")]
    fn many(blocks: &[[u8; 64]; 16], rounds: usize) -> u32 {
        let mut acc = 0;
        for _ in 0..rounds {
            let mut state = IV.map(|v| [v; 16]);
            compress(&mut state, std::hint::black_box(blocks));
            acc ^= state[0][3];
        }
        acc
    }

    #[test]
    #[ignore = "a measurement"]
    fn compress_speed() {
        let blocks = [[7u8; 64]; 16];
        let t = std::time::Instant::now();
        // SAFETY: measurement only, run by hand on an AVX-512 machine.
        let x = unsafe { many(&blocks, 200_000) };
        let ns = t.elapsed().as_nanos() as f64 / (200_000.0 * 16.0);
        eprintln!("compress: {ns:.1} ns per message-block ({x})");
    }
}
