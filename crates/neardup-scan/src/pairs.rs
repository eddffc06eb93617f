//! The pairs stage's engine: the sorted band records streamed bucket by
//! bucket, each bucket's candidates verified in parallel batches by the
//! core's rule ([`Plan::check`]).

use neardup::scan::{candidates, Pair, Plan};
use rayon::prelude::*;

use crate::corpus::Corpus;
use crate::error::Result;
use crate::runs::BandRecords;
use crate::watch::Watch;

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

/// Reads the sorted band records bucket by bucket and verifies every
/// candidate of each.
pub fn near(
    corpus: &Corpus,
    mut records: BandRecords,
    plan: &Plan,
    watch: &dyn Watch,
) -> Result<Near> {
    let mut out = Near {
        pairs: Vec::new(),
        records: records.count,
        runs: records.runs,
        candidates: 0,
        largest_bucket: 0,
    };
    let bar = watch.count(records.count, "band records merged");
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
                for (a, b) in candidates(&bucket, corpus.refs) {
                    batch.push((a, b, band));
                    if batch.len() == BATCH {
                        verify(corpus, plan, &mut batch, &mut out);
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
    bar.finish();
    Ok(out)
}

fn verify(corpus: &Corpus, plan: &Plan, batch: &mut Vec<(u32, u32, u32)>, out: &mut Near) {
    let checked: Vec<Option<Pair>> = batch
        .par_iter()
        .filter_map(|&(a, b, band)| {
            let sa = corpus.fps[a as usize].signature.as_ref()?;
            let sb = corpus.fps[b as usize].signature.as_ref()?;
            let check = plan.check(band, sa, sb);
            check
                .is_counted()
                .then(|| check.accepted().map(|m| Pair::new(a, b, Some(m))))
        })
        .collect();
    out.candidates += checked.len() as u64;
    out.pairs.extend(checked.into_iter().flatten());
    batch.clear();
}
