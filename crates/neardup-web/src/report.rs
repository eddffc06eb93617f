//! Report: documents' bytes in, the core's HTML report
//! ([`neardup::report::render`]) out, byte for byte what `neardup compare
//! A B --report` or `neardup scan DIR --report` writes for the same files
//! and settings.

use neardup::report::{self, Document, Input, Named, Settings};
use neardup::scan::{Pair, Plan};
use neardup::{Doc, Fingerprint, Params, Threshold};
use serde::Deserialize;
use serde_json::{json, Value};

use neardup_extract::Format;

use crate::compare::{failure, params};
use crate::corpus::{Corpus, Failure, Files, Search};

/// The version a report names: the workspace's, which the CLI shares.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What the page sends besides the bytes, which come as one buffer: the
/// sources in the order of `sources`, the documents in the order of `ids`,
/// then the base texts in the order of `bases`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportRequest {
    /// `K` as the user typed it.
    pub k: String,
    /// `N` as the user typed it.
    pub n: String,
    /// The word rule, `space` or `script` (SPEC §11, `--words`); absent
    /// is `space`.
    #[serde(default)]
    pub words: Option<String>,
    /// The Collection tab's threshold; `None` for the Compare tab (two
    /// documents, A then B).
    #[serde(default)]
    pub threshold: Option<String>,
    /// The Collection tab's containment threshold (`--containment`);
    /// blank for the near-duplicate search at `threshold`.
    #[serde(default)]
    pub containment: String,
    /// The Collection tab's sources (`--against`), named as `ids`.
    #[serde(default)]
    pub sources: Vec<String>,
    /// The sources' lengths in bytes.
    #[serde(default)]
    pub source_sizes: Vec<u64>,
    /// Replace invalid UTF-8 instead of refusing it (Compare) or skipping
    /// the file (Collection).
    #[serde(default)]
    pub lossy: bool,
    /// Each document's name: for a collection its path as `neardup scan`
    /// prints it; for a comparison the name the CLI would show (the file
    /// name, or what the page calls typed text).
    pub ids: Vec<String>,
    /// Each document's length in bytes.
    pub sizes: Vec<u64>,
    /// For a comparison, each document's file name (`None` for typed
    /// text): it tells HTML from plain text, as a path does for the CLI.
    #[serde(default)]
    pub files: Vec<Option<String>>,
    /// The base texts' names (their file names).
    #[serde(default)]
    pub bases: Vec<String>,
    /// The base texts' lengths in bytes.
    #[serde(default)]
    pub base_sizes: Vec<u64>,
}

/// The report as the page's answer: `{"ok": true, "html"}`, or `{"ok":
/// false, "field", "error"}` where `field` is `k`, `n`, `words`, `threshold`, `a`,
/// `b`, `base`, `files` or `request`.
pub fn report_json(data: &[u8], req: &ReportRequest) -> Value {
    match report(data, req) {
        Ok(html) => json!({"ok": true, "html": html}),
        Err((field, error)) => failure(field, &error),
    }
}

/// Renders the report: a collection's when `req.threshold` is set (the
/// sources and documents read and numbered as [`crate::collection`] reads
/// them, the pairs and clusters of `neardup scan [--against SOURCES]` at
/// that threshold or, given `containment`, with `--containment`), else the
/// comparison of document A with document B.
///
/// ```
/// use neardup_web::{report, ReportRequest};
/// let (a, b) = ("one two three four five six seven", "one two three four five six eight");
/// let req = ReportRequest {
///     k: "3".into(), n: "64".into(),
///     ids: vec!["a.txt".into(), "b.txt".into()],
///     sizes: vec![a.len() as u64, b.len() as u64],
///     ..Default::default()
/// };
/// let html = report(format!("{a}{b}").as_bytes(), &req).unwrap();
/// assert!(html.contains("<h2>Pair 1: a.txt and b.txt</h2>"));
/// ```
pub fn report(data: &[u8], req: &ReportRequest) -> Result<String, Failure> {
    let params = params(&req.k, &req.n, req.words.as_deref())?;
    let (docs_data, bases_data) = split_bases(data, req)?;
    let mut bases = Vec::new();
    let mut at = 0;
    for (name, &size) in req.bases.iter().zip(&req.base_sizes) {
        let bytes = bases_data[at..at + size as usize].to_vec();
        at += size as usize;
        let d = crate::decode(bytes, name, Some(name), req.lossy).map_err(|e| ("base", e))?;
        bases.push((name.as_str(), d.text));
    }
    let named: Vec<Named<'_>> = bases
        .iter()
        .map(|(name, text)| Named { name, text })
        .collect();
    match &req.threshold {
        None => compare_report(docs_data, req, params, &named),
        Some(t) => {
            let search = Search::parse(params, t, &req.containment)?;
            collection_report(docs_data, req, params, search, &named)
        }
    }
}

/// The documents' bytes and the base texts' bytes.
fn split_bases<'d>(data: &'d [u8], req: &ReportRequest) -> Result<(&'d [u8], &'d [u8]), Failure> {
    let bad = |what: String| ("request", format!("bad request from the page: {what}"));
    if req.bases.len() != req.base_sizes.len() {
        return Err(bad(format!(
            "{} base texts but {} sizes",
            req.bases.len(),
            req.base_sizes.len()
        )));
    }
    let bases = req
        .base_sizes
        .iter()
        .try_fold(0u64, |sum, &s| sum.checked_add(s))
        .unwrap_or(u64::MAX);
    let docs = (data.len() as u64)
        .checked_sub(bases)
        .ok_or_else(|| bad(format!("{bases} bytes of base texts, {} sent", data.len())))?;
    Ok(data.split_at(docs as usize))
}

fn compare_report(
    data: &[u8],
    req: &ReportRequest,
    params: neardup::Params,
    bases: &[Named<'_>],
) -> Result<String, Failure> {
    let ([na, nb], [sa, sb]) = match (&req.ids[..], &req.sizes[..]) {
        ([a, b], [sa, sb]) => ([a, b], [*sa as usize, *sb as usize]),
        _ => {
            return Err((
                "request",
                "bad request from the page: a comparison needs two documents".into(),
            ))
        }
    };
    if sa + sb != data.len() {
        return Err((
            "request",
            format!(
                "bad request from the page: {} bytes sent, {} used",
                data.len(),
                sa + sb
            ),
        ));
    }
    let file = |i: usize| req.files.get(i).cloned().flatten();
    let a = crate::decode(data[..sa].to_vec(), na, file(0).as_deref(), req.lossy)
        .map_err(|e| ("a", e))?;
    let b = crate::decode(data[sa..].to_vec(), nb, file(1).as_deref(), req.lossy)
        .map_err(|e| ("b", e))?;
    let fps = [
        Fingerprint::of(&a.text, params),
        Fingerprint::of(&b.text, params),
    ];
    let matches = neardup::Receipt::new(&fps[0], &fps[1])
        .map_err(|e| ("a", e.to_string()))?
        .matches;
    let docs = [
        Document {
            name: na,
            fingerprint: &fps[0],
            text: Some(&a.text),
        },
        Document {
            name: nb,
            fingerprint: &fps[1],
            text: Some(&b.text),
        },
    ];
    let mut settings = Settings::compare(params, VERSION);
    settings.extractor = extractor([a.format, b.format]);
    let input = Input {
        settings,
        documents: &docs,
        pairs: &[Pair::new(0, 1, matches)],
        clusters: &[],
        refs: 0,
        bases,
    };
    report::render(&input).map_err(|e| ("a", e.to_string()))
}

fn collection_report(
    data: &[u8],
    req: &ReportRequest,
    params: Params,
    search: Search,
    bases: &[Named<'_>],
) -> Result<String, Failure> {
    let sources = Files {
        ids: &req.sources,
        sizes: &req.source_sizes,
    };
    let documents = Files {
        ids: &req.ids,
        sizes: &req.sizes,
    };
    let corpus = Corpus::read(data, sources, documents, req.lossy, &mut |_, _, _| {})?;
    let docs: Vec<Doc> = corpus.texts.iter().map(|t| Doc::new(t, params)).collect();
    let outcome = search
        .run(&docs, corpus.refs)
        .map_err(|e| ("files", e.to_string()))?;
    let mut in_pairs = vec![false; docs.len()];
    for p in &outcome.pairs {
        in_pairs[p.a as usize] = true;
        in_pairs[p.b as usize] = true;
    }
    let documents: Vec<Document<'_>> = (0..docs.len())
        .map(|d| Document {
            name: corpus.ids[d],
            fingerprint: docs[d].fingerprint(),
            // As the CLI, which reads again only the documents in pairs.
            text: in_pairs[d].then_some(corpus.texts[d].as_str()),
        })
        .collect();
    // With containment the command line's plan is its default one, which
    // the report names too.
    let plan = match search {
        Search::Near(plan) => plan,
        Search::Contained(_) => Plan::new(params, Threshold::NEAR_DUPLICATE),
    };
    let formats = (0..docs.len())
        .filter(|&d| in_pairs[d])
        .map(|d| corpus.formats[d]);
    let settings = Settings {
        params,
        threshold: Some(plan.threshold()),
        banding: Some(plan.banding()),
        version: VERSION,
        extractor: extractor(formats),
        containment: search.containment(),
    };
    let input = Input {
        settings,
        documents: &documents,
        pairs: &outcome.pairs,
        clusters: &outcome.clusters,
        refs: corpus.refs,
        bases,
    };
    report::render(&input).map_err(|e| ("files", e.to_string()))
}

/// The extractor's version when a document in the report was read from a
/// format other than plain text: the CLI's rule.
fn extractor(formats: impl IntoIterator<Item = Format>) -> Option<&'static str> {
    formats
        .into_iter()
        .any(|f| f != Format::Text)
        .then_some(neardup_extract::VERSION)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "the committee met on a grey morning to weigh the proposal for a new bridge";

    #[test]
    fn a_collection_report_is_deterministic_and_bases_come_last() {
        let b = T.replace("grey", "gray");
        let base = "weigh the proposal for a new bridge";
        let req = ReportRequest {
            k: "3".into(),
            n: "64".into(),
            threshold: Some("0.5".into()),
            ids: vec!["d/1.txt".into(), "d/2.txt".into(), "d/3.txt".into()],
            sizes: vec![T.len() as u64, b.len() as u64, 5],
            bases: vec!["prompt.txt".into()],
            base_sizes: vec![base.len() as u64],
            ..Default::default()
        };
        let data = format!("{T}{b}short{base}");
        let html = report(data.as_bytes(), &req).unwrap();
        assert_eq!(html, report(data.as_bytes(), &req).unwrap());
        assert!(html.contains("prompt.txt (7 words)"));
        assert!(html.contains("<mark class=b>"));
        assert!(html.contains("<h2>Pair 1: d/1.txt and d/2.txt</h2>"));
        let bad = report_json(&data.as_bytes()[1..], &req);
        assert_eq!(bad["ok"], false);
    }

    #[test]
    fn the_word_rule_reaches_the_receipts_and_a_bad_one_names_its_field() {
        let (a, b) = ("你好，世界。这是一个句子", "你好世界。这是一个句子！");
        let mut req = ReportRequest {
            k: "2".into(),
            n: "16".into(),
            words: Some("script".into()),
            ids: vec!["a.txt".into(), "b.txt".into()],
            sizes: vec![a.len() as u64, b.len() as u64],
            ..Default::default()
        };
        let data = format!("{a}{b}");
        let html = report(data.as_bytes(), &req).unwrap();
        let params = Params::new(2, 16)
            .unwrap()
            .with_words(neardup::WordRule::Script);
        let receipt = neardup::compare(a, b, params).receipt;
        assert!(html.contains(&receipt.sha256().to_string()), "{html}");
        req.words = Some("scripts".into());
        let out = report_json(data.as_bytes(), &req);
        assert_eq!(out["field"], "words", "{out}");
    }
}
