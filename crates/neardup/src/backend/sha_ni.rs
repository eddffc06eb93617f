//! SHA-256 with the x86 SHA extensions, several messages interleaved.
//!
//! One short message is one or two compressions, and a compression is a
//! chain of 32 dependent `sha256rnds2` instructions: a single message
//! leaves the unit idle most of the time, waiting on latency. `WAYS`
//! independent messages step by step keep it busy. Of a shingle, only the
//! key (the first 8 bytes of the digest) is produced; [`digests`] gives the
//! whole digests of long texts, `LANES` at a time.
//!
//! A message never goes through memory on its way in: each 16-byte piece
//! of a block is loaded straight from the text, masked past the message's
//! end, given its 0x80 byte by a compare, and byte-swapped into big-endian
//! words, all in registers.
//!
//! Every function here is compiled for SHA, SSE2, SSSE3 and SSE4.1, so
//! calling [`keys`] is `unsafe` unless the caller holds a backend whose
//! constructor checked them (`Backend::sha_ni` does).

use std::arch::x86_64::*;

use super::portable::key_one;
use super::sha256::{IV, K, MAX_ONE_BLOCK};
use crate::Digest;

/// How many messages run interleaved. `sha256rnds2` has a latency of
/// several cycles and a throughput of one per cycle, so independent
/// messages fill the gaps. `keys_speed` on a Zen 3: 2 ways 31.3 ns per
/// message, 4 ways 29.5, 6 ways 27.3, 8 ways 30.5 (register spills).
const WAYS: usize = 6;

/// A message to hash: where it starts in the text, its length, and where
/// its key goes.
#[derive(Clone, Copy, Default)]
struct Message {
    start: usize,
    len: usize,
    slot: usize,
}

/// The sixteen words of one block, big-endian, four to a register.
type Block = [__m128i; 4];

/// Block `b` of a message of `blocks` blocks, padded (SHA-256 padding:
/// 0x80, zeros, the bit length in the last block).
#[inline]
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
#[allow(unsafe_code)]
fn load(text: &[u8], m: Message, b: usize, blocks: usize) -> Block {
    let from = m.start + 64 * b;
    let mut tail = [0u8; 64];
    let window: &[u8; 64] = match text.get(from..from + 64) {
        Some(window) => window.try_into().expect("64 bytes"),
        // Near the text's end there is no full window: copy what is left.
        None => {
            let (from, end) = (from.min(m.start + m.len), m.start + m.len);
            tail[..end - from].copy_from_slice(&text[from..end]);
            &tail
        }
    };
    // How many bytes of this block are the message's: 64 when it goes on,
    // -1 when it ended in an earlier block (no byte kept, no 0x80).
    let here = (m.len as isize - 64 * b as isize).clamp(-1, 64) as i8;
    let here = _mm_set1_epi8(here);
    let swap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    let mut words = [_mm_setzero_si128(); 4];
    for (j, words) in words.iter_mut().enumerate() {
        // SAFETY: `window` is 64 bytes, and this reads bytes 16j..16j+16,
        // j < 4, without alignment.
        let v = unsafe { _mm_loadu_si128(window.as_ptr().add(16 * j).cast()) };
        let at = _mm_add_epi8(
            _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
            _mm_set1_epi8(16 * j as i8),
        );
        let kept = _mm_and_si128(v, _mm_cmpgt_epi8(here, at));
        let end = _mm_and_si128(_mm_cmpeq_epi8(here, at), _mm_set1_epi8(0x80u8 as i8));
        *words = _mm_shuffle_epi8(_mm_or_si128(kept, end), swap);
    }
    if b + 1 == blocks {
        // Bytes 56..64 were masked to zero: word 14, the length's high
        // half, stays zero (no shingle is 512 MiB), word 15 takes the rest.
        words[3] = _mm_insert_epi32::<3>(words[3], (8 * m.len) as i32);
    }
    words
}

/// Rounds 4i..4i+4 of each of the `W` messages, step by step across
/// them so that their instruction chains overlap. `m[w][j]` holds message
/// words 4j..4j+3 of message `w`, the schedule rotating through the four
/// registers.
#[inline]
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn rounds<const I: usize, const W: usize>(
    abef: &mut [__m128i; W],
    cdgh: &mut [__m128i; W],
    m: &mut [Block; W],
) {
    let k = _mm_set_epi32(
        K[4 * I + 3] as i32,
        K[4 * I + 2] as i32,
        K[4 * I + 1] as i32,
        K[4 * I] as i32,
    );
    let (cur, prev, next) = (I % 4, (I + 3) % 4, (I + 1) % 4);
    for w in 0..W {
        let msg = _mm_add_epi32(m[w][cur], k);
        cdgh[w] = _mm_sha256rnds2_epu32(cdgh[w], abef[w], msg);
        if (3..15).contains(&I) {
            let tmp = _mm_alignr_epi8(m[w][cur], m[w][prev], 4);
            m[w][next] = _mm_sha256msg2_epu32(_mm_add_epi32(m[w][next], tmp), m[w][cur]);
        }
        abef[w] = _mm_sha256rnds2_epu32(abef[w], cdgh[w], _mm_shuffle_epi32(msg, 0x0e));
        if (1..13).contains(&I) {
            m[w][prev] = _mm_sha256msg1_epu32(m[w][prev], m[w][cur]);
        }
    }
}

/// The initial state, as ABEF and CDGH (`[F, E, B, A]` from low to high
/// lane, and likewise).
#[inline]
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn iv() -> (__m128i, __m128i) {
    (
        _mm_set_epi32(IV[0] as i32, IV[1] as i32, IV[4] as i32, IV[5] as i32),
        _mm_set_epi32(IV[2] as i32, IV[3] as i32, IV[6] as i32, IV[7] as i32),
    )
}

/// One block of each of `W` messages, side by side: their states move on
/// by the blocks `m` (whose registers the schedule uses up).
#[inline]
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn compress<const W: usize>(abef: &mut [__m128i; W], cdgh: &mut [__m128i; W], m: &mut [Block; W]) {
    let (mut s_abef, mut s_cdgh) = (*abef, *cdgh);
    // Spelled out so that every register index is a constant: a loop
    // here, not unrolled, kept the schedule in memory.
    macro_rules! rounds {
        ($($i:literal)*) => {$(
            rounds::<$i, W>(&mut s_abef, &mut s_cdgh, m);
        )*};
    }
    rounds!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    for w in 0..W {
        abef[w] = _mm_add_epi32(abef[w], s_abef[w]);
        cdgh[w] = _mm_add_epi32(cdgh[w], s_cdgh[w]);
    }
}

/// The keys of `WAYS` messages of `B` blocks each, hashed side by side.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn hash<const B: usize>(text: &[u8], group: &[Message; WAYS], out: &mut [u64]) {
    let (mut abef, mut cdgh) = ([iv().0; WAYS], [iv().1; WAYS]);
    for b in 0..B {
        let mut m: [Block; WAYS] = std::array::from_fn(|w| load(text, group[w], b, B));
        compress(&mut abef, &mut cdgh, &mut m);
    }
    for (m, abef) in group.iter().zip(abef) {
        // The key is digest words A and B.
        let a = _mm_extract_epi32::<3>(abef) as u32;
        let b = _mm_extract_epi32::<2>(abef) as u32;
        out[m.slot] = u64::from(a) << 32 | u64::from(b);
    }
}

/// Messages of `B` blocks waiting for all `WAYS` places to fill.
struct Queue<const B: usize> {
    group: [Message; WAYS],
    filled: usize,
}

impl<const B: usize> Queue<B> {
    fn new() -> Self {
        Queue {
            group: [Message::default(); WAYS],
            filled: 0,
        }
    }

    #[inline]
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    fn push(&mut self, text: &[u8], m: Message, out: &mut [u64]) {
        self.group[self.filled] = m;
        self.filled += 1;
        if self.filled == WAYS {
            hash::<B>(text, &self.group, out);
            self.filled = 0;
        }
    }

    /// Hashes what is queued; the empty places repeat the first message.
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    fn flush(&mut self, text: &[u8], out: &mut [u64]) {
        if self.filled > 0 {
            let first = self.group[0];
            self.group[self.filled..].fill(first);
            hash::<B>(text, &self.group, out);
            self.filled = 0;
        }
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
    for (slot, &(start, end)) in spans.iter().enumerate() {
        let m = Message {
            start,
            len: end - start,
            slot,
        };
        match m.len {
            0..=MAX_ONE_BLOCK => one.push(text, m, out),
            56..=119 => two.push(text, m, out),
            _ => out[slot] = key_one(&text[start..end]),
        }
    }
    one.flush(text, out);
    two.flush(text, out);
}

/// How many texts [`digests`] hashes side by side. A text is a chain of
/// compressions, each waiting on the last; a second chain fills some of
/// the gaps. `digests_speed` on the Intel Xeon (AVX-512, SHA-NI) of
/// bench/RESULTS.md: one at a time 2,037 MB/s (as `sha2`), two 2,583, three
/// 2,464, four 2,437.
const LANES: usize = 2;

/// A text in one lane of [`digests`]: where it starts, how many of its
/// blocks are whole in the text, and its last one or two blocks, padded.
struct Lane {
    slot: usize,
    start: usize,
    whole: usize,
    blocks: usize,
    /// The next block to hash.
    next: usize,
    tail: [u8; 128],
}

impl Lane {
    fn new(text: &[u8], (start, end): (usize, usize), slot: usize) -> Lane {
        let len = end - start;
        let whole = len / 64;
        let rest = &text[start + 64 * whole..end];
        let mut tail = [0; 128];
        tail[..rest.len()].copy_from_slice(rest);
        tail[rest.len()] = 0x80;
        // The bit length goes in the last 8 bytes of the block that has
        // room for them after the 0x80.
        let padded = if rest.len() + 9 <= 64 { 1 } else { 2 };
        tail[64 * padded - 8..64 * padded].copy_from_slice(&(8 * len as u64).to_be_bytes());
        Lane {
            slot,
            start,
            whole,
            blocks: whole + padded,
            next: 0,
            tail,
        }
    }

    /// The lane's next block, as big-endian words.
    #[inline]
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    #[allow(unsafe_code)]
    fn block(&self, text: &[u8]) -> Block {
        let bytes: &[u8; 64] = match self.next.checked_sub(self.whole) {
            None => text[self.start + 64 * self.next..][..64].try_into(),
            Some(b) => self.tail[64 * b..][..64].try_into(),
        }
        .expect("64 bytes");
        let swap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
        // SAFETY: `bytes` is 64 bytes, and this reads bytes 16j..16j+16,
        // j < 4, without alignment.
        std::array::from_fn(|j| unsafe {
            _mm_shuffle_epi8(_mm_loadu_si128(bytes.as_ptr().add(16 * j).cast()), swap)
        })
    }
}

/// The SHA-256 digest of each `text[start..end]`, into `out` in order:
/// [`LANES`] texts side by side, longest first, a lane taking the next
/// text as soon as its own is done, so that one long text holds back no
/// other. (The `sha2` crate hashes one text at a time, each compression
/// waiting on the last.)
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
pub fn digests(text: &[u8], spans: &[(usize, usize)], out: &mut [Digest]) {
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_unstable_by_key(|&i| std::cmp::Reverse(spans[i].1 - spans[i].0));
    let mut order = order.into_iter();
    let mut lanes: [Option<Lane>; LANES] = Default::default();
    let (mut abef, mut cdgh) = ([iv().0; LANES], [iv().1; LANES]);
    loop {
        for (w, lane) in lanes.iter_mut().enumerate() {
            if let Some(done) = lane.take_if(|l| l.next == l.blocks) {
                out[done.slot] = Digest(digest(abef[w], cdgh[w]));
            }
            if lane.is_none() {
                *lane = order.next().map(|i| Lane::new(text, spans[i], i));
                (abef[w], cdgh[w]) = iv();
            }
        }
        if lanes.iter().all(Option::is_none) {
            return;
        }
        // An empty lane hashes zeros, and its state is reset before use.
        let mut m: [Block; LANES] = std::array::from_fn(|w| {
            lanes[w]
                .as_ref()
                .map_or([_mm_setzero_si128(); 4], |l| l.block(text))
        });
        compress(&mut abef, &mut cdgh, &mut m);
        for lane in lanes.iter_mut().flatten() {
            lane.next += 1;
        }
    }
}

/// The digest bytes of a final state: A to H, big-endian.
#[inline]
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn digest(abef: __m128i, cdgh: __m128i) -> [u8; 32] {
    let words = [
        _mm_extract_epi32::<3>(abef),
        _mm_extract_epi32::<2>(abef),
        _mm_extract_epi32::<3>(cdgh),
        _mm_extract_epi32::<2>(cdgh),
        _mm_extract_epi32::<1>(abef),
        _mm_extract_epi32::<0>(abef),
        _mm_extract_epi32::<1>(cdgh),
        _mm_extract_epi32::<0>(cdgh),
    ];
    let mut out = [0; 32];
    for (bytes, word) in out.chunks_exact_mut(4).zip(words) {
        bytes.copy_from_slice(&(word as u32).to_be_bytes());
    }
    out
}
