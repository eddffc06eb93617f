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
/// Claimed duplicates are checked in runs: a repeated passage gives
/// consecutive shingles whose first occurrences are consecutive too, at one
/// distance back in the text. The claims of such a run hold exactly when
/// the two passages are equal, one comparison of two contiguous ranges, so
/// the text is read in order instead of at a random place per claim.
#[derive(Debug)]
pub(crate) struct Large {
    /// Key and [`PackedSpan`] of each distinct shingle; a zero span is empty.
    table: Vec<(u64, u64)>,
    count: usize,
    run: Option<Run>,
    /// No claim has failed so far.
    holds: bool,
}

/// Claims of consecutive shingles whose first occurrences lie `back` bytes
/// before them: the text `from..to` must equal the text `back` bytes back.
#[derive(Debug, Clone, Copy)]
struct Run {
    back: usize,
    from: usize,
    to: usize,
    /// The shingle that would extend the run.
    next: usize,
}

/// A shingle's start and length packed into one word, start + 1 in the low
/// 40 bits (so that zero means none) and the length in the high 24; a
/// length that does not fit is stored as [`PackedSpan::LONG`]. Also the span of
/// a [`crate::ShingleSet`]'s entries.
pub(crate) struct PackedSpan;

impl PackedSpan {
    const START_BITS: u32 = 40;
    const LONG: u64 = (1 << 24) - 1;

    pub(crate) fn pack(start: usize, end: usize) -> u64 {
        let len = ((end - start) as u64).min(PackedSpan::LONG);
        len << PackedSpan::START_BITS | (start as u64 + 1)
    }

    pub(crate) fn start(span: u64) -> usize {
        (span & ((1 << PackedSpan::START_BITS) - 1)) as usize - 1
    }

    pub(crate) fn len(span: u64) -> Option<usize> {
        let len = span >> PackedSpan::START_BITS;
        (len != PackedSpan::LONG).then_some(len as usize)
    }
}

impl Large {
    /// A set for a document of `shingles` shingles.
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
        // a few keys ahead overlaps them.
        const AHEAD: usize = 16;
        for (i, (&key, &(start, end))) in keys.iter().zip(spans).enumerate() {
            if let Some(&ahead) = keys.get(i + AHEAD) {
                let mask = self.table.len() - 1;
                crate::backend::prefetch(self.table.as_ptr().wrapping_add(ahead as usize & mask));
            }
            if 4 * self.count >= 3 * self.table.len() {
                self.grow();
            }
            let mask = self.table.len() - 1;
            let mut at = key as usize & mask;
            loop {
                let (k, span) = self.table[at];
                if span == 0 {
                    self.table[at] = (key, PackedSpan::pack(start, end));
                    self.count += 1;
                    hashes.push((key >> 32) as u32);
                    break;
                }
                if k == key {
                    self.claim(text, span, first + i, start, end);
                    break;
                }
                at = (at + 1) & mask;
            }
        }
    }

    /// Shingle `i` at `start..end` has the key of the one at `span`.
    fn claim(&mut self, text: &[u8], span: u64, i: usize, start: usize, end: usize) {
        let (was, len) = (PackedSpan::start(span), PackedSpan::len(span));
        if len != Some(end - start) || end - start >= PackedSpan::LONG as usize {
            // Different lengths are different strings; a shingle too long
            // for a span is checked on its own (after the run, in order).
            self.close(text);
            self.holds &= len.is_none() && {
                let rest = &text[was..];
                let mut spaces = rest.iter().enumerate().filter(|&(_, &b)| b == b' ');
                let words = text[start..end].iter().filter(|&&b| b == b' ').count();
                let len = spaces.nth(words).map_or(rest.len(), |(j, _)| j);
                text[was..was + len] == text[start..end]
            };
            return;
        }
        let back = start - was;
        match &mut self.run {
            Some(run) if run.next == i && run.back == back => {
                run.to = end;
                run.next = i + 1;
            }
            _ => {
                self.close(text);
                self.run = Some(Run {
                    back,
                    from: start,
                    to: end,
                    next: i + 1,
                });
            }
        }
    }

    /// Checks the open run, if any.
    fn close(&mut self, text: &[u8]) {
        if let Some(r) = self.run.take() {
            self.holds &= text[r.from - r.back..r.to - r.back] == text[r.from..r.to];
        }
    }

    /// An empty table of `capacity` slots, on huge pages where the kernel
    /// gives them: a large document's table is probed at random.
    fn table(capacity: usize) -> Vec<(u64, u64)> {
        // Zeroed by the allocator (fresh pages for a large table), so no
        // page is touched before the advice.
        let table = vec![(0, 0); capacity];
        crate::backend::advise_huge_pages(&table);
        table
    }

    fn grow(&mut self) {
        let bigger = Large::table(2 * self.table.len());
        let old = std::mem::replace(&mut self.table, bigger);
        let mask = self.table.len() - 1;
        for (key, span) in old.into_iter().filter(|&(_, span)| span != 0) {
            let mut at = key as usize & mask;
            while self.table[at].1 != 0 {
                at = (at + 1) & mask;
            }
            self.table[at] = (key, span);
        }
    }

    /// The number of distinct shingles, or `None` when two different ones
    /// share a key (never seen, but possible), and the caller must start
    /// over comparing strings.
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

    /// Runs of claims, broken runs, a claim of another length and a
    /// long shingle, checked against the strings.
    #[test]
    fn large_sets_check_claims_in_runs() {
        let text = b"a b c d a b c d x a b c d";
        // Shingles of 2 words and fake keys: equal keys for equal strings,
        // except where a test says otherwise.
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
            text[s..e].iter().fold(7, |h, &b| h * 31 + u64::from(b))
        };
        let keys: Vec<u64> = spans.iter().map(key).collect();
        let mut set = Large::new(4);
        let mut hashes = Vec::new();
        // In two calls, as the signer feeds chunks.
        set.insert(text, 0, &spans[..5], &keys[..5], &mut hashes);
        set.insert(text, 5, &spans[5..], &keys[5..], &mut hashes);
        // a b, b c, c d, d a, d x, x a: six distinct.
        assert_eq!(set.finish(text), Some(6));
        assert_eq!(hashes.len(), 6);

        // "x a" given the key of "a b": same length, other string.
        let mut forged = keys.clone();
        let xa = spans.iter().position(|&(s, _)| text[s] == b'x').unwrap();
        forged[xa] = keys[0];
        let mut set = Large::new(4);
        set.insert(text, 0, &spans, &forged, &mut Vec::new());
        assert_eq!(set.finish(text), None);

        // A claim between shingles of different lengths never holds.
        let text = b"ab c ab cd";
        let spans = [(0, 4), (3, 7), (5, 10)];
        let mut set = Large::new(2);
        set.insert(text, 0, &spans, &[1, 2, 1], &mut Vec::new());
        assert_eq!(set.finish(text), None);
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
