//! The scan's outputs: pairs, clusters, keep and drop lists, the deduped
//! corpus and receipts. Each file is written to a pending file beside it
//! ([`Pending`]) and put in place only when the whole scan has succeeded.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use neardup::scan::{lines, Outcome, Pair};
use neardup::{Containment, Digest, Receipt};
use rayon::prelude::*;

use crate::corpus::{Corpus, Input, Kind};
use crate::error::{bail, message, Context, Result};
use crate::options::{Outputs, Reading};
use crate::sink::{Pending, Sink};
use crate::watch::Watch;
use neardup_corpus::format::Format;
use neardup_corpus::lines::Batches;
use neardup_corpus::source;
use neardup_corpus::text::{display_name, is_stdin};
use neardup_corpus::{compressed, describe, jsonl, parquet};

/// The open outputs of a scan ([`Outputs`]), each written to a pending
/// file until [`Sinks::write`] has written them all.
pub struct Sinks {
    pairs: Option<Sink>,
    clusters: Option<Sink>,
    keep: Option<Sink>,
    drop: Option<Sink>,
    deduped: Option<Sink>,
    /// The deduped corpus's name, which may choose its format.
    deduped_name: Option<PathBuf>,
    receipts: Option<PathBuf>,
}

impl Sinks {
    /// Opens every output asked for, and creates the receipts directory.
    /// The temporaries that become files are told to `watch`, to remove on
    /// an interrupt.
    pub fn create(outputs: &Outputs, watch: &dyn Watch) -> Result<Sinks> {
        let files = outputs.files();
        if files
            .iter()
            .filter(|p| p.as_deref().is_some_and(is_stdin))
            .count()
            > 1
        {
            bail!("only one output can go to standard output ('-')");
        }
        // `-` is standard output; anything else a file written atomically.
        let open = |p: &Option<PathBuf>| {
            p.as_deref()
                .map(|p| Sink::create((!is_stdin(p)).then_some(p)))
                .transpose()
        };
        if let Some(dir) = &outputs.receipts {
            std::fs::create_dir_all(dir)
                .map_err(|e| message!("creating '{}': {}", display_name(dir), describe(&e)))?;
        }
        let sinks = Sinks {
            pairs: open(&outputs.pairs)?,
            clusters: open(&outputs.clusters)?,
            keep: open(&outputs.keep_list)?,
            drop: open(&outputs.drop_list)?,
            deduped: open(&outputs.write_deduped)?,
            deduped_name: outputs.write_deduped.clone(),
            receipts: outputs.receipts.clone(),
        };
        for p in sinks.temp_paths() {
            watch.temporary(p);
        }
        Ok(sinks)
    }

    /// The temporaries that become the outputs, to remove on Ctrl-C.
    fn temp_paths(&self) -> Vec<PathBuf> {
        [
            &self.pairs,
            &self.clusters,
            &self.keep,
            &self.drop,
            &self.deduped,
        ]
        .into_iter()
        .flatten()
        .filter_map(|s| s.temp_path().map(PathBuf::from))
        .collect()
    }

    /// Writes everything, then renames every file into place. `reading`
    /// names the fields of the deduped corpus's lines.
    pub fn write(mut self, corpus: &Corpus, outcome: &Outcome, reading: &Reading) -> Result<()> {
        let mut dropped = vec![false; corpus.docs.len()];
        for &d in &outcome.dropped {
            dropped[d as usize] = true;
        }
        if self.pairs.is_some() || self.receipts.is_some() {
            self.write_pairs(corpus, &outcome.pairs)?;
        }
        let id = |d: u32| corpus.docs[d as usize].id.as_str();
        if let Some(sink) = &mut self.clusters {
            let mut out = String::new();
            for (i, g) in outcome.clusters.iter().enumerate() {
                let members: Vec<&str> = g.iter().map(|&d| id(d)).collect();
                lines::cluster(&mut out, i, &members);
                if out.len() > 1 << 20 {
                    sink.write(out.as_bytes())?;
                    out.clear();
                }
            }
            sink.write(out.as_bytes())?;
        }
        let new_docs = corpus.refs..corpus.docs.len() as u32;
        for (sink, want_dropped) in [(&mut self.keep, false), (&mut self.drop, true)] {
            let Some(sink) = sink else { continue };
            let mut out = String::new();
            for d in new_docs
                .clone()
                .filter(|&d| dropped[d as usize] == want_dropped)
            {
                lines::list_id(&mut out, id(d));
                if out.len() > 1 << 20 {
                    sink.write(out.as_bytes())?;
                    out.clear();
                }
            }
            sink.write(out.as_bytes())?;
        }
        if let Some(sink) = &mut self.deduped {
            let format = deduped_format(self.deduped_name.as_deref(), corpus);
            write_deduped(sink, corpus, &dropped, format, reading)?;
        }
        for sink in [
            self.pairs,
            self.clusters,
            self.keep,
            self.drop,
            self.deduped,
        ]
        .into_iter()
        .flatten()
        {
            sink.finish()?;
        }
        Ok(())
    }

    fn write_pairs(&mut self, corpus: &Corpus, pairs: &[Pair]) -> Result<()> {
        for chunk in pairs.chunks(1 << 16) {
            let lines: Vec<Result<String>> = chunk
                .par_iter()
                .map(|p| {
                    let (a, b) = (p.a as usize, p.b as usize);
                    let receipt = Receipt::new(&corpus.fps[a], &corpus.fps[b])?;
                    let canonical = receipt.canonical();
                    let hash = Digest::of(canonical.as_bytes());
                    if let Some(dir) = &self.receipts {
                        write_receipt(dir, &hash, &canonical)?;
                    }
                    let mut line = String::with_capacity(200);
                    let ids = [corpus.docs[a].id.as_str(), corpus.docs[b].id.as_str()];
                    let sizes = [corpus.fps[a].shingles, corpus.fps[b].shingles];
                    let containment = p.shared.map(|s| Containment::new(s, sizes));
                    lines::pair(&mut line, ids, &receipt, &hash, containment.as_ref());
                    Ok(line)
                })
                .collect();
            if let Some(sink) = &mut self.pairs {
                for l in lines {
                    sink.write(l?.as_bytes())?;
                }
            } else {
                lines.into_iter().collect::<Result<Vec<_>>>()?;
            }
        }
        Ok(())
    }
}

/// Writes `DIR/<hash>.json` through a [`Pending`] file, so no reader ever
/// sees a partial receipt. Unlike the other outputs, each file is not
/// synced to disk on its own: a scan can write millions, and a receipt can
/// always be made again from the pair. A file already there with the right
/// length is left alone (its name is the hash of its content), so a rerun
/// does not rewrite them.
fn write_receipt(dir: &Path, hash: &Digest, canonical: &str) -> Result<()> {
    let path = dir.join(format!("{hash}.json"));
    if std::fs::metadata(&path).is_ok_and(|m| m.len() == canonical.len() as u64) {
        return Ok(());
    }
    let fail = |e: io::Error| message!("writing '{}': {}", display_name(&path), describe(&e));
    // Two threads can write the same receipt (two pairs of the same two
    // texts) at once: each has its own pending file, and the second to
    // finish replaces the first's identical file.
    let mut tmp = Pending::create(dir).map_err(fail)?;
    tmp.write_all(canonical.as_bytes()).map_err(fail)?;
    tmp.persist(&path).map_err(fail)
}

/// The kept documents of every input that is not `--against`, in input
/// order: JSONL lines unchanged, files as `{"id","text"}` lines.
fn write_deduped(
    sink: &mut Sink,
    corpus: &Corpus,
    dropped: &[bool],
    format: Format,
    reading: &Reading,
) -> Result<()> {
    let inputs = new_inputs(corpus);
    if format == Format::Parquet {
        return write_deduped_parquet(sink, &inputs, dropped);
    }
    let mut out = compressed::encoder(format, &mut *sink)
        .map_err(|e| message!("starting {}: {}", format.name(), describe(&e)))?;
    let columns = reading.columns();
    let fail = |e: io::Error| message!("{}", describe(&e));
    for input in inputs {
        let name = display_name(&input.path);
        let docs = input.first..input.first + input.count;
        match input.kind {
            Kind::Tree => {
                for (d, path) in docs.zip(&input.files) {
                    if dropped[d as usize] {
                        continue;
                    }
                    let bytes = std::fs::read(path).map_err(|e| {
                        message!("reading '{}' again: {}", display_name(path), describe(&e))
                    })?;
                    let text = String::from_utf8_lossy(&bytes);
                    let mut line = Vec::new();
                    let id = &corpus.docs[d as usize].id;
                    jsonl::write_line(&mut line, ["id", "text"], id, &text);
                    out.write_all(&line).map_err(fail)?;
                }
            }
            Kind::Documents | Kind::Signatures => {
                let source = source::open(&input.path, columns)
                    .with_context(|| format!("reading '{name}' again"))?;
                let lines = Batches::new(source.data.into_reader(), 8 << 20);
                let mut d = input.first;
                for batch in lines {
                    let batch = batch.map_err(|e: io::Error| {
                        message!("reading '{name}' again: {}", describe(&e))
                    })?;
                    for l in batch.lines() {
                        if d >= input.first + input.count {
                            bail!("'{name}' changed during the scan");
                        }
                        if !dropped[d as usize] {
                            out.write_all(l.bytes).map_err(fail)?;
                            if l.bytes.last() != Some(&b'\n') {
                                out.write_all(b"\n").map_err(fail)?;
                            }
                        }
                        d += 1;
                    }
                }
                if d != input.first + input.count {
                    bail!("'{name}' changed during the scan");
                }
            }
        }
    }
    out.flush().map_err(fail)?;
    Ok(())
}

/// The deduped corpus's format: the one its file name asks for (`.gz`,
/// `.zst`, `.parquet`, `.jsonl`), else the format every new input shares
/// (a directory of text files counts as JSONL), else plain JSONL.
fn deduped_format(name: Option<&Path>, corpus: &Corpus) -> Format {
    if let Some(f) = name.and_then(Format::of_name) {
        return f;
    }
    match new_inputs(corpus).split_first() {
        Some((first, rest)) if rest.iter().all(|i| i.format == first.format) => first.format,
        _ => Format::Jsonl,
    }
}

/// The inputs that are not `--against`: those whose documents a deduped
/// corpus keeps.
fn new_inputs(corpus: &Corpus) -> Vec<&Input> {
    corpus.inputs.iter().filter(|i| !i.is_ref).collect()
}

/// A Parquet deduped corpus: every new input must be Parquet with one
/// schema, and the kept rows are copied with it.
fn write_deduped_parquet(sink: &mut Sink, inputs: &[&Input], dropped: &[bool]) -> Result<()> {
    let mut files = Vec::new();
    for input in inputs {
        let name = display_name(&input.path);
        if input.format != Format::Parquet {
            bail!("--write-deduped writes Parquet only from Parquet inputs, and '{name}' is not Parquet (name the output .jsonl to get JSONL)");
        }
        let file = File::open(&input.path)
            .map_err(|e| message!("reading '{name}' again: {}", describe(&e)))?;
        let range = input.first as usize..(input.first + input.count) as usize;
        let keep: Vec<bool> = dropped[range].iter().map(|&d| !d).collect();
        files.push((name, file, keep));
    }
    Ok(parquet::write_deduped_parquet(files, sink)?)
}
