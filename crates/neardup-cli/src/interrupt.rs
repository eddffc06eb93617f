//! Ctrl-C: the named temporaries of outputs not yet put in place are
//! removed (unnamed ones need nothing), then the process exits 130.

use std::path::PathBuf;
use std::sync::Mutex;

/// Paths to remove if the user presses Ctrl-C: the named temporaries of
/// outputs not yet renamed into place (where they cannot be unnamed).
static CLEANUP: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

pub(crate) fn on_interrupt() {
    let paths = CLEANUP.lock().map(|p| p.clone()).unwrap_or_default();
    for p in paths {
        let _ = std::fs::remove_dir_all(&p).or_else(|_| std::fs::remove_file(&p));
    }
    eprintln!("neardup: interrupted");
    std::process::exit(130);
}

/// Registers `path` for removal on Ctrl-C.
pub(crate) fn remove_on_interrupt(path: PathBuf) {
    if let Ok(mut p) = CLEANUP.lock() {
        p.push(path);
    }
}
