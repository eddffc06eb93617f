//! End-to-end tests against the built `neardup` binary. One test binary with
//! one harness (`util`), as ripgrep does: one link instead of one per file,
//! and no copies of the helpers.

mod util;
// The extractor's bomb builders, shared with its own memory test.
#[path = "../../neardup-extract/tests/bomb/mod.rs"]
mod bomb;

mod bad_input;
mod bombs;
mod cli;
mod contained;
mod documents;
mod explain;
mod faults;
mod formats;
mod index;
mod odd_args;
mod report;
mod scan;
mod script;
