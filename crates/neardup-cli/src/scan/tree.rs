//! Directory inputs: every regular file under a root, in a fixed order.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};

use crate::format::Format;
use crate::input::{describe, display_name};

/// The files found under a root, with their sizes.
pub struct Walk {
    /// Files in bytewise path order, so the document order does not depend
    /// on the file system.
    pub files: Vec<(PathBuf, u64)>,
    /// Entries skipped with a warning.
    pub skipped: u64,
}

/// Lists the regular files under `root`, recursively. Symbolic links to
/// files are followed; links to directories are not (no cycles). A file
/// over `max_size`, an unreadable entry (a dangling link or a link loop
/// among them), a FIFO, socket or device, or a non-UTF-8 name is skipped
/// with a warning, or is an error when `strict`.
pub fn walk(root: &Path, max_size: u64, strict: bool) -> Result<Walk> {
    let mut out = Walk {
        files: Vec::new(),
        skipped: 0,
    };
    let skip = |out: &mut Walk, problem: String| -> Result<()> {
        if strict {
            return Err(anyhow!("{problem}"));
        }
        eprintln!("neardup: warning: {problem} (skipped)");
        out.skipped += 1;
        Ok(())
    };
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if dir == root => {
                return Err(anyhow!(
                    "reading '{}': {}",
                    display_name(&dir),
                    describe(&e)
                ))
            }
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
        names.sort();
        // Pushed in reverse so that the stack pops them in order; a
        // directory's files are listed before its subdirectories' files
        // only by the path sort below.
        for path in names.into_iter().rev() {
            let name = display_name(&path);
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
    out.files.sort();
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

    #[test]
    fn lists_files_in_path_order_and_skips_big_ones() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("b/c")).unwrap();
        std::fs::write(d.join("b/c/z.txt"), "z").unwrap();
        std::fs::write(d.join("b/a.txt"), "a").unwrap();
        std::fs::write(d.join("a.txt"), "a").unwrap();
        std::fs::write(d.join("big.txt"), "0123456789").unwrap();
        let w = walk(d, 5, false).unwrap();
        let names: Vec<_> = w
            .files
            .iter()
            .map(|(p, _)| p.strip_prefix(d).unwrap().to_str().unwrap().to_owned())
            .collect();
        assert_eq!(names, ["a.txt", "b/a.txt", "b/c/z.txt"]);
        assert_eq!(w.skipped, 1);
        assert!(walk(d, 5, true).is_err());
    }
}
