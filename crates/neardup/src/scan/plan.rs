//! A scan's settings, and the two per-record steps of its map and reduce
//! sides: band records out of a signature, a candidate checked in.

use crate::{Banding, Error, Params, Signature, Threshold};

/// `K`, `N`, the threshold and the banding of one scan, checked together:
/// the banding fits `N`.
///
/// ```
/// use neardup::scan::Plan;
/// use neardup::{Params, Threshold};
/// let plan = Plan::new(Params::DEFAULT, Threshold::NEAR_DUPLICATE);
/// assert_eq!((plan.banding().bands(), plan.banding().rows()), (25, 5));
/// assert!(Plan::with_banding(Params::DEFAULT, Threshold::NEAR_DUPLICATE, 30, 5).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    params: Params,
    threshold: Threshold,
    banding: Banding,
}

/// One band of one document's signature: the unit a scan sorts, spills or
/// shuffles. The field order is the sort order, so a sorted stream of
/// records is bucket after bucket, band 0's buckets first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BandRecord {
    /// The band number, `0..bands`: the natural partition key.
    pub band: u32,
    /// [`Banding::key`] of the band's slots.
    pub key: u64,
    /// The document number.
    pub doc: u32,
}

impl Plan {
    /// The plan with the banding [`Banding::for_threshold`] picks: a pair
    /// at the threshold is missed with probability at most 1%.
    pub fn new(params: Params, threshold: Threshold) -> Plan {
        Plan {
            params,
            threshold,
            banding: Banding::for_threshold(threshold, params.n()),
        }
    }

    /// The plan that misses no pair: [`Banding::exact`]'s pigeonhole
    /// bands, so the pairs are those brute force over all pairs reports.
    pub fn exact(params: Params, threshold: Threshold) -> Plan {
        Plan {
            params,
            threshold,
            banding: Banding::exact(threshold, params.n()),
        }
    }

    /// Whether no pair at or over the threshold can be missed.
    pub fn misses_none(&self) -> bool {
        self.banding.misses_none(self.threshold, self.params.n())
    }

    /// The probability that a pair exactly at the threshold is missed: 0
    /// when [`Plan::misses_none`], else MinHash's estimate
    /// [`Banding::miss_probability`].
    pub fn miss_probability(&self) -> f64 {
        if self.misses_none() {
            0.0
        } else {
            self.banding.miss_probability(self.threshold)
        }
    }

    /// The plan with `bands` bands of `rows` slots, refused unless they fit
    /// `N` slots.
    pub fn with_banding(
        params: Params,
        threshold: Threshold,
        bands: usize,
        rows: usize,
    ) -> Result<Plan, Error> {
        Ok(Plan {
            params,
            threshold,
            banding: Banding::new(bands, rows, params.n())?,
        })
    }

    /// `K` and `N`.
    pub fn params(&self) -> Params {
        self.params
    }

    /// The similarity a pair must reach.
    pub fn threshold(&self) -> Threshold {
        self.threshold
    }

    /// Bands × rows.
    pub fn banding(&self) -> Banding {
        self.banding
    }

    /// The map side: one record per band of document `doc`'s signature.
    /// The signature must have the plan's `N` slots (as every fingerprint
    /// made with the plan's params has; [`crate::scan::check`] checks).
    pub fn band_records<'s>(
        &self,
        doc: u32,
        signature: &'s Signature,
    ) -> impl Iterator<Item = BandRecord> + 's {
        let banding = self.banding;
        (0..banding.bands()).map(move |band| BandRecord {
            band: band as u32,
            key: banding.key(signature, band),
            doc,
        })
    }

    /// The reduce side's one decision about a candidate pair met in a
    /// bucket of band `band`: not this band's to count, counted but under
    /// the threshold, or reported with its exact slot-match count.
    ///
    /// A pair whose slots agree in several bands meets in a bucket of each,
    /// so only its first shared band counts it: every engine, however it
    /// partitions the buckets, then counts and reports each pair once. A
    /// pair that met only through a band key collision (its slots differ
    /// in `band`) is not counted there either. The threshold is decided in
    /// integers ([`Threshold::accepts`]). The signatures must have the
    /// plan's `N` slots.
    ///
    /// ```
    /// use neardup::scan::{Check, Plan};
    /// use neardup::{Params, Signature, Threshold};
    /// let plan = Plan::with_banding(Params::new(1, 16)?, Threshold::parse("0.75")?, 2, 8)?;
    /// let a = Signature::from_slots((0..16).collect())?;
    /// let mut slots: Vec<u32> = (0..16).collect();
    /// slots[0] = 99; // band 0 differs, band 1 agrees: 15 of 16 slots
    /// let b = Signature::from_slots(slots.clone())?;
    /// assert_eq!(plan.check(0, &a, &b), Check::NotThisBand);
    /// assert_eq!(plan.check(1, &a, &b), Check::Accepted { matches: 15 });
    /// slots[1..5].fill(99); // 11 of 16 slots: under 0.75
    /// let c = Signature::from_slots(slots)?;
    /// assert_eq!(plan.check(1, &a, &c), Check::Below);
    /// # Ok::<(), neardup::Error>(())
    /// ```
    pub fn check(&self, band: u32, a: &Signature, b: &Signature) -> Check {
        if self.banding.first_shared_band(a, b) != Some(band as usize) {
            return Check::NotThisBand;
        }
        let matches = a.matches(b);
        if self.threshold.accepts(matches, self.params.n()) {
            Check::Accepted { matches }
        } else {
            Check::Below
        }
    }
}

/// What [`Plan::check`] decides about one candidate pair in one band.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Not counted in this band: the pair's slots first agree in another
    /// band, which counts it, or (after a band key collision) in none.
    NotThisBand,
    /// Counted in this band, its first shared one, and not reported: its
    /// slot-match count is under the threshold.
    Below,
    /// Counted in this band and reported: `matches` of the `N` slots agree,
    /// at or over the threshold.
    Accepted {
        /// SPEC §7's `matches`.
        matches: u32,
    },
}

impl Check {
    /// Whether this band counts the pair as a candidate: what a scan adds
    /// up into its "candidate pairs" figure.
    pub fn is_counted(self) -> bool {
        self != Check::NotThisBand
    }

    /// The slot-match count of a pair to report, `None` for any other.
    pub fn accepted(self) -> Option<u32> {
        match self {
            Check::Accepted { matches } => Some(matches),
            Check::NotThisBand | Check::Below => None,
        }
    }
}

/// The candidate pairs of one bucket: every two of its documents, `a < b`,
/// except two reference documents (documents `0..refs`). `bucket` holds
/// document numbers in ascending order, as a sorted record stream gives
/// them.
///
/// ```
/// let pairs: Vec<(u32, u32)> = neardup::scan::candidates(&[0, 1, 5, 7], 2).collect();
/// assert_eq!(pairs, [(0, 5), (0, 7), (1, 5), (1, 7), (5, 7)]);
/// ```
pub fn candidates(bucket: &[u32], refs: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
    bucket.iter().enumerate().flat_map(move |(i, &a)| {
        bucket[i + 1..]
            .iter()
            .filter(move |&&b| !(a < refs && b < refs))
            .map(move |&b| (a, b))
    })
}

/// The candidate pairs across two blocks of one bucket: every `a` of
/// `left` with every `b` of `right`, except two reference documents. Each
/// block holds document numbers in ascending order, every one of `left`
/// before every one of `right`.
///
/// An engine that cuts a bucket too large for one task into consecutive
/// blocks gets the bucket's [`candidates`] exactly once each as the
/// candidates of every block with itself and of every two blocks, so the
/// cut changes which task verifies a pair, never the result.
///
/// ```
/// use neardup::scan::{candidates, candidates_between};
/// let bucket = [0, 1, 5, 7, 9];
/// let (x, y) = bucket.split_at(2);
/// let mut split: Vec<(u32, u32)> = candidates(x, 1).chain(candidates(y, 1)).collect();
/// split.extend(candidates_between(x, y, 1));
/// split.sort_unstable();
/// assert_eq!(split, candidates(&bucket, 1).collect::<Vec<_>>());
/// ```
pub fn candidates_between<'b>(
    left: &'b [u32],
    right: &'b [u32],
    refs: u32,
) -> impl Iterator<Item = (u32, u32)> + 'b {
    left.iter().flat_map(move |&a| {
        right
            .iter()
            .filter(move |&&b| !(a < refs && b < refs))
            .map(move |&b| (a, b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_counts_only_in_its_first_shared_band() {
        let params = Params::new(1, 16).unwrap();
        let t = Threshold::from_basis_points(5000).unwrap();
        let plan = Plan::with_banding(params, t, 4, 4).unwrap();
        let a = Signature::from_slots((0..16).collect()).unwrap();
        let mut slots: Vec<u32> = (0..16).collect();
        slots[1] = 100; // band 0 differs, bands 1..4 agree
        let b = Signature::from_slots(slots).unwrap();
        assert_eq!(plan.check(0, &a, &b), Check::NotThisBand);
        assert_eq!(plan.check(1, &a, &b), Check::Accepted { matches: 15 });
        assert_eq!(plan.check(2, &a, &b), Check::NotThisBand);
        let strict =
            Plan::with_banding(params, Threshold::from_basis_points(10_000).unwrap(), 4, 4);
        assert_eq!(strict.unwrap().check(1, &a, &b), Check::Below);
        assert!(Check::Below.is_counted() && !Check::NotThisBand.is_counted());
        assert_eq!(Check::Below.accepted(), None);
    }

    /// [`Plan::check`] written out slot by slot, with nothing of the
    /// banding or threshold code: the first band whose slots all agree,
    /// the agreeing slots counted, `10000·m >= bp·n`.
    fn check_by_hand(bp: u32, bands: usize, rows: usize, band: u32, a: &[u32], b: &[u32]) -> Check {
        let first = (0..bands).find(|&e| (e * rows..(e + 1) * rows).all(|i| a[i] == b[i]));
        if first != Some(band as usize) {
            return Check::NotThisBand;
        }
        let m = a.iter().zip(b).filter(|(x, y)| x == y).count() as u32;
        if 10_000 * u64::from(m) >= u64::from(bp) * a.len() as u64 {
            Check::Accepted { matches: m }
        } else {
            Check::Below
        }
    }

    proptest::proptest! {
        /// Every band's check equals the one written by hand, and a pair
        /// is counted in exactly one band when its slots agree in any band
        /// (its first), in none otherwise.
        #[test]
        fn check_equals_brute_force_and_counts_a_pair_once(
            n in 16usize..40,
            rows in 1usize..6,
            bp in 1u32..=10_000,
            slots in proptest::collection::vec((0u32..1000, 0u8..4), 40),
        ) {
            let bands = n / rows;
            let plan = Plan::with_banding(
                Params::new(1, n as u64).unwrap(),
                Threshold::from_basis_points(bp).unwrap(),
                bands,
                rows,
            ).unwrap();
            // Slots agree three times in four, so that some bands agree.
            let (a, b): (Vec<u32>, Vec<u32>) =
                slots[..n].iter().map(|&(v, d)| (v, if d == 0 { v ^ 1 } else { v })).unzip();
            let sa = Signature::from_slots(a.clone()).unwrap();
            let sb = Signature::from_slots(b.clone()).unwrap();
            let mut counted = 0;
            for band in 0..bands as u32 {
                let got = plan.check(band, &sa, &sb);
                proptest::prop_assert_eq!(got, check_by_hand(bp, bands, rows, band, &a, &b));
                proptest::prop_assert_eq!(got, plan.check(band, &sb, &sa));
                counted += usize::from(got.is_counted());
            }
            let shares_a_band = (0..bands).any(|e| a[e * rows..(e + 1) * rows] == b[e * rows..(e + 1) * rows]);
            proptest::prop_assert_eq!(counted, usize::from(shares_a_band));
        }
    }

    #[test]
    fn records_follow_the_banding() {
        let plan = Plan::new(Params::DEFAULT, Threshold::NEAR_DUPLICATE);
        let sig = Signature::from_slots(vec![7; 128]).unwrap();
        let records: Vec<BandRecord> = plan.band_records(9, &sig).collect();
        assert_eq!(records.len(), 25);
        assert!(records
            .iter()
            .enumerate()
            .all(|(i, r)| r.band == i as u32 && r.doc == 9));
        assert_eq!(records[3].key, plan.banding().key(&sig, 3));
    }

    #[test]
    fn blocks_of_a_bucket_give_its_candidates_once() {
        let bucket: Vec<u32> = vec![0, 2, 3, 4, 8, 9, 11, 12, 20, 21];
        for refs in [0, 3, 9] {
            let want: Vec<(u32, u32)> = candidates(&bucket, refs).collect();
            for size in 1..=bucket.len() {
                let blocks: Vec<&[u32]> = bucket.chunks(size).collect();
                let mut got = Vec::new();
                for (i, x) in blocks.iter().enumerate() {
                    got.extend(candidates(x, refs));
                    for y in &blocks[i + 1..] {
                        got.extend(candidates_between(x, y, refs));
                    }
                }
                got.sort_unstable();
                assert_eq!(got, want, "blocks of {size}, refs {refs}");
            }
        }
    }

    #[test]
    fn references_are_not_paired_together() {
        assert_eq!(candidates(&[0, 1], 2).count(), 0);
        assert_eq!(candidates(&[0, 1], 1).count(), 1);
        assert_eq!(candidates(&[3], 0).count(), 0);
    }
}
