//! The submissions table of a scan for containment against sources, for
//! the page: the report's rows ([`neardup::report::submissions`]), each
//! share written as the report writes it, so that the page and the report
//! agree to the digit.

use neardup::report::{submissions, Submission};
use neardup::scan::Pair;
use serde_json::{json, Value};

/// The table's rows for `texts` (documents `0..refs` the sources) and the
/// scan's `pairs`, with `params`' `K` and word rule, in the report's order: those with
/// a source first, by the share of their words found, highest first; then
/// the others, in input order.
///
/// Each row is `{"doc", "words", "found", "share", "parts": [{"source",
/// "words", "share"}]}` (`words`, `found` and `share` `null` for a
/// submission no source is paired with); `share` is the report's text
/// (`"42.5%"`).
pub(crate) fn rows(
    texts: &[String],
    refs: u32,
    pairs: &[Pair],
    params: neardup::Params,
) -> Result<Vec<Value>, neardup::Error> {
    let rows = submissions(texts.len() as u32, refs, pairs, (params, None), |d| {
        Ok(texts[d as usize].as_str())
    })?;
    Ok(rows.iter().map(to_json).collect())
}

fn to_json(row: &Submission) -> Value {
    let Some((found, words)) = row.found else {
        return json!({"doc": row.doc, "words": null, "found": null, "share": null, "parts": []});
    };
    let parts: Vec<Value> = row
        .parts
        .iter()
        .map(|&(s, part)| json!({"source": s, "words": part, "share": row.share(part)}))
        .collect();
    json!({
        "doc": row.doc,
        "words": words,
        "found": found,
        "share": row.share(found),
        "parts": parts,
    })
}

/// A share as the report writes it: `{:.1}%`, which rounds a tie to even
/// (6.25 to 6.2) where JavaScript's `toFixed` rounds it up, so the page
/// shows this text rather than its own.
pub(crate) fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}
