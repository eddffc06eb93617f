//! `neardup.Fingerprint` and `neardup.sign`: one document's digest, shingle
//! count and signature.

use neardup::{Signature, SignatureRecord};
use numpy::PyArray1;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString, PyType};

use crate::error::to_py;
use crate::interrupt::{detached, guard, DETACHED_BYTES};
use crate::params::{given_or_default, params, repr_words, type_name, Int, Words};
use crate::texts::{as_str, utf8};

/// One document reduced to what a receipt records of it: SHA-256 of its
/// normalized text, its distinct shingle count and its MinHash signature.
#[pyclass(module = "neardup", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct Fingerprint(pub neardup::Fingerprint);

#[pymethods]
impl Fingerprint {
    /// Reads one line of `neardup sign` output (a signature record)
    /// strictly: its parts must agree with each other. The id is not kept.
    #[classmethod]
    fn parse(_cls: &Bound<'_, PyType>, line: &Bound<'_, PyAny>) -> PyResult<Fingerprint> {
        guard("Fingerprint.parse", || {
            let bytes = utf8(line, "line")?;
            let record =
                SignatureRecord::parse(bytes.as_bytes().trim_ascii_end()).map_err(to_py)?;
            Ok(Fingerprint(record.fingerprint))
        })
    }

    /// The line `neardup sign --jsonl` writes for this document under id
    /// `id` (a `str` or an `int`), without its newline.
    fn to_json(&self, id: &Bound<'_, PyAny>) -> PyResult<String> {
        let mut out = String::new();
        SignatureRecord::write(&mut out, "id", &id_json(id, "id")?, &self.0);
        out.pop();
        Ok(out)
    }

    /// The shingle size the fingerprint was made with.
    #[getter]
    fn k(&self) -> usize {
        self.0.params.k()
    }

    /// The number of permutations (signature length).
    #[getter]
    fn n(&self) -> usize {
        self.0.params.n()
    }

    /// The word rule it was made with, `"space"` or `"script"`.
    #[getter]
    fn words(&self) -> &'static str {
        self.0.params.words().name()
    }

    /// SHA-256 of the normalized text's UTF-8 bytes, 64 lowercase hex digits.
    #[getter]
    fn normalized_sha256(&self) -> String {
        self.0.normalized_sha256.to_string()
    }

    /// The number of distinct shingles.
    #[getter]
    fn shingles(&self) -> u64 {
        self.0.shingles
    }

    /// The signature, `n` slots of `uint32`, or `None` for a text with fewer
    /// than `k` words. A new array on each access.
    #[getter]
    fn signature<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<u32>>> {
        self.0
            .signature
            .as_ref()
            .map(|s| PyArray1::from_slice(py, s.slots()))
    }

    /// SHA-256 of the signature's hex string (the receipt's
    /// `signature_sha256`), or `None` without a signature.
    #[getter]
    fn signature_sha256(&self) -> Option<String> {
        self.0.signature.as_ref().map(|s| s.sha256().to_string())
    }

    /// The signature as `8·n` lowercase hex digits (SPEC §9), as in `neardup
    /// sign` output, or `None`.
    #[getter]
    fn signature_hex(&self) -> Option<String> {
        self.0.signature.as_ref().map(Signature::to_hex)
    }

    fn __repr__(&self) -> String {
        format!(
            "Fingerprint(k={}, n={}{}, normalized_sha256='{}', shingles={}, signature={})",
            self.0.params.k(),
            self.0.params.n(),
            repr_words(self.0.params),
            self.0.normalized_sha256,
            self.0.shingles,
            match &self.0.signature {
                Some(s) => format!("'{}…'", &s.to_hex()[..16]),
                None => "None".to_owned(),
            }
        )
    }

    /// Pickled as its signature record, which [`Fingerprint::parse`] reads
    /// back with every check.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let mut line = String::new();
        SignatureRecord::write(&mut line, "id", "0", &slf.get().0);
        Ok((slf.get_type().getattr("parse")?, (line,)))
    }
}

/// An id as the JSON text the core's lines take: a `str` as its JSON
/// string, an `int` as its digits. Anything else is a `TypeError` naming
/// `what` (`ids[3]`).
pub fn id_json(id: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    if let Ok(s) = id.cast::<PyString>() {
        let bytes = s.encode_utf8()?;
        let s = as_str(bytes.as_bytes(), what).map_err(PyValueError::new_err)?;
        return Ok(neardup::scan::lines::json_string(s));
    }
    if id.is_instance_of::<PyInt>() && !id.is_instance_of::<PyBool>() {
        return Ok(id.str()?.to_string());
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be a str or an int, got {}",
        type_name(id)
    )))
}

/// `neardup.sign(text, k=5, n=128, words="space")`: normalizes, shingles
/// and signs one text, with the GIL released; a long one [`detached`], as
/// `compare` does.
#[pyfunction]
#[pyo3(signature = (text, k = None, n = None, words = None))]
pub fn sign(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    k: Option<Int>,
    n: Option<Int>,
    words: Option<Words>,
) -> PyResult<Fingerprint> {
    let (k, n) = given_or_default(k, n);
    guard("sign", || {
        let params = params(&k, &n, words)?;
        let bytes = utf8(text, "text")?;
        let text = as_str(bytes.as_bytes(), "text").map_err(PyValueError::new_err)?;
        let inner = if text.len() < DETACHED_BYTES {
            py.detach(|| neardup::Fingerprint::of(text, params))
        } else {
            let text = text.to_owned();
            detached(py, "sign", move || neardup::Fingerprint::of(&text, params))?
        };
        Ok(Fingerprint(inner))
    })
}
