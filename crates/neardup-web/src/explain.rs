//! Explain: two documents' bytes in, the passages they share out, located
//! in the original texts for the page to highlight.

use neardup::{Evidence, Passage, Span};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::compare::{decode_both, failure, shingle_size};
use crate::Stage;

/// How many passages the page highlights unless it asks otherwise.
pub const DEFAULT_MAX_PASSAGES: usize = 500;

/// What the page sends besides the two texts' bytes.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplainRequest {
    /// `K` as the user typed it.
    pub k: String,
    /// The word rule, `space` or `script` (SPEC §11); absent is `space`.
    /// Passages are runs of at least `K` of its words.
    #[serde(default)]
    pub words: Option<String>,
    /// Keep only this many passages, the longest (default
    /// [`DEFAULT_MAX_PASSAGES`]); coverage always counts them all.
    #[serde(default)]
    pub max_passages: Option<usize>,
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
    /// Base texts (as text), set aside by the core's rule
    /// ([`neardup::mark`]): the answer gains `shared_outside_base`, the
    /// object `neardup compare --explain --json --base` prints.
    #[serde(default)]
    pub bases: Vec<String>,
}

/// Finds the passages document A shares with document B
/// ([`neardup::explain`]).
///
/// Returns `{"ok": true, "k", "word_rule", "words": [A, B], "shared_words":
/// [A, B], "coverage": [A, B], "passages_total", "longest", "passages"}`
/// (with base texts, also `shared_outside_base`, and each passage's
/// `from_base`: how many of its words are from a base text), or `{"ok":
/// false, "field", "error"}` where `field` is `k`, `words`, `a` or `b`.
/// `word_rule` echoes the request's `words` (`space` or `script`) under
/// another name, since `words` counts each text's words, as the CLI's
/// evidence does.
/// `passages` holds the longest `max_passages` in A's order; each is the
/// CLI's `{"words", "b_occurrences", "a": SPAN, "b": SPAN}` with two more
/// span fields for JS strings, `start_utf16` and `end_utf16` (offsets in
/// UTF-16 code units). `longest` is the longest passage's word count.
///
/// ```
/// use neardup_web::{explain, ExplainRequest};
/// let req = ExplainRequest { k: "2".into(), ..Default::default() };
/// let out = explain([b"\xF0\x9F\x99\x82 a b c".to_vec(), b"x A  B c".to_vec()], &req, &mut |_| {});
/// assert_eq!(out["passages"][0]["a"]["start_char"], 2);
/// assert_eq!(out["passages"][0]["a"]["start_utf16"], 3);
/// assert_eq!(out["passages"][0]["b"]["end_utf16"], 8);
/// assert_eq!(out["coverage"][0], 0.75);
/// ```
pub fn explain(
    texts: [Vec<u8>; 2],
    req: &ExplainRequest,
    progress: &mut dyn FnMut(Stage),
) -> Value {
    let run = || -> Result<Value, (&'static str, String)> {
        let params = shingle_size(&req.k, req.words.as_deref())?;
        let how = (req.lossy, req.names.as_ref(), &req.files);
        let ([a, b], notes) = decode_both(texts, how, params, progress)?;
        progress(Stage::Explain);
        let e = neardup::explain(&a, &b, params).map_err(|e| ("a", e.to_string()))?;
        let shown = longest_in_order(&e, req.max_passages.unwrap_or(DEFAULT_MAX_PASSAGES));
        let utf16_a = utf16_offsets(&a, shown.iter().map(|p| &p.a));
        let utf16_b = utf16_offsets(&b, shown.iter().map(|p| &p.b));
        let passages: Vec<Value> = shown
            .iter()
            .zip(utf16_a.iter().zip(&utf16_b))
            .map(|(p, (ua, ub))| {
                json!({
                    "words": p.words,
                    "b_occurrences": p.b_occurrences,
                    "a": span(&p.a, *ua),
                    "b": span(&p.b, *ub),
                })
            })
            .collect();
        // A document's extracted text is what the page shows and
        // highlights; a plain text the page decodes itself.
        let extracted = |i: usize, text: &str| {
            (notes.formats[i] != neardup_extract::Format::Text).then(|| text.to_owned())
        };
        let mut out = json!({
            "ok": true,
            "extracted": [extracted(0, &a), extracted(1, &b)],
            "k": params.k(),
            "word_rule": params.words().name(),
            "words": [e.words_a, e.words_b],
            "shared_words": [e.shared_words_a, e.shared_words_b],
            "coverage": [e.coverage_a, e.coverage_b],
            "passages_total": e.passages.len(),
            "longest": e.passages.iter().map(|p| p.words).max().unwrap_or(0),
            "passages": passages,
        });
        if !req.bases.is_empty() {
            let base = neardup::Base::new(req.bases.iter().map(String::as_str), params);
            let rule = params.words();
            let (wa, wb) = (
                neardup::Words::with_rule(&a, rule),
                neardup::Words::with_rule(&b, rule),
            );
            let marks = neardup::mark(&wa, &wb, Some(&base), params.k());
            out["shared_outside_base"] = serde_json::to_value(marks.outside()).unwrap_or_default();
            // Each passage's words of A that are from the base text: all of
            // them for a passage the page shades as "from the base text".
            let starts: Vec<usize> = (0..wa.len()).map(|i| wa.original(i).start).collect();
            for (p, json) in shown
                .iter()
                .zip(out["passages"].as_array_mut().into_iter().flatten())
            {
                let first = starts.partition_point(|&s| s < p.a.start_byte);
                let from_base = marks.a[first..first + p.words]
                    .iter()
                    .filter(|&&m| m == neardup::Mark::FromBase)
                    .count();
                json["from_base"] = from_base.into();
            }
        }
        notes.add_to(&mut out);
        Ok(out)
    };
    run().unwrap_or_else(|(field, error)| failure(field, &error))
}

/// The `max` longest passages (ties to the earlier in A), back in A's order.
fn longest_in_order(e: &Evidence, max: usize) -> Vec<Passage> {
    let mut kept: Vec<Passage> = e.longest().into_iter().take(max).copied().collect();
    kept.sort_by_key(|p| p.a.start_byte);
    kept
}

/// A span as the CLI prints it, plus its UTF-16 offsets.
fn span(s: &Span, (start_utf16, end_utf16): (usize, usize)) -> Value {
    json!({
        "start_byte": s.start_byte,
        "end_byte": s.end_byte,
        "start_char": s.start_char,
        "end_char": s.end_char,
        "line": s.line,
        "start_utf16": start_utf16,
        "end_utf16": end_utf16,
    })
}

/// Each span's start and end in UTF-16 code units, in one pass over the
/// text: a char takes two units exactly when it is outside the BMP, that is
/// when its UTF-8 lead byte is `0xF0` or above, so the offset is the span's
/// char offset plus the number of such lead bytes before it.
fn utf16_offsets<'s>(
    text: &str,
    spans: impl Iterator<Item = &'s Span> + Clone,
) -> Vec<(usize, usize)> {
    let mut marks: Vec<usize> = spans
        .clone()
        .flat_map(|s| [s.start_byte, s.end_byte])
        .collect();
    marks.sort_unstable();
    marks.dedup();
    let bytes = text.as_bytes();
    let (mut pos, mut astral) = (0usize, 0usize);
    let astral_before: Vec<usize> = marks
        .iter()
        .map(|&m| {
            astral += bytes[pos..m].iter().filter(|&&b| b >= 0xF0).count();
            pos = m;
            astral
        })
        .collect();
    let at = |byte: usize| astral_before[marks.binary_search(&byte).unwrap_or_default()];
    spans
        .map(|s| (s.start_char + at(s.start_byte), s.end_char + at(s.end_byte)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(k: &str) -> ExplainRequest {
        ExplainRequest {
            k: k.into(),
            ..Default::default()
        }
    }

    #[test]
    fn base_texts_add_the_share_shared_outside_them() {
        let prompt = "write about the river and the old bridge";
        let a = format!("{prompt}. The river floods each spring and the bridge holds.");
        let b = format!("{prompt}! The river floods each spring, they say.");
        let mut r = req("3");
        let texts = || [a.as_bytes().to_vec(), b.as_bytes().to_vec()];
        assert!(explain(texts(), &r, &mut |_| {})
            .get("shared_outside_base")
            .is_none());
        r.bases = vec![prompt.into()];
        let out = explain(texts(), &r, &mut |_| {});
        let o = &out["shared_outside_base"];
        // "bridge." ends the prompt in A but not in the base text.
        assert_eq!(o["base_words_a"], 7, "{out}");
        let shared = |v: &Value| v.as_u64().unwrap();
        assert!(shared(&o["shared_words_a"]) > 0);
        assert_eq!(
            shared(&o["shared_words_a"]) + 7,
            shared(&out["shared_words"][0])
        );
        let first = &out["passages"][0];
        assert_eq!(
            (first["words"].as_u64(), first["from_base"].as_u64()),
            (Some(7), Some(7)),
            "{out}"
        );
    }

    /// Slices `text` by UTF-16 offsets, as JS's `String.prototype.slice` does.
    fn slice16(text: &str, start: u64, end: u64) -> String {
        let units: Vec<u16> = text.encode_utf16().collect();
        String::from_utf16(&units[start as usize..end as usize]).unwrap()
    }

    #[test]
    fn utf16_offsets_slice_the_same_text_as_bytes() {
        let a = "𝔘𝔫𝔦 İstanbul 😀 ünïcödé words\r\nmove 🎉 here and THERE ok";
        let b = "x ünïcödé WORDS move 🎉\there and there 𝔘𝔫𝔦 İSTANBUL 😀";
        let out = explain(
            [a.as_bytes().to_vec(), b.as_bytes().to_vec()],
            &req("2"),
            &mut |_| {},
        );
        let passages = out["passages"].as_array().unwrap();
        assert!(passages.len() >= 2, "{out}");
        for p in passages {
            for (side, text) in [("a", a), ("b", b)] {
                let s = &p[side];
                let n = |f: &str| s[f].as_u64().unwrap();
                let bytes = &text[n("start_byte") as usize..n("end_byte") as usize];
                assert_eq!(slice16(text, n("start_utf16"), n("end_utf16")), bytes);
            }
        }
    }

    #[test]
    fn the_cli_span_fields_are_kept() {
        let (a, b) = ("one two three four", "zero one two three");
        let e = neardup::explain(a, b, neardup::Params::new(2, 16).unwrap()).unwrap();
        let out = explain([a.into(), b.into()], &req("2"), &mut |_| {});
        let cli = serde_json::to_value(e.passages[0]).unwrap();
        for side in ["a", "b"] {
            for (field, value) in cli[side].as_object().unwrap() {
                assert_eq!(&out["passages"][0][side][field], value, "{side}.{field}");
            }
        }
        assert_eq!(out["passages"][0]["words"], cli["words"]);
        assert_eq!(out["passages"][0]["b_occurrences"], cli["b_occurrences"]);
    }

    #[test]
    fn keeps_the_longest_in_a_order_and_counts_all() {
        let a = "p q r s t . a b . c d e . f g h i";
        let b = "a b c d e f g h i p q r s t";
        let capped = ExplainRequest {
            max_passages: Some(2),
            ..req("2")
        };
        let out = explain([a.into(), b.into()], &capped, &mut |_| {});
        assert_eq!(out["passages_total"], 4);
        assert_eq!(out["longest"], 5);
        let words: Vec<u64> = out["passages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["words"].as_u64().unwrap())
            .collect();
        assert_eq!(words, [5, 4]);
        assert_eq!(out["coverage"][1], 1.0);
    }

    /// Script words find the passages of texts without spaces, in the
    /// original texts, and base texts are cut by the same rule.
    #[test]
    fn script_words_find_passages_without_spaces() {
        let prompt = "请写一篇关于河流的文章";
        let a = format!("{prompt}。河水每年春天都会泛滥，老桥依然屹立。");
        let b = format!("{prompt}！河水每年春天都会泛滥，他们说。");
        let texts = || [a.as_bytes().to_vec(), b.as_bytes().to_vec()];
        let space = explain(texts(), &req("3"), &mut |_| {});
        assert_eq!(
            (&space["word_rule"], &space["passages_total"]),
            (&json!("space"), &json!(0))
        );
        let mut r = ExplainRequest {
            words: Some("script".into()),
            ..req("3")
        };
        let out = explain(texts(), &r, &mut |_| {});
        assert_eq!(out["word_rule"], "script", "{out}");
        assert_eq!(out["warnings"], json!([]));
        let first = &out["passages"][0];
        let n = |f: &str| first["a"][f].as_u64().unwrap() as usize;
        assert_eq!(&a[n("start_byte")..n("end_byte")], prompt, "{out}");
        assert_eq!(first["words"], prompt.chars().count());
        r.bases = vec![prompt.into()];
        let out = explain(texts(), &r, &mut |_| {});
        assert_eq!(
            out["passages"][0]["from_base"],
            prompt.chars().count(),
            "{out}"
        );
        assert_eq!(
            out["shared_outside_base"]["base_words_a"],
            prompt.chars().count()
        );
        r.words = Some("spaces".into());
        let out = explain(texts(), &r, &mut |_| {});
        assert_eq!(
            (&out["field"], &out["error"]),
            (
                &json!("words"),
                &json!("words must be 'space' or 'script', got 'spaces'")
            )
        );
    }

    #[test]
    fn errors_name_their_field_and_stages_are_reported() {
        let out = explain([vec![], vec![]], &req("0"), &mut |_| {});
        assert_eq!(out["field"], "k");
        assert_eq!(out["error"], "shingle size k must be 1..=64, got 0");
        let out = explain([b"\xff".to_vec(), vec![]], &req("5"), &mut |_| {});
        assert_eq!(out["field"], "a");
        let mut seen = Vec::new();
        let out = explain([vec![], vec![]], &req("5"), &mut |s| seen.push(s.code()));
        assert_eq!(
            (out["passages_total"].as_u64(), &seen[..]),
            (Some(0), &[0, 4, 9][..])
        );
    }
}
