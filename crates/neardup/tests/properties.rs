//! Invariants that must hold for every input, checked with proptest.

use neardup::{compare, normalize, Backend, Fingerprint, Params, Receipt, Verdict};
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

proptest! {
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
