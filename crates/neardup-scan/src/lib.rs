//! The corpus scan engine on one machine, under the CLI and beside the
//! persistent index: it reads and signs a corpus, finds and verifies every
//! near-duplicate pair in bounded memory, clusters them and writes the
//! outputs, all through plain option structs. The algorithm is the core's
//! ([`neardup::scan`]); the inputs are `neardup-corpus`'s.
//!
//! - [`scan()`]: a whole scan, and the [`Summary`] of what it found.
//! - [`options`]: what a scan reads ([`Reading`]), writes ([`Outputs`])
//!   and may spend ([`Options`]).
//! - [`corpus`]: every input read and signed, documents numbered in input
//!   order ([`Corpus`]).
//! - `runs`: band records sorted in memory, or spilled to checked runs
//!   and k-way merged.
//! - `pairs`: the merged buckets' candidates, verified.
//! - `keys`: with `--containment`, each document's shingle keys, spilled
//!   to temp files by key range as the corpus is signed;
//! - `contained`: the core's containment join on them, in parallel, in
//!   place of `runs` and `pairs`.
//! - [`outputs`]: pairs, clusters, keep and drop lists, the deduped
//!   corpus and receipts ([`Sinks`]).
//! - [`report`]: the HTML report of a scan, and base texts.
//! - [`sink`]: standard output, or a file written atomically.
//! - `spill`: the temp dir (`--temp-dir`) that runs and keys spill to.
//! - [`watch`]: warnings, progress and temporaries, told to the adapter.
//!
//! Errors are this crate's own [`Error`]: one line, naming the input or
//! output.

mod contained;
pub mod corpus;
mod error;
mod keys;
pub mod options;
pub mod outputs;
mod pairs;
pub mod report;
mod runs;
mod scan;
pub mod sink;
mod spill;
pub mod watch;

pub use contained::Figures;
pub use corpus::Corpus;
pub use error::{Error, Result};
pub use options::{Options, Outputs, Reading};
pub use outputs::Sinks;
pub use scan::{scan, Summary};
pub use watch::{Meter, Quiet, Watch};
