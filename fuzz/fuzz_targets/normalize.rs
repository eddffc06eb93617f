#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| neardup_fuzz::normalize(data));
