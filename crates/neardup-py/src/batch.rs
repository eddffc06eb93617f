//! `neardup.sign_batch` and `neardup.SignatureBatch`: many documents signed
//! on all cores, into numpy arrays.

use neardup::{Backend, Digest, Params, Signature, Signer};
use numpy::ndarray::Array2;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyType};
use rayon::prelude::*;

use crate::error::to_py;
use crate::fingerprint::Fingerprint;
use crate::interrupt::{guard, interruptible, numpy_api, Stop};
use crate::params::{given_or_default, params, repr_words, rule, Int, Words};
use crate::texts::{as_str, chunks};
use crate::workers::Workers;

/// The slot value of every slot of a document without a signature in
/// [`SignatureBatch`]'s matrix. A real slot can hold it too, so
/// `has_signature` is what tells them apart.
const NO_SIGNATURE: u32 = u32::MAX;

/// The signatures of many documents, row `i` for `texts[i]`.
#[pyclass(module = "neardup", frozen)]
pub struct SignatureBatch {
    params: Params,
    signatures: Py<PyArray2<u32>>,
    has_signature: Py<PyArray1<bool>>,
    shingles: Py<PyArray1<u64>>,
    normalized_sha256: Py<PyList>,
}

#[pymethods]
impl SignatureBatch {
    /// A `(len, n)` `uint32` array: row `i` is document `i`'s signature, or
    /// all `0xFFFFFFFF` when it has none (fewer than `k` words).
    #[getter]
    fn signatures(&self, py: Python<'_>) -> Py<PyArray2<u32>> {
        self.signatures.clone_ref(py)
    }

    /// A `bool` array: whether document `i` has a signature.
    #[getter]
    fn has_signature(&self, py: Python<'_>) -> Py<PyArray1<bool>> {
        self.has_signature.clone_ref(py)
    }

    /// A `uint64` array: document `i`'s distinct shingle count.
    #[getter]
    fn shingles(&self, py: Python<'_>) -> Py<PyArray1<u64>> {
        self.shingles.clone_ref(py)
    }

    /// Document `i`'s `normalized_sha256`, 64 lowercase hex digits each.
    #[getter]
    fn normalized_sha256(&self, py: Python<'_>) -> Py<PyList> {
        self.normalized_sha256.clone_ref(py)
    }

    /// The shingle size.
    #[getter]
    fn k(&self) -> usize {
        self.params.k()
    }

    /// The signature length.
    #[getter]
    fn n(&self) -> usize {
        self.params.n()
    }

    /// The word rule, `"space"` or `"script"`.
    #[getter]
    fn words(&self) -> &'static str {
        self.params.words().name()
    }

    pub fn __len__(&self, py: Python<'_>) -> usize {
        self.shingles.bind(py).len()
    }

    /// Document `i` as a [`Fingerprint`]; negative indexes count from the end.
    fn __getitem__(&self, py: Python<'_>, i: isize) -> PyResult<Fingerprint> {
        guard("SignatureBatch.__getitem__", || {
            let len = self.__len__(py);
            let at = if i < 0 { i + len as isize } else { i };
            if at < 0 || at as usize >= len {
                return Err(PyIndexError::new_err(format!(
                    "index {i} out of range for a batch of {len}"
                )));
            }
            let mut one = self.fingerprints(py, at as usize..at as usize + 1)?;
            Ok(Fingerprint(one.remove(0)))
        })
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let with = self
            .has_signature
            .bind(py)
            .readonly()
            .as_array()
            .iter()
            .filter(|&&h| h)
            .count();
        format!(
            "SignatureBatch(len={}, k={}, n={}{}, with_signature={with})",
            self.__len__(py),
            self.params.k(),
            self.params.n(),
            repr_words(self.params)
        )
    }

    /// Pickled as `k`, `n`, the arrays and the word rule's name.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, BatchState)> {
        let me = slf.get();
        let py = slf.py();
        Ok((
            slf.get_type().getattr("_restore")?,
            (
                me.params.k(),
                me.params.n(),
                me.signatures.clone_ref(py).into_any(),
                me.has_signature.clone_ref(py).into_any(),
                me.shingles.clone_ref(py).into_any(),
                me.normalized_sha256.clone_ref(py).into_any(),
                me.params.words().name(),
            ),
        ))
    }

    /// Rebuilds a batch from what pickling stores, checking that the
    /// arrays agree with each other and with `n`. A batch pickled before
    /// the word rule existed has space words.
    #[classmethod]
    #[pyo3(signature = (
        k, n, signatures, has_signature, shingles, normalized_sha256, words = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn _restore(
        _cls: &Bound<'_, PyType>,
        k: u64,
        n: u64,
        signatures: Bound<'_, PyArray2<u32>>,
        has_signature: Bound<'_, PyArray1<bool>>,
        shingles: Bound<'_, PyArray1<u64>>,
        normalized_sha256: Bound<'_, PyList>,
        words: Option<Words>,
    ) -> PyResult<SignatureBatch> {
        guard("SignatureBatch._restore", || {
            let params = Params::new(k, n).map_err(to_py)?.with_words(rule(words));
            let len = shingles.len();
            if signatures.shape() != [len, params.n()]
                || has_signature.len() != len
                || normalized_sha256.len() != len
            {
                return Err(PyValueError::new_err(
                    "SignatureBatch: arrays of different lengths, or not n columns",
                ));
            }
            Ok(SignatureBatch {
                params,
                signatures: signatures.unbind(),
                has_signature: has_signature.unbind(),
                shingles: shingles.unbind(),
                normalized_sha256: normalized_sha256.unbind(),
            })
        })
    }
}

/// What pickling stores of a [`SignatureBatch`].
type BatchState = (
    usize,
    usize,
    Py<PyAny>,
    Py<PyAny>,
    Py<PyAny>,
    Py<PyAny>,
    &'static str,
);

impl SignatureBatch {
    /// The params the batch was signed with.
    pub fn params(&self) -> Params {
        self.params
    }

    /// Documents `rows` as the core's fingerprints, the arrays read once.
    pub fn fingerprints(
        &self,
        py: Python<'_>,
        rows: std::ops::Range<usize>,
    ) -> PyResult<Vec<neardup::Fingerprint>> {
        let digests = self.normalized_sha256.bind(py);
        let has = self.has_signature.bind(py).readonly();
        let sigs = self.signatures.bind(py).readonly();
        let shingles = self.shingles.bind(py).readonly();
        let (has, sigs, shingles) = (has.as_array(), sigs.as_array(), shingles.as_array());
        rows.map(|at| {
            let digest: String = digests.get_item(at)?.extract()?;
            let signature = match has[at] {
                true => Some(Signature::from_slots(sigs.row(at).to_vec()).map_err(to_py)?),
                false => None,
            };
            Ok(neardup::Fingerprint {
                params: self.params,
                normalized_sha256: Digest::from_hex(&digest).map_err(to_py)?,
                shingles: shingles[at],
                signature,
            })
        })
        .collect()
    }
}

/// `neardup.sign_batch(texts, k=5, n=128, threads=None, words="space")`:
/// signs every text on `threads` workers (default: all cores) with the GIL
/// released, a chunk of texts at a time. Ctrl-C stops it within about 50
/// ms ([`crate::interrupt`]), dropping what was signed.
#[pyfunction]
#[pyo3(signature = (texts, k = None, n = None, threads = None, words = None))]
pub fn sign_batch(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    k: Option<Int>,
    n: Option<Int>,
    threads: Option<Int>,
    words: Option<Words>,
) -> PyResult<SignatureBatch> {
    guard("sign_batch", || {
        let (k, n) = given_or_default(k, n);
        let params = params(&k, &n, words)?;
        // Before any work: the result is made of numpy arrays.
        numpy_api(py, "sign_batch")?;
        let workers = Workers::new(threads.as_ref())?;
        let mut out = Columns::default();
        sign_all(
            texts,
            "sign_batch",
            "texts",
            params,
            &workers,
            &mut |signed| out.push(signed, params),
        )?;
        out.into_batch(py, params)
    })
}

/// Signs every text of `texts` with the GIL released, a chunk at a time,
/// handing each chunk's fingerprints, in order, to `each`. A signal stops
/// it between two tasks of a chunk; `call` names the Python call.
pub fn sign_all(
    texts: &Bound<'_, PyAny>,
    call: &str,
    name: &str,
    params: Params,
    workers: &Workers,
    each: &mut dyn FnMut(Vec<neardup::Fingerprint>),
) -> PyResult<()> {
    let how = (params, false);
    sign_all_with(texts, call, name, how, workers, &mut |signed| {
        each(signed.into_iter().map(|(fp, _)| fp).collect())
    })
}

/// [`sign_all`] that also hands over each document's distinct shingle
/// keys when `keys` is set (a scan for containment), else empty lists.
pub fn sign_all_with(
    texts: &Bound<'_, PyAny>,
    call: &str,
    name: &str,
    (params, keys): (Params, bool),
    workers: &Workers,
    each: &mut dyn FnMut(Vec<(neardup::Fingerprint, Vec<u64>)>),
) -> PyResult<()> {
    let py = texts.py();
    chunks(texts, name, &mut |first, docs| {
        let signed = interruptible(py, call, |stop| {
            workers.install(|| sign_chunk(name, first, docs, (params, keys), stop))
        })?;
        each(signed.map_err(PyValueError::new_err)?);
        Ok(())
    })
}

/// Signs `docs` (documents `first..`) in parallel, a few dozen at a time
/// through one [`Signer`] each, which hashes their shingles together. The
/// error names the first document that is not UTF-8 (only an arrow array
/// can hold one). Once `stop` is set every task left returns at once (with
/// an error nobody reads).
fn sign_chunk(
    name: &str,
    first: usize,
    docs: &[&[u8]],
    (params, keys): (Params, bool),
    stop: &Stop,
) -> Result<Vec<(neardup::Fingerprint, Vec<u64>)>, String> {
    const PER_TASK: usize = 32;
    type Signed = Vec<(neardup::Fingerprint, Vec<u64>)>;
    let signed: Vec<Result<Signed, String>> = docs
        .par_chunks(PER_TASK)
        .enumerate()
        .map_init(
            || match Signer::new(params, Backend::detect()) {
                s if keys => s.keeping_keys(),
                s => s,
            },
            |signer, (c, chunk)| {
                if stop.requested() {
                    return Err("stopped".to_owned());
                }
                let texts = chunk
                    .iter()
                    .enumerate()
                    .map(|(i, bytes)| {
                        as_str(bytes, format_args!("{name}[{}]", first + c * PER_TASK + i))
                    })
                    .collect::<Result<Vec<&str>, String>>()?;
                Ok(signer.sign_all_with_keys(texts))
            },
        )
        .collect();
    let mut out = Vec::with_capacity(docs.len());
    for chunk in signed {
        out.extend(chunk?);
    }
    Ok(out)
}

/// The batch's columns as they fill up, chunk by chunk.
#[derive(Default)]
pub struct Columns {
    signatures: Vec<u32>,
    has_signature: Vec<bool>,
    shingles: Vec<u64>,
    normalized_sha256: Vec<String>,
}

impl Columns {
    pub fn push(&mut self, signed: Vec<neardup::Fingerprint>, params: Params) {
        for f in signed {
            match &f.signature {
                Some(s) => self.signatures.extend_from_slice(s.slots()),
                None => self
                    .signatures
                    .extend(std::iter::repeat_n(NO_SIGNATURE, params.n())),
            }
            self.has_signature.push(f.signature.is_some());
            self.shingles.push(f.shingles);
            self.normalized_sha256.push(f.normalized_sha256.to_string());
        }
    }

    /// Hands the columns to numpy without copying them.
    pub fn into_batch(self, py: Python<'_>, params: Params) -> PyResult<SignatureBatch> {
        let len = self.shingles.len();
        let matrix = Array2::from_shape_vec((len, params.n()), self.signatures)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(SignatureBatch {
            params,
            signatures: PyArray2::from_owned_array(py, matrix).unbind(),
            has_signature: PyArray1::from_vec(py, self.has_signature).unbind(),
            shingles: PyArray1::from_vec(py, self.shingles).unbind(),
            normalized_sha256: PyList::new(py, self.normalized_sha256)?.unbind(),
        })
    }
}
