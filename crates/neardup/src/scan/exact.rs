//! The exact stage: documents with one normalized text are IDENTICAL
//! (SPEC §8, rule 1) whatever their signatures, so they need no LSH.

use crate::Fingerprint;

use super::Pair;

/// The exact stage's result.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Exact {
    /// `(first, other)` for every other member of an identical group, in
    /// no particular order: a group of `g` gives `g - 1` pairs, not `g²/2`.
    pub pairs: Vec<Pair>,
    /// The first document of each distinct normalized text that has a
    /// signature, ascending: the only documents banded.
    pub representatives: Vec<u32>,
    /// Identical groups that gave a pair, and their documents.
    pub groups: u64,
    /// The documents of those groups.
    pub grouped_docs: u64,
}

/// Groups documents by `normalized_sha256`. Documents `0..refs` are
/// references: two of them never make a pair.
pub fn exact(fingerprints: &[Fingerprint], refs: u32) -> Exact {
    let mut order: Vec<u32> = (0..fingerprints.len() as u32).collect();
    order.sort_unstable_by_key(|&i| (fingerprints[i as usize].normalized_sha256, i));
    let mut out = Exact::default();
    let digest = |d: u32| &fingerprints[d as usize].normalized_sha256;
    for group in order.chunk_by(|&x, &y| digest(x) == digest(y)) {
        out.add_group(group, refs, |a, b| {
            let (fa, fb) = (&fingerprints[a as usize], &fingerprints[b as usize]);
            Some(fa.signature.as_ref()?.matches(fb.signature.as_ref()?))
        });
        if fingerprints[group[0] as usize].signature.is_some() {
            out.representatives.push(group[0]);
        }
    }
    out.representatives.sort_unstable();
    out
}

impl Exact {
    /// Adds one identical group, its document numbers ascending: the pairs
    /// of its first document with each other one (`matches` gives their
    /// slot-match count). For engines that group by digest themselves.
    pub fn add_group(
        &mut self,
        group: &[u32],
        refs: u32,
        matches: impl Fn(u32, u32) -> Option<u32>,
    ) {
        let Some((&first, rest)) = group.split_first() else {
            return;
        };
        let before = self.pairs.len();
        for &other in rest {
            if !(first < refs && other < refs) {
                self.pairs
                    .push(Pair::new(first, other, matches(first, other)));
            }
        }
        if self.pairs.len() > before {
            self.groups += 1;
            self.grouped_docs += group.len() as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Params;

    #[test]
    fn groups_pair_with_their_first_document() {
        let p = Params::DEFAULT;
        let texts = ["x", "a b c d e f", "A B  c d e f", "x", "a b c d e f"];
        let fps: Vec<Fingerprint> = texts.iter().map(|t| Fingerprint::of(t, p)).collect();
        let mut e = exact(&fps, 0);
        e.pairs.sort_unstable();
        let pairs: Vec<(u32, u32, Option<u32>)> =
            e.pairs.iter().map(|p| (p.a, p.b, p.matches)).collect();
        assert_eq!(pairs, [(0, 3, None), (1, 2, Some(128)), (1, 4, Some(128))]);
        // "x" has no signature: only document 1 is banded.
        assert_eq!(e.representatives, [1]);
        assert_eq!((e.groups, e.grouped_docs), (2, 5));
        let refs = exact(&fps, 4);
        assert_eq!(refs.pairs.len(), 1);
        assert_eq!((refs.groups, refs.grouped_docs), (1, 3));
    }
}
