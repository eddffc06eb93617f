//! The exact and pairs stages: identical groups, then candidate pairs from
//! the band buckets, each verified on its exact slot-match count.

use anyhow::Result;
use rayon::prelude::*;

use super::corpus::Corpus;
use super::runs::BandRecords;
use super::Plan;

/// A reported pair: documents `a < b` (input order) and their matching
/// slots (`None` when either has no signature).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    pub a: u32,
    pub b: u32,
    pub matches: Option<u32>,
}

/// The exact stage's result.
pub struct Exact {
    /// `(first, other)` for every other member of an identical group: a
    /// group of `g` gives `g - 1` pairs, not `g²/2`.
    pub pairs: Vec<Pair>,
    /// The first document of each distinct normalized text that has a
    /// signature, in input order: the only ones banded.
    pub representatives: Vec<u32>,
    /// Identical groups (two or more documents) and their documents.
    pub groups: u64,
    pub grouped_docs: u64,
}

fn matches(corpus: &Corpus, a: u32, b: u32) -> Option<u32> {
    let (fa, fb) = (&corpus.docs[a as usize].fp, &corpus.docs[b as usize].fp);
    Some(fa.signature.as_ref()?.matches(fb.signature.as_ref()?))
}

/// Groups documents by `normalized_sha256`. They are IDENTICAL (SPEC §8,
/// rule 1) whatever their signatures, so they need no LSH.
pub fn exact(corpus: &Corpus) -> Exact {
    let docs = &corpus.docs;
    let mut order: Vec<u32> = (0..docs.len() as u32).collect();
    order.par_sort_unstable_by_key(|&i| (docs[i as usize].fp.normalized_sha256, i));
    let mut out = Exact {
        pairs: Vec::new(),
        representatives: Vec::new(),
        groups: 0,
        grouped_docs: 0,
    };
    for group in order.chunk_by(|&x, &y| {
        docs[x as usize].fp.normalized_sha256 == docs[y as usize].fp.normalized_sha256
    }) {
        let first = group[0];
        if docs[first as usize].fp.signature.is_some() {
            out.representatives.push(first);
        }
        let before = out.pairs.len();
        for &other in &group[1..] {
            // Both from --against: not a pair this scan reports.
            if !(corpus.is_ref(first) && corpus.is_ref(other)) {
                out.pairs.push(Pair {
                    a: first,
                    b: other,
                    matches: matches(corpus, first, other),
                });
            }
        }
        if out.pairs.len() > before {
            out.groups += 1;
            out.grouped_docs += group.len() as u64;
        }
    }
    out.representatives.sort_unstable();
    out
}

/// The pairs stage's result.
pub struct Near {
    /// Verified pairs, at or over the threshold, in no particular order,
    /// possibly repeated after a band key collision.
    pub pairs: Vec<Pair>,
    pub records: u64,
    pub runs: usize,
    /// Distinct candidate pairs (each counted in the first band it shares).
    pub candidates: u64,
    /// The most documents in one bucket: a bucket of `m` gives `m²/2`
    /// candidates, so this is what to look at when a scan is slow.
    pub largest_bucket: usize,
}

/// Candidate pairs are verified in parallel batches of this many.
const BATCH: usize = 1 << 20;

/// Reads the sorted band records bucket by bucket. Every two documents of a
/// bucket are a candidate; a candidate counts only in the first band whose
/// slots it shares, so a pair is verified and reported once (up to 64-bit
/// band key collisions, which the caller's dedup absorbs). A candidate is
/// kept when its exact slot matches meet the threshold: band keys only
/// propose, so a key collision never adds a false positive.
pub fn near(corpus: &Corpus, mut records: BandRecords, plan: &Plan, quiet: bool) -> Result<Near> {
    let mut out = Near {
        pairs: Vec::new(),
        records: records.count,
        runs: records.runs,
        candidates: 0,
        largest_bucket: 0,
    };
    let bar = crate::progress::count(records.count, quiet, "band records merged");
    let mut bucket: Vec<u32> = Vec::new();
    let mut current = None;
    let mut batch: Vec<(u32, u32, u32)> = Vec::with_capacity(BATCH);
    let mut seen = 0u64;
    loop {
        let next = records.next_record()?;
        seen += 1;
        if seen.is_multiple_of(65_536) {
            bar.set_position(seen);
        }
        let key = next.map(|r| (r.band, r.key));
        if key != current {
            out.largest_bucket = out.largest_bucket.max(bucket.len());
            if let Some((band, _)) = current {
                for (i, &a) in bucket.iter().enumerate() {
                    for &b in &bucket[i + 1..] {
                        if corpus.is_ref(a) && corpus.is_ref(b) {
                            continue;
                        }
                        batch.push((a, b, band));
                        if batch.len() == BATCH {
                            verify(corpus, plan, &mut batch, &mut out);
                        }
                    }
                }
            }
            bucket.clear();
            current = key;
        }
        match next {
            Some(r) => bucket.push(r.doc),
            None => break,
        }
    }
    verify(corpus, plan, &mut batch, &mut out);
    bar.finish_and_clear();
    Ok(out)
}

fn verify(corpus: &Corpus, plan: &Plan, batch: &mut Vec<(u32, u32, u32)>, out: &mut Near) {
    let banding = plan.banding;
    let n = plan.params.n();
    let checked: Vec<Option<Pair>> = batch
        .par_iter()
        .filter_map(|&(a, b, band)| {
            let sa = corpus.docs[a as usize].fp.signature.as_ref()?;
            let sb = corpus.docs[b as usize].fp.signature.as_ref()?;
            // Counted in an earlier band already? Comparing the slots is
            // cheaper than hashing them again; a pair whose keys collided in
            // an earlier band without its slots agreeing is counted twice,
            // and the caller's dedup keeps one.
            let (xa, xb) = (sa.slots(), sb.slots());
            let r = banding.rows();
            if (0..band as usize).any(|e| xa[e * r..(e + 1) * r] == xb[e * r..(e + 1) * r]) {
                return None;
            }
            let m = sa.matches(sb);
            Some(plan.threshold.accepts(m, n).then_some(Pair {
                a,
                b,
                matches: Some(m),
            }))
        })
        .collect();
    out.candidates += checked.len() as u64;
    out.pairs.extend(checked.into_iter().flatten());
    batch.clear();
}
