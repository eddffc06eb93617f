//! Every public vector in `vectors/compare.json` and
//! `vectors/script-compare.json`, through the adapter's JSON API: the same
//! path the page takes, minus the browser (which the browser tests in
//! `web/tests/` add).

use neardup_web::{compare, verify, CompareRequest, VerifyRequest};
use serde_json::Value;

#[test]
fn compare_vectors_through_the_adapter() {
    check(neardup_vectors::compare_cases());
}

/// Each with `"words": "script"` in the request; verify takes the rule
/// from the receipt alone.
#[test]
fn script_vectors_through_the_adapter() {
    let cases = neardup_vectors::script_compare_cases();
    assert!(cases.iter().all(|c| c.words == "script"));
    check(cases);
}

fn check(cases: Vec<neardup_vectors::CompareCase>) {
    assert!(!cases.is_empty());
    for case in &cases {
        let name = &case.name;
        let texts = || {
            [
                case.a.text.clone().into_bytes(),
                case.b.text.clone().into_bytes(),
            ]
        };
        let req = CompareRequest {
            k: case.k.to_string(),
            n: case.n.to_string(),
            words: Some(case.words.clone()),
            ..Default::default()
        };
        let out = compare(texts(), &req, &mut |_| {});
        let expected = &case.expected;
        // The receipt object, written compactly, is the canonical form.
        assert_eq!(out["receipt"].to_string(), expected.canonical, "{name}");
        assert_eq!(out["receipt_sha256"], expected.receipt_sha256, "{name}");
        assert_eq!(out["verdict"], expected.verdict, "{name}");
        assert_eq!(out["matches"], Value::from(expected.matches), "{name}");
        assert_eq!(out["words"], case.words, "{name}");

        let req = VerifyRequest {
            receipt: expected.canonical.clone(),
            sha256: expected.receipt_sha256.clone(),
            ..Default::default()
        };
        let out = verify(texts(), &req, &mut |_| {});
        assert_eq!(
            (&out["status"], &out["words"]),
            (&Value::from("VERIFIED"), &Value::from(case.words.as_str())),
            "{name}"
        );
    }
}
