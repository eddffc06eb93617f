//! What a receipt needs to know about one document.

use crate::{Backend, Digest, Params, ShingleSet, Signature, Signer};

/// One document reduced to what SPEC §9 records of it: the hash of its
/// normalized text, its distinct shingle count and its signature.
///
/// Two fingerprints made with the same [`Params`] are enough to build a pair
/// receipt ([`crate::Receipt::new`]), so a corpus can be signed once and
/// compared pairwise without reading the texts again. The params travel
/// with the fingerprint, so that a receipt is never built from two
/// fingerprints made with different ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// The `K` and `N` it was made with.
    pub params: Params,
    /// SHA-256 of the normalized text's UTF-8 bytes.
    pub normalized_sha256: Digest,
    /// The number of distinct shingle strings.
    pub shingles: u64,
    /// `None` when the document has zero shingles.
    pub signature: Option<Signature>,
}

impl Fingerprint {
    /// Normalizes, shingles and signs `text`.
    ///
    /// ```
    /// use neardup::{Fingerprint, Params};
    /// let f = Fingerprint::of("The quick brown fox jumps over", Params::DEFAULT);
    /// assert_eq!(f.shingles, 2);
    /// assert!(f.signature.is_some());
    /// assert!(Fingerprint::of("too short", Params::DEFAULT).signature.is_none());
    /// ```
    pub fn of(text: &str, params: Params) -> Fingerprint {
        Fingerprint::of_with(text, params, Backend::detect())
    }

    /// [`Fingerprint::of`] on a chosen backend. To sign many texts, a
    /// [`Signer`] keeps its buffers between them and is faster.
    pub fn of_with(text: &str, params: Params, backend: Backend) -> Fingerprint {
        Signer::new(params, backend).sign(text)
    }

    /// The fingerprint of an already normalized text whose shingle set the
    /// caller has built with `params`' `K` (and may keep, for the exact
    /// Jaccard), signed on the set's backend. Crate-private: [`crate::Doc`] is the public way, and checks
    /// the `K`.
    pub(crate) fn of_set(normalized: &str, set: &ShingleSet<'_>, params: Params) -> Fingerprint {
        let base = set.base_hashes();
        Fingerprint {
            params,
            normalized_sha256: Digest::of(normalized.as_bytes()),
            shingles: set.len() as u64,
            signature: Signature::from_base_hashes_with(&base, params, set.backend()),
        }
    }
}
