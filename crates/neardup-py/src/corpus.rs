//! `neardup.spark`'s inputs, read through `neardup-corpus`: the same
//! directory order, formats, documents, ids and errors as `neardup scan`.
//! Nothing here reads a rule of its own; it hands the crate's readers to
//! `mapInArrow` tasks.
//!
//! - [`corpus_files`], [`sort_paths`], [`is_skipped_name`],
//!   [`is_corpus_name`], [`_corpus_kind`], [`file_format`]: which files an
//!   input is made of, and what each holds;
//! - [`CorpusReader`]: one file (a corpus of any format, or one text
//!   document) signed by the crate's pipeline, a batch at a time;
//! - [`sign_lines`]: the lines of a plain JSONL file that Spark split by
//!   byte ranges, parsed and signed.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Mutex;

use neardup::{Backend, Fingerprint, Params, Signer};
use neardup_corpus::jsonl::Fields;
use neardup_corpus::pipeline::{self, Signing};
use neardup_corpus::source;
use neardup_corpus::text::{self, display_name};
use neardup_corpus::{format::Format, id, lines::Line, order, tree, Error};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::batch::{Columns, SignatureBatch};
use crate::interrupt::{detached, guard, numpy_api, wait};
use crate::params::{given_or_default, params, Int, Words};
use crate::texts::chunks;

/// `--max-size`'s default: a text, or a JSONL line, over 4 GiB is refused.
const MAX_SIZE: u64 = 4 << 30;

/// Documents handed back to Python at a time.
const BATCH_DOCS: usize = 4096;

fn value_error(e: Error) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// An input's files, each with whether it is a corpus file.
type Files = Vec<(String, bool)>;

/// `corpus_files(path, max_size=4 GiB)`: the files of one input in
/// `neardup scan`'s order, each with whether it is a corpus file (else one
/// text document), and the entries skipped with why. A file is itself.
#[pyfunction]
#[pyo3(signature = (path, max_size = MAX_SIZE))]
pub fn corpus_files(py: Python<'_>, path: &str, max_size: u64) -> PyResult<(Files, Vec<String>)> {
    guard("corpus_files", || {
        let meta = std::fs::metadata(path).map_err(|e| value_error(Error::io(path, &e)))?;
        if !meta.is_dir() {
            return Ok((vec![(path.to_owned(), true)], Vec::new()));
        }
        // A large tree takes a while to list, and cannot stop halfway.
        let root = path.to_owned();
        let walk = detached(py, "corpus_files", move || {
            tree::walk(Path::new(&root), max_size, false)
        })?
        .map_err(value_error)?;
        let files = walk
            .files
            .into_iter()
            .map(|(p, _)| {
                let corpus = Format::is_corpus_name(&p);
                (display_name(&p), corpus)
            })
            .collect();
        Ok((files, walk.skipped.iter().map(Error::to_string).collect()))
    })
}

/// `sort_paths(paths)`: `paths` in a directory's document order
/// (`neardup_corpus::order`: bytewise).
#[pyfunction]
pub fn sort_paths(mut paths: Vec<String>) -> PyResult<Vec<String>> {
    guard("sort_paths", || {
        order::sort_by_path(&mut paths, |p| p);
        Ok(paths)
    })
}

/// `is_skipped_name(name)`: whether a directory entry of this name is
/// left out (`.` or `_` first).
#[pyfunction]
pub fn is_skipped_name(name: &str) -> PyResult<bool> {
    guard("is_skipped_name", || Ok(order::is_skipped_name(name)))
}

/// `is_corpus_name(name)`: whether a file of this name in a directory is
/// a corpus rather than one text document.
#[pyfunction]
pub fn is_corpus_name(name: &str) -> PyResult<bool> {
    guard("is_corpus_name", || Ok(order::is_corpus_name(name)))
}

/// `_corpus_kind(name)`: what a file of this name in a directory holds by
/// the crate's one table of names, `"jsonl"`, `"gzip"`, `"zstd"` or
/// `"parquet"`, or `None` for one text document. `neardup.spark` asks it
/// for remote files, whose first bytes it does not read.
#[pyfunction]
pub fn _corpus_kind(name: &str) -> PyResult<Option<&'static str>> {
    guard(
        "_corpus_kind",
        || Ok(Format::of_corpus_name(name).map(kind)),
    )
}

/// `file_format(path)`: `"jsonl"`, `"gzip"`, `"zstd"` or `"parquet"`, by
/// the file's first bytes.
#[pyfunction]
pub fn file_format(path: &str) -> PyResult<&'static str> {
    use std::io::Read;
    guard("file_format", || {
        let mut head = Vec::with_capacity(4);
        std::fs::File::open(path)
            .and_then(|f| f.take(4).read_to_end(&mut head))
            .map_err(|e| value_error(Error::io(path, &e)))?;
        Ok(kind(Format::sniff(&head)))
    })
}

/// A format's name in Python: lowercase, one word.
fn kind(format: Format) -> &'static str {
    match format {
        Format::Jsonl => "jsonl",
        Format::Gzip => "gzip",
        Format::Zstd => "zstd",
        Format::Parquet => "parquet",
    }
}

/// One batch of signed documents, before it becomes Python objects.
#[derive(Default)]
struct Signed {
    /// Each document's 1-based line or row number (0 for a text file).
    numbers: Vec<i64>,
    /// Each document's id, JSON text, in its one spelling.
    ids: Vec<String>,
    /// Their fingerprints.
    fps: Vec<Fingerprint>,
}

/// `CorpusReader(path, name=None, id_field="id", text_field="text", k=5,
/// n=128, text=False, lossy=False, max_size=4 GiB, words="space")`: iterates over one file's
/// documents, signed, as `(numbers, ids, SignatureBatch)` batches in input
/// order. A corpus file (JSONL plain, gzip or zstd, or Parquet, told by its
/// first bytes) is read by `neardup-corpus`'s pipeline on one thread;
/// with `text=True` the file is one text document whose id is its name.
/// `name` (default: `path`) is how the file is named in ids and in the
/// messages about its lines: the path the user gave, where `path` may be
/// made absolute for a task that runs in another directory (a file that
/// cannot be opened is named by `path`, the one that was tried).
/// A bad line stops the iteration with the `ValueError` `neardup scan`
/// prints.
#[pyclass(module = "neardup")]
pub struct CorpusReader {
    batches: Mutex<Receiver<std::thread::Result<Message>>>,
    params: Params,
    /// The end, or the error, was handed out.
    done: AtomicBool,
}

/// What the reading thread sends: a batch, the error that stopped it, or
/// the end. The end is said, never inferred from the thread being gone, so
/// that a reader that died can never look like a file that ended.
enum Message {
    Batch(Signed),
    Failed(Error),
    End,
}

type Sender = SyncSender<std::thread::Result<Message>>;

/// Reads one file for [`CorpusReader`], sending its batches on `tx`.
#[allow(clippy::too_many_arguments)]
fn read(
    path: &str,
    name: &str,
    id_field: &str,
    text_field: &str,
    params: Params,
    text: bool,
    lossy: bool,
    max_size: u64,
    tx: &Sender,
) -> Result<(), Error> {
    if text {
        return send_text(path, name, params, lossy, max_size, tx);
    }
    let fields = Fields {
        id: id_field,
        text: text_field,
        lossy,
    };
    let mut source = source::open(Path::new(path), fields.columns())?;
    let how = Signing {
        fields,
        params,
        backend: Backend::detect(),
        keys: false,
    };
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| Error::Refused(format!("starting a worker thread: {e}")))?;
    let mut batch = Signed::default();
    let make = |raw, fp, _| Ok((id::canonical(raw)?, fp));
    one.install(|| {
        pipeline::sign(
            &mut source.data,
            name,
            max_size,
            how,
            make,
            |record, (id, fp)| {
                batch.numbers.push(record.number() as i64);
                batch.ids.push(id);
                batch.fps.push(fp);
                if batch.ids.len() == BATCH_DOCS {
                    let full = Message::Batch(std::mem::take(&mut batch));
                    // Python stopped reading (the reader was dropped): stop.
                    tx.send(Ok(full))
                        .map_err(|_| Error::Refused("the reader was closed".into()))?;
                }
                Ok::<(), Error>(())
            },
        )
    })?;
    if !batch.ids.is_empty() {
        let _ = tx.send(Ok(Message::Batch(batch)));
    }
    Ok(())
}

#[pymethods]
impl CorpusReader {
    #[new]
    #[pyo3(signature = (path, name = None, id_field = "id".to_owned(), text_field = "text".to_owned(),
        k = None, n = None, text = false, lossy = false, max_size = MAX_SIZE, words = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        path: String,
        name: Option<String>,
        id_field: String,
        text_field: String,
        k: Option<Int>,
        n: Option<Int>,
        text: bool,
        lossy: bool,
        max_size: u64,
        words: Option<Words>,
    ) -> PyResult<CorpusReader> {
        guard("CorpusReader", || {
            let (k, n) = given_or_default(k, n);
            let params = params(&k, &n, words)?;
            let name = name.unwrap_or_else(|| path.clone());
            // Two batches in flight: the reader runs ahead of Python by one.
            let (tx, rx) = sync_channel(1);
            let spawned = std::thread::Builder::new()
                .name("neardup-corpus".into())
                .spawn(move || {
                    let ended = catch_unwind(AssertUnwindSafe(|| {
                        match read(
                            &path,
                            &name,
                            &id_field,
                            &text_field,
                            params,
                            text,
                            lossy,
                            max_size,
                            &tx,
                        ) {
                            Ok(()) => Message::End,
                            Err(e) => Message::Failed(e),
                        }
                    }));
                    // Python may have stopped reading: nobody to tell.
                    let _ = tx.send(ended);
                });
            spawned.map_err(|e| {
                PyValueError::new_err(format!("neardup.CorpusReader: starting a thread: {e}"))
            })?;
            Ok(CorpusReader {
                batches: Mutex::new(rx),
                params,
                done: AtomicBool::new(false),
            })
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next batch, waiting for it with Ctrl-C heard (see
    /// [`crate::interrupt`]).
    #[allow(clippy::type_complexity)]
    fn __next__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<(Bound<'py, PyArray1<i64>>, Vec<String>, SignatureBatch)>> {
        guard("CorpusReader.__next__", || {
            numpy_api(py, "CorpusReader.__next__")?;
            // After the end or an error the thread is gone: the end again.
            if self.done.load(Ordering::Relaxed) {
                return Ok(None);
            }
            let batches = &self.batches;
            let message = py.detach(|| {
                let rx = batches.lock().unwrap_or_else(|e| e.into_inner());
                wait("CorpusReader.__next__", &rx, || {})
            })?;
            if !matches!(message, Message::Batch(_)) {
                self.done.store(true, Ordering::Relaxed);
            }
            match message {
                Message::End => Ok(None),
                Message::Failed(e) => Err(value_error(e)),
                Message::Batch(signed) => {
                    let mut columns = Columns::default();
                    columns.push(signed.fps, self.params);
                    Ok(Some((
                        PyArray1::from_vec(py, signed.numbers),
                        signed.ids,
                        columns.into_batch(py, self.params)?,
                    )))
                }
            }
        })
    }
}

/// A text file as one document, its id its path, as a directory's text
/// files are in `neardup scan`.
fn send_text(
    path: &str,
    name: &str,
    params: Params,
    lossy: bool,
    max_size: u64,
    tx: &Sender,
) -> Result<(), Error> {
    let opts = text::Options {
        lossy,
        max_size,
        max_expanded: neardup_extract::Limits::default().max_expanded,
        mmap: false,
        format: None,
    };
    let text = text::read_text(Path::new(path), &opts)?;
    let fp = Signer::new(params, Backend::detect()).sign(&text);
    let _ = tx.send(Ok(Message::Batch(Signed {
        numbers: vec![0],
        ids: vec![id::of_str(name)],
        fps: vec![fp],
    })));
    Ok(())
}

/// `sign_lines(values, starts, state, name, id_field="id",
/// text_field="text", k=5, n=128, words="space", lossy=False)`: the lines of a plain JSONL file as
/// Spark's text reader gives them (`values`, a pyarrow binary or string
/// array, one line each, and `starts`, the byte offset of each line's file
/// block), parsed and signed as `neardup scan` parses and signs them.
///
/// `state` is `(block, position, line)` after the previous batch of the
/// same task (`(None, 0, 0)` at first): lines are numbered within their
/// block, and blank ones skipped. Returns `(blocks, positions, ids,
/// SignatureBatch, state)`, one entry per document. A bad line is a
/// `ValueError` naming the file, the line and (past the first block) the
/// block, in `neardup scan`'s words; a line of invalid UTF-8 is one unless `lossy` replaces its
/// invalid sequences by U+FFFD, as `neardup scan --lossy` does.
#[pyfunction]
#[pyo3(signature = (values, starts, state, name, id_field = "id", text_field = "text",
    k = None, n = None, words = None, lossy = false))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn sign_lines<'py>(
    py: Python<'py>,
    values: &Bound<'py, PyAny>,
    starts: PyReadonlyArray1<'py, i64>,
    state: (Option<i64>, i64, u64),
    name: &str,
    id_field: &str,
    text_field: &str,
    k: Option<Int>,
    n: Option<Int>,
    words: Option<Words>,
    lossy: bool,
) -> PyResult<(
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Vec<String>,
    SignatureBatch,
    (Option<i64>, i64, u64),
)> {
    guard("sign_lines", || {
        numpy_api(py, "sign_lines")?;
        let (k, n) = given_or_default(k, n);
        let params = params(&k, &n, words)?;
        let fields = Fields {
            id: id_field,
            text: text_field,
            lossy,
        };
        let (mut block, mut pos, mut line) = state;
        let (mut blocks, mut positions, mut ids) = (Vec::new(), Vec::new(), Vec::new());
        let mut columns = Columns::default();
        let mut signer = Signer::new(params, Backend::detect());
        let starts = starts.as_slice()?;
        chunks(values, "values", &mut |first, rows| {
            let signed = py.detach(|| -> Result<Vec<Fingerprint>, String> {
                let mut texts = Vec::with_capacity(rows.len());
                for (i, bytes) in rows.iter().enumerate() {
                    let start = *starts.get(first + i).ok_or("fewer starts than values")?;
                    if block != Some(start) {
                        (block, pos, line) = (Some(start), 0, 0);
                    }
                    line += 1;
                    if bytes.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    // `neardup scan`'s words (`Error::In` around
                    // `Error::Line`), and where Spark's block starts.
                    let where_ = match start {
                        0 => format!("'{name}': line {line}"),
                        _ => format!("'{name}': line {line} of the block at byte {start}"),
                    };
                    let at = |e: Error| match e {
                        Error::Line { problem, .. } => format!("{where_}: {problem}"),
                        e => format!("{where_}: {e}"),
                    };
                    let doc = fields
                        .parse(&Line {
                            number: line,
                            bytes,
                        })
                        .map_err(at)?;
                    ids.push(id::canonical(doc.id).map_err(at)?);
                    blocks.push(start);
                    positions.push(pos);
                    pos += 1;
                    texts.push(doc.text);
                }
                Ok(signer.sign_all(texts.iter().map(|t| &**t)))
            });
            columns.push(signed.map_err(PyValueError::new_err)?, params);
            Ok(())
        })?;
        Ok((
            PyArray1::from_vec(py, blocks),
            PyArray1::from_vec(py, positions),
            ids,
            columns.into_batch(py, params)?,
            (block, pos, line),
        ))
    })
}
