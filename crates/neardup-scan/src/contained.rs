//! The containment stage's engine: the core's join
//! ([`neardup::scan::contained`]) with each of its stages run in parallel,
//! in place of the bands and pairs stages when `--containment` is given.

use neardup::scan::contained::{repeated, Found, Join, Keys, Lists, Scratch, Vocabulary, PARTS};
use neardup::scan::Exact;
use neardup::Threshold;
use rayon::prelude::*;

use crate::corpus::Corpus;
use crate::error::Result;
use crate::watch::Watch;

/// The containment stage's result.
pub struct Contained {
    /// Every pair of representatives at or over the threshold.
    pub found: Vec<Found>,
    /// Distinct shingles held by two or more documents.
    pub vocabulary: u64,
    /// Their occurrences: what the inverted lists hold.
    pub tokens: u64,
}

/// Documents whose tokens are looked up together.
const CHUNK: usize = 4096;

/// Every pair of representatives of the exact stage (`exact`) in which
/// one holds at least `threshold` of the other's shingles. `keys` are the
/// corpus's shingle keys, freed as soon as the documents are tokens.
pub fn pairs(
    corpus: &Corpus,
    keys: Keys,
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
    let parts: Vec<_> = (0..PARTS)
        .into_par_iter()
        .map(|part| repeated(&keys, &docs, part))
        .collect();
    let vocabulary = Vocabulary::new(parts)?;
    let lists: Vec<Lists<u32>> = docs
        .par_chunks(CHUNK)
        .map(|chunk| {
            let (mut lists, mut buf) = (Lists::new(), Vec::new());
            for &d in chunk {
                vocabulary.tokens(keys.of(d), &mut buf);
                lists.push(&buf);
            }
            lists
        })
        .collect();
    // Each chunk's lists freed as soon as they are copied: the tokens are
    // never held twice.
    drop(keys);
    let mut tokens = Lists::new();
    for l in lists {
        tokens.append(&l);
    }
    let total = tokens.total() as u64;
    let sizes: Vec<u64> = docs.iter().map(|&d| fps[d as usize].shingles).collect();
    let join = Join::new(
        &docs,
        &sizes,
        tokens,
        vocabulary.len(),
        corpus.refs,
        threshold,
    );
    let bar = watch.count(u64::from(join.members()), "documents probed");
    let found: Vec<_> = (0..join.members())
        .into_par_iter()
        .with_min_len(256)
        .map_init(Scratch::default, |scratch, x| {
            let mut out = Vec::new();
            join.probe(x, scratch, &mut out);
            if x % 4096 == 0 {
                bar.inc(4096);
            }
            out
        })
        .flatten_iter()
        .collect();
    bar.finish();
    Ok(Contained {
        found,
        vocabulary: vocabulary.len() as u64,
        tokens: total,
    })
}
