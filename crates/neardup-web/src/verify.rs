//! Verify: a supplied receipt and two documents in, VERIFIED, MISMATCH or
//! MALFORMED out, by the same rules as `neardup verify` (SPEC §10).

use neardup::{Digest, Receipt};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::compare::{comparison, decode_both, failure};
use crate::Stage;

/// What the page sends besides the two texts' bytes.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerifyRequest {
    /// The supplied receipt: canonical or pretty JSON, or the object
    /// `neardup compare --json` prints.
    pub receipt: String,
    /// The receipt hash the user expects, if any (like `neardup verify
    /// --sha256`); empty means none.
    #[serde(default)]
    pub sha256: String,
    /// Replace invalid UTF-8 instead of refusing it.
    #[serde(default)]
    pub lossy: bool,
    /// How to name the documents in messages.
    #[serde(default)]
    pub names: Option<[String; 2]>,
    /// The documents' file names (`None` for typed text): they tell HTML
    /// from plain text, as a path does for the CLI.
    #[serde(default)]
    pub files: [Option<String>; 2],
}

/// Recomputes the receipt from the texts with the supplied receipt's own
/// `k`, `n` and word rule (its `algorithm`, SPEC §10–11) and compares
/// field by field.
///
/// Returns the core's [`neardup::Verification`] object (`verified`,
/// `receipt_sha256`, `verdict`, `mismatches: [{"actual", "claimed",
/// "field", "meaning"}]`, as `neardup verify --json` prints it) plus
/// `"ok": true`, `"status": "VERIFIED" | "MISMATCH"`, and the receipt's
/// `k`, `n`, `words` (the rule's name) and `algorithm`, which the page
/// shows; `{"ok": true, "status": "MALFORMED", "error"}` for a receipt
/// that SPEC §10 rejects, or `{"ok": false, "field", "error"}` when the
/// texts or the expected hash cannot be read.
///
/// ```
/// use neardup_web::{verify, VerifyRequest};
/// let receipt = neardup::compare("a b c", "a b d", neardup::Params::new(1, 16)?).receipt;
/// let req = VerifyRequest { receipt: receipt.canonical(), ..Default::default() };
/// let texts = || [b"a b c".to_vec(), b"a b d".to_vec()];
/// assert_eq!(verify(texts(), &req, &mut |_| {})["status"], "VERIFIED");
/// let tampered = [b"a b c".to_vec(), b"a b e".to_vec()];
/// assert_eq!(verify(tampered, &req, &mut |_| {})["status"], "MISMATCH");
/// # Ok::<(), neardup::Error>(())
/// ```
pub fn verify(texts: [Vec<u8>; 2], req: &VerifyRequest, progress: &mut dyn FnMut(Stage)) -> Value {
    let claimed = match Receipt::parse(&req.receipt) {
        Ok(r) => r,
        Err(e) => return json!({"ok": true, "status": "MALFORMED", "error": e.to_string()}),
    };
    let expected = match req.sha256.trim() {
        "" => None,
        hex => match Digest::from_hex(hex) {
            Ok(d) => Some(d),
            Err(e) => return failure("sha256", &format!("expected receipt hash: {e}")),
        },
    };
    let how = (req.lossy, req.names.as_ref(), &req.files);
    let (texts, notes) = match decode_both(texts, how, claimed.params, progress) {
        Ok(t) => t,
        Err((field, e)) => return failure(field, &e),
    };
    let actual = match comparison(texts, claimed.params, progress) {
        Ok(c) => c.receipt,
        Err((field, e)) => return failure(field, &e),
    };
    let v = claimed.check(&actual, expected.as_ref());
    let mut out = serde_json::to_value(&v).unwrap_or_default();
    out["ok"] = true.into();
    out["status"] = if v.verified { "VERIFIED" } else { "MISMATCH" }.into();
    let params = claimed.params;
    out["k"] = params.k().into();
    out["n"] = params.n().into();
    out["words"] = params.words().name().into();
    out["algorithm"] = params.algorithm().into();
    notes.add_to(&mut out);
    if !v.verified && notes.extracted() {
        out["note"] = format!(
            "A text was extracted from a document by {}: a receipt made over text extracted by another version verifies only with that version, or against the saved text (neardup extract).",
            neardup_extract::VERSION
        )
        .into();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup::{compare, Params};

    const A: &str = "the quick brown fox jumps over the lazy dog";
    const B: &str = "the quick brown fox jumped over the lazy dog";

    fn run(receipt: String, sha256: &str, a: &str, b: &str) -> Value {
        let req = VerifyRequest {
            receipt,
            sha256: sha256.into(),
            ..Default::default()
        };
        verify(
            [a.as_bytes().to_vec(), b.as_bytes().to_vec()],
            &req,
            &mut |_| {},
        )
    }

    #[test]
    fn one_changed_character_is_a_field_by_field_mismatch() {
        let r = compare(A, B, Params::new(2, 32).unwrap()).receipt;
        assert_eq!(run(r.canonical(), "", A, B)["status"], "VERIFIED");
        let out = run(r.canonical(), "", A, &B.replace("dog", "dig"));
        assert_eq!(out["status"], "MISMATCH");
        let fields: Vec<_> = out["mismatches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["field"].clone())
            .collect();
        assert!(
            fields.contains(&"documents[1].normalized_sha256".into()),
            "{fields:?}"
        );
        assert_eq!(
            out["mismatches"][0]["meaning"],
            "document B: the normalized text differs"
        );
    }

    /// A script receipt is recomputed with script words, and the answer
    /// names the receipt's rule; the same texts under the other id do not
    /// verify.
    #[test]
    fn the_receipt_s_algorithm_picks_the_word_rule() {
        let (a, b) = ("你好，世界。这是一个句子", "你好世界。这是一个句子！");
        let script = Params::new(2, 16)
            .unwrap()
            .with_words(neardup::WordRule::Script);
        let r = compare(a, b, script).receipt;
        let out = run(r.canonical(), &r.sha256().to_string(), a, b);
        assert_eq!(out["status"], "VERIFIED", "{out}");
        assert_eq!(
            (&out["words"], &out["algorithm"], &out["k"], &out["n"]),
            (
                &json!("script"),
                &json!("kar-script-shingle-minhash-v1"),
                &json!(2),
                &json!(16)
            )
        );
        let as_space = r.canonical().replace("kar-script-shingle", "kar-shingle");
        let out = run(as_space, "", a, b);
        assert_eq!(
            (&out["status"], &out["words"]),
            (&json!("MISMATCH"), &json!("space"))
        );
    }

    #[test]
    fn malformed_and_hash_checks() {
        let r = compare(A, B, Params::DEFAULT).receipt;
        let out = run(r.canonical().replace(r#""k":5"#, r#""k":5.0"#), "", A, B);
        assert_eq!(out["status"], "MALFORMED");
        assert!(out["error"].as_str().unwrap().contains("'k'"));
        assert_eq!(run(String::new(), "", A, B)["status"], "MALFORMED");
        let good = r.sha256().to_string();
        assert_eq!(run(r.canonical(), &good, A, B)["status"], "VERIFIED");
        let last = if good.ends_with('0') { "1" } else { "0" };
        let bad = format!("{}{last}", &good[..63]);
        let out = run(r.canonical(), &bad, A, B);
        assert_eq!(out["mismatches"][0]["field"], "receipt_sha256");
        assert_eq!(run(r.canonical(), "xyz", A, B)["field"], "sha256");
    }
}
