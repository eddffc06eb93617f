//! An add and a query: new documents scanned against an index, with the
//! pairs, clusters and drops `neardup scan NEW --against ALL_ADDED_BEFORE`
//! gives, then (for an add) the new documents written. The CLI's `index
//! add`/`query` and Python's `Index.add`/`query` are this flow, and differ
//! only in how they read documents and show the result.

use neardup::scan::{Against, Outcome};
use neardup::Fingerprint;

use crate::segment::NewDoc;
use crate::{Added, Index, Result, Writer};

/// New documents scanned against an index.
pub struct Found {
    /// The scan as the index numbers documents (references `0..len`,
    /// the new ones after): its counts, and which new documents it drops.
    pub against: Against,
    /// The index documents that take part in a pair, in index order: ids
    /// (JSON text) and fingerprints.
    pub refs: Vec<(String, Fingerprint)>,
    /// The pairs, clusters and drops numbered over `refs` followed by the
    /// new documents: the numbering of `scan NEW --against REFS`, whose
    /// lines depend on the documents' order alone, so that they are the
    /// lines of a scan against the whole index.
    pub outcome: Outcome,
}

impl Index {
    /// Scans the new documents (`ids` as JSON text, and their
    /// fingerprints) against the index. An id the index holds, or one
    /// given twice, is refused, as `scan --against` refuses it.
    pub fn scan(&self, ids: &[String], fps: &[Fingerprint]) -> Result<Found> {
        self.check_ids(ids.iter().map(String::as_str))?;
        let against = self.query(fps)?;
        let (refs, outcome) = against.local(self.len());
        let refs = refs
            .into_iter()
            .map(|d| (self.id(d).to_owned(), self.fingerprint(d)))
            .collect();
        Ok(Found {
            against,
            refs,
            outcome,
        })
    }
}

impl Found {
    /// Whether each of the `new` documents is dropped: a near-duplicate of
    /// the index or of an earlier new document.
    pub fn dropped(&self, new: usize, first: u32) -> Vec<bool> {
        let mut dropped = vec![false; new];
        for &d in &self.against.outcome.dropped {
            if let Some(i) = d.checked_sub(first) {
                dropped[i as usize] = true;
            }
        }
        dropped
    }
}

impl Writer {
    /// Adds the new documents `docs` that `found` (their scan against
    /// this index) found: all of them, or with `only_new` only those it
    /// does not drop. Nothing changes unless all of it is written.
    pub fn add_found(&mut self, docs: Vec<NewDoc>, found: &Found, only_new: bool) -> Result<Added> {
        if !only_new {
            return self.add(docs);
        }
        let dropped = found.dropped(docs.len(), self.index().len());
        let kept = docs
            .into_iter()
            .zip(dropped)
            .filter(|(_, dropped)| !dropped)
            .map(|(doc, _)| doc)
            .collect();
        self.add(kept)
    }
}
