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
        // At most a quarter full: a probe that collides is a branch
        // mispredicted. (Corpus `sign --jsonl -j1`, median of 11: half
        // full at most 0.766 s, a quarter 0.754, an eighth 0.768.)
        let capacity = (4 * keys.len()).next_power_of_two().max(16);
        let mask = capacity - 1;
        // Only `first` says whether a slot is taken, so only it is cleared.
        if self.keys.len() < capacity {
            self.keys.resize(capacity, 0);
        }
        self.first.clear();
        self.first.resize(capacity, 0);
        self.claims.clear();
        out.reserve(keys.len());
        // Slices of exactly `capacity`, held apart from `self`: the probe
        // loop then keeps them in registers and checks no bounds.
        let (table, firsts) = (&mut self.keys[..capacity], &mut self.first[..capacity]);
        for (i, &key) in keys.iter().enumerate() {
            let mut at = key as usize & mask;
            loop {
                let first = firsts[at];
                if first == 0 {
                    firsts[at] = i as u32 + 1;
                    table[at] = key;
                    out.push(i as u32);
                    break;
                }
                if table[at] == key {
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

/// The distinct shingles of one large document, inserted in text order
/// into one table that grows, instead of a table per document.
///
/// A slot is one word: the shingle's base hash `h0` (its key's high half,
/// which also picks the slot) above its start in the text + 1 (0: empty).
/// Half the 16 bytes of a key and a span: a 100 MB text's table is 64 MB
/// instead of 128, and each page of it is a fault on first touch.
///
/// Equal `h0`s are *claimed* to be the same shingle and checked on the
/// text. A claim that starts a run (below) is checked at once, and when
/// the strings differ (thousands of pairs of a large text's distinct
/// shingles share an `h0`) the probe goes on. A repeated passage then
/// gives consecutive shingles whose first occurrences are consecutive
/// too, at one distance back in the text: the claims of such a run hold
/// exactly when the two passages are equal, one comparison of two
/// contiguous ranges when the run ends, so the text is read in order
/// instead of at a random place per claim.
#[derive(Debug)]
pub(crate) struct Large {
    table: Vec<u64>,
    count: usize,
    run: Option<Run>,
    /// No claim has failed so far.
    holds: bool,
}

/// Claims of consecutive shingles whose first occurrences lie `back` bytes
/// before them: the text `from..to` must equal the text `back` bytes back,
/// and there end a word.
#[derive(Debug, Clone, Copy)]
struct Run {
    back: usize,
    from: usize,
    to: usize,
    /// The shingle that would extend the run.
    next: usize,
}

impl Large {
    /// A set for a document of `shingles` shingles, whose text is at most
    /// `u32::MAX` bytes long (a slot holds a start in 32 bits).
    pub fn new(shingles: usize) -> Large {
        // Room for three eighths of them distinct before the first growth
        // (the table grows at three quarters full): large texts repeat
        // themselves, and a table sized for every shingle distinct cost
        // more in page faults than growing does.
        let capacity = (shingles / 2).next_power_of_two().max(1 << 10);
        Large {
            table: Large::table(capacity),
            count: 0,
            run: None,
            holds: true,
        }
    }

    /// The slot where a probe for base hash `h0` starts: its top bits.
    fn home(&self, h0: u64) -> usize {
        (h0 >> (32 - self.table.len().trailing_zeros())) as usize
    }

    /// Inserts the shingles `first..` with these spans in `text` and keys,
    /// in text order, pushing `h0` of each new one to `hashes`.
    pub fn insert(
        &mut self,
        text: &[u8],
        first: usize,
        spans: &[(usize, usize)],
        keys: &[u64],
        hashes: &mut Vec<u32>,
    ) {
        // Each insert is a cache miss in a large table; fetching the slot
        // a few keys ahead overlaps them. (BIG_A, median of 9: 16 ahead
        // 0.687 s, 32 ahead 0.672, 64 ahead 0.678.)
        const AHEAD: usize = 32;
        for (i, (&key, &(start, end))) in keys.iter().zip(spans).enumerate() {
            if let Some(&ahead) = keys.get(i + AHEAD) {
                let at = self.home(ahead >> 32);
                crate::backend::prefetch(self.table.as_ptr().wrapping_add(at));
            }
            if 4 * self.count >= 3 * self.table.len() {
                self.grow();
            }
            let (h0, mask) = (key >> 32, self.table.len() - 1);
            let mut at = self.home(h0);
            loop {
                let slot = self.table[at];
                if slot == 0 {
                    self.table[at] = h0 << 32 | (start as u64 + 1);
                    self.count += 1;
                    hashes.push(h0 as u32);
                    break;
                }
                if slot >> 32 == h0
                    && self.claim(text, (slot as u32 - 1) as usize, first + i, start, end)
                {
                    break;
                }
                at = (at + 1) & mask;
            }
        }
    }

    /// Shingle `i` at `start..end` has the base hash of the one at `was`:
    /// whether it is taken to be the same. A claim that extends the open
    /// run is (and is checked with the run); any other is checked now.
    fn claim(&mut self, text: &[u8], was: usize, i: usize, start: usize, end: usize) -> bool {
        let back = start - was;
        if let Some(run) = &mut self.run {
            if run.next == i && run.back == back {
                run.to = end;
                run.next = i + 1;
                return true;
            }
        }
        if !Large::equal(text, back, start, end) {
            return false;
        }
        self.close(text);
        self.run = Some(Run {
            back,
            from: start,
            to: end,
            next: i + 1,
        });
        true
    }

    /// Whether the words `from..to` of `text` are the words `back` bytes
    /// before them: the same bytes, and there too a word ends at `to`.
    /// (Both start a word; `to - back` is inside the text.)
    fn equal(text: &[u8], back: usize, from: usize, to: usize) -> bool {
        text[to - back] == b' ' && text[from - back..to - back] == text[from..to]
    }

    /// Checks the open run, if any.
    fn close(&mut self, text: &[u8]) {
        if let Some(r) = self.run.take() {
            self.holds &= Large::equal(text, r.back, r.from, r.to);
        }
    }

    /// An empty table of `capacity` slots, on huge pages where the kernel
    /// gives them: a large document's table is probed at random.
    fn table(capacity: usize) -> Vec<u64> {
        // Zeroed by the allocator (fresh pages for a large table), so no
        // page is touched before the advice.
        let table = vec![0; capacity];
        crate::backend::advise_huge_pages(&table);
        table
    }

    fn grow(&mut self) {
        let bigger = Large::table(2 * self.table.len());
        let old = std::mem::replace(&mut self.table, bigger);
        let mask = self.table.len() - 1;
        for slot in old.into_iter().filter(|&slot| slot != 0) {
            let mut at = self.home(slot >> 32);
            while self.table[at] != 0 {
                at = (at + 1) & mask;
            }
            self.table[at] = slot;
        }
    }

    /// The number of distinct shingles, or `None` when a run's claims did
    /// not hold (two different shingles with one `h0` one run's distance
    /// apart: never seen, but possible), and the caller must start over
    /// comparing strings.
    pub fn finish(mut self, text: &[u8]) -> Option<usize> {
        self.close(text);
        self.holds.then_some(self.count)
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

    /// Two-word shingles of `text` and keys whose `h0` is a hash of the
    /// string: equal for equal strings.
    fn two_word_shingles(text: &[u8]) -> (Vec<(usize, usize)>, Vec<u64>) {
        let spans: Vec<(usize, usize)> = (0..text.len())
            .filter(|&i| i == 0 || text[i - 1] == b' ')
            .filter_map(|s| {
                let e1 = s + text[s..].iter().position(|&b| b == b' ')?;
                let e2 = text[e1 + 1..]
                    .iter()
                    .position(|&b| b == b' ')
                    .map_or(text.len(), |p| e1 + 1 + p);
                Some((s, e2))
            })
            .collect();
        let key = |&(s, e): &(usize, usize)| -> u64 {
            let h = text[s..e].iter().fold(7u32, |h, &b| {
                h.wrapping_mul(0x9e37_79b9).wrapping_add(u32::from(b))
            });
            u64::from(h) << 32 | 0x5555
        };
        let keys = spans.iter().map(key).collect();
        (spans, keys)
    }

    /// Runs of claims and broken runs, checked against the strings; a
    /// claim that starts a run is checked at once, one that extends a run
    /// with the run.
    #[test]
    fn large_sets_check_claims_in_runs() {
        let text = b"a b c d a b c d x a b c d";
        let (spans, keys) = two_word_shingles(text);
        let mut set = Large::new(4);
        let mut hashes = Vec::new();
        // In two calls, as the signer feeds chunks.
        set.insert(text, 0, &spans[..5], &keys[..5], &mut hashes);
        set.insert(text, 5, &spans[5..], &keys[5..], &mut hashes);
        // a b, b c, c d, d a, d x, x a: six distinct.
        assert_eq!(set.finish(text), Some(6));
        assert_eq!(hashes.len(), 6);

        // "x a" given the key of "a b": a claim that starts a run, checked
        // at once; the probe goes on and "x a" is a shingle of its own.
        let mut forged = keys.clone();
        let xa = spans.iter().position(|&(s, _)| text[s] == b'x').unwrap();
        forged[xa] = keys[0];
        let mut set = Large::new(4);
        set.insert(text, 0, &spans, &forged, &mut Vec::new());
        assert_eq!(set.finish(text), Some(6));

        // "b d" given the key of "b c", one run's distance after it: the
        // run's check fails, and the caller must start over.
        let text = b"a b c a b d";
        let (spans, mut keys) = two_word_shingles(text);
        keys[4] = keys[1];
        let mut set = Large::new(4);
        set.insert(text, 0, &spans, &keys, &mut Vec::new());
        assert_eq!(set.finish(text), None);

        // One key for "ab cd" and "ab c", which starts it: still two
        // shingles (three distinct in all).
        let text = b"ab cd ab c";
        let spans = [(0, 5), (3, 8), (6, 10)];
        let mut set = Large::new(2);
        set.insert(
            text,
            0,
            &spans,
            &[1 << 32, 2 << 32, 1 << 32],
            &mut Vec::new(),
        );
        assert_eq!(set.finish(text), Some(3));
    }

    #[test]
    fn large_sets_grow() {
        let text: Vec<u8> = b"w ".repeat(5000);
        let spans: Vec<(usize, usize)> = (0..4999).map(|i| (2 * i, 2 * i + 1)).collect();
        // All distinct keys (as if the words differed), far beyond the
        // first capacity; then the same keys again as one long run.
        let keys: Vec<u64> = (0..4999u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        let mut set = Large::new(1);
        set.insert(&text, 0, &spans, &keys, &mut Vec::new());
        assert_eq!(set.count, 4999);
        assert!(set.table.len() >= 4 * 4999 / 3);
        let mut set = Large::new(1);
        let mut hashes = Vec::new();
        set.insert(&text, 0, &spans[..10], &keys[..10], &mut hashes);
        let again: Vec<(usize, usize)> =
            spans[..10].iter().map(|&(s, e)| (s + 20, e + 20)).collect();
        set.insert(&text, 10, &again, &keys[..10], &mut hashes);
        assert_eq!((set.finish(&text), hashes.len()), (Some(10), 10));
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
