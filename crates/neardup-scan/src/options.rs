//! The plain option structs a scan takes: how its inputs are read, what
//! it writes, and its budget. The CLI fills them from its arguments;
//! nothing here knows about a command line.

use std::path::PathBuf;

use neardup_corpus::jsonl::Fields;
use neardup_corpus::source::Columns;

/// How inputs are read.
#[derive(Debug, Clone)]
pub struct Reading {
    /// The JSONL (or Parquet) field holding a document's id.
    pub id_field: String,
    /// The field holding its text.
    pub text_field: String,
    /// How a file is read as one document (and `max_size` also caps a
    /// JSONL line).
    pub text: neardup_corpus::text::Options,
    /// Fail on an unreadable file of a directory instead of skipping it.
    pub strict: bool,
}

impl Reading {
    /// The fields of a JSONL document.
    pub fn fields(&self) -> Fields<'_> {
        Fields {
            id: &self.id_field,
            text: &self.text_field,
            lossy: self.text.lossy,
        }
    }

    /// The columns of a Parquet (or JSONL) corpus.
    pub fn columns(&self) -> Columns<'_> {
        self.fields().columns()
    }
}

/// The outputs of a scan (or of an index's add and query), each a path
/// or `-` for standard output, at most one of them `-`.
#[derive(Debug, Clone, Default)]
pub struct Outputs {
    /// The verified pairs, as JSONL.
    pub pairs: Option<PathBuf>,
    /// The clusters, as JSONL.
    pub clusters: Option<PathBuf>,
    /// The ids kept, one per line.
    pub keep_list: Option<PathBuf>,
    /// The ids dropped, one per line.
    pub drop_list: Option<PathBuf>,
    /// A directory for each pair's receipt, `<receipt_sha256>.json`.
    pub receipts: Option<PathBuf>,
    /// The kept documents, in the format the name asks for.
    pub write_deduped: Option<PathBuf>,
}

impl Outputs {
    /// Whether any output is asked for: without one, and without a choice
    /// to make, the pairs need not be searched.
    pub fn any(&self) -> bool {
        self.files().iter().any(|p| p.is_some()) || self.receipts.is_some()
    }

    /// The outputs that are files (or `-`), in the order they are written.
    pub fn files(&self) -> [&Option<PathBuf>; 5] {
        [
            &self.pairs,
            &self.clusters,
            &self.keep_list,
            &self.drop_list,
            &self.write_deduped,
        ]
    }
}

/// A whole scan's options.
#[derive(Debug, Clone)]
pub struct Options {
    /// The documents scanned: directories, corpus files, signature files,
    /// `-` for standard input.
    pub inputs: Vec<PathBuf>,
    /// Reference corpora: only pairs from an input to a reference, or
    /// within the inputs, are reported; references are never dropped.
    pub against: Vec<PathBuf>,
    /// How they are read.
    pub reading: Reading,
    /// The memory budget in bytes: beyond it, band records spill to sorted
    /// runs on disk.
    pub memory: u64,
    /// Where runs spill (the system's temp dir when `None`).
    pub temp_dir: Option<PathBuf>,
    /// What is written.
    pub outputs: Outputs,
    /// The HTML report's path (`-` for standard output), if one is asked for.
    pub report: Option<PathBuf>,
    /// Base texts set aside in the report.
    pub bases: Vec<PathBuf>,
    /// Report every pair in which one document holds at least this share
    /// of the other's distinct shingles, instead of near-duplicates.
    pub containment: Option<neardup::Threshold>,
}
