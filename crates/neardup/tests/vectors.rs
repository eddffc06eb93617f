//! The language-neutral conformance vectors (`vectors/`, copied from
//! `../shared/vectors`), run through the core library.

use neardup::{
    compare, compare_with, normalize, permutations, Backend, Comparison, Doc, Params, Receipt,
    Signer,
};
use neardup_vectors::CompareCase;

#[test]
fn constants() {
    let v = neardup_vectors::constants();
    assert_eq!(v.algorithm, neardup::ALGORITHM);
    let p = permutations();
    for i in 0..256 {
        assert_eq!(p.a[i], v.a[i], "a[{i}]");
        assert_eq!(p.b[i], v.b[i], "b[{i}]");
    }
}

#[test]
fn normalize_cases() {
    let cases = neardup_vectors::normalize_cases();
    assert!(cases.len() > 50);
    for case in cases {
        assert_eq!(
            normalize(&case.input),
            case.normalized,
            "case {}",
            case.name
        );
    }
}

/// Every case through every backend this CPU can run, each passed in
/// turn, the way BLAKE3 tests its `no_avx2` paths. The backends share no
/// hot code, so each one must reproduce the vectors on its own. The
/// default entry point ([`compare`], on [`Backend::detect`]) runs them too.
#[test]
fn compare_cases_on_every_backend() {
    let mut cases = neardup_vectors::compare_cases();
    assert!(cases.len() > 20);
    cases.extend(neardup_vectors::script_compare_cases());
    for name in Backend::ALL {
        match Backend::from_name(name) {
            Some(backend) => {
                compare_cases(&cases, name, |a, b, p| compare_with(a, b, p, backend));
                // The batch signer and the owned document, each on this
                // backend, give the same fingerprints.
                compare_cases(&cases, &format!("{name} signer"), |a, b, p| {
                    let fps = Signer::new(p, backend).sign_all([a, b]);
                    let docs = [a, b].map(|t| Doc::with_backend(t, p, backend));
                    for ((fp, doc), text) in fps.iter().zip(&docs).zip([a, b]) {
                        assert_eq!(fp, doc.fingerprint());
                        assert_eq!(doc.normalized(), normalize(text));
                    }
                    Comparison::of(&docs[0], &docs[1]).unwrap()
                });
            }
            None => eprintln!("note: this CPU cannot run the {name} backend; skipped"),
        }
    }
    compare_cases(&cases, "default", compare);
}

fn compare_cases(
    cases: &[CompareCase],
    backend: &str,
    compare: impl Fn(&str, &str, Params) -> Comparison,
) {
    for case in cases {
        let name = &format!("{} [{backend}]", case.name);
        let (a, b) = (&case.a.text, &case.b.text);
        let params = Params::new(case.k, case.n)
            .unwrap()
            .with_words(case.words.parse().unwrap());
        let want = &case.expected;
        let got = compare(a, b, params);

        // Intermediate values first, so that a failure says where it went wrong.
        for (i, (doc, text)) in want.documents.iter().zip([a, b]).enumerate() {
            assert_eq!(
                normalize(text),
                doc.normalized,
                "{name}: documents[{i}] normalized"
            );
            let f = &got.fingerprints[i];
            assert_eq!(f.shingles, doc.shingles, "{name}: documents[{i}] shingles");
            assert_eq!(
                f.signature.as_ref().map(|s| s.slots().to_vec()),
                doc.signature,
                "{name}: documents[{i}] signature"
            );
        }
        assert_eq!(got.receipt.matches, want.matches, "{name}: matches");
        assert_eq!(
            got.receipt.verdict.as_str(),
            want.verdict,
            "{name}: verdict"
        );
        assert_eq!(got.receipt.canonical(), want.canonical, "{name}: canonical");
        assert_eq!(
            got.receipt.sha256().to_string(),
            want.receipt_sha256,
            "{name}: receipt_sha256"
        );

        // The expected receipt parses back to the same receipt and verifies.
        let parsed = Receipt::parse(&want.canonical).unwrap();
        assert_eq!(parsed, got.receipt, "{name}: parse");
        assert!(parsed.verify(a, b, None).verified, "{name}: verify");
    }
}

/// The repository's copy must equal the shared contract whenever the shared
/// folder is present (it is beside the checkout on a developer's machine).
#[test]
fn vectors_have_not_drifted_from_shared() {
    let shared = neardup_vectors::shared_dir();
    if !shared.is_dir() {
        eprintln!("note: {} is absent; drift check skipped", shared.display());
        return;
    }
    let differences = neardup_vectors::differences(&neardup_vectors::dir(), &shared);
    assert!(
        differences.is_empty(),
        "vectors/ differs from ../shared/vectors, copy it again: {differences:#?}"
    );
}
