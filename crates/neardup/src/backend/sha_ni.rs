//! SHA-256 with the x86 SHA extensions, four messages interleaved.
//!
//! One short message is one or two compressions, and a compression is a
//! chain of 32 dependent `sha256rnds2` instructions: a single message
//! leaves the unit idle most of the time, waiting on latency. Four
//! independent messages step by step keep it busy. Only the key (the first
//! 8 bytes of the digest) is produced.
//!
//! Every function here is compiled for SHA, SSE2, SSSE3 and SSE4.1, so
//! calling [`keys`] is `unsafe` unless the caller holds a backend whose
//! constructor checked them (`Backend::sha_ni` does).

use std::arch::x86_64::*;

use super::portable::key_one;
use super::sha256::{pad, IV, K, MAX_ONE_BLOCK};

/// How many messages run interleaved.
const WAYS: usize = 4;

/// The two state registers in the order the instructions want them.
#[derive(Clone, Copy)]
struct State {
    abef: __m128i,
    cdgh: __m128i,
}

#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn initial() -> State {
    // ABEF = [F, E, B, A] from low to high lane; CDGH likewise.
    State {
        abef: _mm_set_epi32(IV[0] as i32, IV[1] as i32, IV[4] as i32, IV[5] as i32),
        cdgh: _mm_set_epi32(IV[2] as i32, IV[3] as i32, IV[6] as i32, IV[7] as i32),
    }
}

#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn k4(i: usize) -> __m128i {
    _mm_set_epi32(
        K[4 * i + 3] as i32,
        K[4 * i + 2] as i32,
        K[4 * i + 1] as i32,
        K[4 * i] as i32,
    )
}

/// Compresses one block into each of `WAYS` states, step by step across
/// the messages so that their instruction chains overlap.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn compress(states: &mut [State; WAYS], blocks: [&[u8; 64]; WAYS]) {
    let mut s = *states;
    // m[w][j] holds message words 4j..4j+3 of message w, the schedule
    // rotating through the four registers.
    let mut m = [[_mm_setzero_si128(); 4]; WAYS];
    for (w, block) in blocks.iter().enumerate() {
        for (j, words) in block.chunks_exact(16).enumerate() {
            let be = |i: usize| {
                u32::from_be_bytes([words[i], words[i + 1], words[i + 2], words[i + 3]]) as i32
            };
            m[w][j] = _mm_set_epi32(be(12), be(8), be(4), be(0));
        }
    }
    for i in 0..16 {
        let k = k4(i);
        for w in 0..WAYS {
            let (cur, prev, next) = (i % 4, (i + 3) % 4, (i + 1) % 4);
            let msg = _mm_add_epi32(m[w][cur], k);
            s[w].cdgh = _mm_sha256rnds2_epu32(s[w].cdgh, s[w].abef, msg);
            if (3..15).contains(&i) {
                let tmp = _mm_alignr_epi8(m[w][cur], m[w][prev], 4);
                m[w][next] = _mm_sha256msg2_epu32(_mm_add_epi32(m[w][next], tmp), m[w][cur]);
            }
            s[w].abef = _mm_sha256rnds2_epu32(s[w].abef, s[w].cdgh, _mm_shuffle_epi32(msg, 0x0e));
            if (1..13).contains(&i) {
                m[w][prev] = _mm_sha256msg1_epu32(m[w][prev], m[w][cur]);
            }
        }
    }
    for (out, new) in states.iter_mut().zip(s) {
        out.abef = _mm_add_epi32(out.abef, new.abef);
        out.cdgh = _mm_add_epi32(out.cdgh, new.cdgh);
    }
}

/// The key of a finished state: digest words A and B.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn key(s: State) -> u64 {
    let a = _mm_extract_epi32(s.abef, 3) as u32;
    let b = _mm_extract_epi32(s.abef, 2) as u32;
    u64::from(a) << 32 | u64::from(b)
}

/// Messages of `B` blocks waiting for all `WAYS` slots to fill.
struct Queue<const B: usize> {
    blocks: [[[u8; 64]; B]; WAYS],
    slots: [usize; WAYS],
    filled: usize,
}

impl<const B: usize> Queue<B> {
    fn new() -> Self {
        Queue {
            blocks: [[[0; 64]; B]; WAYS],
            slots: [0; WAYS],
            filled: 0,
        }
    }

    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    fn push(&mut self, text: &[u8], span: (usize, usize), slot: usize, out: &mut [u64]) {
        self.blocks[self.filled] = pad::<B>(text, span.0, span.1);
        self.slots[self.filled] = slot;
        self.filled += 1;
        if self.filled == WAYS {
            self.flush(out);
        }
    }

    /// Hashes what is queued; empty slots hash stale blocks, ignored.
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    fn flush(&mut self, out: &mut [u64]) {
        if self.filled == 0 {
            return;
        }
        let mut states = [initial(); WAYS];
        for b in 0..B {
            let blocks = [
                &self.blocks[0][b],
                &self.blocks[1][b],
                &self.blocks[2][b],
                &self.blocks[3][b],
            ];
            compress(&mut states, blocks);
        }
        for w in 0..self.filled {
            out[self.slots[w]] = key(states[w]);
        }
        self.filled = 0;
    }
}

/// Appends the keys of the messages `text[start..end]`, in order.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
pub fn keys(text: &[u8], spans: &[(usize, usize)], out: &mut Vec<u64>) {
    let base = out.len();
    out.resize(base + spans.len(), 0);
    let out = &mut out[base..];
    let mut one = Queue::<1>::new();
    let mut two = Queue::<2>::new();
    for (slot, &span) in spans.iter().enumerate() {
        match span.1 - span.0 {
            0..=MAX_ONE_BLOCK => one.push(text, span, slot, out),
            56..=119 => two.push(text, span, slot, out),
            _ => out[slot] = key_one(&text[span.0..span.1]),
        }
    }
    one.flush(out);
    two.flush(out);
}
