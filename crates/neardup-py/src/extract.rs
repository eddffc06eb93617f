//! `neardup.extract` and `neardup.from_file`: a document's text, by the
//! rules of `EXTRACT.md`, the same text the CLI's `neardup extract`
//! prints.

use std::path::Path;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use neardup_corpus::text;
use neardup_extract::Format;

use crate::interrupt::guard;

/// The CLI's default `--max-size`.
const MAX_SIZE: u64 = 4 << 30;

/// The CLI's default `--max-expanded`: the library's.
const MAX_EXPANDED: u64 = 256 << 20;

/// The reading options of the CLI's flags, `--format` named by `format`.
fn options(
    format: Option<&str>,
    lossy: bool,
    max_size: u64,
    max_expanded: u64,
) -> PyResult<text::Options> {
    Ok(text::Options {
        lossy,
        max_size,
        max_expanded,
        mmap: false,
        format: format_named(format)?,
    })
}

/// `format` as a [`Format`], or a `ValueError` naming the choices.
fn format_named(format: Option<&str>) -> PyResult<Option<Format>> {
    format
        .map(|name| {
            Format::from_name(name).ok_or_else(|| {
                let names: Vec<_> = Format::ALL.iter().map(|f| f.name()).collect();
                PyValueError::new_err(format!(
                    "format: expected one of {}, got '{name}'",
                    names.join(", ")
                ))
            })
        })
        .transpose()
}

/// `extract(data, format=None, *, name=None, lossy=False, max_size=4 GiB,
/// max_expanded=256 MiB)`: the text of a document's bytes. The format is
/// detected from the content unless given; `name` only tells HTML from
/// plain text.
#[pyfunction]
#[pyo3(signature = (data, format=None, *, name=None, lossy=false, max_size=MAX_SIZE, max_expanded=MAX_EXPANDED))]
pub fn extract(
    py: Python<'_>,
    data: Vec<u8>,
    format: Option<&str>,
    name: Option<&str>,
    lossy: bool,
    max_size: u64,
    max_expanded: u64,
) -> PyResult<String> {
    let opts = options(format, lossy, max_size, max_expanded)?.extract();
    guard("extract", || {
        py.detach(|| neardup_extract::extract(&data, name, &opts))
            .map(|got| got.text)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    })
}

/// `from_file(path, format=None, *, lossy=False, max_size=4 GiB,
/// max_expanded=256 MiB)`: the text of a file, read as `neardup compare`
/// reads it (plain text, or a document's extracted text).
#[pyfunction]
#[pyo3(signature = (path, format=None, *, lossy=false, max_size=MAX_SIZE, max_expanded=MAX_EXPANDED))]
pub fn from_file(
    py: Python<'_>,
    path: std::path::PathBuf,
    format: Option<&str>,
    lossy: bool,
    max_size: u64,
    max_expanded: u64,
) -> PyResult<String> {
    let opts = options(format, lossy, max_size, max_expanded)?;
    guard("from_file", || {
        py.detach(|| text::read_document(Path::new(&path), &opts))
            .map(|doc| doc.text.to_string())
            .map_err(|e| PyValueError::new_err(e.to_string()))
    })
}
