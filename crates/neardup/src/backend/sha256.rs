//! SHA-256's constants and padding (FIPS 180-4), for the backends that
//! hash shingles themselves instead of through `sha2`: `sha_ni.rs` and
//! `avx512.rs`. The portable backend needs none of this.

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
