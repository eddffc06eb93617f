//! The conformance vectors in `vectors/` (a copy of `../shared/vectors`) as
//! typed values, for the tests of every crate: the core runs them through
//! the library, the CLI through the binary, the web adapter through its JSON
//! API. One loader, so that the format in `vectors/README.md` is read in
//! one place and every suite sees the same cases.
//!
//! This is a dev-only crate (never published). Its loaders panic, naming the
//! file and the case, when the vectors are not what the README says: a test
//! suite cannot go on without them.
//!
//! ```
//! let cases = neardup_vectors::compare_cases();
//! assert!(cases.iter().all(|c| c.expected.documents.len() == 2));
//! ```

mod drift;
mod files;

pub use drift::{differences, shared_dir};
pub use files::{
    compare_cases, constants, dir, normalize_cases, script_compare_cases, CompareCase, Constants,
    Document, Expected, NormalizeCase, Text,
};
