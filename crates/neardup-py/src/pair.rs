//! Two texts compared with the GIL released: the one path that
//! `neardup.compare` and `Receipt.verify` both take, so that a receipt
//! verified in Python is made exactly as it was made.

use neardup::{Doc, Params};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::error::to_py;
use crate::interrupt::{detached, DETACHED_BYTES};
use crate::texts::as_str;
use crate::workers::Workers;

/// [`neardup::compare`] of two texts from [`utf8`](crate::texts::utf8) with the GIL released,
/// the two documents made on two threads at once (as `neardup compare`
/// does); long ones [`detached`], so that Ctrl-C returns at once. `call`
/// names the Python call.
pub fn of_texts(
    py: Python<'_>,
    call: &'static str,
    a: &Bound<'_, PyBytes>,
    b: &Bound<'_, PyBytes>,
    params: Params,
) -> PyResult<neardup::Comparison> {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (a, b) = (
        as_str(a, "a").map_err(PyValueError::new_err)?,
        as_str(b, "b").map_err(PyValueError::new_err)?,
    );
    if a.len() + b.len() < DETACHED_BYTES {
        let workers = Workers::shared()?;
        return py
            .detach(|| {
                let (da, db) =
                    workers.install(|| rayon::join(|| Doc::new(a, params), || Doc::new(b, params)));
                neardup::Comparison::of(&da, &db)
            })
            .map_err(to_py);
    }
    // Copies the detached thread owns: it may outlive the call.
    let (a, b) = (a.to_owned(), b.to_owned());
    detached(py, call, move || {
        // Two threads of its own rather than the rayon pool's, which an
        // abandoned compare would keep busy.
        std::thread::scope(|s| {
            let da = s.spawn(|| Doc::new(&a, params));
            let db = Doc::new(&b, params);
            let da = da.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            neardup::Comparison::of(&da, &db)
        })
    })?
    .map_err(to_py)
}
