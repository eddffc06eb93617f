//! `neardup_extract::extract` read as Html: see `neardup_fuzz::extract_any`
//! for what it checks. Seeds: the office fixtures
//! (crates/neardup-extract/tests/fixtures/office/, fuzz/seeds.py).

#![no_main]

use libfuzzer_sys::fuzz_target;
use neardup_extract::Format;
use neardup_fuzz::{extract_any, SMALL};

fuzz_target!(|data: &[u8]| {
    extract_any(data, Format::Html, SMALL);
});
