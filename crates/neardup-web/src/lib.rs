//! # neardup-web — the core, compiled to WebAssembly for the offline page
//!
//! A thin adapter: it turns bytes and a small JSON request from the page into
//! calls to the [`neardup`] core, and the core's answers into JSON for the
//! page to show. [`collection`] does for a set of documents what `neardup
//! scan` does for a directory. Nothing here decides anything the core decides; the page's
//! receipts are the core's receipts.
//!
//! The safe functions below are what the native tests exercise; the
//! [`report`] renders the same HTML report as `neardup --report`. The
//! `extern "C"` exports that the page's JS glue calls (`ffi`, compiled only
//! for `wasm32`) wrap them and hold the crate's only `unsafe` code.
//!
//! ```
//! use neardup_web::{compare, CompareRequest};
//! let req = CompareRequest { k: "2".into(), n: "16".into(), ..Default::default() };
//! let out = compare([b"a b c d".to_vec(), b"A  b c D".to_vec()], &req, &mut |_| {});
//! assert_eq!(out["verdict"], "IDENTICAL");
//! assert_eq!(out["receipt_sha256"].as_str().map(str::len), Some(64));
//! ```

#![deny(unsafe_code)]

mod about;
mod collection;
mod compare;
mod corpus;
mod decode;
mod explain;
#[cfg(any(target_arch = "wasm32", clippy))] // the native clippy lints it too
mod ffi;
mod report;
mod stage;
mod submissions;
mod verify;

pub use about::about;
pub use collection::{collection, CollectionRequest, DEFAULT_MAP_LIMIT};
pub use compare::{compare, CompareRequest};
pub use decode::{decode, Decoded};
pub use explain::{explain, ExplainRequest, DEFAULT_MAX_PASSAGES};
pub use report::{report, report_json, ReportRequest, VERSION};
pub use stage::{CollectionStage, Stage};
pub use verify::{verify, VerifyRequest};
