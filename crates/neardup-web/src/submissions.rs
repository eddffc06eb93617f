//! The submissions table of a scan for containment against sources: for
//! each submission, the share of its words found in any source, and each
//! source's part of it; the figures, order and rounding of the report's
//! table (`neardup scan SUBMISSIONS --against SOURCES --containment T
//! --report`), computed by the same rule ([`neardup::mark`]) so that the
//! page and the report agree to the digit.

use std::collections::{BTreeMap, HashMap};

use neardup::scan::Pair;
use neardup::{mark, Mark, Words};
use serde_json::{json, Value};

/// One row: a submission and what the sources hold of it.
struct Row {
    doc: u32,
    /// Its words, and those inside a passage some source has too, counted
    /// once; `None` when no source is paired with it.
    found: Option<(usize, usize)>,
    /// Each paired source and the words of the submission it has, most
    /// first.
    parts: Vec<(u32, usize)>,
}

/// The table's rows for `texts` (documents `0..refs` the sources) and the
/// scan's `pairs`, `k` words a shingle: every submission, those with a
/// source first, by the share of their words found, highest first; then
/// the others, in input order. `progress` is told each submission done.
///
/// Each row is `{"doc", "words", "found", "share", "parts": [{"source",
/// "words", "share"}]}` (`words`, `found` and `share` `null` for a
/// submission no source is paired with); `share` is the report's text
/// (`"42.5%"`), so that the page shows the report's digits.
pub(crate) fn rows(
    texts: &[String],
    refs: u32,
    pairs: &[Pair],
    k: usize,
    progress: &mut dyn FnMut(u64, u64),
) -> Vec<Value> {
    let mut sources: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for p in pairs {
        // Pairs are (a < b): a source is always a.
        if p.a < refs && p.b >= refs {
            sources.entry(p.b).or_default().push(p.a);
        }
    }
    let len = texts.len() as u32;
    let mut words_of: HashMap<u32, Words> = HashMap::new();
    let mut rows = Vec::new();
    for doc in refs..len {
        progress(u64::from(doc - refs), u64::from(len - refs));
        let Some(paired) = sources.get(&doc) else {
            rows.push(Row {
                doc,
                found: None,
                parts: Vec::new(),
            });
            continue;
        };
        let mine = Words::new(&texts[doc as usize]);
        let mut any = vec![false; mine.len()];
        let mut parts = Vec::with_capacity(paired.len());
        for &s in paired {
            let theirs = words_of
                .entry(s)
                .or_insert_with(|| Words::new(&texts[s as usize]));
            let marks = mark(&mine, theirs, None, k);
            let mut part = 0;
            for (seen, m) in any.iter_mut().zip(&marks.a) {
                if *m == Mark::Shared {
                    *seen = true;
                    part += 1;
                }
            }
            parts.push((s, part));
        }
        parts.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
        let found = any.iter().filter(|&&x| x).count();
        rows.push(Row {
            doc,
            found: Some((found, mine.len())),
            parts,
        });
    }
    // found / words, highest first, cross-multiplied; then input order.
    rows.sort_by(|x, y| match (x.found, y.found) {
        (Some((f1, w1)), Some((f2, w2))) => {
            let (l, r) = (
                (f2 as u128) * (w1.max(1) as u128),
                (f1 as u128) * (w2.max(1) as u128),
            );
            l.cmp(&r).then(x.doc.cmp(&y.doc))
        }
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => x.doc.cmp(&y.doc),
    });
    rows.into_iter().map(to_json).collect()
}

fn to_json(row: Row) -> Value {
    let Some((found, words)) = row.found else {
        return json!({"doc": row.doc, "words": null, "found": null, "share": null, "parts": []});
    };
    let share = |n: usize| {
        pct(if words == 0 {
            0.0
        } else {
            n as f64 / words as f64
        })
    };
    let parts: Vec<Value> = row
        .parts
        .iter()
        .map(|&(s, part)| json!({"source": s, "words": part, "share": share(part)}))
        .collect();
    json!({
        "doc": row.doc,
        "words": words,
        "found": found,
        "share": share(found),
        "parts": parts,
    })
}

/// A share as the report writes it: `{:.1}%`, which rounds a tie to even
/// (6.25 to 6.2) where JavaScript's `toFixed` rounds it up, so the page
/// shows this text rather than its own.
pub(crate) fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}
