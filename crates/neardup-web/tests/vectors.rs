//! Every public vector in `vectors/compare.json`, through the adapter's JSON
//! API: the same path the page takes, minus the browser (which the browser
//! tests in `web/tests/` add).

use std::path::{Path, PathBuf};

use neardup_web::{compare, verify, CompareRequest, VerifyRequest};
use serde_json::Value;

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

fn bytes(case: &Value, inline: &str, file_key: &str) -> Vec<u8> {
    match case.get(inline) {
        Some(v) => v.as_str().unwrap().as_bytes().to_vec(),
        None => std::fs::read(vectors_dir().join(case[file_key].as_str().unwrap())).unwrap(),
    }
}

#[test]
fn compare_vectors_through_the_adapter() {
    let cases: Value =
        serde_json::from_slice(&std::fs::read(vectors_dir().join("compare.json")).unwrap())
            .unwrap();
    let cases = cases.as_array().unwrap();
    assert!(!cases.is_empty());
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let texts = || [bytes(case, "a", "a_file"), bytes(case, "b", "b_file")];
        let req = CompareRequest {
            k: case["k"].to_string(),
            n: case["n"].to_string(),
            ..Default::default()
        };
        let out = compare(texts(), &req, &mut |_| {});
        let expected = &case["expected"];
        // The receipt object, written compactly, is the canonical form.
        assert_eq!(
            out["receipt"].to_string(),
            expected["canonical"].as_str().unwrap(),
            "{name}"
        );
        assert_eq!(out["receipt_sha256"], expected["receipt_sha256"], "{name}");
        assert_eq!(out["verdict"], expected["verdict"], "{name}");
        assert_eq!(out["matches"], expected["matches"], "{name}");

        let req = VerifyRequest {
            receipt: expected["canonical"].as_str().unwrap().to_owned(),
            sha256: expected["receipt_sha256"].as_str().unwrap().to_owned(),
            ..Default::default()
        };
        assert_eq!(
            verify(texts(), &req, &mut |_| {})["status"],
            "VERIFIED",
            "{name}"
        );
    }
}
