//! Bytes to text, as SPEC §1 says: strict UTF-8, or lossy when asked.

use std::str::Utf8Error;

use crate::Error;

/// `std::str::from_utf8`, several times faster on valid text: `simdutf8`
/// checks 32 bytes a step with AVX2, 16 with SSE4.2 or NEON (`sign --jsonl` spent 3% of its time in
/// `std`'s check). Only invalid bytes are checked again by `std`, for the
/// offset of the first bad byte.
///
/// ```
/// assert_eq!(neardup::utf8(b"caf\xc3\xa9"), Ok("café"));
/// assert_eq!(neardup::utf8(b"caf\xe9").unwrap_err().valid_up_to(), 3);
/// ```
pub fn utf8(bytes: &[u8]) -> Result<&str, Utf8Error> {
    simdutf8::basic::from_utf8(bytes).or_else(|_| std::str::from_utf8(bytes))
}

/// Decodes a document's bytes. Strict by default: invalid UTF-8 is an
/// error giving the first bad byte's offset. With `lossy`, each invalid
/// sequence becomes U+FFFD exactly as the WHATWG decoder does (Rust's
/// lossy decoder replaces the same maximal subparts), so every adapter
/// and the browser's `TextDecoder` agree.
///
/// ```
/// use neardup::decode;
/// assert_eq!(decode(b"caf\xc3\xa9".to_vec(), false).unwrap(), "café");
/// let e = decode(b"caf\xe9 au lait".to_vec(), false).unwrap_err();
/// assert_eq!(e.to_string(), "invalid UTF-8 at byte 3");
/// assert_eq!(decode(b"caf\xe9".to_vec(), true).unwrap(), "caf\u{fffd}");
/// ```
pub fn decode(bytes: Vec<u8>, lossy: bool) -> Result<String, Error> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(e) if lossy => Ok(String::from_utf8_lossy(e.as_bytes()).into_owned()),
        Err(e) => {
            let offset = e.utf8_error().valid_up_to() as u64;
            // A NUL early on, or no valid byte at all, means this was never
            // text; say so rather than only pointing at a byte.
            let bytes = e.as_bytes();
            let binary = offset == 0 || bytes.iter().take(8192).any(|&b| b == 0);
            Err(Error::InvalidUtf8 { offset, binary })
        }
    }
}
