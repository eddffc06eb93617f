//! `neardup.Receipt` and `neardup.Mismatch`: parse, canonical form, hash,
//! verify (SPEC §9, §10).

use neardup::Digest;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyType};

use crate::error::to_py;
use crate::interrupt::guard;
use crate::texts::{as_str, utf8};

/// A receipt: the part of a comparison anyone holding the two texts can
/// recompute, bit for bit.
#[pyclass(module = "neardup", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct Receipt(pub neardup::Receipt);

#[pymethods]
impl Receipt {
    /// Parses a receipt strictly (SPEC §10): any key order and whitespace,
    /// but no missing, extra or mistyped field. Also takes the object
    /// `neardup compare --json` prints. Raises `MalformedReceipt` naming the
    /// field.
    #[classmethod]
    fn parse(_cls: &Bound<'_, PyType>, text: &Bound<'_, PyAny>) -> PyResult<Receipt> {
        guard("Receipt.parse", || {
            let bytes = utf8(text, "text")?;
            let text = as_str(bytes.as_bytes(), "text").map_err(PyValueError::new_err)?;
            neardup::Receipt::parse(text).map(Receipt).map_err(to_py)
        })
    }

    /// The canonical JSON: keys sorted, no whitespace. Its SHA-256 is the
    /// receipt hash.
    fn canonical(&self) -> String {
        self.0.canonical()
    }

    /// SHA-256 of the canonical form, 64 lowercase hex digits.
    fn sha256(&self) -> String {
        self.0.sha256().to_string()
    }

    /// Recomputes the receipt of `a` and `b` with this receipt's own `k`,
    /// `n` and word rule (its algorithm id), and lists every field that
    /// differs; empty means verified. With `sha256`, a receipt hash the
    /// texts must also give (as `neardup verify --sha256`).
    #[pyo3(signature = (a, b, sha256 = None))]
    fn verify(
        &self,
        py: Python<'_>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
        sha256: Option<&str>,
    ) -> PyResult<Vec<Mismatch>> {
        guard("Receipt.verify", || {
            let expected = sha256
                .map(Digest::from_hex)
                .transpose()
                .map_err(|e| PyValueError::new_err(format!("sha256: {e}")))?;
            let (a, b) = (utf8(a, "a")?, utf8(b, "b")?);
            let claimed = self.0;
            let actual = crate::pair::of_texts(py, "Receipt.verify", &a, &b, claimed.params)?;
            Ok(claimed
                .check(&actual.receipt, expected.as_ref())
                .mismatches
                .into_iter()
                .map(Mismatch)
                .collect())
        })
    }

    /// The shingle size `k`.
    #[getter]
    fn k(&self) -> usize {
        self.0.params.k()
    }

    /// The number of permutations `n`.
    #[getter]
    fn n(&self) -> usize {
        self.0.params.n()
    }

    /// The word rule its algorithm id names: `"space"`
    /// (`kar-shingle-minhash-v1`) or `"script"`
    /// (`kar-script-shingle-minhash-v1`).
    #[getter]
    fn words(&self) -> &'static str {
        self.0.params.words().name()
    }

    /// The algorithm id, as in the canonical form.
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.0.params.algorithm()
    }

    /// `"IDENTICAL"`, `"NEAR-DUPLICATE"`, `"OVERLAPPING"`, `"DISTINCT"` or
    /// `"INSUFFICIENT-DATA"`.
    #[getter]
    fn verdict(&self) -> &'static str {
        self.0.verdict.as_str()
    }

    /// Matching signature slots, `None` when a document has no signature.
    #[getter]
    fn matches(&self) -> Option<u32> {
        self.0.matches
    }

    /// Documents A and B: dicts of `normalized_sha256`, `shingles` and
    /// `signature_sha256`, as in the canonical form.
    #[getter]
    fn documents<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let docs = self.0.documents.iter().map(|d| -> PyResult<_> {
            let dict = PyDict::new(py);
            dict.set_item("normalized_sha256", d.normalized_sha256.to_string())?;
            dict.set_item("shingles", d.shingles)?;
            dict.set_item(
                "signature_sha256",
                d.signature_sha256.map(|s| s.to_string()),
            )?;
            Ok(dict)
        });
        PyList::new(py, docs.collect::<PyResult<Vec<_>>>()?)
    }

    fn __str__(&self) -> String {
        self.0.canonical()
    }

    fn __repr__(&self) -> String {
        format!(
            "Receipt(verdict='{}', matches={}, k={}, n={}{}, sha256='{}')",
            self.0.verdict,
            self.0.matches.map_or("None".to_owned(), |m| m.to_string()),
            self.0.params.k(),
            self.0.params.n(),
            crate::params::repr_words(self.0.params),
            self.0.sha256()
        )
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        Ok((slf.get_type().getattr("parse")?, (slf.get().0.canonical(),)))
    }
}

/// One field where a claimed receipt and the one the texts give differ.
#[pyclass(module = "neardup", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct Mismatch(pub neardup::Mismatch);

#[pymethods]
impl Mismatch {
    #[new]
    fn new(field: String, claimed: String, actual: String) -> Mismatch {
        Mismatch(neardup::Mismatch {
            field,
            claimed,
            actual,
        })
    }

    /// The JSON path: `documents[1].shingles`, `matches`, `receipt_sha256`…
    #[getter]
    fn field(&self) -> &str {
        &self.0.field
    }

    /// What the receipt says.
    #[getter]
    fn claimed(&self) -> &str {
        &self.0.claimed
    }

    /// What the texts give.
    #[getter]
    fn actual(&self) -> &str {
        &self.0.actual
    }

    /// The difference in words: which document's normalized text, shingle
    /// count or signature differs.
    #[getter]
    fn meaning(&self) -> String {
        self.0.meaning()
    }

    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let r = |s: &str| -> PyResult<String> { Ok(PyString::new(py, s).repr()?.to_string()) };
        Ok(format!(
            "Mismatch(field={}, claimed={}, actual={})",
            r(&self.0.field)?,
            r(&self.0.claimed)?,
            r(&self.0.actual)?
        ))
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyType>, (String, String, String))> {
        let m = &slf.get().0;
        Ok((
            slf.get_type(),
            (m.field.clone(), m.claimed.clone(), m.actual.clone()),
        ))
    }
}
