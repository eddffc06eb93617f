//! `neardup.explain`: the passages two texts share, and with base texts
//! the share of words shared outside them, as `neardup compare --explain
//! --json [--base FILE]...` adds them to its object.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde_json::json;

use crate::error::to_py;
use crate::interrupt::guard;
use crate::params::{given_or_default, params, Int, Words};
use crate::texts::{as_str, utf8};

/// `explain(a, b, k=5, base=None, words="space")`: a dict with `coverage` (`a`, `b`,
/// `words_a`, `words_b`, `shared_words_a`, `shared_words_b`) and
/// `passages` (each `{"words", "a": SPAN, "b": SPAN, "b_occurrences"}`),
/// and when `base` (a list of base texts) is given, `shared_outside_base`:
/// the words shared in passages that are not from a base text. For
/// people; the verdict and the receipt stay SPEC's, over the whole texts.
/// Passages are made of the words of `words`' rule.
#[pyfunction]
#[pyo3(signature = (a, b, k = None, base = None, words = None))]
pub fn explain(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    k: Option<Int>,
    base: Option<Vec<String>>,
    words: Option<Words>,
) -> PyResult<Py<PyAny>> {
    guard("explain", || {
        // Passages need shingles, not signatures: the default `n` is only
        // there to make `Params`.
        let (k, n) = given_or_default(k, None);
        let p = params(&k, &n, words)?;
        let (a, b) = (utf8(a, "a")?, utf8(b, "b")?);
        let a = as_str(a.as_bytes(), "a").map_err(PyValueError::new_err)?;
        let b = as_str(b.as_bytes(), "b").map_err(PyValueError::new_err)?;
        let out = py.detach(|| -> Result<String, neardup::Error> {
            let e = neardup::explain(a, b, p)?;
            let mut out = json!({"coverage": e.coverage(), "passages": e.passages});
            if let Some(texts) = &base {
                let base = neardup::Base::new(texts.iter().map(String::as_str), p);
                let rule = p.words();
                let (wa, wb) = (
                    neardup::Words::with_rule(a, rule),
                    neardup::Words::with_rule(b, rule),
                );
                let outside = neardup::mark(&wa, &wb, Some(&base), p.k()).outside();
                out["shared_outside_base"] = serde_json::to_value(outside).unwrap_or_default();
            }
            Ok(out.to_string())
        });
        let out = out.map_err(to_py)?;
        Ok(py.import("json")?.call_method1("loads", (out,))?.unbind())
    })
}
