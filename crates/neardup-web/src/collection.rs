//! Collection: many documents' bytes in; every pair at or above a
//! threshold with its receipt, the clusters, and the lines `neardup scan`
//! writes for them out.
//!
//! Every decision is the core's ([`neardup::scan::run`]) and every output
//! line is written by [`neardup::scan::lines`]; this module only numbers
//! the documents the way `neardup scan DIR` numbers a directory's files,
//! so that the page's outputs are the command line's bytes.

use neardup_corpus::order;

use neardup::scan::{self, lines, Plan};
use neardup::{Comparison, Doc, Fingerprint, Threshold};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::compare::{failure, params};
use crate::CollectionStage;

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
    /// The threshold as the user typed it (`0.35`; up to 4 decimals).
    pub threshold: String,
    /// Replace invalid UTF-8 instead of skipping the file (`--lossy`).
    #[serde(default)]
    pub lossy: bool,
    /// Each document's id: its path as `neardup scan` prints it.
    pub ids: Vec<String>,
    /// Each document's length in bytes, in the same order.
    pub sizes: Vec<u64>,
    /// Compute the heat map only up to this many documents (default
    /// [`DEFAULT_MAP_LIMIT`]).
    #[serde(default)]
    pub map_limit: Option<usize>,
}

/// Scans a collection as `neardup scan DIR --threshold T --pairs - --clusters -`
/// does.
///
/// The documents are numbered as the command line numbers a directory's
/// files, by [`neardup_corpus::order`]: by the bytes of their paths (so
/// `e/a-b.txt` comes before `e/a/z.txt`), names below the folder starting
/// with `.` or `_` left out. A file that is not valid UTF-8 is skipped, as
/// the command line skips it, unless `lossy`.
///
/// Returns `{"ok": true, "k", "n", "threshold", "bands", "rows",
/// "miss_probability", "documents": [{"id", "shingles", "signed"}],
/// "skipped": [{"id", "error"}], "warnings": [{"id", "warning"}], "pairs": [PAIR], "pairs_jsonl",
/// "groups", "clusters", "clusters_jsonl", "map"}`. Each `PAIR` is
/// `{"a", "b", "matches", "similarity", "jaccard", "verdict", "receipt",
/// "receipt_sha256"}` with `a < b` document numbers (indices into
/// `documents`) and `receipt` the canonical text; `pairs` is in the
/// order of `pairs_jsonl`, the bytes of `--pairs`. `clusters` (and
/// `clusters_jsonl`, the bytes of `--clusters`) are at 0.75, as `neardup
/// scan` at its default threshold; `groups` are the clusters at the chosen
/// threshold. `map` is the slot-match count of every two documents `i <
/// j`, row by row (`null` where one has no signature), or `null` past the
/// map limit. On bad input: `{"ok": false, "field", "error"}` where
/// `field` is `k`, `n`, `threshold`, `files` or `request`.
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

pub(crate) type Failure = (&'static str, String);

fn run(
    data: &[u8],
    req: &CollectionRequest,
    progress: &mut dyn FnMut(CollectionStage, u64, u64),
) -> Result<Value, Failure> {
    let params = params(&req.k, &req.n)?;
    let threshold =
        Threshold::parse(req.threshold.trim()).map_err(|e| ("threshold", e.to_string()))?;
    let inputs = in_path_order(data, &req.ids, &req.sizes)?;

    let total = data.len() as u64;
    let mut done = 0;
    let (mut ids, mut docs, mut skipped) = (Vec::new(), Vec::new(), Vec::new());
    let mut warnings = Vec::new();
    for (id, bytes) in inputs {
        progress(CollectionStage::Sign, done, total);
        // The same reading as `neardup scan` gives a directory's files: a
        // document's extracted text, a plain text decoded.
        match crate::decode(bytes.to_vec(), id, Some(id), req.lossy) {
            Ok(d) => {
                warnings.extend(d.warnings.iter().map(|w| json!({"id": id, "warning": w})));
                let doc = Doc::new(&d.text, params);
                if let Some(caveat) = neardup::Caveat::of_normalized(doc.normalized(), params.k()) {
                    warnings.push(json!({"id": id, "warning": caveat.to_string()}));
                }
                docs.push(doc);
                ids.push(id);
            }
            Err(e) => {
                // The id is in its own field, and the collection has its
                // own lossy switch.
                let e = e.strip_prefix(&format!("{id}: ")).unwrap_or(&e);
                let e = e.strip_suffix(crate::decode::LOSSY_HINT).unwrap_or(e);
                skipped.push(json!({"id": id, "error": e}));
            }
        }
        done += bytes.len() as u64;
    }
    progress(CollectionStage::Sign, total, total);
    let fps: Vec<Fingerprint> = docs.iter().map(|d| d.fingerprint().clone()).collect();
    let json_ids: Vec<String> = ids.iter().map(|id| lines::json_string(id)).collect();
    let fail = |e: neardup::Error| ("files", e.to_string());

    progress(CollectionStage::Scan, 0, 1);
    let plan = Plan::new(params, threshold);
    let outcome = scan::run(&fps, 0, &plan).map_err(fail)?;

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
        lines::pair(
            &mut pairs_jsonl,
            [&json_ids[a], &json_ids[b]],
            &c.receipt,
            &hash,
            None,
        );
        pairs.push(json!({
            "a": p.a,
            "b": p.b,
            "matches": c.receipt.matches,
            "similarity": c.estimate().map(|e| e.similarity),
            "jaccard": c.jaccard(),
            "containment": c.containment,
            "verdict": c.receipt.verdict.as_str(),
            "receipt": c.receipt.canonical(),
            "receipt_sha256": hash.to_string(),
        }));
    }

    progress(CollectionStage::Clusters, 0, 1);
    let near = scan::run(&fps, 0, &Plan::new(params, Threshold::NEAR_DUPLICATE)).map_err(fail)?;
    let mut clusters_jsonl = String::new();
    for (i, group) in near.clusters.iter().enumerate() {
        let members: Vec<&str> = group
            .iter()
            .map(|&d| json_ids[d as usize].as_str())
            .collect();
        lines::cluster(&mut clusters_jsonl, i, &members);
    }

    let limit = req.map_limit.unwrap_or(DEFAULT_MAP_LIMIT);
    let map = (fps.len() <= limit).then(|| heat_map(&fps, progress));

    let banding = plan.banding();
    Ok(json!({
        "ok": true,
        "k": params.k(),
        "n": params.n(),
        "threshold": threshold.to_string(),
        "bands": banding.bands(),
        "rows": banding.rows(),
        "miss_probability": plan.miss_probability(),
        "documents": ids.iter().zip(&fps).map(|(id, f)| json!({
            "id": id,
            "shingles": f.shingles,
            "signed": f.signature.is_some(),
        })).collect::<Vec<_>>(),
        "skipped": skipped,
        "warnings": warnings,
        "pairs": pairs,
        "pairs_jsonl": pairs_jsonl,
        "groups": outcome.clusters,
        "clusters": near.clusters,
        "clusters_jsonl": clusters_jsonl,
        "map": map,
    }))
}

/// The documents cut out of `data`, in the order `neardup scan` gives a
/// directory's files (see [`collection`]), refusing two with one id.
pub(crate) fn in_path_order<'d>(
    data: &'d [u8],
    ids: &'d [String],
    sizes: &[u64],
) -> Result<Vec<(&'d str, &'d [u8])>, Failure> {
    if ids.len() != sizes.len() {
        return Err((
            "request",
            format!(
                "bad request from the page: {} ids but {} sizes",
                ids.len(),
                sizes.len()
            ),
        ));
    }
    let mut docs = Vec::with_capacity(ids.len());
    let mut at = 0usize;
    for (id, &size) in ids.iter().zip(sizes) {
        let end = usize::try_from(size)
            .ok()
            .and_then(|s| at.checked_add(s))
            .filter(|&e| e <= data.len());
        let Some(end) = end else {
            return Err((
                "request",
                format!(
                    "bad request from the page: '{id}' runs past the {} bytes sent",
                    data.len()
                ),
            ));
        };
        docs.push((id.as_str(), &data[at..end]));
        at = end;
    }
    if at != data.len() {
        return Err((
            "request",
            format!(
                "bad request from the page: {} bytes sent, {at} used",
                data.len()
            ),
        ));
    }
    // The first part of an id is the folder the user chose; below it,
    // hidden and Spark-marker names are not read, as `neardup scan`
    // does not read them.
    docs.retain(|(id, _)| !id.split('/').skip(1).any(order::is_skipped_name));
    order::sort_by_path(&mut docs, |d| d.0);
    if let Some(w) = docs.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err((
            "files",
            format!(
                "two files have the id '{}'; choose them from one folder",
                w[1].0
            ),
        ));
    }
    Ok(docs)
}

/// The slot-match count of every two documents `i < j`, row by row: what
/// the heat map colours. For people only: no pair is reported from it.
fn heat_map(
    fps: &[Fingerprint],
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
        let core = scan::run(
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
}
