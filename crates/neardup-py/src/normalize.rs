//! `neardup.normalize`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::interrupt::{detached, guard, DETACHED_BYTES};
use crate::texts::{as_str, utf8};

/// The normalized text (SPEC §1: lowercase, whitespace collapsed and
/// trimmed): exactly the text whose SHA-256 is `normalized_sha256`. A long
/// text is normalized [`detached`], so that Ctrl-C returns at once.
#[pyfunction]
pub fn normalize(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<String> {
    guard("normalize", || {
        let bytes = utf8(text, "text")?;
        let text = as_str(bytes.as_bytes(), "text").map_err(PyValueError::new_err)?;
        if text.len() < DETACHED_BYTES {
            Ok(py.detach(|| neardup::normalize(text)))
        } else {
            let text = text.to_owned();
            detached(py, "normalize", move || neardup::normalize(&text))
        }
    })
}
