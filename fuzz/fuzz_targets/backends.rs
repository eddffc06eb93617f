//! Every backend this CPU runs against the portable one, on arbitrary bytes
//! read lossily, for any `k` and `n`: the fingerprints (normalized hash,
//! shingle count, signature) must be identical.
//!
//! Input layout: byte 0 picks `k = 1 + b % 64`, byte 1 picks
//! `n = 16 + b % 241`, the rest is the text.

#![no_main]

use libfuzzer_sys::fuzz_target;
use neardup::{Backend, Fingerprint, Params};

fuzz_target!(|data: &[u8]| {
    let [kb, nb, text @ ..] = data else {
        return;
    };
    let k = 1 + u64::from(*kb) % 64;
    let n = 16 + u64::from(*nb) % 241;
    let params = Params::new(k, n).expect("k and n in range");
    let text = String::from_utf8_lossy(text);
    let want = Fingerprint::of_with(&text, params, Backend::portable());
    for backend in Backend::supported() {
        let got = Fingerprint::of_with(&text, params, backend);
        assert_eq!(got, want, "{} differs, k={k} n={n}", backend.name());
    }
});
