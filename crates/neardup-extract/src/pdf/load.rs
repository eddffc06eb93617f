//! The file loaded by lopdf, its object streams inflated within the
//! budget of [`Limits::max_expanded`].
//!
//! lopdf inflates every object stream while it loads a file, before any
//! of our code runs, each within a cap of its own but with no total: a
//! 2 MB file of thirty object streams of 63 MiB each took 3 s to load. So
//! a load hook (lopdf's `filter`, called on each object as it is read,
//! before an object stream is opened) first inflates each object stream
//! into nothing, counting, within what is left of the budget; past the
//! budget it drops the stream, no later one is inflated, and the load
//! fails with the cap's message. A real object stream is small, so
//! inflating it twice costs little; keeping the inflated bytes for lopdf
//! instead would keep them all in memory until the load ends. lopdf's
//! hook is a plain `fn`, so the budget it charges lives in a thread-local
//! for the length of one load.
//!
//! lopdf does not repair a file whose page tree did not load when it was
//! given a hook (a hook may drop pages on purpose); [`load`] repairs it
//! as lopdf would have: it loads again with the cross-reference table
//! rebuilt, and keeps that when it gives a page tree.

use std::cell::Cell;

use lopdf::xref::XrefRecovery;
use lopdf::{Document, LoadOptions, Object, ObjectId};

use super::stream::{self, Over};
use crate::{Error, Limits};

thread_local! {
    /// What the object streams of the file being loaded may still inflate
    /// to; `None` once one went past it.
    static LEFT: Cell<Option<u64>> = const { Cell::new(None) };
    /// The cap on one object stream.
    static CAP: Cell<u64> = const { Cell::new(0) };
}

/// Loads `bytes`, each object stream within `cap` and all of them within
/// `budget`, which is charged with what they inflate to.
pub(super) fn load(
    bytes: &[u8],
    cap: u64,
    budget: &mut u64,
    limits: &Limits,
) -> Result<Document, Error> {
    let options = |rebuild: bool| LoadOptions {
        max_decompressed_size: Some(usize::try_from(cap).unwrap_or(usize::MAX)),
        filter: Some(charge),
        force_reconstruct: rebuild,
        ..LoadOptions::default()
    };
    let once = |rebuild: bool, budget: &mut u64| {
        LEFT.set(Some(*budget));
        CAP.set(cap);
        let doc = Document::load_mem_with_options(bytes, options(rebuild));
        let left = LEFT.take();
        match left {
            Some(left) => *budget = left,
            None => return Err(limits.too_expanded()),
        }
        doc.map_err(|e| load_error(e, cap, limits))
    };
    let doc = once(false, budget)?;
    let needs_password = doc.trailer.has(b"Encrypt") && doc.encryption_state.is_none();
    if doc.xref_recovery != Some(XrefRecovery::Reconstructed)
        && !needs_password
        && !page_tree_loaded(&doc)
    {
        let mut again = *budget;
        if let Ok(rebuilt) = once(true, &mut again) {
            if rebuilt.xref_recovery == Some(XrefRecovery::Reconstructed)
                && page_tree_loaded(&rebuilt)
            {
                *budget = again;
                return Ok(rebuilt);
            }
        }
    }
    Ok(doc)
}

/// lopdf's load hook: an object stream is counted here against the
/// budget; every object passes as it is. (lopdf reads the returned object
/// only for the members of object streams, which are never streams: a
/// stream is handed back as `Null` rather than copied.)
fn charge(id: ObjectId, object: &mut Object) -> Option<(ObjectId, Object)> {
    let Object::Stream(stream) = object else {
        return Some((id, object.clone()));
    };
    if !stream.dict.has_type(b"ObjStm") {
        return Some((id, Object::Null));
    }
    let left = LEFT.get()?;
    let cap = CAP.get().min(left.saturating_add(1));
    match stream::measure(stream, cap) {
        Ok(n) if n <= left => {
            LEFT.set(Some(left - n));
            Some((id, Object::Null))
        }
        // Past the cap on one stream: lopdf's own check says so.
        Err(Over) if cap == CAP.get() => Some((id, Object::Null)),
        _ => {
            LEFT.set(None);
            None
        }
    }
}

/// Whether the catalog leads to the root of a page tree, a dictionary
/// with `/Kids`, as lopdf asks before it repairs a file.
fn page_tree_loaded(doc: &Document) -> bool {
    doc.catalog()
        .and_then(|catalog| catalog.get(b"Pages"))
        .and_then(Object::as_reference)
        .and_then(|root| doc.get_dictionary(root))
        .and_then(|root| root.get_deref(b"Kids", doc))
        .and_then(Object::as_array)
        .is_ok()
}

/// A load failure in words; `cap` is what each stream could inflate to.
fn load_error(e: lopdf::Error, cap: u64, limits: &Limits) -> Error {
    match e {
        lopdf::Error::Decryption(_) | lopdf::Error::InvalidPassword => Error::Encrypted,
        lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded { .. }) => {
            if cap == limits.max_stream() {
                super::page::too_long(limits, "object stream")
            } else {
                super::page::too_dense(limits)
            }
        }
        e => Error::corrupt("PDF", e.to_string().to_lowercase()),
    }
}
