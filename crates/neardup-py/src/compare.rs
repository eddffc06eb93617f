//! `neardup.compare` and `neardup.Comparison`.

use std::time::Instant;

use neardup::{Estimate, Params, ShingleSet};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyType;
use serde_json::json;

use crate::error::to_py;
use crate::params::{params, Int};
use crate::receipt::Receipt;
use crate::texts::{as_str, utf8};

/// The result of comparing two texts: the verdict, the MinHash similarity
/// with its 95% interval, the exact Jaccard similarity, and the receipt.
#[pyclass(module = "neardup", frozen)]
#[derive(Clone)]
pub struct Comparison {
    receipt: neardup::Receipt,
    jaccard: Option<f64>,
    elapsed_ms: f64,
}

impl Comparison {
    fn estimate(&self) -> Option<Estimate> {
        self.receipt
            .matches
            .map(|m| Estimate::new(m, self.receipt.params.n()))
    }
}

#[pymethods]
impl Comparison {
    /// `"IDENTICAL"`, `"NEAR-DUPLICATE"`, `"OVERLAPPING"`, `"DISTINCT"` or
    /// `"INSUFFICIENT-DATA"`.
    #[getter]
    fn verdict(&self) -> &'static str {
        self.receipt.verdict.as_str()
    }

    /// Matching signature slots out of `n`; `None` when a text has fewer
    /// than `k` words (no signature).
    #[getter]
    fn matches(&self) -> Option<u32> {
        self.receipt.matches
    }

    /// The number of permutations (signature slots).
    #[getter]
    fn n(&self) -> usize {
        self.receipt.params.n()
    }

    /// The shingle size in words.
    #[getter]
    fn k(&self) -> usize {
        self.receipt.params.k()
    }

    /// `matches / n`, or `None`. For display: the verdict is decided in
    /// integers.
    #[getter]
    fn similarity(&self) -> Option<f64> {
        self.estimate().map(|e| e.similarity)
    }

    /// The 95% interval of the similarity, `(low, high)`, or `None`.
    #[getter]
    fn interval_95(&self) -> Option<(f64, f64)> {
        self.estimate().map(|e| (e.low, e.high))
    }

    /// The exact Jaccard similarity of the two distinct shingle sets, or
    /// `None` when both are empty. Never part of the receipt.
    #[getter]
    fn jaccard(&self) -> Option<f64> {
        self.jaccard
    }

    /// The receipt.
    #[getter]
    fn receipt(&self) -> Receipt {
        Receipt(self.receipt)
    }

    /// The receipt hash: SHA-256 of its canonical form.
    #[getter]
    fn receipt_sha256(&self) -> String {
        self.receipt.sha256().to_string()
    }

    /// Milliseconds the comparison took (not part of the receipt).
    #[getter]
    fn elapsed_ms(&self) -> f64 {
        self.elapsed_ms
    }

    /// The object `neardup compare --json` prints, as one line of JSON
    /// text: `a` and `b` are the names shown for the two texts (`null`
    /// unless given).
    #[pyo3(signature = (a = None, b = None))]
    fn to_json(&self, a: Option<&str>, b: Option<&str>) -> String {
        let estimate = self.estimate();
        json!({
            "a": a,
            "b": b,
            "verdict": self.receipt.verdict.as_str(),
            "matches": self.receipt.matches,
            "n": self.receipt.params.n(),
            "similarity": estimate.map(|e| e.similarity),
            "similarity_interval_95": estimate.map(|e| [e.low, e.high]),
            "jaccard": self.jaccard,
            "receipt": self.receipt.to_json(),
            "receipt_sha256": self.receipt.sha256().to_string(),
            "elapsed_ms": self.elapsed_ms,
        })
        .to_string()
    }

    fn __repr__(&self) -> String {
        let show = |x: Option<f64>, digits: usize| {
            x.map_or("None".to_owned(), |x| format!("{x:.digits$}"))
        };
        format!(
            "Comparison(verdict='{}', matches={}, n={}, similarity={}, jaccard={}, receipt_sha256='{}')",
            self.receipt.verdict,
            self.receipt
                .matches
                .map_or("None".to_owned(), |m| m.to_string()),
            self.receipt.params.n(),
            show(self.similarity(), 4),
            show(self.jaccard, 4),
            self.receipt.sha256()
        )
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, ComparisonState)> {
        let me = slf.get();
        Ok((
            slf.get_type().getattr("_restore")?,
            (me.receipt.canonical(), me.jaccard, me.elapsed_ms),
        ))
    }

    /// Rebuilds a comparison from what pickling stores: the canonical
    /// receipt, the Jaccard similarity and the time taken.
    #[classmethod]
    fn _restore(
        _cls: &Bound<'_, PyType>,
        receipt: &str,
        jaccard: Option<f64>,
        elapsed_ms: f64,
    ) -> PyResult<Comparison> {
        Ok(Comparison {
            receipt: neardup::Receipt::parse(receipt).map_err(to_py)?,
            jaccard,
            elapsed_ms,
        })
    }
}

/// What pickling stores of a [`Comparison`].
type ComparisonState = (String, Option<f64>, f64);

/// `neardup.compare(a, b, k=5, n=128)`: compares text `a` with text `b`
/// (the order matters for the receipt), with the GIL released.
#[pyfunction]
#[pyo3(signature = (a, b, k = Int::new(5), n = Int::new(128)))]
pub fn compare(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    k: Int,
    n: Int,
) -> PyResult<Comparison> {
    let start = Instant::now();
    let params = params(&k, &n)?;
    let (a, b) = (utf8(a, "a")?, utf8(b, "b")?);
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let c = py
        .detach(|| -> Result<_, String> {
            Ok(in_parallel(as_str(a, "a")?, as_str(b, "b")?, params))
        })
        .map_err(PyValueError::new_err)?;
    Ok(Comparison {
        receipt: c.receipt,
        jaccard: c.jaccard,
        // Microsecond resolution, as the CLI's: finer digits would be noise.
        elapsed_ms: (start.elapsed().as_secs_f64() * 1e6).round() / 1e3,
    })
}

/// [`neardup::compare`], with the two texts normalized and shingled on two
/// threads at once (as `neardup compare` does).
pub fn in_parallel(a: &str, b: &str, params: Params) -> neardup::Comparison {
    let (na, nb) = rayon::join(|| neardup::normalize(a), || neardup::normalize(b));
    let k = params.k();
    let (sa, sb) = rayon::join(|| ShingleSet::new(&na, k), || ShingleSet::new(&nb, k));
    neardup::Comparison::of_sets([(&na, &sa), (&nb, &sb)], params)
}
