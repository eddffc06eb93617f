//! The language-neutral conformance vectors (`vectors/`, copied from
//! `../shared/vectors`), run through the core library.

use std::path::{Path, PathBuf};

use neardup::{compare, normalize, permutations, Backend, Params, Receipt};
use serde_json::Value;

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

fn load(name: &str) -> Value {
    let path = vectors_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// Reads `case[inline]` or the file named by `case[file_key]`, strictly.
fn text(case: &Value, inline: &str, file_key: &str) -> String {
    match case.get(inline) {
        Some(v) => v.as_str().unwrap().to_owned(),
        None => {
            let rel = case[file_key].as_str().unwrap();
            let bytes = std::fs::read(vectors_dir().join(rel)).unwrap();
            String::from_utf8(bytes).expect("vector texts are strict UTF-8")
        }
    }
}

#[test]
fn constants() {
    let v = load("constants.json");
    assert_eq!(v["algorithm"], neardup::ALGORITHM);
    let p = permutations();
    for i in 0..256 {
        assert_eq!(u64::from(p.a[i]), v["a"][i].as_u64().unwrap(), "a[{i}]");
        assert_eq!(u64::from(p.b[i]), v["b"][i].as_u64().unwrap(), "b[{i}]");
    }
}

#[test]
fn normalize_cases() {
    let cases = load("normalize.json");
    let cases = cases.as_array().unwrap();
    assert!(cases.len() > 50);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let input = case["input"].as_str().unwrap();
        assert_eq!(
            normalize(input),
            case["normalized"].as_str().unwrap(),
            "case {name}"
        );
    }
}

/// Every case through every backend this CPU can run, each forced in turn,
/// the way BLAKE3 tests its `no_avx2` paths. The backends share no hot
/// code, so each one must reproduce the vectors on its own.
#[test]
fn compare_cases_on_every_backend() {
    let cases = load("compare.json");
    let cases = cases.as_array().unwrap();
    assert!(cases.len() > 20);
    for backend in Backend::ALL {
        if !backend.force() {
            eprintln!(
                "note: this CPU cannot run the {} backend; skipped",
                backend.name()
            );
            continue;
        }
        compare_cases(cases);
    }
    assert!(Backend::detect().force());
}

fn compare_cases(cases: &[Value]) {
    for case in cases {
        let name = &format!(
            "{} [{}]",
            case["name"].as_str().unwrap(),
            Backend::active().name()
        );
        let (a, b) = (text(case, "a", "a_file"), text(case, "b", "b_file"));
        let params = Params::new(case["k"].as_u64().unwrap(), case["n"].as_u64().unwrap()).unwrap();
        let want = &case["expected"];
        let got = compare(&a, &b, params);

        // Intermediate values first, so that a failure says where it went wrong.
        for (i, (doc, text)) in want["documents"]
            .as_array()
            .unwrap()
            .iter()
            .zip([&a, &b])
            .enumerate()
        {
            let normalized = self::text(doc, "normalized", "normalized_file");
            assert_eq!(
                normalize(text),
                normalized,
                "{name}: documents[{i}] normalized"
            );
            let f = &got.fingerprints[i];
            assert_eq!(
                f.shingles,
                doc["shingles"].as_u64().unwrap(),
                "{name}: documents[{i}] shingles"
            );
            let slots: Option<Vec<u32>> = doc["signature"]
                .as_array()
                .map(|s| s.iter().map(|x| x.as_u64().unwrap() as u32).collect());
            assert_eq!(
                f.signature.as_ref().map(|s| s.slots().to_vec()),
                slots,
                "{name}: documents[{i}] signature"
            );
        }
        assert_eq!(
            got.receipt.matches.map(u64::from),
            want["matches"].as_u64(),
            "{name}: matches"
        );
        assert_eq!(
            got.receipt.verdict.as_str(),
            want["verdict"],
            "{name}: verdict"
        );
        assert_eq!(
            got.receipt.canonical(),
            want["canonical"].as_str().unwrap(),
            "{name}: canonical"
        );
        assert_eq!(
            got.receipt.sha256().to_string(),
            want["receipt_sha256"],
            "{name}: receipt_sha256"
        );

        // The expected receipt parses back to the same receipt and verifies.
        let parsed = Receipt::parse(want["canonical"].as_str().unwrap()).unwrap();
        assert_eq!(parsed, got.receipt, "{name}: parse");
        assert!(parsed.verify(&a, &b, None).verified, "{name}: verify");
    }
}

/// The repository's copy must equal the shared contract whenever the shared
/// folder is present (it is beside the checkout on a developer's machine).
#[test]
fn vectors_have_not_drifted_from_shared() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/vectors");
    if !shared.is_dir() {
        eprintln!("note: {} is absent; drift check skipped", shared.display());
        return;
    }
    let mut checked = 0;
    for entry in walk(&shared) {
        let rel = entry.strip_prefix(&shared).unwrap();
        let ours = vectors_dir().join(rel);
        let theirs_bytes = std::fs::read(&entry).unwrap();
        let ours_bytes = std::fs::read(&ours).unwrap_or_else(|_| {
            panic!(
                "vectors/{} is missing: copy ../shared/vectors again",
                rel.display()
            )
        });
        assert!(
            ours_bytes == theirs_bytes,
            "vectors/{} differs from ../shared/vectors: copy it again",
            rel.display()
        );
        checked += 1;
    }
    assert!(checked >= 4);
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
