//! What a scan tells whoever runs it while it works: warnings (a file
//! skipped, an extraction note), progress, and the temporaries to remove
//! if the process is interrupted. The engine says it; the adapter decides
//! how it is shown (the CLI: one stderr line each and terminal bars), so
//! that no terminal code sits in the engine.

use std::path::PathBuf;

/// The receiver of a scan's messages. Its methods are called from worker
/// threads too.
pub trait Watch: Sync {
    /// A one-line warning about one input or file; the scan goes on.
    fn warn(&self, message: &str);

    /// A meter for the bytes of an input (`total` when known), reading
    /// documents.
    fn bytes(&self, total: Option<u64>) -> Box<dyn Meter> {
        let _ = total;
        Box::new(Silent)
    }

    /// A meter counting `total` items of one stage, named by `label`
    /// (`band records`).
    fn count(&self, total: u64, label: &str) -> Box<dyn Meter> {
        let _ = (total, label);
        Box::new(Silent)
    }

    /// A named temporary that becomes an output: the adapter removes it if
    /// the process is interrupted before it is put in place.
    fn temporary(&self, path: PathBuf) {
        let _ = path;
    }
}

/// One stage's progress.
pub trait Meter: Send + Sync {
    /// `n` more done.
    fn inc(&self, n: u64);
    /// `n` done in all.
    fn set_position(&self, n: u64);
    /// A note beside the figures (`1200 docs`).
    fn set_message(&self, message: String);
    /// The stage is over: the meter goes.
    fn finish(&self);
}

/// A meter that shows nothing.
pub struct Silent;

impl Meter for Silent {
    fn inc(&self, _: u64) {}
    fn set_position(&self, _: u64) {}
    fn set_message(&self, _: String) {}
    fn finish(&self) {}
}

/// A watcher that drops every message: for callers with no one to tell
/// (tests, a library call whose warnings are not wanted).
pub struct Quiet;

impl Watch for Quiet {
    fn warn(&self, _: &str) {}
}
