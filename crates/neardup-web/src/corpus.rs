//! A collection's documents, read and numbered as `neardup scan
//! [--against SOURCES] DOCUMENTS` reads and numbers them, and the scan a
//! request asks for: the near-duplicate search at a threshold, or the
//! containment join.
//!
//! The collection and its report both start here, so that the page's
//! pairs and the report's are one scan of one numbering.

use std::collections::HashSet;

use neardup::scan::{self, contained, Outcome, Plan};
use neardup::{Doc, Fingerprint, Threshold};
use neardup_extract::Format;
use serde_json::{json, Value};

use neardup_corpus::order;

use crate::Decoded;

/// A refused request: the field to name, and the one-line error.
pub(crate) type Failure = (&'static str, String);

/// The documents of a collection, sources first, each part in the command
/// line's path order; unreadable files left out, as `neardup scan` skips
/// them.
pub(crate) struct Corpus<'d> {
    /// Each document's id: its path as the command line prints it.
    pub ids: Vec<&'d str>,
    /// Each document's text.
    pub texts: Vec<String>,
    /// The format each was read as.
    pub formats: Vec<Format>,
    /// Documents `0..refs` are the sources (`--against`).
    pub refs: u32,
    /// The source files given, skipped ones included (hidden ones not).
    pub source_files: usize,
    /// The files skipped: `{"id", "error"}`.
    pub skipped: Vec<Value>,
}

/// The files of one part of a collection (the sources or the documents):
/// their ids and sizes, as the page sends them.
#[derive(Clone, Copy)]
pub(crate) struct Files<'r> {
    pub ids: &'r [String],
    pub sizes: &'r [u64],
}

impl<'d> Corpus<'d> {
    /// Reads `sources` and then `documents` out of `data`, which holds the
    /// sources' bytes and then the documents'. `each` is given every
    /// document read, with its id and how many bytes of `data` came before
    /// it (for progress).
    pub(crate) fn read(
        data: &'d [u8],
        sources: Files<'d>,
        documents: Files<'d>,
        lossy: bool,
        each: &mut dyn FnMut(&str, &Decoded, u64),
    ) -> Result<Corpus<'d>, Failure> {
        let total = sources
            .sizes
            .iter()
            .try_fold(0u64, |sum, &s| sum.checked_add(s))
            .filter(|&s| s <= data.len() as u64)
            .ok_or_else(|| {
                (
                    "request",
                    format!(
                        "bad request from the page: the sources run past the {} bytes sent",
                        data.len()
                    ),
                )
            })?;
        let (source_data, document_data) = data.split_at(total as usize);
        let sources = in_path_order(source_data, sources.ids, sources.sizes)?;
        let documents = in_path_order(document_data, documents.ids, documents.sizes)?;
        let source_ids: HashSet<&str> = sources.iter().map(|s| s.0).collect();
        if let Some((id, _)) = documents.iter().find(|d| source_ids.contains(d.0)) {
            return Err((
                "sources",
                format!("'{id}' is both a source and a submission; choose it once"),
            ));
        }
        let mut corpus = Corpus {
            ids: Vec::new(),
            texts: Vec::new(),
            formats: Vec::new(),
            refs: 0,
            source_files: sources.len(),
            skipped: Vec::new(),
        };
        let mut done = 0;
        for (i, part) in [sources, documents].into_iter().enumerate() {
            for (id, bytes) in part {
                // The same reading as `neardup scan` gives a directory's
                // files: a document's extracted text, a plain text decoded.
                match crate::decode(bytes.to_vec(), id, Some(id), lossy) {
                    Ok(d) => {
                        each(id, &d, done);
                        corpus.ids.push(id);
                        corpus.texts.push(d.text);
                        corpus.formats.push(d.format);
                    }
                    Err(e) => {
                        // The id is in its own field, and the collection
                        // has its own lossy switch.
                        let e = e.strip_prefix(&format!("{id}: ")).unwrap_or(&e);
                        let e = e.strip_suffix(crate::decode::LOSSY_HINT).unwrap_or(e);
                        corpus.skipped.push(json!({"id": id, "error": e}));
                    }
                }
                done += bytes.len() as u64;
            }
            if i == 0 {
                corpus.refs = corpus.ids.len() as u32;
            }
        }
        Ok(corpus)
    }
}

/// The scan a request asks for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Search {
    /// `neardup scan --threshold T`: LSH bands, every candidate verified.
    Near(Plan),
    /// `neardup scan --containment T`: the exact containment join.
    Contained(Threshold),
}

impl Search {
    /// The search of a threshold and a containment as typed: the
    /// containment join when `containment` is not blank (the threshold is
    /// then not read, as the command line refuses both), else the
    /// near-duplicate search at `threshold`.
    pub(crate) fn parse(
        params: neardup::Params,
        threshold: &str,
        containment: &str,
    ) -> Result<Search, Failure> {
        let read = |field: &'static str, t: &str| {
            Threshold::parse(t.trim()).map_err(|e| (field, e.to_string()))
        };
        Ok(match containment.trim() {
            "" => Search::Near(Plan::new(params, read("threshold", threshold)?)),
            t => Search::Contained(read("containment", t)?),
        })
    }

    /// The containment threshold, if this is the containment join.
    pub(crate) fn containment(self) -> Option<Threshold> {
        match self {
            Search::Near(_) => None,
            Search::Contained(t) => Some(t),
        }
    }

    /// Runs the search over `docs`, of which `0..refs` are references.
    pub(crate) fn run(self, docs: &[Doc], refs: u32) -> Result<Outcome, neardup::Error> {
        let fps: Vec<Fingerprint> = docs.iter().map(|d| d.fingerprint().clone()).collect();
        match self {
            Search::Near(plan) => scan::run(&fps, refs, &plan),
            Search::Contained(t) => {
                let mut keys = contained::Keys::new();
                for d in docs {
                    keys.push(&d.shingles().keys());
                }
                contained::scan(&fps, keys, refs, t)
            }
        }
    }
}

/// The documents cut out of `data`, in the order `neardup scan` gives a
/// directory's files (see [`crate::collection`]), refusing two with one id.
fn in_path_order<'d>(
    data: &'d [u8],
    ids: &'d [String],
    sizes: &[u64],
) -> Result<Vec<(&'d str, &'d [u8])>, Failure> {
    if ids.len() != sizes.len() {
        return Err((
            "request",
            format!(
                "bad request from the page: {} ids but {} sizes",
                ids.len(),
                sizes.len()
            ),
        ));
    }
    let mut docs = Vec::with_capacity(ids.len());
    let mut at = 0usize;
    for (id, &size) in ids.iter().zip(sizes) {
        let end = usize::try_from(size)
            .ok()
            .and_then(|s| at.checked_add(s))
            .filter(|&e| e <= data.len());
        let Some(end) = end else {
            return Err((
                "request",
                format!(
                    "bad request from the page: '{id}' runs past the {} bytes sent",
                    data.len()
                ),
            ));
        };
        docs.push((id.as_str(), &data[at..end]));
        at = end;
    }
    if at != data.len() {
        return Err((
            "request",
            format!(
                "bad request from the page: {} bytes sent, {at} used",
                data.len()
            ),
        ));
    }
    // The first part of an id is the folder the user chose; below it,
    // hidden and Spark-marker names are not read, as `neardup scan`
    // does not read them.
    docs.retain(|(id, _)| !id.split('/').skip(1).any(order::is_skipped_name));
    order::sort_by_path(&mut docs, |d| d.0);
    if let Some(w) = docs.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err((
            "files",
            format!(
                "two files have the id '{}'; choose them from one folder",
                w[1].0
            ),
        ));
    }
    Ok(docs)
}
