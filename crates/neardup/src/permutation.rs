//! The permutation constants `a_i`, `b_i` (SPEC §4).

use std::sync::OnceLock;

use sha2::{Digest as _, Sha256};

/// How many permutation pairs SPEC v1 defines; a run uses the first `N`.
pub const MAX_PERMUTATIONS: usize = 256;

/// The 256 multipliers `a_i` (odd) and offsets `b_i`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permutations {
    /// `a_i`: SHA-256(`"kar-shingle-perm-a-" + i`), first 4 bytes big-endian, `| 1`.
    pub a: [u32; MAX_PERMUTATIONS],
    /// `b_i`: SHA-256(`"kar-shingle-perm-b-" + i`), first 4 bytes big-endian.
    pub b: [u32; MAX_PERMUTATIONS],
}

/// The constants, derived once per process from their definition rather
/// than pasted in as a table, so that the code *is* the spec and the vector
/// file checks it.
///
/// ```
/// let p = neardup::permutations();
/// assert!(p.a.iter().all(|a| a % 2 == 1));
/// ```
pub fn permutations() -> &'static Permutations {
    static TABLE: OnceLock<Permutations> = OnceLock::new();
    TABLE.get_or_init(|| {
        let word = |prefix: &str, i: usize| {
            let d = Sha256::digest(format!("{prefix}{i}").as_bytes());
            u32::from_be_bytes([d[0], d[1], d[2], d[3]])
        };
        let mut p = Permutations {
            a: [0; MAX_PERMUTATIONS],
            b: [0; MAX_PERMUTATIONS],
        };
        for i in 0..MAX_PERMUTATIONS {
            p.a[i] = word("kar-shingle-perm-a-", i) | 1;
            p.b[i] = word("kar-shingle-perm-b-", i);
        }
        p
    })
}
