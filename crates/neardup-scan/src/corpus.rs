//! The sign stage: every input read, each document signed (or its signature
//! read back), numbered in input order, ids checked for duplicates.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use neardup::{Backend, Fingerprint, Params, SignatureRecord, Signer};
use neardup_corpus::format::Format;
use neardup_corpus::pipeline::{self, Record, Signing};
use neardup_corpus::source;
use neardup_corpus::text::{display_name, is_stdin, read_document};
use neardup_corpus::{describe, id, tree};
use rayon::prelude::*;

use crate::error::{bail, message, Result};
use crate::keys::{Grouped, KeyFiles};
use crate::options::Reading;
use crate::spill::SpillDir;
use crate::watch::Watch;

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
    /// The input as given (a directory for its text files' input).
    pub path: PathBuf,
    /// What it holds.
    pub kind: Kind,
    /// How a JSONL input is stored (plain, compressed, Parquet); plain for
    /// a tree.
    pub format: Format,
    /// From `--against`: reference documents, never dropped.
    pub is_ref: bool,
    /// The documents `first .. first + count` came from this input.
    pub first: u32,
    /// How many documents it gave.
    pub count: u32,
    /// For a tree, the file of each document, in document order.
    pub files: Vec<PathBuf>,
}

/// Every document of the scan, numbered in input order: `--against`
/// inputs first (so a reference document keeps its cluster), then INPUTs,
/// each in its own order (lines; a tree's paths sorted bytewise).
pub struct Corpus {
    /// The documents, in input order.
    pub docs: Vec<Doc>,
    /// The fingerprint of each document, apart, as the core's scan takes
    /// them.
    pub fps: Vec<Fingerprint>,
    /// The inputs, in the order they were read.
    pub inputs: Vec<Input>,
    /// Documents `0 .. refs` come from `--against`.
    pub refs: u32,
    /// Files skipped with a warning.
    pub skipped: u64,
    /// Text files of a directory that word shingles cannot compare
    /// ([`neardup::Caveat`]), and the first one's name and caveat.
    pub caveats: (u64, Option<String>),
    /// Each document's distinct shingle keys, spilled to temp files, when
    /// the load was asked to keep them (a scan for containment).
    pub(crate) keys: Option<KeyFiles>,
}

impl Corpus {
    /// Reads and signs every input: the `against` ones (references) first,
    /// then `inputs`; with `keys` (a temp dir), keeps each document's
    /// shingle keys in temp files there, which only texts have (a
    /// signature file is refused).
    pub fn load(
        against: &[PathBuf],
        inputs: &[PathBuf],
        reading: &Reading,
        signing: (Params, Backend),
        keys: Option<&Path>,
        watch: &dyn Watch,
    ) -> Result<Corpus> {
        let mut loader = Loader::new(reading, signing, watch);
        loader.corpus.keys = keys
            .map(|dir| KeyFiles::new(&SpillDir::new(dir.to_owned())?))
            .transpose()?;
        for path in against {
            loader.input(path, true)?;
        }
        loader.corpus.refs = loader.corpus.docs.len() as u32;
        for path in inputs {
            loader.input(path, false)?;
        }
        Ok(loader.corpus)
    }

    /// This corpus (new documents, numbered from 0, none of them a
    /// reference) behind `refs`, reference documents given by id and
    /// fingerprint: the corpus a scan against an index writes, where the
    /// references are the index's documents that take part in a pair,
    /// numbered as [`neardup::scan::Against::local`] numbers them.
    pub fn behind(mut self, refs: Vec<(String, Fingerprint)>) -> Corpus {
        let n = refs.len() as u32;
        let (ids, fps): (Vec<String>, Vec<Fingerprint>) = refs.into_iter().unzip();
        let docs = ids.into_iter().map(|id| Doc {
            id,
            input: u32::MAX,
            line: 0,
        });
        self.docs.splice(0..0, docs);
        self.fps.splice(0..0, fps);
        self.refs = n;
        for input in &mut self.inputs {
            input.first += n;
        }
        self
    }
}

struct Loader<'a> {
    corpus: Corpus,
    /// The hash of each id and the document that first had it: 12 bytes
    /// a document instead of a second copy of its id.
    ids: HashMap<u64, u32>,
    /// Ids whose hash an earlier, different id already had.
    collided: HashMap<String, u32>,
    reading: &'a Reading,
    params: Params,
    backend: Backend,
    watch: &'a dyn Watch,
    /// The input being read, for messages until it is pushed.
    current: PathBuf,
}

impl<'a> Loader<'a> {
    fn new(
        reading: &'a Reading,
        (params, backend): (Params, Backend),
        watch: &'a dyn Watch,
    ) -> Loader<'a> {
        Loader {
            corpus: Corpus {
                docs: Vec::new(),
                fps: Vec::new(),
                inputs: Vec::new(),
                refs: 0,
                skipped: 0,
                caveats: (0, None),
                keys: None,
            },
            ids: HashMap::new(),
            collided: HashMap::new(),
            reading,
            params,
            backend,
            watch,
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
                .map_err(|e| message!("reading '{name}': {}", describe(&e)))?
                .is_dir();
        if !is_dir {
            return self.add(path, is_ref, |me, index| me.jsonl(path, index));
        }
        let walk = tree::walk(path, self.reading.text.max_size, self.reading.strict)?;
        for problem in &walk.skipped {
            self.watch.warn(&format!("{problem} (skipped)"));
        }
        self.corpus.skipped += walk.skipped.len() as u64;
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

    /// Adds one document, refusing an id seen before; its shingle keys are
    /// kept when the corpus keeps them.
    fn push(
        &mut self,
        id: String,
        (fp, keys): (Fingerprint, Option<Grouped>),
        input: u32,
        line: u64,
    ) -> Result<()> {
        let number = u32::try_from(self.corpus.docs.len())
            .ok()
            .filter(|&n| n < u32::MAX)
            .ok_or_else(|| message!("more than 4 294 967 294 documents"))?;
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
        if let (Some(all), Some(keys)) = (&mut self.corpus.keys, keys) {
            all.push(&keys)?;
        }
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
        let bar = self.watch.bytes(Some(total));
        let mut kept = Vec::new();
        let (params, backend, strict) = (self.params, self.backend, self.reading.strict);
        let (opts, watch) = (&self.reading.text, self.watch);
        let keys = self.corpus.keys.is_some();
        for chunk in files.chunks(256) {
            type Signed = Option<((Fingerprint, Option<Grouped>), Option<neardup::Caveat>)>;
            let signed: Vec<Result<Signed>> = chunk
                .par_iter()
                .map_init(
                    || match Signer::new(params, backend) {
                        s if keys => s.keeping_keys(),
                        s => s,
                    },
                    |signer, (path, _)| match read_document(path, opts) {
                        Ok(doc) => {
                            for w in &doc.warnings {
                                watch.warn(&format!("'{}': {w}", display_name(path)));
                            }
                            let caveat = neardup::Caveat::of(&doc.text, params);
                            let mut one = signer.sign_all_with_keys([&*doc.text]);
                            let group = |(fp, k): (_, Vec<u64>)| (fp, Grouped::kept(keys, &k));
                            Ok(one.pop().map(|signed| (group(signed), caveat)))
                        }
                        Err(e) if strict => Err(e.into()),
                        Err(e) => {
                            watch.warn(&format!("{e} (skipped)"));
                            Ok(None)
                        }
                    },
                )
                .collect();
            for ((path, size), fp) in chunk.iter().zip(signed) {
                bar.inc(*size);
                let Some((fp, caveat)) = fp? else {
                    self.corpus.skipped += 1;
                    continue;
                };
                if let Some(caveat) = caveat {
                    let (count, first) = &mut self.corpus.caveats;
                    *count += 1;
                    first.get_or_insert_with(|| format!("'{}': {caveat}", display_name(path)));
                }
                let id = id::of_str(&display_name(path));
                self.push(id, fp, input, 0)?;
                kept.push(path.clone());
            }
        }
        bar.finish();
        Ok((Kind::Tree, Format::Jsonl, kept))
    }

    /// Reads a corpus input, documents or signatures (told apart by the
    /// first line), in parallel batches.
    fn jsonl(&mut self, path: &Path, input: u32) -> Result<(Kind, Format, Vec<PathBuf>)> {
        let name = display_name(path);
        let fields = self.reading.fields();
        let mut source = source::open(path, fields.columns())?;
        let cap = self.reading.text.max_size.saturating_add(2);
        let kind = match source.holds_signatures(&name, cap)? {
            true => Kind::Signatures,
            false => Kind::Documents,
        };
        if kind == Kind::Signatures && self.corpus.keys.is_some() {
            bail!(
                "'{name}' holds signatures, which keep no shingles: --containment needs the texts"
            );
        }
        let how = Signing {
            fields,
            params: self.params,
            backend: self.backend,
            keys: self.corpus.keys.is_some(),
        };
        let max_line = self.reading.text.max_size;
        let bar = self.watch.bytes(source.total);
        let consume = |me: &mut Self, r: &Record<'_>, (id, fp)| -> Result<()> {
            me.push(id, fp, input, r.number())?;
            bar.inc(r.len() as u64);
            bar.set_message(format!("{} docs", me.corpus.docs.len()));
            Ok(())
        };
        let records = &mut source.data;
        match kind {
            Kind::Signatures => {
                let params = self.params;
                let read = |_: &mut (), records: &[Record<'_>]| {
                    let with_no_keys = |(id, fp)| (id, (fp, None));
                    records
                        .iter()
                        .map(|r| signature(r, params).map(with_no_keys))
                        .collect()
                };
                pipeline::pipeline(
                    records,
                    &name,
                    max_line,
                    || (),
                    read,
                    |r, v| consume(self, r, v),
                )?
            }
            _ => {
                let keeping = self.corpus.keys.is_some();
                let make = |raw, fp, keys: Vec<u64>| {
                    Ok((id::canonical(raw)?, (fp, Grouped::kept(keeping, &keys))))
                };
                pipeline::sign(records, &name, max_line, how, make, |r, v| {
                    consume(self, r, v)
                })?
            }
        }
        bar.finish();
        Ok((kind, source.format, Vec::new()))
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

/// Reads one signature line back into a fingerprint, refusing another K or
/// N or word rule than the scan's and any line whose parts disagree.
fn signature(r: &Record<'_>, params: Params) -> neardup_corpus::Result<(String, Fingerprint)> {
    use neardup_corpus::Error;
    let l = r.line()?;
    let n = l.number;
    let r = SignatureRecord::parse(l.bytes).map_err(|e| Error::line(n, e.to_string()))?;
    let got = r.fingerprint.params;
    if got != params {
        return Err(Error::line(
            n,
            format!(
                "signed with k={}, n={}, words={}, but this scan uses k={}, n={}, words={} (pass -k/-n/--words to match, or sign again)",
                got.k(),
                got.n(),
                got.words(),
                params.k(),
                params.n(),
                params.words(),
            ),
        ));
    }
    Ok((r.id, r.fingerprint))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(s: &str) -> Record<'_> {
        Record::Line(neardup_corpus::lines::Line {
            number: 3,
            bytes: s.as_bytes(),
        })
    }

    #[test]
    fn signature_lines_round_trip() {
        let p = Params::DEFAULT;
        let fp = Fingerprint::of("one two three four five six seven", p);
        let mut out = String::new();
        SignatureRecord::write(&mut out, "id", "\"x\"", &fp);
        let (id, back) = signature(&line(out.trim_end()), p).unwrap();
        assert_eq!((id.as_str(), back), ("\"x\"", fp));

        let other = Params::new(3, 128).unwrap();
        let e = signature(&line(out.trim_end()), other)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("line 3: signed with k=5, n=128, words=space, but this scan uses k=3"),
            "{e}"
        );
        let tampered = out.replacen("\"shingles\":3", "\"shingles\":4", 1);
        assert!(signature(&line(tampered.trim_end()), p).is_ok());
        let broken = out.replacen("\"signature\":\"", "\"signature\":\"0", 1);
        assert!(signature(&line(broken.trim_end()), p).is_err());
    }

    #[test]
    fn duplicate_ids_are_found_through_hash_collisions() {
        let reading = Reading {
            id_field: "id".into(),
            text_field: "text".into(),
            text: neardup_corpus::text::Options {
                lossy: false,
                max_size: 1 << 30,
                max_expanded: 256 << 20,
                mmap: false,
                format: None,
            },
            strict: false,
        };
        let signing = (Params::DEFAULT, Backend::detect());
        let mut loader = Loader::new(&reading, signing, &crate::watch::Quiet);
        loader.current = "in.jsonl".into();
        let fp = Fingerprint::of("", Params::DEFAULT);
        let mut push = |id: &str, line| loader.push(id.to_owned(), (fp.clone(), None), 0, line);
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
