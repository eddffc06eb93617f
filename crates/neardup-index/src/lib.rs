//! A persistent neardup index: documents added as they arrive, new ones
//! queried against all of them, with exactly the pairs, clusters and drops
//! of `neardup scan NEW --against ALL_ADDED_BEFORE` (see `INDEX.md`).
//!
//! An index is a directory:
//!
//! - `MANIFEST`: JSON, the format version, `K`, `N`, the threshold and
//!   banding, and the list of segments with each one's length and XXH3;
//!   replaced atomically (write, sync, rename), so it names either the
//!   segments before an `add` or those after, never a mix;
//! - `seg-NNNNNNNN.nds`: immutable segments, each the documents of one
//!   `add` (or of a `compact`), memory-mapped by readers;
//! - `LOCK`: held by the one writer (`flock`), released by the kernel
//!   however the writer ends.
//!
//! A crash at any point of an `add` leaves the manifest as it was (and a
//! stray temporary the next writer removes) or fully replaced.
//!
//! The algorithm is the core's [`neardup::scan::against`]; this crate is
//! its [`neardup::scan::References`] on disk, and the add and query flow
//! over it ([`Index::scan`], [`Writer::add_found`]) that the CLI and
//! Python share.

mod error;
mod found;
mod index;
mod lock;
mod manifest;
mod segment;
mod writer;

pub use error::{Error, Result};
pub use found::Found;
pub use index::{Index, Info, SegmentInfo};
pub use manifest::FORMAT_VERSION;
pub use writer::{Added, Writer};

/// The `MANIFEST` file's name in an index directory.
pub const MANIFEST: &str = "MANIFEST";
