//! Which files of a directory are read, and in what order: the one rule
//! that `neardup scan`, the page's Collection tab and `neardup.spark` all
//! call, so that a folder gives its documents the same numbers everywhere.
//!
//! The order is the bytes of the path below the directory, compared as
//! bytes (UTF-8): `a-b.txt` (`-` is 0x2d) before `a/x.txt` (`/` is 0x2f).
//! Any language can sort that way, with no notion of path components.
//! Entries whose name starts with `.` or `_` are not read: hidden files,
//! and the `_SUCCESS` and `.crc` files that Spark and Hadoop write beside
//! their output.

use std::cmp::Ordering;

use crate::format::Format;

/// How two paths of one directory are ordered: by their bytes.
pub fn path_order(a: &str, b: &str) -> Ordering {
    a.as_bytes().cmp(b.as_bytes())
}

/// Sorts `items` by the path each one has, in [`path_order`].
pub fn sort_by_path<T>(items: &mut [T], path: impl Fn(&T) -> &str) {
    items.sort_by(|x, y| path_order(path(x), path(y)));
}

/// Whether a file or directory with this name is left out of a directory
/// input: a hidden name (`.git`, `.DS_Store`, Hadoop's `.crc` files) or a
/// Spark marker (`_SUCCESS`, `_temporary`).
pub fn is_skipped_name(name: &str) -> bool {
    name.starts_with('.') || name.starts_with('_')
}

/// Whether a file in a directory input is read as a corpus of documents
/// rather than as one text document, by its name: `.jsonl`, `.jsonl.gz`,
/// `.jsonl.zst` and `.parquet` files (and their `.ndjson` and `.zstd`
/// spellings), by the one table of [`Format::of_corpus_name`]. Its content
/// still decides its format.
pub fn is_corpus_name(name: &str) -> bool {
    Format::of_corpus_name(name).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_decide_not_components() {
        let mut paths = vec!["a/x.txt", "a-b.txt", "B.txt", "a.txt", "é.txt", "z.txt"];
        sort_by_path(&mut paths, |p| p);
        assert_eq!(
            paths,
            ["B.txt", "a-b.txt", "a.txt", "a/x.txt", "z.txt", "é.txt"]
        );
    }

    #[test]
    fn names() {
        assert!(is_corpus_name("b.jsonl.gz") && is_corpus_name("x.ndjson.zst"));
        assert!(!is_corpus_name("b.txt.gz") && !is_corpus_name("jsonl"));
        assert!(is_skipped_name("_SUCCESS") && is_skipped_name(".part-0.crc"));
        assert!(!is_skipped_name("part-0.jsonl"));
    }
}
