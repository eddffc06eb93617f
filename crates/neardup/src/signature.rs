//! The base hash and the MinHash signature (SPEC §3, §5, §6).

use std::fmt;

use sha2::{Digest as _, Sha256};

use crate::{permutations, Backend, Digest, Error, Params, MAX_PERMUTATIONS};

/// `h0(s)`: the first 4 bytes of SHA-256 of `s`, big-endian (SPEC §3).
///
/// ```
/// // SHA-256("") starts e3b0c442
/// assert_eq!(neardup::h0(""), 0xe3b0c442);
/// ```
pub fn h0(shingle: &str) -> u32 {
    let d = Sha256::digest(shingle.as_bytes());
    u32::from_be_bytes([d[0], d[1], d[2], d[3]])
}

/// A MinHash signature: `N` slots, `sig[i] = min_s (a_i·h0(s) + b_i) mod 2³²`.
///
/// Only documents with at least one shingle have one (SPEC §6), so a
/// `Signature` is never empty.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Signature(Box<[u32]>);

/// [`HEX_DIGIT`]'s mark for a byte that is not a lowercase hex digit.
const NOT_HEX: u8 = 0x80;

/// Each byte's value as a lowercase hex digit, or [`NOT_HEX`].
static HEX_DIGIT: [u8; 256] = {
    let mut t = [NOT_HEX; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

impl Signature {
    /// The signature of a set of base hashes `h0(s)`, one per distinct
    /// shingle; `None` when there are none. Duplicated values are harmless:
    /// the minimum does not change.
    ///
    /// ```
    /// use neardup::{h0, Params, Signature};
    /// let sig = Signature::from_base_hashes(&[h0("a b")], Params::new(2, 16)?).unwrap();
    /// assert_eq!(sig.slots().len(), 16);
    /// assert!(Signature::from_base_hashes(&[], Params::DEFAULT).is_none());
    /// # Ok::<(), neardup::Error>(())
    /// ```
    pub fn from_base_hashes(hashes: &[u32], params: Params) -> Option<Signature> {
        Signature::from_base_hashes_with(hashes, params, Backend::detect())
    }

    /// [`Signature::from_base_hashes`] on a chosen backend.
    pub fn from_base_hashes_with(
        hashes: &[u32],
        params: Params,
        backend: Backend,
    ) -> Option<Signature> {
        let mut minimum = Minimum::new(params, backend);
        minimum.add(hashes);
        minimum.finish()
    }

    /// Wraps slot values read from elsewhere (a signature file, an array
    /// from a binding). Refused unless `slots` is a valid signature length.
    pub fn from_slots(slots: Vec<u32>) -> Result<Signature, Error> {
        if Params::N_RANGE.contains(&(slots.len() as u64)) {
            Ok(Signature(slots.into_boxed_slice()))
        } else {
            Err(Error::SignatureLength {
                got: slots.len() as u64,
                want: "16..=256".to_owned(),
            })
        }
    }

    /// The slot values `sig[0] .. sig[N-1]`.
    pub fn slots(&self) -> &[u32] {
        &self.0
    }

    /// The signature hex string of SPEC §9: each slot as 8 lowercase hex
    /// digits, in slot order.
    pub fn to_hex(&self) -> String {
        let mut out = String::with_capacity(8 * self.0.len());
        self.write_hex(&mut out);
        out
    }

    /// Appends [`Signature::to_hex`] to `out`, without a string of its own.
    pub fn write_hex(&self, out: &mut String) {
        let mut buf = [0u8; 8 * MAX_PERMUTATIONS];
        for (slot, digits) in self.0.iter().zip(buf.chunks_exact_mut(8)) {
            digits.copy_from_slice(&hex8(*slot));
        }
        // The buffer holds ASCII hex digits only.
        out.push_str(std::str::from_utf8(&buf[..8 * self.0.len()]).unwrap_or_default());
    }

    /// Parses a signature hex string: `8·N` lowercase hex digits.
    ///
    /// ```
    /// use neardup::Signature;
    /// let sig = Signature::from_hex(&"0000000a".repeat(16))?;
    /// assert_eq!(sig.slots()[0], 10);
    /// assert!(Signature::from_hex("0000000A").is_err());
    /// # Ok::<(), neardup::Error>(())
    /// ```
    pub fn from_hex(hex: &str) -> Result<Signature, Error> {
        if !hex.len().is_multiple_of(8) {
            return Err(Error::SignatureHex(hex.to_owned()));
        }
        // A table lookup per digit, and one check per slot of the bits
        // every digit's entry ORed in: no branch per digit. Signature
        // files are read a million lines at a time, 1,024 digits a line.
        let mut bad = 0u8;
        let slots = hex
            .as_bytes()
            .chunks_exact(8)
            .map(|chunk| {
                chunk.iter().fold(0u32, |acc, &c| {
                    let d = HEX_DIGIT[usize::from(c)];
                    bad |= d;
                    acc << 4 | u32::from(d & 0x0f)
                })
            })
            .collect::<Vec<u32>>();
        if bad & NOT_HEX != 0 {
            return Err(Error::SignatureHex(hex.to_owned()));
        }
        Signature::from_slots(slots)
    }

    /// The receipt's `signature_sha256`: SHA-256 of [`Signature::to_hex`].
    pub fn sha256(&self) -> Digest {
        Digest::of(self.to_hex().as_bytes())
    }

    /// SPEC §7's `matches`: the number of slots where two signatures agree.
    /// Signatures of different lengths never come from one run; slots past
    /// the shorter one are not counted.
    pub fn matches(&self, other: &Signature) -> u32 {
        let same = self.0.iter().zip(other.0.iter()).filter(|(a, b)| a == b);
        same.count() as u32
    }
}

/// A [`Signature`] built a batch of base hashes at a time, for a document
/// whose hashes are too many to hold at once: the minimum of the batches'
/// minimums is the minimum of them all.
pub(crate) struct Minimum {
    slots: Vec<u32>,
    backend: Backend,
    empty: bool,
}

impl Minimum {
    pub fn new(params: Params, backend: Backend) -> Minimum {
        Minimum {
            slots: vec![u32::MAX; params.n()],
            backend,
            empty: true,
        }
    }

    /// Lowers the slots to the minimums over `hashes` too.
    pub fn add(&mut self, hashes: &[u32]) {
        if hashes.is_empty() {
            return;
        }
        let (perm, n) = (permutations(), self.slots.len());
        let slots = &mut self.slots;
        self.backend
            .min_slots(hashes, &perm.a[..n], &perm.b[..n], slots);
        self.empty = false;
    }

    /// The signature, or `None` when no hash was added.
    pub fn finish(self) -> Option<Signature> {
        (!self.empty).then(|| Signature(self.slots.into_boxed_slice()))
    }
}

/// The 8 lowercase hex digits of `x`, most significant first, computed on
/// all eight at once: the nibbles are spread one per byte, then each byte
/// becomes `'0' + nibble`, plus `'a' - '0' - 10` where the nibble is over 9.
fn hex8(x: u32) -> [u8; 8] {
    let x = u64::from(x);
    let s = (x & 0xffff_0000) << 16 | (x & 0xffff);
    let s = (s & 0x0000_ff00_0000_ff00) << 8 | (s & 0x0000_00ff_0000_00ff);
    let s = (s & 0x00f0_00f0_00f0_00f0) << 4 | (s & 0x000f_000f_000f_000f);
    let over_nine = ((s + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
    (s + 0x3030_3030_3030_3030 + over_nine * u64::from(b'a' - b'0' - 10)).to_be_bytes()
}

impl fmt::Debug for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Signature({})", self.to_hex())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_digits_are_lowercase_hex_only() {
        for c in (0u8..128).map(char::from) {
            let hex = format!("{}0000000{c}", "0".repeat(120)); // 16 slots
            let got = Signature::from_hex(&hex).map(|s| s.slots()[15]);
            let want = c.to_digit(16).filter(|_| !c.is_ascii_uppercase());
            assert_eq!(got.ok(), want, "{c:?}");
        }
        let hex = format!("{}000000é", "0".repeat(120)); // 128 bytes
        assert!(Signature::from_hex(&hex).is_err());
    }

    #[test]
    fn hex_round_trip() {
        let sig = Signature::from_base_hashes(&[1, 2, 3], Params::DEFAULT).unwrap();
        assert_eq!(sig.to_hex().len(), 8 * 128);
        assert_eq!(Signature::from_hex(&sig.to_hex()), Ok(sig));
        assert!(matches!(
            Signature::from_hex("0000000g"),
            Err(Error::SignatureHex(_))
        ));
        // N = 1 is out of range
        assert_eq!(
            Signature::from_hex("00000000").unwrap_err().to_string(),
            "a signature must have 16..=256 slots, got 1"
        );
    }

    #[test]
    fn hex8_is_lowercase_hex() {
        for x in [
            0,
            9,
            10,
            15,
            0x0123_4567,
            0x89ab_cdef,
            0xa0b0_c0d0,
            u32::MAX,
        ] {
            assert_eq!(hex8(x), format!("{x:08x}").as_bytes(), "{x:#x}");
        }
        for x in (0..=u32::MAX).step_by(65_537) {
            assert_eq!(hex8(x), format!("{x:08x}").as_bytes(), "{x:#x}");
        }
    }

    #[test]
    fn min_is_taken_per_slot() {
        let p = Params::new(1, 16).unwrap();
        let perm = permutations();
        let hs = [7u32, 123_456, u32::MAX];
        for backend in Backend::supported() {
            let sig = Signature::from_base_hashes_with(&hs, p, backend).unwrap();
            for i in 0..16 {
                let want = hs
                    .iter()
                    .map(|&h| perm.a[i].wrapping_mul(h).wrapping_add(perm.b[i]))
                    .min()
                    .unwrap();
                assert_eq!(sig.slots()[i], want, "{backend:?}");
            }
        }
    }
}
