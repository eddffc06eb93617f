//! The parameter arguments (`k`, `n`, `words`, `threads`), checked as the
//! CLI checks them.

use neardup::{Error, Params, WordRule};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString};

use crate::error::to_py;

/// An integer argument: its value, or, for an int that no `u64` holds
/// (negative or huge), its decimal form, so that the range error can quote
/// it. Anything but an int (or a numpy integer) is a `TypeError`; so is a
/// `bool`, since `k=True` is a mistake rather than 1.
#[derive(Clone, Debug)]
pub struct Int(Result<u64, String>);

impl Int {
    /// A default value.
    pub const fn new(v: u64) -> Int {
        Int(Ok(v))
    }

    /// The value of a count argument (`bands`, `rows`) as a `usize`; a
    /// `ValueError` naming `name` for a negative or huge one.
    pub fn value(&self, name: &str) -> PyResult<usize> {
        match &self.0 {
            Ok(v) => usize::try_from(*v)
                .map_err(|_| PyValueError::new_err(format!("{name} is too large, got {v}"))),
            Err(shown) => Err(PyValueError::new_err(format!(
                "{name} must be at least 1, got {shown}"
            ))),
        }
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Int {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Int> {
        let is_int = obj.is_instance_of::<PyInt>() || obj.hasattr("__index__")?;
        if obj.is_instance_of::<PyBool>() || !is_int {
            return Err(PyTypeError::new_err(format!(
                "expected an int, got {}",
                type_name(&obj)
            )));
        }
        Ok(Int(obj.extract::<u64>().map_err(|_| {
            obj.str().map(|s| s.to_string()).unwrap_or_default()
        })))
    }
}

/// `k` and `n` as Python passed them, the core's [`Params::DEFAULT`] for
/// `None`: every call's signature defaults to `None`, so the defaults are
/// written once, in the core, and `neardup.spark` passes `None` through
/// rather than copying them.
pub fn given_or_default(k: Option<Int>, n: Option<Int>) -> (Int, Int) {
    let default = Params::DEFAULT;
    (
        k.unwrap_or(Int::new(default.k() as u64)),
        n.unwrap_or(Int::new(default.n() as u64)),
    )
}

/// A `words` argument, `"space"` or `"script"` (SPEC §11), read by the
/// core's [`WordRule`] parser so that a bad one is the CLI's error: `words
/// must be 'space' or 'script', got 'x'`. Anything but a `str` is a
/// `TypeError`.
#[derive(Clone, Copy, Debug)]
pub struct Words(pub WordRule);

impl<'a, 'py> FromPyObject<'a, 'py> for Words {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Words> {
        let s = obj.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!(
                "words must be a str, 'space' or 'script', got {}",
                type_name(&obj)
            ))
        })?;
        s.to_cow()?.parse().map(Words).map_err(to_py)
    }
}

/// The rule of a `words` argument, the core's default (space words) for
/// `None`, as [`given_or_default`] does for `k` and `n`.
pub fn rule(words: Option<Words>) -> WordRule {
    words.map_or(Params::DEFAULT.words(), |w| w.0)
}

/// `, words='script'` for the script rule and nothing for the default, as
/// the objects' `repr`s show it.
pub fn repr_words(params: Params) -> String {
    match params.words() {
        w if w == Params::DEFAULT.words() => String::new(),
        w => format!(", words='{}'", w.name()),
    }
}

/// Checks `k` and `n` with the core's [`Params::new`], so that the error is
/// the CLI's: `shingle size k must be 1..=64, got 0`; with the word rule
/// of `words`.
pub fn params(k: &Int, n: &Int, words: Option<Words>) -> PyResult<Params> {
    let params = match (&k.0, &n.0) {
        (Ok(k), Ok(n)) => Params::new(*k, *n).map_err(to_py),
        (Err(shown), _) => Err(quoting(Error::ShingleSize(0), shown)),
        (_, Err(shown)) => Err(quoting(Error::Permutations(0), shown)),
    }?;
    Ok(params.with_words(rule(words)))
}

/// The worker count of a batch call: `None` means rayon's pool (all cores,
/// or `RAYON_NUM_THREADS`); otherwise at least 1, as the CLI's `-j`.
pub fn threads(threads: Option<&Int>) -> PyResult<Option<usize>> {
    match threads.map(|t| &t.0) {
        None => Ok(None),
        Some(Ok(t @ 1..=65_535)) => Ok(Some(*t as usize)),
        Some(Ok(t)) => Err(PyValueError::new_err(format!(
            "threads must be 1..=65535 or None, got {t}"
        ))),
        Some(Err(shown)) => Err(PyValueError::new_err(format!(
            "threads must be 1..=65535 or None, got {shown}"
        ))),
    }
}

/// The core's message for an out-of-range value, quoting a value that no
/// `u64` holds: the core's wording, with the number replaced.
fn quoting(zero: Error, shown: &str) -> PyErr {
    let message = zero.to_string();
    let head = message.strip_suffix('0').unwrap_or(&message);
    PyValueError::new_err(format!("{head}{shown}"))
}

/// `int`, `bytes`, `NoneType`: for messages.
pub fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_owned())
}
