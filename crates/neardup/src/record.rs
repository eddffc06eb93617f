//! The signature record: one line of `neardup sign`, which `neardup scan`
//! (and any other engine) reads back instead of signing again.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::{Digest, Error, Fingerprint, Params, Signature, WordRule};

/// One signed document: its id as JSON text and its fingerprint.
///
/// The line is `{"id": ID, "k", "n", "normalized_sha256", "shingles",
/// "signature", "signature_sha256"}` (`"path"` instead of `"id"` from `sign
/// FILE...`), with `signature` the 8·N hex digits of SPEC §9 and both
/// signature fields `null` for a text of fewer than K words. A record of
/// SPEC §11's script words has `"words":"script"` after `n`; one of space
/// words has no `words`, as before the rule existed.
///
/// ```
/// use neardup::{Fingerprint, Params, SignatureRecord};
/// let fp = Fingerprint::of("one two three four five six", Params::DEFAULT);
/// let mut line = String::new();
/// SignatureRecord::write(&mut line, "id", "\"doc-1\"", &fp);
/// let back = SignatureRecord::parse(line.trim_end().as_bytes())?;
/// assert_eq!((back.id.as_str(), &back.fingerprint), ("\"doc-1\"", &fp));
/// let script = Params::DEFAULT.with_words(neardup::WordRule::Script);
/// let fp = Fingerprint::of("这是一个没有空格的句子", script);
/// line.clear();
/// SignatureRecord::write(&mut line, "id", "1", &fp);
/// assert!(line.starts_with(r#"{"id":1,"k":5,"n":128,"words":"script","normalized_sha256":"#));
/// assert_eq!(SignatureRecord::parse(line.trim_end().as_bytes())?.fingerprint, fp);
/// # Ok::<(), neardup::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureRecord {
    /// The `id` (or `path`) as JSON text: a string or an integer, a string
    /// with escapes re-encoded so that one id has one spelling.
    pub id: String,
    /// What the line says of the document, checked for consistency.
    pub fingerprint: Fingerprint,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    path: Option<&'a RawValue>,
    k: u64,
    n: u64,
    #[serde(default)]
    words: Option<&'a str>,
    normalized_sha256: &'a str,
    shingles: u64,
    #[serde(deserialize_with = "Option::deserialize")]
    signature: Option<&'a str>,
    #[serde(deserialize_with = "Option::deserialize")]
    signature_sha256: Option<&'a str>,
}

/// Appends `x` in decimal.
fn push_decimal(out: &mut String, x: u64) {
    out.push_str(itoa::Buffer::new().format(x));
}

fn bad(field: &str, problem: String) -> Error {
    Error::MalformedRecord {
        field: field.to_owned(),
        problem,
    }
}

impl SignatureRecord {
    /// Appends one record line, with its newline. `key` names the document
    /// field (`id` or `path`) and `id` is its value as JSON text. Written
    /// by hand: this runs once per document of a corpus, and every value
    /// is a number, a hex string or `null`.
    pub fn write(out: &mut String, key: &str, id: &str, fp: &Fingerprint) {
        out.push_str("{\"");
        out.push_str(key);
        out.push_str("\":");
        out.push_str(id);
        out.push_str(",\"k\":");
        push_decimal(out, fp.params.k() as u64);
        out.push_str(",\"n\":");
        push_decimal(out, fp.params.n() as u64);
        if fp.params.words() != WordRule::Space {
            out.push_str(",\"words\":\"");
            out.push_str(fp.params.words().name());
            out.push('"');
        }
        out.push_str(",\"normalized_sha256\":\"");
        fp.normalized_sha256.write_hex(out);
        out.push_str("\",\"shingles\":");
        push_decimal(out, fp.shingles);
        out.push_str(",\"signature\":");
        match &fp.signature {
            Some(sig) => {
                out.push('"');
                let hex = out.len();
                sig.write_hex(out);
                // The receipt's signature_sha256 is SHA-256 of exactly
                // these digits (Signature::sha256), so they are hashed
                // where they were written instead of made again.
                let digest = Digest::of(&out.as_bytes()[hex..]);
                out.push_str("\",\"signature_sha256\":\"");
                digest.write_hex(out);
                out.push_str("\"}");
            }
            None => out.push_str(r#"null,"signature_sha256":null}"#),
        }
        out.push('\n');
    }

    /// Whether a line is a signature record rather than a document: it has
    /// the three fields only a record has (`null` ones included: the first
    /// document of a file may be too short for a signature).
    pub fn looks_like(line: &[u8]) -> bool {
        type Keys = std::collections::BTreeMap<String, serde::de::IgnoredAny>;
        serde_json::from_slice::<Keys>(line).is_ok_and(|keys| {
            ["normalized_sha256", "signature", "signature_sha256"]
                .iter()
                .all(|k| keys.contains_key(*k))
        })
    }

    /// Reads one record line strictly: no unknown field, `K` and `N` in
    /// range, and parts that agree with each other (a signature of `N`
    /// slots that hashes to its `signature_sha256`, a signature exactly
    /// when `shingles` is not zero). The error names the field.
    pub fn parse(line: &[u8]) -> Result<SignatureRecord, Error> {
        let s: Line = serde_json::from_slice(line).map_err(|e| bad("(root)", e.to_string()))?;
        let id = match (s.id, s.path) {
            (Some(id), None) | (None, Some(id)) => id.get(),
            _ => {
                return Err(bad(
                    "id",
                    "a signature line needs exactly one of 'id' and 'path'".to_owned(),
                ))
            }
        };
        if !(id.starts_with('"') || id.bytes().all(|b| b.is_ascii_digit() || b == b'-')) {
            return Err(bad(
                "id",
                "field 'id' must be a string or an integer".to_owned(),
            ));
        }
        let id = crate::scan::lines::canonical_id(id)
            .ok_or_else(|| bad("id", "field 'id' is not a JSON string".to_owned()))?;
        let params = Params::new(s.k, s.n).map_err(|e| {
            let field = if matches!(e, Error::ShingleSize(_)) {
                "k"
            } else {
                "n"
            };
            bad(field, format!("field '{field}': {e}"))
        })?;
        let words = match s.words {
            None => WordRule::Space,
            Some(w) => w
                .parse()
                .map_err(|e| bad("words", format!("field 'words': {e}")))?,
        };
        let params = params.with_words(words);
        let normalized_sha256 = Digest::from_hex(s.normalized_sha256).map_err(|e| {
            bad(
                "normalized_sha256",
                format!("field 'normalized_sha256': {e}"),
            )
        })?;
        let signature = match (s.signature, s.signature_sha256) {
            (None, None) => None,
            (Some(hex), Some(claimed)) => {
                let sig = Signature::from_hex(hex)
                    .ok()
                    .filter(|sig| sig.slots().len() == params.n())
                    .ok_or_else(|| {
                        bad(
                            "signature",
                            format!(
                                "field 'signature' must be {} lowercase hex digits",
                                8 * params.n()
                            ),
                        )
                    })?;
                if sig.sha256().to_string() != claimed {
                    return Err(bad(
                        "signature_sha256",
                        "field 'signature_sha256' does not match the signature".to_owned(),
                    ));
                }
                Some(sig)
            }
            _ => {
                return Err(bad(
                    "signature",
                    "'signature' and 'signature_sha256' must both be null or both be set"
                        .to_owned(),
                ))
            }
        };
        if signature.is_none() != (s.shingles == 0) {
            return Err(bad(
                "shingles",
                format!(
                    "field 'shingles' is {} but the signature is {}",
                    s.shingles,
                    if signature.is_some() { "set" } else { "null" }
                ),
            ));
        }
        Ok(SignatureRecord {
            id,
            fingerprint: Fingerprint {
                params,
                normalized_sha256,
                shingles: s.shingles,
                signature,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals() {
        for x in [0, 7, 10, 99, 100, 12_345, u64::MAX] {
            let mut out = "x".to_owned();
            push_decimal(&mut out, x);
            assert_eq!(out, format!("x{x}"));
        }
    }

    /// The line, field by field, as `format!` would write it.
    #[test]
    fn the_line_is_exactly_this() {
        let p = Params::new(3, 16).unwrap();
        for text in ["one two three four five six seven", "short"] {
            let fp = Fingerprint::of(text, p);
            let mut out = String::new();
            SignatureRecord::write(&mut out, "id", "\"a\\\"b\"", &fp);
            let sig = match &fp.signature {
                Some(s) => format!("\"{}\",\"signature_sha256\":\"{}\"", s.to_hex(), s.sha256()),
                None => "null,\"signature_sha256\":null".to_owned(),
            };
            let want = format!(
                "{{\"id\":\"a\\\"b\",\"k\":3,\"n\":16,\"normalized_sha256\":\"{}\",\"shingles\":{},\"signature\":{sig}}}\n",
                fp.normalized_sha256, fp.shingles
            );
            assert_eq!(out, want);
        }
    }

    #[test]
    fn records_round_trip_and_refuse_what_does_not_hold_together() {
        let p = Params::DEFAULT;
        for text in ["one two three four five six seven", "short"] {
            let fp = Fingerprint::of(text, p);
            let mut out = String::new();
            SignatureRecord::write(&mut out, "path", "\"x\"", &fp);
            assert!(SignatureRecord::looks_like(out.as_bytes()));
            let back = SignatureRecord::parse(out.trim_end().as_bytes()).unwrap();
            assert_eq!((back.id.as_str(), back.fingerprint), ("\"x\"", fp));
        }
        assert!(!SignatureRecord::looks_like(br#"{"id":1,"text":"a"}"#));

        let fp = Fingerprint::of("one two three four five six seven", p);
        let mut out = String::new();
        SignatureRecord::write(&mut out, "id", "7", &fp);
        let line = out.trim_end();
        let err = |l: &str| {
            SignatureRecord::parse(l.as_bytes())
                .unwrap_err()
                .to_string()
        };
        // shingles is not in the signature's hash: a changed count parses.
        assert!(SignatureRecord::parse(
            line.replacen("\"shingles\":3", "\"shingles\":4", 1)
                .as_bytes()
        )
        .is_ok());
        assert_eq!(
            err(&line.replacen("\"shingles\":3", "\"shingles\":0", 1)),
            "field 'shingles' is 0 but the signature is set"
        );
        assert_eq!(
            err(&line.replacen("\"signature\":\"", "\"signature\":\"0", 1)),
            "field 'signature' must be 1024 lowercase hex digits"
        );
        let flipped = line.replacen("\"signature\":\"0", "\"signature\":\"1", 1);
        let flipped = if flipped == line {
            line.replacen("\"signature\":\"", "\"signature\":\"0", 1)
        } else {
            flipped
        };
        assert!(err(&flipped).starts_with("field 'signature"));
        assert_eq!(
            err(&line.replacen("\"k\":5", "\"k\":0", 1)),
            "field 'k': shingle size k must be 1..=64, got 0"
        );
        assert_eq!(
            err(&line.replacen("\"id\":7", "\"id\":7.5", 1)),
            "field 'id' must be a string or an integer"
        );
        assert!(err(&line.replacen("}", ",\"x\":1}", 1)).contains("unknown field"));
        let escaped = line.replacen("\"id\":7", r#""id":"\u0061""#, 1);
        assert_eq!(
            SignatureRecord::parse(escaped.as_bytes()).unwrap().id,
            "\"a\""
        );
    }
}
