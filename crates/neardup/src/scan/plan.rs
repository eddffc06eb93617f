//! A scan's settings, and the two per-record steps of its map and reduce
//! sides: band records out of a signature, a candidate verified in.

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

    /// Whether `band` is the first band whose slots `a` and `b` share, the
    /// one band where their pair is counted. A pair met in a later bucket
    /// is not counted again; a pair whose band keys collided without its
    /// slots agreeing is not counted at all in that band.
    pub fn is_first_shared_band(&self, band: u32, a: &Signature, b: &Signature) -> bool {
        self.banding.first_shared_band(a, b) == Some(band as usize)
    }

    /// The reduce side's check of one candidate met in bucket band `band`:
    /// its exact slot-match count, when `band` is where it is counted and
    /// the count meets the threshold. Decided in integers.
    pub fn verify(&self, band: u32, a: &Signature, b: &Signature) -> Option<u32> {
        if !self.is_first_shared_band(band, a, b) {
            return None;
        }
        self.accepts(a, b)
    }

    /// The slot-match count of `a` and `b`, when it meets the threshold.
    pub fn accepts(&self, a: &Signature, b: &Signature) -> Option<u32> {
        let m = a.matches(b);
        self.threshold.accepts(m, self.params.n()).then_some(m)
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
        assert_eq!(plan.verify(0, &a, &b), None);
        assert_eq!(plan.verify(1, &a, &b), Some(15));
        assert_eq!(plan.verify(2, &a, &b), None);
        let strict =
            Plan::with_banding(params, Threshold::from_basis_points(10_000).unwrap(), 4, 4);
        assert_eq!(strict.unwrap().verify(1, &a, &b), None);
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
