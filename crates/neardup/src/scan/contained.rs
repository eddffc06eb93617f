//! The containment join of `neardup scan --containment T`: every pair of
//! documents of which one holds at least `T` of the other's distinct
//! shingles, `shared / min(|SA|, |SB|) ≥ T`, found exactly: no pair
//! missed, none below `T`.
//!
//! MinHash bands estimate Jaccard, which stays small when a short text is
//! copied into a long one, so this is a set-similarity join instead, as in
//! AllPairs and PPJoin (Mann, Augsten and Bouros compare them, VLDB 2016),
//! on each document's 64-bit shingle keys ([`crate::ShingleSet::keys`]):
//!
//! 1. **repeated keys** ([`repeated`]): a key held by one document only can
//!    never be shared, so only keys held by two or more become tokens;
//!    they are found a key range at a time ([`PARTS`] ranges), sorting
//!    one range's keys and never all of them at once;
//! 2. **tokens** ([`Vocabulary`]): each repeated key gets a number, the
//!    rarest first, and each document becomes its ascending token list;
//! 3. **probe** ([`Join::probe`]): documents are ranked by size. A document
//!    `x` can only be the smaller side of a pair with a larger `y`, and
//!    needs `⌈T·|Sx|⌉` shared shingles; if it shares that many, `y` holds
//!    one of `x`'s rarest `r - need + 1` tokens (its *prefix*, `r` its
//!    tokens), so only the inverted lists of the prefix are read, and
//!    frequent tokens (boilerplate) come last, where they are rarely read.
//!    Each candidate's count is then completed over the rest of `x`'s
//!    tokens, rarest first, dropping every few tokens the candidates that
//!    can no longer reach the threshold (hundreds of documents may share
//!    a sentence or two with `x`; they go after a few tokens), each token
//!    counted the cheaper way: its inverted list read once, or looked up
//!    in each candidate left. The count is exact.
//!
//! Memory: the keys (8 bytes a distinct shingle), a sixteenth of them
//! sorted at a time, then 4 bytes a repeated shingle for the tokens and
//! as much again for the inverted lists; a probe's counters are one `u32`
//! a document, whatever the length of a list.
//!
//! The keys are 64 bits of SHA-256: two different shingles with one key
//! would count as shared, with a probability below `|SA|·|SB| / 2^64`
//! for a pair (`2^-24` for two texts of a million shingles each).
//!
//! Each stage is a plain function over documents or key ranges, so an
//! engine runs them in parallel; [`run`] is the sequential driver.

use super::{Exact, Outcome, Pair};
use crate::containment::needed;
use crate::{Error, Fingerprint, Threshold};

/// Many lists in one buffer: list `i` is `items[ends[i-1]..ends[i]]`.
/// Millions of small `Vec`s would cost an allocation and 24 bytes each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lists<T> {
    items: Vec<T>,
    ends: Vec<usize>,
}

/// Each document's distinct shingle keys, ascending.
pub type Keys = Lists<u64>;

impl<T: Copy> Lists<T> {
    /// No lists.
    pub fn new() -> Lists<T> {
        Lists {
            items: Vec::new(),
            ends: Vec::new(),
        }
    }

    /// Appends one list.
    pub fn push(&mut self, list: &[T]) {
        self.items.extend_from_slice(list);
        self.ends.push(self.items.len());
    }

    /// List `i`.
    pub fn of(&self, i: u32) -> &[T] {
        let i = i as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.items[start..self.ends[i]]
    }

    /// Appends every list of `other`, in order.
    pub fn append(&mut self, other: &Lists<T>) {
        let base = self.items.len();
        self.items.extend_from_slice(&other.items);
        self.ends.extend(other.ends.iter().map(|e| base + e));
    }

    /// How many lists.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// No lists at all.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The items of all lists.
    pub fn total(&self) -> usize {
        self.items.len()
    }
}

/// The key ranges [`repeated`] works in, one at a time: the top 4 bits.
pub const PARTS: usize = 16;

/// The keys of range `part` (`0..PARTS`) held by two or more of `docs`,
/// ascending, each with how many documents hold it.
pub fn repeated(keys: &Keys, docs: &[u32], part: usize) -> Vec<(u64, u32)> {
    let lo = (part as u64) << 60;
    let in_range = |k: u64| (k >> 60) as usize == part;
    let mut all = Vec::new();
    for &d in docs {
        let list = keys.of(d);
        let start = list.partition_point(|&k| k < lo);
        let len = list[start..].iter().take_while(|&&k| in_range(k)).count();
        all.extend_from_slice(&list[start..start + len]);
    }
    all.sort_unstable();
    all.chunk_by(|x, y| x == y)
        .filter(|same| same.len() > 1)
        .map(|same| (same[0], same.len() as u32))
        .collect()
}

/// The repeated keys, numbered rarest first: a document's tokens, in
/// number order, start with what it shares with the fewest.
#[derive(Debug, Clone, Default)]
pub struct Vocabulary {
    /// Ascending.
    keys: Vec<u64>,
    /// The token of each key.
    tokens: Vec<u32>,
    /// Where the keys of each value of their top `bits` bits start in
    /// `keys`: keys are SHA-256 bits, so uniform, and a lookup is one
    /// bucket of about one key, not a binary search of cache misses.
    starts: Vec<u32>,
    bits: u32,
}

impl Vocabulary {
    /// The vocabulary of every key range's [`repeated`] keys, given in
    /// range order.
    ///
    /// # Errors
    /// More than `u32::MAX` repeated keys.
    pub fn new(parts: impl IntoIterator<Item = Vec<(u64, u32)>>) -> Result<Vocabulary, Error> {
        let mut counted: Vec<(u64, u32)> = Vec::new();
        for part in parts {
            counted.extend(part);
        }
        if u32::try_from(counted.len()).is_err() {
            return Err(Error::TooManyDocuments(counted.len() as u64));
        }
        let mut order: Vec<u32> = (0..counted.len() as u32).collect();
        // Keys are ascending, so the index breaks ties by key.
        order.sort_unstable_by_key(|&i| (counted[i as usize].1, i));
        let mut tokens = vec![0u32; counted.len()];
        for (token, &i) in order.iter().enumerate() {
            tokens[i as usize] = token as u32;
        }
        let keys: Vec<u64> = counted.into_iter().map(|(k, _)| k).collect();
        let bits = (usize::BITS - keys.len().leading_zeros()).clamp(1, 30);
        let mut starts = Vec::with_capacity((1 << bits) + 1);
        let mut at = 0;
        for bucket in 0..=(1u64 << bits) {
            while at < keys.len() && keys[at] >> (64 - bits) < bucket {
                at += 1;
            }
            starts.push(at as u32);
        }
        Ok(Vocabulary {
            keys,
            tokens,
            starts,
            bits,
        })
    }

    /// How many tokens.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// No repeated key at all.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The tokens of a document's ascending `keys`, ascending, into `out`
    /// (cleared first); keys no other document holds have none.
    pub fn tokens(&self, keys: &[u64], out: &mut Vec<u32>) {
        out.clear();
        for &k in keys {
            let bucket = (k >> (64 - self.bits)) as usize;
            let (from, to) = (
                self.starts[bucket] as usize,
                self.starts[bucket + 1] as usize,
            );
            if let Ok(at) = self.keys[from..to].binary_search(&k) {
                out.push(self.tokens[from + at]);
            }
        }
        out.sort_unstable();
    }
}

/// One pair the join found: documents `a < b` and their shared shingles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Found {
    /// The earlier document.
    pub a: u32,
    /// The later document.
    pub b: u32,
    /// `|SA ∩ SB|`.
    pub shared: u64,
}

/// The inverted index of the join and what a probe needs: documents are
/// *members* `0..`, numbered by rank, smallest set first.
#[derive(Debug, Clone)]
pub struct Join {
    /// The document of each member.
    docs: Vec<u32>,
    /// Each member's distinct shingle count.
    sizes: Vec<u64>,
    /// Each document's tokens, ascending, in the order given.
    tokens: Lists<u32>,
    /// Where each member's tokens are in `tokens`.
    slot: Vec<u32>,
    /// Each token's members, ascending.
    postings: Lists<u32>,
    refs: u32,
    threshold: Threshold,
}

/// A probe's counters, one per member, kept between probes so that a
/// probe costs what it reads, not the corpus size.
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    count: Vec<u32>,
    touched: Vec<u32>,
}

impl Join {
    /// The join of `docs` (document numbers, ascending, any subset), each
    /// with its distinct shingle count `sizes[i]` and its tokens
    /// `tokens.of(i)` from a [`Vocabulary`] of `vocabulary` tokens.
    /// Documents `0..refs` are references: two of them never make a pair.
    pub fn new(
        docs: &[u32],
        sizes: &[u64],
        tokens: Lists<u32>,
        vocabulary: usize,
        refs: u32,
        threshold: Threshold,
    ) -> Join {
        let mut order: Vec<u32> = (0..docs.len() as u32).collect();
        order.sort_unstable_by_key(|&i| (sizes[i as usize], docs[i as usize]));
        let mut counts = vec![0usize; vocabulary];
        for &t in &tokens.items {
            counts[t as usize] += 1;
        }
        // Postings in one buffer, filled in rank order, so each list is
        // ascending.
        let mut ends = Vec::with_capacity(vocabulary);
        let mut end = 0;
        for c in &counts {
            end += c;
            ends.push(end);
        }
        let mut next: Vec<usize> = ends.iter().zip(&counts).map(|(e, c)| e - c).collect();
        drop(counts);
        let mut items = vec![0u32; end];
        for (member, &i) in order.iter().enumerate() {
            for &t in tokens.of(i) {
                items[next[t as usize]] = member as u32;
                next[t as usize] += 1;
            }
        }
        Join {
            docs: order.iter().map(|&i| docs[i as usize]).collect(),
            sizes: order.iter().map(|&i| sizes[i as usize]).collect(),
            tokens,
            slot: order,
            postings: Lists { items, ends },
            refs,
            threshold,
        }
    }

    /// Member `m`'s tokens.
    fn tokens_of(&self, m: u32) -> &[u32] {
        self.tokens.of(self.slot[m as usize])
    }

    /// How many members: probe each of `0..members()`.
    pub fn members(&self) -> u32 {
        self.docs.len() as u32
    }

    /// Every pair in which member `x` is the smaller side (the larger side
    /// ranks after it) and reaches the threshold, into `out`.
    pub fn probe(&self, x: u32, scratch: &mut Scratch, out: &mut Vec<Found>) {
        let size = self.sizes[x as usize];
        let mine = self.tokens_of(x);
        let need = needed(size, self.threshold);
        let r = mine.len() as u64;
        if size == 0 || r < need {
            return;
        }
        let (head, tail) = mine.split_at((r - need + 1) as usize);
        if scratch.count.len() < self.docs.len() {
            scratch.count.resize(self.docs.len(), 0);
        }
        let x_ref = self.docs[x as usize] < self.refs;
        let after_x = |list: &'_ [u32]| -> usize { list.partition_point(|&m| m <= x) };
        for &t in head {
            let list = self.postings.of(t);
            for &y in &list[after_x(list)..] {
                if x_ref && self.docs[y as usize] < self.refs {
                    continue;
                }
                let c = &mut scratch.count[y as usize];
                if *c == 0 {
                    scratch.touched.push(y);
                }
                *c += 1;
            }
        }
        // Each candidate's count is completed over the tail, token by
        // token, rarest first. A candidate that can no longer reach `need`
        // (most share a sentence or two with `x`) is dropped every few
        // tokens, so the true ones are soon all that is left; each token
        // is then counted the cheaper way: its inverted list read once, or
        // looked up in each candidate's tokens.
        let count = &mut scratch.count;
        let alive = &mut scratch.touched;
        for (i, &t) in tail.iter().enumerate() {
            if i % PRUNE == 0 {
                let left = (tail.len() - i) as u64;
                alive.retain(|&y| {
                    let reach = u64::from(count[y as usize]) + left >= need;
                    if !reach {
                        count[y as usize] = 0;
                    }
                    reach
                });
                if alive.is_empty() {
                    break;
                }
            }
            let list = self.postings.of(t);
            let list = &list[after_x(list)..];
            if list.len() <= alive.len() * LOOKUP {
                for &y in list {
                    // Only candidates: a pair that reaches `need` shares a
                    // prefix token, and a dropped one's count is 0.
                    let c = &mut count[y as usize];
                    *c += u32::from(*c > 0);
                }
            } else {
                for &y in alive.iter() {
                    let theirs = self.tokens_of(y);
                    count[y as usize] += u32::from(theirs.binary_search(&t).is_ok());
                }
            }
        }
        for &y in alive.iter() {
            let shared = u64::from(std::mem::take(&mut count[y as usize]));
            if shared >= need {
                let (a, b) = (self.docs[x as usize], self.docs[y as usize]);
                out.push(Found {
                    a: a.min(b),
                    b: a.max(b),
                    shared,
                });
            }
        }
        alive.clear();
    }
}

/// A probe drops the candidates that can no longer reach its threshold
/// every this many tokens of its tail.
const PRUNE: usize = 8;
/// A tail token's inverted list is read when it is at most this many
/// times as long as the candidates left; else the token is looked up in
/// each candidate's tokens (a binary search, about as many steps).
const LOOKUP: usize = 8;

/// The join's pairs, found among the representatives of the exact stage,
/// given to every member of their identical groups: a document identical
/// to one that holds an essay holds it too, so each of its pairs is
/// reported as well (`identical`: the exact stage's pairs, each group's
/// first document paired with every other). Two references still make no
/// pair. Sorted.
///
/// ```
/// use neardup::scan::{contained::{with_identical, Found}, Pair};
/// // 0 holds 2; 1 is identical to 0.
/// let found = vec![Found { a: 0, b: 2, shared: 7 }];
/// let got = with_identical(found, &[Pair::new(0, 1, Some(128))], 0);
/// assert_eq!(got, [Found { a: 0, b: 2, shared: 7 }, Found { a: 1, b: 2, shared: 7 }]);
/// ```
pub fn with_identical(found: Vec<Found>, identical: &[Pair], refs: u32) -> Vec<Found> {
    let mut others: std::collections::HashMap<u32, Vec<u32>> = Default::default();
    for p in identical {
        others.entry(p.a).or_default().push(p.b);
    }
    let group = |d: u32| std::iter::once(d).chain(others.get(&d).into_iter().flatten().copied());
    let mut out = Vec::with_capacity(found.len());
    for f in found {
        for a in group(f.a) {
            for b in group(f.b) {
                if !(a < refs && b < refs) {
                    out.push(Found {
                        a: a.min(b),
                        b: a.max(b),
                        shared: f.shared,
                    });
                }
            }
        }
    }
    out.sort_unstable();
    out
}

/// The whole join in memory, on one thread: every pair of `docs` (document
/// numbers, ascending) that reaches `threshold`, sorted. `sizes` and `keys`
/// are indexed by document number.
///
/// ```
/// use neardup::scan::contained::{self, Keys};
/// use neardup::{normalize, ShingleSet, Threshold};
/// let texts = ["a b c d e f g h i j", "x y c d e f z", "q r s t u v"];
/// let sets: Vec<ShingleSet> = texts.iter().map(|t| ShingleSet::new(t, 3)).collect();
/// let mut keys = Keys::new();
/// sets.iter().for_each(|s| keys.push(&s.keys()));
/// let sizes: Vec<u64> = sets.iter().map(|s| s.len() as u64).collect();
/// let found = contained::run(&keys, &sizes, &[0, 1, 2], 0, "0.5".parse()?)?;
/// // "c d e", "d e f": 2 of the second text's 5 shingles, below 0.5.
/// assert!(found.is_empty());
/// let found = contained::run(&keys, &sizes, &[0, 1, 2], 0, "0.4".parse()?)?;
/// assert_eq!((found[0].a, found[0].b, found[0].shared), (0, 1, 2));
/// # Ok::<(), neardup::Error>(())
/// ```
///
/// # Errors
/// More than `u32::MAX` repeated keys.
pub fn run(
    keys: &Keys,
    sizes: &[u64],
    docs: &[u32],
    refs: u32,
    threshold: Threshold,
) -> Result<Vec<Found>, Error> {
    let vocabulary = Vocabulary::new((0..PARTS).map(|p| repeated(keys, docs, p)))?;
    let mut tokens = Lists::new();
    let mut buf = Vec::new();
    for &d in docs {
        vocabulary.tokens(keys.of(d), &mut buf);
        tokens.push(&buf);
    }
    let sizes: Vec<u64> = docs.iter().map(|&d| sizes[d as usize]).collect();
    let join = Join::new(docs, &sizes, tokens, vocabulary.len(), refs, threshold);
    let (mut scratch, mut found) = (Scratch::default(), Vec::new());
    for x in 0..join.members() {
        join.probe(x, &mut scratch, &mut found);
    }
    found.sort_unstable();
    Ok(found)
}

/// The outcome of a scan for containment: the exact stage's pairs (each
/// identical pair shares its whole set) and the join's pairs, found among
/// the representatives and given to their groups ([`with_identical`]),
/// each with its slot matches, clustered by [`Outcome::contained`].
///
/// # Errors
/// More than `u32::MAX` documents.
pub fn outcome(
    fingerprints: &[Fingerprint],
    refs: u32,
    exact: &Exact,
    found: Vec<Found>,
) -> Result<Outcome, Error> {
    let fp = |d: u32| &fingerprints[d as usize];
    let matches =
        |a: u32, b: u32| Some(fp(a).signature.as_ref()?.matches(fp(b).signature.as_ref()?));
    let mut pairs: Vec<Pair> = exact
        .pairs
        .iter()
        .map(|p| p.sharing(fp(p.a).shingles))
        .collect();
    let found = with_identical(found, &exact.pairs, refs);
    pairs.extend(
        found
            .into_iter()
            .map(|f| Pair::new(f.a, f.b, matches(f.a, f.b)).sharing(f.shared)),
    );
    let sizes: Vec<u64> = fingerprints.iter().map(|f| f.shingles).collect();
    Outcome::contained(fingerprints.len(), refs, pairs, &sizes)
}

/// A whole scan for containment in memory, on one thread (the page's):
/// every pair of documents in which one holds at least `threshold` of the
/// other's distinct shingles. `keys` holds each document's
/// [`crate::ShingleSet::keys`]; documents `0..refs` are references.
///
/// ```
/// use neardup::scan::contained::{self, Keys};
/// use neardup::{normalize, Fingerprint, Params, ShingleSet};
/// let source = "one two three four five six seven eight nine ten eleven twelve";
/// let texts = [source, "zero one two three four five six seven", "unrelated words only here today"];
/// let p = Params::DEFAULT;
/// let fps: Vec<Fingerprint> = texts.iter().map(|t| Fingerprint::of(t, p)).collect();
/// let mut keys = Keys::new();
/// texts.iter().for_each(|t| keys.push(&ShingleSet::new(&normalize(t), p.k()).keys()));
/// let out = contained::scan(&fps, &keys, 1, "0.5".parse()?)?;
/// // 3 of the essay's 4 shingles are in the source (0.75).
/// assert_eq!((out.pairs[0].a, out.pairs[0].b, out.pairs[0].shared), (0, 1, Some(3)));
/// assert_eq!(out.dropped, [1]);
/// # Ok::<(), neardup::Error>(())
/// ```
///
/// # Errors
/// More than `u32::MAX` documents or repeated keys, or `refs` past the end.
pub fn scan(
    fingerprints: &[Fingerprint],
    keys: &Keys,
    refs: u32,
    threshold: Threshold,
) -> Result<Outcome, Error> {
    if u32::try_from(fingerprints.len()).is_err() || refs as usize > fingerprints.len() {
        return Err(Error::TooManyDocuments(fingerprints.len() as u64));
    }
    let exact = super::exact(fingerprints, refs);
    let sizes: Vec<u64> = fingerprints.iter().map(|f| f.shingles).collect();
    let docs: Vec<u32> = exact
        .representatives
        .iter()
        .copied()
        .filter(|&d| sizes[d as usize] > 0)
        .collect();
    let found = run(keys, &sizes, &docs, refs, threshold)?;
    outcome(fingerprints, refs, &exact, found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{normalize, Containment, ShingleSet};
    use proptest::prelude::*;

    /// A document of `words` words drawn from `vocab` words, with runs
    /// copied from `source` when given: partial copies of every size.
    fn texts() -> impl Strategy<Value = Vec<String>> {
        let doc = (1usize..300, 2u32..40, any::<u64>());
        prop::collection::vec(doc, 2..14).prop_map(|specs| {
            let mut out: Vec<Vec<String>> = Vec::new();
            for (words, vocab, seed) in specs {
                let mut s = seed | 1;
                let mut next = |n: u64| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    s % n
                };
                let mut doc = Vec::new();
                while doc.len() < words {
                    // A run of an earlier document, or fresh words.
                    if !out.is_empty() && next(2) == 0 {
                        let src = &out[next(out.len() as u64) as usize];
                        let from = next(src.len() as u64) as usize;
                        let len = 1 + next(60) as usize;
                        doc.extend(src[from..(from + len).min(src.len())].iter().cloned());
                    } else {
                        doc.push(format!("w{}", next(u64::from(vocab))));
                    }
                }
                out.push(doc);
            }
            out.into_iter().map(|d| d.join(" ")).collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// The join against every pair's exact containment: no pair
        /// missed, none below the threshold, every count exact; for
        /// thresholds 0.1 to 1, sizes 1 to 300 words (1:50 and more).
        #[test]
        fn the_join_equals_brute_force(
            texts in texts(),
            bp in 1000u32..=10_000,
            k in 1usize..6,
            refs in 0u32..4,
        ) {
            let t = Threshold::from_basis_points(bp).unwrap();
            let normalized: Vec<String> = texts.iter().map(|t| normalize(t)).collect();
            let sets: Vec<ShingleSet> = normalized.iter().map(|n| ShingleSet::new(n, k)).collect();
            let mut keys = Keys::new();
            sets.iter().for_each(|s| keys.push(&s.keys()));
            let sizes: Vec<u64> = sets.iter().map(|s| s.len() as u64).collect();
            let docs: Vec<u32> = (0..texts.len() as u32).collect();
            let refs = refs.min(docs.len() as u32);
            let got = run(&keys, &sizes, &docs, refs, t).unwrap();
            let mut want = Vec::new();
            for a in 0..sets.len() {
                for b in a + 1..sets.len() {
                    if (b as u32) < refs {
                        continue;
                    }
                    let c: Containment = sets[a].containment(&sets[b]);
                    if c.reaches(t) {
                        want.push(Found { a: a as u32, b: b as u32, shared: c.shared });
                    }
                }
            }
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn a_long_posting_list_is_read_once_per_probe() {
        // 2,000 documents, each the same boilerplate and a line of its
        // own: every pair shares the boilerplate, so every pair counts.
        let boiler = "this manual page is part of the project and may be freely copied";
        let texts: Vec<String> = (0..2000)
            .map(|i| format!("{boiler} unique{i} words{i} here{i}"))
            .collect();
        let sets: Vec<ShingleSet> = texts.iter().map(|t| ShingleSet::new(t, 3)).collect();
        let mut keys = Keys::new();
        sets.iter().for_each(|s| keys.push(&s.keys()));
        let sizes: Vec<u64> = sets.iter().map(|s| s.len() as u64).collect();
        let docs: Vec<u32> = (0..2000).collect();
        // 11 of 14 shingles shared: 0.786.
        let at = |t: &str| {
            run(&keys, &sizes, &docs, 0, t.parse().unwrap())
                .unwrap()
                .len()
        };
        assert_eq!(at("0.78"), 2000 * 1999 / 2);
        assert_eq!(at("0.79"), 0);
    }
}
