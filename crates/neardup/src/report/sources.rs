//! The table a scan for containment against sources opens with (`neardup
//! scan SUBMISSIONS --against SOURCES --containment T --report`): for each
//! submission, the share of its words found in any source, and each
//! source's part of it, as plagiarism tools report it.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use super::html::{escaped, pct};
use super::pair::text;
use super::Input;
use crate::{mark, Base, Error, Mark, Words};

/// One row: a submission and what the sources hold of it.
pub(crate) struct Submission {
    doc: u32,
    /// Its words, and those inside a passage some source has too (outside
    /// the base), counted once; `None` when no source is paired with it.
    found: Option<(usize, usize)>,
    /// Each paired source and the words of the submission it has, most
    /// first.
    parts: Vec<(u32, usize)>,
}

/// Every submission (documents from `input.refs` on), those with a source
/// first, by the share of their words found, highest first; then the
/// others, in input order.
pub(crate) fn submissions(
    input: &Input<'_>,
    base: Option<&Base>,
) -> Result<Vec<Submission>, Error> {
    let k = input.settings.params.k();
    let refs = input.refs;
    let mut sources: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for p in input.pairs {
        // Pairs are (a < b): a source is always a.
        if p.a < refs && p.b >= refs {
            sources.entry(p.b).or_default().push(p.a);
        }
    }
    let mut words_of: HashMap<u32, Words> = HashMap::new();
    let mut out = Vec::new();
    for doc in refs..input.documents.len() as u32 {
        let Some(paired) = sources.get(&doc) else {
            out.push(Submission {
                doc,
                found: None,
                parts: Vec::new(),
            });
            continue;
        };
        let mine = Words::new(text(input, doc)?);
        let mut any = vec![false; mine.len()];
        let mut parts = Vec::with_capacity(paired.len());
        for &s in paired {
            let theirs = match words_of.entry(s) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => e.insert(Words::new(text(input, s)?)),
            };
            let marks = mark(&mine, theirs, base, k);
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
        out.push(Submission {
            doc,
            found: Some((found, mine.len())),
            parts,
        });
    }
    // found / words, highest first, cross-multiplied; then input order.
    out.sort_by(|x, y| match (x.found, y.found) {
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
    Ok(out)
}

/// Appends the submissions table.
pub(crate) fn table(out: &mut String, input: &Input<'_>, rows: &[Submission]) {
    let name = |d: u32| escaped(input.documents[d as usize].name);
    let t = input
        .settings
        .containment
        .map_or_else(String::new, |t| t.to_string());
    let _ = writeln!(
        out,
        "<h2 id=submissions>Submissions</h2>\n<p class=note>For each submission, the share of its words \
         found in any source: the words inside passages of at least {k} words that a source has too, \
         counted once however many sources have them{base}. The sources listed are those paired with \
         it: one of the two holds at least {t} of the other\u{2019}s distinct shingles. Highest share first.</p>",
        k = input.settings.params.k(),
        base = if input.bases.is_empty() {
            ""
        } else {
            ", leaving out the passages that also occur in a base text"
        },
    );
    out.push_str("<table>\n<tr><th class=r>#<th>Submission<th class=r>Words<th class=r>Found in sources<th>Each source\u{2019}s part\n");
    for (i, row) in rows.iter().enumerate() {
        let _ = write!(out, "<tr><td class=r>{}<td>{}", i + 1, name(row.doc));
        let Some((found, words)) = row.found else {
            let _ = writeln!(
                out,
                "<td class=r>\u{2014}<td class=r>\u{2014}<td>no source at or over {t}"
            );
            continue;
        };
        let share = |n: usize| {
            pct(if words == 0 {
                0.0
            } else {
                n as f64 / words as f64
            })
        };
        let _ = write!(
            out,
            "<td class=r>{words}<td class=r><b>{}</b><td>",
            share(found)
        );
        for (j, &(s, part)) in row.parts.iter().enumerate() {
            if j > 0 {
                out.push_str("<br>");
            }
            let _ = write!(out, "{} {}", name(s), share(part));
        }
        out.push('\n');
    }
    out.push_str("</table>\n");
}
