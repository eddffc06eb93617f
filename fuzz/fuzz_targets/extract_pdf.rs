//! PDF extraction on any bytes: it returns text or a one-line error, never
//! panics, hangs or runs out of memory (the caps are small here so a bomb
//! is caught fast), and text it returns follows EXTRACT.md: not empty,
//! each line ends with `\n`, no control characters but `\n`, `\t` and the
//! page break `\f`, no soft hyphens (`neardup_fuzz::extract_any`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use neardup_extract::{Format, Limits};
use neardup_fuzz::extract_any;

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_size: 16 << 20,
        ..Limits::default()
    };
    if let Some(text) = extract_any(data, Format::Pdf, limits) {
        assert!(!text.trim().is_empty(), "empty text instead of an error");
        assert!(text.ends_with('\n'));
        assert!(text
            .chars()
            .all(|c| !c.is_control() || matches!(c, '\n' | '\t' | '\u{C}')));
    }
});
