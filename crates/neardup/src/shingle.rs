//! Word K-shingles and the distinct shingle set (SPEC §2).

use std::borrow::Cow;
use std::collections::hash_map::Entry as Entry_;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::{Backend, Containment, WordRule};

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
/// so two different shingles whose hashes collide still count twice.
///
/// Each shingle is keyed by the first 8 bytes of its SHA-256, which the
/// signature needs anyway (`h0` is the top half). Deduplicating on that key
/// needs no second hash; two shingles with equal keys are compared as
/// strings, so the set stays exact even on a 64-bit collision.
#[derive(Debug, Clone, Default)]
pub struct ShingleSet<'a> {
    /// Borrowed for a one-off comparison; owned by a [`crate::Doc`], which
    /// a binding holds without a lifetime.
    normalized: Cow<'a, str>,
    /// The word text ([`WordRule::word_text`]) when it is not the
    /// normalized text itself: the text the shingles are slices of.
    spaced: Option<String>,
    words: WordRule,
    k: usize,
    /// The backend that hashed the shingles, which signs them too
    /// ([`crate::Fingerprint::of_set`]): one choice covers a document.
    backend: Backend,
    /// One entry per distinct shingle, the first occurrence.
    distinct: Vec<Entry>,
}

/// A shingle: its SHA-256 key and its span in the normalized text, packed
/// into 16 bytes so that documents of millions of shingles stay compact
/// (a [`PackedSpan`]: texts up to 1 TiB). A longer shingle's length does not fit,
/// and its end is found again by counting `k` words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    key: u64,
    span: u64,
}

impl Entry {
    fn new(key: u64, start: usize, end: usize) -> Entry {
        Entry {
            key,
            span: PackedSpan::pack(start, end),
        }
    }

    fn start(self) -> usize {
        PackedSpan::start(self.span)
    }

    fn len(self) -> Option<usize> {
        PackedSpan::len(self.span)
    }
}

/// A shingle's start and length packed into one word, start + 1 in the low
/// 40 bits (so that zero means none) and the length in the high 24; a
/// length that does not fit is stored as [`PackedSpan::LONG`].
struct PackedSpan;

impl PackedSpan {
    const START_BITS: u32 = 40;
    const LONG: u64 = (1 << 24) - 1;

    fn pack(start: usize, end: usize) -> u64 {
        let len = ((end - start) as u64).min(PackedSpan::LONG);
        len << PackedSpan::START_BITS | (start as u64 + 1)
    }

    fn start(span: u64) -> usize {
        (span & ((1 << PackedSpan::START_BITS) - 1)) as usize - 1
    }

    fn len(span: u64) -> Option<usize> {
        let len = span >> PackedSpan::START_BITS;
        (len != PackedSpan::LONG).then_some(len as usize)
    }
}

/// Shingles are hashed in chunks of this many, to feed the lanes of the
/// multi-buffer SHA-256 without holding every shingle's string at once.
const CHUNK: usize = 1024;

/// Documents up to this many shingles are deduplicated in one table;
/// larger ones are first split by key prefix into partitions of about this
/// size, so that each table stays in cache instead of missing on every
/// insert.
const PARTITION: usize = 1 << 15;

impl<'a> ShingleSet<'a> {
    /// Collects the distinct `k`-shingles of `normalized`.
    ///
    /// ```
    /// use neardup::ShingleSet;
    /// let s = ShingleSet::new("to be or not to be", 2);
    /// assert_eq!(s.len(), 4); // "to be" appears twice
    /// ```
    pub fn new(normalized: &'a str, k: usize) -> ShingleSet<'a> {
        ShingleSet::with_backend(normalized, k, Backend::detect())
    }

    /// [`ShingleSet::new`] on a chosen backend, which the set keeps
    /// ([`ShingleSet::backend`]) so that its signature is computed on the
    /// same one.
    pub fn with_backend(normalized: &'a str, k: usize, backend: Backend) -> ShingleSet<'a> {
        ShingleSet::with_words(normalized, k, WordRule::Space, backend)
    }

    /// [`ShingleSet::with_backend`] of a normalized text it keeps.
    pub fn owned(normalized: String, k: usize, backend: Backend) -> ShingleSet<'static> {
        ShingleSet::with_words(normalized, k, WordRule::Space, backend)
    }

    /// The distinct `k`-shingles of `normalized`'s words under `words`
    /// (SPEC §2, or §11's script words), borrowing or keeping the text.
    ///
    /// ```
    /// use neardup::{Backend, ShingleSet, WordRule};
    /// let s = ShingleSet::with_words("你好世界 ok", 2, WordRule::Script, Backend::detect());
    /// assert_eq!(s.normalized(), "你好世界 ok");
    /// assert_eq!(s.word_text(), "你 好 世 界 ok");
    /// assert_eq!(s.len(), 4);
    /// assert_eq!(ShingleSet::new("你好世界 ok", 2).len(), 1);
    /// ```
    pub fn with_words(
        normalized: impl Into<Cow<'a, str>>,
        k: usize,
        words: WordRule,
        backend: Backend,
    ) -> ShingleSet<'a> {
        let normalized = normalized.into();
        let spaced = match words.word_text(&normalized) {
            Cow::Borrowed(_) => None,
            Cow::Owned(spaced) => Some(spaced),
        };
        ShingleSet::build(normalized, spaced, words, k, backend)
    }

    /// The word rule the shingles were cut with.
    pub fn words(&self) -> WordRule {
        self.words
    }

    /// The text the shingles are slices of: the normalized text, or its
    /// script word text ([`WordRule::word_text`]).
    pub fn word_text(&self) -> &str {
        self.spaced.as_deref().unwrap_or(&self.normalized)
    }

    /// The shingle size `K`, in words.
    pub fn k(&self) -> usize {
        self.k
    }

    /// The normalized text (SPEC §1), whose SHA-256 a receipt records.
    pub fn normalized(&self) -> &str {
        &self.normalized
    }

    fn build(
        normalized: Cow<'a, str>,
        spaced: Option<String>,
        words: WordRule,
        k: usize,
        backend: Backend,
    ) -> ShingleSet<'a> {
        let text: &str = spaced.as_deref().unwrap_or(&normalized);
        let k = k.max(1);
        let total = shingle_count(text.as_bytes(), k);
        let bits = (total / PARTITION)
            .max(1)
            .next_power_of_two()
            .trailing_zeros();
        let partitions = 1usize << bits;
        let shift = 64 - bits;
        let mut parts: Vec<Vec<Entry>> = (0..partitions)
            .map(|_| Vec::with_capacity(total / partitions + total / partitions / 8 + 16))
            .collect();

        let mut spans = Vec::with_capacity(CHUNK);
        let mut keys = Vec::with_capacity(CHUNK);
        let mut flush = |spans: &mut Vec<(usize, usize)>| {
            keys.clear();
            backend.keys(text.as_bytes(), spans, &mut keys);
            for (&key, &(start, end)) in keys.iter().zip(spans.iter()) {
                // `checked_shr` because a shift by 64 (one partition) is
                // not defined on u64.
                let p = key.checked_shr(shift).unwrap_or(0) as usize;
                parts[p].push(Entry::new(key, start, end));
            }
            spans.clear();
        };
        for_each_span(text.as_bytes(), k, |start, end| {
            spans.push((start, end));
            if spans.len() == CHUNK {
                flush(&mut spans);
            }
        });
        flush(&mut spans);

        let mut set = ShingleSet {
            normalized,
            spaced,
            words,
            k,
            backend,
            distinct: Vec::with_capacity(total),
        };
        let mut first: HashMap<u64, usize, BuildHasherDefault<KeyHasher>> = HashMap::default();
        let mut claims = Vec::new();
        for part in parts {
            first.clear();
            first.reserve(part.len());
            claims.clear();
            let base = set.distinct.len();
            for &e in &part {
                match first.entry(e.key) {
                    Entry_::Vacant(v) => {
                        v.insert(set.distinct.len());
                        set.distinct.push(e);
                    }
                    Entry_::Occupied(o) => claims.push((set.distinct[*o.get()], e)),
                }
            }
            // An equal key claims an equal string; check every claim.
            // Checking them apart from the table, as independent
            // iterations, lets the CPU overlap the cache misses of a large
            // text instead of taking them one by one.
            if !claims.iter().all(|&(a, b)| set.text(a) == set.text(b)) {
                // Two different shingles share a 64-bit key (never seen,
                // but possible): redo this partition comparing strings.
                set.distinct.truncate(base);
                set.add_exactly(base, &part);
            }
        }
        set
    }

    /// Adds the entries of one partition comparing strings on every equal
    /// key, keeping different strings with one key as different shingles.
    /// Entries with one key share a partition, whose entries start at
    /// `base` in `distinct`.
    fn add_exactly(&mut self, base: usize, entries: &[Entry]) {
        for &e in entries {
            let s = self.text(e);
            if !self.distinct[base..]
                .iter()
                .any(|&d| d.key == e.key && self.text(d) == s)
            {
                self.distinct.push(e);
            }
        }
    }

    /// The text of an entry.
    fn text(&self, e: Entry) -> &str {
        let rest = &self.word_text()[e.start()..];
        let len = e.len().unwrap_or_else(|| {
            let end = memchr::memchr_iter(b' ', rest.as_bytes()).nth(self.k - 1);
            end.unwrap_or(rest.len())
        });
        &rest[..len]
    }

    /// The backend the set was built on, and that signs it.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The number of distinct shingles, the receipt's `shingles`.
    pub fn len(&self) -> usize {
        self.distinct.len()
    }

    /// Whether the text had fewer than `k` words.
    pub fn is_empty(&self) -> bool {
        self.distinct.is_empty()
    }

    /// The distinct shingles, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.distinct.iter().map(|&e| self.text(e))
    }

    /// The 64-bit keys (the first 8 bytes of each shingle's SHA-256) of the
    /// distinct shingles, ascending, a key shared by two different
    /// shingles once: what a scan's containment join intersects
    /// ([`crate::scan::contained`]).
    pub fn keys(&self) -> Vec<u64> {
        let mut keys: Vec<u64> = self.distinct.iter().map(|e| e.key).collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    /// `h0` of every distinct shingle (SPEC §3): the top half of its key.
    pub fn base_hashes(&self) -> Vec<u32> {
        self.distinct.iter().map(|e| (e.key >> 32) as u32).collect()
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
        self.containment(other).jaccard()
    }

    /// How much of each set is found in the other: `|A ∩ B|` with both
    /// sizes ([`Containment`]), exact like [`ShingleSet::jaccard`].
    pub fn containment(&self, other: &ShingleSet<'_>) -> Containment {
        let shared = self.intersection_len(other) as u64;
        Containment::new(shared, [self.len() as u64, other.len() as u64])
    }

    /// `|A ∩ B|`, by merging the two key-sorted entry lists. Entries with
    /// equal keys are compared as strings, so the count is exact.
    fn intersection_len(&self, other: &ShingleSet<'_>) -> usize {
        let sorted = |s: &ShingleSet<'_>| {
            let mut v = s.distinct.clone();
            v.sort_unstable_by_key(|e| e.key);
            v
        };
        let (a, b) = (sorted(self), sorted(other));
        let (mut i, mut j, mut both) = (0, 0, 0);
        while i < a.len() && j < b.len() {
            match a[i].key.cmp(&b[j].key) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    let key = a[i].key;
                    let ea = a[i..].iter().take_while(|e| e.key == key).count();
                    let eb = b[j..].iter().take_while(|e| e.key == key).count();
                    // Within one set the strings of a key group differ, so
                    // each string of A matches at most one of B.
                    for x in &a[i..i + ea] {
                        let s = self.text(*x);
                        both += b[j..j + eb].iter().any(|&y| other.text(y) == s) as usize;
                    }
                    i += ea;
                    j += eb;
                }
            }
        }
        both
    }
}

/// The number of shingles (duplicates included) of a normalized text.
pub(crate) fn shingle_count(normalized: &[u8], k: usize) -> usize {
    if normalized.is_empty() {
        return 0;
    }
    let words = memchr::memchr_iter(b' ', normalized).count() + 1;
    (words + 1).saturating_sub(k)
}

/// Calls `f(start, end)` for the byte span of every shingle, in order: the
/// fast twin of [`shingles`], finding word boundaries eight bytes at a time.
pub(crate) fn for_each_span(normalized: &[u8], k: usize, mut f: impl FnMut(usize, usize)) {
    if normalized.is_empty() {
        return;
    }
    // The starts of the last `k` words, in a ring; `next` is the oldest,
    // the one to overwrite (wrapped by a compare: `% k` divides, and a
    // division per word cost more than finding the words).
    let mut ring = vec![0usize; k];
    let (mut next, mut seen, mut start) = (0usize, 0usize, 0usize);
    let mut word_end = |end: usize| {
        ring[next] = start;
        next += 1;
        if next == k {
            next = 0;
        }
        seen += 1;
        if seen >= k {
            f(ring[next], end);
        }
        start = end + 1;
    };
    for_each_space(normalized, &mut word_end);
    word_end(normalized.len());
}

/// Calls `f(i)` for every space `text[i]`, in order. Words are short, so
/// `memchr`, made for rare hits, would stop at nearly every call; here a
/// word of eight bytes becomes a mask of its spaces (SWAR: a byte XOR ' ' is
/// zero exactly at a space) and the mask's bits are visited.
fn for_each_space(text: &[u8], mut f: impl FnMut(usize)) {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let mut words = text.chunks_exact(8);
    for (w, word) in (&mut words).enumerate() {
        let x = u64::from_le_bytes(word.try_into().unwrap_or([0; 8])) ^ 0x2020_2020_2020_2020;
        // High bit of each byte set where that byte of x is zero.
        let mut spaces = !(((x & LOW7) + LOW7) | x | LOW7);
        while spaces != 0 {
            f(8 * w + spaces.trailing_zeros() as usize / 8);
            spaces &= spaces - 1;
        }
    }
    let base = text.len() - words.remainder().len();
    for (i, &b) in words.remainder().iter().enumerate() {
        if b == b' ' {
            f(base + i);
        }
    }
}

/// The set's table is keyed by SHA-256 bits, which are already uniform: the
/// hasher passes them through instead of hashing them again.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used; this keeps the trait contract anyway.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = key;
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
        assert_eq!(ShingleSet::new("x y x", 1).iter().count(), 2);
    }

    #[test]
    fn multibyte_words() {
        let got: Vec<_> = shingles("ας βγ δ", 2).collect();
        assert_eq!(got, ["ας βγ", "βγ δ"]);
    }

    #[test]
    fn spans_match_the_reference_iterator() {
        for text in [
            "",
            "a",
            "a b",
            "a b c d e f",
            "ab cd ab cd ab",
            "ας βγ δ ας βγ",
            "a ! \u{a0}\u{a0} bc defgh ijklmnop qrstuvwx yz 0 12345678 9 ~ \u{7f}",
        ] {
            for k in 1..5 {
                let mut fast = Vec::new();
                for_each_span(text.as_bytes(), k, |s, e| fast.push(&text[s..e]));
                assert_eq!(
                    fast,
                    shingles(text, k).collect::<Vec<_>>(),
                    "{text:?} k={k}"
                );
                assert_eq!(shingle_count(text.as_bytes(), k), fast.len());
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "98,000 shingles hashed: slow under Miri")]
    fn every_backend_and_partitioning_gives_the_same_set() {
        // Enough shingles to be split into several partitions.
        let words: Vec<String> = (0..3 * PARTITION)
            .map(|i| format!("w{}", i % 70_000))
            .collect();
        let text = words.join(" ");
        let mut want: Vec<&str> = shingles(&text, 2).collect();
        want.sort_unstable();
        want.dedup();
        for backend in Backend::supported() {
            let set = ShingleSet::with_backend(&text, 2, backend);
            assert_eq!(set.backend(), backend);
            let mut got: Vec<&str> = set.iter().collect();
            got.sort_unstable();
            assert_eq!(got, want, "{backend:?}");
        }
    }

    #[test]
    fn equal_keys_with_different_strings_stay_apart() {
        let mut set = ShingleSet {
            normalized: "a b a c".into(),
            spaced: None,
            words: WordRule::Space,
            k: 1,
            backend: Backend::portable(),
            distinct: Vec::new(),
        };
        // Pretend every word hashed to the same key.
        let entries: Vec<Entry> = [0, 2, 4, 6]
            .map(|start| Entry::new(9, start, start + 1))
            .to_vec();
        set.add_exactly(0, &entries);
        let got: Vec<&str> = set.iter().collect();
        assert_eq!(got, ["a", "b", "c"]);
    }

    #[test]
    fn jaccard_of_empty_sets_is_undefined() {
        let e = ShingleSet::new("", 5);
        assert_eq!(e.jaccard(&e), None);
        assert_eq!(e.jaccard(&ShingleSet::new("a b c d e", 5)), Some(0.0));
    }
}
