//! Word K-shingles and the distinct shingle set (SPEC §2).

use std::collections::HashSet;

use foldhash::fast::FixedState;

/// Iterates over the shingles of a normalized text, in order, duplicates
/// included: `words[j..j+k].join(" ")` for `j = 0 ..= W-k`.
///
/// Each shingle is a slice of the normalized text. A normalized text has
/// single spaces between words and none at the ends, so a shingle is the
/// span from its first word's start to its last word's end; no string is
/// built.
///
/// ```
/// use neardup::shingle::shingles;
/// let all: Vec<&str> = shingles("a b c a b", 2).collect();
/// assert_eq!(all, ["a b", "b c", "c a", "a b"]);
/// assert_eq!(shingles("", 1).count(), 0);
/// assert_eq!(shingles("a b", 3).count(), 0);
/// ```
pub fn shingles(normalized: &str, k: usize) -> impl Iterator<Item = &str> {
    // Start offsets of the last `k` words, in a ring: the window needs no
    // memory beyond `k` offsets however long the text is.
    let mut ring = vec![0usize; k.max(1)];
    let mut seen = 0usize;
    let words = if normalized.is_empty() {
        None
    } else {
        Some(normalized.split(' '))
    };
    let mut offset = 0usize;
    words.into_iter().flatten().filter_map(move |word| {
        let start = offset;
        let end = start + word.len();
        offset = end + 1;
        // The oldest start in the ring is the window's first word once the
        // ring has been filled.
        let slot = seen % ring.len();
        ring[slot] = start;
        seen += 1;
        (seen >= k).then(|| {
            let first = ring[seen % ring.len()];
            &normalized[first..end]
        })
    })
}

/// The distinct shingles of a normalized text (SPEC §2): a set of strings,
/// so two different shingles whose 32-bit hashes collide still count twice.
#[derive(Debug, Clone, Default)]
pub struct ShingleSet<'a> {
    // The set's own hash only decides bucket placement; nothing derived from
    // it reaches a signature or a receipt. A fixed seed keeps runs
    // repeatable for profiling.
    set: HashSet<&'a str, FixedState>,
}

impl<'a> ShingleSet<'a> {
    /// Collects the distinct `k`-shingles of `normalized`.
    ///
    /// ```
    /// use neardup::ShingleSet;
    /// let s = ShingleSet::new("to be or not to be", 2);
    /// assert_eq!(s.len(), 4); // "to be" appears twice
    /// ```
    pub fn new(normalized: &'a str, k: usize) -> ShingleSet<'a> {
        // Roughly one word per six bytes of prose: reserving avoids most
        // rehashing without over-allocating for repetitive text.
        let mut set =
            HashSet::with_capacity_and_hasher(normalized.len() / 8, FixedState::default());
        set.extend(shingles(normalized, k));
        ShingleSet { set }
    }

    /// The number of distinct shingles, the receipt's `shingles`.
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// Whether the text had fewer than `k` words.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// Whether `shingle` is in the set.
    pub fn contains(&self, shingle: &str) -> bool {
        self.set.contains(shingle)
    }

    /// The distinct shingles, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.set.iter().copied()
    }

    /// The exact Jaccard similarity `|A ∩ B| / |A ∪ B|` of two sets: the
    /// true value that a MinHash similarity estimates. For humans only;
    /// `None` when both sets are empty, where it is undefined.
    ///
    /// ```
    /// use neardup::ShingleSet;
    /// let a = ShingleSet::new("a b c d", 2);
    /// let b = ShingleSet::new("a b c e", 2);
    /// assert_eq!(a.jaccard(&b), Some(0.5)); // {ab, bc} of {ab, bc, cd, ce}
    /// ```
    pub fn jaccard(&self, other: &ShingleSet<'_>) -> Option<f64> {
        let (small, large) = if self.len() <= other.len() {
            (self, other)
        } else {
            (other, self)
        };
        let both = small.iter().filter(|s| large.contains(s)).count();
        let union = self.len() + other.len() - both;
        (union > 0).then(|| both as f64 / union as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k_equals_word_count_gives_one_shingle() {
        assert_eq!(shingles("a b c", 3).collect::<Vec<_>>(), ["a b c"]);
    }

    #[test]
    fn k_one_gives_words() {
        assert_eq!(shingles("x y x", 1).collect::<Vec<_>>(), ["x", "y", "x"]);
        assert_eq!(ShingleSet::new("x y x", 1).len(), 2);
    }

    #[test]
    fn multibyte_words() {
        let got: Vec<_> = shingles("ας βγ δ", 2).collect();
        assert_eq!(got, ["ας βγ", "βγ δ"]);
    }

    #[test]
    fn jaccard_of_empty_sets_is_undefined() {
        let e = ShingleSet::new("", 5);
        assert_eq!(e.jaccard(&e), None);
        assert_eq!(e.jaccard(&ShingleSet::new("a b c d e", 5)), Some(0.0));
    }
}
