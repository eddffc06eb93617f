//! Invariants that must hold for every input, checked with proptest.

use std::collections::BTreeSet;

use neardup::shingle::shingles;
use neardup::{
    compare, h0, normalize, Backend, Digest, Doc, Fingerprint, Params, Receipt, Signature, Signer,
    Verdict,
};
use proptest::prelude::*;

/// Text built from a small vocabulary, so that random pairs share shingles,
/// mixed with the characters the spec singles out (final sigma, İ, U+FEFF,
/// NEL, CRLF, non-ASCII whitespace).
fn text() -> impl Strategy<Value = String> {
    let word = prop::sample::select(vec![
        "the",
        "The",
        "CAT",
        "sat",
        "on",
        "mat",
        "ΟΔΟΣ",
        "Σ",
        "İstanbul",
        "straße",
        "ẞ",
        "a\u{feff}b",
        "x\u{85}y",
        "é",
        "",
    ]);
    let space = prop::sample::select(vec![
        " ", "  ", "\t", "\r\n", "\u{a0}", "\u{2028}", "\u{3000}", "\u{feff}",
    ]);
    prop::collection::vec((word, space), 0..40)
        .prop_map(|parts| parts.into_iter().flat_map(|(w, s)| [w, s]).collect())
}

fn params() -> impl Strategy<Value = Params> {
    (
        1u64..=8,
        prop::sample::select(vec![16u64, 17, 64, 128, 256]),
    )
        .prop_map(|(k, n)| Params::new(k, n).unwrap())
}

/// Any Unicode words (control characters aside, which are also
/// separators) with any Unicode whitespace between them: enough of them
/// for k = 64, and lengths on both sides of the one- and two-block limits
/// of the multi-buffer SHA-256.
fn unicode_text() -> impl Strategy<Value = String> {
    let space = prop::sample::select(vec![" ", "  ", "\t", "\n", "\u{a0}", "\u{3000}", "\u{85}"]);
    prop::collection::vec(("\\PC{0,12}", space), 0..200).prop_map(|parts| {
        parts
            .into_iter()
            .flat_map(|(w, s)| [w, s.to_owned()])
            .collect()
    })
}

/// Every k and N the spec allows, with small k (short shingles, which the
/// lanes hash) drawn more often.
fn any_params() -> impl Strategy<Value = Params> {
    (prop_oneof![1u64..=8, 1u64..=64], 16u64..=256).prop_map(|(k, n)| Params::new(k, n).unwrap())
}

/// SPEC §1–§6 read literally: a set of shingle strings, `h0` of each, and
/// the portable minimum. No code of the fast paths but the normalizer.
fn reference(text: &str, p: Params) -> Fingerprint {
    let normalized = normalize(text);
    let distinct: BTreeSet<&str> = shingles(&normalized, p.k()).collect();
    let hashes: Vec<u32> = distinct.iter().map(|s| h0(s)).collect();
    Fingerprint {
        params: p,
        normalized_sha256: Digest::of(normalized.as_bytes()),
        shingles: distinct.len() as u64,
        signature: Signature::from_base_hashes_with(&hashes, p, Backend::portable()),
    }
}

proptest! {
    #[test]
    fn the_portable_backend_signs_like_the_spec(t in unicode_text(), p in any_params()) {
        prop_assert_eq!(Fingerprint::of_with(&t, p, Backend::portable()), reference(&t, p));
    }

    /// Batches hash the shingles of several documents together: each
    /// document must still get exactly its own fingerprint, on every
    /// backend, from a signer used more than once, and the same as the
    /// `Doc` path (shingle sets) gives.
    #[test]
    fn batches_sign_each_document_like_one_alone(
        texts in prop::collection::vec(unicode_text(), 0..12),
        p in any_params(),
    ) {
        let want: Vec<Fingerprint> = texts.iter().map(|t| reference(t, p)).collect();
        for backend in Backend::supported() {
            let mut signer = Signer::new(p, backend);
            let (first, rest) = texts.split_at(texts.len() / 2);
            let mut got = signer.sign_all(first.iter().map(String::as_str));
            got.extend(signer.sign_all(rest.iter().map(String::as_str)));
            prop_assert_eq!(&got, &want, "{:?}", backend);
            for (t, w) in texts.iter().zip(&want) {
                let doc = Doc::with_backend(t, p, backend);
                prop_assert_eq!(doc.fingerprint(), w, "{:?}", backend);
            }
        }
    }

    #[test]
    fn every_backend_signs_like_the_portable_one(t in unicode_text(), p in any_params()) {
        let want = Fingerprint::of_with(&t, p, Backend::portable());
        for backend in Backend::supported() {
            let got = Fingerprint::of_with(&t, p, backend);
            prop_assert_eq!(got.shingles, want.shingles, "{:?}", backend);
            prop_assert_eq!(&got.signature, &want.signature, "{:?}", backend);
            prop_assert_eq!(&got, &want, "{:?}", backend);
        }
    }

    #[test]
    fn normalizing_twice_changes_nothing(t in text()) {
        let once = normalize(&t);
        prop_assert_eq!(normalize(&once), once);
    }

    #[test]
    fn any_string_normalizes_idempotently(t in any::<String>()) {
        let once = normalize(&t);
        prop_assert_eq!(normalize(&once), once);
    }

    #[test]
    fn receipt_parses_back_to_itself(a in text(), b in text(), p in params()) {
        let r = compare(&a, &b, p).receipt;
        prop_assert_eq!(Receipt::parse(&r.canonical()), Ok(r));
        prop_assert_eq!(Receipt::parse(&serde_json::to_string(&r).unwrap()), Ok(r));
    }

    #[test]
    fn a_text_is_identical_to_itself(a in text(), p in params()) {
        let c = compare(&a, &a, p);
        prop_assert_eq!(c.receipt.verdict, Verdict::Identical);
        prop_assert!(c.receipt.verify(&a, &a, None).verified);
    }

    #[test]
    fn swapping_swaps_documents_and_keeps_matches(a in text(), b in text(), p in params()) {
        let ab = compare(&a, &b, p).receipt;
        let ba = compare(&b, &a, p).receipt;
        prop_assert_eq!(ab.documents[0], ba.documents[1]);
        prop_assert_eq!(ab.documents[1], ba.documents[0]);
        prop_assert_eq!(ab.matches, ba.matches);
        prop_assert_eq!(ab.verdict, ba.verdict);
    }

    #[test]
    fn verify_detects_a_changed_text(a in text(), b in text(), p in params()) {
        let r = compare(&a, &b, p).receipt;
        let changed = format!("{a} extra");
        let fields: Vec<String> = r.verify(&changed, &b, None).mismatches.into_iter().map(|m| m.field).collect();
        prop_assert!(fields.contains(&"documents[0].normalized_sha256".to_owned()));
    }
}
