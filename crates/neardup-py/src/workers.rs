//! Where parallel work runs: a rayon pool that survives `fork`.
//!
//! rayon's global pool is started once per process. A child made by
//! `fork` (multiprocessing's default on Linux, Spark's and Dask's worker
//! daemons) inherits the pool's bookkeeping but not its threads, so its
//! first parallel call would wait forever. The pool here is keyed by
//! process id: a forked child starts its own.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::ThreadPool;

use crate::params::{threads, Int};

/// The process's shared pool (all cores, or `RAYON_NUM_THREADS`), and the
/// id of the process that started it.
static SHARED: Mutex<Option<(u32, Arc<ThreadPool>)>> = Mutex::new(None);

/// The pool one call runs on.
pub struct Workers(Arc<ThreadPool>);

impl Workers {
    /// A pool of `threads` workers for this call, or, for `None`, the
    /// process's shared one.
    pub fn new(threads: Option<&Int>) -> PyResult<Workers> {
        match self::threads(threads)? {
            Some(t) => Ok(Workers(Arc::new(build(Some(t))?))),
            None => Workers::shared(),
        }
    }

    /// The process's shared pool, started on first use in each process.
    pub fn shared() -> PyResult<Workers> {
        let pid = std::process::id();
        // A panic while holding the lock cannot leave the slot half
        // written, so a poisoned lock is still usable.
        let mut slot = SHARED.lock().unwrap_or_else(|e| e.into_inner());
        match &*slot {
            Some((owner, pool)) if *owner == pid => Ok(Workers(Arc::clone(pool))),
            _ => {
                // A parent's pool, inherited through fork: its threads are
                // gone, and dropping it would wait for them; leave it be.
                if let Some(stale) = slot.take() {
                    std::mem::forget(stale);
                }
                let pool = Arc::new(build(None)?);
                *slot = Some((pid, Arc::clone(&pool)));
                Ok(Workers(pool))
            }
        }
    }

    /// Runs `work` on these workers (the caller releases the GIL first).
    pub fn install<T: Send>(&self, work: impl FnOnce() -> T + Send) -> T {
        self.0.install(work)
    }
}

fn build(threads: Option<usize>) -> PyResult<ThreadPool> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        builder = builder.num_threads(t);
    }
    builder
        .build()
        .map_err(|e| PyValueError::new_err(format!("starting worker threads: {e}")))
}
