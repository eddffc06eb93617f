//! The AVX2 backend: the portable minimum loop compiled 8 lanes wide, and
//! the normalizer and the spaces of a text 64 bytes at a time.
//!
//! Hashing stays on the portable path (`sha2`, which uses SHA-NI by itself
//! where present): SHA-256 in 8 AVX2 lanes measured slower, because without
//! AVX-512's vector rotate the compiler keeps the rounds scalar.
//!
//! Every function is compiled for AVX2, so calling one is `unsafe` unless
//! the caller holds a backend whose constructor checked AVX2.

use std::arch::x86_64::*;

/// [`super::portable::min_slots`] with AVX2.
#[target_feature(enable = "avx2")]
pub fn min_slots(hashes: &[u32], a: &[u32], b: &[u32], slots: &mut [u32]) {
    super::portable::min_slots(hashes, a, b, slots);
}

/// [`super::portable::spaces`], 64 bytes a step and no branch per space.
///
/// Two compares give the block's spaces as a 64-bit mask; each byte of the
/// mask indexes [`POSITIONS`], whose 8 entries widen to 8 positions stored
/// at once, of which the byte's popcount are kept. A loop over the mask's
/// bits would mispredict at the end of nearly every word.
#[target_feature(enable = "avx2")]
pub fn spaces(text: &[u8], out: &mut Vec<u32>) {
    let mut chunks = text.chunks_exact(64);
    for (c, chunk) in chunks.by_ref().enumerate() {
        if let Ok(block) = <&[u8; 64]>::try_from(chunk) {
            block_spaces(block, 64 * c as u32, out);
        }
    }
    // The tail, padded with a byte that is not a space.
    let tail = chunks.remainder();
    let mut block = [0u8; 64];
    block[..tail.len()].copy_from_slice(tail);
    block_spaces(&block, (text.len() - tail.len()) as u32, out);
}

/// Appends to `out` `base` plus the position of each space of `block`, in
/// order. Each group of eight is stored whole into the spare room, right
/// after the last group's kept ones, and the length takes only the kept:
/// no copy of a variable length per block.
#[inline]
#[allow(unsafe_code)]
#[target_feature(enable = "avx2")]
fn block_spaces(block: &[u8; 64], base: u32, out: &mut Vec<u32>) {
    let space = _mm256_set1_epi8(b' ' as i8);
    // SAFETY: `block` is 64 readable bytes, two unaligned 32-byte loads.
    let (lo, hi) = unsafe {
        let at = block.as_ptr();
        (
            _mm256_loadu_si256(at.cast()),
            _mm256_loadu_si256(at.add(32).cast()),
        )
    };
    let lo = _mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, space)) as u32;
    let hi = _mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, space)) as u32;
    let mask = u64::from(lo) | u64::from(hi) << 32;
    out.reserve(64);
    let room = &mut out.spare_capacity_mut()[..64];
    let mut n = 0;
    for j in 0..8 {
        let bits = (mask >> (8 * j)) as u8;
        let index = u64::from_le_bytes(POSITIONS[usize::from(bits)]);
        let at = _mm256_add_epi32(
            _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(index as i64)),
            _mm256_set1_epi32((base + 8 * j) as i32),
        );
        // n <= 56 before the last byte, so the 8 words fit in the 64 of
        // `room`.
        let to = &mut room[n..n + 8];
        // SAFETY: `to` is 8 writable words; an unaligned store needs no
        // more.
        unsafe { _mm256_storeu_si256(to.as_mut_ptr().cast(), at) };
        n += bits.count_ones() as usize;
    }
    // SAFETY: the stores above wrote the `n` words past the length, within
    // the room reserved.
    unsafe { out.set_len(out.len() + n) };
}

/// [`crate::normalize::normalize_into_with`] with [`ascii_block`]: 64 ASCII
/// bytes a step.
#[target_feature(enable = "avx2")]
pub fn normalize_into(text: &str, out: &mut Vec<u8>) {
    crate::normalize::normalize_into_with(text, out, |block, to, after_space| {
        ascii_block(block, to, after_space)
    });
}

/// The [`crate::normalize::AsciiBlock`] step: lowercase and whitespace by
/// compares on two halves of 32 bytes, then the bytes to keep (all but
/// whitespace after whitespace) packed eight at a time, each group by one
/// shuffle whose control is [`POSITIONS`] of its keep mask. No branch
/// depends on where the words end.
#[inline]
#[allow(unsafe_code)]
#[target_feature(enable = "avx2")]
fn ascii_block(block: &[u8; 64], out: &mut [u8; 64], after_space: bool) -> Option<(usize, bool)> {
    // SAFETY: `block` is 64 readable bytes, two unaligned 32-byte loads.
    let halves = unsafe {
        let at = block.as_ptr();
        [
            _mm256_loadu_si256(at.cast()),
            _mm256_loadu_si256(at.add(32).cast()),
        ]
    };
    if _mm256_movemask_epi8(_mm256_or_si256(halves[0], halves[1])) != 0 {
        return None;
    }
    let byte = |b: u8| _mm256_set1_epi8(b as i8);
    // x <= hi, unsigned, as min(x, hi) == x: AVX2 has no unsigned compare.
    let at_most = |x: __m256i, hi: u8| _mm256_cmpeq_epi8(_mm256_min_epu8(x, byte(hi)), x);
    let mut lowered = [0u8; 64];
    let mut space = 0u64;
    for (h, &v) in halves.iter().enumerate() {
        // Whitespace is \t..=\r or ' ' (SPEC §1's set, within ASCII).
        let control = at_most(_mm256_sub_epi8(v, byte(b'\t')), b'\r' - b'\t');
        let blank = _mm256_or_si256(control, _mm256_cmpeq_epi8(v, byte(b' ')));
        let upper = at_most(_mm256_sub_epi8(v, byte(b'A')), b'Z' - b'A');
        let v = _mm256_add_epi8(v, _mm256_and_si256(upper, byte(b'a' - b'A')));
        let v = _mm256_blendv_epi8(v, byte(b' '), blank);
        // SAFETY: `lowered[32 * h..]` is 32 writable bytes (h < 2); an
        // unaligned store needs no more.
        unsafe { _mm256_storeu_si256(lowered.as_mut_ptr().add(32 * h).cast(), v) };
        space |= u64::from(_mm256_movemask_epi8(blank) as u32) << (32 * h);
    }
    let keep = !(space & (space << 1 | u64::from(after_space)));
    let mut n = 0;
    for (j, group) in lowered.chunks_exact(8).enumerate() {
        let bits = (keep >> (8 * j)) as u8;
        let group = u64::from_le_bytes(group.try_into().unwrap_or_default());
        let order = u64::from_le_bytes(POSITIONS[usize::from(bits)]);
        let packed = _mm_shuffle_epi8(
            _mm_cvtsi64_si128(group as i64),
            _mm_cvtsi64_si128(order as i64),
        );
        // n <= 56 before the last group, so the 8 bytes fit.
        let packed = (_mm_cvtsi128_si64(packed) as u64).to_le_bytes();
        out[n..n + 8].copy_from_slice(&packed);
        n += bits.count_ones() as usize;
    }
    Some((n, space >> 63 != 0))
}

/// For each byte value, the positions of its set bits, lowest first (the
/// rest zero): where the spaces of 8 bytes are, or which of 8 bytes to
/// keep, in the order of a shuffle's control.
const POSITIONS: [[u8; 8]; 256] = {
    let mut table = [[0u8; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let (mut bit, mut n) = (0, 0);
        while bit < 8 {
            if byte >> bit & 1 == 1 {
                table[byte][n] = bit as u8;
                n += 1;
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};
