//! The distinct shingles among keyed ones: the set of SPEC §2, found on
//! the 64-bit SHA-256 keys the signature needs anyway, and checked on the
//! strings.

/// An open-addressing table from key to first occurrence, kept between
/// calls so that signing many documents allocates it once.
///
/// Keys are SHA-256 bits, already uniform, so the table indexes by their
/// low bits directly and probes linearly. Two shingles with one key are
/// *claimed* equal; the caller compares their strings
/// ([`Distinct::claims`]) and, on the one-in-2⁶⁴ chance that they differ,
/// starts over with [`exact`], so the set is exact in every case.
#[derive(Debug, Default, Clone)]
pub(crate) struct Distinct {
    keys: Vec<u64>,
    /// Index of the first occurrence + 1; 0 for an empty slot.
    first: Vec<u32>,
    claims: Vec<(u32, u32)>,
}

impl Distinct {
    /// Pushes to `out` the index of the first occurrence of each distinct
    /// key of `keys`, in order. Afterwards [`Distinct::claims`] holds the
    /// `(first, later)` pairs of indexes whose keys are equal.
    pub fn find(&mut self, keys: &[u64], out: &mut Vec<u32>) {
        let capacity = (2 * keys.len()).next_power_of_two().max(16);
        let mask = capacity - 1;
        // Only `first` says whether a slot is taken, so only it is cleared.
        if self.keys.len() < capacity {
            self.keys.resize(capacity, 0);
        }
        self.first.clear();
        self.first.resize(capacity, 0);
        self.claims.clear();
        for (i, &key) in keys.iter().enumerate() {
            let mut at = key as usize & mask;
            loop {
                let first = self.first[at];
                if first == 0 {
                    self.first[at] = i as u32 + 1;
                    self.keys[at] = key;
                    out.push(i as u32);
                    break;
                }
                if self.keys[at] == key {
                    self.claims.push((first - 1, i as u32));
                    break;
                }
                at = (at + 1) & mask;
            }
        }
    }

    /// The pairs of indexes the last [`Distinct::find`] took to be the
    /// same shingle because their keys are equal.
    pub fn claims(&self) -> &[(u32, u32)] {
        &self.claims
    }
}

/// The first occurrence of each distinct `(key, text(i))`, in order,
/// comparing strings on every equal key: what [`Distinct::find`] gives
/// when no two different shingles share a key, and the right answer when
/// some do. `O(n log n)`, for that rare case only.
pub(crate) fn exact<'t>(keys: &[u64], text: impl Fn(usize) -> &'t str, out: &mut Vec<u32>) {
    let mut order: Vec<u32> = (0..keys.len() as u32).collect();
    // Stable, so that among equal shingles the first comes first.
    order.sort_by(|&a, &b| {
        let (a, b) = (a as usize, b as usize);
        keys[a].cmp(&keys[b]).then_with(|| text(a).cmp(text(b)))
    });
    let start = out.len();
    let mut last: Option<usize> = None;
    for &i in &order {
        let i = i as usize;
        if last.is_none_or(|l| keys[l] != keys[i] || text(l) != text(i)) {
            out.push(i as u32);
        }
        last = Some(i);
    }
    out[start..].sort_unstable();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_occurrences_and_claims() {
        let mut d = Distinct::default();
        let mut out = vec![99];
        // Keys that share low bits, so that probes wrap and collide.
        let keys = [16, 32, 16, 48, 32, 16, 1 << 40];
        d.find(&keys, &mut out);
        assert_eq!(out, [99, 0, 1, 3, 6]);
        assert_eq!(d.claims(), [(0, 2), (1, 4), (0, 5)]);
        // Reused: nothing of the last call remains.
        out.clear();
        d.find(&[5, 5], &mut out);
        assert_eq!((out.as_slice(), d.claims()), (&[0][..], &[(0, 1)][..]));
        d.find(&[], &mut out);
        assert!(d.claims().is_empty());
    }

    #[test]
    fn exact_keeps_different_strings_with_one_key() {
        let words = ["a", "b", "a", "c", "b"];
        let mut out = Vec::new();
        // Pretend every word hashed to the same key.
        exact(&[9; 5], |i| words[i], &mut out);
        assert_eq!(out, [0, 1, 3]);
        out.clear();
        exact(&[1, 2, 1, 2, 3], |i| words[i], &mut out);
        assert_eq!(out, [0, 1, 3, 4]);
    }
}
