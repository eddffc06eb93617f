//! The sign stage: every input read, each document signed (or its signature
//! read back), numbered in input order, ids checked for duplicates.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use neardup::scan::lines::canonical_id;
use neardup::{Backend, Fingerprint, Params, SignatureRecord};
use rayon::prelude::*;

use super::{tree, ScanArgs};
use crate::format::{self, Columns, Data, Format};
use crate::input::{describe, display_name, is_stdin};
use crate::jsonl::{self, Fields, Line};
use crate::progress;

/// One document: its id and where it came from.
pub struct Doc {
    /// The id as JSON: a string or an integer, as the input wrote it (a
    /// string with escapes is re-encoded, so that one id has one spelling).
    pub id: String,
    /// Which input, an index into [`Corpus::inputs`].
    pub input: u32,
    /// The 1-based line for JSONL inputs; 0 for files of a directory.
    pub line: u64,
}

/// What an input holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A directory tree of text files; ids are their paths.
    Tree,
    /// JSONL documents with an id and a text field.
    Documents,
    /// Signature lines from `neardup sign --jsonl`.
    Signatures,
}

/// One input, with the documents it gave.
pub struct Input {
    pub path: PathBuf,
    pub kind: Kind,
    /// How a JSONL input is stored (plain, compressed, Parquet); plain for
    /// a tree.
    pub format: Format,
    /// From `--against`: reference documents, never dropped.
    pub is_ref: bool,
    /// The documents `first .. first + count` came from this input.
    pub first: u32,
    pub count: u32,
    /// For a tree, the file of each document, in document order.
    pub files: Vec<PathBuf>,
}

/// Every document of the scan, numbered in input order: `--against`
/// inputs first (so a reference document keeps its cluster), then INPUTs,
/// each in its own order (lines; a tree's paths sorted bytewise).
pub struct Corpus {
    pub docs: Vec<Doc>,
    /// The fingerprint of each document, apart, as the core's scan takes
    /// them.
    pub fps: Vec<Fingerprint>,
    pub inputs: Vec<Input>,
    /// Documents `0 .. refs` come from `--against`.
    pub refs: u32,
    /// Files skipped with a warning.
    pub skipped: u64,
}

impl Corpus {
    /// Reads and signs every input.
    pub fn load(args: &ScanArgs, params: Params, backend: Backend) -> Result<Corpus> {
        let mut loader = Loader::new(args, params, backend);
        for path in &args.against {
            loader.input(path, true)?;
        }
        loader.corpus.refs = loader.corpus.docs.len() as u32;
        for path in &args.inputs {
            loader.input(path, false)?;
        }
        Ok(loader.corpus)
    }
}

struct Loader<'a> {
    corpus: Corpus,
    /// The hash of each id and the document that first had it: 12 bytes
    /// a document instead of a second copy of its id.
    ids: HashMap<u64, u32>,
    /// Ids whose hash an earlier, different id already had.
    collided: HashMap<String, u32>,
    args: &'a ScanArgs,
    params: Params,
    backend: Backend,
    /// The input being read, for messages until it is pushed.
    current: PathBuf,
}

impl<'a> Loader<'a> {
    fn new(args: &'a ScanArgs, params: Params, backend: Backend) -> Loader<'a> {
        Loader {
            corpus: Corpus {
                docs: Vec::new(),
                fps: Vec::new(),
                inputs: Vec::new(),
                refs: 0,
                skipped: 0,
            },
            ids: HashMap::new(),
            collided: HashMap::new(),
            args,
            params,
            backend,
            current: PathBuf::new(),
        }
    }

    /// Reads one INPUT or REF. A directory gives one input per run of
    /// text files and one per corpus file in it (`.jsonl`, `.jsonl.gz`,
    /// `.jsonl.zst`, `.parquet`), in path order.
    fn input(&mut self, path: &Path, is_ref: bool) -> Result<()> {
        let name = display_name(path);
        let is_dir = !is_stdin(path)
            && std::fs::metadata(path)
                .map_err(|e| anyhow!("reading '{name}': {}", describe(&e)))?
                .is_dir();
        if !is_dir {
            return self.add(path, is_ref, |me, index| me.jsonl(path, index));
        }
        let walk = tree::walk(path, self.args.input.max_size, self.args.strict)?;
        self.corpus.skipped += walk.skipped;
        let is_corpus = |(p, _): &(PathBuf, u64)| Format::is_corpus_name(p);
        for run in walk.files.chunk_by(|x, y| !is_corpus(x) && !is_corpus(y)) {
            if is_corpus(&run[0]) {
                let file = &run[0].0;
                self.add(file, is_ref, |me, index| me.jsonl(file, index))?;
            } else {
                self.add(path, is_ref, |me, index| me.tree(run, index))?;
            }
        }
        Ok(())
    }

    /// Reads one input with `read` and records what it gave.
    fn add(
        &mut self,
        path: &Path,
        is_ref: bool,
        read: impl FnOnce(&mut Self, u32) -> Result<(Kind, Format, Vec<PathBuf>)>,
    ) -> Result<()> {
        let first = self.corpus.docs.len() as u32;
        let index = self.corpus.inputs.len() as u32;
        self.current = path.to_owned();
        let (kind, format, files) = read(self, index)?;
        let count = self.corpus.docs.len() as u32 - first;
        self.corpus.inputs.push(Input {
            path: path.to_owned(),
            kind,
            format,
            is_ref,
            first,
            count,
            files,
        });
        Ok(())
    }

    /// Adds one document, refusing an id seen before.
    fn push(&mut self, id: String, fp: Fingerprint, input: u32, line: u64) -> Result<()> {
        let number = u32::try_from(self.corpus.docs.len())
            .ok()
            .filter(|&n| n < u32::MAX)
            .context("more than 4 294 967 294 documents")?;
        let first = match self.ids.entry(id_hash(&id)) {
            Entry::Vacant(e) => {
                e.insert(number);
                None
            }
            Entry::Occupied(e) if self.corpus.docs[*e.get() as usize].id == id => Some(*e.get()),
            Entry::Occupied(_) => match self.collided.entry(id.clone()) {
                Entry::Occupied(e) => Some(*e.get()),
                Entry::Vacant(e) => {
                    e.insert(number);
                    None
                }
            },
        };
        if let Some(first) = first {
            let here = self.place(input, line);
            let there = {
                let d = &self.corpus.docs[first as usize];
                self.place(d.input, d.line)
            };
            bail!("{here}: duplicate id {id} (first seen at {there})");
        }
        self.corpus.docs.push(Doc { id, input, line });
        self.corpus.fps.push(fp);
        Ok(())
    }

    /// `'corpus.jsonl' line 12`, or the input's name for a tree.
    fn place(&self, input: u32, line: u64) -> String {
        let path = match self.corpus.inputs.get(input as usize) {
            Some(i) => display_name(&i.path),
            // The input being read now is pushed once it is done.
            None => display_name(&self.current),
        };
        if line == 0 {
            format!("'{path}'")
        } else {
            format!("'{path}' line {line}")
        }
    }

    /// Signs the text files `files` of a directory, each one document
    /// whose id is its path.
    fn tree(
        &mut self,
        files: &[(PathBuf, u64)],
        input: u32,
    ) -> Result<(Kind, Format, Vec<PathBuf>)> {
        let total: u64 = files.iter().map(|(_, size)| size).sum();
        let bar = progress::bytes(Some(total), self.args.batch.quiet);
        let mut kept = Vec::new();
        let (params, backend, strict) = (self.params, self.backend, self.args.strict);
        let opts = self.args.input;
        for chunk in files.chunks(256) {
            let signed: Vec<Result<Option<Fingerprint>>> = chunk
                .par_iter()
                .map(|(path, _)| match crate::input::read_text(path, &opts) {
                    Ok(text) => Ok(Some(Fingerprint::of_with(&text, params, backend))),
                    Err(e) if strict => Err(e),
                    Err(e) => {
                        eprintln!("neardup: warning: {e:#} (skipped)");
                        Ok(None)
                    }
                })
                .collect();
            for ((path, size), fp) in chunk.iter().zip(signed) {
                bar.inc(*size);
                let Some(fp) = fp? else {
                    self.corpus.skipped += 1;
                    continue;
                };
                let id = serde_json::to_string(&display_name(path))?;
                self.push(id, fp, input, 0)?;
                kept.push(path.clone());
            }
        }
        bar.finish_and_clear();
        Ok((Kind::Tree, Format::Jsonl, kept))
    }

    /// Reads a JSONL input, documents or signatures (told apart by the
    /// first line), in parallel batches.
    fn jsonl(&mut self, path: &Path, input: u32) -> Result<(Kind, Format, Vec<PathBuf>)> {
        let name = display_name(path);
        let io_err = |e: io::Error| anyhow!("reading '{name}': {}", describe(&e));
        let columns = Columns {
            id: &self.args.id_field,
            text: &self.args.text_field,
        };
        let mut source = format::open(path, columns)?;
        // Sniff the first non-blank line; a stream gets it back in front.
        let cap = self.args.input.max_size.saturating_add(2);
        let head = match &mut source.data {
            Data::Mapped(map) => first_line(&mut &map[..], cap),
            Data::Stream(reader) => first_line(reader, cap),
        }
        .map_err(io_err)?;
        let kind = if SignatureRecord::looks_like(&head) {
            Kind::Signatures
        } else {
            Kind::Documents
        };
        if let Data::Stream(reader) = &mut source.data {
            let rest = std::mem::replace(reader, Box::new(io::empty()));
            *reader = Box::new(BufReader::new(Replay { head, at: 0, rest }));
        }

        let fields = Fields {
            id: &self.args.id_field,
            text: &self.args.text_field,
            lossy: self.args.input.lossy,
        };
        let (params, backend) = (self.params, self.backend);
        let parse = |l: &Line<'_>| -> Result<(String, Fingerprint)> {
            match kind {
                Kind::Signatures => signature_line(l, params),
                _ => {
                    let doc = fields.parse(l)?;
                    Ok((
                        id_of(doc.id)?,
                        Fingerprint::of_with(&doc.text, params, backend),
                    ))
                }
            }
        };
        let bar = progress::bytes(source.total, self.args.batch.quiet);
        jsonl::pipeline(
            source.data.lines(),
            &name,
            self.args.input.max_size,
            parse,
            |l, (id, fp)| {
                self.push(id, fp, input, l.number)?;
                bar.inc(l.bytes.len() as u64);
                bar.set_message(format!("{} docs", self.corpus.docs.len()));
                Ok(())
            },
        )?;
        bar.finish_and_clear();
        Ok((kind, source.format, Vec::new()))
    }
}

/// The lines of `reader` up to its first non-blank one, read no further
/// than `cap` bytes (the batches refuse a longer line).
fn first_line(reader: &mut dyn BufRead, cap: u64) -> io::Result<Vec<u8>> {
    let mut head = Vec::new();
    loop {
        let mut line = Vec::new();
        let read = reader.take(cap).read_until(b'\n', &mut line)?;
        let blank = line.iter().all(u8::is_ascii_whitespace);
        head.extend_from_slice(&line);
        if read == 0 || line.last() != Some(&b'\n') || !blank {
            return Ok(head);
        }
    }
}

/// The sniffed head of an input, then the rest of it. Unlike a `Cursor`
/// chained in front, it frees the head once it is read: a first line of a
/// gigabyte is not held twice while the documents are signed.
struct Replay<R> {
    head: Vec<u8>,
    at: usize,
    rest: R,
}

impl<R: Read> Read for Replay<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at < self.head.len() {
            let n = (&self.head[self.at..]).read(buf)?;
            self.at += n;
            if self.at == self.head.len() {
                self.head = Vec::new();
                self.at = 0;
            }
            return Ok(n);
        }
        self.rest.read(buf)
    }
}

/// A 64-bit hash of an id, only to find duplicates: a collision is
/// resolved by comparing the ids, so the hash never changes a result.
#[cfg(not(test))]
fn id_hash(id: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    id.hash(&mut h);
    h.finish()
}

/// In tests, ids of one length collide, to exercise the collision path.
#[cfg(test)]
fn id_hash(id: &str) -> u64 {
    id.len() as u64
}

/// One id, one spelling (see [`canonical_id`]).
fn id_of(raw: String) -> Result<String> {
    canonical_id(&raw).with_context(|| format!("field 'id' is not valid JSON: {raw}"))
}

/// Reads one signature line back into a fingerprint, refusing another K or
/// N than the scan's and any line whose parts disagree.
fn signature_line(l: &Line<'_>, params: Params) -> Result<(String, Fingerprint)> {
    let n = l.number;
    let r = SignatureRecord::parse(l.bytes).map_err(|e| anyhow!("line {n}: {e}"))?;
    let got = r.fingerprint.params;
    if got != params {
        bail!(
            "line {n}: signed with k={}, n={}, but this scan uses k={}, n={} (pass -k/-n to match, or sign again)",
            got.k(),
            got.n(),
            params.k(),
            params.n()
        );
    }
    Ok((r.id, r.fingerprint))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(s: &str) -> Line<'_> {
        Line {
            number: 3,
            bytes: s.as_bytes(),
        }
    }

    #[test]
    fn the_head_is_replayed_then_freed() {
        let mut r = Replay {
            head: b"abc".to_vec(),
            at: 0,
            rest: &b"def"[..],
        };
        let mut two = [0u8; 2];
        assert_eq!(r.read(&mut two).unwrap(), 2);
        assert_eq!(&two, b"ab");
        let mut rest = Vec::new();
        r.read_to_end(&mut rest).unwrap();
        assert_eq!(rest, b"cdef");
        assert_eq!(r.head.capacity(), 0);
    }

    #[test]
    fn signature_lines_round_trip() {
        let p = Params::DEFAULT;
        let fp = Fingerprint::of("one two three four five six seven", p);
        let mut out = String::new();
        SignatureRecord::write(&mut out, "id", "\"x\"", &fp);
        let (id, back) = signature_line(&line(out.trim_end()), p).unwrap();
        assert_eq!((id.as_str(), back), ("\"x\"", fp));

        let other = Params::new(3, 128).unwrap();
        let e = signature_line(&line(out.trim_end()), other)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("line 3: signed with k=5, n=128, but this scan uses k=3"),
            "{e}"
        );
        let tampered = out.replacen("\"shingles\":3", "\"shingles\":4", 1);
        assert!(signature_line(&line(tampered.trim_end()), p).is_ok());
        let broken = out.replacen("\"signature\":\"", "\"signature\":\"0", 1);
        assert!(signature_line(&line(broken.trim_end()), p).is_err());
    }

    #[test]
    fn duplicate_ids_are_found_through_hash_collisions() {
        use crate::args::{Cli, Command};
        use clap::Parser;
        let cli = Cli::try_parse_from(["neardup", "scan", "in.jsonl"]).unwrap();
        let Command::Scan(args) = cli.command else {
            unreachable!()
        };
        let mut loader = Loader::new(&args, Params::DEFAULT, Backend::detect());
        loader.current = args.inputs[0].clone();
        let fp = Fingerprint::of("", Params::DEFAULT);
        let mut push = |id: &str, line| loader.push(id.to_owned(), fp.clone(), 0, line);
        // "ab" and "cd" have one hash here.
        push("\"ab\"", 1).unwrap();
        push("\"cd\"", 2).unwrap();
        push("\"xyz\"", 3).unwrap();
        let e = push("\"cd\"", 4).unwrap_err().to_string();
        assert_eq!(
            e,
            "'in.jsonl' line 4: duplicate id \"cd\" (first seen at 'in.jsonl' line 2)"
        );
        let e = push("\"ab\"", 5).unwrap_err().to_string();
        assert!(e.ends_with("(first seen at 'in.jsonl' line 1)"), "{e}");
    }
}
