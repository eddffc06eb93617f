//! PDF extraction on any bytes: it returns text or an error, never panics,
//! hangs or runs out of memory (the caps are small here so a bomb is caught
//! fast), and text it returns follows EXTRACT.md: not empty, each line
//! ends with `\n`, no control characters but `\n`, `\t` and the page
//! break `\f`, no soft hyphens.

#![no_main]

use libfuzzer_sys::fuzz_target;
use neardup_extract::{extract, Format, Limits, Options};

fuzz_target!(|data: &[u8]| {
    let opts = Options {
        format: Some(Format::Pdf),
        limits: Limits {
            max_size: 16 << 20,
            ..Limits::default()
        },
        ..Options::default()
    };
    if let Ok(got) = extract(data, None, &opts) {
        let text = got.text;
        assert!(!text.trim().is_empty(), "empty text instead of an error");
        assert!(text.ends_with('\n'));
        assert!(!text.contains('\u{AD}'));
        assert!(text
            .chars()
            .all(|c| !c.is_control() || matches!(c, '\n' | '\t' | '\u{C}')));
    }
});
