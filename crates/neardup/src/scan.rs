//! The corpus algorithm of `neardup scan`: every near-duplicate pair of a
//! set of fingerprinted documents, verified exactly, then clustered with a
//! deterministic keeper.
//!
//! It works on plain data: [`Fingerprint`]s numbered `0..len` in input
//! order (`u32` document numbers), the first `refs` of them reference
//! documents (`--against`), and a [`Plan`]. Adapters own the I/O: the CLI
//! spills band records to disk, Spark shuffles them between machines, the
//! page runs [`run`] as it is. Each stage is a function an engine can run
//! over its own partitions:
//!
//! 1. **exact** ([`exact`]): documents grouped by `normalized_sha256` are
//!    IDENTICAL (SPEC §8, rule 1); each group's first document stands for
//!    it from here on;
//! 2. **map** ([`Plan::band_records`]): one [`BandRecord`] per band of each
//!    representative's signature;
//! 3. **reduce**: the records of one `(band, key)` bucket give
//!    [`candidates`]; [`Plan::check`] counts a candidate only in the first
//!    band its slots share, and reports it only when its exact slot-match
//!    count meets the threshold ([`Check`]), so a band key collision never adds a pair
//!    (a bucket too large for one task is cut into blocks:
//!    [`candidates_between`]);
//! 4. **finish** ([`Outcome::new`]): exact and near pairs merged, clusters
//!    by union-find with the smallest document number as keeper, and the
//!    dropped documents.
//!
//! [`against`] runs the same stages for new documents against references
//! it asks for instead of holding (a persistent index).
//!
//! [`lines`] writes the results as `neardup scan` prints them, so every
//! adapter gives the same bytes.
//!
//! ```
//! use neardup::scan::{self, Plan};
//! use neardup::{Fingerprint, Params, Threshold};
//! let texts = [
//!     "the quick brown fox jumps over the lazy dog near the river bank today",
//!     "the quick brown fox jumps over the lazy dog near the river bank today!",
//!     "an entirely different sentence about databases and their indexes",
//! ];
//! let fps: Vec<Fingerprint> = texts.iter().map(|t| Fingerprint::of(t, Params::DEFAULT)).collect();
//! let plan = Plan::new(Params::DEFAULT, Threshold::NEAR_DUPLICATE);
//! let out = scan::run(&fps, 0, &plan)?;
//! assert_eq!(out.clusters, vec![vec![0, 1]]);
//! assert_eq!(out.dropped, vec![1]);
//! # Ok::<(), neardup::Error>(())
//! ```

pub mod against;
pub mod contained;
mod exact;
pub mod lines;
mod outcome;
mod plan;

pub use against::{against, Against, References};
pub use exact::{exact, Exact};
pub use outcome::{smaller_sides, Outcome, Pair};
pub use plan::{candidates, candidates_between, BandRecord, Check, Plan};

use crate::{Error, Fingerprint};

/// The whole scan in memory: the reference driver that every partitioned
/// engine must agree with. Documents `0..refs` are reference documents:
/// no pair between two of them is reported and none is dropped.
///
/// # Errors
/// More than `u32::MAX` documents, `refs` past the end, or a fingerprint
/// made with other params than the plan's.
pub fn run(fingerprints: &[Fingerprint], refs: u32, plan: &Plan) -> Result<Outcome, Error> {
    check(fingerprints, refs, plan)?;
    let exact = exact(fingerprints, refs);
    let mut records: Vec<BandRecord> = exact
        .representatives
        .iter()
        .filter_map(|&d| Some((d, fingerprints[d as usize].signature.as_ref()?)))
        .flat_map(|(d, sig)| plan.band_records(d, sig))
        .collect();
    records.sort_unstable();
    let mut pairs = exact.pairs;
    let mut bucket = Vec::new();
    for same in records.chunk_by(|x, y| (x.band, x.key) == (y.band, y.key)) {
        bucket.clear();
        bucket.extend(same.iter().map(|r| r.doc));
        for (a, b) in candidates(&bucket, refs) {
            let sig = |d: u32| fingerprints[d as usize].signature.as_ref();
            if let (Some(sa), Some(sb)) = (sig(a), sig(b)) {
                if let Some(m) = plan.check(same[0].band, sa, sb).accepted() {
                    pairs.push(Pair::new(a, b, Some(m)));
                }
            }
        }
    }
    Outcome::new(fingerprints.len(), refs, pairs)
}

/// Refuses input the scan cannot number or compare: what [`run`] checks
/// first, and what an engine should check before its own stages.
pub fn check(fingerprints: &[Fingerprint], refs: u32, plan: &Plan) -> Result<(), Error> {
    let len = fingerprints.len();
    if u32::try_from(len).is_err() {
        return Err(Error::TooManyDocuments(len as u64));
    }
    if refs as usize > len {
        return Err(Error::TooManyDocuments(u64::from(refs)));
    }
    let want = plan.params();
    match fingerprints.iter().position(|f| f.params != want) {
        None => Ok(()),
        Some(doc) => {
            let got = fingerprints[doc].params;
            Err(Error::MixedParams {
                doc: doc as u64,
                got,
                want,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Params, Threshold};
    use proptest::prelude::*;

    /// Every pair, compared directly: what the scan must find, up to the
    /// LSH misses that banding allows (none when every band is one row).
    /// Identical documents pair with their group's first document only,
    /// and near pairs join those first documents.
    fn brute_force(fps: &[Fingerprint], refs: u32, plan: &Plan) -> Vec<Pair> {
        let first = |d: usize| {
            (0..d)
                .find(|&e| fps[e].normalized_sha256 == fps[d].normalized_sha256)
                .unwrap_or(d)
        };
        let mut out = Vec::new();
        for b in 0..fps.len() {
            for a in 0..b {
                if b < refs as usize {
                    continue;
                }
                let (fa, fb) = (&fps[a], &fps[b]);
                let m = match (&fa.signature, &fb.signature) {
                    (Some(x), Some(y)) => Some(x.matches(y)),
                    _ => None,
                };
                let identical = first(b) == a;
                let near = first(a) == a
                    && first(b) == b
                    && m.is_some_and(|m| plan.threshold().accepts(m, plan.params().n()));
                if identical || near {
                    out.push(Pair::new(a as u32, b as u32, m));
                }
            }
        }
        out
    }

    /// A small corpus with near-duplicates: documents drawn from a few
    /// bases of a few words, each with a few words changed.
    fn corpus(seed: &[(u8, u8, u8)], params: Params) -> Vec<Fingerprint> {
        let words = ["a", "b", "c", "d", "e", "f", "g", "h"];
        seed.iter()
            .map(|&(base, edit, len)| {
                let mut w: Vec<&str> = (0..12 + usize::from(len % 8))
                    .map(|i| words[(i * (usize::from(base % 3) + 1) + usize::from(base)) % 8])
                    .collect();
                if edit % 3 != 0 {
                    let at = usize::from(edit) % w.len();
                    w[at] = words[usize::from(edit) % 8];
                }
                if len % 11 == 0 {
                    w.truncate(2); // fewer than k words: no signature
                }
                Fingerprint::of(&w.join(" "), params)
            })
            .collect()
    }

    fn plan(bp: u32, bands_of_one_row: bool) -> Plan {
        let params = Params::new(3, 32).unwrap();
        let t = Threshold::from_basis_points(bp).unwrap();
        if bands_of_one_row {
            Plan::with_banding(params, t, 32, 1).unwrap()
        } else {
            Plan::new(params, t)
        }
    }

    /// The scan of `seed`'s corpus (its first `refs` documents references)
    /// reports exactly brute force's pairs.
    fn equals_brute_force(
        seed: &[(u8, u8, u8)],
        refs: u32,
        plan: &Plan,
    ) -> Result<(), TestCaseError> {
        let fps = corpus(seed, plan.params());
        let refs = refs.min(fps.len() as u32);
        let got = run(&fps, refs, plan).unwrap();
        let mut truth = brute_force(&fps, refs, plan);
        truth.sort_unstable();
        prop_assert_eq!(&got.pairs, &truth);
        Ok(())
    }

    /// Corpora up to this size; smaller under Miri, where each case of 40
    /// documents takes minutes.
    const DOCS: usize = if cfg!(miri) { 12 } else { 40 };

    proptest! {
        /// With one row per band every pair with a shared slot is a
        /// candidate, so the scan must equal brute force exactly.
        #[test]
        fn equals_brute_force_at_three_thresholds(
            seed in proptest::collection::vec((0u8..6, any::<u8>(), any::<u8>()), 0..DOCS),
            refs in 0u32..6,
        ) {
            for bp in [3500, 7500, 9000] {
                equals_brute_force(&seed, refs, &plan(bp, true))?;
            }
        }

        /// With exact recall's pigeonhole bands (several rows each) the
        /// scan equals brute force too, at every threshold the issue names
        /// and two signature lengths.
        #[test]
        fn exact_recall_equals_brute_force(
            seed in proptest::collection::vec((0u8..6, any::<u8>(), any::<u8>()), 0..DOCS),
            refs in 0u32..6,
        ) {
            for (bp, n) in [(5000, 32), (7500, 32), (9000, 32), (7500, 128), (9000, 128)] {
                let plan = Plan::exact(Params::new(3, n).unwrap(), Threshold::from_basis_points(bp).unwrap());
                prop_assert!(plan.misses_none() && plan.banding().rows() > 1 || bp == 5000);
                equals_brute_force(&seed, refs, &plan)?;
            }
        }

        /// With the chosen banding the scan reports a subset of brute
        /// force: never a false positive.
        #[test]
        fn banded_scan_never_reports_a_false_pair(
            seed in proptest::collection::vec((0u8..6, any::<u8>(), any::<u8>()), 0..DOCS),
        ) {
            for bp in [3500, 7500, 9000] {
                let plan = plan(bp, false);
                let fps = corpus(&seed, plan.params());
                let truth = brute_force(&fps, 0, &plan);
                let got = run(&fps, 0, &plan).unwrap();
                prop_assert!(got.pairs.iter().all(|p| truth.contains(p)));
                let identical = |p: &&Pair| fps[p.a as usize].normalized_sha256 == fps[p.b as usize].normalized_sha256;
                prop_assert!(truth.iter().filter(identical).all(|p| got.pairs.contains(p)));
            }
        }
    }

    /// References held in memory behind [`References`], as an index on
    /// disk answers: band keys cut to 32 bits, so that keys collide.
    struct Held<'a> {
        fps: &'a [Fingerprint],
        records: Vec<(u32, u32, u32)>,
    }

    impl<'a> Held<'a> {
        fn new(fps: &'a [Fingerprint], plan: &Plan) -> Held<'a> {
            let mut records: Vec<(u32, u32, u32)> = exact(fps, fps.len() as u32)
                .representatives
                .iter()
                .flat_map(|&d| plan.band_records(d, fps[d as usize].signature.as_ref().unwrap()))
                .map(|r| (r.band, r.key as u32 & 0xff, r.doc))
                .collect();
            records.sort_unstable();
            Held { fps, records }
        }
    }

    impl References for Held<'_> {
        fn len(&self) -> u32 {
            self.fps.len() as u32
        }
        fn first_with_digest(&self, digest: &crate::Digest) -> Option<u32> {
            self.fps
                .iter()
                .position(|f| &f.normalized_sha256 == digest)
                .map(|d| d as u32)
        }
        fn bucket(&self, band: u32, key: u64, out: &mut Vec<u32>) {
            let key = key as u32 & 0xff;
            out.extend(
                self.records
                    .iter()
                    .filter(|r| (r.0, r.1) == (band, key))
                    .map(|r| r.2),
            );
        }
        fn signature(&self, doc: u32) -> Option<crate::Signature> {
            self.fps[doc as usize].signature.clone()
        }
    }

    proptest! {
        /// New documents against references behind [`References`] give
        /// what the whole scan gives over references and new documents.
        #[test]
        fn against_references_equals_the_whole_scan(
            seed in proptest::collection::vec((0u8..6, any::<u8>(), any::<u8>()), 0..DOCS),
            refs in 0usize..DOCS,
        ) {
            for plan in [plan(7500, false), Plan::exact(Params::new(3, 32).unwrap(), Threshold::NEAR_DUPLICATE)] {
                let fps = corpus(&seed, plan.params());
                let r = refs.min(fps.len());
                let whole = run(&fps, r as u32, &plan).unwrap();
                let held = Held::new(&fps[..r], &plan);
                let got = against(&held, &fps[r..], &plan).unwrap();
                prop_assert_eq!(got.outcome, whole);
            }
        }
    }

    #[test]
    fn bad_input_is_refused() {
        let plan = plan(7500, false);
        let fps = corpus(&[(0, 0, 1)], plan.params());
        assert_eq!(run(&fps, 2, &plan).unwrap_err(), Error::TooManyDocuments(2));
        let other = Fingerprint::of("a b c d", Params::DEFAULT);
        let e = run(&[fps[0].clone(), other], 0, &plan).unwrap_err();
        assert_eq!(
            e.to_string(),
            "document 1 was signed with k=5, n=128, but this run uses k=3, n=32"
        );
        assert!(run(&[], 0, &plan).unwrap().pairs.is_empty());
    }

    #[test]
    fn references_are_never_paired_together_or_dropped() {
        let plan = plan(7500, true);
        let t = "one two three four five six seven eight";
        let fps: Vec<Fingerprint> = [t, t, t, "other words entirely here now"]
            .iter()
            .map(|x| Fingerprint::of(x, plan.params()))
            .collect();
        let out = run(&fps, 2, &plan).unwrap();
        let pairs: Vec<(u32, u32)> = out.pairs.iter().map(|p| (p.a, p.b)).collect();
        // (0, 1) joins two references: not reported, so 1 stays alone.
        assert_eq!(pairs, [(0, 2)]);
        assert_eq!(out.clusters, [vec![0, 2]]);
        assert_eq!(out.dropped, [2]);
    }
}
