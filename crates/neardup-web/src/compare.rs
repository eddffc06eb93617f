//! Compare: two documents' bytes in, the page's result object out.

use neardup::{normalize, Backend, Comparison, Doc, Error, Params, ShingleSet, WordRule};
use serde::Deserialize;
use serde_json::{json, Value};

use neardup_extract::Format;

use crate::{decode, Stage};

/// What the page sends besides the two texts' bytes.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompareRequest {
    /// `K` as the user typed it.
    pub k: String,
    /// `N` as the user typed it.
    pub n: String,
    /// The word rule, `space` or `script` (SPEC §11); absent is `space`.
    #[serde(default)]
    pub words: Option<String>,
    /// Replace invalid UTF-8 instead of refusing it.
    #[serde(default)]
    pub lossy: bool,
    /// How to name the documents in messages (file names, or "document A").
    #[serde(default)]
    pub names: Option<[String; 2]>,
    /// The documents' file names (`None` for typed text): they tell HTML
    /// from plain text, as a path does for the CLI.
    #[serde(default)]
    pub files: [Option<String>; 2],
}

/// Compares document A with document B (the order matters).
///
/// Returns the core's [`neardup::Report`], the object `neardup compare
/// --json` prints (`a`, `b`, `jaccard`, `matches`, `n`, `receipt`,
/// `receipt_sha256`, `similarity`, `similarity_interval_95`, `verdict`),
/// plus `"ok": true` and `words`, the word rule's name beside `n`; or
/// `{"ok": false, "field", "error"}` where `field` is `k`, `n`, `words`,
/// `a` or `b`.
/// `progress` hears each [`Stage`] as it starts.
pub fn compare(
    texts: [Vec<u8>; 2],
    req: &CompareRequest,
    progress: &mut dyn FnMut(Stage),
) -> Value {
    let run = || -> Result<Value, (&'static str, String)> {
        let params = params(&req.k, &req.n, req.words.as_deref())?;
        let how = (req.lossy, req.names.as_ref(), &req.files);
        let (texts, notes) = decode_both(texts, how, params, progress)?;
        let c = comparison(texts, params, progress)?;
        let names = req
            .names
            .as_ref()
            .map_or(["document A", "document B"], |n| [&n[0], &n[1]]);
        let mut out = serde_json::to_value(c.report(names)).unwrap_or_default();
        out["ok"] = true.into();
        out["words"] = params.words().name().into();
        notes.add_to(&mut out);
        Ok(out)
    };
    run().unwrap_or_else(|(field, error)| failure(field, &error))
}

/// The page's error object.
pub(crate) fn failure(field: &str, error: &str) -> Value {
    json!({"ok": false, "field": field, "error": error})
}

/// Reads `K`, `N` and the word rule as sent; the core's own messages
/// refuse bad ranges and rule names.
pub(crate) fn params(
    k: &str,
    n: &str,
    words: Option<&str>,
) -> Result<Params, (&'static str, String)> {
    let k = whole(k, "shingle size k", "k")?;
    let n = whole(n, "permutation count n", "n")?;
    let params = Params::new(k, n).map_err(|e| match e {
        Error::Permutations(_) => ("n", e.to_string()),
        _ => ("k", e.to_string()),
    })?;
    Ok(params.with_words(word_rule(words)?))
}

/// Reads `K` and the word rule, for work where `N` plays no part (explain).
pub(crate) fn shingle_size(k: &str, words: Option<&str>) -> Result<Params, (&'static str, String)> {
    params(k, &Params::DEFAULT.n().to_string(), words)
}

/// The word rule by name; none given is SPEC §2's, [`WordRule::Space`].
/// Not trimmed: the page sends a `<select>`'s value, and the core's
/// message quotes what came.
fn word_rule(words: Option<&str>) -> Result<WordRule, (&'static str, String)> {
    words.map_or(Ok(WordRule::Space), |w| {
        w.parse().map_err(|e: Error| ("words", e.to_string()))
    })
}

/// A whole number as typed, or a message naming what it should be.
fn whole(s: &str, what: &'static str, field: &'static str) -> Result<u64, (&'static str, String)> {
    let s = s.trim();
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err((field, format!("{what} must be a whole number, got '{s}'")));
    }
    // All digits: only overflow can fail, and any such value is out of range.
    Ok(s.parse::<u64>().unwrap_or(u64::MAX))
}

/// How the two documents were read: their formats and what a reader
/// should know before trusting a verdict on them.
pub(crate) struct Notes {
    pub(crate) formats: [Format; 2],
    /// The extractor's warnings and each text's [`neardup::Caveat`],
    /// `NAME: WARNING`.
    warnings: Vec<String>,
}

impl Notes {
    /// Adds `formats`, `extractor` and `warnings` to a result object.
    pub(crate) fn add_to(&self, out: &mut Value) {
        out["formats"] = json!([self.formats[0].name(), self.formats[1].name()]);
        out["extractor"] = neardup_extract::VERSION.into();
        out["warnings"] = json!(self.warnings);
    }

    /// Whether either text was extracted from a document.
    pub(crate) fn extracted(&self) -> bool {
        self.formats.iter().any(|f| *f != Format::Text)
    }
}

/// Decodes (or extracts) both documents, naming the one that fails;
/// `params` are what the caveats are about.
pub(crate) fn decode_both(
    texts: [Vec<u8>; 2],
    (lossy, names, files): (bool, Option<&[String; 2]>, &[Option<String>; 2]),
    params: Params,
    progress: &mut dyn FnMut(Stage),
) -> Result<([String; 2], Notes), (&'static str, String)> {
    let [a, b] = texts;
    let name = |i: usize| names.map_or(["document A", "document B"][i], |n| n[i].as_str());
    progress(Stage::Decode(0));
    let a = decode(a, name(0), files[0].as_deref(), lossy).map_err(|e| ("a", e))?;
    progress(Stage::Decode(1));
    let b = decode(b, name(1), files[1].as_deref(), lossy).map_err(|e| ("b", e))?;
    let mut warnings = Vec::new();
    for (i, d) in [&a, &b].into_iter().enumerate() {
        warnings.extend(d.warnings.iter().map(|w| format!("{}: {w}", name(i))));
        if let Some(caveat) = neardup::Caveat::of(&d.text, params) {
            warnings.push(format!("{}: {caveat}", name(i)));
        }
    }
    let notes = Notes {
        formats: [a.format, b.format],
        warnings,
    };
    Ok(([a.text, b.text], notes))
}

/// [`neardup::compare`], step by step so that the page can show progress,
/// and dropping each original text once it is normalized so that a 20 MB
/// document does not sit in memory twice. The steps are the core's public
/// functions in the order `neardup::compare` calls them; a test checks
/// that both give the same result.
pub(crate) fn comparison(
    texts: [String; 2],
    params: Params,
    progress: &mut dyn FnMut(Stage),
) -> Result<Comparison, (&'static str, String)> {
    let [a, b] = texts;
    let backend = Backend::detect();
    let mut doc = |i: usize, text: String| {
        progress(Stage::Normalize(i));
        let normalized = normalize(&text);
        drop(text);
        progress(Stage::Shingle(i));
        let set = ShingleSet::with_words(normalized, params.k(), params.words(), backend);
        progress(Stage::Sign(i));
        Doc::from_shingles(set, params)
    };
    let fail = |e: Error| ("k", e.to_string());
    let da = doc(0, a).map_err(fail)?;
    let db = doc(1, b).map_err(fail)?;
    progress(Stage::Combine);
    Comparison::of(&da, &db).map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(k: &str, n: &str) -> CompareRequest {
        CompareRequest {
            k: k.into(),
            n: n.into(),
            ..Default::default()
        }
    }

    /// The page says what `neardup compare` warns about: a text word
    /// shingles cannot compare, and the formats read.
    #[test]
    fn caveats_and_formats_come_with_the_result() {
        let zh = "这是一个没有空格的句子，中文和日文都是这样书写的，所以词语瓦片无法比较它们。"
            .repeat(5);
        let texts = [
            zh.into_bytes(),
            b"plain english words, five or more".to_vec(),
        ];
        let out = compare(texts, &req("5", "128"), &mut |_| {});
        assert_eq!(out["formats"], json!(["text", "text"]));
        assert_eq!(out["extractor"], neardup_extract::VERSION);
        let warnings = out["warnings"].as_array().unwrap();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0]
            .as_str()
            .unwrap()
            .starts_with("document A: 1 word(s) in 190 characters, fewer than k = 5: word shingles cannot compare"));
    }

    #[test]
    fn steps_match_the_core() {
        let pairs = [
            ("", ""),
            ("a", "b"),
            (
                "one two three four five six",
                "one two three four five seven",
            ),
            (
                "ΟΔΟΣ  İstanbul\u{feff} straße",
                "οδος i\u{307}stanbul STRASSE",
            ),
            ("你好，世界 neardup是工具", "你好世界  NEARDUP 是工具。"),
        ];
        for (a, b) in pairs {
            for k in [1, 2, 5] {
                for rule in WordRule::ALL {
                    let p = Params::new(k, 16).unwrap().with_words(rule);
                    let staged = comparison([a.into(), b.into()], p, &mut |_| {}).unwrap();
                    let core = neardup::compare(a, b, p);
                    assert_eq!(staged.receipt, core.receipt);
                    assert_eq!(staged.fingerprints, core.fingerprints);
                    assert_eq!(staged.containment, core.containment);
                }
            }
        }
    }

    #[test]
    fn reports_every_stage_in_order() {
        let mut seen = Vec::new();
        compare(
            [b"a b".to_vec(), b"c d".to_vec()],
            &req("1", "16"),
            &mut |s| seen.push(s.code()),
        );
        assert_eq!(seen, [0, 4, 1, 2, 3, 5, 6, 7, 8]);
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let out = |k, n| compare([vec![], vec![]], &req(k, n), &mut |_| {});
        assert_eq!(out("0", "128")["field"], "k");
        assert_eq!(
            out("0", "128")["error"],
            "shingle size k must be 1..=64, got 0"
        );
        assert_eq!(out("5", "300")["field"], "n");
        assert_eq!(
            out("5", "abc")["error"],
            "permutation count n must be a whole number, got 'abc'"
        );
        assert_eq!(out("-1", "16")["field"], "k");
        assert_eq!(out("99999999999999999999999", "16")["field"], "k");
        assert_eq!(out(" 5 ", "16")["ok"], true);
    }

    fn words(k: &str, words: &str) -> CompareRequest {
        CompareRequest {
            words: Some(words.into()),
            ..req(k, "16")
        }
    }

    #[test]
    fn the_word_rule_picks_the_algorithm_and_is_echoed() {
        let (a, b) = ("这是一个没有空格的句子", "这是一个没有空格的句");
        let texts = || [a.as_bytes().to_vec(), b.as_bytes().to_vec()];
        let space = compare(texts(), &req("2", "16"), &mut |_| {});
        assert_eq!(
            (&space["words"], &space["receipt"]["algorithm"]),
            (&json!("space"), &json!("kar-shingle-minhash-v1"))
        );
        assert_eq!(space["verdict"], "INSUFFICIENT-DATA");
        let script = compare(texts(), &words("2", "script"), &mut |_| {});
        assert_eq!(
            (&script["words"], &script["receipt"]["algorithm"]),
            (&json!("script"), &json!("kar-script-shingle-minhash-v1"))
        );
        let core = neardup::compare(
            a,
            b,
            Params::new(2, 16).unwrap().with_words(WordRule::Script),
        );
        assert_eq!(script["receipt_sha256"], core.receipt.sha256().to_string());
        assert_eq!(script["verdict"], "NEAR-DUPLICATE");
        // Named, the default rule is the default's receipt.
        let named = compare(texts(), &words("2", "space"), &mut |_| {});
        assert_eq!(named["receipt_sha256"], space["receipt_sha256"]);
    }

    /// A text that script words can compare says so, and is quiet once
    /// they are used.
    #[test]
    fn the_caveat_names_script_words_until_they_are_used() {
        let zh = "这是一个没有空格的句子，中文和日文都是这样书写的。".repeat(5);
        let texts = || [zh.clone().into_bytes(), zh.clone().into_bytes()];
        let out = compare(texts(), &req("5", "16"), &mut |_| {});
        let warning = out["warnings"][0].as_str().unwrap();
        assert!(
            warning.ends_with("script words can (--words script)"),
            "{warning}"
        );
        let out = compare(texts(), &words("5", "script"), &mut |_| {});
        assert_eq!(out["warnings"], json!([]));
    }

    #[test]
    fn a_bad_word_rule_is_one_line_naming_its_field() {
        for bad in ["Script", "", " space", "chars"] {
            let out = compare([vec![], vec![]], &words("5", bad), &mut |_| {});
            assert_eq!(
                (&out["ok"], &out["field"]),
                (&json!(false), &json!("words"))
            );
            assert_eq!(
                out["error"],
                format!("words must be 'space' or 'script', got '{bad}'")
            );
        }
        // K is read first, as the form lists it.
        assert_eq!(
            compare([vec![], vec![]], &words("0", "x"), &mut |_| {})["field"],
            "k"
        );
        // A JSON null is no rule given.
        let req: CompareRequest =
            serde_json::from_str(r#"{"k": "5", "n": "16", "words": null}"#).unwrap();
        assert_eq!(
            compare([vec![], vec![]], &req, &mut |_| {})["words"],
            "space"
        );
    }

    #[test]
    fn invalid_utf8_names_the_document() {
        let out = compare(
            [b"ok".to_vec(), b"\xff".to_vec()],
            &req("1", "16"),
            &mut |_| {},
        );
        assert_eq!(out["field"], "b");
        assert!(out["error"]
            .as_str()
            .unwrap()
            .starts_with("document B: invalid UTF-8 at byte 0"));
        let lossy = CompareRequest {
            lossy: true,
            ..req("1", "16")
        };
        assert_eq!(
            compare([b"ok".to_vec(), b"\xff".to_vec()], &lossy, &mut |_| {})["ok"],
            true
        );
    }
}
