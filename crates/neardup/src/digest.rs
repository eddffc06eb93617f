//! SHA-256 digests and their lowercase hex form (SPEC §3, §9).

use std::fmt;

use sha2::{Digest as _, Sha256};

use crate::Error;

/// A SHA-256 digest. Displayed and parsed as 64 lowercase hex digits, the
/// only spelling a receipt allows.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest(pub [u8; 32]);

impl Digest {
    /// SHA-256 of `bytes`.
    ///
    /// ```
    /// let d = neardup::Digest::of(b"");
    /// assert_eq!(d.to_string(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    /// ```
    pub fn of(bytes: &[u8]) -> Digest {
        Digest(Sha256::digest(bytes).into())
    }

    /// Parses exactly 64 lowercase hex digits. Uppercase is refused: the
    /// canonical form has one spelling, and accepting two would let two
    /// different receipt texts claim the same content.
    pub fn from_hex(s: &str) -> Result<Digest, Error> {
        let b = s.as_bytes();
        if b.len() != 64 {
            return Err(Error::Digest(s.to_owned()));
        }
        let mut out = [0u8; 32];
        for (i, pair) in b.chunks_exact(2).enumerate() {
            match (nibble(pair[0]), nibble(pair[1])) {
                (Some(hi), Some(lo)) => out[i] = hi << 4 | lo,
                _ => return Err(Error::Digest(s.to_owned())),
            }
        }
        Ok(Digest(out))
    }
}

fn nibble(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

/// Lowercase hex digits, indexed by nibble.
pub(crate) const HEX: &[u8; 16] = b"0123456789abcdef";

/// Serialized as its 64 hex digits, as every output writes it.
impl serde::Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl Digest {
    /// The 64 lowercase hex digits.
    fn hex(&self) -> [u8; 64] {
        let mut buf = [0u8; 64];
        for (i, byte) in self.0.iter().enumerate() {
            buf[2 * i] = HEX[usize::from(byte >> 4)];
            buf[2 * i + 1] = HEX[usize::from(byte & 15)];
        }
        buf
    }

    /// Appends the 64 hex digits to `out`: [`Digest`]'s `Display` without
    /// the formatting machinery, for output written per document.
    pub fn write_hex(&self, out: &mut String) {
        // The buffer holds ASCII hex digits only.
        out.push_str(std::str::from_utf8(&self.hex()).unwrap_or_default());
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The buffer holds ASCII hex digits only.
        f.write_str(std::str::from_utf8(&self.hex()).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip() {
        let d = Digest::of(b"abc");
        assert_eq!(Digest::from_hex(&d.to_string()), Ok(d));
        let mut out = "x".to_owned();
        d.write_hex(&mut out);
        assert_eq!(out, format!("x{d}"));
    }

    #[test]
    fn refuses_uppercase_and_wrong_length() {
        let upper = Digest::of(b"abc").to_string().to_uppercase();
        assert!(Digest::from_hex(&upper).is_err());
        assert!(Digest::from_hex("abc").is_err());
        assert!(Digest::from_hex(&"g".repeat(64)).is_err());
    }
}
