//! The AVX-512 backend: SHA-256 of 16 messages side by side, one per
//! 32-bit lane of a 512-bit register, written with `core::arch` intrinsics,
//! and the minimum loop 16 slots wide.
//!
//! A shingle is a short message (one 64-byte block for almost every 5-word
//! shingle). One message at a time, SHA-256 waits on the dependency chain of
//! its 64 rounds; here each round is a handful of vector instructions that
//! advance 16 independent messages at once. Messages are sorted by block
//! count first, so a one-block message never waits in a lane for a
//! two-block one: messages of one, two, three and four blocks go in passes
//! of their own, and longer ones (rare for small `K`) go to `sha2` one at a
//! time.
//!
//! Every function is compiled for AVX-512F and AVX-512BW, so calling [`keys`]
//! or [`min_slots`] is `unsafe` unless the caller holds a backend whose
//! constructor checked both (`Backend::avx512` does).

use std::arch::x86_64::*;

use super::portable::key_one;
use super::sha256::{IV, K};

/// Appends to `out` the keys (see [`key_one`]) of the messages
/// `text[start..end]`, one per span, in order.
#[target_feature(enable = "avx512f,avx512bw")]
pub fn keys(text: &[u8], spans: &[(usize, usize)], out: &mut Vec<u64>) {
    let base = out.len();
    out.resize(base + spans.len(), 0);
    let out = &mut out[base..];
    // Sorted by block count, so that no lane waits on a longer message.
    let mut by_blocks: [Vec<u32>; MAX_BLOCKS] = Default::default();
    for (slot, &(start, end)) in spans.iter().enumerate() {
        match (end - start + 8) / 64 {
            blocks if blocks < MAX_BLOCKS => by_blocks[blocks].push(slot as u32),
            _ => out[slot] = key_one(&text[start..end]),
        }
    }
    for group in by_blocks[0].chunks(16) {
        hash::<1>(text, spans, group, out);
    }
    for group in by_blocks[1].chunks(16) {
        hash::<2>(text, spans, group, out);
    }
    for group in by_blocks[2].chunks(16) {
        hash::<3>(text, spans, group, out);
    }
    for group in by_blocks[3].chunks(16) {
        hash::<4>(text, spans, group, out);
    }
}

/// Messages of up to this many blocks (247 bytes) go in lanes; longer ones
/// to `sha2` one at a time.
const MAX_BLOCKS: usize = 4;

/// Hashes the `B`-block messages `spans[slot]` of `slots` (at most 16),
/// one per lane, and writes their keys. Lanes past the end of `slots` hash
/// an empty block, ignored.
///
/// (Two groups of 16 interleaved, to hide the rounds' latency, measured
/// slower: 22.4 against 21.5 ns a message. The rounds are bound by the two
/// vector ports, not by latency, and two groups' state and schedule do not
/// fit in the 32 registers.)
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn hash<const B: usize>(text: &[u8], spans: &[(usize, usize)], slots: &[u32], out: &mut [u64]) {
    let mut state = IV.map(|v| _mm512_set1_epi32(v as i32));
    // Which block is the last is a constant of each call: decided per lane
    // at run time, it measured 40 against 24 ns a message.
    for blk in 0..B - 1 {
        absorb::<false>(text, spans, slots, blk, &mut state);
    }
    absorb::<true>(text, spans, slots, B - 1, &mut state);
    write_keys(&state, slots, out);
}

/// Compresses block `blk` of each message into its lane of `state`, the
/// `LAST` one with the bit length.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn absorb<const LAST: bool>(
    text: &[u8],
    spans: &[(usize, usize)],
    slots: &[u32],
    blk: usize,
    state: &mut [__m512i; 8],
) {
    let mut rows = [_mm512_setzero_si512(); 16];
    for (row, &slot) in rows.iter_mut().zip(slots) {
        let (start, end) = spans[slot as usize];
        *row = block(text, start, end, 64 * blk, LAST);
    }
    let mut w = [_mm512_setzero_si512(); 16];
    transpose(&rows, &mut w);
    compress(state, &mut w);
}

/// The bytes `text[at..at + len]` (`len <= 64`) in a register, zeros after.
/// A masked load reads only the bytes it keeps, so it never reads past the
/// text's end, and it costs one instruction whatever the length.
#[inline]
#[allow(unsafe_code)]
#[target_feature(enable = "avx512f,avx512bw")]
fn load(text: &[u8], at: usize, len: usize) -> __m512i {
    let bytes = &text[at..at + len];
    let mask = u64::MAX.checked_shr(64 - len as u32).unwrap_or(0);
    // SAFETY: the mask keeps bytes 0..len, which are `bytes`, in bounds
    // (the slice above checked it); masked-off bytes are not accessed
    // (Intel SDM, VMOVDQU8: "faults are suppressed on masked-off
    // elements"), and AVX-512BW is enabled on this function.
    unsafe { _mm512_maskz_loadu_epi8(mask, bytes.as_ptr().cast()) }
}

/// The 16 message words of a block, as SHA-256 reads them (big-endian).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn bswap(v: __m512i) -> __m512i {
    let order = _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203);
    _mm512_shuffle_epi8(v, order)
}

/// Block `from / 64` of the padded message `text[start..end]`: the
/// message bytes it holds, the 0x80 byte if the message ends inside it,
/// zeros, and in the `last` block the bit length in the final word (a
/// message of at most 247 bytes has a length under 2¹⁶ bits, so the word
/// before it is zero).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn block(text: &[u8], start: usize, end: usize, from: usize, last: bool) -> __m512i {
    let len = end - start;
    let here = len.saturating_sub(from).min(64);
    let v = load(text, start + from.min(len), here);
    let end_mark = match len.checked_sub(from) {
        Some(at) if at < 64 => 1u64 << at,
        _ => 0,
    };
    let v = bswap(_mm512_mask_mov_epi8(
        v,
        end_mark,
        _mm512_set1_epi8(0x80u8 as i8),
    ));
    let length = if last { 1 << 15 } else { 0 };
    _mm512_mask_mov_epi32(v, length, _mm512_set1_epi32(8 * len as i32))
}

/// `rows[l]` holds lane `l`'s 16 words; `w[t]` gets word `t` of every lane.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn transpose(rows: &[__m512i; 16], w: &mut [__m512i; 16]) {
    // Within each 128-bit quarter, pairs of rows interleave into 2×2 and
    // then 4×4 tiles: b[4j + c], quarter q, is word 4q + c of rows 4j..4j+4.
    let mut a = [_mm512_setzero_si512(); 16];
    for i in 0..8 {
        a[2 * i] = _mm512_unpacklo_epi32(rows[2 * i], rows[2 * i + 1]);
        a[2 * i + 1] = _mm512_unpackhi_epi32(rows[2 * i], rows[2 * i + 1]);
    }
    let mut b = [_mm512_setzero_si512(); 16];
    for j in 0..4 {
        b[4 * j] = _mm512_unpacklo_epi64(a[4 * j], a[4 * j + 2]);
        b[4 * j + 1] = _mm512_unpackhi_epi64(a[4 * j], a[4 * j + 2]);
        b[4 * j + 2] = _mm512_unpacklo_epi64(a[4 * j + 1], a[4 * j + 3]);
        b[4 * j + 3] = _mm512_unpackhi_epi64(a[4 * j + 1], a[4 * j + 3]);
    }
    // Then the quarters move: word 4q + c of all 16 rows is quarter q of
    // b[c], b[4 + c], b[8 + c] and b[12 + c].
    for c in 0..4 {
        let e0 = _mm512_shuffle_i32x4::<0b10_00_10_00>(b[c], b[4 + c]);
        let e1 = _mm512_shuffle_i32x4::<0b11_01_11_01>(b[c], b[4 + c]);
        let f0 = _mm512_shuffle_i32x4::<0b10_00_10_00>(b[8 + c], b[12 + c]);
        let f1 = _mm512_shuffle_i32x4::<0b11_01_11_01>(b[8 + c], b[12 + c]);
        w[c] = _mm512_shuffle_i32x4::<0b10_00_10_00>(e0, f0);
        w[8 + c] = _mm512_shuffle_i32x4::<0b11_01_11_01>(e0, f0);
        w[4 + c] = _mm512_shuffle_i32x4::<0b10_00_10_00>(e1, f1);
        w[12 + c] = _mm512_shuffle_i32x4::<0b11_01_11_01>(e1, f1);
    }
}

/// One SHA-256 compression of the block `w` (word-major, as [`transpose`]
/// leaves it) into each lane of `state`. `w` is the schedule's ring and is
/// overwritten.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn compress(state: &mut [__m512i; 8], w: &mut [__m512i; 16]) {
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
    macro_rules! round {
        ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident, $t:expr) => {
            let s1 = _mm512_ternarylogic_epi32::<0x96>(
                _mm512_ror_epi32::<6>($e),
                _mm512_ror_epi32::<11>($e),
                _mm512_ror_epi32::<25>($e),
            );
            let ch = _mm512_ternarylogic_epi32::<0xca>($e, $f, $g);
            let kw = _mm512_add_epi32(w[$t % 16], _mm512_set1_epi32(K[$t] as i32));
            let t1 = _mm512_add_epi32(_mm512_add_epi32($h, kw), _mm512_add_epi32(ch, s1));
            let s0 = _mm512_ternarylogic_epi32::<0x96>(
                _mm512_ror_epi32::<2>($a),
                _mm512_ror_epi32::<13>($a),
                _mm512_ror_epi32::<22>($a),
            );
            let maj = _mm512_ternarylogic_epi32::<0xe8>($a, $b, $c);
            $d = _mm512_add_epi32($d, t1);
            $h = _mm512_add_epi32(t1, _mm512_add_epi32(s0, maj));
        };
    }
    macro_rules! schedule {
        ($j:expr) => {
            let w15 = w[($j + 1) % 16];
            let w2 = w[($j + 14) % 16];
            let s0 = _mm512_ternarylogic_epi32::<0x96>(
                _mm512_ror_epi32::<7>(w15),
                _mm512_ror_epi32::<18>(w15),
                _mm512_srli_epi32::<3>(w15),
            );
            let s1 = _mm512_ternarylogic_epi32::<0x96>(
                _mm512_ror_epi32::<17>(w2),
                _mm512_ror_epi32::<19>(w2),
                _mm512_srli_epi32::<10>(w2),
            );
            w[$j] = _mm512_add_epi32(
                _mm512_add_epi32(w[$j], w[($j + 9) % 16]),
                _mm512_add_epi32(s0, s1),
            );
        };
    }
    macro_rules! eight_rounds {
        ($t:expr) => {
            round!(a, b, c, d, e, f, g, h, $t);
            round!(h, a, b, c, d, e, f, g, $t + 1);
            round!(g, h, a, b, c, d, e, f, $t + 2);
            round!(f, g, h, a, b, c, d, e, $t + 3);
            round!(e, f, g, h, a, b, c, d, $t + 4);
            round!(d, e, f, g, h, a, b, c, $t + 5);
            round!(c, d, e, f, g, h, a, b, $t + 6);
            round!(b, c, d, e, f, g, h, a, $t + 7);
        };
    }
    macro_rules! eight_scheduled_rounds {
        ($t:expr) => {
            schedule!(($t) % 16);
            round!(a, b, c, d, e, f, g, h, $t);
            schedule!(($t + 1) % 16);
            round!(h, a, b, c, d, e, f, g, $t + 1);
            schedule!(($t + 2) % 16);
            round!(g, h, a, b, c, d, e, f, $t + 2);
            schedule!(($t + 3) % 16);
            round!(f, g, h, a, b, c, d, e, $t + 3);
            schedule!(($t + 4) % 16);
            round!(e, f, g, h, a, b, c, d, $t + 4);
            schedule!(($t + 5) % 16);
            round!(d, e, f, g, h, a, b, c, $t + 5);
            schedule!(($t + 6) % 16);
            round!(c, d, e, f, g, h, a, b, $t + 6);
            schedule!(($t + 7) % 16);
            round!(b, c, d, e, f, g, h, a, $t + 7);
        };
    }
    eight_rounds!(0);
    eight_rounds!(8);
    eight_scheduled_rounds!(16);
    eight_scheduled_rounds!(24);
    eight_scheduled_rounds!(32);
    eight_scheduled_rounds!(40);
    eight_scheduled_rounds!(48);
    eight_scheduled_rounds!(56);
    let new = [a, b, c, d, e, f, g, h];
    for (s, n) in state.iter_mut().zip(new) {
        *s = _mm512_add_epi32(*s, n);
    }
}

/// Writes each lane's key, digest words A and B, to its output slot.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn write_keys(state: &[__m512i; 8], slots: &[u32], out: &mut [u64]) {
    // As u64 per 128-bit quarter: B0 | A0 << 32, B1 | A1 << 32 (lo) and
    // lanes 2, 3 (hi); the quarters keep their order.
    let lo = _mm512_unpacklo_epi32(state[1], state[0]);
    let hi = _mm512_unpackhi_epi32(state[1], state[0]);
    let mut keys = [0u64; 16];
    let (lo, hi): ([u64; 8], [u64; 8]) = (to_u64s(lo), to_u64s(hi));
    for q in 0..4 {
        keys[4 * q] = lo[2 * q];
        keys[4 * q + 1] = lo[2 * q + 1];
        keys[4 * q + 2] = hi[2 * q];
        keys[4 * q + 3] = hi[2 * q + 1];
    }
    for (&slot, key) in slots.iter().zip(keys) {
        out[slot as usize] = key;
    }
}

#[inline]
#[allow(unsafe_code)]
#[target_feature(enable = "avx512f,avx512bw")]
fn to_u64s(v: __m512i) -> [u64; 8] {
    let mut out = [0u64; 8];
    // SAFETY: `out` is 64 writable bytes; an unaligned store needs no more.
    unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), v) };
    out
}

/// [`crate::normalize::normalize_into_with`] with [`ascii_block`]: 64 ASCII
/// bytes a step. Needs AVX-512VBMI2 besides the module's features, checked
/// by the caller like them.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
pub fn normalize_into(text: &str, out: &mut Vec<u8>) {
    crate::normalize::normalize_into_with(text, out, |block, to, after_space| {
        ascii_block(block, to, after_space)
    });
}

/// The [`crate::normalize::AsciiBlock`] step: lowercase by mask, every
/// whitespace byte made a space, and the bytes to keep (all but whitespace
/// after whitespace) packed to the front by one byte compress.
#[inline]
#[allow(unsafe_code)]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
fn ascii_block(block: &[u8; 64], out: &mut [u8; 64], after_space: bool) -> Option<(usize, bool)> {
    // SAFETY: `block` is 64 readable bytes; an unaligned load needs no more.
    let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
    if _mm512_movepi8_mask(v) != 0 {
        return None;
    }
    let byte = |b: u8| _mm512_set1_epi8(b as i8);
    // Whitespace is \t..=\r or ' ' (SPEC §1's set, within ASCII).
    let control = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, byte(b'\t')), byte(b'\r' - b'\t'));
    let space = control | _mm512_cmpeq_epi8_mask(v, byte(b' '));
    let upper = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, byte(b'A')), byte(b'Z' - b'A'));
    let lowered = _mm512_mask_add_epi8(v, upper, v, byte(b'a' - b'A'));
    let lowered = _mm512_mask_mov_epi8(lowered, space, byte(b' '));
    let keep = !(space & (space << 1 | u64::from(after_space)));
    let packed = _mm512_maskz_compress_epi8(keep, lowered);
    // SAFETY: `out` is 64 writable bytes; an unaligned store needs no more.
    unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), packed) };
    Some((keep.count_ones() as usize, space >> 63 != 0))
}

/// [`super::portable::spaces`], 64 bytes a step: a compare gives the
/// spaces' mask, and four dword compresses pack their positions, with no
/// branch per word.
#[target_feature(enable = "avx512f,avx512bw")]
#[allow(unsafe_code)]
pub fn spaces(text: &[u8], out: &mut Vec<u32>) {
    let quarter = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    let space = _mm512_set1_epi8(b' ' as i8);
    for (c, chunk) in text.chunks(64).enumerate() {
        let mask = _mm512_cmpeq_epi8_mask(load(chunk, 0, chunk.len()), space);
        // Each quarter's positions are stored whole into the spare room,
        // right after the last quarter's kept ones, and the length takes
        // only the kept: no copy of a variable length per chunk.
        out.reserve(64);
        let room = &mut out.spare_capacity_mut()[..64];
        let mut n = 0;
        for q in 0..4 {
            let bits = (mask >> (16 * q)) as u16;
            let at = _mm512_add_epi32(quarter, _mm512_set1_epi32((64 * c + 16 * q) as i32));
            let packed = _mm512_maskz_compress_epi32(bits, at);
            // n <= 48 here, so the 16 words fit in the 64 of `room`.
            let to = &mut room[n..n + 16];
            // SAFETY: `to` is 16 writable words; an unaligned store
            // needs no more.
            unsafe { _mm512_storeu_si512(to.as_mut_ptr().cast(), packed) };
            n += bits.count_ones() as usize;
        }
        // SAFETY: the stores above wrote the `n` words past the length,
        // within the room reserved.
        unsafe { out.set_len(out.len() + n) };
    }
}

/// [`super::portable::min_slots`] with AVX-512F, under the same contract.
///
/// The signature stays in registers: up to 128 slots at a time (8
/// registers of 16, with their `a` and `b`: 24 of the 32), each hash
/// broadcast once and folded into all of them, so the loop does no loads
/// or stores but the hash's.
#[target_feature(enable = "avx512f,avx512bw")]
pub fn min_slots(hashes: &[u32], a: &[u32], b: &[u32], slots: &mut [u32]) {
    let mut at = 0;
    while at < slots.len() {
        let n = (slots.len() - at).min(128);
        let (a, b, s) = (&a[at..at + n], &b[at..at + n], &mut slots[at..at + n]);
        match n.div_ceil(16) {
            1 => min_registers::<1>(hashes, a, b, s),
            2 => min_registers::<2>(hashes, a, b, s),
            3 => min_registers::<3>(hashes, a, b, s),
            4 => min_registers::<4>(hashes, a, b, s),
            5 => min_registers::<5>(hashes, a, b, s),
            6 => min_registers::<6>(hashes, a, b, s),
            7 => min_registers::<7>(hashes, a, b, s),
            _ => min_registers::<8>(hashes, a, b, s),
        }
        at += n;
    }
}

/// [`min_slots`] for `R` registers of slots, the last one partly used
/// (`16 * (R - 1) < slots.len() <= 16 * R`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn min_registers<const R: usize>(hashes: &[u32], a: &[u32], b: &[u32], slots: &mut [u32]) {
    // Unused lanes of the last register hold a = 0, b = slot = u32::MAX,
    // which no hash changes, and are not written back.
    let lanes = |v: &[u32], r: usize, pad: u32| -> __m512i {
        let mut x = [pad; 16];
        let part = v.get(16 * r..).unwrap_or(&[]);
        let part = &part[..part.len().min(16)];
        x[..part.len()].copy_from_slice(part);
        to_register(&x)
    };
    let va: [__m512i; R] = std::array::from_fn(|r| lanes(a, r, 0));
    let vb: [__m512i; R] = std::array::from_fn(|r| lanes(b, r, u32::MAX));
    let mut vs: [__m512i; R] = std::array::from_fn(|r| lanes(slots, r, u32::MAX));
    for &h in hashes {
        let h = _mm512_set1_epi32(h as i32);
        for r in 0..R {
            let x = _mm512_add_epi32(_mm512_mullo_epi32(va[r], h), vb[r]);
            vs[r] = _mm512_min_epu32(vs[r], x);
        }
    }
    for (r, chunk) in slots.chunks_mut(16).enumerate() {
        let v = to_u32s(vs[r]);
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
}

#[inline]
#[allow(unsafe_code)]
#[target_feature(enable = "avx512f,avx512bw")]
fn to_register(x: &[u32; 16]) -> __m512i {
    // SAFETY: `x` is 64 readable bytes; an unaligned load needs no more.
    unsafe { _mm512_loadu_si512(x.as_ptr().cast()) }
}

#[inline]
#[allow(unsafe_code)]
#[target_feature(enable = "avx512f,avx512bw")]
fn to_u32s(v: __m512i) -> [u32; 16] {
    let mut out = [0u32; 16];
    // SAFETY: `out` is 64 writable bytes; an unaligned store needs no more.
    unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), v) };
    out
}
