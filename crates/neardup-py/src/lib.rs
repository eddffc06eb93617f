//! # neardup-py — the Python package `neardup`
//!
//! A thin PyO3 adapter over the [`neardup`] core: it turns Python `str`s,
//! sequences and pyarrow arrays into the core's inputs, and the core's
//! fingerprints, receipts and comparisons into Python objects and numpy
//! arrays. Nothing here decides anything the core decides, so a receipt made
//! in Python is the CLI's receipt, byte for byte.
//!
//! Long work runs with the GIL released; batches run on rayon's pool.
//! Ctrl-C stops a long call and a panic becomes a `RuntimeError`
//! ([`interrupt`]). The Python-facing docs are in
//! `python/neardup/__init__.pyi`.

// No `unsafe` of our own: texts reach the core as bytes copied out of
// Python objects (see `texts`), never as raw pointers.
#![deny(unsafe_code)]

mod batch;
mod compare;
mod corpus;
mod error;
mod explain;
mod extract;
mod fingerprint;
mod index;
mod interrupt;
mod normalize;
mod pair;
mod params;
mod partition;
mod receipt;
mod scan;
mod texts;
mod workers;

use pyo3::prelude::*;

/// The extension module `neardup._neardup`, re-exported by `neardup`.
#[pymodule]
fn _neardup(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add(
        "MalformedReceipt",
        m.py().get_type::<error::MalformedReceipt>(),
    )?;
    m.add("ALGORITHM", neardup::ALGORITHM)?;
    m.add("UNICODE_VERSION", format_unicode())?;
    m.add("EXTRACTOR_VERSION", neardup_extract::VERSION)?;
    m.add_class::<batch::SignatureBatch>()?;
    m.add_class::<compare::Comparison>()?;
    m.add_class::<corpus::CorpusReader>()?;
    m.add_class::<fingerprint::Fingerprint>()?;
    m.add_class::<index::Index>()?;
    m.add_class::<receipt::Mismatch>()?;
    m.add_class::<receipt::Receipt>()?;
    m.add_class::<partition::ScanPlan>()?;
    m.add_class::<scan::ScanResult>()?;
    m.add_function(wrap_pyfunction!(batch::sign_batch, m)?)?;
    m.add_function(wrap_pyfunction!(partition::cluster_lines, m)?)?;
    m.add_function(wrap_pyfunction!(partition::ids_json, m)?)?;
    m.add_function(wrap_pyfunction!(partition::list_lines, m)?)?;
    m.add_function(wrap_pyfunction!(compare::compare, m)?)?;
    m.add_function(wrap_pyfunction!(corpus::_corpus_kind, m)?)?;
    m.add_function(wrap_pyfunction!(corpus::corpus_files, m)?)?;
    m.add_function(wrap_pyfunction!(corpus::file_format, m)?)?;
    m.add_function(wrap_pyfunction!(corpus::is_corpus_name, m)?)?;
    m.add_function(wrap_pyfunction!(corpus::is_skipped_name, m)?)?;
    m.add_function(wrap_pyfunction!(corpus::sign_lines, m)?)?;
    m.add_function(wrap_pyfunction!(corpus::sort_paths, m)?)?;
    m.add_function(wrap_pyfunction!(explain::explain, m)?)?;
    m.add_function(wrap_pyfunction!(extract::extract, m)?)?;
    m.add_function(wrap_pyfunction!(extract::from_file, m)?)?;
    m.add_function(wrap_pyfunction!(fingerprint::sign, m)?)?;
    m.add_function(wrap_pyfunction!(normalize::normalize, m)?)?;
    m.add_function(wrap_pyfunction!(scan::scan, m)?)?;
    m.add_function(wrap_pyfunction!(interrupt::_force_panic, m)?)?;
    Ok(())
}

/// The Unicode version of the lowercase tables, the core's
/// [`neardup::UNICODE_VERSION`] as `"A.B.C"`: read from the core, never
/// written here, so the module cannot name another version than it uses.
fn format_unicode() -> String {
    let (a, b, c) = neardup::UNICODE_VERSION;
    format!("{a}.{b}.{c}")
}
