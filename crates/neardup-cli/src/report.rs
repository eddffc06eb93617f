//! `--report` and `--base`: reading the base texts, and writing the core's
//! HTML report ([`neardup::report`]) atomically.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use neardup::report::{self, Input};
use neardup::{Base, Params};
use neardup_corpus::text::{display_name, read_document, Options};
use neardup_extract::Format;

use crate::output::write_atomic;

/// The version a report names: the workspace's, which the page shares.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The base texts, by file name, read as documents are read.
pub struct Bases {
    pub texts: Vec<(String, String)>,
}

impl Bases {
    pub fn read(paths: &[PathBuf], opts: &Options) -> Result<Bases> {
        let texts = paths
            .iter()
            .map(|p| {
                let d = read_document(p, opts).context("reading a --base text")?;
                Ok((display_name(p), String::from(&*d.text)))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Bases { texts })
    }

    pub fn named(&self) -> Vec<report::Named<'_>> {
        self.texts
            .iter()
            .map(|(name, text)| report::Named { name, text })
            .collect()
    }

    /// Their shingles, or `None` when no base was given.
    pub fn base(&self, params: Params) -> Option<Base> {
        (!self.texts.is_empty()).then(|| Base::new(self.texts.iter().map(|t| t.1.as_str()), params))
    }
}

/// The extractor's version when a document was read from a format other
/// than plain text: what a report names among its settings.
pub fn extractor(formats: impl IntoIterator<Item = Format>) -> Option<&'static str> {
    formats
        .into_iter()
        .any(|f| f != Format::Text)
        .then_some(neardup_extract::VERSION)
}

/// Renders the report and writes it to `path` atomically.
pub fn write(path: &Path, input: &Input<'_>) -> Result<()> {
    let html = report::render(input).context("making the report")?;
    write_atomic(path, html.as_bytes())
}
