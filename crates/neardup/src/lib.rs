#![doc = include_str!("../README.md")]
// `unsafe` is allowed only in `backend.rs`'s dispatch, to call the backend
// compiled for CPU features that its constructor checked at run time.
#![deny(unsafe_code)]

mod backend;
mod cluster;
mod compare;
mod digest;
mod doc;
mod error;
mod evidence;
mod fingerprint;
mod lsh;
pub mod normalize;
mod params;
mod permutation;
mod receipt;
mod record;
pub mod scan;
pub mod shingle;
mod signature;
mod span;
mod suffix_automaton;
mod text;
mod verdict;
mod words;

pub use backend::Backend;
pub use cluster::Clusters;
pub use compare::{compare, compare_with, Comparison, Estimate, Report};
pub use digest::Digest;
pub use doc::Doc;
pub use error::Error;
pub use evidence::{explain, Evidence, Passage};
pub use fingerprint::Fingerprint;
pub use lsh::{Banding, Threshold};
pub use normalize::{normalize, UNICODE_VERSION};
pub use params::Params;
pub use permutation::{permutations, Permutations, MAX_PERMUTATIONS};
pub use receipt::{DocumentDigest, Mismatch, Receipt, Verification, ALGORITHM};
pub use record::SignatureRecord;
pub use shingle::ShingleSet;
pub use signature::{h0, Signature};
pub use span::Span;
pub use text::decode;
pub use verdict::Verdict;
pub use words::Words;

/// The README's examples, run as doc-tests so that they stay true.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
