use neardup::{Backend, Doc, Fingerprint, Params, WordRule};

/// Every backend this CPU runs against the portable one, on arbitrary bytes
/// read lossily, for any `k`, `n` and word rule: the fingerprints
/// (normalized hash, shingle count, signature) must be identical, and the
/// batch signer's must be the owned document's (`Doc`, through `ShingleSet`).
///
/// Input layout: byte 0 picks `k = 1 + b % 64` and, with its top bit, SPEC
/// §11's script words; byte 1 picks `n = 16 + b % 241`; the rest is the
/// text.
pub fn backends(data: &[u8]) {
    let [kb, nb, text @ ..] = data else {
        return;
    };
    let k = 1 + u64::from(*kb) % 64;
    let n = 16 + u64::from(*nb) % 241;
    let words = if kb & 0x80 != 0 {
        WordRule::Script
    } else {
        WordRule::Space
    };
    let params = Params::new(k, n)
        .expect("k and n in range")
        .with_words(words);
    let text = String::from_utf8_lossy(text);
    let want = Fingerprint::of_with(&text, params, Backend::portable());
    let doc = Doc::with_backend(&text, params, Backend::portable());
    assert_eq!(doc.fingerprint(), &want, "Doc differs, k={k} n={n} {words}");
    for backend in Backend::supported() {
        let got = Fingerprint::of_with(&text, params, backend);
        assert_eq!(got, want, "{} differs, k={k} n={n} {words}", backend.name());
    }
}
