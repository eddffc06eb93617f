//! # neardup — near-duplicate verification with receipts anyone can check
//!
//! This crate implements `kar-shingle-minhash-v1` (see `SPEC.md`): normalize
//! two texts, take their word K-shingles, MinHash them with fixed,
//! published constants, and decide IDENTICAL, NEAR-DUPLICATE, OVERLAPPING,
//! DISTINCT or INSUFFICIENT-DATA. The result comes with a [`Receipt`] whose
//! canonical JSON and SHA-256 are the same on every machine, forever.
//!
//! The crate is pure: no I/O, no clock, no randomness, no platform-sized
//! integer or `std::hash` output in anything that reaches a receipt.
//!
//! ```
//! use neardup::{compare, Params, Verdict};
//! let c = compare("Four score and seven years ago our fathers",
//!                 "Four score and seven years ago our fathers", Params::DEFAULT);
//! assert_eq!(c.receipt.verdict, Verdict::Identical);
//! println!("{}  {}", c.receipt.sha256(), c.receipt.canonical());
//! ```

// `unsafe` is allowed only in `platform.rs`, to call the backend compiled
// for CPU features that were checked at run time.
#![deny(unsafe_code)]

mod cluster;
mod compare;
mod digest;
mod doc;
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
mod record;
pub mod scan;
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
pub use compare::{compare, Comparison, Estimate, Report};
pub use digest::Digest;
pub use doc::Doc;
pub use error::Error;
pub use evidence::{explain, Evidence, Passage};
pub use fingerprint::Fingerprint;
pub use lsh::{Banding, Threshold};
pub use normalize::{normalize, UNICODE_VERSION};
pub use params::Params;
pub use permutation::{permutations, Permutations, MAX_PERMUTATIONS};
pub use platform::Backend;
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
