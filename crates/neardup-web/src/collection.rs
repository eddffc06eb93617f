//! Collection: many documents' bytes in; every pair at or above a
//! threshold with its receipt, the clusters, and the lines `neardup scan`
//! writes for them out.
//!
//! Every decision is the core's ([`neardup::scan::run`]) and every output
//! line is written by [`neardup::scan::lines`]; this module only numbers
//! the documents the way `neardup scan DIR` numbers a directory's files,
//! so that the page's outputs are the command line's bytes.

use neardup::scan::{lines, Plan};
use neardup::{Comparison, Containment, Doc, Fingerprint, Threshold};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::compare::{failure, params};
use crate::corpus::{Corpus, Failure, Files, Search};
use crate::{submissions, CollectionStage};

/// Up to how many documents the heat map's counts are computed, unless
/// the page asks otherwise: 200 documents are about 20,000 cells.
pub const DEFAULT_MAP_LIMIT: usize = 200;

/// What the page sends besides the documents' bytes, which come as one
/// buffer, document after document, in the order of `ids`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectionRequest {
    /// `K` as the user typed it.
    pub k: String,
    /// `N` as the user typed it.
    pub n: String,
    /// The word rule, `space` or `script` (SPEC §11, `--words`); absent
    /// is `space`.
    #[serde(default)]
    pub words: Option<String>,
    /// The threshold as the user typed it (`0.35`; up to 4 decimals).
    pub threshold: String,
    /// The containment threshold as the user typed it (`--containment`);
    /// blank for the near-duplicate search at `threshold`.
    #[serde(default)]
    pub containment: String,
    /// The user asked to check the documents against sources
    /// (`--against`): then `sources` must not be empty.
    #[serde(default)]
    pub against: bool,
    /// Each source's id (`--against`), as `ids`; their bytes come first
    /// in the buffer, before the documents'.
    #[serde(default)]
    pub sources: Vec<String>,
    /// Each source's length in bytes, in the same order.
    #[serde(default)]
    pub source_sizes: Vec<u64>,
    /// Replace invalid UTF-8 instead of skipping the file (`--lossy`).
    #[serde(default)]
    pub lossy: bool,
    /// Each document's id: its path as `neardup scan` prints it. With
    /// sources, these are the submissions.
    pub ids: Vec<String>,
    /// Each document's length in bytes, in the same order.
    pub sizes: Vec<u64>,
    /// Compute the heat map only up to this many documents (default
    /// [`DEFAULT_MAP_LIMIT`]).
    #[serde(default)]
    pub map_limit: Option<usize>,
}

/// Scans a collection as `neardup scan DIR --threshold T --pairs - --clusters -`
/// does, or with `containment`, as `neardup scan DIR --containment T`;
/// with `sources`, as `neardup scan DIR --against SOURCES`.
///
/// The documents are numbered as the command line numbers a directory's
/// files, by [`neardup_corpus::order`]: by the bytes of their paths (so
/// `e/a-b.txt` comes before `e/a/z.txt`), names below the folder starting
/// with `.` or `_` left out; the sources are numbered first, in their own
/// path order. A file that is not valid UTF-8 is skipped, as the command
/// line skips it, unless `lossy`.
///
/// Returns `{"ok": true, "k", "n", "words", "threshold", "containment", "bands",
/// "rows", "miss_probability", "refs", "documents": [{"id", "shingles",
/// "signed"}], "skipped": [{"id", "error"}], "warnings": [{"id",
/// "warning"}], "pairs": [PAIR], "pairs_jsonl", "groups", "clusters",
/// "dropped", "clusters_jsonl", "map", "submissions"}`. Documents `0..refs`
/// are the sources. Each `PAIR` is `{"a", "b", "matches", "similarity",
/// "jaccard", "containment", "containment_pct", "verdict", "receipt",
/// "receipt_sha256"}`
/// with `a < b` document numbers (indices into `documents`) and `receipt`
/// the canonical text and `containment_pct` the report's text of
/// `a_in_b` and `b_in_a` (`"80.0%"`); `pairs` is in the order of `pairs_jsonl`, the bytes
/// of `--pairs`. `clusters` (and `clusters_jsonl`, the bytes of
/// `--clusters`, and `dropped`, the documents `--drop-list` names) are at
/// 0.75, as `neardup scan` at its default threshold, or with containment
/// the join's; `groups` are the clusters of the reported pairs. `map` is
/// the slot-match count of every two documents `i < j`, row by row
/// (`null` where one has no signature), or `null` past the map limit.
/// `submissions`, with containment and sources, is the report's
/// submissions table in its order, one `{"doc", "words", "found", "share",
/// "parts": [{"source", "words", "share"}]}` per submission (`share` as
/// the report writes it, `"80.0%"`; `null`s for a submission no source is
/// paired with), else `null`. On bad input: `{"ok": false, "field", "error"}` where `field`
/// is `k`, `n`, `words`, `threshold`, `containment`, `sources`, `files` or
/// `request`. `words` is the word rule's name, `space` or `script`.
///
/// ```
/// use neardup_web::{collection, CollectionRequest};
/// let texts = ["a b c d e f g h", "a b c d e f g x", "p q r s t u v w"];
/// let req = CollectionRequest {
///     k: "2".into(), n: "64".into(), threshold: "0.5".into(),
///     ids: vec!["e/1.txt".into(), "e/2.txt".into(), "e/3.txt".into()],
///     sizes: texts.iter().map(|t| t.len() as u64).collect(),
///     ..Default::default()
/// };
/// let out = collection(texts.concat().as_bytes(), &req, &mut |_, _, _| {});
/// assert_eq!(out["pairs"].as_array().unwrap().len(), 1);
/// assert!(out["pairs_jsonl"].as_str().unwrap().starts_with(r#"{"a":"e/1.txt","b":"e/2.txt","matches":"#));
/// assert_eq!(out["map"].as_array().unwrap().len(), 3);
/// ```
pub fn collection(
    data: &[u8],
    req: &CollectionRequest,
    progress: &mut dyn FnMut(CollectionStage, u64, u64),
) -> Value {
    run(data, req, progress).unwrap_or_else(|(field, error)| failure(field, &error))
}

fn run(
    data: &[u8],
    req: &CollectionRequest,
    progress: &mut dyn FnMut(CollectionStage, u64, u64),
) -> Result<Value, Failure> {
    let params = params(&req.k, &req.n, req.words.as_deref())?;
    let search = Search::parse(params, &req.threshold, &req.containment)?;
    if req.against && req.sources.is_empty() {
        return Err(("sources", NO_SOURCES.into()));
    }
    let sources = Files {
        ids: &req.sources,
        sizes: &req.source_sizes,
    };
    let documents = Files {
        ids: &req.ids,
        sizes: &req.sizes,
    };
    let total = data.len() as u64;
    let (mut docs, mut warnings) = (Vec::new(), Vec::new());
    let corpus = Corpus::read(data, sources, documents, req.lossy, &mut |id, d, done| {
        progress(CollectionStage::Sign, done, total);
        warnings.extend(d.warnings.iter().map(|w| json!({"id": id, "warning": w})));
        let doc = Doc::new(&d.text, params);
        if let Some(caveat) = neardup::Caveat::of_normalized(doc.normalized(), params) {
            warnings.push(json!({"id": id, "warning": caveat.to_string()}));
        }
        docs.push(doc);
    })?;
    if req.against && corpus.refs == 0 {
        return Err((
            "sources",
            match corpus.skipped.first() {
                // Every source was skipped: a check against none of them
                // would look like a check without sources.
                Some(s) if corpus.source_files > 0 => format!(
                    "none of the {} sources could be read: {} ({})",
                    corpus.source_files,
                    s["id"].as_str().unwrap_or_default(),
                    s["error"].as_str().unwrap_or_default()
                ),
                // Every source was a hidden file, which `neardup scan` leaves out.
                _ => NO_SOURCES.into(),
            },
        ));
    }
    progress(CollectionStage::Sign, total, total);
    let refs = corpus.refs;
    let fps: Vec<&Fingerprint> = docs.iter().map(|d| d.fingerprint()).collect();
    let json_ids: Vec<String> = corpus.ids.iter().map(|id| lines::json_string(id)).collect();
    let fail = |e: neardup::Error| ("files", e.to_string());

    progress(CollectionStage::Scan, 0, 1);
    let outcome = search.run(&docs, refs).map_err(fail)?;

    let count = outcome.pairs.len() as u64;
    let mut pairs = Vec::with_capacity(outcome.pairs.len());
    let mut pairs_jsonl = String::new();
    for (i, p) in outcome.pairs.iter().enumerate() {
        progress(CollectionStage::Pairs, i as u64, count);
        let (a, b) = (p.a as usize, p.b as usize);
        // The receipt is the one `neardup scan` writes (`Receipt::new` of
        // the two fingerprints); the Jaccard needs the shingle sets too.
        let c = Comparison::of(&docs[a], &docs[b]).map_err(fail)?;
        let hash = c.receipt.sha256();
        // As the command line spells it: the scan's count of shared
        // shingles, over the two fingerprints' sizes.
        let containment = p
            .shared
            .map(|s| Containment::new(s, [fps[a].shingles, fps[b].shingles]));
        lines::pair(
            &mut pairs_jsonl,
            [&json_ids[a], &json_ids[b]],
            &c.receipt,
            &hash,
            containment.as_ref(),
        );
        pairs.push(json!({
            "a": p.a,
            "b": p.b,
            "matches": c.receipt.matches,
            "similarity": c.estimate().map(|e| e.similarity),
            "jaccard": c.jaccard(),
            "containment": c.containment,
            // The report's text of each direction.
            "containment_pct": [
                c.containment.a_in_b().map(submissions::pct),
                c.containment.b_in_a().map(submissions::pct),
            ],
            "verdict": c.receipt.verdict.as_str(),
            "receipt": c.receipt.canonical(),
            "receipt_sha256": hash.to_string(),
        }));
    }

    // The clusters `neardup scan --clusters` writes: with containment,
    // the join's (the largest of each first); else a second scan at the
    // default threshold.
    progress(CollectionStage::Clusters, 0, 1);
    let near = match search {
        Search::Contained(_) => None,
        Search::Near(_) => Some(
            Search::Near(Plan::new(params, Threshold::NEAR_DUPLICATE))
                .run(&docs, refs)
                .map_err(fail)?,
        ),
    };
    let clustered = near.as_ref().unwrap_or(&outcome);
    let mut clusters_jsonl = String::new();
    for (i, group) in clustered.clusters.iter().enumerate() {
        let members: Vec<&str> = group
            .iter()
            .map(|&d| json_ids[d as usize].as_str())
            .collect();
        lines::cluster(&mut clusters_jsonl, i, &members);
    }

    let limit = req.map_limit.unwrap_or(DEFAULT_MAP_LIMIT);
    let map = (fps.len() <= limit).then(|| heat_map(&fps, progress));

    let submissions = match search {
        Search::Contained(_) if refs > 0 => {
            progress(CollectionStage::Submissions, 0, 1);
            let rows = submissions::rows(&corpus.texts, refs, &outcome.pairs, params);
            Some(rows.map_err(fail)?)
        }
        _ => None,
    };

    // The plan the report names: the chosen one, or with containment the
    // default one, as the command line's.
    let plan = match search {
        Search::Near(plan) => plan,
        Search::Contained(_) => Plan::new(params, Threshold::NEAR_DUPLICATE),
    };
    let banding = plan.banding();
    Ok(json!({
        "ok": true,
        "k": params.k(),
        "n": params.n(),
        "words": params.words().name(),
        "threshold": plan.threshold().to_string(),
        "containment": search.containment().map(|t| t.to_string()),
        "bands": banding.bands(),
        "rows": banding.rows(),
        "miss_probability": plan.miss_probability(),
        "refs": refs,
        "documents": corpus.ids.iter().zip(&fps).map(|(id, f)| json!({
            "id": id,
            "shingles": f.shingles,
            "signed": f.signature.is_some(),
        })).collect::<Vec<_>>(),
        "skipped": corpus.skipped,
        "warnings": warnings,
        "pairs": pairs,
        "pairs_jsonl": pairs_jsonl,
        "groups": outcome.clusters,
        "clusters": clustered.clusters,
        "dropped": clustered.dropped,
        "clusters_jsonl": clusters_jsonl,
        "map": map,
        "submissions": submissions,
    }))
}

/// The error of a check against sources with none chosen.
const NO_SOURCES: &str =
    "choose the sources to check the submissions against, or untick \u{201c}Check against sources\u{201d}";

/// The slot-match count of every two documents `i < j`, row by row: what
/// the heat map colours. For people only: no pair is reported from it.
fn heat_map(
    fps: &[&Fingerprint],
    progress: &mut dyn FnMut(CollectionStage, u64, u64),
) -> Vec<Option<u32>> {
    let len = fps.len();
    let mut out = Vec::with_capacity(len * len.saturating_sub(1) / 2);
    for (i, a) in fps.iter().enumerate() {
        progress(CollectionStage::Map, i as u64, len as u64);
        for b in &fps[i + 1..] {
            out.push(match (&a.signature, &b.signature) {
                (Some(x), Some(y)) => Some(x.matches(y)),
                _ => None,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup::{Params, Receipt};

    const BASE: &str = "the committee met on a grey morning to weigh the proposal for a new bridge across the river";

    fn request(ids: &[&str], texts: &[&[u8]], threshold: &str) -> (Vec<u8>, CollectionRequest) {
        let req = CollectionRequest {
            k: "3".into(),
            n: "64".into(),
            threshold: threshold.into(),
            ids: ids.iter().map(|s| s.to_string()).collect(),
            sizes: texts.iter().map(|t| t.len() as u64).collect(),
            ..Default::default()
        };
        (texts.concat(), req)
    }

    fn scan(ids: &[&str], texts: &[&[u8]], threshold: &str) -> Value {
        let (data, req) = request(ids, texts, threshold);
        collection(&data, &req, &mut |_, _, _| {})
    }

    #[test]
    fn documents_are_numbered_in_the_command_lines_path_order() {
        let t = BASE.as_bytes();
        // As `neardup scan e` prints these three identical files: by the
        // bytes of the path, so `a-b.txt` ('-' is 0x2d) sorts before the
        // directory `a/` ('/' is 0x2f); the hidden file is not read.
        let out = scan(
            &["e/a.txt", "e/a-b.txt", "e/.x.txt", "e/a/z.txt"],
            &[t, t, t, t],
            "0.75",
        );
        assert_eq!(
            out["clusters_jsonl"],
            "{\"cluster\":0,\"keep\":\"e/a-b.txt\",\"members\":[\"e/a-b.txt\",\"e/a.txt\",\"e/a/z.txt\"],\"size\":3}\n"
        );
        let ids: Vec<&str> = out["documents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["e/a-b.txt", "e/a.txt", "e/a/z.txt"]);
    }

    #[test]
    fn pairs_carry_the_scan_receipt_and_the_exact_jaccard() {
        let b = BASE.replace("grey", "gray");
        let c = BASE.replace("new bridge", "small tunnel under");
        let texts: [&[u8]; 4] = [BASE.as_bytes(), b.as_bytes(), c.as_bytes(), b"short"];
        let out = scan(&["d/1", "d/2", "d/3", "d/4"], &texts, "0.35");
        let params = Params::new(3, 64).unwrap();
        let fps: Vec<Fingerprint> = texts
            .iter()
            .map(|t| Fingerprint::of(std::str::from_utf8(t).unwrap(), params))
            .collect();
        let core = neardup::scan::run(
            &fps,
            0,
            &Plan::new(params, Threshold::parse("0.35").unwrap()),
        )
        .unwrap();
        let pairs = out["pairs"].as_array().unwrap();
        assert_eq!(pairs.len(), core.pairs.len());
        assert!(pairs.len() >= 2, "{out}");
        let lines: Vec<&str> = out["pairs_jsonl"].as_str().unwrap().lines().collect();
        for ((p, want), line) in pairs.iter().zip(&core.pairs).zip(&lines) {
            let (a, b) = (want.a as usize, want.b as usize);
            assert_eq!(
                (p["a"].as_u64(), p["b"].as_u64()),
                (Some(a as u64), Some(b as u64))
            );
            // The command line's receipt: `Receipt::new` of the two fingerprints.
            let r = Receipt::new(&fps[a], &fps[b]).unwrap();
            assert_eq!(p["receipt"], r.canonical());
            assert_eq!(p["receipt_sha256"], r.sha256().to_string());
            let text = |i: usize| std::str::from_utf8(texts[i]).unwrap();
            assert_eq!(
                p["jaccard"].as_f64(),
                neardup::compare(text(a), text(b), params).jaccard()
            );
            let line: Value = serde_json::from_str(line).unwrap();
            assert_eq!(line["receipt_sha256"], p["receipt_sha256"]);
            assert_eq!(line["a"], format!("d/{}", a + 1));
        }
        // 0.75 clusters come from a second scan, not from the 0.35 pairs.
        assert_eq!(out["clusters"], json!([[0, 1]]));
        assert_ne!(out["groups"], out["clusters"]);
        let map = out["map"].as_array().unwrap();
        assert_eq!(map.len(), 6);
        assert_eq!(
            map[0],
            fps[0]
                .signature
                .as_ref()
                .unwrap()
                .matches(fps[1].signature.as_ref().unwrap())
        );
        assert_eq!(map[2], Value::Null, "document 4 has no signature");
    }

    /// A Chinese text and its lightly edited copy: one word each when cut
    /// on spaces, so no pair, with a caveat that names script words; a
    /// near-duplicate pair with script words, the core's receipt.
    #[test]
    fn script_words_find_the_pair_that_spaces_miss() {
        let zh = "河水每年春天都会泛滥，老桥依然屹立在那里，村民们在桥上来来往往，孩子们在河边玩耍，老人们坐在树下聊天。"
            .repeat(3);
        let edited = zh.replacen("老桥", "旧桥", 1);
        let stranger = BASE.to_uppercase();
        let texts: [&[u8]; 3] = [zh.as_bytes(), edited.as_bytes(), stranger.as_bytes()];
        let ids = ["zh/a.txt", "zh/b.txt", "zh/c.txt"];
        let (data, mut req) = request(&ids, &texts, "0.5");
        let out = collection(&data, &req, &mut |_, _, _| {});
        assert_eq!(
            (&out["words"], &out["pairs"]),
            (&json!("space"), &json!([]))
        );
        let warning = out["warnings"][0]["warning"].as_str().unwrap();
        assert!(
            warning.ends_with("script words can (--words script)"),
            "{warning}"
        );
        req.words = Some("script".into());
        let out = collection(&data, &req, &mut |_, _, _| {});
        assert_eq!(out["words"], "script");
        assert_eq!(out["warnings"], json!([]));
        let pairs = out["pairs"].as_array().unwrap();
        assert_eq!(pairs.len(), 1, "{out}");
        assert_eq!(pairs[0]["verdict"], "NEAR-DUPLICATE");
        let params = Params::new(3, 64)
            .unwrap()
            .with_words(neardup::WordRule::Script);
        let core = neardup::compare(&zh, &edited, params).receipt;
        assert_eq!(pairs[0]["receipt"], core.canonical());
        assert_eq!(out["clusters"], json!([[0, 1]]));
        req.words = Some("han".into());
        let out = collection(&data, &req, &mut |_, _, _| {});
        assert_eq!(out["field"], "words", "{out}");
    }

    #[test]
    fn invalid_utf8_is_skipped_unless_lossy() {
        let bad = b"caf\xe9 au lait and a warm croissant on the side";
        let texts: [&[u8]; 2] = [BASE.as_bytes(), bad];
        let out = scan(&["x/a", "x/b"], &texts, "0.5");
        assert_eq!(out["documents"].as_array().unwrap().len(), 1);
        assert_eq!(
            out["skipped"],
            json!([{"id": "x/b", "error": "invalid UTF-8 at byte 3"}])
        );
        let (data, mut req) = request(&["x/a", "x/b"], &texts, "0.5");
        req.lossy = true;
        let out = collection(&data, &req, &mut |_, _, _| {});
        assert_eq!(out["documents"].as_array().unwrap().len(), 2);
        assert_eq!(out["skipped"], json!([]));
    }

    #[test]
    fn bad_input_names_its_field() {
        let t = BASE.as_bytes();
        let out = scan(&["a", "a"], &[t, t], "0.5");
        assert_eq!(out["field"], "files");
        assert_eq!(
            out["error"],
            "two files have the id 'a'; choose them from one folder"
        );
        let out = scan(&["a"], &[t], "0.00001");
        assert_eq!(out["field"], "threshold");
        assert!(
            out["error"].as_str().unwrap().contains("'0.00001'"),
            "{out}"
        );
        assert_eq!(scan(&["a"], &[t], "1.5")["field"], "threshold");
        let (data, mut req) = request(&["a"], &[t], "0.5");
        req.sizes[0] += 1;
        assert_eq!(
            collection(&data, &req, &mut |_, _, _| {})["field"],
            "request"
        );
        req.k = "0".into();
        assert_eq!(collection(&data, &req, &mut |_, _, _| {})["field"], "k");
        assert_eq!(scan(&[], &[], "0.5")["pairs_jsonl"], "");
    }

    #[test]
    fn the_map_stops_at_its_limit_and_progress_moves_forward() {
        let t = BASE.as_bytes();
        let (data, mut req) = request(&["a", "b", "c"], &[t, t, t], "0.5");
        req.map_limit = Some(2);
        let mut seen = Vec::new();
        let out = collection(&data, &req, &mut |s, done, total| {
            seen.push((s.code(), done, total))
        });
        assert_eq!(out["map"], Value::Null);
        assert_eq!(out["pairs"].as_array().unwrap().len(), 2);
        let len = data.len() as u64;
        let per = t.len() as u64;
        assert_eq!(
            seen,
            [
                (0, 0, len),
                (0, per, len),
                (0, 2 * per, len),
                (0, len, len),
                (1, 0, 1),
                (2, 0, 2),
                (2, 1, 2),
                (3, 0, 1)
            ]
        );
    }

    /// Pseudo-prose of `n` words.
    fn words(seed: u64, n: usize) -> String {
        let mut x = seed;
        (0..n)
            .map(|_| {
                // splitmix64: seeds 1 and 2 give unrelated texts.
                x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = x;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                format!("w{}", (z ^ (z >> 31)) % 3000)
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Ids and texts.
    type Named = Vec<(String, String)>;

    /// Two sources; essays that copy part of one or both; a stranger.
    fn class() -> (Named, Named) {
        let sources = vec![
            ("srcs/b.txt".to_owned(), words(1, 400)),
            ("srcs/a.txt".to_owned(), words(2, 300)),
        ];
        let part = |i: usize, from: usize, to: usize| {
            sources[i].1.split(' ').collect::<Vec<_>>()[from..to].join(" ")
        };
        let essays = vec![
            (
                "subs/one.txt".to_owned(),
                format!("{} {}", part(0, 10, 90), words(3, 40)),
            ),
            (
                "subs/two.txt".to_owned(),
                format!("{} {} {}", part(0, 200, 260), words(4, 30), part(1, 0, 60)),
            ),
            (
                "subs/three.txt".to_owned(),
                format!("{} {}", words(5, 60), part(1, 100, 160)),
            ),
            ("subs/stranger.txt".to_owned(), words(6, 200)),
        ];
        (sources, essays)
    }

    fn against(containment: &str) -> (Vec<u8>, CollectionRequest) {
        let (sources, essays) = class();
        let mut data = Vec::new();
        for (_, t) in sources.iter().chain(&essays) {
            data.extend_from_slice(t.as_bytes());
        }
        let req = CollectionRequest {
            k: "5".into(),
            n: "128".into(),
            threshold: "0.35".into(),
            containment: containment.into(),
            against: true,
            sources: sources.iter().map(|s| s.0.clone()).collect(),
            source_sizes: sources.iter().map(|s| s.1.len() as u64).collect(),
            ids: essays.iter().map(|s| s.0.clone()).collect(),
            sizes: essays.iter().map(|s| s.1.len() as u64).collect(),
            ..Default::default()
        };
        (data, req)
    }

    #[test]
    fn containment_against_sources_numbers_the_sources_first_and_finds_every_pair() {
        let (data, req) = against("0.3");
        let out = collection(&data, &req, &mut |_, _, _| {});
        assert_eq!(out["ok"], true, "{out}");
        assert_eq!(out["refs"], 2);
        assert_eq!(out["containment"], "0.3");
        let ids: Vec<&str> = out["documents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["id"].as_str().unwrap())
            .collect();
        // Sources first, each part in path order, as `scan subs --against srcs`.
        assert_eq!(
            ids,
            [
                "srcs/a.txt",
                "srcs/b.txt",
                "subs/one.txt",
                "subs/stranger.txt",
                "subs/three.txt",
                "subs/two.txt"
            ]
        );
        let (sources, essays) = class();
        let text = |id: &str| {
            let all = sources.iter().chain(&essays);
            all.clone().find(|d| d.0 == id).unwrap().1.clone()
        };
        // Every pair one by one, with the core: those that reach 0.3, none
        // of two sources.
        let t = Threshold::parse("0.3").unwrap();
        let mut want = String::new();
        for a in 0..ids.len() {
            for b in a + 1..ids.len() {
                let c =
                    neardup::compare(&text(ids[a]), &text(ids[b]), Params::new(5, 128).unwrap());
                if b >= 2 && c.containment.reaches(t) {
                    let hash = c.receipt.sha256();
                    let quoted = [lines::json_string(ids[a]), lines::json_string(ids[b])];
                    lines::pair(
                        &mut want,
                        [&quoted[0], &quoted[1]],
                        &c.receipt,
                        &hash,
                        Some(&c.containment),
                    );
                }
            }
        }
        assert_eq!(out["pairs_jsonl"], want);
        assert_eq!(want.lines().count(), 4, "{want}");
        assert!(want.contains(r#""containment":{"a_in_b":"#));
        // The submissions, most found first; the stranger last, with no source.
        let subs = out["submissions"].as_array().unwrap();
        let order: Vec<&str> = subs
            .iter()
            .map(|s| ids[s["doc"].as_u64().unwrap() as usize])
            .collect();
        assert_eq!(
            order,
            [
                "subs/two.txt",
                "subs/one.txt",
                "subs/three.txt",
                "subs/stranger.txt"
            ]
        );
        assert_eq!(subs[3]["share"], Value::Null);
        let two = &subs[0]["parts"];
        // 60 words from each source: a tie, in source order.
        assert_eq!(
            (two[0]["source"].as_u64(), two[1]["source"].as_u64()),
            (Some(0), Some(1)),
            "{two}"
        );
        assert_eq!(
            (&two[0]["share"], &subs[0]["share"]),
            (&json!("40.0%"), &json!("80.0%"))
        );
        // With containment, the clusters are the join's: no second scan.
        assert_eq!(out["clusters"], out["groups"]);
        assert!(!out["dropped"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d.as_u64() < Some(2)));
    }

    #[test]
    fn the_submissions_table_is_the_reports() {
        let (data, req) = against("0.3");
        let out = collection(&data, &req, &mut |_, _, _| {});
        let report = crate::ReportRequest {
            k: req.k.clone(),
            n: req.n.clone(),
            threshold: Some(req.threshold.clone()),
            containment: req.containment.clone(),
            sources: req.sources.clone(),
            source_sizes: req.source_sizes.clone(),
            ids: req.ids.clone(),
            sizes: req.sizes.clone(),
            ..Default::default()
        };
        let html = crate::report(&data, &report).unwrap();
        let ids = &out["documents"];
        let name = |d: &Value| {
            ids[d.as_u64().unwrap() as usize]["id"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        let mut at = html.find("<h2 id=submissions>").unwrap();
        for (i, s) in out["submissions"].as_array().unwrap().iter().enumerate() {
            let row = match s["share"].as_str() {
                None => format!(
                    "<tr><td class=r>{}<td>{}<td class=r>\u{2014}",
                    i + 1,
                    name(&s["doc"])
                ),
                Some(share) => {
                    let parts: Vec<String> = s["parts"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|p| format!("{} {}", name(&p["source"]), p["share"].as_str().unwrap()))
                        .collect();
                    format!(
                        "<tr><td class=r>{}<td>{}<td class=r>{}<td class=r><b>{share}</b><td>{}\n",
                        i + 1,
                        name(&s["doc"]),
                        s["words"],
                        parts.join("<br>")
                    )
                }
            };
            at += html[at..]
                .find(&row)
                .unwrap_or_else(|| panic!("{row} in {html}"));
        }
    }

    #[test]
    fn containment_and_sources_refuse_bad_input() {
        let (data, mut req) = against("0.3");
        for bad in ["0", "1.5", "0.12345", "-0.5", "half"] {
            req.containment = bad.into();
            let out = collection(&data, &req, &mut |_, _, _| {});
            assert_eq!(
                (&out["ok"], &out["field"]),
                (&json!(false), &json!("containment")),
                "{bad}"
            );
            assert!(out["error"].as_str().unwrap().contains(bad), "{out}");
        }
        // A blank containment is the near-duplicate scan, with the sources
        // as references; the threshold is not read with containment.
        req.containment = " ".into();
        let out = collection(&data, &req, &mut |_, _, _| {});
        assert_eq!(
            (out["ok"].as_bool(), &out["containment"]),
            (Some(true), &Value::Null)
        );
        assert_eq!(out["submissions"], Value::Null);
        req.containment = "1".into();
        req.threshold = "nonsense".into();
        assert_eq!(collection(&data, &req, &mut |_, _, _| {})["ok"], true);
        // Asked to check against sources, but none chosen.
        let (data, mut req) = against("0.3");
        let sources: usize = req.source_sizes.iter().sum::<u64>() as usize;
        req.sources.clear();
        req.source_sizes.clear();
        let out = collection(&data[sources..], &req, &mut |_, _, _| {});
        assert_eq!(out["field"], "sources", "{out}");
        assert!(out["error"]
            .as_str()
            .unwrap()
            .starts_with("choose the sources"));
        // Without the check, containment among the submissions alone.
        req.against = false;
        let out = collection(&data[sources..], &req, &mut |_, _, _| {});
        assert_eq!(
            (out["ok"].as_bool(), out["refs"].as_u64()),
            (Some(true), Some(0))
        );
        // One file as a source and a submission.
        let (data, mut req) = against("0.3");
        req.ids[0] = req.sources[0].clone();
        let out = collection(&data, &req, &mut |_, _, _| {});
        assert_eq!(out["field"], "sources", "{out}");
        // Sources that all fail to read.
        let (mut data, mut req) = against("0.3");
        data[3] = 0xff;
        data[req.source_sizes[0] as usize + 3] = 0xff;
        let out = collection(&data, &req, &mut |_, _, _| {});
        assert_eq!(out["field"], "sources", "{out}");
        assert!(
            out["error"]
                .as_str()
                .unwrap()
                .starts_with("none of the 2 sources could be read"),
            "{out}"
        );
        req.lossy = true;
        assert_eq!(collection(&data, &req, &mut |_, _, _| {})["ok"], true);
    }
}
