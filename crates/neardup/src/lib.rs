#![doc = include_str!("../README.md")]
// `unsafe` is allowed only in `backend.rs`: its dispatch, to call the
// backend compiled for CPU features that its constructor checked at run
// time; the backends' register loads and stores; and two memory hints
// (a prefetch, and huge pages for a large table).
#![deny(unsafe_code)]

// The spec pipeline (SPEC §1–§11), one module a step.
mod distinct;
pub mod normalize;
mod params;
mod permutation;
mod receipt;
pub mod shingle;
mod signature;
mod verdict;
mod word_rule;

pub use normalize::{normalize, normalize_with, UNICODE_VERSION};
pub use params::Params;
pub use permutation::{permutations, Permutations, MAX_PERMUTATIONS};
pub use receipt::{DocumentDigest, Mismatch, Receipt, Verification, ALGORITHM};
pub use shingle::ShingleSet;
pub use signature::{h0, Signature};
pub use verdict::Verdict;
pub use word_rule::WordRule;

// Documents and comparisons: the owned values adapters hold.
mod caveat;
mod compare;
mod containment;
mod digest;
mod doc;
mod fingerprint;
mod record;
mod signer;
mod text;

pub use caveat::Caveat;
pub use compare::{compare, compare_with, Comparison, Estimate, Report};
pub use containment::Containment;
pub use digest::Digest;
pub use doc::Doc;
pub use fingerprint::Fingerprint;
pub use record::SignatureRecord;
pub use signer::Signer;
pub use text::{decode, utf8};

// The corpus: the scan algorithm and its parts.
mod cluster;
mod lsh;
pub mod scan;

pub use cluster::Clusters;
pub use lsh::{Banding, Threshold};

// Evidence: the passages two texts share, for people, never in a receipt.
mod evidence;
mod span;
mod suffix_automaton;
mod words;

pub use evidence::{explain, Coverage, Evidence, Passage};
pub use span::Span;
pub use words::Words;

// Base texts, set aside from the evidence, and the one HTML report.
mod base;
pub mod report;

pub use base::{mark, Base, Mark, Marks, Outside};

// Backends: the two hot loops, picked at run time, all bit-identical.
mod backend;

pub use backend::Backend;

// The crate's one error type.
mod error;

pub use error::Error;

/// The README's examples, run as doc-tests so that they stay true.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
