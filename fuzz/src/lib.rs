//! What the document targets share: each reads any bytes as its format,
//! with small limits, and checks what every reader promises.

use neardup_extract::{extract, Format, Limits, Options};

/// `neardup_extract::extract` of `data` as `format` must return (text or
/// one error) on any input: no panic, no overflow, no hang. Text it gives
/// holds no soft hyphen (EXTRACT.md, common rules), and a refused input's
/// message is one line. The first byte's low bit picks lossy decoding.
/// Returns the text, for the target's own checks.
pub fn extract_any(data: &[u8], format: Format, limits: Limits) -> Option<String> {
    let opts = Options {
        format: Some(format),
        lossy: data.first().is_some_and(|b| b & 1 == 1),
        limits,
    };
    match extract(data, None, &opts) {
        Ok(got) => {
            assert!(!got.text.contains('\u{AD}'));
            Some(got.text)
        }
        Err(e) => {
            assert!(!e.to_string().contains('\n'), "{e}");
            None
        }
    }
}

/// The zip and markup readers' caps: small, so that a bomb is caught fast.
pub const SMALL: Limits = Limits {
    max_size: 4 << 20,
    max_expanded: 4 << 20,
    max_entries: 64,
    max_ratio: 1_100,
    max_depth: 64,
};
