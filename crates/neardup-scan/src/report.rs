//! The HTML report of a scan ([`neardup::report`]): the texts of the
//! documents in reported pairs, read again (the scan keeps fingerprints,
//! not texts), and the base texts set aside.
//!
//! A directory's file is read again by its path, through the same reader
//! (so a `.docx` is extracted again); a JSONL or Parquet corpus is read
//! again line by line, and the text field of each wanted line parsed. A
//! signature file has no texts, and standard input cannot be read twice:
//! both are refused. Only the texts of documents in pairs are kept in
//! memory.

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;

use neardup::report::{self, Document, Input, Settings};
use neardup::scan::{Outcome, Plan};
use neardup::Threshold;
use neardup::{Base, Params};
use neardup_corpus::describe;
use neardup_corpus::lines::Batches;
use neardup_corpus::source;
use neardup_corpus::text::{display_name, read_document, Options};
use neardup_extract::Format;

use crate::corpus::{Corpus, Kind};
use crate::error::{bail, message, Context, Result};
use crate::options::Reading;
use crate::sink::Sink;

/// The version a report names: the workspace's, which the page shares.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The base texts, by file name, read as documents are read.
pub struct Bases {
    /// Each base's name and text.
    pub texts: Vec<(String, String)>,
}

impl Bases {
    /// Reads the base texts at `paths`.
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

    /// The texts with their names, as a report takes them.
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

/// The texts of documents `wanted`, and the format each was read as.
fn read_again(
    corpus: &Corpus,
    wanted: &[u32],
    reading: &Reading,
) -> Result<BTreeMap<u32, (String, Format)>> {
    let mut out = BTreeMap::new();
    let opts = &reading.text;
    let columns = reading.columns();
    for input in &corpus.inputs {
        let docs = input.first..input.first + input.count;
        let here: Vec<u32> = wanted
            .iter()
            .copied()
            .filter(|d| docs.contains(d))
            .collect();
        if here.is_empty() {
            continue;
        }
        let name = display_name(&input.path);
        match input.kind {
            Kind::Signatures => bail!(
                "--report needs the texts of the documents in pairs, and '{name}' holds signatures only"
            ),
            Kind::Tree => {
                for d in here {
                    let path = &input.files[(d - input.first) as usize];
                    let doc = read_document(path, opts)
                        .with_context(|| format!("reading '{}' again", display_name(path)))?;
                    out.insert(d, (String::from(&*doc.text), doc.format));
                }
            }
            Kind::Documents => {
                let source = source::open(&input.path, columns)
                    .with_context(|| format!("reading '{name}' again"))?;
                let lines = Batches::new(source.data.into_reader(), 8 << 20);
                let mut d = input.first;
                let mut next = here.iter().copied().peekable();
                'lines: for batch in lines {
                    let batch = batch.map_err(|e: io::Error| {
                        message!("reading '{name}' again: {}", describe(&e))
                    })?;
                    for l in batch.lines() {
                        if next.peek() == Some(&d) {
                            next.next();
                            out.insert(d, (text_field(l.bytes, &reading.text_field, &name)?, Format::Text));
                        }
                        d += 1;
                        if next.peek().is_none() {
                            break 'lines;
                        }
                    }
                }
                if next.peek().is_some() {
                    bail!("'{name}' changed during the scan");
                }
            }
        }
    }
    Ok(out)
}

/// The text field of one JSONL line.
fn text_field(line: &[u8], field: &str, name: &str) -> Result<String> {
    let mut v: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(line).map_err(|e| message!("reading '{name}' again: {e}"))?;
    match v.remove(field) {
        Some(serde_json::Value::String(s)) => Ok(s),
        _ => bail!("reading '{name}' again: a line has no text field '{field}'"),
    }
}

/// A string id without its JSON quotes; an integer id as written.
fn shown_id(id: &str) -> String {
    serde_json::from_str::<String>(id).unwrap_or_else(|_| id.to_owned())
}

/// Renders the report of a finished scan into `sink`, and puts it in
/// place. `bases` are the base texts' paths.
pub(crate) fn write(
    mut sink: Sink,
    corpus: &Corpus,
    outcome: &Outcome,
    plan: &Plan,
    reading: &Reading,
    bases: &[PathBuf],
    containment: Option<Threshold>,
) -> Result<()> {
    let mut wanted: Vec<u32> = outcome.pairs.iter().flat_map(|p| [p.a, p.b]).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let texts = read_again(corpus, &wanted, reading)?;
    let bases = Bases::read(bases, &reading.text)?;
    let names: Vec<String> = corpus.docs.iter().map(|d| shown_id(&d.id)).collect();
    let documents: Vec<Document<'_>> = corpus
        .fps
        .iter()
        .enumerate()
        .map(|(d, fp)| Document {
            name: &names[d],
            fingerprint: fp,
            text: texts.get(&(d as u32)).map(|t| t.0.as_str()),
        })
        .collect();
    let settings = Settings {
        params: plan.params(),
        threshold: Some(plan.threshold()),
        banding: Some(plan.banding()),
        version: VERSION,
        extractor: extractor(texts.values().map(|t| t.1)),
        containment,
    };
    let input = Input {
        settings,
        documents: &documents,
        pairs: &outcome.pairs,
        clusters: &outcome.clusters,
        refs: corpus.refs,
        bases: &bases.named(),
    };
    let html = report::render(&input).context("making the report")?;
    sink.write(html.as_bytes())?;
    sink.finish()
}
