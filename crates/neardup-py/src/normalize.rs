//! `neardup.normalize`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::texts::{as_str, utf8};

/// The normalized text (SPEC §1: lowercase, whitespace collapsed and
/// trimmed): exactly the text whose SHA-256 is `normalized_sha256`.
#[pyfunction]
pub fn normalize(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<String> {
    let bytes = utf8(text, "text")?;
    let bytes = bytes.as_bytes();
    py.detach(|| as_str(bytes, "text").map(neardup::normalize))
        .map_err(PyValueError::new_err)
}
