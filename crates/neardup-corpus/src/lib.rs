//! The input contract of neardup: which files a corpus is made of, how
//! each is recognised, and how its documents are read and signed. The
//! CLI, the Python package and `neardup.spark` all read through this
//! crate, so an input gives the same documents, ids and errors in each.
//!
//! - [`order`]: which files of a directory are read, in which order.
//! - [`format`]: what a corpus file holds, told by its first bytes.
//! - [`jsonl`]: one `{"id", "text"}` document of a JSONL line ([`json`]
//!   reads the plain ones fast, serde the rest and every error).
//! - [`lines`]: bytes cut into numbered lines, in bounded batches.
//! - [`id`]: one spelling for each id.
//! - [`text`]: a single text file read as one document.
//! - [`tree`]: a directory listed.
//! - [`source`]: a corpus file opened as records: lines or Parquet rows.
//! - [`compressed`]: gzip and zstd streams, read and written.
//! - [`parquet`]: Parquet corpora, read as typed columns.
//! - [`pipeline`]: records signed in parallel batches, in input order.
//!
//! Errors are this crate's own [`Error`]: one line that names the input.
//! Without the default `io` feature (the web page's wasm build) only the
//! rules are here: [`order`], [`format`], [`jsonl`], [`lines`] and [`id`].

mod error;
pub mod format;
pub mod id;
pub mod json;
pub mod jsonl;
pub mod lines;
pub mod order;

#[cfg(feature = "io")]
pub mod compressed;
#[cfg(feature = "io")]
pub mod parquet;
#[cfg(feature = "io")]
pub mod pipeline;
#[cfg(feature = "io")]
pub mod source;
#[cfg(feature = "io")]
pub mod text;
#[cfg(feature = "io")]
pub mod tree;

pub use error::{describe, Error, Result};
