//! The writer's lock: `LOCK` in the index directory, held with `flock`
//! for as long as a [`crate::Writer`] lives. The kernel drops it when the
//! process ends, however it ends (SIGKILL included), so a crash never
//! leaves an index locked. Readers take no lock: they read the manifest,
//! which a writer only ever replaces whole.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;

use crate::{Error, Result};

/// The lock file's name.
pub const LOCK: &str = "LOCK";

/// A held write lock; released when dropped.
#[derive(Debug)]
pub struct Lock(#[allow(dead_code)] File);

impl Lock {
    /// Takes `dir`'s write lock, or says who holds it.
    pub fn take(dir: &Path) -> Result<Lock> {
        let path = dir.join(LOCK);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io("opening", &path, e))?;
        match file.try_lock() {
            Ok(()) => Ok(Lock(file)),
            Err(TryLockError::WouldBlock) => Err(Error::Locked(format!(
                "index '{}' is being written by another process (it holds '{}'); try again when it is done",
                dir.display(),
                path.display()
            ))),
            Err(TryLockError::Error(e)) => Err(Error::io("locking", &path, e)),
        }
    }
}
