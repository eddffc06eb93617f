//! `neardup.scan` and `neardup.ScanResult`: every near-duplicate pair of a
//! list of documents, verified and clustered by the core's
//! [`neardup::scan`], exactly as `neardup scan` reports them.

use std::collections::HashMap;
use std::sync::Arc;

use neardup::scan::contained::{self, Keys};
use neardup::scan::{lines, Pair, Plan};
use neardup::{Containment, Fingerprint, Receipt, Threshold};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use rayon::prelude::*;

use crate::batch::sign_all_with;
use crate::error::to_py;
use crate::fingerprint::id_json;
use crate::interrupt::{detached, guard, interruptible};
use crate::params::{given_or_default, params, type_name, Int, Words};
use crate::receipt::Receipt as PyReceipt;
use crate::workers::Workers;

/// A threshold argument: a `str` (`"0.75"`) or a number, read exactly as the
/// CLI reads `--threshold` (its decimal form, at most 4 decimals).
#[derive(Clone, Copy)]
pub struct ThresholdArg(Threshold);

impl ThresholdArg {
    /// `0.75`, the NEAR-DUPLICATE line.
    pub const DEFAULT: ThresholdArg = ThresholdArg(Threshold::NEAR_DUPLICATE);
}

impl<'a, 'py> FromPyObject<'a, 'py> for ThresholdArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<ThresholdArg> {
        let number = (obj.is_instance_of::<PyInt>() || obj.is_instance_of::<PyFloat>())
            && !obj.is_instance_of::<PyBool>();
        if !(number || obj.is_instance_of::<PyString>()) {
            return Err(PyTypeError::new_err(format!(
                "threshold must be a float or a str like \"0.75\", got {}",
                type_name(&obj)
            )));
        }
        // `str(0.75)` is "0.75": Python writes the shortest decimal that
        // reads back as the same double, so a float is read as the user
        // wrote it.
        let text = obj.str()?.to_string();
        Threshold::parse(&text).map(ThresholdArg).map_err(to_py)
    }
}

/// Every pair a scan reports, its clusters and the documents to keep and
/// drop, each in input order (documents of `against` first).
#[pyclass(module = "neardup", frozen)]
pub struct ScanResult {
    /// Every document's id as given, `against` ones first.
    ids: Py<PyList>,
    /// The same ids as the JSON text the core's lines take.
    ids_json: Vec<String>,
    /// How many of the documents came from `against`.
    refs: u32,
    /// Each reported pair `(a, b)` with its receipt.
    pairs: Vec<(u32, u32, Receipt)>,
    /// In a scan for containment, each pair's shared shingles (its
    /// receipt holds both sizes); empty otherwise.
    shared: Vec<u64>,
    clusters: Vec<Vec<u32>>,
    dropped: Vec<u32>,
    /// The Python lists, built on first access.
    cache: [PyOnceLock<Py<PyList>>; 4],
}

impl ScanResult {
    /// The result over documents `ids` (as given, and as JSON text), the
    /// first `refs` of them references: `pairs`, `clusters` and `dropped`
    /// number them. A scan against an index passes only the index
    /// documents that take part in a pair, in their order: the lines
    /// depend on the documents' order alone, so they are the same.
    pub fn new(
        ids: Bound<'_, PyList>,
        ids_json: Vec<String>,
        refs: u32,
        pairs: Vec<(u32, u32, Receipt)>,
        clusters: Vec<Vec<u32>>,
        dropped: Vec<u32>,
    ) -> PyResult<ScanResult> {
        Ok(ScanResult {
            ids: ids.unbind(),
            ids_json,
            refs,
            pairs,
            shared: Vec::new(),
            clusters,
            dropped,
            cache: std::array::from_fn(|_| PyOnceLock::new()),
        })
    }

    /// The result of a scan for containment: `shared[i]` is pair `i`'s.
    fn sharing(self, shared: Vec<u64>) -> PyResult<ScanResult> {
        if !shared.is_empty() && shared.len() != self.pairs.len() {
            return Err(PyValueError::new_err(
                "ScanResult: one shared count per pair",
            ));
        }
        Ok(ScanResult { shared, ..self })
    }

    /// Pair `i`'s containment, in a scan for containment.
    fn containment(&self, i: usize) -> Option<Containment> {
        let r = &self.pairs[i].2;
        let sizes = [r.documents[0].shingles, r.documents[1].shingles];
        self.shared.get(i).map(|&s| Containment::new(s, sizes))
    }

    fn cached<'py>(
        &self,
        py: Python<'py>,
        slot: usize,
        build: impl FnOnce() -> PyResult<Bound<'py, PyList>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let list = self.cache[slot].get_or_try_init(py, || build().map(Bound::unbind))?;
        Ok(list.bind(py).clone())
    }

    fn id<'py>(&self, py: Python<'py>, doc: u32) -> PyResult<Bound<'py, PyAny>> {
        self.ids.bind(py).get_item(doc as usize)
    }

    /// The documents not from `against` that are dropped (`true`) or kept.
    fn listed(&self, dropped: bool) -> Vec<u32> {
        let mut is_dropped = vec![false; self.ids_json.len()];
        for &d in &self.dropped {
            is_dropped[d as usize] = true;
        }
        (self.refs..self.ids_json.len() as u32)
            .filter(|&d| is_dropped[d as usize] == dropped)
            .collect()
    }
}

#[pymethods]
impl ScanResult {
    /// The reported pairs, sorted by `(a, b)` in input order: dicts with the
    /// fields of `neardup scan --pairs` lines: `a`, `b` (ids), `matches`,
    /// `n`, `receipt_sha256`, `similarity`, `verdict`; and in a scan for
    /// containment, `containment`: `{"a_in_b", "b_in_a", "shared"}`.
    #[getter]
    fn pairs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 0, || {
            let dicts = self
                .pairs
                .iter()
                .enumerate()
                .map(|(i, (a, b, r))| -> PyResult<_> {
                    let d = PyDict::new(py);
                    d.set_item("a", self.id(py, *a)?)?;
                    d.set_item("b", self.id(py, *b)?)?;
                    if let Some(c) = self.containment(i) {
                        let o = PyDict::new(py);
                        o.set_item("a_in_b", c.a_in_b())?;
                        o.set_item("b_in_a", c.b_in_a())?;
                        o.set_item("shared", c.shared)?;
                        d.set_item("containment", o)?;
                    }
                    d.set_item("matches", r.matches)?;
                    d.set_item("n", r.params.n())?;
                    d.set_item("receipt_sha256", r.sha256().to_string())?;
                    let n = r.params.n() as f64;
                    d.set_item("similarity", r.matches.map(|m| f64::from(m) / n))?;
                    d.set_item("verdict", r.verdict.as_str())?;
                    Ok(d)
                });
            PyList::new(py, dicts.collect::<PyResult<Vec<_>>>()?)
        })
    }

    /// The clusters of two or more documents, ordered by keeper: dicts with
    /// the fields of `--clusters` lines: `cluster` (0, 1, …), `keep` (the
    /// first member in input order), `members` (keeper first), `size`.
    #[getter]
    fn clusters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 1, || {
            let dicts = self
                .clusters
                .iter()
                .enumerate()
                .map(|(i, g)| -> PyResult<_> {
                    let members = g
                        .iter()
                        .map(|&doc| self.id(py, doc))
                        .collect::<PyResult<Vec<_>>>()?;
                    let d = PyDict::new(py);
                    let size = members.len();
                    d.set_item("cluster", i)?;
                    d.set_item("keep", members.first())?;
                    d.set_item("members", PyList::new(py, members)?)?;
                    d.set_item("size", size)?;
                    Ok(d)
                });
            PyList::new(py, dicts.collect::<PyResult<Vec<_>>>()?)
        })
    }

    /// The ids to keep, in input order: every document not from `against`
    /// that is not dropped.
    #[getter]
    fn keep<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 2, || {
            let ids = self.listed(false).into_iter().map(|d| self.id(py, d));
            PyList::new(py, ids.collect::<PyResult<Vec<_>>>()?)
        })
    }

    /// The ids to drop, in input order: in a cluster, not its keeper, not
    /// from `against`.
    #[getter]
    fn drop<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.cached(py, 3, || {
            let ids = self.listed(true).into_iter().map(|d| self.id(py, d));
            PyList::new(py, ids.collect::<PyResult<Vec<_>>>()?)
        })
    }

    /// The receipt of each pair, in the order of `pairs`: what `neardup
    /// compare A B` gives for the two texts.
    #[getter]
    fn receipts(&self) -> Vec<PyReceipt> {
        self.pairs.iter().map(|(_, _, r)| PyReceipt(*r)).collect()
    }

    /// The `--pairs` file `neardup scan` writes, byte for byte.
    fn pairs_jsonl(&self) -> String {
        let mut out = String::new();
        for (i, (a, b, r)) in self.pairs.iter().enumerate() {
            let ids = [
                self.ids_json[*a as usize].as_str(),
                self.ids_json[*b as usize].as_str(),
            ];
            let c = self.containment(i);
            lines::pair(&mut out, ids, r, &r.sha256(), c.as_ref());
        }
        out
    }

    /// The `--clusters` file, byte for byte.
    fn clusters_jsonl(&self) -> String {
        let mut out = String::new();
        for (i, g) in self.clusters.iter().enumerate() {
            let members: Vec<&str> = g
                .iter()
                .map(|&d| self.ids_json[d as usize].as_str())
                .collect();
            lines::cluster(&mut out, i, &members);
        }
        out
    }

    /// The `--keep-list` file, byte for byte.
    fn keep_list(&self) -> String {
        let mut out = String::new();
        for d in self.listed(false) {
            lines::list_id(&mut out, &self.ids_json[d as usize]);
        }
        out
    }

    /// The `--drop-list` file, byte for byte.
    fn drop_list(&self) -> String {
        let mut out = String::new();
        for d in self.listed(true) {
            lines::list_id(&mut out, &self.ids_json[d as usize]);
        }
        out
    }

    fn __repr__(&self) -> String {
        format!(
            "ScanResult(documents={}, against={}, pairs={}, clusters={}, dropped={})",
            self.ids_json.len(),
            self.refs,
            self.pairs.len(),
            self.clusters.len(),
            self.dropped.len()
        )
    }

    /// Pickled as the ids, the pairs with their canonical receipts, the
    /// clusters, the dropped documents (as document numbers) and the
    /// pairs' shared shingles (in a scan for containment).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, ScanState)> {
        let me = slf.get();
        let pairs = me
            .pairs
            .iter()
            .map(|(a, b, r)| (*a, *b, r.canonical()))
            .collect();
        Ok((
            slf.get_type().getattr("_restore")?,
            (
                me.ids.clone_ref(slf.py()),
                me.refs,
                pairs,
                me.clusters.clone(),
                me.dropped.clone(),
                me.shared.clone(),
            ),
        ))
    }

    /// Rebuilds a result from what pickling stores.
    #[classmethod]
    #[pyo3(signature = (ids, refs, pairs, clusters, dropped, shared = Vec::new()))]
    fn _restore(
        _cls: &Bound<'_, PyType>,
        ids: Bound<'_, PyList>,
        refs: u32,
        pairs: Vec<(u32, u32, String)>,
        clusters: Vec<Vec<u32>>,
        dropped: Vec<u32>,
        shared: Vec<u64>,
    ) -> PyResult<ScanResult> {
        guard("ScanResult._restore", || {
            let ids_json = ids
                .iter()
                .enumerate()
                .map(|(i, id)| id_json(&id, &format!("ids[{i}]")))
                .collect::<PyResult<Vec<_>>>()?;
            let len = ids_json.len() as u32;
            let in_range = |d: &u32| *d < len;
            if refs > len
                || !pairs.iter().all(|(a, b, _)| in_range(a) && in_range(b))
                || !clusters.iter().flatten().all(in_range)
                || !dropped.iter().all(in_range)
            {
                return Err(PyValueError::new_err(
                    "ScanResult: a document number past the ids",
                ));
            }
            let pairs = pairs
                .into_iter()
                .map(|(a, b, r)| Ok((a, b, Receipt::parse(&r).map_err(to_py)?)))
                .collect::<PyResult<Vec<_>>>()?;
            ScanResult::new(ids, ids_json, refs, pairs, clusters, dropped)?.sharing(shared)
        })
    }
}

/// What pickling stores of a [`ScanResult`].
type ScanState = (
    Py<PyList>,
    u32,
    Vec<(u32, u32, String)>,
    Vec<Vec<u32>>,
    Vec<u32>,
    Vec<u64>,
);

/// `neardup.scan(ids, texts, threshold=0.75, k=5, n=128, against=None,
/// ..., words="space")`:
/// signs the documents, then runs the core's scan on them: the same pairs,
/// clusters, keep and drop lists as `neardup scan` on the same documents,
/// ids and order. `against` is an existing corpus `(ids, texts)`: only pairs
/// with a new document are reported, and its documents are never dropped.
/// `containment=T` reports every pair in which one holds at least `T` of
/// the other's distinct shingles instead, as `neardup scan --containment`.
#[pyfunction]
#[pyo3(signature = (
    ids,
    texts,
    threshold = None,
    k = None,
    n = None,
    against = None,
    bands = None,
    rows = None,
    threads = None,
    recall = "probable",
    containment = None,
    words = None,
))]
#[allow(clippy::too_many_arguments)]
pub fn scan(
    py: Python<'_>,
    ids: &Bound<'_, PyAny>,
    texts: &Bound<'_, PyAny>,
    threshold: Option<ThresholdArg>,
    k: Option<Int>,
    n: Option<Int>,
    against: Option<&Bound<'_, PyAny>>,
    bands: Option<Int>,
    rows: Option<Int>,
    threads: Option<Int>,
    recall: &str,
    containment: Option<ThresholdArg>,
    words: Option<Words>,
) -> PyResult<ScanResult> {
    guard("scan", || {
        let (k, n) = given_or_default(k, n);
        let banded =
            threshold.is_some() || bands.is_some() || rows.is_some() || recall != "probable";
        if containment.is_some() && banded {
            return Err(PyValueError::new_err(
                "containment finds pairs exactly, without bands: give it without threshold, bands, rows or recall",
            ));
        }
        let threshold = threshold.unwrap_or(ThresholdArg::DEFAULT);
        let plan = plan(threshold, (&k, &n, words), (bands, rows), recall)?;
        let params = plan.params();
        let workers = Workers::new(threads.as_ref())?;

        let mut all_ids: Vec<Bound<'_, PyAny>> = Vec::new();
        let mut fps: Vec<Fingerprint> = Vec::new();
        let mut keys = containment.map(|_| Keys::new());
        if let Some(against) = against.filter(|a| !a.is_none()) {
            let pair = against
                .cast::<PyTuple>()
                .ok()
                .filter(|t| t.len() == 2)
                .ok_or_else(|| {
                    PyTypeError::new_err(format!(
                        "against must be a tuple (ids, texts), got {}",
                        type_name(against)
                    ))
                })?;
            let (ref_ids, ref_texts) = (pair.get_item(0)?, pair.get_item(1)?);
            let docs = Docs {
                ids: &mut all_ids,
                fps: &mut fps,
                keys: keys.as_mut(),
            };
            docs.load("scan", &ref_ids, &ref_texts, "against ", &workers, params)?;
        }
        let refs = fps.len();
        let docs = Docs {
            ids: &mut all_ids,
            fps: &mut fps,
            keys: keys.as_mut(),
        };
        docs.load("scan", ids, texts, "", &workers, params)?;
        let refs = u32::try_from(refs)
            .map_err(|_| to_py(neardup::Error::TooManyDocuments(refs as u64)))?;

        let ids_json = unique_ids(&all_ids, refs as usize)?;
        // The core's scan is one step: on Ctrl-C it is left to finish on
        // its own thread, which owns the fingerprints it reads.
        let fps = Arc::new(fps);
        let shared = Arc::clone(&fps);
        let found = move || match (containment, keys) {
            (Some(t), Some(keys)) => contained::scan(&shared, keys, refs, t.0),
            _ => neardup::scan::run(&shared, refs, &plan),
        };
        let outcome = detached(py, "scan", found)?.map_err(to_py)?;
        let pairs = receipts(py, "scan", &workers, &fps, &outcome.pairs)?;
        let shared: Vec<u64> = outcome.pairs.iter().filter_map(|p| p.shared).collect();
        ScanResult::new(
            PyList::new(py, all_ids)?,
            ids_json,
            refs,
            pairs,
            outcome.clusters,
            outcome.dropped,
        )?
        .sharing(shared)
    })
}

/// Each pair of `pairs` (document numbers into `fps`) with its receipt,
/// made on `workers` with the GIL released; Ctrl-C stops it between two
/// pairs. `call` names the Python call.
pub fn receipts(
    py: Python<'_>,
    call: &str,
    workers: &Workers,
    fps: &[Fingerprint],
    pairs: &[Pair],
) -> PyResult<Vec<(u32, u32, Receipt)>> {
    let receipts = interruptible(py, call, |stop| {
        workers.install(|| {
            // `None` once stopped: rayon then skips the pairs left.
            pairs
                .par_iter()
                .map(|p| {
                    (!stop.requested())
                        .then(|| Receipt::new(&fps[p.a as usize], &fps[p.b as usize]))
                })
                .collect::<Option<Result<Vec<_>, _>>>()
        })
    })?
    .ok_or_else(|| {
        PyRuntimeError::new_err(format!("neardup.{call}: receipts stopped without a signal"))
    })?
    .map_err(to_py)?;
    Ok(pairs
        .iter()
        .zip(receipts)
        .map(|(p, r)| (p.a, p.b, r))
        .collect())
}

/// The plan of a scan's arguments (`k`, `n` and `words` as given),
/// checked as `neardup scan` checks its options: `bands` and `rows`
/// together or not at all, and not with an exact `recall` (`"probable"`
/// or `"exact"`, as `--recall`).
pub fn plan(
    threshold: ThresholdArg,
    (k, n, words): (&Int, &Int, Option<Words>),
    (bands, rows): (Option<Int>, Option<Int>),
    recall: &str,
) -> PyResult<Plan> {
    let params = params(k, n, words)?;
    let exact = match recall {
        "probable" => false,
        "exact" => true,
        other => {
            return Err(PyValueError::new_err(format!(
                "recall: expected 'probable' or 'exact', got '{other}'"
            )))
        }
    };
    match (bands, rows) {
        (Some(_), Some(_)) if exact => Err(PyValueError::new_err(
            "recall='exact' chooses the bands: give bands and rows, or recall='exact', not both",
        )),
        (None, None) if exact => Ok(Plan::exact(params, threshold.0)),
        (None, None) => Ok(Plan::new(params, threshold.0)),
        (Some(b), Some(r)) => {
            let (b, r) = (b.value("bands")?, r.value("rows")?);
            Plan::with_banding(params, threshold.0, b, r).map_err(to_py)
        }
        _ => Err(PyValueError::new_err(
            "bands and rows go together: give both or neither",
        )),
    }
}

/// The documents of a scan as they are read, `against` first, with their
/// shingle keys when `keys` is given (a scan for containment).
pub struct Docs<'d, 'py> {
    pub ids: &'d mut Vec<Bound<'py, PyAny>>,
    pub fps: &'d mut Vec<Fingerprint>,
    pub keys: Option<&'d mut Keys>,
}

impl<'py> Docs<'_, 'py> {
    /// Reads and signs one corpus; `at` prefixes its argument names in
    /// errors (`against `), `call` names the Python call.
    pub fn load(
        self,
        call: &str,
        ids: &Bound<'py, PyAny>,
        texts: &Bound<'py, PyAny>,
        at: &str,
        workers: &Workers,
        params: neardup::Params,
    ) -> PyResult<()> {
        let ids = id_list(ids, at)?;
        let before = self.fps.len();
        let name = format!("{at}texts");
        let (fps, mut keys) = (&mut *self.fps, self.keys);
        let how = (params, keys.is_some());
        sign_all_with(texts, call, &name, how, workers, &mut |signed| {
            for (fp, k) in signed {
                fps.push(fp);
                if let Some(keys) = keys.as_deref_mut() {
                    keys.push(&k);
                }
            }
        })?;
        let signed = self.fps.len() - before;
        if signed != ids.len() {
            return Err(PyValueError::new_err(format!(
                "{at}ids has {} items but {at}texts has {signed}",
                ids.len(),
            )));
        }
        self.ids.extend(ids);
        Ok(())
    }
}

/// The ids of one corpus, as a list (a pyarrow array is turned into
/// Python values first).
pub fn id_list<'py>(ids: &Bound<'py, PyAny>, at: &str) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if ids.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{at}ids must be a sequence of str or int, not one str"
        )));
    }
    let module = ids.get_type().module()?.to_string();
    let ids = if module.starts_with("pyarrow") && ids.hasattr("to_pylist")? {
        ids.call_method0("to_pylist")?
    } else {
        ids.clone()
    };
    let items = ids.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "{at}ids must be a sequence of str or int, got {}",
            type_name(&ids)
        ))
    })?;
    items.collect()
}

/// Each id as JSON text, refusing a repeated one as `neardup scan` does:
/// one id, one document.
pub fn unique_ids(ids: &[Bound<'_, PyAny>], refs: usize) -> PyResult<Vec<String>> {
    let at = |i: usize| {
        if i < refs {
            format!("against ids[{i}]")
        } else {
            format!("ids[{}]", i - refs)
        }
    };
    let mut seen: HashMap<String, usize> = HashMap::with_capacity(ids.len());
    let mut out = Vec::with_capacity(ids.len());
    for (i, id) in ids.iter().enumerate() {
        let json = id_json(id, &at(i))?;
        if let Some(&first) = seen.get(&json) {
            return Err(PyValueError::new_err(format!(
                "{}: duplicate id {json} (first seen at {})",
                at(i),
                at(first)
            )));
        }
        seen.insert(json.clone(), i);
        out.push(json);
    }
    Ok(out)
}
