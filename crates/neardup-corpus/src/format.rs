//! What a corpus file holds: JSONL, plain or compressed with gzip or zstd,
//! or Parquet. A corpus is recognised by its first bytes, never by its
//! name alone.

use std::path::Path;

/// What a corpus file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSONL, not compressed.
    Jsonl,
    /// JSONL compressed with gzip (one member or more).
    Gzip,
    /// JSONL compressed with zstd (one frame or more).
    Zstd,
    /// Parquet, with an id and a text column.
    Parquet,
}

/// The one table of corpus file endings: what holds the documents. Every
/// reader of names asks [`Format::of_corpus_name`] or [`Format::of_name`]
/// (the CLI, `neardup.spark` through `neardup._corpus_kind`), so that a
/// name means one thing everywhere.
pub const CONTAINERS: [(&str, Format); 3] = [
    (".jsonl", Format::Jsonl),
    (".ndjson", Format::Jsonl),
    (".parquet", Format::Parquet),
];

/// The compression endings a JSONL container may carry after it. `.zstd`
/// is read as well as `.zst`: some tools write it, and the bytes decide
/// anyway.
pub const COMPRESSIONS: [(&str, Format); 3] = [
    (".gz", Format::Gzip),
    (".zst", Format::Zstd),
    (".zstd", Format::Zstd),
];

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
const PARQUET_MAGIC: [u8; 4] = *b"PAR1";

impl Format {
    /// The format whose magic bytes `head` starts with; JSONL otherwise.
    pub fn sniff(head: &[u8]) -> Format {
        if head.starts_with(&GZIP_MAGIC) {
            Format::Gzip
        } else if head.starts_with(&ZSTD_MAGIC) {
            Format::Zstd
        } else if head.starts_with(&PARQUET_MAGIC) {
            Format::Parquet
        } else {
            Format::Jsonl
        }
    }

    /// The format an output's file name asks for, by its last ending
    /// alone (`deduped.gz` is gzip): `None` for a name of no table entry.
    /// An output's name is the user's order, so a bare compression ending
    /// is enough; an input's is not (see [`Format::of_corpus_name`]).
    pub fn of_name(path: &Path) -> Option<Format> {
        let name = path.file_name()?.to_str()?;
        COMPRESSIONS
            .iter()
            .chain(&CONTAINERS)
            .find(|(ending, _)| name.ends_with(ending))
            .map(|&(_, format)| format)
    }

    /// The format a file of a directory input is named for, or `None`
    /// when it is one text document: a container ending (`.jsonl`,
    /// `.ndjson`, `.parquet`), and for JSONL a compression ending after it
    /// (`.jsonl.gz`, `.ndjson.zst`). A bare `.gz` or `.txt.zst` is a
    /// document: a compressed text is not a corpus. Its content still
    /// decides how it is read ([`Format::sniff`]).
    pub fn of_corpus_name(name: &str) -> Option<Format> {
        let (stem, compressed) = COMPRESSIONS
            .iter()
            .find_map(|&(ending, format)| Some((name.strip_suffix(ending)?, Some(format))))
            .unwrap_or((name, None));
        let &(_, container) = CONTAINERS
            .iter()
            .find(|(ending, _)| stem.ends_with(ending))?;
        match (container, compressed) {
            (container, None) => Some(container),
            (Format::Jsonl, compressed) => compressed,
            // A compressed Parquet file is not read: Parquet compresses
            // its own pages.
            _ => None,
        }
    }

    /// Whether a file in a directory input is read as a corpus rather
    /// than as one text document (see [`Format::of_corpus_name`]).
    pub fn is_corpus_name(path: &Path) -> bool {
        path.file_name()
            .and_then(|n| n.to_str())
            .and_then(Format::of_corpus_name)
            .is_some()
    }

    /// The format's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::Jsonl => "JSONL",
            Format::Gzip => "gzip",
            Format::Zstd => "zstd",
            Format::Parquet => "Parquet",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_bytes_decide() {
        assert_eq!(Format::sniff(b"\x1f\x8b\x08"), Format::Gzip);
        assert_eq!(Format::sniff(&ZSTD_MAGIC), Format::Zstd);
        assert_eq!(Format::sniff(b"PAR1...."), Format::Parquet);
        assert_eq!(Format::sniff(b"{\"id\""), Format::Jsonl);
        assert_eq!(Format::sniff(b""), Format::Jsonl);
        assert!(Format::is_corpus_name(Path::new("a/b.jsonl.gz")));
        assert!(!Format::is_corpus_name(Path::new("a/b.txt.gz")));
    }

    #[test]
    fn inputs_need_a_container_outputs_an_ending() {
        let input = |n| Format::of_corpus_name(n);
        let output = |n| Format::of_name(Path::new(n));
        for (name, format) in [
            ("a.jsonl", Some(Format::Jsonl)),
            ("a.ndjson", Some(Format::Jsonl)),
            ("a.jsonl.gz", Some(Format::Gzip)),
            ("a.ndjson.gz", Some(Format::Gzip)),
            ("a.jsonl.zst", Some(Format::Zstd)),
            ("a.ndjson.zst", Some(Format::Zstd)),
            ("a.jsonl.zstd", Some(Format::Zstd)),
            ("a.parquet", Some(Format::Parquet)),
            ("a.gz", None),
            ("a.txt.gz", None),
            ("a.txt.zst", None),
            ("a.parquet.gz", None),
            ("jsonl", None),
            ("a.txt", None),
        ] {
            assert_eq!(input(name), format, "{name}");
        }
        // Every input name asks for the same format as an output name.
        for name in [
            "a.jsonl",
            "a.jsonl.gz",
            "a.ndjson.zst",
            "a.jsonl.zstd",
            "a.parquet",
        ] {
            assert_eq!(output(name), input(name), "{name}");
        }
        assert_eq!(output("deduped.gz"), Some(Format::Gzip));
        assert_eq!(output("deduped.zstd"), Some(Format::Zstd));
        assert_eq!(output("deduped.txt"), None);
    }
}
