//! The core's errors as Python exceptions.

use pyo3::exceptions::{
    PyBlockingIOError, PyFileExistsError, PyFileNotFoundError, PyOSError, PyPermissionError,
    PyValueError,
};
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

/// Converts an index's error, its message the one line the CLI prints
/// (naming the index or its file): a failed read or write is an `OSError`
/// (`FileNotFoundError`, `PermissionError`… by its kind, `errno` set), a
/// missing index a `FileNotFoundError`, an index another process is
/// writing a `BlockingIOError` (what a refused `flock` is), and documents
/// or settings the index refuses, or a damaged file, a `ValueError`.
pub fn index_to_py(e: neardup_index::Error) -> PyErr {
    use neardup_index::Error;
    use std::io::ErrorKind;
    let message = e.to_string();
    match e {
        Error::Io { source, .. } => {
            let err = match source.kind() {
                ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
                ErrorKind::PermissionDenied => PyPermissionError::new_err(message),
                ErrorKind::AlreadyExists => PyFileExistsError::new_err(message),
                _ => PyOSError::new_err(message),
            };
            if let Some(errno) = source.raw_os_error() {
                // As for MalformedReceipt's fields: cannot fail short of
                // memory exhaustion, and the message says it anyway.
                Python::attach(|py| {
                    let _ = err.value(py).setattr("errno", errno);
                });
            }
            err
        }
        Error::NotAnIndex(_) => PyFileNotFoundError::new_err(message),
        Error::Locked(_) => PyBlockingIOError::new_err(message),
        Error::Damaged(_) | Error::Refused(_) => PyValueError::new_err(message),
        Error::Core(e) => to_py(e),
    }
}
