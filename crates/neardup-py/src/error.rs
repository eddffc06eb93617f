//! The core's errors as Python exceptions.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

pyo3::create_exception!(
    neardup,
    MalformedReceipt,
    PyValueError,
    "A receipt that SPEC §10 rejects. `field` names where (`documents[1].shingles`, or `(root)`), `problem` says what is wrong."
);

/// Converts a core error: a malformed receipt becomes [`MalformedReceipt`]
/// carrying the field, everything else (k or n out of range, a bad digest,
/// invalid UTF-8) a `ValueError`. The message is the core's, the one the CLI
/// prints.
pub fn to_py(e: neardup::Error) -> PyErr {
    match &e {
        neardup::Error::MalformedReceipt { field, problem } => {
            let err = MalformedReceipt::new_err(e.to_string());
            Python::attach(|py| {
                let value = err.value(py);
                // Setting attributes on a fresh exception instance cannot
                // fail short of memory exhaustion; the message holds both
                // anyway.
                let _ = value.setattr("field", field);
                let _ = value.setattr("problem", problem);
            });
            err
        }
        _ => PyValueError::new_err(e.to_string()),
    }
}
