//! The table a scan for containment against sources opens with (`neardup
//! scan SUBMISSIONS --against SOURCES --containment T --report`): for each
//! submission, the share of its words found in any source, and each
//! source's part of it, as plagiarism tools report it.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use super::html::{escaped, pct};
use super::Input;
use crate::scan::Pair;
use crate::{mark, Base, Error, Mark, Params, Words};

/// One row of the submissions table: a submission and what the sources
/// hold of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    /// The submission's document number.
    pub doc: u32,
    /// Its words, and those inside a passage some source has too (outside
    /// the base), counted once: `(found, words)`; `None` when no source is
    /// paired with it.
    pub found: Option<(usize, usize)>,
    /// Each paired source and how many of the submission's words it has,
    /// most first, then in input order.
    pub parts: Vec<(u32, usize)>,
}

impl Submission {
    /// `part / words` as the table shows it, `42.5%`.
    pub fn share(&self, part: usize) -> Option<String> {
        let (_, words) = self.found?;
        Some(pct(if words == 0 {
            0.0
        } else {
            part as f64 / words as f64
        }))
    }
}

/// The submissions table of a scan for containment against sources: every
/// submission (documents `refs..documents`), those paired with a source
/// first, by the share of their words found in any source, highest first
/// (decided in integers); then the others, in input order. A word is
/// found when it is [`Mark::Shared`] with some source ([`mark`], with
/// `params`' `K` and word rule, `base` set aside). `text` gives a document's text,
/// which every document of a pair between a source and a submission
/// needs. The report's table and the page's are this one.
///
/// ```
/// use neardup::report::submissions;
/// use neardup::scan::Pair;
/// use neardup::Params;
/// let texts = ["one two three four five six", "one two three four seven eight", "nine ten"];
/// // Document 0 is the source; 1 and 2 are submissions, 1 paired with it.
/// let pairs = [Pair::new(0, 1, None)];
/// let rows = submissions(3, 1, &pairs, (Params::new(2, 128)?, None), |d| Ok(texts[d as usize]))?;
/// assert_eq!((rows[0].doc, rows[0].found), (1, Some((4, 6))));
/// assert_eq!(rows[0].parts, [(0, 4)]);
/// assert_eq!(rows[0].share(4).as_deref(), Some("66.7%"));
/// assert_eq!((rows[1].doc, rows[1].found), (2, None));
/// # Ok::<(), neardup::Error>(())
/// ```
///
/// # Errors
/// What `text` returns for a document it lacks.
pub fn submissions<'t>(
    documents: u32,
    refs: u32,
    pairs: &[Pair],
    (params, base): (Params, Option<&Base>),
    text: impl Fn(u32) -> Result<&'t str, Error>,
) -> Result<Vec<Submission>, Error> {
    let mut sources: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for p in pairs {
        // Pairs are (a < b): a source is always a.
        if p.a < refs && p.b >= refs {
            sources.entry(p.b).or_default().push(p.a);
        }
    }
    let mut words_of: HashMap<u32, Words> = HashMap::new();
    let mut out = Vec::new();
    for doc in refs..documents {
        let Some(paired) = sources.get(&doc) else {
            out.push(Submission {
                doc,
                found: None,
                parts: Vec::new(),
            });
            continue;
        };
        let mine = Words::with_rule(text(doc)?, params.words());
        let mut any = vec![false; mine.len()];
        let mut parts = Vec::with_capacity(paired.len());
        for &s in paired {
            let theirs = match words_of.entry(s) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => e.insert(Words::with_rule(text(s)?, params.words())),
            };
            let marks = mark(&mine, theirs, base, params.k());
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
