//! Progress bars on stderr, for long work only and only for humans.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A byte-based bar (documents in the message): shown only when stderr is a
/// terminal and `--quiet` was not given, so pipes and logs stay clean.
pub fn bytes(total: Option<u64>, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = match total {
        Some(t) => ProgressBar::with_draw_target(Some(t), ProgressDrawTarget::stderr()),
        None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
    };
    let template = if total.is_some() {
        "{elapsed_precise} [{wide_bar}] {bytes}/{total_bytes} {binary_bytes_per_sec} {msg} (eta {eta})"
    } else {
        "{elapsed_precise} {spinner} {bytes} {binary_bytes_per_sec} {msg}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// A counting bar for one stage (`label` says what is counted), under the
/// same conditions as [`bytes`].
pub fn count(total: u64, quiet: bool, label: &str) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    let template = format!(
        "{{elapsed_precise}} [{{wide_bar}}] {{human_pos}}/{{human_len}} {label} (eta {{eta}})"
    );
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// The scan engine's messages on a terminal: each warning one stderr line,
/// progress as [`bytes`] and [`count`] bars, and a temporary output
/// removed if Ctrl-C stops the run.
pub struct Terminal {
    pub quiet: bool,
}

/// An indicatif bar as the engine's meter.
struct Bar(ProgressBar);

impl neardup_scan::Meter for Bar {
    fn inc(&self, n: u64) {
        self.0.inc(n);
    }
    fn set_position(&self, n: u64) {
        self.0.set_position(n);
    }
    fn set_message(&self, message: String) {
        self.0.set_message(message);
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

impl neardup_scan::Watch for Terminal {
    fn warn(&self, message: &str) {
        eprintln!("neardup: warning: {}", crate::output::one_line(message));
    }

    fn bytes(&self, total: Option<u64>) -> Box<dyn neardup_scan::Meter> {
        Box::new(Bar(bytes(total, self.quiet)))
    }

    fn count(&self, total: u64, label: &str) -> Box<dyn neardup_scan::Meter> {
        Box::new(Bar(count(total, self.quiet, label)))
    }

    fn temporary(&self, path: std::path::PathBuf) {
        crate::interrupt::remove_on_interrupt(path);
    }
}
