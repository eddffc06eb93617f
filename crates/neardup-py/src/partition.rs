//! `neardup.ScanPlan` and the line writers: the stages of the core's
//! [`neardup::scan`] as calls on one batch of rows (numpy arrays), for an
//! engine that runs the scan over partitions and shuffles rows between
//! machines (`neardup.spark`).
//!
//! Each call is the core's step on every row of its batch: band records
//! ([`Plan::band_records`]), identical groups ([`Exact::add_group`]), the
//! candidates of a bucket or of two blocks of one ([`candidates`],
//! [`candidates_between`]) checked by [`Plan::check`], a pair's receipt
//! ([`Receipt::new`]) and its output line ([`lines`]). The engine only
//! brings the rows together; what is reported is decided here, by the
//! core, so that a partitioned scan writes the bytes `neardup scan` writes.

use neardup::scan::{candidates, candidates_between, lines, Exact, Pair, Plan};
use neardup::{Digest, Fingerprint, Params, Receipt, Signature};
use numpy::ndarray::ArrayView2;
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::error::to_py;
use crate::fingerprint::id_json;
use crate::interrupt::{guard, numpy_api};
use crate::params::{given_or_default, repr_words, Int, Words};
use crate::scan::{plan, ThresholdArg};

/// A pair's slot-match count in the arrays returned here when it has
/// none (a document without a signature).
pub const NO_MATCHES: i64 = -1;

/// A scan's settings, with one method per stage of a partitioned scan.
#[pyclass(module = "neardup", frozen)]
pub struct ScanPlan(Plan);

pub type U32s<'py> = Bound<'py, PyArray1<u32>>;

#[pymethods]
impl ScanPlan {
    /// The plan of `neardup scan --threshold T -k K -n N [--bands B --rows
    /// R] [--recall exact] [--words script]`, checked as the CLI checks
    /// them.
    #[new]
    #[pyo3(signature = (
        threshold = None,
        k = None,
        n = None,
        bands = None,
        rows = None,
        recall = "probable",
        words = None,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        threshold: Option<ThresholdArg>,
        k: Option<Int>,
        n: Option<Int>,
        bands: Option<Int>,
        rows: Option<Int>,
        recall: &str,
        words: Option<Words>,
    ) -> PyResult<ScanPlan> {
        guard("ScanPlan", || {
            // Its methods make numpy arrays, in Spark's Python workers too.
            numpy_api(py, "ScanPlan")?;
            let threshold = threshold.unwrap_or(ThresholdArg::DEFAULT);
            let (k, n) = given_or_default(k, n);
            plan(threshold, (&k, &n, words), (bands, rows), recall).map(ScanPlan)
        })
    }

    #[getter]
    fn k(&self) -> usize {
        self.0.params().k()
    }

    #[getter]
    fn n(&self) -> usize {
        self.0.params().n()
    }

    /// The word rule, `"space"` or `"script"`: the algorithm its receipts
    /// name.
    #[getter]
    fn words(&self) -> &'static str {
        self.0.params().words().name()
    }

    #[getter]
    fn bands(&self) -> usize {
        self.0.banding().bands()
    }

    #[getter]
    fn rows(&self) -> usize {
        self.0.banding().rows()
    }

    /// The threshold as `--threshold` takes it: `"0.75"`.
    #[getter]
    fn threshold(&self) -> String {
        self.0.threshold().to_string()
    }

    /// The probability that a pair exactly at the threshold shares no band.
    #[getter]
    fn miss_probability(&self) -> f64 {
        self.0.miss_probability()
    }

    /// The map side: `(band, key, doc)` arrays, one record per band of each
    /// row's signature (`signatures` is `(len, n)`, row `i` for document
    /// `docs[i]`), document after document.
    fn band_records<'py>(
        &self,
        py: Python<'py>,
        docs: PyReadonlyArray1<'py, u32>,
        signatures: PyReadonlyArray2<'py, u32>,
    ) -> PyResult<(U32s<'py>, Bound<'py, PyArray1<u64>>, U32s<'py>)> {
        guard("ScanPlan.band_records", || {
            let docs = docs.as_slice()?;
            let sigs = rows_of(&signatures.as_array(), self.0.params(), docs.len())?;
            let bands = self.0.banding().bands();
            let (mut band, mut key, mut doc) = (
                Vec::with_capacity(docs.len() * bands),
                Vec::with_capacity(docs.len() * bands),
                Vec::with_capacity(docs.len() * bands),
            );
            for (&d, sig) in docs.iter().zip(&sigs) {
                for r in self.0.band_records(d, sig) {
                    band.push(r.band);
                    key.push(r.key);
                    doc.push(r.doc);
                }
            }
            Ok((
                PyArray1::from_vec(py, band),
                PyArray1::from_vec(py, key),
                PyArray1::from_vec(py, doc),
            ))
        })
    }

    /// The reduce side, on rows sorted by `(band, key, left, right, doc)`:
    /// each run of one `(band, key, left, right)` is one unit of one bucket,
    /// every row of it a document of block `left` or `right` (`block`) of
    /// the bucket; `left == right` is a whole block, whose pairs are
    /// [`candidates`], else the pairs across the two are
    /// [`candidates_between`]. Every candidate is checked by
    /// [`Plan::check`] in the unit's band: it counts only in the first
    /// band its slots share. Returns the `(a, b, matches)` arrays of the
    /// pairs reported, and the number of candidates counted in their band.
    #[allow(clippy::too_many_arguments)]
    fn verify_blocks<'py>(
        &self,
        py: Python<'py>,
        band: PyReadonlyArray1<'py, u32>,
        key: PyReadonlyArray1<'py, u64>,
        left: PyReadonlyArray1<'py, u32>,
        right: PyReadonlyArray1<'py, u32>,
        block: PyReadonlyArray1<'py, u32>,
        doc: PyReadonlyArray1<'py, u32>,
        signatures: PyReadonlyArray2<'py, u32>,
        refs: u32,
    ) -> PyResult<(U32s<'py>, U32s<'py>, U32s<'py>, u64)> {
        guard("ScanPlan.verify_blocks", || {
            let (band, key) = (band.as_slice()?, key.as_slice()?);
            let (left, right, block) = (left.as_slice()?, right.as_slice()?, block.as_slice()?);
            let doc = doc.as_slice()?;
            let len = doc.len();
            if [band.len(), key.len(), left.len(), right.len(), block.len()] != [len; 5] {
                return Err(PyValueError::new_err(
                    "verify_blocks: columns of different lengths",
                ));
            }
            let sigs = rows_of(&signatures.as_array(), self.0.params(), len)?;
            let unit = |i: usize| (band[i], key[i], left[i], right[i]);
            let (mut a_out, mut b_out, mut m_out) = (Vec::new(), Vec::new(), Vec::new());
            let mut counted = 0u64;
            let mut start = 0;
            while start < len {
                let mut end = start + 1;
                while end < len && unit(end) == unit(start) {
                    end += 1;
                }
                let (b, _, l, r) = unit(start);
                let rows = start..end;
                let side = |which: u32| -> Vec<usize> {
                    rows.clone().filter(|&i| block[i] == which).collect()
                };
                let (xs, ys) = if l == r {
                    (side(l), Vec::new())
                } else {
                    (side(l), side(r))
                };
                if xs.len() + ys.len() != end - start {
                    return Err(PyValueError::new_err(format!(
                        "verify_blocks: a row of unit ({l}, {r}) is in another block"
                    )));
                }
                let docs_x: Vec<u32> = xs.iter().map(|&i| doc[i]).collect();
                let docs_y: Vec<u32> = ys.iter().map(|&i| doc[i]).collect();
                let sorted = |d: &[u32]| d.windows(2).all(|w| w[0] < w[1]);
                if !sorted(&docs_x)
                    || !sorted(&docs_y)
                    || docs_x
                        .last()
                        .zip(docs_y.first())
                        .is_some_and(|(x, y)| x >= y)
                {
                    return Err(PyValueError::new_err(
                        "verify_blocks: rows not sorted by document, or blocks out of order",
                    ));
                }
                // Document numbers are unique in a unit: a pair's rows are
                // found again by binary search.
                let row = |docs: &[u32], rows: &[usize], d: u32| {
                    docs.binary_search(&d).map(|p| rows[p]).unwrap_or(0)
                };
                let mut check = |a: u32, b_doc: u32, ia: usize, ib: usize| {
                    let check = self.0.check(b, &sigs[ia], &sigs[ib]);
                    counted += u64::from(check.is_counted());
                    if let Some(m) = check.accepted() {
                        a_out.push(a);
                        b_out.push(b_doc);
                        m_out.push(m);
                    }
                };
                if l == r {
                    for (a, b_doc) in candidates(&docs_x, refs) {
                        check(a, b_doc, row(&docs_x, &xs, a), row(&docs_x, &xs, b_doc));
                    }
                } else {
                    for (a, b_doc) in candidates_between(&docs_x, &docs_y, refs) {
                        check(a, b_doc, row(&docs_x, &xs, a), row(&docs_y, &ys, b_doc));
                    }
                }
                start = end;
            }
            Ok((
                PyArray1::from_vec(py, a_out),
                PyArray1::from_vec(py, b_out),
                PyArray1::from_vec(py, m_out),
                counted,
            ))
        })
    }

    /// The exact stage, on rows sorted by `(normalized_sha256, doc)`: each
    /// run of one digest is an identical group ([`Exact::add_group`]): its
    /// first document paired with each other one. Rows without a signature
    /// have `has_signature` false (their row of `signatures` is ignored).
    /// Returns the `(a, b, matches)` arrays (`matches` -1 for none), the
    /// number of groups that gave a pair and their documents.
    #[allow(clippy::type_complexity)]
    fn exact_pairs<'py>(
        &self,
        py: Python<'py>,
        normalized_sha256: Vec<String>,
        doc: PyReadonlyArray1<'py, u32>,
        signatures: PyReadonlyArray2<'py, u32>,
        has_signature: PyReadonlyArray1<'py, bool>,
        refs: u32,
    ) -> PyResult<(U32s<'py>, U32s<'py>, Bound<'py, PyArray1<i64>>, u64, u64)> {
        guard("ScanPlan.exact_pairs", || {
            let doc = doc.as_slice()?;
            let len = doc.len();
            let sigs = optional_rows(&signatures, &has_signature, self.0.params(), len)?;
            if normalized_sha256.len() != len {
                return Err(PyValueError::new_err(
                    "exact_pairs: columns of different lengths",
                ));
            }
            let mut exact = Exact::default();
            let mut start = 0;
            while start < len {
                let mut end = start + 1;
                while end < len && normalized_sha256[end] == normalized_sha256[start] {
                    end += 1;
                }
                let group = &doc[start..end];
                if !group.windows(2).all(|w| w[0] < w[1]) {
                    return Err(PyValueError::new_err(
                        "exact_pairs: rows not sorted by document within a digest",
                    ));
                }
                let sig = |d: u32| {
                    let at = group.binary_search(&d).ok()?;
                    sigs[start + at].as_ref()
                };
                exact.add_group(group, refs, |a, b| Some(sig(a)?.matches(sig(b)?)));
                start = end;
            }
            let (a, b, m) = pair_arrays(py, &exact.pairs);
            Ok((a, b, m, exact.groups, exact.grouped_docs))
        })
    }

    /// Each pair's receipt, from the two documents' fingerprints (row `i` of
    /// the `_a` columns and of the `_b` columns), and its `--pairs` line
    /// under ids `ids_a[i]`, `ids_b[i]` (JSON text). Returns the lists
    /// `receipt_sha256`, `verdict`, the `matches` array (-1 for none) and
    /// the lines (each with its newline).
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn receipts<'py>(
        &self,
        py: Python<'py>,
        ids_a: Vec<String>,
        ids_b: Vec<String>,
        normalized_sha256_a: Vec<String>,
        normalized_sha256_b: Vec<String>,
        shingles_a: PyReadonlyArray1<'py, u64>,
        shingles_b: PyReadonlyArray1<'py, u64>,
        signatures_a: PyReadonlyArray2<'py, u32>,
        signatures_b: PyReadonlyArray2<'py, u32>,
        has_signature_a: PyReadonlyArray1<'py, bool>,
        has_signature_b: PyReadonlyArray1<'py, bool>,
    ) -> PyResult<(
        Vec<String>,
        Vec<&'static str>,
        Bound<'py, PyArray1<i64>>,
        Vec<String>,
    )> {
        guard("ScanPlan.receipts", || {
            let len = ids_a.len();
            let params = self.0.params();
            let side = |digests: &[String],
                        shingles: &PyReadonlyArray1<'py, u64>,
                        sigs: &PyReadonlyArray2<'py, u32>,
                        has: &PyReadonlyArray1<'py, bool>|
             -> PyResult<Vec<Fingerprint>> {
                let shingles = shingles.as_slice()?;
                let sigs = optional_rows(sigs, has, params, len)?;
                if digests.len() != len || shingles.len() != len {
                    return Err(PyValueError::new_err(
                        "receipts: columns of different lengths",
                    ));
                }
                digests
                    .iter()
                    .zip(shingles)
                    .zip(sigs)
                    .map(|((d, &shingles), signature)| {
                        Ok(Fingerprint {
                            params,
                            normalized_sha256: Digest::from_hex(d).map_err(to_py)?,
                            shingles,
                            signature,
                        })
                    })
                    .collect()
            };
            let fa = side(
                &normalized_sha256_a,
                &shingles_a,
                &signatures_a,
                &has_signature_a,
            )?;
            let fb = side(
                &normalized_sha256_b,
                &shingles_b,
                &signatures_b,
                &has_signature_b,
            )?;
            if ids_b.len() != len {
                return Err(PyValueError::new_err(
                    "receipts: columns of different lengths",
                ));
            }
            let mut hashes = Vec::with_capacity(len);
            let mut verdicts = Vec::with_capacity(len);
            let mut matches = Vec::with_capacity(len);
            let mut out = Vec::with_capacity(len);
            for i in 0..len {
                let receipt = Receipt::new(&fa[i], &fb[i]).map_err(to_py)?;
                let hash = receipt.sha256();
                let mut line = String::with_capacity(200);
                lines::pair(&mut line, [&ids_a[i], &ids_b[i]], &receipt, &hash, None);
                hashes.push(hash.to_string());
                verdicts.push(receipt.verdict.as_str());
                matches.push(receipt.matches.map_or(NO_MATCHES, i64::from));
                out.push(line);
            }
            Ok((hashes, verdicts, PyArray1::from_vec(py, matches), out))
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "ScanPlan(threshold={}, k={}, n={}{}, bands={}, rows={})",
            self.0.threshold(),
            self.k(),
            self.n(),
            repr_words(self.0.params()),
            self.bands(),
            self.rows()
        )
    }

    /// Pickled as its arguments.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyType>, PlanArgs)> {
        let me = slf.get();
        Ok((
            slf.get_type(),
            (
                me.threshold(),
                me.k(),
                me.n(),
                me.bands(),
                me.rows(),
                "probable",
                me.words(),
            ),
        ))
    }
}

/// The arguments a pickled [`ScanPlan`] is made again from: `threshold`,
/// `k`, `n`, `bands`, `rows`, `recall` (its bands are given) and `words`.
type PlanArgs = (
    String,
    usize,
    usize,
    usize,
    usize,
    &'static str,
    &'static str,
);

/// `pairs` as the `(a, b, matches)` arrays the Spark stages take
/// (`matches` [`NO_MATCHES`] for none).
pub fn pair_arrays<'py>(
    py: Python<'py>,
    pairs: &[Pair],
) -> (U32s<'py>, U32s<'py>, Bound<'py, PyArray1<i64>>) {
    let col = |f: fn(&Pair) -> u32| PyArray1::from_vec(py, pairs.iter().map(f).collect());
    let m = pairs
        .iter()
        .map(|p| p.matches.map_or(NO_MATCHES, i64::from))
        .collect();
    (col(|p| p.a), col(|p| p.b), PyArray1::from_vec(py, m))
}

/// Each row of a `(len, n)` signature matrix as a [`Signature`].
pub fn rows_of(sigs: &ArrayView2<'_, u32>, params: Params, len: usize) -> PyResult<Vec<Signature>> {
    if sigs.nrows() != len || sigs.ncols() != params.n() {
        return Err(PyValueError::new_err(format!(
            "signatures must be ({len}, {}), got {:?}",
            params.n(),
            sigs.shape()
        )));
    }
    sigs.rows()
        .into_iter()
        .map(|r| Signature::from_slots(r.to_vec()).map_err(to_py))
        .collect()
}

/// [`rows_of`], `None` for the rows whose `has` is false.
pub fn optional_rows(
    sigs: &PyReadonlyArray2<'_, u32>,
    has: &PyReadonlyArray1<'_, bool>,
    params: Params,
    len: usize,
) -> PyResult<Vec<Option<Signature>>> {
    let has = has.as_slice()?;
    if has.len() != len {
        return Err(PyValueError::new_err(
            "has_signature and signatures have different lengths",
        ));
    }
    let rows = rows_of(&sigs.as_array(), params, len)?;
    Ok(rows
        .into_iter()
        .zip(has)
        .map(|(s, &h)| h.then_some(s))
        .collect())
}

/// The ids as the JSON text of the output lines: a `str` as its JSON
/// string, an `int` as its digits (`ids[i]` names a bad one).
#[pyfunction]
pub fn ids_json(ids: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    guard("ids_json", || {
        ids.try_iter()?
            .enumerate()
            .map(|(i, id)| id_json(&id?, &format!("ids[{i}]")))
            .collect()
    })
}

/// `--clusters` lines, numbered from `first`: one per list of member ids
/// (JSON text, keeper first), each with its newline.
#[pyfunction]
pub fn cluster_lines(first: usize, members: Vec<Vec<String>>) -> PyResult<String> {
    guard("cluster_lines", || {
        let mut out = String::new();
        for (i, m) in members.iter().enumerate() {
            let m: Vec<&str> = m.iter().map(String::as_str).collect();
            lines::cluster(&mut out, first + i, &m);
        }
        Ok(out)
    })
}

/// `--keep-list` / `--drop-list` lines, one per id (JSON text).
#[pyfunction]
pub fn list_lines(ids: Vec<String>) -> PyResult<String> {
    guard("list_lines", || {
        let mut out = String::new();
        for id in &ids {
            lines::list_id(&mut out, id);
        }
        Ok(out)
    })
}
