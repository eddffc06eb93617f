//! The receipt: build, canonical form, hash, strict parse, verify (SPEC §9, §10).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{compare, Digest, Error, Fingerprint, Params, Verdict, WordRule};

/// The algorithm name a v1 receipt carries (words split on spaces; the
/// script rule's is [`crate::WordRule::algorithm`]).
pub const ALGORITHM: &str = "kar-shingle-minhash-v1";

/// What a receipt records of one document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocumentDigest {
    /// SHA-256 of the normalized text.
    pub normalized_sha256: Digest,
    /// The number of distinct shingles.
    pub shingles: u64,
    /// SHA-256 of the signature hex string; `None` without a signature.
    pub signature_sha256: Option<Digest>,
}

impl From<&Fingerprint> for DocumentDigest {
    fn from(f: &Fingerprint) -> DocumentDigest {
        DocumentDigest {
            normalized_sha256: f.normalized_sha256,
            shingles: f.shingles,
            signature_sha256: f.signature.as_ref().map(|s| s.sha256()),
        }
    }
}

/// A receipt (SPEC §9): everything two parties need to agree on a
/// comparison without exchanging the texts.
///
/// ```
/// use neardup::{compare, Params, Receipt};
/// let c = compare("one two three four five six", "one two three four five seven", Params::DEFAULT);
/// let text = c.receipt.canonical();
/// assert!(text.starts_with(r#"{"algorithm":"kar-shingle-minhash-v1","documents":[{"#));
/// assert_eq!(Receipt::parse(&text)?, c.receipt);
/// let v = c.receipt.verify("one two three four five six", "one two three four five seven", None);
/// assert!(v.verified && v.mismatches.is_empty());
/// assert!(!c.receipt.verify("one two three four five six", "", None).verified);
/// # Ok::<(), neardup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Receipt {
    /// `k`, `n`, and the word rule, which the algorithm id names.
    pub params: Params,
    /// Document A, then document B: the order matters.
    pub documents: [DocumentDigest; 2],
    /// Matching slots; `None` when either document has no signature.
    pub matches: Option<u32>,
    /// The verdict of SPEC §8.
    pub verdict: Verdict,
}

impl Receipt {
    /// The receipt of a pair, from the two documents' fingerprints alone.
    /// Refused when they were made with different params.
    pub fn new(a: &Fingerprint, b: &Fingerprint) -> Result<Receipt, Error> {
        if a.params != b.params {
            return Err(Error::MixedParams {
                doc: 1,
                got: b.params,
                want: a.params,
            });
        }
        Ok(Receipt::of_same(a, b))
    }

    /// [`Receipt::new`] of two fingerprints known to share their params.
    pub(crate) fn of_same(a: &Fingerprint, b: &Fingerprint) -> Receipt {
        let params = a.params;
        let matches = match (&a.signature, &b.signature) {
            (Some(sa), Some(sb)) => Some(sa.matches(sb)),
            _ => None,
        };
        let same = a.normalized_sha256 == b.normalized_sha256;
        Receipt {
            params,
            documents: [a.into(), b.into()],
            matches,
            verdict: Verdict::decide(same, matches, params.n()),
        }
    }

    /// The canonical form: keys sorted, no whitespace, plain integers.
    pub fn canonical(&self) -> String {
        // `Wire` declares its fields in byte order and holds only integers,
        // nulls and ASCII strings that need no escaping, so serde_json's
        // compact output is exactly the canonical form.
        serde_json::to_string(&Wire::from(self)).unwrap_or_default()
    }

    /// The receipt hash: SHA-256 of the canonical form.
    pub fn sha256(&self) -> Digest {
        Digest::of(self.canonical().as_bytes())
    }

    /// Parses a supplied receipt strictly, as SPEC §10 says: any key order
    /// and whitespace, but no missing, extra or duplicated field, no wrong
    /// type (`5.0` is not an integer), no unknown algorithm, no `k` or `n`
    /// out of range. The error names the field.
    ///
    /// Also accepts the object `neardup compare --json` prints, which holds
    /// the receipt under `"receipt"`; its other members are not checked.
    pub fn parse(json: &str) -> Result<Receipt, Error> {
        if json.trim().is_empty() {
            return Err(malformed("(root)", "the receipt is empty"));
        }
        let shape: serde_json::Value = serde_json::from_str(json)
            .map_err(|e| malformed("(root)", format!("invalid JSON: {e}")))?;
        let object = shape
            .as_object()
            .ok_or_else(|| malformed("(root)", "expected a JSON object"))?;
        if object.contains_key("receipt") && !object.contains_key("algorithm") {
            let envelope: Envelope = strict(json)?;
            envelope.receipt.check("receipt.")
        } else {
            strict::<Wire>(json)?.check("")
        }
    }

    /// Verifies this (claimed) receipt against the texts `a` and `b`
    /// (SPEC §10): recomputes their receipt with this receipt's own `k`,
    /// `n` and algorithm (word rule), and lists every field that differs, plus the receipt hash when
    /// the caller expects one.
    pub fn verify(&self, a: &str, b: &str, expected_sha256: Option<&Digest>) -> Verification {
        self.check(&compare(a, b, self.params).receipt, expected_sha256)
    }

    /// [`Receipt::verify`] against a receipt the caller recomputed itself
    /// (on threads, or in stages with progress): the one verification step
    /// every adapter runs.
    pub fn check(&self, actual: &Receipt, expected_sha256: Option<&Digest>) -> Verification {
        let mut mismatches = self.diff(actual);
        let hash = actual.sha256();
        if let Some(expected) = expected_sha256.filter(|&e| *e != hash) {
            mismatches.push(Mismatch {
                field: "receipt_sha256".to_owned(),
                claimed: expected.to_string(),
                actual: hash.to_string(),
            });
        }
        Verification {
            verified: mismatches.is_empty(),
            receipt_sha256: hash,
            verdict: actual.verdict,
            mismatches,
        }
    }

    /// The fields where `actual` differs from this (claimed) receipt.
    fn diff(&self, actual: &Receipt) -> Vec<Mismatch> {
        let mut out = Vec::new();
        let mut check = |field: String, claimed: String, got: String| {
            if claimed != got {
                out.push(Mismatch {
                    field,
                    claimed,
                    actual: got,
                });
            }
        };
        check(
            "k".into(),
            self.params.k().to_string(),
            actual.params.k().to_string(),
        );
        check(
            "n".into(),
            self.params.n().to_string(),
            actual.params.n().to_string(),
        );
        for (i, (c, a)) in self.documents.iter().zip(&actual.documents).enumerate() {
            let field = |name: &str| format!("documents[{i}].{name}");
            check(
                field("normalized_sha256"),
                c.normalized_sha256.to_string(),
                a.normalized_sha256.to_string(),
            );
            check(
                field("shingles"),
                c.shingles.to_string(),
                a.shingles.to_string(),
            );
            check(
                field("signature_sha256"),
                show(c.signature_sha256),
                show(a.signature_sha256),
            );
        }
        check("matches".into(), show(self.matches), show(actual.matches));
        check(
            "verdict".into(),
            self.verdict.to_string(),
            actual.verdict.to_string(),
        );
        out
    }
}

/// Serialized as its canonical object.
impl Serialize for Receipt {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Wire::from(self).serialize(s)
    }
}

impl fmt::Display for Receipt {
    /// Writes the canonical form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical())
    }
}

fn show<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "null".to_owned(), |v| v.to_string())
}

/// What verifying a receipt found: `verified` exactly when there is no
/// mismatch. Serialized as every adapter reports it, keys sorted like
/// every JSON object neardup prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verification {
    /// Every field that differs, in receipt order, then the hash.
    pub mismatches: Vec<Mismatch>,
    /// The hash of the receipt the texts give.
    pub receipt_sha256: Digest,
    /// The verdict the texts give.
    pub verdict: Verdict,
    /// Whether every field agrees.
    pub verified: bool,
}

/// One field where a claimed receipt and the recomputed one differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The JSON path: `documents[1].shingles`, `matches`, `receipt_sha256`…
    pub field: String,
    /// What the supplied receipt says.
    pub claimed: String,
    /// What the texts give.
    pub actual: String,
}

impl Mismatch {
    /// What the difference means, in words: which document's normalized
    /// text, shingle count or signature differs.
    pub fn meaning(&self) -> String {
        let doc = |i: char| if i == '0' { "document A" } else { "document B" };
        let f = self.field.as_str();
        match f.strip_prefix("documents[") {
            Some(rest) => {
                let who = doc(rest.chars().next().unwrap_or('0'));
                if f.ends_with("normalized_sha256") {
                    format!("{who}: the normalized text differs")
                } else if f.ends_with("shingles") {
                    format!("{who}: the distinct shingle count differs")
                } else {
                    format!("{who}: the signature differs")
                }
            }
            None => match f {
                "matches" => "the number of matching slots differs".to_owned(),
                "verdict" => "the verdict differs".to_owned(),
                "receipt_sha256" => "the receipt hash differs".to_owned(),
                _ => format!("'{f}' differs"),
            },
        }
    }
}

/// Serialized as `{"actual", "claimed", "field", "meaning"}`.
impl Serialize for Mismatch {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut m = s.serialize_struct("Mismatch", 4)?;
        m.serialize_field("actual", &self.actual)?;
        m.serialize_field("claimed", &self.claimed)?;
        m.serialize_field("field", &self.field)?;
        m.serialize_field("meaning", &self.meaning())?;
        m.end()
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} (receipt says {}, texts give {})",
            self.field,
            self.meaning(),
            self.claimed,
            self.actual
        )
    }
}

fn malformed(field: impl Into<String>, problem: impl Into<String>) -> Error {
    Error::MalformedReceipt {
        field: field.into(),
        problem: problem.into(),
    }
}

/// The receipt exactly as it is written: the fields in canonical (byte)
/// order, with serde's checks for missing, unknown and duplicated fields.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    algorithm: String,
    documents: Vec<WireDocument>,
    k: u64,
    // `deserialize_with` makes the field required: a plain `Option` would
    // let a receipt omit it.
    #[serde(deserialize_with = "Option::deserialize")]
    matches: Option<u64>,
    n: u64,
    verdict: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WireDocument {
    normalized_sha256: String,
    shingles: u64,
    #[serde(deserialize_with = "Option::deserialize")]
    signature_sha256: Option<String>,
}

#[derive(Deserialize)]
struct Envelope {
    receipt: Wire,
}

impl From<&Receipt> for Wire {
    fn from(r: &Receipt) -> Wire {
        Wire {
            algorithm: r.params.algorithm().to_owned(),
            documents: r
                .documents
                .iter()
                .map(|d| WireDocument {
                    normalized_sha256: d.normalized_sha256.to_string(),
                    shingles: d.shingles,
                    signature_sha256: d.signature_sha256.map(|s| s.to_string()),
                })
                .collect(),
            k: r.params.k() as u64,
            matches: r.matches.map(u64::from),
            n: r.params.n() as u64,
            verdict: r.verdict.to_string(),
        }
    }
}

impl Wire {
    /// The checks serde's types cannot express. `at` prefixes field names
    /// (`receipt.` inside an envelope).
    fn check(self, at: &str) -> Result<Receipt, Error> {
        let field = |name: &str| format!("{at}{name}");
        let Some(words) = WordRule::from_algorithm(&self.algorithm) else {
            return Err(malformed(
                field("algorithm"),
                format!(
                    "unknown algorithm '{}', expected '{}' or '{}'",
                    crate::error::Snippet(&self.algorithm),
                    WordRule::Space.algorithm(),
                    WordRule::Script.algorithm(),
                ),
            ));
        };
        if !Params::K_RANGE.contains(&self.k) {
            return Err(malformed(
                field("k"),
                Error::ShingleSize(self.k).to_string(),
            ));
        }
        let params = Params::new(self.k, self.n)
            .map_err(|e| malformed(field("n"), e.to_string()))?
            .with_words(words);
        let matches = match self.matches {
            Some(m) if m > self.n => {
                return Err(malformed(
                    field("matches"),
                    format!("{m} matching slots is more than n = {}", self.n),
                ))
            }
            m => m.map(|m| m as u32),
        };
        let verdict = self
            .verdict
            .parse::<Verdict>()
            .map_err(|e| malformed(field("verdict"), e))?;
        let docs: [WireDocument; 2] = self.documents.try_into().map_err(|d: Vec<_>| {
            malformed(
                field("documents"),
                format!("expected 2 documents, got {}", d.len()),
            )
        })?;
        let mut documents = [DocumentDigest {
            normalized_sha256: Digest([0; 32]),
            shingles: 0,
            signature_sha256: None,
        }; 2];
        for (i, (doc, out)) in docs.into_iter().zip(&mut documents).enumerate() {
            let field = |name: &str| format!("{at}documents[{i}].{name}");
            let hex = |name: &str, s: &str| {
                Digest::from_hex(s).map_err(|e| malformed(field(name), e.to_string()))
            };
            out.normalized_sha256 = hex("normalized_sha256", &doc.normalized_sha256)?;
            out.shingles = doc.shingles;
            out.signature_sha256 = match &doc.signature_sha256 {
                Some(s) => Some(hex("signature_sha256", s)?),
                None => None,
            };
        }
        Ok(Receipt {
            params,
            documents,
            matches,
            verdict,
        })
    }
}

/// Deserializes `json` into `T`, turning serde's error into one that names
/// the field, however deep, and rejecting trailing content.
fn strict<'de, T: Deserialize<'de>>(json: &'de str) -> Result<T, Error> {
    let mut de = serde_json::Deserializer::from_str(json);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        // Missing, unknown and duplicate fields are reported by the parent
        // object; name the field itself.
        let named = ["missing field `", "unknown field `", "duplicate field `"]
            .iter()
            .find_map(|p| inner.strip_prefix(p))
            .and_then(|rest| rest.split('`').next());
        let field = match (named, path.as_str()) {
            (Some(name), ".") => name.to_owned(),
            // Unknown fields already end the path; missing ones do not.
            (Some(name), p) if p == name || p.ends_with(&format!(".{name}")) => p.to_owned(),
            (Some(name), parent) => format!("{parent}.{name}"),
            (None, ".") => "(root)".to_owned(),
            (None, path) => path.to_owned(),
        };
        malformed(field, inner)
    })?;
    de.end()
        .map_err(|e| malformed("(root)", format!("trailing content: {e}")))?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Receipt {
        compare(
            "the quick brown fox jumps over the lazy dog",
            "the quick brown fox jumped over the lazy dog",
            Params::new(2, 16).unwrap(),
        )
        .receipt
    }

    fn field_of(json: &str) -> String {
        match Receipt::parse(json) {
            Err(Error::MalformedReceipt { field, .. }) => field,
            other => panic!("expected malformed, got {other:?}"),
        }
    }

    #[test]
    fn canonical_round_trip() {
        let r = sample();
        assert_eq!(Receipt::parse(&r.canonical()), Ok(r));
        let pretty = serde_json::to_string_pretty(&r).unwrap();
        assert_eq!(Receipt::parse(&pretty), Ok(r));
    }

    #[test]
    fn envelope_is_accepted() {
        let r = sample();
        let env = format!(
            r#"{{"a":"x","receipt":{},"receipt_sha256":"..."}}"#,
            r.canonical()
        );
        assert_eq!(Receipt::parse(&env), Ok(r));
        let bad = env.replace(r#""k":2"#, r#""k":2.0"#);
        assert_eq!(field_of(&bad), "receipt.k");
    }

    #[test]
    fn malformed_receipts_name_the_field() {
        let c = sample().canonical();
        assert_eq!(field_of(&c.replace(r#""k":2,"#, "")), "k");
        assert_eq!(field_of(&c.replace(r#""k":2"#, r#""k":2,"x":1"#)), "x");
        assert_eq!(field_of(&c.replace(r#""k":2"#, r#""k":2,"k":2"#)), "k");
        assert_eq!(field_of(&c.replace(r#""k":2"#, r#""k":2.0"#)), "k");
        assert_eq!(field_of(&c.replace(r#""k":2"#, r#""k":2e0"#)), "k");
        assert_eq!(field_of(&c.replace(r#""k":2"#, r#""k":65"#)), "k");
        assert_eq!(field_of(&c.replace(r#""n":16"#, r#""n":8"#)), "n");
        assert_eq!(
            field_of(&c.replace("minhash-v1", "minhash-v2")),
            "algorithm"
        );
        assert_eq!(
            field_of(&c.replace(r#""shingles":"#, r#""shingles":-"#)),
            "documents[0].shingles"
        );
        assert_eq!(
            field_of(&c.replacen(
                r#","signature_sha256":"#,
                r#","signature_sha256":"x","y":"#,
                1
            )),
            "documents[0].y"
        );
        assert_eq!(
            field_of(&c.replace(r#"shingles":"#, r#"shingle":"#)),
            "documents[0].shingle"
        );
        assert_eq!(field_of(""), "(root)");
        assert_eq!(field_of("{"), "(root)");
        assert_eq!(field_of("[]"), "(root)");
        assert_eq!(field_of(&format!("{c} {c}")), "(root)");
    }

    #[test]
    fn diff_names_fields() {
        let r = sample();
        let mut other = r;
        other.documents[1].shingles += 1;
        other.verdict = Verdict::Distinct;
        let fields: Vec<_> = r.diff(&other).into_iter().map(|m| m.field).collect();
        assert_eq!(fields, ["documents[1].shingles", "verdict"]);
    }
}
