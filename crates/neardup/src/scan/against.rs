//! A scan of new documents against references held elsewhere (a persistent
//! index on disk), without the references in memory: the same pairs,
//! clusters and drops as [`super::run`] over the references followed by the
//! new documents.
//!
//! The references are documents `0..R`, the new ones `R..R + M` in their
//! order, exactly the numbering `neardup scan NEW --against REFS` gives
//! them. What [`super::run`] computes from the references' fingerprints,
//! this asks of a [`References`]: the first reference of a normalized text,
//! the references banded in one bucket, and one reference's signature. A
//! store that answers those three as a scan would (see the trait) gives
//! byte-identical outputs.

use crate::{Digest, Error, Fingerprint, Signature};

use super::{candidates, exact::Exact, Outcome, Pair, Plan};

/// A reference set a scan can ask instead of holding it: documents
/// `0..len()` of the scan.
pub trait References {
    /// The number of reference documents.
    fn len(&self) -> u32;

    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The smallest reference document whose normalized text has this
    /// SHA-256: the first of its identical group, the one a scan pairs
    /// every later identical document with.
    fn first_with_digest(&self, digest: &Digest) -> Option<u32>;

    /// Appends to `out` the reference documents whose band `band` has the
    /// key `key`, of those a scan bands: the first of each identical group
    /// that has a signature ([`super::Exact::representatives`]). Others may
    /// come too (a store may keep shorter keys, so that keys collide): a
    /// pair is checked on its slots, so they add work, never a pair.
    fn bucket(&self, band: u32, key: u64, out: &mut Vec<u32>);

    /// Reference document `doc`'s signature, `None` when it has zero
    /// shingles.
    fn signature(&self, doc: u32) -> Option<Signature>;
}

/// What [`against`] found, with the counts a scan's summary prints.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Against {
    /// Pairs, clusters and drops over documents `0..R + M`.
    pub outcome: Outcome,
    /// Identical groups that gave a pair.
    pub groups: u64,
    /// The documents of those groups ([`super::Exact::grouped_docs`],
    /// counting one reference at most).
    pub grouped_docs: u64,
    /// Pairs found identical.
    pub identical: u64,
    /// Candidate pairs checked on their slots (each counted in its first
    /// shared band only, as [`Plan::check`] counts).
    pub candidates: u64,
}

/// The new documents `new` (numbered from `refs.len()`) scanned against
/// `refs`: every pair a new document forms with a reference or with
/// another new document, as [`super::run`] over references and new
/// documents reports them.
///
/// # Errors
/// More than `u32::MAX` documents in all, or a new fingerprint made with
/// other params than the plan's.
pub fn against(refs: &impl References, new: &[Fingerprint], plan: &Plan) -> Result<Against, Error> {
    let r = refs.len();
    super::check(new, 0, plan)?;
    let total = u64::from(r) + new.len() as u64;
    if total > u64::from(u32::MAX) {
        return Err(Error::TooManyDocuments(total));
    }
    let (exact, representatives) = identical(refs, new);
    let identical = exact.pairs.len() as u64;
    let mut pairs = exact.pairs;
    let mut candidates = 0;
    let mut bucket = Vec::new();
    for &d in &representatives {
        if let Some(sig) = &new[(d - r) as usize].signature {
            candidates += with_references(refs, plan, d, sig, &mut bucket, &mut pairs);
        }
    }
    candidates += among_new(new, r, &representatives, plan, &mut pairs);
    Ok(Against {
        outcome: outcome(r, new.len() as u32, pairs)?,
        groups: exact.groups,
        grouped_docs: exact.grouped_docs,
        identical,
        candidates,
    })
}

/// The exact stage over references and new documents: each new document
/// whose text a reference has pairs with that text's first reference;
/// the other new documents group among themselves as [`super::exact`]
/// groups them. Also the new documents a scan bands: the first of each
/// new text, with a signature, in document order.
pub fn identical(refs: &impl References, new: &[Fingerprint]) -> (Exact, Vec<u32>) {
    let r = refs.len();
    let mut order: Vec<u32> = (0..new.len() as u32).collect();
    order.sort_unstable_by_key(|&i| (new[i as usize].normalized_sha256, i));
    let mut out = Exact::default();
    let mut representatives = Vec::new();
    let mut group = Vec::new();
    let digest = |i: u32| &new[i as usize].normalized_sha256;
    for same in order.chunk_by(|&x, &y| digest(x) == digest(y)) {
        let first = refs.first_with_digest(digest(same[0]));
        group.clear();
        group.extend(first);
        group.extend(same.iter().map(|&i| r + i));
        let matches = |a: u32, b: u32| {
            let sig = |d: u32| match d.checked_sub(r) {
                Some(i) => new[i as usize].signature.clone(),
                None => refs.signature(d),
            };
            Some(sig(a)?.matches(&sig(b)?))
        };
        out.add_group(&group, r, matches);
        if first.is_none() && new[same[0] as usize].signature.is_some() {
            representatives.push(r + same[0]);
        }
    }
    representatives.sort_unstable();
    (out, representatives)
}

/// The pairs new document `doc` (signature `sig`, a representative)
/// forms with the references, appended to `pairs`; returns the candidates
/// counted. `bucket` is scratch space.
pub fn with_references(
    refs: &impl References,
    plan: &Plan,
    doc: u32,
    sig: &Signature,
    bucket: &mut Vec<u32>,
    pairs: &mut Vec<Pair>,
) -> u64 {
    let banding = plan.banding();
    let mut counted = 0;
    for band in 0..banding.bands() {
        bucket.clear();
        refs.bucket(band as u32, banding.key(sig, band), bucket);
        for &other in bucket.iter() {
            let Some(theirs) = refs.signature(other) else {
                continue;
            };
            let check = plan.check(band as u32, &theirs, sig);
            counted += u64::from(check.is_counted());
            if let Some(m) = check.accepted() {
                pairs.push(Pair::new(other, doc, Some(m)));
            }
        }
    }
    counted
}

/// The near pairs among the new representatives, banded in memory as
/// [`super::run`] bands them; returns the candidates counted.
fn among_new(
    new: &[Fingerprint],
    r: u32,
    representatives: &[u32],
    plan: &Plan,
    pairs: &mut Vec<Pair>,
) -> u64 {
    let sig = |d: u32| new[(d - r) as usize].signature.as_ref();
    let mut records: Vec<_> = representatives
        .iter()
        .filter_map(|&d| Some((d, sig(d)?)))
        .flat_map(|(d, s)| plan.band_records(d, s))
        .collect();
    records.sort_unstable();
    let mut counted = 0;
    let mut bucket = Vec::new();
    for same in records.chunk_by(|x, y| (x.band, x.key) == (y.band, y.key)) {
        bucket.clear();
        bucket.extend(same.iter().map(|rec| rec.doc));
        for (a, b) in candidates(&bucket, 0) {
            if let (Some(sa), Some(sb)) = (sig(a), sig(b)) {
                let check = plan.check(same[0].band, sa, sb);
                counted += u64::from(check.is_counted());
                if let Some(m) = check.accepted() {
                    pairs.push(Pair::new(a, b, Some(m)));
                }
            }
        }
    }
    counted
}

impl Against {
    /// The outcome numbered as a scan over only the references that take
    /// part in a pair would number it: those references (returned, by
    /// their numbers here, ascending) from 0, the new documents after
    /// them. The order of documents is kept, so every output line an
    /// adapter writes from it, and every keeper, is the same; the
    /// references need not all be in memory to write them.
    pub fn local(&self, r: u32) -> (Vec<u32>, Outcome) {
        let refs = taking_part(&self.outcome.pairs, r);
        let outcome = renumber(&self.outcome, |d| local(d, r, &refs));
        (refs, outcome)
    }
}

/// The references (documents `< r`) that take part in `pairs`, ascending.
fn taking_part(pairs: &[Pair], r: u32) -> Vec<u32> {
    let mut refs: Vec<u32> = pairs
        .iter()
        .flat_map(|p| [p.a, p.b])
        .filter(|&d| d < r)
        .collect();
    refs.sort_unstable();
    refs.dedup();
    refs
}

/// Document `d` (references `0..r`, new documents `r..`) numbered over
/// `refs` followed by the new documents.
fn local(d: u32, r: u32, refs: &[u32]) -> u32 {
    match d.checked_sub(r) {
        Some(i) => refs.len() as u32 + i,
        None => refs.partition_point(|&x| x < d) as u32,
    }
}

/// `outcome` with every document number mapped by `to`, which must keep
/// their order.
fn renumber(outcome: &Outcome, to: impl Fn(u32) -> u32) -> Outcome {
    Outcome {
        pairs: outcome
            .pairs
            .iter()
            .map(|p| Pair::new(to(p.a), to(p.b), p.matches))
            .collect(),
        clusters: outcome
            .clusters
            .iter()
            .map(|g| g.iter().map(|&d| to(d)).collect())
            .collect(),
        dropped: outcome.dropped.iter().map(|&d| to(d)).collect(),
    }
}

/// [`Outcome::new`] over `r` references and `m` new documents, without a
/// union-find over all `r + m`: the references that take part in a pair
/// are numbered `0..` in their order, the new documents after them, and
/// the outcome is numbered back. Keepers, cluster order and drops depend
/// only on the documents' order, which this keeps.
pub fn outcome(r: u32, m: u32, pairs: Vec<Pair>) -> Result<Outcome, Error> {
    let refs = taking_part(&pairs, r);
    let n = refs.len() as u32;
    let pairs = pairs
        .iter()
        .map(|p| Pair::new(local(p.a, r, &refs), local(p.b, r, &refs), p.matches))
        .collect();
    let out = Outcome::new((n + m) as usize, n, pairs)?;
    Ok(renumber(&out, |d| match d.checked_sub(n) {
        Some(i) => r + i,
        None => refs[d as usize],
    }))
}
