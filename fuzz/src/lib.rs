//! The fuzz targets' bodies, one plain function a target, named as its
//! `[[bin]]` in Cargo.toml. Each panics when what it checks does not hold
//! (its doc says what that is, and how it reads its input).
//!
//! Two harnesses run them: libFuzzer, through the three-line
//! `fuzz_targets/NAME.rs` (`cargo +nightly fuzz run NAME`, `scripts/fuzz`,
//! for hours), and the main workspace's `cargo test` on stable, which
//! includes this file by path (crates/neardup-cli/tests/fuzz_replay.rs) and
//! replays every target's seeds, its regressions and a fixed set of
//! mutants. So nothing here may use libfuzzer-sys, and the crates used are
//! the ones that test's crate has too.

mod backends;
mod explain;
mod extract;
mod jsonl;
mod normalize;
mod receipt;
mod record;

pub use backends::backends;
pub use explain::explain;
pub use extract::{
    extract_docx, extract_epub, extract_html, extract_odt, extract_pdf, extract_rtf,
};
pub use jsonl::jsonl;
pub use normalize::normalize;
pub use receipt::receipt;
pub use record::record;
