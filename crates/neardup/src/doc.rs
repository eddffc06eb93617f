//! One document, owned: what a binding holds between calls.

use crate::{normalize_with, Backend, Error, Fingerprint, Params, ShingleSet};

/// A document reduced once and kept: its normalized text, its distinct
/// shingle set and its fingerprint, all made with one [`Params`].
///
/// It owns everything and has no lifetime, so a Python object or a worker
/// can hold it; comparing two `Doc`s ([`crate::Comparison::of`]) reads
/// neither text again.
///
/// ```
/// use neardup::{Doc, Comparison, Params, Verdict};
/// let a = Doc::new("The quick brown fox jumps over the lazy dog", Params::DEFAULT);
/// let b = Doc::new("the QUICK brown fox jumps over the lazy dog", Params::DEFAULT);
/// assert_eq!(a.normalized(), "the quick brown fox jumps over the lazy dog");
/// assert_eq!(a.shingles().len(), 5);
/// assert_eq!(Comparison::of(&a, &b)?.receipt.verdict, Verdict::Identical);
/// # Ok::<(), neardup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Doc {
    set: ShingleSet<'static>,
    fingerprint: Fingerprint,
}

impl Doc {
    /// Normalizes, shingles and signs `text` on the fastest backend.
    pub fn new(text: &str, params: Params) -> Doc {
        Doc::with_backend(text, params, Backend::detect())
    }

    /// [`Doc::new`] on a chosen backend.
    pub fn with_backend(text: &str, params: Params, backend: Backend) -> Doc {
        Doc::from_normalized(normalize_with(text, backend), params, backend)
    }

    /// The document of an already normalized text (SPEC §1's output; a
    /// text that is not normalized gives another document than its
    /// original would).
    pub fn from_normalized(normalized: String, params: Params, backend: Backend) -> Doc {
        let set = ShingleSet::with_words(normalized, params.k(), params.words(), backend);
        let fingerprint = Fingerprint::of_set(set.normalized(), &set, params);
        Doc { set, fingerprint }
    }

    /// The document of a shingle set the caller built (to report progress
    /// between shingling and signing), signed with `params`; refused when
    /// the set's `K` or word rule is not `params`'.
    pub fn from_shingles(set: ShingleSet<'static>, params: Params) -> Result<Doc, Error> {
        if set.k() != params.k() || set.words() != params.words() {
            let got = Params::new(set.k() as u64, params.n() as u64)?;
            return Err(Error::MixedParams {
                doc: 0,
                got: got.with_words(set.words()),
                want: params,
            });
        }
        let fingerprint = Fingerprint::of_set(set.normalized(), &set, params);
        Ok(Doc { set, fingerprint })
    }

    /// The normalized text (SPEC §1).
    pub fn normalized(&self) -> &str {
        self.set.normalized()
    }

    /// The distinct shingles (SPEC §2).
    pub fn shingles(&self) -> &ShingleSet<'static> {
        &self.set
    }

    /// What a receipt records of the document.
    pub fn fingerprint(&self) -> &Fingerprint {
        &self.fingerprint
    }

    /// The `K`, `N` and word rule it was made with.
    pub fn params(&self) -> Params {
        self.fingerprint.params
    }
}
