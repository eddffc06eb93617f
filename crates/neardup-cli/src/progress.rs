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
