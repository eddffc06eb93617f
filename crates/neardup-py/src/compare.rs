//! `neardup.compare` and `neardup.Comparison`.

use std::time::Instant;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::error::to_py;
use crate::fingerprint::Fingerprint;
use crate::interrupt::guard;
use crate::pair::of_texts;
use crate::params::{given_or_default, params, Int, Words};
use crate::receipt::Receipt;
use crate::texts::utf8;

/// The result of comparing two texts: the verdict, the MinHash similarity
/// with its 95% interval, the exact Jaccard similarity, and the receipt.
#[pyclass(module = "neardup", frozen)]
#[derive(Clone)]
pub struct Comparison {
    inner: neardup::Comparison,
    elapsed_ms: f64,
}

#[pymethods]
impl Comparison {
    /// `"IDENTICAL"`, `"NEAR-DUPLICATE"`, `"OVERLAPPING"`, `"DISTINCT"` or
    /// `"INSUFFICIENT-DATA"`.
    #[getter]
    fn verdict(&self) -> &'static str {
        self.inner.receipt.verdict.as_str()
    }

    /// Matching signature slots out of `n`; `None` when a text has fewer
    /// than `k` words (no signature).
    #[getter]
    fn matches(&self) -> Option<u32> {
        self.inner.receipt.matches
    }

    /// The number of permutations (signature slots).
    #[getter]
    fn n(&self) -> usize {
        self.inner.receipt.params.n()
    }

    /// The shingle size in words.
    #[getter]
    fn k(&self) -> usize {
        self.inner.receipt.params.k()
    }

    /// The word rule, `"space"` or `"script"`: which algorithm the
    /// receipt names.
    #[getter]
    fn words(&self) -> &'static str {
        self.inner.receipt.params.words().name()
    }

    /// `matches / n`, or `None`. For display: the verdict is decided in
    /// integers.
    #[getter]
    fn similarity(&self) -> Option<f64> {
        self.inner.estimate().map(|e| e.similarity)
    }

    /// The 95% interval of the similarity, `(low, high)`, or `None`.
    #[getter]
    fn interval_95(&self) -> Option<(f64, f64)> {
        self.inner.estimate().map(|e| (e.low, e.high))
    }

    /// The exact Jaccard similarity of the two distinct shingle sets, or
    /// `None` when both are empty. Never part of the receipt.
    #[getter]
    fn jaccard(&self) -> Option<f64> {
        self.inner.jaccard()
    }

    /// How much of each text is found in the other, `(a_in_b, b_in_a,
    /// shared)`: the shares of A's and B's distinct shingles that the other
    /// holds (`None` for a text without shingles) and how many they share.
    /// Exact, like `jaccard`, and never part of the receipt.
    #[getter]
    fn containment(&self) -> (Option<f64>, Option<f64>, u64) {
        let c = &self.inner.containment;
        (c.a_in_b(), c.b_in_a(), c.shared)
    }

    /// The receipt.
    #[getter]
    fn receipt(&self) -> Receipt {
        Receipt(self.inner.receipt)
    }

    /// The receipt hash: SHA-256 of its canonical form.
    #[getter]
    fn receipt_sha256(&self) -> String {
        self.inner.receipt.sha256().to_string()
    }

    /// The two documents' fingerprints, A then B.
    #[getter]
    fn fingerprints(&self) -> (Fingerprint, Fingerprint) {
        let [a, b] = self.inner.fingerprints.clone();
        (Fingerprint(a), Fingerprint(b))
    }

    /// Milliseconds the comparison took (not part of the receipt).
    #[getter]
    fn elapsed_ms(&self) -> f64 {
        self.elapsed_ms
    }

    /// The object `neardup compare --json` prints (the core's report plus
    /// `elapsed_ms`), as one line of JSON text. `a` and `b` are the names
    /// it shows for the two texts, `null` unless given.
    #[pyo3(signature = (a = None, b = None))]
    fn to_json(&self, a: Option<&str>, b: Option<&str>) -> PyResult<String> {
        let report = self.inner.report([a.unwrap_or(""), b.unwrap_or("")]);
        let mut out =
            serde_json::to_value(report).map_err(|e| PyValueError::new_err(e.to_string()))?;
        out["a"] = a.into();
        out["b"] = b.into();
        out["elapsed_ms"] = self.elapsed_ms.into();
        Ok(out.to_string())
    }

    fn __repr__(&self) -> String {
        let show = |x: Option<f64>| x.map_or("None".to_owned(), |x| format!("{x:.4}"));
        let r = &self.inner.receipt;
        format!(
            "Comparison(verdict='{}', matches={}, n={}{}, similarity={}, jaccard={}, receipt_sha256='{}')",
            r.verdict,
            r.matches.map_or("None".to_owned(), |m| m.to_string()),
            r.params.n(),
            crate::params::repr_words(r.params),
            show(self.similarity()),
            show(self.inner.jaccard()),
            r.sha256()
        )
    }

    /// Pickled as the two fingerprints (the receipt and the shingle counts
    /// are rebuilt from them), the shared shingles and the time taken.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, ComparisonState)> {
        let me = slf.get();
        let (a, b) = me.fingerprints();
        Ok((
            slf.get_type().getattr("_restore")?,
            (a, b, me.inner.containment.shared, me.elapsed_ms),
        ))
    }

    /// Rebuilds a comparison from what pickling stores.
    #[classmethod]
    fn _restore(
        _cls: &Bound<'_, PyType>,
        a: &Bound<'_, Fingerprint>,
        b: &Bound<'_, Fingerprint>,
        shared: u64,
        elapsed_ms: f64,
    ) -> PyResult<Comparison> {
        guard("Comparison._restore", || {
            let (a, b) = (a.get().0.clone(), b.get().0.clone());
            let receipt = neardup::Receipt::new(&a, &b).map_err(to_py)?;
            let containment = neardup::Containment::new(shared, [a.shingles, b.shingles]);
            Ok(Comparison {
                inner: neardup::Comparison {
                    receipt,
                    fingerprints: [a, b],
                    containment,
                },
                elapsed_ms,
            })
        })
    }
}

/// What pickling stores of a [`Comparison`].
type ComparisonState = (Fingerprint, Fingerprint, u64, f64);

/// `neardup.compare(a, b, k=5, n=128, words="space")`: compares text `a`
/// with text `b` (the order matters for the receipt), with the GIL
/// released. `words="script"` is SPEC §11's variant.
#[pyfunction]
#[pyo3(signature = (a, b, k = None, n = None, words = None))]
pub fn compare(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    k: Option<Int>,
    n: Option<Int>,
    words: Option<Words>,
) -> PyResult<Comparison> {
    guard("compare", || {
        let start = Instant::now();
        let (k, n) = given_or_default(k, n);
        let params = params(&k, &n, words)?;
        let (a, b) = (utf8(a, "a")?, utf8(b, "b")?);
        let inner = of_texts(py, "compare", &a, &b, params)?;
        Ok(Comparison {
            inner,
            // Microsecond resolution, as the CLI's: finer digits would be noise.
            elapsed_ms: (start.elapsed().as_secs_f64() * 1e6).round() / 1e3,
        })
    })
}
