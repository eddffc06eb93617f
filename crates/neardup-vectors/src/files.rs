//! The three vector files, read strictly (unknown fields are refused) and
//! with the texts stored in `texts/` already read.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Deserialize;

/// The `vectors/` folder at the root of the repository.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

/// `constants.json`: the permutation constants of SPEC §4.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Constants {
    /// The algorithm name, `kar-shingle-minhash-v1`.
    pub algorithm: String,
    /// `a[0..256]`, already odd.
    pub a: Vec<u32>,
    /// `b[0..256]`.
    pub b: Vec<u32>,
}

/// One case of `normalize.json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NormalizeCase {
    /// A unique, stable identifier.
    pub name: String,
    /// The text to normalize.
    pub input: String,
    /// What `normalize(input)` must return exactly.
    pub normalized: String,
}

/// One case of `compare.json`: two texts, the parameters, and everything the
/// comparison must produce.
#[derive(Debug, Clone)]
pub struct CompareCase {
    /// A unique, stable identifier.
    pub name: String,
    /// Text A.
    pub a: Text,
    /// Text B.
    pub b: Text,
    /// The shingle size K.
    pub k: u64,
    /// The number of permutations N.
    pub n: u64,
    /// The word rule: `space` (SPEC §2, every case of `compare.json`) or
    /// `script` (§11, every case of `script-compare.json`).
    pub words: String,
    /// The expected results.
    pub expected: Expected,
}

/// A text of a case, inline in the JSON or stored in `texts/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    /// The text (strict UTF-8, unchanged).
    pub text: String,
    /// The absolute path of the file holding it, when it is stored in
    /// `texts/` (a test that needs a file writes inline texts itself).
    pub file: Option<PathBuf>,
}

/// The expected results of a [`CompareCase`].
#[derive(Debug, Clone)]
pub struct Expected {
    /// The canonical receipt, one exact string.
    pub canonical: String,
    /// The lowercase hex SHA-256 of `canonical`.
    pub receipt_sha256: String,
    /// The verdict, as in the receipt.
    pub verdict: String,
    /// Matching slots, as in the receipt (`None` = null).
    pub matches: Option<u32>,
    /// Document A, then document B.
    pub documents: [Document; 2],
}

/// The intermediate values of one document of a [`CompareCase`].
#[derive(Debug, Clone)]
pub struct Document {
    /// The normalized text.
    pub normalized: String,
    /// Its SHA-256, as in the receipt.
    pub normalized_sha256: String,
    /// The number of distinct shingles.
    pub shingles: u64,
    /// The signature slots, `None` when there is no signature.
    pub signature: Option<Vec<u32>>,
    /// The signature's SHA-256, as in the receipt.
    pub signature_sha256: Option<String>,
}

/// Reads `constants.json`.
pub fn constants() -> Constants {
    load("constants.json")
}

/// Reads every case of `normalize.json`.
pub fn normalize_cases() -> Vec<NormalizeCase> {
    load("normalize.json")
}

/// Reads every case of `compare.json`, with the texts of `texts/` read.
pub fn compare_cases() -> Vec<CompareCase> {
    cases_of("compare.json")
}

/// Reads every case of `script-compare.json` (SPEC §11's script words).
pub fn script_compare_cases() -> Vec<CompareCase> {
    cases_of("script-compare.json")
}

fn cases_of(file: &str) -> Vec<CompareCase> {
    let raw: Vec<RawCase> = load(file);
    raw.into_iter().map(|c| c.resolve(file)).collect()
}

fn load<T: DeserializeOwned>(name: &str) -> T {
    let path = dir().join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("vectors/{name}: {e}"))
}

/// The one text of `inline` and `file` (the README: exactly one is set),
/// read from `texts/` as strict UTF-8 when it is a file.
fn resolve(
    (json, case): (&str, &str),
    what: &str,
    inline: Option<String>,
    file: Option<String>,
) -> Text {
    match (inline, file) {
        (Some(text), None) => Text { text, file: None },
        (None, Some(rel)) => {
            let path = dir().join(&rel);
            let bytes = std::fs::read(&path)
                .unwrap_or_else(|e| panic!("vectors/{json}: case '{case}': {rel}: {e}"));
            let text = String::from_utf8(bytes).unwrap_or_else(|e| {
                panic!("vectors/{json}: case '{case}': {rel} is not strict UTF-8: {e}")
            });
            Text {
                text,
                file: Some(path),
            }
        }
        _ => panic!("vectors/{json}: case '{case}': {what} needs exactly one of the inline text and the file"),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    name: String,
    a: Option<String>,
    a_file: Option<String>,
    b: Option<String>,
    b_file: Option<String>,
    #[serde(default)]
    words: Option<String>,
    k: u64,
    n: u64,
    expected: RawExpected,
}

impl RawCase {
    fn resolve(self, json: &str) -> CompareCase {
        let name = self.name;
        let at = (json, name.as_str());
        let e = self.expected;
        let [da, db] = e.documents;
        let doc = |d: RawDocument, what: &str| Document {
            normalized: resolve(at, what, d.normalized, d.normalized_file).text,
            normalized_sha256: d.normalized_sha256,
            shingles: d.shingles,
            signature: d.signature,
            signature_sha256: d.signature_sha256,
        };
        let documents = [doc(da, "documents[0]"), doc(db, "documents[1]")];
        CompareCase {
            a: resolve(at, "a", self.a, self.a_file),
            b: resolve(at, "b", self.b, self.b_file),
            k: self.k,
            n: self.n,
            words: self.words.unwrap_or_else(|| "space".to_owned()),
            expected: Expected {
                canonical: e.canonical,
                receipt_sha256: e.receipt_sha256,
                verdict: e.verdict,
                matches: e.matches,
                documents,
            },
            name,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExpected {
    canonical: String,
    receipt_sha256: String,
    verdict: String,
    matches: Option<u32>,
    documents: [RawDocument; 2],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDocument {
    normalized: Option<String>,
    normalized_file: Option<String>,
    normalized_sha256: String,
    shingles: u64,
    signature: Option<Vec<u32>>,
    signature_sha256: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_loads_and_the_file_texts_are_read() {
        let c = constants();
        assert_eq!((c.a.len(), c.b.len()), (256, 256));
        assert!(normalize_cases().len() > 50);
        let cases = compare_cases();
        assert!(cases.len() > 20);
        assert!(cases.iter().all(|c| c.words == "space"));
        let script = script_compare_cases();
        assert_eq!(script.len(), 20);
        assert!(script.iter().all(|c| c.words == "script"));
        let from_files: Vec<&Text> = cases
            .iter()
            .flat_map(|c| [&c.a, &c.b])
            .filter(|t| t.file.is_some())
            .collect();
        assert!(!from_files.is_empty());
        for t in from_files {
            let bytes = std::fs::read(t.file.as_ref().unwrap()).unwrap();
            assert_eq!(bytes, t.text.as_bytes());
        }
    }

    #[test]
    fn a_text_needs_exactly_one_source() {
        for (inline, file) in [(None, None), (Some("x".into()), Some("texts/x".into()))] {
            let r = std::panic::catch_unwind(|| resolve(("compare.json", "c"), "a", inline, file));
            let msg = *r.unwrap_err().downcast::<String>().unwrap();
            assert!(msg.contains("case 'c': a needs exactly one"), "{msg}");
        }
    }
}
