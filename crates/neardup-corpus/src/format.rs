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

    /// The format a file name asks for: `.gz`, `.zst`, `.parquet`; `None`
    /// for any other name.
    pub fn of_name(path: &Path) -> Option<Format> {
        let name = path.file_name()?.to_str()?;
        if name.ends_with(".gz") {
            Some(Format::Gzip)
        } else if name.ends_with(".zst") || name.ends_with(".zstd") {
            Some(Format::Zstd)
        } else if name.ends_with(".parquet") {
            Some(Format::Parquet)
        } else if name.ends_with(".jsonl") || name.ends_with(".ndjson") {
            Some(Format::Jsonl)
        } else {
            None
        }
    }

    /// Whether a file in a directory input is read as a corpus rather
    /// than as one text document (see [`crate::order::is_corpus_name`]).
    pub fn is_corpus_name(path: &Path) -> bool {
        path.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(crate::order::is_corpus_name)
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
}
