//! The containment stage's engine: the core's join
//! ([`neardup::scan::contained`]) with each of its stages run in parallel,
//! in place of the bands and pairs stages when `--containment` is given.

use neardup::scan::contained::{Found, Join, Lists, Repeated, Scratch, BATCHES};
use neardup::scan::Exact;
use neardup::Threshold;
use rayon::prelude::*;
use std::sync::Mutex;

use crate::corpus::Corpus;
use crate::error::Result;
use crate::keys::{spill_holders, RangeBuffers, Spilled};
use crate::spill::SpillDir;
use crate::watch::Watch;

/// The containment stage's result.
pub struct Contained {
    /// Every pair of representatives at or over the threshold.
    pub found: Vec<Found>,
    /// The join's figures, for the summary.
    pub figures: Figures,
}

/// What the join indexed.
#[derive(Debug, Clone, Copy)]
pub struct Figures {
    /// Distinct shingles held by two or more documents.
    pub vocabulary: u64,
    /// Their occurrences.
    pub occurrences: u64,
    /// The distinct lists of documents that hold them: the inverted
    /// lists the join reads.
    pub lists: u64,
}

/// Every pair of representatives of the exact stage (`exact`) in which
/// one holds at least `threshold` of the other's shingles. `keys` are the
/// corpus's shingle keys, a temp file a key range, read back one range a
/// thread at a time; each range's holders wait in `temp` until the
/// join's lists are laid out.
pub fn pairs(
    corpus: &Corpus,
    keys: Vec<Spilled>,
    temp: &SpillDir,
    exact: &Exact,
    threshold: Threshold,
    watch: &dyn Watch,
) -> Result<Contained> {
    let fps = &corpus.fps;
    let docs: Vec<u32> = exact
        .representatives
        .iter()
        .copied()
        .filter(|&d| fps[d as usize].shingles > 0)
        .collect();
    // Each key range read and sorted on its own, its holders spilled and
    // kept as a hash a key, by which the join makes its tokens; a
    // thread's buffers kept for its next range.
    let pool = Mutex::new(Vec::<RangeBuffers>::new());
    let ranges: Vec<(Vec<u32>, Vec<u64>, Spilled)> = keys
        .into_par_iter()
        .enumerate()
        .with_max_len(1)
        .map(|(r, keys)| {
            let mut buffers = pool
                .lock()
                .expect("no panic holds it")
                .pop()
                .unwrap_or_default();
            let part = keys.part(&mut buffers)?;
            let repeated = part.repeated_with(&docs, &mut buffers.sorting);
            buffers.keep(part);
            pool.lock().expect("no panic holds it").push(buffers);
            Ok((
                repeated.counts().to_vec(),
                repeated.lists().to_vec(),
                spill_holders(temp, r, &repeated)?,
            ))
        })
        .collect::<Result<_>>()?;
    drop(pool);
    let sizes: Vec<u64> = docs.iter().map(|&d| fps[d as usize].shingles).collect();
    let lists = ranges
        .iter()
        .map(|(counts, lists, _)| (&counts[..], &lists[..]));
    let mut placing = Join::build(&docs, &sizes, lists, corpus.refs, threshold)?;
    // The hashes freed before the holders are read back.
    let ranges: Vec<(Vec<u32>, Spilled)> = ranges.into_iter().map(|(c, _, h)| (c, h)).collect();
    let mut ranges = ranges.into_iter().enumerate();
    // A few ranges' lists made at a time, in parallel, then put in place.
    let at_once = 2 * rayon::current_num_threads();
    loop {
        let some: Vec<_> = ranges.by_ref().take(at_once).collect();
        if some.is_empty() {
            break;
        }
        let lists: Vec<Lists> = some
            .into_par_iter()
            .with_max_len(1)
            .map(|(r, (counts, holders))| {
                Ok(placing.lists(r, &Repeated::new(counts, holders.holders()?)))
            })
            .collect::<Result<_>>()?;
        lists.into_iter().for_each(|l| placing.put(l));
    }
    let join = placing.finish();
    let bar = watch.count(u64::from(join.members()), "documents probed");
    let mut found = Vec::new();
    let mut batches = join.batches(BATCHES);
    let mut next = batches.next(&join);
    // Each batch's probes in parallel, while the next batch is made.
    while let Some(batch) = next {
        let probe = || -> Vec<Found> {
            batch
                .members()
                .into_par_iter()
                .with_min_len(256)
                .map_init(Scratch::default, |scratch, x| {
                    let mut out = Vec::new();
                    join.probe(x, batch.tokens_of(x), scratch, &mut out);
                    out
                })
                .flatten_iter()
                .collect()
        };
        let got;
        (next, got) = rayon::join(|| batches.next(&join), probe);
        found.extend(got);
        bar.inc(batch.members().len() as u64);
        batches.recycle(batch);
    }
    bar.finish();
    Ok(Contained {
        found,
        figures: Figures {
            vocabulary: join.vocabulary(),
            occurrences: join.occurrences(),
            lists: join.tokens() as u64,
        },
    })
}
