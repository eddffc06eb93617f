//! Texts handed over by Python: one `str`, a sequence of them, or a pyarrow
//! string array, turned into UTF-8 bytes that the core can read with the
//! GIL released.
//!
//! A sequence is read a bounded chunk at a time ([`CHUNK_BYTES`]), so the
//! copies made for signing stay small however long the sequence, and the
//! GIL is taken back between chunks. A pyarrow array is read through its
//! offsets and data buffers, never one Python `str` per document.

use std::borrow::Cow;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::params::type_name;

/// About this much text is handed to the workers at a time.
pub const CHUNK_BYTES: usize = 32 << 20;
/// And at most this many documents, so that a chunk of tiny documents
/// still returns to Python now and then.
const CHUNK_DOCS: usize = 1 << 16;

/// A `str` as UTF-8 bytes that stay valid while the GIL is released: the
/// `bytes` object is immutable and owned here. `what` names the argument in
/// the `TypeError` for anything that is not a `str`.
pub fn utf8<'py>(text: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyBytes>> {
    let s = text.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!("{what} must be a str, got {}", type_name(text)))
    })?;
    // Fails only for lone surrogates, with Python's UnicodeEncodeError.
    s.encode_utf8()
}

/// The text of bytes that came from [`utf8`] or from a pyarrow array. A
/// Python `str` always encodes to valid UTF-8; an arrow buffer may not, and
/// then the error is the core's, naming the document.
pub fn as_str(bytes: &[u8], what: impl std::fmt::Display) -> Result<&str, String> {
    std::str::from_utf8(bytes).map_err(|_| match neardup::decode(bytes.to_vec(), false) {
        Err(e) => format!("{what}: {e}"),
        Ok(_) => format!("{what}: invalid UTF-8"),
    })
}

/// What [`chunks`] calls for each chunk: `(first, docs)`.
pub type Each<'e> = dyn FnMut(usize, &[&[u8]]) -> PyResult<()> + 'e;

/// Calls `each(first, docs)` for consecutive chunks of `texts`, in order;
/// `first` is the index of `docs[0]` in `texts`. `texts` is a pyarrow
/// `Array` or `ChunkedArray` of strings, anything else exposing the Arrow
/// C stream interface (read through pyarrow), or an iterable of `str`.
pub fn chunks(texts: &Bound<'_, PyAny>, name: &str, each: &mut Each<'_>) -> PyResult<()> {
    if texts.is_instance_of::<PyString>() || texts.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(format!(
            "{name} must be a sequence of str or a pyarrow string array, not one {}",
            type_name(texts)
        )));
    }
    match arrow_kind(texts)? {
        Some(Arrow::Chunked) => {
            let mut first = 0;
            for chunk in texts.getattr("chunks")?.try_iter()? {
                let chunk = chunk?;
                arrow_array(&chunk, name, first, each)?;
                first += chunk.len()?;
            }
            Ok(())
        }
        Some(Arrow::Array) => arrow_array(texts, name, 0, each),
        Some(Arrow::Stream) => {
            let pa = texts.py().import("pyarrow")?;
            let chunked = pa.call_method1("chunked_array", (texts,))?;
            chunks(&chunked, name, each)
        }
        None => sequence(texts, name, each),
    }
}

enum Arrow {
    Array,
    Chunked,
    /// Another library's array (polars, ...) offering `__arrow_c_stream__`.
    Stream,
}

fn arrow_kind(texts: &Bound<'_, PyAny>) -> PyResult<Option<Arrow>> {
    let module = texts.get_type().module()?.to_string();
    if module.starts_with("pyarrow") {
        if texts.hasattr("chunks")? {
            return Ok(Some(Arrow::Chunked));
        }
        if texts.hasattr("buffers")? {
            return Ok(Some(Arrow::Array));
        }
    }
    if texts.hasattr("__arrow_c_stream__")? {
        return Ok(Some(Arrow::Stream));
    }
    Ok(None)
}

/// An iterable of `str`, copied to UTF-8 a chunk at a time.
fn sequence(texts: &Bound<'_, PyAny>, name: &str, each: &mut Each<'_>) -> PyResult<()> {
    let items = texts.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name} must be a sequence of str or a pyarrow string array, got {}",
            type_name(texts)
        ))
    })?;
    let mut held: Vec<Bound<'_, PyBytes>> = Vec::new();
    let (mut first, mut size) = (0, 0);
    let mut flush = |held: &mut Vec<Bound<'_, PyBytes>>, first: &mut usize| -> PyResult<()> {
        let docs: Vec<&[u8]> = held.iter().map(|b| b.as_bytes()).collect();
        each(*first, &docs)?;
        *first += held.len();
        held.clear();
        Ok(())
    };
    for item in items {
        let bytes = utf8(&item?, &format!("{name}[{}]", first + held.len()))?;
        size += bytes.as_bytes().len();
        held.push(bytes);
        if size >= CHUNK_BYTES || held.len() >= CHUNK_DOCS {
            flush(&mut held, &mut first)?;
            size = 0;
        }
    }
    if !held.is_empty() {
        flush(&mut held, &mut first)?;
    }
    Ok(())
}

/// One pyarrow `Array` of `string`, `large_string` (or `string_view`, cast
/// to `large_string` first), or of `binary` or `large_binary`. Its offsets and, a chunk at a time, the data
/// between them are copied out of the arrow buffers with `to_pybytes`: one
/// copy of the text, no Python object per document.
fn arrow_array(
    array: &Bound<'_, PyAny>,
    name: &str,
    first: usize,
    each: &mut Each<'_>,
) -> PyResult<()> {
    let kind = array.getattr("type")?.str()?.to_string();
    let (array, width) = match kind.as_str() {
        // Binary arrays too: their bytes are checked as UTF-8 where they
        // are read (JSONL lines from Spark's text reader come as binary).
        "string" | "binary" => (Cow::Borrowed(array), 4),
        "large_string" | "large_binary" => (Cow::Borrowed(array), 8),
        "string_view" => (
            Cow::Owned(array.call_method1("cast", ("large_string",))?),
            8,
        ),
        other => {
            return Err(PyTypeError::new_err(format!(
                "{name} must be a pyarrow string or large_string array, got one of type {other}"
            )))
        }
    };
    let len = array.len()?;
    if array.getattr("null_count")?.extract::<usize>()? > 0 {
        let at: i64 = array
            .call_method0("is_null")?
            .call_method1("index", (true,))?
            .call_method0("as_py")?
            .extract()?;
        return Err(PyTypeError::new_err(format!(
            "{name}[{}] must be a str, got a null",
            first as i64 + at
        )));
    }
    let offset: usize = array.getattr("offset")?.extract()?;
    let buffers = array.call_method0("buffers")?;
    let offsets_buffer = buffers.get_item(1)?;
    let data_buffer = buffers.get_item(2)?;
    let offsets: Vec<u64> = if len == 0 {
        Vec::new()
    } else {
        let raw = slice(&offsets_buffer, name, offset * width, (len + 1) * width)?;
        raw.as_bytes()
            .chunks_exact(width)
            .map(|b| match *b {
                [a, b, c, d] => i32::from_le_bytes([a, b, c, d]) as i64,
                _ => i64::from_le_bytes(b.try_into().unwrap_or([0xff; 8])),
            })
            .map(|o| u64::try_from(o).unwrap_or(u64::MAX))
            .collect()
    };
    let data_len = if data_buffer.is_none() {
        0
    } else {
        data_buffer.getattr("size")?.extract::<u64>()?
    };
    let malformed = || {
        PyValueError::new_err(format!(
            "{name}: malformed arrow array (offsets out of order or past the data)"
        ))
    };
    if offsets.windows(2).any(|w| w[0] > w[1]) || offsets.last().is_some_and(|&o| o > data_len) {
        return Err(malformed());
    }
    let mut start = 0;
    while start < len {
        // The rows of this chunk: up to CHUNK_BYTES of text, at least one row.
        let mut end = start + 1;
        while end < len
            && end - start < CHUNK_DOCS
            && offsets[end + 1] - offsets[start] <= CHUNK_BYTES as u64
        {
            end += 1;
        }
        let base = offsets[start];
        let bytes = if offsets[end] == base {
            PyBytes::new(array.py(), b"")
        } else {
            slice(
                &data_buffer,
                name,
                base as usize,
                (offsets[end] - base) as usize,
            )?
        };
        let data = bytes.as_bytes();
        let docs: Vec<&[u8]> = (start..end)
            .map(|i| &data[(offsets[i] - base) as usize..(offsets[i + 1] - base) as usize])
            .collect();
        each(first + start, &docs)?;
        start = end;
    }
    Ok(())
}

/// Bytes `start .. start + len` of a pyarrow `Buffer`, copied into a
/// Python `bytes` object.
fn slice<'py>(
    buffer: &Bound<'py, PyAny>,
    name: &str,
    start: usize,
    len: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = buffer
        .call_method1("slice", (start, len))?
        .call_method0("to_pybytes")?;
    let bytes = bytes.cast_into::<PyBytes>().map_err(PyErr::from)?;
    if bytes.as_bytes().len() != len {
        return Err(PyValueError::new_err(format!(
            "{name}: malformed arrow array (a buffer is shorter than its offsets say)"
        )));
    }
    Ok(bytes)
}
