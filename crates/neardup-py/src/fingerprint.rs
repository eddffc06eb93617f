//! `neardup.Fingerprint` and `neardup.sign`: one document's digest, shingle
//! count and signature.

use neardup::{Digest, Params, Signature};
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::error::to_py;
use crate::params::{params, Int};
use crate::texts::{as_str, utf8};

/// One document reduced to what a receipt records of it: SHA-256 of its
/// normalized text, its distinct shingle count and its MinHash signature.
#[pyclass(module = "neardup", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct Fingerprint {
    pub params: Params,
    pub inner: neardup::Fingerprint,
}

#[pymethods]
impl Fingerprint {
    /// The shingle size the fingerprint was made with.
    #[getter]
    fn k(&self) -> usize {
        self.params.k()
    }

    /// The number of permutations (signature length).
    #[getter]
    fn n(&self) -> usize {
        self.params.n()
    }

    /// SHA-256 of the normalized text's UTF-8 bytes, 64 lowercase hex digits.
    #[getter]
    fn normalized_sha256(&self) -> String {
        self.inner.normalized_sha256.to_string()
    }

    /// The number of distinct shingles.
    #[getter]
    fn shingles(&self) -> u64 {
        self.inner.shingles
    }

    /// The signature, `n` slots of `uint32`, or `None` for a text with fewer
    /// than `k` words. A new array on each access.
    #[getter]
    fn signature<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<u32>>> {
        self.inner
            .signature
            .as_ref()
            .map(|s| PyArray1::from_slice(py, s.slots()))
    }

    /// SHA-256 of the signature's hex string (the receipt's
    /// `signature_sha256`), or `None` without a signature.
    #[getter]
    fn signature_sha256(&self) -> Option<String> {
        self.inner
            .signature
            .as_ref()
            .map(|s| s.sha256().to_string())
    }

    /// The signature as `8·n` lowercase hex digits (SPEC §9), as in `neardup
    /// sign` output, or `None`.
    #[getter]
    fn signature_hex(&self) -> Option<String> {
        self.inner.signature.as_ref().map(Signature::to_hex)
    }

    fn __repr__(&self) -> String {
        format!(
            "Fingerprint(k={}, n={}, normalized_sha256='{}', shingles={}, signature={})",
            self.params.k(),
            self.params.n(),
            self.inner.normalized_sha256,
            self.inner.shingles,
            match &self.inner.signature {
                Some(s) => format!("'{}…'", &s.to_hex()[..16]),
                None => "None".to_owned(),
            }
        )
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, FingerprintState)> {
        let me = slf.get();
        let restore = slf.get_type().getattr("_restore")?;
        Ok((
            restore,
            (
                me.params.k() as u64,
                me.params.n() as u64,
                me.inner.normalized_sha256.to_string(),
                me.inner.shingles,
                me.inner.signature.as_ref().map(Signature::to_hex),
            ),
        ))
    }

    /// Rebuilds a fingerprint from its parts (what pickling stores):
    /// `k`, `n`, the normalized text's digest, the shingle count and the
    /// signature hex string or `None`.
    #[classmethod]
    fn _restore(
        _cls: &Bound<'_, PyType>,
        k: u64,
        n: u64,
        normalized_sha256: &str,
        shingles: u64,
        signature_hex: Option<&str>,
    ) -> PyResult<Fingerprint> {
        let params = Params::new(k, n).map_err(to_py)?;
        let normalized_sha256 = Digest::from_hex(normalized_sha256).map_err(to_py)?;
        let signature = match signature_hex {
            None => None,
            Some(hex) => Some(
                Signature::from_hex(hex)
                    .filter(|s| s.slots().len() == params.n())
                    .ok_or_else(|| {
                        PyValueError::new_err(format!(
                            "signature must be {} lowercase hex digits (n = {})",
                            8 * params.n(),
                            params.n()
                        ))
                    })?,
            ),
        };
        Ok(Fingerprint {
            params,
            inner: neardup::Fingerprint {
                normalized_sha256,
                shingles,
                signature,
            },
        })
    }
}

type FingerprintState = (u64, u64, String, u64, Option<String>);

/// `neardup.sign(text, k=5, n=128)`: normalizes, shingles and signs one text,
/// with the GIL released.
#[pyfunction]
#[pyo3(signature = (text, k = Int::new(5), n = Int::new(128)))]
pub fn sign(py: Python<'_>, text: &Bound<'_, PyAny>, k: Int, n: Int) -> PyResult<Fingerprint> {
    let params = params(&k, &n)?;
    let bytes = utf8(text, "text")?;
    let bytes = bytes.as_bytes();
    let inner = py
        .detach(|| as_str(bytes, "text").map(|t| neardup::Fingerprint::of(t, params)))
        .map_err(PyValueError::new_err)?;
    Ok(Fingerprint { params, inner })
}
