#![doc = include_str!("../README.md")]
// `unsafe` is allowed only in `platform.rs`, to call the backend compiled
// for CPU features that were checked at run time.
#![deny(unsafe_code)]

mod cluster;
mod compare;
mod digest;
mod error;
mod evidence;
mod fingerprint;
mod lsh;
// The lane code serves the x86-64 backends; elsewhere only `key_one` runs.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
mod multibuffer;
pub mod normalize;
mod params;
mod permutation;
mod platform;
mod receipt;
#[cfg(target_arch = "x86_64")]
mod sha_ni;
pub mod shingle;
mod signature;
mod span;
mod suffix_automaton;
mod text;
mod verdict;
mod words;

pub use cluster::Clusters;
pub use compare::{compare, Comparison, Estimate};
pub use digest::Digest;
pub use error::Error;
pub use evidence::{explain, Evidence, Passage};
pub use fingerprint::Fingerprint;
pub use lsh::{Banding, Threshold};
pub use normalize::{normalize, UNICODE_VERSION};
pub use params::Params;
pub use permutation::{permutations, Permutations, MAX_PERMUTATIONS};
pub use platform::Backend;
pub use receipt::{DocumentDigest, Mismatch, Receipt, ALGORITHM};
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
