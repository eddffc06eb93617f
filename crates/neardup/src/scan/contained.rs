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
//! 1. **keys** ([`Keys`]): each document's keys are kept by key range
//!    ([`PARTS`] ranges of their top bits), so that a range can be read,
//!    and freed, on its own;
//! 2. **repeated keys** ([`Part::repeated`]): a key held by one document
//!    only can never be shared, so only keys held by two or more are
//!    kept; sorting one range's keys with their documents gives each
//!    repeated key its documents, its inverted list, at once;
//! 3. **the index** ([`Join::build`]): repeated keys held by exactly the
//!    same documents become one *token*, weighted by how many keys it
//!    stands for, and tokens are numbered rarest first, each with its
//!    documents, its inverted list. Every shingle of a sentence that 40
//!    documents hold, or every shingle two near-duplicates alone share, is
//!    then one list read once instead of one list a shingle: on corpora
//!    built of shared passages (boilerplate, quotes, copies) a tenth of
//!    the lists. Counts stay exact: a document holds all of a token's
//!    keys or none;
//! 4. **probe** ([`Join::probe`]): documents are ranked by size. A document
//!    `x` can only be the smaller side of a pair with a larger `y`, and
//!    needs `⌈T·|Sx|⌉` shared shingles; if it shares that many, `y` holds
//!    one of the rarest of `x`'s tokens that weigh `r - need + 1` (its
//!    *prefix*, `r` the weight of all its tokens), so only the inverted
//!    lists of the prefix are read, and
//!    frequent tokens (boilerplate) come last, where they are rarely read.
//!    Each candidate's count is then completed over the rest of `x`'s
//!    tokens, rarest first, dropping every few tokens the candidates that
//!    can no longer reach the threshold (hundreds of documents may share
//!    a sentence or two with `x`; they go after a few tokens), each token
//!    counted the cheaper way: its inverted list read once, or looked up
//!    in each candidate left. The count is exact.
//!
//! Memory: the keys (8 bytes a distinct shingle), each range freed as
//! soon as it is sorted (12 bytes a key of the one range, in buffers an
//! engine may keep for the next range, [`Sorting`]; an engine may keep the
//! ranges on disk until then); then 12 bytes a repeated key (its
//! list's length and hash) until the tokens are numbered; then 4
//! bytes a document of each token's list, the one structure kept per
//! token: each document's own tokens are rebuilt from them a [`Batch`]
//! of documents at a time (16 bytes a token a document of the batch,
//! [`Held`]), and whether a candidate holds a token is a search of the
//! token's list. A probe's counters are one `u32` a
//! document, whatever the length of a list.
//!
//! The keys are 64 bits of SHA-256: two different shingles with one key
//! would count as shared, with a probability below `|SA|·|SB| / 2^64`
//! for a pair (`2^-24` for two texts of a million shingles each). Keys
//! are grouped into tokens by their lists' length and 64-bit hash: two
//! different lists of one length and hash would be one token, with a
//! probability below `L² / 2^65` for `L` lists, smaller than that of two
//! shingles with one key among the `D > L` distinct shingles (`D² / 2^65`).
//!
//! Each stage is a plain function over documents or key ranges, so an
//! engine runs them in parallel; [`run`] is the sequential driver.

use super::{Exact, Outcome, Pair};
use crate::containment::needed;
use crate::{Error, Fingerprint, Threshold};
use foldhash::fast::FixedState;
use std::collections::HashMap;

/// The key ranges [`Keys`] holds apart: the keys' top 4 bits.
pub const PARTS: u32 = 16;

/// Each document's distinct shingle keys ([`crate::ShingleSet::keys`],
/// [`crate::Signer::sign_all_with_keys`]), in the order the documents are
/// pushed, held by key range so that [`Keys::into_parts`] hands each range
/// to be sorted, and freed, on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keys {
    parts: Vec<Part>,
}

/// One key range of [`Keys`]: each document's keys in the range, in
/// document order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Part {
    keys: Vec<u64>,
    /// How many keys each document has in the range: 4 bytes a document
    /// where offsets would take 8.
    counts: Vec<u32>,
}

impl Default for Keys {
    fn default() -> Keys {
        Keys::new()
    }
}

impl Keys {
    /// No documents.
    pub fn new() -> Keys {
        Keys {
            parts: vec![Part::default(); PARTS as usize],
        }
    }

    /// Adds the next document's distinct keys, in any order.
    pub fn push(&mut self, keys: &[u64]) {
        let before: [usize; PARTS as usize] = std::array::from_fn(|p| self.parts[p].keys.len());
        for &k in keys {
            self.parts[range_of(k, PARTS)].keys.push(k);
        }
        for (part, before) in self.parts.iter_mut().zip(before) {
            // No text has 2^32 shingles in one sixteenth of the key space.
            part.counts.push((part.keys.len() - before) as u32);
        }
    }

    /// The key ranges, in key order.
    pub fn into_parts(self) -> Vec<Part> {
        self.parts
    }
}

/// The key range of `key` among `parts` ranges (a power of two): the
/// value of its top bits.
pub fn range_of(key: u64, parts: u32) -> usize {
    debug_assert!(parts.is_power_of_two() && parts > 1);
    (key >> (64 - parts.trailing_zeros())) as usize
}

/// The keys of one range held by two or more documents, ascending, each
/// with the documents that hold it: [`Part::repeated`]'s result.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Repeated {
    /// How many documents hold each key.
    counts: Vec<u32>,
    /// Each key's documents (positions in the `docs` given, ascending),
    /// one key after the other.
    holders: Vec<u32>,
    /// The hash of each key's documents ([`list_hash`]), which
    /// [`Join::build`] groups keys by.
    lists: Vec<u64>,
}

impl Repeated {
    /// A key range's repeated keys: how many documents hold each, and
    /// their holders, one key after the other (as [`Part::repeated`]
    /// gives them, kept elsewhere and read back for [`Placing::place`],
    /// which needs no hashes).
    pub fn new(counts: Vec<u32>, holders: Vec<u32>) -> Repeated {
        Repeated {
            counts,
            holders,
            lists: Vec::new(),
        }
    }

    /// How many documents hold each key.
    pub fn counts(&self) -> &[u32] {
        &self.counts
    }

    /// Each key's holders, one key after the other.
    pub fn holders(&self) -> &[u32] {
        &self.holders
    }

    /// The hash of each key's holders, for [`Join::build`] (empty when
    /// made by [`Repeated::new`]).
    pub fn lists(&self) -> &[u64] {
        &self.lists
    }
}

/// A 64-bit hash of a list of documents (fixed-seed foldhash): keys
/// with equal lists (and lengths) become one token.
fn list_hash(list: &[u32]) -> u64 {
    use std::hash::BuildHasher;
    foldhash::quality::FixedState::with_seed(0x243F_6A88_85A3_08D3).hash_one(list)
}

impl Part {
    /// A range's keys as an engine kept them: each document's `counts[d]`
    /// keys, one document after the other (what [`Part::push`] makes).
    ///
    /// # Panics
    /// If the counts do not add up to the keys.
    pub fn from_counts(keys: Vec<u64>, counts: Vec<u32>) -> Part {
        let total: u64 = counts.iter().map(|&n| u64::from(n)).sum();
        assert_eq!(total, keys.len() as u64, "a key range's counts and keys");
        Part { keys, counts }
    }

    /// Adds the next document's keys in this range.
    pub fn push(&mut self, keys: &[u64]) {
        self.keys.extend_from_slice(keys);
        // No text has 2^32 shingles in one range of the key space.
        self.counts.push(keys.len() as u32);
    }

    /// The keys of this range held by two or more of `docs` (document
    /// numbers, ascending), with their holders given as positions in
    /// `docs`.
    pub fn repeated(self, docs: &[u32]) -> Repeated {
        self.repeated_with(docs, &mut Sorting::default())
    }

    /// [`Part::repeated`], sorting in `sorting`'s buffers: an engine that
    /// keeps them for its next range (and this range's own, from
    /// [`Part::into_counts`]) touches no fresh memory. Each fresh page is
    /// a fault: 180 MB a range of 1M documents, 2.6M faults and 22 s of
    /// system time for the 64 ranges of a 1M-document scan.
    pub fn repeated_with(&self, docs: &[u32], sorting: &mut Sorting) -> Repeated {
        // Each wanted document's keys, with its position in `docs`.
        let wanted = |each: &mut dyn FnMut(u64, u32)| {
            let (mut at, mut docs) = (0, docs.iter().enumerate().peekable());
            for (d, &n) in self.counts.iter().enumerate() {
                let n = n as usize;
                if let Some((i, _)) = docs.next_if(|&(_, &w)| w as usize == d) {
                    self.keys[at..at + n]
                        .iter()
                        .for_each(|&k| each(k, i as u32));
                }
                at += n;
            }
        };
        let mut out = Repeated::default();
        let (mut n, mut first, mut differ) = (0usize, 0u64, 0u64);
        wanted(&mut |k, _| {
            if n == 0 {
                first = k;
            }
            differ |= k ^ first;
            n += 1;
        });
        if n == 0 {
            return out;
        }
        // Radix buckets of the bits where the keys differ, about four
        // thousand keys a bucket, each sorted in cache as one `u64` a key:
        // its bits below the bucket's, then its place in the bucket. That
        // sorts 8 bytes a key where a `(key, document)` pair is 16, a
        // bucket at a time rather than megabytes: a quarter less time.
        let fixed = differ.leading_zeros();
        let Sorting {
            ends,
            packed,
            owner,
        } = sorting;
        ends.clear();
        ends.push(0);
        let bits = (usize::BITS - n.leading_zeros())
            .saturating_sub(12)
            .clamp(1, 12)
            .min(64 - fixed);
        let bucket = |k: u64| {
            let k = k.checked_shl(fixed).unwrap_or(0);
            k.checked_shr(64 - bits).unwrap_or(0) as usize
        };
        ends.resize((1 << bits) + 1, 0);
        wanted(&mut |k, _| ends[bucket(k) + 1] += 1);
        for b in 1..ends.len() {
            ends[b] += ends[b - 1];
        }
        let place = fixed + bits;
        // Whether a bucket's places fit below its keys' bits.
        let roomy = |len: usize| (len as u64).checked_shr(place).unwrap_or(0) == 0;
        packed.resize(n, 0);
        owner.resize(n, 0);
        let mut starts = ends.clone();
        wanted(&mut |k, i| {
            let b = bucket(k);
            let at = starts[b];
            starts[b] += 1;
            packed[at] = if roomy(ends[b + 1] - ends[b]) {
                k.checked_shl(place).unwrap_or(0) | (at - ends[b]) as u64
            } else {
                k
            };
            owner[at] = i;
        });
        let mut each = |holders: &mut dyn Iterator<Item = u32>| {
            let from = out.holders.len();
            out.holders.extend(holders);
            out.counts.push((out.holders.len() - from) as u32);
            out.lists.push(list_hash(&out.holders[from..]));
        };
        let key_of = |p: u64| p.checked_shr(place).unwrap_or(0);
        let mask = 1u64.checked_shl(place).map_or(u64::MAX, |m| m - 1);
        for range in ends.windows(2) {
            let (packed, owner) = (&mut packed[range[0]..range[1]], &owner[range[0]..range[1]]);
            if roomy(packed.len()) {
                // By key, then place: each key's holders ascending.
                packed.sort_unstable();
                for same in packed.chunk_by(|x, y| key_of(*x) == key_of(*y)) {
                    if same.len() > 1 {
                        each(&mut same.iter().map(|&p| owner[(p & mask) as usize]));
                    }
                }
            } else {
                // More keys than places (one key held by most documents):
                // the bucket's whole keys sorted with their documents.
                let mut pairs: Vec<(u64, u32)> =
                    packed.iter().copied().zip(owner.iter().copied()).collect();
                pairs.sort_unstable();
                for same in pairs.chunk_by(|x, y| x.0 == y.0) {
                    if same.len() > 1 {
                        each(&mut same.iter().map(|&(_, i)| i));
                    }
                }
            }
        }
        out
    }

    /// The keys and counts, for an engine to fill again with the next
    /// range ([`Part::from_counts`]) without fresh memory.
    pub fn into_counts(self) -> (Vec<u64>, Vec<u32>) {
        (self.keys, self.counts)
    }
}

/// The buffers [`Part::repeated_with`] sorts in.
#[derive(Debug, Clone, Default)]
pub struct Sorting {
    ends: Vec<usize>,
    packed: Vec<u64>,
    owner: Vec<u32>,
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
/// *members* `0..`, numbered by rank, smallest set first, and repeated
/// keys held by the same members are one *token*, tokens `0..` numbered
/// rarest first.
///
/// It holds the inverted lists only, 4 bytes a member of a token's list,
/// and each token's weight: a probe's own tokens come from a [`Batch`],
/// and whether a candidate holds a token is a search of the token's list.
#[derive(Debug, Clone)]
pub struct Join {
    /// The document of each member.
    docs: Vec<u32>,
    /// Each member's distinct shingle count.
    sizes: Vec<u64>,
    /// Every token's members, ascending, token after token.
    holders: Vec<u32>,
    /// How many keys each token stands for.
    weights: Vec<u32>,
    /// How many times the members hold a repeated key.
    occurrences: u64,
    /// How many tokens each member holds.
    held_by: Vec<u32>,
    /// The tokens held by one number of members each, in token order:
    /// lists of one length, so a token's list is found by arithmetic, not
    /// by 8 bytes of offset a token.
    groups: Vec<Group>,
    refs: u32,
    threshold: Threshold,
}

/// Tokens `first..` (up to the next group's first), each held by `held`
/// members, their lists from `holders[start..]` on.
#[derive(Debug, Clone, Copy)]
struct Group {
    first: u32,
    held: u32,
    start: usize,
}

impl Group {
    /// Where token `t`, one of the group's, has its list in `holders`.
    fn list(&self, t: u32) -> std::ops::Range<usize> {
        let start = self.start + (t - self.first) as usize * self.held as usize;
        start..start + self.held as usize
    }
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
    /// with its distinct shingle count `sizes[i]`, laid out from every key
    /// range's [`Part::repeated`] of `docs` (its [`Repeated::counts`] and
    /// [`Repeated::lists`], given in range order): each range's holders
    /// are then placed with [`Placing::place`], in the same order, so that
    /// a caller may keep them elsewhere meanwhile. Documents `0..refs` are
    /// references: two of them never make a pair.
    ///
    /// # Errors
    /// More than `u32::MAX` repeated keys.
    pub fn build<'c>(
        docs: &[u32],
        sizes: &[u64],
        ranges: impl IntoIterator<Item = (&'c [u32], &'c [u64])>,
        refs: u32,
        threshold: Threshold,
    ) -> Result<Placing, Error> {
        let mut order: Vec<u32> = (0..docs.len() as u32).collect();
        order.sort_unstable_by_key(|&i| (sizes[i as usize], docs[i as usize]));
        let mut member = vec![0u32; docs.len()];
        for (m, &i) in order.iter().enumerate() {
            member[i as usize] = m as u32;
        }
        // Each distinct list (its length and hash) numbered as first met,
        // then renumbered rarest first, by length (a counting sort).
        // A token's first key is the one whose holders are placed.
        let mut first: HashMap<(u32, u64), u32, FixedState> = HashMap::default();
        let (mut token_of, mut held, mut occurrences) = (Vec::new(), Vec::new(), 0);
        let (mut starts, mut firsts) = (Vec::new(), Bits::default());
        for (counts, lists) in ranges {
            debug_assert_eq!(counts.len(), lists.len());
            starts.push(token_of.len());
            for (&n, &h) in counts.iter().zip(lists) {
                occurrences += u64::from(n);
                let next = held.len() as u32;
                let t = *first.entry((n, h)).or_insert(next);
                firsts.push(t == next);
                if t == next {
                    held.push(n);
                }
                token_of.push(t);
            }
        }
        drop(first);
        if u32::try_from(token_of.len()).is_err() {
            return Err(Error::TooManyDocuments(token_of.len() as u64));
        }
        let mut by_held: Vec<u32> = Vec::new();
        for &n in &held {
            if by_held.len() <= n as usize {
                by_held.resize(n as usize + 1, 0);
            }
            by_held[n as usize] += 1;
        }
        // Where the tokens held n times start, and their groups.
        let (mut groups, mut at, mut next) = (Vec::new(), 0, 0u32);
        for (n, many) in by_held.iter_mut().enumerate().filter(|(_, m)| **m > 0) {
            groups.push(Group {
                first: next,
                held: n as u32,
                start: at,
            });
            at += *many as usize * n;
            (next, *many) = (next + *many, next);
        }
        let renumber: Vec<u32> = held
            .iter()
            .map(|&n| {
                let t = &mut by_held[n as usize];
                *t += 1;
                *t - 1
            })
            .collect();
        let mut weights = vec![0u32; held.len()];
        // The probes read the lists and weights at random: huge pages, or
        // nearly every read also misses the TLB.
        crate::backend::advise_huge_pages(&weights);
        let holders = vec![0u32; at];
        crate::backend::advise_huge_pages(&holders);
        for t in &mut token_of {
            *t = renumber[*t as usize];
            weights[*t as usize] += 1;
        }
        Ok(Placing {
            firsts,
            starts,
            join: Join {
                docs: order.iter().map(|&i| docs[i as usize]).collect(),
                sizes: order.iter().map(|&i| sizes[i as usize]).collect(),
                holders,
                weights,
                occurrences,
                held_by: vec![0; docs.len()],
                groups,
                refs,
                threshold,
            },
            member,
            token_of,
        })
    }

    /// How many members: probe each of `0..members()`.
    pub fn members(&self) -> u32 {
        self.docs.len() as u32
    }

    /// How many tokens: distinct lists of members among the repeated keys.
    pub fn tokens(&self) -> usize {
        self.weights.len()
    }

    /// How many distinct shingles are held by two or more documents.
    pub fn vocabulary(&self) -> u64 {
        self.weights.iter().map(|&w| u64::from(w)).sum()
    }

    /// How many times the members hold a repeated shingle.
    pub fn occurrences(&self) -> u64 {
        self.occurrences
    }

    /// The members, in `parts` batches, for [`Batches::next`].
    pub fn batches(&self, parts: u32) -> Batches {
        Batches {
            cursor: vec![0; self.tokens()],
            next: 0,
            size: self.members().div_ceil(parts.max(1)).max(1),
            spare: None,
        }
    }

    /// Every pair in which member `x` is the smaller side (the larger side
    /// ranks after it) and reaches the threshold, into `out`.
    /// `mine` are `x`'s tokens, from its [`Batch`].
    pub fn probe(&self, x: u32, mine: &[Held], scratch: &mut Scratch, out: &mut Vec<Found>) {
        let size = self.sizes[x as usize];
        let need = needed(size, self.threshold);
        if size == 0 {
            return;
        }
        // Every list's first member after `x` is asked for before any is
        // read: each is a cache miss away, at random among hundreds of
        // megabytes, and started together the misses overlap.
        let mut r = 0u64;
        for held in mine {
            crate::backend::prefetch(self.holders[held.after..].as_ptr());
            r += u64::from(held.weight);
        }
        if r < need {
            return;
        }
        // The prefix: the fewest rarest tokens that weigh `r - need + 1`,
        // so that the rest weigh less than `need`.
        let (mut head, mut left) = (0, r);
        while left >= need {
            left -= u64::from(mine[head].weight);
            head += 1;
        }
        let (head, tail) = mine.split_at(head);
        if scratch.count.len() < self.docs.len() {
            scratch.count.resize(self.docs.len(), 0);
            crate::backend::advise_huge_pages(&scratch.count);
        }
        let x_ref = self.docs[x as usize] < self.refs;
        let after_x = |held: &Held| &self.holders[held.after..held.after + held.len as usize];
        for held in head {
            let w = held.weight;
            for &y in after_x(held) {
                if x_ref && self.docs[y as usize] < self.refs {
                    continue;
                }
                let c = &mut scratch.count[y as usize];
                if *c == 0 {
                    scratch.touched.push(y);
                }
                *c += w;
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
        for (i, held) in tail.iter().enumerate() {
            if i % PRUNE == 0 {
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
            let w = held.weight;
            left -= u64::from(w);
            let list = after_x(held);
            if list.len() <= alive.len() * LOOKUP {
                for &y in list {
                    // Only candidates: a pair that reaches `need` shares a
                    // prefix token, and a dropped one's count is 0.
                    let c = &mut count[y as usize];
                    if *c > 0 {
                        *c += w;
                    }
                }
            } else {
                for &y in alive.iter() {
                    if list.binary_search(&y).is_ok() {
                        count[y as usize] += w;
                    }
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

/// A [`Join`] being filled: each key range's lists made from its
/// holders ([`Placing::lists`], ranges in any order, in parallel), then
/// put in place ([`Placing::put`]).
#[derive(Debug, Clone)]
pub struct Placing {
    join: Join,
    /// The member of each position in `docs`.
    member: Vec<u32>,
    /// The token of each repeated key, in range order.
    token_of: Vec<u32>,
    /// Whether each repeated key is its token's first: the one whose
    /// holders are placed.
    firsts: Bits,
    /// Where each range's keys start among the repeated keys.
    starts: Vec<usize>,
}

/// One key range's part of the inverted lists, made by [`Placing::lists`]
/// for [`Placing::put`].
#[derive(Debug, Clone, Default)]
pub struct Lists {
    /// The tokens whose first key is in the range.
    tokens: Vec<u32>,
    /// Their lists, as members, each ascending, one after the other.
    members: Vec<u32>,
}

impl Placing {
    /// Key range `range`'s part of the lists, from its [`Repeated`] (its
    /// counts as given to [`Join::build`]): the holders of each token's
    /// first key, as members, ascending.
    pub fn lists(&self, range: usize, repeated: &Repeated) -> Lists {
        let mut out = Lists::default();
        let (mut from, mut key) = (0, self.starts[range]);
        for &n in &repeated.counts {
            let n = n as usize;
            if self.firsts.get(key) {
                out.tokens.push(self.token_of[key]);
                let start = out.members.len();
                let holders = &repeated.holders[from..from + n];
                out.members
                    .extend(holders.iter().map(|&i| self.member[i as usize]));
                out.members[start..].sort_unstable();
            }
            from += n;
            key += 1;
        }
        out
    }

    /// Puts one range's [`Lists`] in place.
    pub fn put(&mut self, lists: Lists) {
        let join = &mut self.join;
        let mut from = 0;
        for &t in &lists.tokens {
            let at = join.groups[join.groups.partition_point(|g| g.first <= t) - 1].list(t);
            let list = &lists.members[from..from + at.len()];
            from += at.len();
            join.holders[at].copy_from_slice(list);
            for &m in list {
                join.held_by[m as usize] += 1;
            }
        }
    }

    /// [`Placing::lists`], then [`Placing::put`].
    pub fn place(&mut self, range: usize, repeated: &Repeated) {
        let lists = self.lists(range, repeated);
        self.put(lists);
    }

    /// The join, every range placed.
    pub fn finish(self) -> Join {
        self.join
    }
}

/// A bit a repeated key: an eighth of a `bool`'s bytes.
#[derive(Debug, Clone, Default)]
struct Bits {
    words: Vec<u64>,
    len: usize,
}

impl Bits {
    fn push(&mut self, bit: bool) {
        if self.len.is_multiple_of(64) {
            self.words.push(0);
        }
        *self.words.last_mut().expect("pushed above") |= u64::from(bit) << (self.len % 64);
        self.len += 1;
    }

    fn get(&self, i: usize) -> bool {
        self.words[i / 64] >> (i % 64) & 1 == 1
    }
}

/// The tokens of a batch of members, `members()`, each ascending: what
/// the probes of the batch read as their own.
#[derive(Debug, Clone)]
pub struct Batch {
    from: u32,
    /// Every member's tokens, one member after the other: member
    /// `from + i`'s are `tokens[ends[i-1]..ends[i]]`.
    tokens: Vec<Held>,
    ends: Vec<usize>,
}

/// One of a member's tokens, as its probe reads it: the part of the
/// token's list after the member, and the token's weight. Found while
/// the lists are read in order to make a [`Batch`], they spare a probe a
/// search of each list for itself and a lookup of each weight, cache
/// misses at random that were half its time (1M documents).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Held {
    /// Where the members after this one start in the join's holders.
    after: usize,
    /// How many there are.
    len: u32,
    /// How many keys the token stands for.
    weight: u32,
}

impl Batch {
    /// The batch's members.
    pub fn members(&self) -> std::ops::Range<u32> {
        self.from..self.from + self.ends.len() as u32
    }

    /// Member `x`'s tokens, `x` one of [`Batch::members`].
    pub fn tokens_of(&self, x: u32) -> &[Held] {
        let i = (x - self.from) as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.tokens[start..self.ends[i]]
    }
}

/// The members' tokens a batch at a time, from the inverted lists: each
/// batch reads every list from where the last one stopped (the lists are
/// ascending), so all batches together read them once, and hold a batch's
/// share of them.
#[derive(Debug, Clone)]
pub struct Batches {
    /// How far each token's list has been read: a byte a token, where
    /// [`Batches::FAR`] means "search the list" (few lists are longer).
    cursor: Vec<u8>,
    next: u32,
    size: u32,
    /// A batch probed, whose memory the next one is made in.
    spare: Option<Batch>,
}

impl Batches {
    const FAR: u8 = u8::MAX;

    /// Gives back a batch that is probed, for the next one to be made in
    /// its memory: a batch is hundreds of megabytes at 1M documents, and
    /// fresh memory is a page fault every 4 KiB.
    pub fn recycle(&mut self, batch: Batch) {
        self.spare = Some(batch);
    }

    /// The next batch of `join`'s members, in order, or `None` after the
    /// last.
    pub fn next(&mut self, join: &Join) -> Option<Batch> {
        let from = self.next;
        if from >= join.members() {
            return None;
        }
        let to = from.saturating_add(self.size).min(join.members());
        self.next = to;
        let mut at = 0;
        let mut ends: Vec<usize> = join.held_by[from as usize..to as usize]
            .iter()
            .map(|&n| {
                at += n as usize;
                at - n as usize
            })
            .collect();
        // Each member's tokens, filled in token order.
        let mut items = self.spare.take().map(|b| b.tokens).unwrap_or_default();
        items.clear();
        items.resize(at, Held::default());
        let mut token = 0;
        for (g, group) in join.groups.iter().enumerate() {
            let end = join
                .groups
                .get(g + 1)
                .map_or(join.holders.len(), |n| n.start);
            let held = group.held as usize;
            for list in join.holders[group.start..end].chunks_exact(held) {
                let start = group.list(token).start;
                let weight = join.weights[token as usize];
                let cursor = &mut self.cursor[token as usize];
                let mut c = match *cursor {
                    Batches::FAR => list.partition_point(|&m| m < from),
                    c => c as usize,
                };
                while c < held && list[c] < to {
                    let e = &mut ends[(list[c] - from) as usize];
                    items[*e] = Held {
                        after: start + c + 1,
                        len: (held - c - 1) as u32,
                        weight,
                    };
                    *e += 1;
                    c += 1;
                }
                *cursor = c.min(usize::from(Batches::FAR)) as u8;
                token += 1;
            }
        }
        Some(Batch {
            from,
            tokens: items,
            ends,
        })
    }
}

/// The members' tokens are made in this many batches, two at a time in
/// memory (a batch probed, the next being made): a batch's [`Held`] take
/// 16 bytes where the lists take 4, so the two take an eighth of the
/// lists' memory, for one more pass over the tokens a batch.
pub const BATCHES: u32 = 32;

/// A probe drops the candidates that can no longer reach its threshold
/// every this many tokens of its tail.
const PRUNE: usize = 8;
/// A tail token's inverted list is read when it is at most this many
/// times as long as the candidates left; else each candidate is looked up
/// in it (a binary search, about as many steps).
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
/// let found = contained::run(keys.clone(), &sizes, &[0, 1, 2], 0, "0.5".parse()?)?;
/// // "c d e", "d e f": 2 of the second text's 5 shingles, below 0.5.
/// assert!(found.is_empty());
/// let found = contained::run(keys, &sizes, &[0, 1, 2], 0, "0.4".parse()?)?;
/// assert_eq!((found[0].a, found[0].b, found[0].shared), (0, 1, 2));
/// # Ok::<(), neardup::Error>(())
/// ```
///
/// # Errors
/// More than `u32::MAX` repeated keys.
pub fn run(
    keys: Keys,
    sizes: &[u64],
    docs: &[u32],
    refs: u32,
    threshold: Threshold,
) -> Result<Vec<Found>, Error> {
    let mut sorting = Sorting::default();
    let parts: Vec<Repeated> = keys
        .into_parts()
        .into_iter()
        .map(|p| p.repeated_with(docs, &mut sorting))
        .collect();
    let sizes: Vec<u64> = docs.iter().map(|&d| sizes[d as usize]).collect();
    let ranges = parts.iter().map(|p| (p.counts(), p.lists()));
    let mut placing = Join::build(docs, &sizes, ranges, refs, threshold)?;
    parts
        .iter()
        .enumerate()
        .for_each(|(r, p)| placing.place(r, p));
    let join = placing.finish();
    let (mut scratch, mut found) = (Scratch::default(), Vec::new());
    let mut batches = join.batches(BATCHES);
    while let Some(batch) = batches.next(&join) {
        for x in batch.members() {
            join.probe(x, batch.tokens_of(x), &mut scratch, &mut found);
        }
        batches.recycle(batch);
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
/// let out = contained::scan(&fps, keys, 1, "0.5".parse()?)?;
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
    keys: Keys,
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
            let got = run(keys, &sizes, &docs, refs, t).unwrap();
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

    /// [`Part::repeated`] the plain way: every wanted `(key, document)`
    /// sorted at once.
    fn repeated_by_sorting(part: &Part, docs: &[u32]) -> Repeated {
        let mut pairs = Vec::new();
        let mut at = 0;
        for (d, &n) in part.counts.iter().enumerate() {
            if let Some(i) = docs.iter().position(|&w| w as usize == d) {
                pairs.extend(
                    part.keys[at..at + n as usize]
                        .iter()
                        .map(|&k| (k, i as u32)),
                );
            }
            at += n as usize;
        }
        pairs.sort_unstable();
        let mut out = Repeated::default();
        for same in pairs.chunk_by(|x, y| x.0 == y.0).filter(|s| s.len() > 1) {
            out.holders.extend(same.iter().map(|&(_, i)| i));
            out.counts.push(same.len() as u32);
            out.lists
                .push(list_hash(&out.holders[out.holders.len() - same.len()..]));
        }
        out
    }

    /// Keys that share their top bits, differ in a few low ones, or are
    /// one key held by most documents: a bucket too full for its places.
    fn parts() -> impl Strategy<Value = (Part, Vec<u32>)> {
        let key =
            (0u64..4, 0u64..40, any::<u64>(), 0u32..4).prop_map(|(top, low, any, how)| match how {
                0 => top << 62 | low,
                1 => low,
                2 => any,
                _ => u64::MAX - low,
            });
        let doc = prop::collection::vec(key, 0..30);
        (prop::collection::vec(doc, 1..40), any::<u64>()).prop_map(|(docs, pick)| {
            let mut part = Part::default();
            docs.iter().for_each(|d| {
                let mut d = d.clone();
                d.sort_unstable();
                d.dedup();
                part.push(&d)
            });
            let wanted = (0..docs.len() as u32)
                .filter(|d| pick >> (d % 64) & 1 == 1)
                .collect();
            (part, wanted)
        })
    }

    proptest! {
        /// The radix buckets give what one sort of every pair gives, the
        /// buckets' buffers used again from one part to the next.
        #[test]
        fn repeated_equals_one_sort(parts in prop::collection::vec(parts(), 1..4)) {
            let mut sorting = Sorting::default();
            for (part, docs) in parts {
                let want = repeated_by_sorting(&part, &docs);
                prop_assert_eq!(part.repeated_with(&docs, &mut sorting), want);
            }
        }
    }

    #[test]
    fn a_key_held_by_every_document_overflows_its_bucket() {
        // 300 documents with key 7, and one key far from it: every key but
        // one falls in one bucket, with more keys than its places.
        let mut part = Part::default();
        for d in 0..300u64 {
            part.push(&[7, 1000 + d]);
        }
        part.push(&[u64::MAX]);
        let docs: Vec<u32> = (0..301).collect();
        let got = part.clone().repeated(&docs);
        assert_eq!(got.counts(), [300]);
        assert_eq!(got, repeated_by_sorting(&part, &docs));
        // All keys equal: no bit differs.
        let mut same = Part::default();
        (0..5).for_each(|_| same.push(&[42]));
        assert_eq!(same.repeated(&[0, 2, 4]).holders(), [0, 1, 2]);
    }

    #[test]
    fn ranges_placed_in_any_order_make_one_join() {
        // Three ranges, each token's first key in a different one.
        let ranges: Vec<Repeated> = [
            vec![(vec![0, 1], 1), (vec![1, 2], 2)],
            vec![(vec![0, 1], 3), (vec![0, 1, 2], 4)],
            vec![(vec![1, 2], 5), (vec![0, 2], 6)],
        ]
        .into_iter()
        .map(|keys| {
            let mut r = Repeated::default();
            for (holders, _) in keys {
                r.counts.push(holders.len() as u32);
                r.lists.push(list_hash(&holders));
                r.holders.extend(holders);
            }
            r
        })
        .collect();
        let t: Threshold = "0.5".parse().unwrap();
        let build = || {
            let lists = ranges.iter().map(|r| (r.counts(), r.lists()));
            Join::build(&[0, 1, 2], &[3, 2, 4], lists, 0, t).unwrap()
        };
        let mut forward = build();
        (0..3).for_each(|r| forward.place(r, &ranges[r]));
        let mut backward = build();
        let lists: Vec<Lists> = (0..3)
            .rev()
            .map(|r| backward.lists(r, &ranges[r]))
            .collect();
        lists.into_iter().for_each(|l| backward.put(l));
        let (a, b) = (forward.finish(), backward.finish());
        assert_eq!(
            (&a.holders, &a.held_by, &a.weights),
            (&b.holders, &b.held_by, &b.weights)
        );
        assert_eq!(a.tokens(), 4);
        assert!(a.holders.iter().all(|&m| m < 3));
    }

    #[test]
    fn keys_with_equal_lists_are_one_token() {
        // Keys 0 and 2 held by documents {0, 1}, key 1 by {0, 1, 2}: two
        // tokens, the rarer first, of weights 2 and 1.
        let range = Repeated {
            counts: vec![2, 3, 2],
            holders: vec![0, 1, 0, 1, 2, 0, 1],
            lists: vec![
                list_hash(&[0, 1]),
                list_hash(&[0, 1, 2]),
                list_hash(&[0, 1]),
            ],
        };
        let t: Threshold = "0.5".parse().unwrap();
        let ranges = [(range.counts(), range.lists())];
        let mut placing = Join::build(&[0, 1, 2], &[4, 4, 4], ranges, 0, t).unwrap();
        placing.place(0, &range);
        let join = placing.finish();
        assert_eq!(
            (join.tokens(), join.vocabulary(), join.occurrences()),
            (2, 3, 7)
        );
        assert_eq!(
            (&join.weights[..], &join.holders[..]),
            (&[2, 1][..], &[0, 1, 0, 1, 2][..])
        );
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
            run(keys.clone(), &sizes, &docs, 0, t.parse().unwrap())
                .unwrap()
                .len()
        };
        assert_eq!(at("0.78"), 2000 * 1999 / 2);
        assert_eq!(at("0.79"), 0);
    }
}
