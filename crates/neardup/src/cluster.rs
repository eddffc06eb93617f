//! Clusters: union-find over document numbers, with a deterministic keeper.

use crate::Error;

/// Union-find over documents numbered `0..len` in input order.
///
/// **Keeper rule:** every cluster is represented by its smallest document
/// number, the document that came first in input order, and that document
/// is the one a deduplication keeps. A union always makes the smaller root
/// the parent, so the result depends only on which pairs were joined, never
/// on the order they were joined in (thread count, memory budget).
///
/// ```
/// use neardup::Clusters;
/// let mut c = Clusters::new(6)?;
/// c.union(4, 2);
/// c.union(5, 4);
/// c.union(1, 3);
/// assert_eq!(c.groups(), vec![vec![1, 3], vec![2, 4, 5]]);
/// assert_eq!(c.keeper(5), 2);
/// # Ok::<(), neardup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Clusters {
    parent: Vec<u32>,
}

impl Clusters {
    /// `len` documents, each alone; refused beyond `u32::MAX` documents,
    /// since documents are numbered with 32 bits.
    pub fn new(len: usize) -> Result<Clusters, Error> {
        let len = u32::try_from(len).map_err(|_| Error::TooManyDocuments(len as u64))?;
        Ok(Clusters {
            parent: (0..len).collect(),
        })
    }

    /// The number of documents.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// Whether there are no documents.
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// The keeper of `doc`'s cluster: its smallest document number.
    pub fn keeper(&mut self, doc: u32) -> u32 {
        let mut root = doc;
        while self.parent[root as usize] != root {
            root = self.parent[root as usize];
        }
        // Path compression: point everything on the way at the root.
        let mut at = doc;
        while self.parent[at as usize] != root {
            let next = self.parent[at as usize];
            self.parent[at as usize] = root;
            at = next;
        }
        root
    }

    /// Puts `a` and `b` in one cluster.
    pub fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.keeper(a), self.keeper(b));
        if ra != rb {
            let (low, high) = (ra.min(rb), ra.max(rb));
            self.parent[high as usize] = low;
        }
    }

    /// Every cluster of two or more documents, members in input order (the
    /// keeper first), clusters ordered by their keeper.
    pub fn groups(&mut self) -> Vec<Vec<u32>> {
        let len = self.parent.len() as u32;
        let mut sizes = vec![0u32; self.parent.len()];
        for doc in 0..len {
            let k = self.keeper(doc);
            sizes[k as usize] += 1;
        }
        // slot[k] is the index in `out` of the cluster kept by `k`.
        let mut slot = vec![u32::MAX; self.parent.len()];
        let mut out: Vec<Vec<u32>> = Vec::new();
        for doc in 0..len {
            let k = self.parent[doc as usize];
            if sizes[k as usize] < 2 {
                continue;
            }
            if k == doc {
                slot[doc as usize] = out.len() as u32;
                out.push(Vec::with_capacity(sizes[doc as usize] as usize));
            }
            // The keeper is the smallest member, so its cluster already exists.
            out[slot[k as usize] as usize].push(doc);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeper_is_first_in_input_order_whatever_the_union_order() {
        let pairs = [(7u32, 3u32), (3, 9), (9, 1), (5, 6), (0, 0)];
        let mut forward = Clusters::new(10).unwrap();
        for &(a, b) in &pairs {
            forward.union(a, b);
        }
        let mut backward = Clusters::new(10).unwrap();
        for &(a, b) in pairs.iter().rev() {
            backward.union(b, a);
        }
        let want = vec![vec![1, 3, 7, 9], vec![5, 6]];
        assert_eq!(forward.groups(), want);
        assert_eq!(backward.groups(), want);
        assert_eq!(forward.keeper(9), 1);
        assert_eq!(forward.keeper(0), 0);
    }

    #[test]
    fn singletons_are_not_clusters() {
        let mut c = Clusters::new(3).unwrap();
        assert!(c.groups().is_empty());
        assert_eq!(c.len(), 3);
        assert!(Clusters::new(0).unwrap().is_empty());
    }

    #[test]
    #[cfg_attr(miri, ignore = "a 100,000-link chain: slow under Miri")]
    fn long_chains_compress() {
        let n = 100_000u32;
        let mut c = Clusters::new(n as usize).unwrap();
        for i in (1..n).rev() {
            c.union(i, i - 1);
        }
        assert_eq!(c.keeper(n - 1), 0);
        assert_eq!(c.groups()[0].len(), n as usize);
    }
}
