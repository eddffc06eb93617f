//! Comparing two texts: the receipt plus what only humans need.

use serde::Serialize;

use crate::{
    normalize_with, Backend, Containment, Doc, Error, Fingerprint, Params, Receipt, ShingleSet,
};

/// The result of comparing two texts.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The receipt (SPEC §9): the part anyone can recompute.
    pub receipt: Receipt,
    /// Document A's and B's fingerprints, signatures included.
    pub fingerprints: [Fingerprint; 2],
    /// The shingles the two distinct sets share, with their sizes: the
    /// exact Jaccard similarity, which the MinHash similarity estimates,
    /// and how much of each document is found in the other. For humans
    /// only: never part of a receipt.
    pub containment: Containment,
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
    let (na, nb) = (normalize_with(a, backend), normalize_with(b, backend));
    let (sa, sb) = (
        ShingleSet::with_words(&*na, params.k(), params.words(), backend),
        ShingleSet::with_words(&*nb, params.k(), params.words(), backend),
    );
    Comparison::of_sets([&sa, &sb], params)
}

impl Comparison {
    /// The comparison of two documents, refused when they were made with
    /// different params. It reads neither text again, so a caller with
    /// threads can build the two [`Doc`]s at the same time; this crate
    /// stays single-threaded so that it runs anywhere, wasm included.
    pub fn of(a: &Doc, b: &Doc) -> Result<Comparison, Error> {
        Ok(Comparison {
            receipt: Receipt::new(a.fingerprint(), b.fingerprint())?,
            containment: a.shingles().containment(b.shingles()),
            fingerprints: [a.fingerprint().clone(), b.fingerprint().clone()],
        })
    }

    /// The comparison of two shingle sets of one `K`, both signed with
    /// `params`: [`compare`]'s last step, for texts the caller keeps.
    pub fn of_sets(sets: [&ShingleSet<'_>; 2], params: Params) -> Comparison {
        let [sa, sb] = sets;
        let fa = Fingerprint::of_set(sa.normalized(), sa, params);
        let fb = Fingerprint::of_set(sb.normalized(), sb, params);
        Comparison {
            receipt: Receipt::of_same(&fa, &fb),
            containment: sa.containment(sb),
            fingerprints: [fa, fb],
        }
    }

    /// The exact Jaccard similarity of the two distinct shingle sets,
    /// `None` when both are empty.
    pub fn jaccard(&self) -> Option<f64> {
        self.containment.jaccard()
    }

    /// The MinHash estimate, when both documents have a signature.
    pub fn estimate(&self) -> Option<Estimate> {
        self.receipt
            .matches
            .map(|m| Estimate::new(m, self.receipt.params.n()))
    }

    /// The comparison as every adapter reports it (`neardup compare
    /// --json`, the page, the bindings), naming the documents `names`.
    pub fn report<'a>(&'a self, names: [&'a str; 2]) -> Report<'a> {
        let estimate = self.estimate();
        Report {
            a: names[0],
            b: names[1],
            containment: self.containment,
            jaccard: self.jaccard(),
            matches: self.receipt.matches,
            n: self.receipt.params.n(),
            receipt: &self.receipt,
            receipt_sha256: self.receipt.sha256().to_string(),
            similarity: estimate.map(|e| e.similarity),
            similarity_interval_95: estimate.map(|e| [e.low, e.high]),
            verdict: self.receipt.verdict.as_str(),
        }
    }
}

/// One comparison's JSON object, the one schema of every adapter: the
/// receipt and its hash, plus figures for humans that are deliberately
/// kept outside the receipt. Fields are in key order, as the CLI has
/// always printed them.
///
/// ```
/// use neardup::{compare, Params};
/// let c = compare("a b c d e f g h", "a b c d e f g x", Params::new(2, 128).unwrap());
/// let json = serde_json::to_value(c.report(["a.txt", "b.txt"]))?;
/// assert_eq!(json["verdict"], c.receipt.verdict.as_str());
/// assert_eq!(json["receipt_sha256"], c.receipt.sha256().to_string());
/// assert_eq!(json["receipt"]["algorithm"], "kar-shingle-minhash-v1");
/// assert_eq!(json["similarity_interval_95"].as_array().unwrap().len(), 2);
/// assert_eq!(json["containment"]["shared"], 6); // a b, b c, … f g
/// assert_eq!(json["containment"]["a_in_b"], 6.0 / 7.0);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Serialize)]
pub struct Report<'a> {
    /// Document A's name.
    pub a: &'a str,
    /// Document B's name.
    pub b: &'a str,
    /// How much of each document is found in the other, `{"a_in_b",
    /// "b_in_a", "shared"}`: evidence beside the receipt, never in it.
    pub containment: Containment,
    /// The exact Jaccard similarity, `null` when both sets are empty.
    pub jaccard: Option<f64>,
    /// The receipt's matching slots.
    pub matches: Option<u32>,
    /// `N`.
    pub n: usize,
    /// The receipt, as its canonical object.
    pub receipt: &'a Receipt,
    /// SHA-256 of the canonical receipt.
    pub receipt_sha256: String,
    /// `matches / N`.
    pub similarity: Option<f64>,
    /// The 95% interval of the similarity, `[low, high]`.
    pub similarity_interval_95: Option<[f64; 2]>,
    /// The verdict's name.
    pub verdict: &'static str,
}
