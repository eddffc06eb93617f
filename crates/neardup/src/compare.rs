//! Comparing two texts: the receipt plus what only humans need.

use crate::{normalize, Backend, Fingerprint, Params, Receipt, ShingleSet};

/// The result of comparing two texts.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The receipt (SPEC §9): the part anyone can recompute.
    pub receipt: Receipt,
    /// Document A's and B's fingerprints, signatures included.
    pub fingerprints: [Fingerprint; 2],
    /// The exact Jaccard similarity of the two distinct shingle sets, which
    /// the MinHash similarity estimates. `None` when both sets are empty.
    /// For humans only: never part of a receipt.
    pub jaccard: Option<f64>,
}

/// A MinHash similarity `matches / N` with its 95% interval
/// `p ± 1.96·sqrt(p(1-p)/N)`, clipped to `[0, 1]`. For display only:
/// verdicts are decided in integers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// `matches / N`.
    pub similarity: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

impl Estimate {
    /// The estimate for `matches` of `n` slots.
    ///
    /// ```
    /// let e = neardup::Estimate::new(64, 128);
    /// assert_eq!(e.similarity, 0.5);
    /// assert!((e.high - e.low - 2.0 * 1.96 * (0.25f64 / 128.0).sqrt()).abs() < 1e-12);
    /// ```
    pub fn new(matches: u32, n: usize) -> Estimate {
        let p = f64::from(matches) / n as f64;
        let half = 1.96 * (p * (1.0 - p) / n as f64).sqrt();
        Estimate {
            similarity: p,
            low: (p - half).clamp(0.0, 1.0),
            high: (p + half).clamp(0.0, 1.0),
        }
    }
}

impl Comparison {
    /// The MinHash estimate, when both documents have a signature.
    pub fn estimate(&self) -> Option<Estimate> {
        self.receipt
            .matches
            .map(|m| Estimate::new(m, self.receipt.params.n()))
    }
}

/// Compares text `a` with text `b` (the order matters for the receipt).
///
/// ```
/// use neardup::{compare, Params, Verdict};
/// let a = "It was the best of times, it was the worst of times, it was the age of wisdom";
/// let b = "It was the best of times, it was the worst of times; it was the age of wisdom";
/// let c = compare(a, b, Params::new(3, 128)?);
/// assert_eq!(c.receipt.verdict, Verdict::Overlapping);
/// assert_eq!(compare(a, &a.to_uppercase(), Params::DEFAULT).receipt.verdict, Verdict::Identical);
/// # Ok::<(), neardup::Error>(())
/// ```
pub fn compare(a: &str, b: &str, params: Params) -> Comparison {
    compare_with(a, b, params, Backend::detect())
}

/// [`compare`] on a chosen backend.
pub fn compare_with(a: &str, b: &str, params: Params, backend: Backend) -> Comparison {
    let (na, nb) = (normalize(a), normalize(b));
    let (sa, sb) = (
        ShingleSet::with_backend(&na, params.k(), backend),
        ShingleSet::with_backend(&nb, params.k(), backend),
    );
    Comparison::of_sets([(&na, &sa), (&nb, &sb)], params)
}

impl Comparison {
    /// The comparison of two normalized texts whose shingle sets the caller
    /// built, [`compare`]'s last step. It lets a caller with threads
    /// normalize and shingle the two texts at the same time; this crate
    /// stays single-threaded so that it runs anywhere, wasm included.
    pub fn of_sets(docs: [(&str, &ShingleSet<'_>); 2], params: Params) -> Comparison {
        let [(na, sa), (nb, sb)] = docs;
        let fa = Fingerprint::of_set(na, sa, params);
        let fb = Fingerprint::of_set(nb, sb, params);
        Comparison {
            receipt: Receipt::new(&fa, &fb, params),
            jaccard: sa.jaccard(sb),
            fingerprints: [fa, fb],
        }
    }
}
