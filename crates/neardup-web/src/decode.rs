//! Bytes to text: strict UTF-8, or lossy only when the user asks (SPEC §1).

/// Decodes one document. Strict by default; with `lossy`, each invalid
/// sequence becomes U+FFFD exactly as the WHATWG decoder does (Rust's lossy
/// decoder replaces the same maximal subparts), which is what
/// `neardup --lossy` does too.
///
/// The error names the document and the first bad byte, in words a page can
/// show as they are.
///
/// ```
/// use neardup_web::decode;
/// assert_eq!(decode(b"caf\xc3\xa9".to_vec(), "A", false).unwrap(), "café");
/// let e = decode(b"caf\xe9".to_vec(), "notes.txt", false).unwrap_err();
/// assert!(e.starts_with("notes.txt: invalid UTF-8 at byte 3"));
/// assert_eq!(decode(b"caf\xe9".to_vec(), "A", true).unwrap(), "caf\u{fffd}");
/// ```
pub fn decode(bytes: Vec<u8>, name: &str, lossy: bool) -> Result<String, String> {
    neardup::decode(bytes, lossy).map_err(|e| {
        format!("{name}: {e}. Tick \u{201c}Replace invalid UTF-8\u{201d} to decode it lossily.")
    })
}
