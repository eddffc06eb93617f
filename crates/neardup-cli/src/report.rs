//! `--report` and `--base`: the core's HTML report ([`neardup::report`])
//! written atomically; the base texts are read by the engine's
//! [`neardup_scan::report`], which `scan --report` uses too.

use std::path::Path;

use anyhow::{Context, Result};
use neardup::report::{self, Input};

pub use neardup_scan::report::{extractor, Bases, VERSION};

use crate::output::write_atomic;

/// Renders the report and writes it to `path` atomically.
pub fn write(path: &Path, input: &Input<'_>) -> Result<()> {
    let html = report::render(input).context("making the report")?;
    Ok(write_atomic(path, html.as_bytes())?)
}
