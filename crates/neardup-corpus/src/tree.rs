//! Directory inputs: every regular file under a root, in the order of
//! [`crate::order`].

use std::path::{Path, PathBuf};

use crate::format::Format;
use crate::text::display_name;
use crate::{describe, Error, Result};

/// The files found under a root, with their sizes.
pub struct Walk {
    /// Files in bytewise path order ([`crate::order::path_order`]), so
    /// the document order does not depend on the file system.
    pub files: Vec<(PathBuf, u64)>,
    /// Entries skipped, each with why: the caller warns of them.
    pub skipped: Vec<Error>,
}

/// Lists the regular files under `root`, recursively. Symbolic links to
/// files are followed; links to directories are not (no cycles). Names
/// starting with `.` or `_` are left out ([`crate::order::is_skipped_name`]).
/// A file over `max_size` (unless it is a corpus, read line by line), an
/// unreadable entry (a dangling link or a link loop among them), a FIFO,
/// socket or device, or a non-UTF-8 name is skipped, or is an error when
/// `strict`.
pub fn walk(root: &Path, max_size: u64, strict: bool) -> Result<Walk> {
    let mut out = Walk {
        files: Vec::new(),
        skipped: Vec::new(),
    };
    let skip = |out: &mut Walk, problem: String| -> Result<()> {
        if strict {
            return Err(Error::Refused(problem));
        }
        out.skipped.push(Error::Refused(problem));
        Ok(())
    };
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if dir == root => return Err(Error::io(display_name(&dir), &e)),
            Err(e) => {
                skip(
                    &mut out,
                    format!("reading '{}': {}", display_name(&dir), describe(&e)),
                )?;
                continue;
            }
        };
        let mut names = Vec::new();
        for entry in entries {
            match entry {
                Ok(entry) => names.push(entry.path()),
                Err(e) => skip(
                    &mut out,
                    format!("reading '{}': {}", display_name(&dir), describe(&e)),
                )?,
            }
        }
        for path in names {
            let name = display_name(&path);
            let Some(file_name) = path.file_name().map(|n| n.to_str()) else {
                continue;
            };
            if file_name.is_some_and(crate::order::is_skipped_name) {
                continue;
            }
            if path.to_str().is_none() {
                skip(&mut out, format!("'{name}': the file name is not UTF-8"))?;
                continue;
            }
            let link = std::fs::symlink_metadata(&path).map(|m| m.file_type().is_symlink());
            match std::fs::metadata(&path) {
                Ok(m) if m.is_dir() && !matches!(link, Ok(true)) => stack.push(path),
                Ok(m) if m.is_dir() => {}
                Ok(m) if m.len() > max_size && !Format::is_corpus_name(&path) => skip(
                    &mut out,
                    format!(
                        "'{name}' is {} bytes, over the --max-size limit of {max_size} bytes",
                        m.len()
                    ),
                )?,
                Ok(m) if m.is_file() => out.files.push((path, m.len())),
                // Reading a FIFO could wait forever for a writer, and a
                // device or socket is no document.
                Ok(m) => skip(
                    &mut out,
                    format!("'{name}' is {}, not a regular file", special(&m)),
                )?,
                Err(e) => skip(&mut out, format!("reading '{name}': {}", describe(&e)))?,
            }
        }
    }
    // Every name is UTF-8 (the others were skipped).
    crate::order::sort_by_path(&mut out.files, |(p, _)| p.to_str().unwrap_or_default());
    Ok(out)
}

/// What a file that is not a regular one is, in words.
fn special(m: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    let _ = m;
    "a special file"
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The files `walk` lists under `d`, as paths below it.
    fn names(d: &Path, w: &Walk) -> Vec<String> {
        w.files
            .iter()
            .map(|(p, _)| p.strip_prefix(d).unwrap().to_str().unwrap().to_owned())
            .collect()
    }

    #[test]
    fn lists_files_in_path_order_and_skips_big_ones() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("b/c")).unwrap();
        std::fs::write(d.join("b/c/z.txt"), "z").unwrap();
        std::fs::write(d.join("b/a.txt"), "a").unwrap();
        std::fs::write(d.join("a.txt"), "a").unwrap();
        std::fs::write(d.join("big.txt"), "0123456789").unwrap();
        std::fs::write(d.join(".hidden"), "h").unwrap();
        std::fs::create_dir(d.join("_temporary")).unwrap();
        std::fs::write(d.join("_temporary/x.txt"), "x").unwrap();
        let w = walk(d, 5, false).unwrap();
        assert_eq!(names(d, &w), ["a.txt", "b/a.txt", "b/c/z.txt"]);
        assert_eq!(w.skipped.len(), 1);
        assert!(walk(d, 5, true).is_err());
    }

    /// The whole path decides, bytewise: `a-b.txt` before the directory
    /// `a`'s files, where a sort of path components puts `a/` first.
    #[test]
    fn files_come_in_bytewise_path_order() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("a")).unwrap();
        for f in ["a/x.txt", "a-b.txt", "a.txt", "b.txt"] {
            std::fs::write(d.join(f), f).unwrap();
        }
        let w = walk(d, 100, true).unwrap();
        assert_eq!(names(d, &w), ["a-b.txt", "a.txt", "a/x.txt", "b.txt"]);
    }
}
