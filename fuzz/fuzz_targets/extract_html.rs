//! `neardup_extract::extract` read as Html, with small limits, must
//! return (text or one error) on any input: no panic, no overflow, no
//! hang. Text it gives holds no soft hyphen (EXTRACT.md, common rules),
//! and a refused input's message is one line. Seeds: the office fixtures
//! (crates/neardup-extract/tests/fixtures/office/, fuzz/seeds.py).

#![no_main]

use libfuzzer_sys::fuzz_target;
use neardup_extract::{extract, Format, Limits, Options};

fuzz_target!(|data: &[u8]| {
    let opts = Options {
        format: Some(Format::Html),
        lossy: data.first().is_some_and(|b| b & 1 == 1),
        limits: Limits {
            max_size: 4 << 20,
            max_entries: 64,
            max_ratio: 1_100,
            max_depth: 64,
        },
    };
    match extract(data, None, &opts) {
        Ok(got) => assert!(!got.text.contains('\u{AD}')),
        Err(e) => assert!(!e.to_string().contains('\n'), "{e}"),
    }
});
