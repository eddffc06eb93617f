//! Long calls that stop on Ctrl-C, and Rust panics kept out of Python.
//!
//! CPython only records a signal when it arrives; its handler (for SIGINT,
//! the one raising `KeyboardInterrupt`) runs when the main thread next
//! checks, and a thread inside Rust with the GIL released never does. So a
//! long call runs its work on another thread while the calling thread
//! waits for it, waking every [`POLL`] to take the GIL back for a moment
//! and run the handlers (`Python::check_signals`). Only the main thread
//! runs handlers: a call made from any other thread is never interrupted.
//!
//! When a handler raises, the call gives its work up in one of two ways:
//!
//! - [`interruptible`]: work split into small pieces (a batch's documents
//!   on the rayon pool) checks a [`Stop`] flag between pieces; the call sets
//!   it, waits the few milliseconds the running pieces take, and raises.
//! - [`detached`]: one indivisible step of the core (one huge document's
//!   shingles, a scan's banding) cannot be cut short from outside. It runs
//!   on its own thread owning its inputs; the call raises at once, and the
//!   step finishes there, off the rayon pool, its result dropped.
//!
//! Either way the exception reaches Python and nothing the call was
//! building does.
//!
//! A Rust panic (a bug) in the work or in an entry point ([`guard`])
//! becomes a `RuntimeError` naming the call. pyo3 would raise
//! `PanicException`, a `BaseException` that `except Exception` lets through.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Mutex;
use std::thread;
use std::time::Duration;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// How often a waiting call looks for signals: often enough that Ctrl-C
/// feels immediate, rarely enough that taking the GIL costs nothing.
pub const POLL: Duration = Duration::from_millis(50);

/// Texts at least this long (the two of a comparison together) are read on
/// threads that Ctrl-C can abandon ([`detached`]): a document is one step
/// of the core, which nothing can stop halfway. Shorter ones take a few
/// tens of milliseconds at most, too little to be worth a thread and a
/// copy.
pub const DETACHED_BYTES: usize = 1 << 20;

/// Asks [`interruptible`] work to give up: set when a signal handler
/// raised. What the work returns after that is dropped.
#[derive(Default)]
pub struct Stop(AtomicBool);

impl Stop {
    /// Whether the work should give up now.
    pub fn requested(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    fn request(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs `work` with the GIL released, raising what a signal handler raises
/// once `work` has seen [`Stop`] and returned. `call` names the call in
/// the error of a panic (`sign_batch`, `ScanPlan.receipts`).
pub fn interruptible<T: Send>(
    py: Python<'_>,
    call: &str,
    work: impl FnOnce(&Stop) -> T + Send,
) -> PyResult<T> {
    let stop = Stop::default();
    let (tx, rx) = mpsc::channel();
    py.detach(move || {
        thread::scope(|s| {
            let stop = &stop;
            let worker = thread::Builder::new()
                .name("neardup-call".into())
                .spawn_scoped(s, move || {
                    let _ = tx.send(catch_unwind(AssertUnwindSafe(|| {
                        forced(call, Place::Work);
                        work(stop)
                    })));
                });
            if let Err(e) = worker {
                return Err(PyRuntimeError::new_err(format!(
                    "neardup.{call}: starting a thread: {e}"
                )));
            }
            wait(call, &rx, || {
                stop.request();
                // The pieces running now end within milliseconds; the
                // scope would wait for them anyway.
                let _ = rx.recv();
            })
        })
    })
}

/// Runs `work`, one step that cannot stop early, on a thread of its own
/// with the GIL released; on a signal, raises at once and leaves the step
/// to finish there, its result dropped. It never runs on the rayon pool, so
/// that an abandoned step does not hold up the next call's work.
pub fn detached<T: Send + 'static>(
    py: Python<'_>,
    call: &'static str,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = mpsc::channel();
    thread::Builder::new()
        .name("neardup-step".into())
        .spawn(move || {
            // After an interrupt nobody is listening: the result is dropped.
            let _ = tx.send(catch_unwind(AssertUnwindSafe(|| {
                forced(call, Place::Work);
                work()
            })));
        })
        .map_err(|e| PyRuntimeError::new_err(format!("neardup.{call}: starting a thread: {e}")))?;
    py.detach(move || wait(call, &rx, || {}))
}

/// Waits for the work's result, running signal handlers every [`POLL`];
/// `give_up` runs when one raises, before its exception is returned.
pub fn wait<T>(
    call: &str,
    rx: &Receiver<thread::Result<T>>,
    give_up: impl FnOnce(),
) -> PyResult<T> {
    loop {
        match rx.recv_timeout(POLL) {
            Ok(Ok(done)) => return Ok(done),
            Ok(Err(panic)) => return Err(internal(call, &*panic)),
            Err(RecvTimeoutError::Timeout) => {
                if let Err(e) = Python::attach(|py| py.check_signals()) {
                    give_up();
                    return Err(e);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(internal(call, &"the worker thread ended without a result"))
            }
        }
    }
}

/// Runs the body of the entry point `call`, turning a panic into a
/// `RuntimeError` that names it.
pub fn guard<T>(call: &str, body: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(|| {
        forced(call, Place::Entry);
        body()
    }))
    .unwrap_or_else(|panic| Err(internal(call, &*panic)))
}

/// The error for a panic: a bug, so it asks for a report.
fn internal(call: &str, panic: &(dyn Any + Send)) -> PyErr {
    let message = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic");
    PyRuntimeError::new_err(format!(
        "neardup.{call}: internal error: {message} (a bug in neardup; please report it)"
    ))
}

/// Loads numpy's C API, which the numpy crate does on first use by running
/// Python code: after a long call a pending signal would break it, and the
/// crate panics on any failure. Called before the GIL is released, with
/// any pending signal raised first. numpy itself is imported by `import
/// neardup` (python/neardup/__init__.py says why), so the crate's import
/// here is a lookup that no signal can break.
pub fn numpy_api(py: Python<'_>, call: &str) -> PyResult<()> {
    py.check_signals()?;
    catch_unwind(AssertUnwindSafe(|| {
        numpy::PyArray1::<u8>::zeros(py, 0, false);
    }))
    .map_err(|panic| internal(call, &*panic))
}

/// Where a forced panic happens: on entry, with the GIL held, or in the
/// work, on another thread with the GIL released.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Place {
    Entry,
    Work,
}

/// Whether a forced panic is armed: one load on every call instead of a lock.
static ARMED: AtomicBool = AtomicBool::new(false);
/// The call and place of the armed panic.
static FORCED: Mutex<Option<(String, Place)>> = Mutex::new(None);

/// Panics if `_force_panic(call, place)` armed this call and place, once.
fn forced(call: &str, place: Place) {
    if !ARMED.load(Ordering::Relaxed) {
        return;
    }
    let mut slot = FORCED.lock().unwrap_or_else(|e| e.into_inner());
    if slot.as_ref().is_some_and(|(c, p)| c == call && *p == place) {
        *slot = None;
        ARMED.store(false, Ordering::Relaxed);
        drop(slot);
        panic!("forced by _force_panic({call:?}, {place:?})");
    }
}

/// `neardup._neardup._force_panic(call, place)`: a test hook, not API. The
/// next call of `call` (`"sign_batch"`, `"ScanPlan.receipts"`, …) panics,
/// once, on entry (`place="entry"`) or in its work with the GIL released
/// (`"work"`), so that tests can show a bug surfaces as a `RuntimeError`.
/// `call=None` disarms it.
#[pyfunction]
#[pyo3(signature = (call, place = "work"))]
pub fn _force_panic(call: Option<String>, place: &str) -> PyResult<()> {
    let place = match place {
        "entry" => Place::Entry,
        "work" => Place::Work,
        other => {
            return Err(PyValueError::new_err(format!(
                "place must be \"entry\" or \"work\", got {other:?}"
            )))
        }
    };
    let mut slot = FORCED.lock().unwrap_or_else(|e| e.into_inner());
    *slot = call.map(|c| (c, place));
    ARMED.store(slot.is_some(), Ordering::Relaxed);
    Ok(())
}
