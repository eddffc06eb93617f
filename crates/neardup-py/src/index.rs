//! `neardup.Index`: a persistent index (the `neardup-index` crate, the
//! one `neardup index` writes) from Python. `add` and `query` give the
//! [`ScanResult`] that `neardup.scan(new, against=all_added_before)` gives
//! for the same documents, without the index's documents in memory.
//!
//! The index lives behind a mutex shared with the step that works on it,
//! so that the work runs [`detached`], with the GIL released, and Ctrl-C
//! returns at once; the step keeps the index to itself until it ends, so
//! the next call waits for it rather than seeing half of an `add`.
//!
//! The `_…` methods are the executors' side of `neardup.spark.scan(df,
//! against_index=PATH)`: the index asked for a batch of rows at a time.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use neardup::scan::against::with_references;
use neardup::scan::References;
use neardup::{Digest, Fingerprint, Params};
use neardup_index::{Found, Index as Store, Writer};
use numpy::ndarray::Array2;
use numpy::{PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList, PyType};

use crate::batch::{sign_all, SignatureBatch};
use crate::error::{index_to_py, to_py};
use crate::interrupt::{detached, guard, numpy_api};
use crate::params::{given_or_default, Int, Words};
use crate::partition::{optional_rows, pair_arrays, rows_of, U32s, NO_MATCHES};
use crate::scan::{id_list, plan, receipts, unique_ids, Docs, ScanResult, ThresholdArg};
use crate::workers::Workers;

/// An index as opened: for reading, or by its one writer.
enum Open {
    Reader(Store),
    Writer(Writer),
}

impl Open {
    fn index(&self) -> &Store {
        match self {
            Open::Reader(index) => index,
            Open::Writer(writer) => writer.index(),
        }
    }
}

/// A numpy `int64` array.
type I64s<'py> = Bound<'py, PyArray1<i64>>;

/// What a step works on: the open index, `None` once closed.
type Shared = Arc<Mutex<Option<Open>>>;

/// A persistent index, open for reading or writing until closed.
#[pyclass(module = "neardup", name = "Index", frozen)]
pub struct Index {
    path: PathBuf,
    params: Params,
    writable: bool,
    open: Shared,
}

impl Index {
    fn new(path: PathBuf, open: Open) -> Index {
        Index {
            params: open.index().params(),
            writable: matches!(open, Open::Writer(_)),
            open: Arc::new(Mutex::new(Some(open))),
            path,
        }
    }

    /// Runs `work` on the open index as one [`detached`] step, with the
    /// GIL released. `call` names the call in errors (`Index.add`). The
    /// flag `work` gets is set once the caller has given up on it (Ctrl-C):
    /// whatever it does after that, nobody sees its result.
    fn step<T: Send + 'static>(
        &self,
        py: Python<'_>,
        call: &'static str,
        work: impl FnOnce(&mut Open, &AtomicBool) -> PyResult<T> + Send + 'static,
    ) -> PyResult<T> {
        let shared = Arc::clone(&self.open);
        let closed = self.closed(call);
        let abandoned = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&abandoned);
        let result = detached(py, call, move || {
            // A panic in an earlier step cannot leave the index half
            // changed: a writer commits by replacing the manifest last.
            let mut open = shared.lock().unwrap_or_else(|e| e.into_inner());
            match open.as_mut() {
                Some(open) => work(open, &seen),
                None => Err(closed),
            }
        });
        if result.is_err() {
            abandoned.store(true, Ordering::Relaxed);
        }
        result?
    }

    /// Runs a short `work` on the open index, the GIL released while it
    /// waits for a step running.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        call: &str,
        work: impl FnOnce(&Open) -> PyResult<T> + Send,
    ) -> PyResult<T> {
        py.detach(|| {
            let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
            match open.as_ref() {
                Some(open) => work(open),
                None => Err(self.closed(call)),
            }
        })
    }

    fn closed(&self, call: &str) -> PyErr {
        PyValueError::new_err(format!(
            "neardup.{call}: index '{}' is closed",
            self.path.display()
        ))
    }

    /// Refuses fingerprints made with other `K`, `N` or word rule than the
    /// index's.
    fn check_params(&self, got: Params, what: &str) -> PyResult<()> {
        if got == self.params {
            return Ok(());
        }
        Err(PyValueError::new_err(format!(
            "{what} was signed with {got}, but index '{}' uses {}",
            self.path.display(),
            self.params,
        )))
    }

    /// Refuses a `words` given to `add` or `query` that is not the index's
    /// rule, as `neardup index add --words` does: an index answers with
    /// its own settings.
    fn check_words(&self, words: Option<Words>) -> PyResult<()> {
        let own = self.params.words();
        match words {
            Some(Words(w)) if w != own => Err(PyValueError::new_err(format!(
                "index '{}' was built with words='{}', not words='{}' (an index answers with its own settings; drop the argument or create another index)",
                self.path.display(),
                own.name(),
                w.name()
            ))),
            _ => Ok(()),
        }
    }

    /// Scans the new documents against the index and, when `adding`, adds
    /// them (only the ones not dropped when `only_new`): the result of
    /// `neardup.scan(new, against=index)`. An `adding` caller has refused
    /// a read-only index already, before signing anything.
    #[allow(clippy::too_many_arguments)]
    fn scan<'py>(
        &self,
        py: Python<'py>,
        call: &'static str,
        ids: Vec<Bound<'py, PyAny>>,
        fps: Vec<Fingerprint>,
        adding: bool,
        only_new: bool,
        workers: &Workers,
    ) -> PyResult<ScanResult> {
        let ids_json = unique_ids(&ids, 0)?;
        let found = self.step(py, call, move |open, abandoned| {
            let found = open.index().scan(&ids_json, &fps).map_err(index_to_py)?;
            let new: Vec<(String, Fingerprint)> = ids_json.into_iter().zip(fps).collect();
            if adding {
                let Open::Writer(writer) = open else {
                    unreachable!("add and add_signatures check writable");
                };
                // Ctrl-C during the query: the caller has raised already,
                // so add nothing (once writing has started, it commits).
                if abandoned.load(Ordering::Relaxed) {
                    return Err(PyRuntimeError::new_err("abandoned"));
                }
                writer
                    .add_found(new.clone(), &found, only_new)
                    .map_err(index_to_py)?;
            }
            Ok((found, new))
        })?;
        let (Found { outcome, refs, .. }, new) = found;
        let json = py.import("json")?.getattr("loads")?;
        let mut all_ids = Vec::with_capacity(refs.len() + ids.len());
        for (id, _) in &refs {
            all_ids.push(json.call1((id,))?);
        }
        all_ids.extend(ids);
        let local_refs = refs.len() as u32;
        let (ids_json, fps): (Vec<String>, Vec<Fingerprint>) = refs.into_iter().chain(new).unzip();
        let pairs = receipts(py, call, workers, &fps, &outcome.pairs)?;
        ScanResult::new(
            PyList::new(py, all_ids)?,
            ids_json,
            local_refs,
            pairs,
            outcome.clusters,
            outcome.dropped,
        )
    }

    /// Signs `texts` with the index's `K`, `N` and word rule.
    fn sign<'py>(
        &self,
        call: &str,
        ids: Option<&Bound<'py, PyAny>>,
        texts: &Bound<'py, PyAny>,
        workers: &Workers,
    ) -> PyResult<(Vec<Bound<'py, PyAny>>, Vec<Fingerprint>)> {
        let mut all_ids = Vec::new();
        let mut fps = Vec::new();
        match ids {
            Some(ids) => Docs {
                ids: &mut all_ids,
                fps: &mut fps,
                keys: None,
            }
            .load(call, ids, texts, "", workers, self.params)?,
            None => {
                sign_all(texts, call, "texts", self.params, workers, &mut |signed| {
                    fps.extend(signed)
                })?;
                all_ids = positions(texts.py(), fps.len());
            }
        }
        Ok((all_ids, fps))
    }

    /// A batch's fingerprints, with its ids (`None`: positions).
    fn batch<'py>(
        &self,
        py: Python<'py>,
        ids: Option<&Bound<'py, PyAny>>,
        batch: &SignatureBatch,
    ) -> PyResult<(Vec<Bound<'py, PyAny>>, Vec<Fingerprint>)> {
        self.check_params(batch.params(), "the batch")?;
        let len = batch.__len__(py);
        let ids = match ids {
            Some(ids) => id_list(ids, "")?,
            None => positions(py, len),
        };
        if ids.len() != len {
            return Err(PyValueError::new_err(format!(
                "ids has {} items but the batch has {len}",
                ids.len()
            )));
        }
        Ok((ids, batch.fingerprints(py, 0..len)?))
    }
}

#[pymethods]
impl Index {
    /// Creates an empty index in directory `path` (which must not exist,
    /// or be empty) and opens it for writing.
    #[classmethod]
    #[pyo3(signature = (
        path,
        k = None,
        n = None,
        threshold = ThresholdArg::DEFAULT,
        recall = "probable",
        bands = None,
        rows = None,
        words = None,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn create(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        path: PathBuf,
        k: Option<Int>,
        n: Option<Int>,
        threshold: ThresholdArg,
        recall: &str,
        bands: Option<Int>,
        rows: Option<Int>,
        words: Option<Words>,
    ) -> PyResult<Index> {
        guard("Index.create", || {
            let (k, n) = given_or_default(k, n);
            let plan = plan(threshold, (&k, &n, words), (bands, rows), recall)?;
            let writer = py
                .detach(|| Writer::create(&path, &plan))
                .map_err(index_to_py)?;
            Ok(Index::new(path, Open::Writer(writer)))
        })
    }

    /// Opens the index in `path`: for reading, or with `write=True` for
    /// writing, taking its lock (a `BlockingIOError` while another process
    /// or `Index` holds it).
    #[classmethod]
    #[pyo3(signature = (path, write = false))]
    fn open(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        path: PathBuf,
        write: bool,
    ) -> PyResult<Index> {
        guard("Index.open", || {
            let open = py
                .detach(|| match write {
                    true => Writer::open(&path).map(Open::Writer),
                    false => Store::open(&path).map(Open::Reader),
                })
                .map_err(index_to_py)?;
            Ok(Index::new(path, open))
        })
    }

    /// Signs `texts`, scans them against the index and adds them (with
    /// `only_new=True`, only the ones not dropped); returns what
    /// `neardup.scan(ids, texts, against=everything_added_before)` returns.
    /// `words`, when given, must be the index's rule.
    #[pyo3(signature = (ids, texts, only_new = false, threads = None, words = None))]
    fn add(
        &self,
        py: Python<'_>,
        ids: &Bound<'_, PyAny>,
        texts: &Bound<'_, PyAny>,
        only_new: bool,
        threads: Option<Int>,
        words: Option<Words>,
    ) -> PyResult<ScanResult> {
        guard("Index.add", || {
            self.check_words(words)?;
            if !self.writable {
                return Err(read_only(&self.path, "Index.add"));
            }
            let workers = Workers::new(threads.as_ref())?;
            let (ids, fps) = self.sign("Index.add", Some(ids), texts, &workers)?;
            self.scan(py, "Index.add", ids, fps, true, only_new, &workers)
        })
    }

    /// `add` without adding: the pairs `texts` form with the index and
    /// among themselves. `ids` default to the texts' positions.
    #[pyo3(signature = (texts, ids = None, threads = None, words = None))]
    fn query(
        &self,
        py: Python<'_>,
        texts: &Bound<'_, PyAny>,
        ids: Option<&Bound<'_, PyAny>>,
        threads: Option<Int>,
        words: Option<Words>,
    ) -> PyResult<ScanResult> {
        guard("Index.query", || {
            self.check_words(words)?;
            let workers = Workers::new(threads.as_ref())?;
            let (ids, fps) = self.sign("Index.query", ids, texts, &workers)?;
            self.scan(py, "Index.query", ids, fps, false, false, &workers)
        })
    }

    /// `add` of documents signed already: `batch` from `neardup.sign_batch`
    /// (with the index's `k`, `n` and `words`), row `i` the document `ids[i]`.
    #[pyo3(signature = (ids, batch, only_new = false, threads = None))]
    fn add_signatures(
        &self,
        py: Python<'_>,
        ids: &Bound<'_, PyAny>,
        batch: PyRef<'_, SignatureBatch>,
        only_new: bool,
        threads: Option<Int>,
    ) -> PyResult<ScanResult> {
        guard("Index.add_signatures", || {
            if !self.writable {
                return Err(read_only(&self.path, "Index.add_signatures"));
            }
            let workers = Workers::new(threads.as_ref())?;
            let (ids, fps) = self.batch(py, Some(ids), &batch)?;
            self.scan(
                py,
                "Index.add_signatures",
                ids,
                fps,
                true,
                only_new,
                &workers,
            )
        })
    }

    /// `query` of documents signed already.
    #[pyo3(signature = (batch, ids = None, threads = None))]
    fn query_signatures(
        &self,
        py: Python<'_>,
        batch: PyRef<'_, SignatureBatch>,
        ids: Option<&Bound<'_, PyAny>>,
        threads: Option<Int>,
    ) -> PyResult<ScanResult> {
        guard("Index.query_signatures", || {
            let workers = Workers::new(threads.as_ref())?;
            let (ids, fps) = self.batch(py, ids, &batch)?;
            self.scan(
                py,
                "Index.query_signatures",
                ids,
                fps,
                false,
                false,
                &workers,
            )
        })
    }

    /// The number of documents.
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, "Index.__len__", |open| Ok(open.index().len() as usize))
    }

    /// The directory.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// Whether this `Index` holds the write lock.
    #[getter]
    fn writable(&self) -> bool {
        self.writable
    }

    /// What `neardup index info --json` prints, as a dict: `documents`,
    /// `k`, `n`, `words`, `threshold`, `bands`, `rows`, `recall`, `segments`…
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        guard("Index.info", || {
            let json = self.with(py, "Index.info", |open| {
                serde_json::to_string(&open.index().info())
                    .map_err(|e| PyValueError::new_err(e.to_string()))
            })?;
            py.import("json")?
                .getattr("loads")?
                .call1((json,))?
                .cast_into::<PyDict>()
                .map_err(Into::into)
        })
    }

    /// Checks every segment's checksum and tables, and that no id or text
    /// is in two segments (a `ValueError` naming the damaged file);
    /// returns the files in the directory that are not the index's.
    fn verify(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        guard("Index.verify", || {
            self.step(py, "Index.verify", |open, _| {
                open.index().verify().map_err(index_to_py)
            })
        })
    }

    /// Merges every segment into one (writing only).
    fn compact(&self, py: Python<'_>) -> PyResult<()> {
        guard("Index.compact", || {
            if !self.writable {
                return Err(read_only(&self.path, "Index.compact"));
            }
            self.step(py, "Index.compact", |open, _| match open {
                Open::Writer(w) => w.compact().map_err(index_to_py),
                Open::Reader(_) => unreachable!("checked writable"),
            })
        })
    }

    /// Closes the index, releasing the write lock; calls after raise.
    /// Closing twice does nothing.
    fn close(&self, py: Python<'_>) {
        py.detach(|| {
            let taken = self.open.lock().unwrap_or_else(|e| e.into_inner()).take();
            drop(taken);
        });
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __exit__(
        &self,
        py: Python<'_>,
        _type: &Bound<'_, PyAny>,
        _value: &Bound<'_, PyAny>,
        _traceback: &Bound<'_, PyAny>,
    ) -> bool {
        self.close(py);
        false
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let len = self.__len__(py).map(|l| l.to_string());
        format!(
            "Index('{}', documents={}, {})",
            self.path.display(),
            len.unwrap_or_else(|_| "closed".to_owned()),
            if self.writable { "write" } else { "read" }
        )
    }

    /// For `neardup.spark`: for each row (`normalized_sha256` hex, its
    /// signature), the first index document of the same text, or -1, and
    /// the slots they match, or -1: the exact stage's pair with the index.
    fn _identical<'py>(
        &self,
        py: Python<'py>,
        sha: Vec<String>,
        signatures: PyReadonlyArray2<'py, u32>,
        has_signature: PyReadonlyArray1<'py, bool>,
    ) -> PyResult<(I64s<'py>, I64s<'py>)> {
        guard("Index._identical", || {
            numpy_api(py, "Index._identical")?;
            let sigs = optional_rows(&signatures, &has_signature, self.params, sha.len())?;
            let digests = sha
                .iter()
                .map(|s| Digest::from_hex(s).map_err(to_py))
                .collect::<PyResult<Vec<_>>>()?;
            let (first, matches) = self.with(py, "Index._identical", |open| {
                let index = open.index();
                let mut first = Vec::with_capacity(digests.len());
                let mut matches = Vec::with_capacity(digests.len());
                for (digest, sig) in digests.iter().zip(&sigs) {
                    let found = index.first_with_digest(digest);
                    let m = found
                        .and_then(|d| Some(index.signature(d)?.matches(sig.as_ref()?)))
                        .map_or(NO_MATCHES, i64::from);
                    first.push(found.map_or(-1, i64::from));
                    matches.push(m);
                }
                Ok((first, matches))
            })?;
            Ok((
                PyArray1::from_vec(py, first),
                PyArray1::from_vec(py, matches),
            ))
        })
    }

    /// For `neardup.spark`: the pairs each row (a new representative, its
    /// number in the scan, `len(index)` and up, and its signature) forms
    /// with the index's documents, as `(a, b, matches)` arrays.
    fn _with_references<'py>(
        &self,
        py: Python<'py>,
        docs: PyReadonlyArray1<'py, u32>,
        signatures: PyReadonlyArray2<'py, u32>,
    ) -> PyResult<(U32s<'py>, U32s<'py>, I64s<'py>)> {
        guard("Index._with_references", || {
            numpy_api(py, "Index._with_references")?;
            let docs = docs.as_slice()?.to_vec();
            let sigs = rows_of(&signatures.as_array(), self.params, docs.len())?;
            let pairs = self.with(py, "Index._with_references", |open| {
                let index = open.index();
                let plan = index.plan();
                let (mut pairs, mut bucket) = (Vec::new(), Vec::new());
                for (&doc, sig) in docs.iter().zip(&sigs) {
                    with_references(index, &plan, doc, sig, &mut bucket, &mut pairs);
                }
                Ok(pairs)
            })?;
            Ok(pair_arrays(py, &pairs))
        })
    }

    /// For `neardup.spark`: index documents `docs` as a scan's rows: ids
    /// (JSON text), `normalized_sha256`, shingles, the `(len, n)`
    /// signature matrix and whether each has one.
    #[allow(clippy::type_complexity)]
    fn _documents<'py>(
        &self,
        py: Python<'py>,
        docs: PyReadonlyArray1<'py, u32>,
    ) -> PyResult<(
        Vec<String>,
        Vec<String>,
        Bound<'py, PyArray1<u64>>,
        Bound<'py, PyArray2<u32>>,
        Bound<'py, PyArray1<bool>>,
    )> {
        guard("Index._documents", || {
            numpy_api(py, "Index._documents")?;
            let docs = docs.as_slice()?.to_vec();
            let rows = self.with(py, "Index._documents", |open| {
                let index = open.index();
                match docs.iter().find(|&&d| d >= index.len()) {
                    Some(d) => Err(PyValueError::new_err(format!(
                        "document {d} is not in index '{}' ({} documents)",
                        self.path.display(),
                        index.len()
                    ))),
                    None => Ok(docs
                        .iter()
                        .map(|&d| (index.id(d).to_owned(), index.fingerprint(d)))
                        .collect::<Vec<_>>()),
                }
            })?;
            let n = self.params.n();
            let mut sigs = Vec::with_capacity(rows.len() * n);
            let (mut ids, mut shas, mut shingles, mut has) = (vec![], vec![], vec![], vec![]);
            for (id, fp) in rows {
                match &fp.signature {
                    Some(s) => sigs.extend_from_slice(s.slots()),
                    None => sigs.extend(std::iter::repeat_n(u32::MAX, n)),
                }
                has.push(fp.signature.is_some());
                shingles.push(fp.shingles);
                shas.push(fp.normalized_sha256.to_string());
                ids.push(id);
            }
            let matrix = Array2::from_shape_vec((ids.len(), n), sigs)
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            Ok((
                ids,
                shas,
                PyArray1::from_vec(py, shingles),
                PyArray2::from_owned_array(py, matrix),
                PyArray1::from_vec(py, has),
            ))
        })
    }

    /// For `neardup.spark`: the first of `ids` (JSON text) the index
    /// holds already, as `(id, document)`, or `None`.
    fn _find_id(&self, py: Python<'_>, ids: Vec<String>) -> PyResult<Option<(String, u32)>> {
        guard("Index._find_id", || {
            self.with(py, "Index._find_id", |open| {
                let index = open.index();
                Ok(ids
                    .into_iter()
                    .find_map(|id| Some((index.find_id(&id)?, id)))
                    .map(|(doc, id)| (id, doc)))
            })
        })
    }
}

/// The error for a write to an index opened for reading.
fn read_only(path: &std::path::Path, call: &str) -> PyErr {
    PyValueError::new_err(format!(
        "neardup.{call}: index '{}' is open for reading; open it with write=True",
        path.display()
    ))
}

/// `0, 1, …`: the ids of documents given without.
fn positions(py: Python<'_>, len: usize) -> Vec<Bound<'_, PyAny>> {
    (0..len).map(|i| PyInt::new(py, i).into_any()).collect()
}
