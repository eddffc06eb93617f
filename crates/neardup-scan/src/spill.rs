//! The temp dir a scan spills to (`--temp-dir`): the band records' sorted
//! runs and the containment join's keys, in unnamed files that are gone
//! when closed, so nothing is left behind, even by a killed scan.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use neardup_corpus::describe;

use crate::error::{message, Result};

/// The temp dir a scan spills to.
#[derive(Clone)]
pub(crate) struct SpillDir(Arc<Path>);

impl SpillDir {
    /// The dir.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// A new unnamed file in the dir, gone when closed.
    pub fn file(&self) -> io::Result<File> {
        tempfile::tempfile_in(&self.0)
    }

    /// `dir`, tried by making one unnamed file in it (freed at once), so
    /// that a missing or unwritable `--temp-dir` fails before the scan.
    pub fn new(dir: PathBuf) -> Result<SpillDir> {
        tempfile::tempfile_in(&dir).map_err(|e| {
            message!(
                "creating a temp file in '{}': {} (see --temp-dir)",
                dir.display(),
                describe(&e)
            )
        })?;
        Ok(SpillDir(dir.into()))
    }
}
