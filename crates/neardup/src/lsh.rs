//! LSH banding: a similarity threshold, the bands × rows that find pairs at
//! that threshold, and the band keys that put likely pairs in one bucket.
//!
//! Banding only proposes candidates. Whether a pair is reported is decided
//! by [`Threshold::accepts`] on the exact slot-match count, in integers, so
//! a band key collision can cost time but never adds a false positive.

use std::fmt;
use std::str::FromStr;

use crate::{Error, Signature};

/// A similarity threshold, held exactly in basis points (1/10 000): `0.75`
/// is 7 500. A pair meets it when `10000·matches >= bp·N`, compared in
/// integers so that no float rounding can move a pair across it.
///
/// ```
/// use neardup::Threshold;
/// let t: Threshold = "0.75".parse()?;
/// assert_eq!(t, Threshold::from_basis_points(7500)?);
/// assert!(t.accepts(96, 128)); // 0.75 exactly
/// assert!(!t.accepts(95, 128));
/// assert!(Threshold::from_basis_points(0).is_err());
/// # Ok::<(), neardup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Threshold(u32);

impl Threshold {
    /// The NEAR-DUPLICATE line of SPEC §8: 0.75.
    pub const NEAR_DUPLICATE: Threshold = Threshold(7500);

    /// `bp` basis points, `1..=10000`; refused outside that range (a zero
    /// threshold would make every pair a candidate).
    pub fn from_basis_points(bp: u32) -> Result<Threshold, Error> {
        if (1..=10_000).contains(&bp) {
            Ok(Threshold(bp))
        } else {
            Err(Error::Threshold(decimal(bp)))
        }
    }

    /// Parses a threshold written as a decimal, `0.75`, `.8` or `1`,
    /// exactly: at most 4 decimals, no exponent, so that no float rounding
    /// ever decides which pairs are reported.
    pub fn parse(s: &str) -> Result<Threshold, Error> {
        let bad = || Error::Threshold(s.to_owned());
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        let int_ok = int == "0" || int == "1" || int.is_empty();
        let frac_ok = frac.len() <= 4 && frac.bytes().all(|b| b.is_ascii_digit());
        if !int_ok || !frac_ok || (int.is_empty() && frac.is_empty()) {
            return Err(bad());
        }
        // Pad to 4 digits: ".8" is 8000 basis points.
        let frac_bp = frac
            .bytes()
            .chain(std::iter::repeat(b'0'))
            .take(4)
            .fold(0u32, |acc, d| 10 * acc + u32::from(d - b'0'));
        let bp = if int == "1" { 10_000 } else { 0 } + frac_bp;
        Threshold::from_basis_points(bp).map_err(|_| bad())
    }

    /// The threshold in basis points.
    pub fn basis_points(self) -> u32 {
        self.0
    }

    /// Whether `matches` agreeing slots out of `n` reach the threshold.
    pub fn accepts(self, matches: u32, n: usize) -> bool {
        10_000 * u64::from(matches) >= u64::from(self.0) * n as u64
    }

    /// The fewest agreeing slots out of `n` that reach the threshold: at
    /// least 1, since a threshold is above 0.
    pub fn min_matches(self, n: usize) -> u32 {
        // ⌈bp·n / 10000⌉, in integers.
        let need = (u64::from(self.0) * n as u64).div_ceil(10_000);
        (need as u32).max(1)
    }

    /// The threshold as a fraction, for display and for the miss estimate.
    pub fn as_f64(self) -> f64 {
        f64::from(self.0) / 10_000.0
    }
}

impl FromStr for Threshold {
    type Err = Error;

    fn from_str(s: &str) -> Result<Threshold, Error> {
        Threshold::parse(s)
    }
}

/// The shortest decimal of the threshold: `0.75`, `1`, `0.0001`.
impl fmt::Display for Threshold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&decimal(self.0))
    }
}

/// Basis points as the shortest decimal that [`Threshold::parse`] reads
/// back: 7500 is `0.75`.
fn decimal(bp: u32) -> String {
    let (int, frac) = (bp / 10_000, bp % 10_000);
    if frac == 0 {
        return int.to_string();
    }
    let digits = format!("{frac:04}");
    format!("{int}.{}", digits.trim_end_matches('0'))
}

/// How a signature of `N` slots is cut into bands: band `i` is slots
/// `i·rows .. (i+1)·rows`. Two documents become a candidate pair when all
/// the slots of at least one band agree. Slots past `bands·rows` are unused.
///
/// ```
/// use neardup::{Banding, Threshold};
/// let b = Banding::for_threshold(Threshold::NEAR_DUPLICATE, 128);
/// assert_eq!((b.bands(), b.rows()), (25, 5));
/// assert!(b.miss_probability(Threshold::NEAR_DUPLICATE) <= 0.01);
/// assert!(Banding::new(26, 5, 128).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Banding {
    bands: usize,
    rows: usize,
}

impl Banding {
    /// The largest miss probability [`Banding::for_threshold`] accepts for a
    /// pair exactly at the threshold.
    pub const MAX_MISS: f64 = 0.01;

    /// `bands` bands of `rows` slots; refused unless both are at least 1
    /// and `bands·rows <= n`.
    pub fn new(bands: usize, rows: usize, n: usize) -> Result<Banding, Error> {
        let fits = bands
            .checked_mul(rows)
            .is_some_and(|used| used >= 1 && used <= n);
        if bands >= 1 && rows >= 1 && fits {
            Ok(Banding { bands, rows })
        } else {
            Err(Error::Banding {
                bands: bands as u64,
                rows: rows as u64,
                n: n as u64,
            })
        }
    }

    /// The banding for `threshold` with `n` slots: the most rows per band
    /// (the fewest false candidates to verify) such that `⌊n/rows⌋` bands
    /// miss a pair at the threshold with probability at most 1%. If no
    /// banding reaches 1%, one row per band (the best recall there is).
    ///
    /// The choice depends only on its inputs: the miss probability is made
    /// of IEEE-754 multiplications and subtractions, which round the same
    /// way on every machine.
    pub fn for_threshold(threshold: Threshold, n: usize) -> Banding {
        let n = n.max(1);
        (1..=n)
            .rev()
            .map(|rows| Banding {
                bands: n / rows,
                rows,
            })
            .find(|b| b.miss_probability(threshold) <= Self::MAX_MISS)
            .unwrap_or(Banding { bands: n, rows: 1 })
    }

    /// The banding that misses no pair at or over `threshold`, by the
    /// pigeonhole rule: a pair that reaches the threshold agrees on at
    /// least `m` of the `n` slots, so it disagrees on at most `n − m`. Cut
    /// into `n − m + 1` bands, at least one band holds no disagreement, and
    /// the pair meets in that band's bucket. The candidates are then all
    /// the pairs brute force over every pair would report, proven, not
    /// probable; the price is shorter bands, so more candidates to check.
    ///
    /// ```
    /// use neardup::{Banding, Threshold};
    /// let t = Threshold::NEAR_DUPLICATE;
    /// let b = Banding::exact(t, 128); // 96 of 128 slots: at most 32 differ
    /// assert_eq!((b.bands(), b.rows()), (33, 3));
    /// assert!(b.misses_none(t, 128));
    /// assert!(!Banding::for_threshold(t, 128).misses_none(t, 128));
    /// ```
    pub fn exact(threshold: Threshold, n: usize) -> Banding {
        let n = n.max(1);
        let bands = n - threshold.min_matches(n) as usize + 1;
        Banding {
            bands,
            rows: n / bands,
        }
    }

    /// Whether this banding misses no pair that reaches `threshold` with
    /// `n` slots (the pigeonhole rule of [`Banding::exact`]): it has more
    /// bands than a reported pair can have disagreeing slots. Slots past
    /// `bands·rows` only take disagreements away from the bands.
    pub fn misses_none(self, threshold: Threshold, n: usize) -> bool {
        self.bands > n.saturating_sub(threshold.min_matches(n) as usize)
    }

    /// The number of bands `b`.
    pub fn bands(self) -> usize {
        self.bands
    }

    /// The number of slots per band `r`.
    pub fn rows(self) -> usize {
        self.rows
    }

    /// `(1 - t^r)^b`: the probability that a pair whose slots agree with
    /// probability `t` shares no band, under MinHash's model. (An
    /// [`exact`](Banding::exact) banding misses nothing whatever this says:
    /// see [`Banding::misses_none`].)
    pub fn miss_probability(self, threshold: Threshold) -> f64 {
        let t = threshold.as_f64();
        let mut all_rows = 1.0;
        for _ in 0..self.rows {
            all_rows *= t;
        }
        let mut miss = 1.0;
        for _ in 0..self.bands {
            miss *= 1.0 - all_rows;
        }
        miss
    }

    /// The key of band `band` of `signature`: a fixed 64-bit mix of the
    /// band's slot values, the same on every platform and every compiler
    /// (never `std::hash`). Equal slots give equal keys; different slots
    /// give different keys except by a 64-bit accident, which verification
    /// filters out.
    ///
    /// # Panics
    /// If `band >= self.bands()` or the signature is shorter than the
    /// banding: a programming error, since a [`crate::scan::Plan`] checks
    /// every signature's length before banding it.
    pub fn key(self, signature: &Signature, band: usize) -> u64 {
        assert!(band < self.bands, "band {band} out of {}", self.bands);
        let mut h = mix(0x6e65_6172_6475_7031 ^ band as u64);
        for &slot in self.band(signature.slots(), band) {
            h = mix(h ^ u64::from(slot));
        }
        h
    }

    /// The slots of band `band`.
    pub fn band(self, slots: &[u32], band: usize) -> &[u32] {
        &slots[band * self.rows..(band + 1) * self.rows]
    }

    /// The first band whose slots all agree, if any: the one band where a
    /// candidate pair is counted, so that no pair is verified twice.
    pub fn first_shared_band(self, a: &Signature, b: &Signature) -> Option<usize> {
        let (a, b) = (a.slots(), b.slots());
        (0..self.bands).find(|&e| self.band(a, e) == self.band(b, e))
    }
}

/// SplitMix64's finalizer: a fixed bijection on 64-bit integers that spreads
/// every input bit over the output.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Params;

    fn t(bp: u32) -> Threshold {
        Threshold::from_basis_points(bp).unwrap()
    }

    #[test]
    fn min_matches_is_the_least_count_accepted() {
        for bp in [1, 3333, 5000, 7500, 7501, 9000, 9999, 10_000] {
            for n in 16..=256 {
                let m = t(bp).min_matches(n);
                assert!(t(bp).accepts(m, n), "{bp} {n}");
                assert!(m == 1 || !t(bp).accepts(m - 1, n), "{bp} {n}");
                let exact = Banding::exact(t(bp), n);
                assert!(Banding::new(exact.bands(), exact.rows(), n).is_ok());
                assert!(exact.misses_none(t(bp), n));
            }
        }
    }

    #[test]
    fn default_choice_and_its_miss_probability() {
        let b = Banding::for_threshold(t(7500), 128);
        assert_eq!((b.bands(), b.rows()), (25, 5));
        let miss = b.miss_probability(t(7500));
        // (1 - 0.75^5)^25
        assert!((miss - 0.001_154).abs() < 1e-5, "{miss}");
        // One more row per band would miss more than 1%.
        let greedier = Banding::new(128 / 6, 6, 128).unwrap();
        assert!(greedier.miss_probability(t(7500)) > Banding::MAX_MISS);
    }

    #[test]
    fn every_choice_meets_the_target() {
        for n in [16, 64, 128, 256] {
            for bp in (500..=10_000).step_by(500) {
                let b = Banding::for_threshold(t(bp), n);
                assert!(b.bands() * b.rows() <= n);
                if b.miss_probability(t(bp)) > Banding::MAX_MISS {
                    // Unreachable target: the best recall there is.
                    assert_eq!((b.bands(), b.rows()), (n, 1), "{n} {bp}");
                    continue;
                }
                // rows is the largest that meets it
                if b.rows() < n {
                    let more = Banding::new(n / (b.rows() + 1), b.rows() + 1, n).unwrap();
                    assert!(more.miss_probability(t(bp)) > Banding::MAX_MISS);
                }
            }
        }
        assert_eq!(Banding::for_threshold(t(10_000), 128).rows(), 128);
    }

    #[test]
    fn thresholds_are_exact() {
        assert!(t(7500).accepts(96, 128));
        assert!(!t(7500).accepts(95, 128));
        assert!(t(10_000).accepts(128, 128));
        assert!(!t(10_000).accepts(127, 128));
        assert!(Threshold::from_basis_points(10_001).is_err());
    }

    #[test]
    fn thresholds_parse_exactly() {
        let bp = |s: &str| Threshold::parse(s).map(|t| t.basis_points());
        assert_eq!(bp("0.75"), Ok(7500));
        assert_eq!(bp(".8"), Ok(8000));
        assert_eq!(bp("1"), Ok(10_000));
        assert_eq!(bp("1.0"), Ok(10_000));
        assert_eq!(bp("0.0001"), Ok(1));
        for bad in [
            "0", "0.0", "1.5", "2", "0.12345", "-0.5", "", ".", "0.7x", "1e-1", "+.5", "0.-1",
        ] {
            assert!(bp(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Threshold::parse("1.5").unwrap_err().to_string(),
            "'1.5' is not a threshold like 0.75 (0 < T <= 1, at most 4 decimals)"
        );
        for t in ["0.75", "1", "0.0001", "0.35", "0.7"] {
            assert_eq!(Threshold::parse(t).unwrap().to_string(), t);
        }
    }

    #[test]
    fn first_shared_band() {
        let b = Banding::new(4, 4, 16).unwrap();
        let a = Signature::from_slots((0..16).collect()).unwrap();
        let mut slots: Vec<u32> = (0..16).collect();
        slots[0] = 99;
        slots[5] = 99;
        let c = Signature::from_slots(slots).unwrap();
        assert_eq!(b.first_shared_band(&a, &c), Some(2));
        assert_eq!(b.first_shared_band(&a, &a), Some(0));
    }

    #[test]
    fn banding_must_fit() {
        assert!(Banding::new(32, 4, 128).is_ok());
        assert!(Banding::new(33, 4, 128).is_err());
        assert!(Banding::new(0, 4, 128).is_err());
        assert!(Banding::new(usize::MAX, 2, 128).is_err());
        assert_eq!(
            Banding::new(33, 4, 128).unwrap_err().to_string(),
            "33 bands × 4 rows must be at least 1 each and use at most n = 128 slots"
        );
    }

    #[test]
    fn keys_are_pinned_and_follow_the_slots() {
        let p = Params::new(1, 16).unwrap();
        let a = Signature::from_base_hashes(&[1, 2, 3], p).unwrap();
        let mut slots = a.slots().to_vec();
        slots[15] ^= 1;
        let b = Signature::from_slots(slots).unwrap();
        let banding = Banding::new(4, 4, 16).unwrap();
        for band in 0..3 {
            assert_eq!(banding.key(&a, band), banding.key(&b, band));
        }
        assert_ne!(banding.key(&a, 3), banding.key(&b, 3));
        // A fixed function: this value must never change between builds.
        let zero = Signature::from_slots(vec![0; 16]).unwrap();
        assert_eq!(banding.key(&zero, 0), banding.key(&zero, 0));
        assert_ne!(banding.key(&zero, 0), banding.key(&zero, 1));
        assert_eq!(mix(0), 0xe220_a839_7b1d_cdaf);
    }
}
