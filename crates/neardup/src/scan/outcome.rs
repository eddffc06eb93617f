//! The scan's end: pairs merged, clusters, and the documents to drop.

use crate::{Clusters, Error};

/// A reported pair: documents `a < b` (input order) and their matching
/// slots, `None` when either has no signature (two identical texts of
/// fewer than `K` words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pair {
    /// The earlier document.
    pub a: u32,
    /// The later document.
    pub b: u32,
    /// SPEC §7's `matches`.
    pub matches: Option<u32>,
    /// The shingles the two share, in a scan for containment
    /// ([`super::contained`]); `None` otherwise.
    pub shared: Option<u64>,
}

impl Pair {
    /// The pair of documents `a` and `b`, put in input order.
    pub fn new(a: u32, b: u32, matches: Option<u32>) -> Pair {
        Pair {
            a: a.min(b),
            b: a.max(b),
            matches,
            shared: None,
        }
    }

    /// The pair with its shared shingle count.
    pub fn sharing(self, shared: u64) -> Pair {
        Pair {
            shared: Some(shared),
            ..self
        }
    }
}

/// Everything a scan reports, each part in input order, so that it is the
/// same whatever the engine, thread count or partitioning.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Outcome {
    /// Every pair once, sorted by `(a, b)`.
    pub pairs: Vec<Pair>,
    /// Every cluster of two or more documents, members ascending, the
    /// keeper (the smallest, first in input order) first; clusters ordered
    /// by keeper.
    pub clusters: Vec<Vec<u32>>,
    /// The documents a deduplication drops, ascending: in a cluster, not its
    /// keeper, not a reference document.
    pub dropped: Vec<u32>,
}

impl Outcome {
    /// Merges the exact and near pairs of `len` documents (in any order,
    /// repeats allowed: a pair found twice after a band key collision is
    /// kept once), then clusters them. Documents `0..refs` are references.
    pub fn new(len: usize, refs: u32, mut pairs: Vec<Pair>) -> Result<Outcome, Error> {
        pairs.sort_unstable_by_key(|p| (p.a, p.b));
        pairs.dedup_by_key(|p| (p.a, p.b));
        let mut clusters = Clusters::new(len)?;
        for p in &pairs {
            clusters.union(p.a, p.b);
        }
        let clusters = clusters.groups();
        let mut dropped: Vec<u32> = clusters
            .iter()
            .flat_map(|g| g[1..].iter().copied())
            .filter(|&d| d >= refs)
            .collect();
        dropped.sort_unstable();
        Ok(Outcome {
            pairs,
            clusters,
            dropped,
        })
    }
}

impl Outcome {
    /// [`Outcome::new`] for a scan for containment, where the rule of who
    /// is dropped is the reader's: in each pair, the document most
    /// contained in the other (the one with fewer distinct shingles,
    /// `sizes[d]`; on a tie, the later in input order) is dropped, unless
    /// it is a reference. The largest document of a cluster is never the
    /// smaller side of a pair, so every cluster keeps it, and lists it
    /// first; it can keep others too (two sources that each hold an essay
    /// but not each other).
    pub fn contained(
        len: usize,
        refs: u32,
        pairs: Vec<Pair>,
        sizes: &[u64],
    ) -> Result<Outcome, Error> {
        let mut out = Outcome::new(len, refs, pairs)?;
        for group in &mut out.clusters {
            let keeper = group.iter().min_by_key(|&&d| rank(sizes, d)).copied();
            if let Some(keeper) = keeper {
                group.retain(|&d| d != keeper);
                group.insert(0, keeper);
            }
        }
        out.clusters.sort_unstable_by_key(|g| g[0]);
        out.dropped = smaller_sides(&out.pairs, sizes, refs);
        Ok(out)
    }
}

/// The rule of [`Outcome::contained`]: the smaller side of each pair (fewer
/// distinct shingles, `sizes[d]`; on a tie, the later), references
/// excepted, ascending.
pub fn smaller_sides(pairs: &[Pair], sizes: &[u64], refs: u32) -> Vec<u32> {
    let mut dropped: Vec<u32> = pairs
        .iter()
        .map(|p| std::cmp::max_by_key(p.a, p.b, |&d| rank(sizes, d)))
        .filter(|&d| d >= refs)
        .collect();
    dropped.sort_unstable();
    dropped.dedup();
    dropped
}

/// The order of a scan for containment, greatest first: most distinct
/// shingles (`sizes[d]`), then earliest.
fn rank(sizes: &[u64], d: u32) -> (std::cmp::Reverse<u64>, u32) {
    (std::cmp::Reverse(sizes[d as usize]), d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_merge_and_clusters_keep_the_first() {
        let pairs = vec![
            Pair::new(5, 3, Some(100)),
            Pair::new(1, 3, Some(99)),
            Pair::new(3, 5, Some(100)),
            Pair::new(0, 2, None),
        ];
        let out = Outcome::new(7, 1, pairs).unwrap();
        let ab: Vec<(u32, u32)> = out.pairs.iter().map(|p| (p.a, p.b)).collect();
        assert_eq!(ab, [(0, 2), (1, 3), (3, 5)]);
        assert_eq!(out.clusters, [vec![0, 2], vec![1, 3, 5]]);
        assert_eq!(out.dropped, [2, 3, 5]);
        let refs = Outcome::new(7, 4, vec![Pair::new(1, 3, None), Pair::new(3, 6, None)]);
        assert_eq!(refs.unwrap().dropped, [6]);
    }

    #[test]
    fn containment_drops_the_smaller_side_of_each_pair() {
        // 0 ⊂ 1 ⊂ 2; 3 is in both 2 and 4, which do not hold each other;
        // 5 and 6 are the same size: the later goes.
        let sizes = [10, 50, 90, 5, 40, 7, 7];
        let pairs = [(0, 1), (1, 2), (2, 3), (3, 4), (5, 6)];
        let pairs = pairs.iter().map(|&(a, b)| Pair::new(a, b, None)).collect();
        let out = Outcome::contained(7, 0, pairs, &sizes).unwrap();
        assert_eq!(out.clusters, [vec![2, 0, 1, 3, 4], vec![5, 6]]);
        assert_eq!(out.dropped, [0, 1, 3, 6]);
        // A reference is never dropped, though contained.
        let refs = Outcome::contained(7, 1, vec![Pair::new(0, 1, None)], &sizes).unwrap();
        assert!(refs.dropped.is_empty());
    }
}
