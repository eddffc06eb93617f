//! The WebAssembly exports that the page's JS glue calls, and the one
//! import it provides. This file holds the crate's only `unsafe` code.
//!
//! Protocol: JS asks [`nd_alloc`] for a buffer per input (a small JSON
//! request, then text A, then text B), copies the bytes in, and hands the
//! buffers to [`nd_compare`], [`nd_verify`] or [`nd_explain`], which take ownership and free
//! them. [`nd_collection`] takes the request and one buffer holding every
//! document, one after another; [`nd_report`] likewise, base texts last;
//! [`nd_about`] takes nothing. Each export returns the length of its JSON
//! answer, which stays in a module-owned buffer at [`nd_out`] until the
//! next call.

#![allow(unsafe_code)]

use std::cell::RefCell;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::compare::failure;
use crate::{about, collection, compare, explain, report_json, verify, CollectionStage, Stage};

#[cfg_attr(target_arch = "wasm32", link(wasm_import_module = "neardup"))]
extern "C" {
    /// Tells the page that a [`Stage`] (by its code) is starting.
    fn progress(stage: u32);
    /// Tells the page how far a [`CollectionStage`] (by its code) is:
    /// `done` of `total`, in the stage's unit. Doubles, so that a count of
    /// bytes past 4 GiB still fits.
    fn progress_count(stage: u32, done: f64, total: f64);
}

thread_local! {
    // wasm32-unknown-unknown is single-threaded: this is one buffer.
    static OUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

fn report(stage: Stage) {
    // SAFETY: `progress` is a JS function taking one i32 and touching no
    // wasm memory; any u32 is a valid argument.
    unsafe { progress(stage.code()) }
}

fn report_count(stage: CollectionStage, done: u64, total: u64) {
    // SAFETY: `progress_count` is a JS function taking an i32 and two
    // doubles and touching no wasm memory; any values are valid.
    unsafe { progress_count(stage.code(), done as f64, total as f64) }
}

fn answer(value: &Value) -> usize {
    OUT.with(|out| {
        let mut out = out.borrow_mut();
        out.clear();
        // Writing a `Value` to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *out, value);
        out.len()
    })
}

/// Takes back a buffer made by [`nd_alloc`].
///
/// # Safety
/// `ptr` and `len` must come from one [`nd_alloc`] call, and the buffer must
/// not have been taken before.
unsafe fn take(ptr: *mut u8, len: usize) -> Vec<u8> {
    // SAFETY: by this function's contract the pointer is a live `Box<[u8]>`
    // of exactly `len` bytes that nothing else owns.
    unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) }.into_vec()
}

fn request<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Value> {
    serde_json::from_slice(bytes)
        .map_err(|e| failure("request", &format!("bad request from the page: {e}")))
}

/// Allocates `len` zeroed bytes for JS to fill.
#[no_mangle]
pub extern "C" fn nd_alloc(len: usize) -> *mut u8 {
    Box::into_raw(vec![0u8; len].into_boxed_slice()).cast()
}

/// Frees a buffer that JS allocated but did not hand over.
///
/// # Safety
/// As for [`take`].
#[no_mangle]
pub unsafe extern "C" fn nd_free(ptr: *mut u8, len: usize) {
    // SAFETY: the caller passes a buffer from `nd_alloc` that it still owns.
    drop(unsafe { take(ptr, len) });
}

/// Where the last answer's bytes start.
#[no_mangle]
pub extern "C" fn nd_out() -> *const u8 {
    OUT.with(|out| out.borrow().as_ptr())
}

/// Compare, verify or explain: two documents' bytes and a request in, the
/// page's answer out.
type Work<R> = fn([Vec<u8>; 2], &R, &mut dyn FnMut(Stage)) -> Value;

/// The body of the three two-document exports: takes the buffers, parses
/// the request and answers with what `work` gives.
///
/// # Safety
/// As for [`nd_compare`].
unsafe fn run<R: DeserializeOwned>(
    req: *mut u8,
    req_len: usize,
    a: *mut u8,
    a_len: usize,
    b: *mut u8,
    b_len: usize,
    work: Work<R>,
) -> usize {
    // SAFETY: the caller hands over three distinct live buffers from `nd_alloc`.
    let (req, a, b) = unsafe { (take(req, req_len), take(a, a_len), take(b, b_len)) };
    answer(&match request(&req) {
        Ok(r) => work([a, b], &r, &mut report),
        Err(e) => e,
    })
}

/// The body of the exports over one buffer of every document's bytes
/// (collection, report): takes the buffers, parses the request and
/// answers with what `work` gives.
///
/// # Safety
/// As for [`nd_compare`].
unsafe fn run_on_data<R: DeserializeOwned>(
    req: *mut u8,
    req_len: usize,
    data: *mut u8,
    data_len: usize,
    work: fn(&[u8], &R) -> Value,
) -> usize {
    // SAFETY: the caller hands over two distinct live buffers from `nd_alloc`.
    let (req, data) = unsafe { (take(req, req_len), take(data, data_len)) };
    answer(&match request(&req) {
        Ok(r) => work(&data, &r),
        Err(e) => e,
    })
}

/// Defines an export over a request and two documents, which hands them to
/// [`run`] with `work`: one definition, so that the three exports cannot
/// drift apart in their signature, their contract or their safety argument.
macro_rules! two_document_export {
    ($(#[$doc:meta])* $name:ident => $work:path) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// Each (pointer, length) pair must come from its own [`nd_alloc`]
        /// call and is consumed.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            req: *mut u8,
            req_len: usize,
            a: *mut u8,
            a_len: usize,
            b: *mut u8,
            b_len: usize,
        ) -> usize {
            // SAFETY: the caller's contract, passed on.
            unsafe { run(req, req_len, a, a_len, b, b_len, $work) }
        }
    };
}

two_document_export! {
    /// Compares; the request is a [`crate::CompareRequest`] as JSON.
    nd_compare => compare
}

two_document_export! {
    /// Verifies; the request is a [`crate::VerifyRequest`] as JSON.
    nd_verify => verify
}

two_document_export! {
    /// Explains; the request is a [`crate::ExplainRequest`] as JSON.
    nd_explain => explain
}

/// Scans a collection; the request is a [`crate::CollectionRequest`] as
/// JSON and `data` every document's bytes, in the order of its `ids`.
///
/// # Safety
/// As for [`nd_compare`].
#[no_mangle]
pub unsafe extern "C" fn nd_collection(
    req: *mut u8,
    req_len: usize,
    data: *mut u8,
    data_len: usize,
) -> usize {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        run_on_data(req, req_len, data, data_len, |d, r| {
            collection(d, r, &mut report_count)
        })
    }
}

/// Renders the HTML report; the request is a [`crate::ReportRequest`] as
/// JSON and `data` every document's bytes, then every base text's. The
/// answer is `{"ok": true, "html"}` or the page's error object.
///
/// # Safety
/// As for [`nd_compare`].
#[no_mangle]
pub unsafe extern "C" fn nd_report(
    req: *mut u8,
    req_len: usize,
    data: *mut u8,
    data_len: usize,
) -> usize {
    // SAFETY: the caller's contract, passed on.
    unsafe { run_on_data(req, req_len, data, data_len, report_json) }
}

/// [`crate::about`]'s JSON: the core's defaults and versions, which
/// `web/assemble.mjs` asks this wasm for when it builds the page.
#[no_mangle]
pub extern "C" fn nd_about() -> usize {
    answer(&about())
}

/// SHA-256 of a buffer, as 64 hex digits: the page's fallback for showing
/// its own wasm hash where WebCrypto is unavailable (plain-http origins).
///
/// # Safety
/// As for [`nd_free`]; the buffer is consumed.
#[no_mangle]
pub unsafe extern "C" fn nd_sha256(ptr: *mut u8, len: usize) -> usize {
    // SAFETY: the caller hands over a live buffer from `nd_alloc`.
    let bytes = unsafe { take(ptr, len) };
    answer(&Value::String(neardup::Digest::of(&bytes).to_string()))
}
