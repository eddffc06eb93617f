//! The bands stage: one record per band of each signature, sorted by
//! `(band, key, doc)` in memory or, beyond the memory budget, in sorted runs
//! spilled to the temp dir and k-way merged.
//!
//! The band is the partition key: the sorted stream is band 0's buckets,
//! then band 1's, and each band's records could be shuffled to and sorted
//! on a different machine. A run file is a plain sequence of 16-byte
//! little-endian records, `band u32 · key u64 · doc u32`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};
use neardup::scan::{BandRecord as Record, Plan};
use rayon::prelude::*;

use super::corpus::Corpus;
use crate::input::describe;

const RECORD_BYTES: usize = 16;

/// The smallest record buffer, whatever the budget: 64 records.
const MIN_BUFFER_BYTES: u64 = 64 * RECORD_BYTES as u64;

/// At most this many runs are merged at once; more are merged in rounds.
const FAN_IN: usize = 64;

/// Bytes the rest of the scan holds per document besides its signature:
/// the id, the `Doc` and `Fingerprint` structs, the id index.
const DOC_OVERHEAD: u64 = 160;

/// The sorted band records, from memory or merged from runs on disk.
pub struct BandRecords {
    source: Source,
    /// How many records there are.
    pub count: u64,
    /// How many sorted runs were written (0 or 1: all in memory).
    pub runs: usize,
}

enum Source {
    Memory(std::vec::IntoIter<Record>),
    Merge(Merger),
}

impl BandRecords {
    /// The next record in `(band, key, doc)` order.
    pub fn next_record(&mut self) -> Result<Option<Record>> {
        match &mut self.source {
            Source::Memory(it) => Ok(it.next()),
            Source::Merge(m) => m.next_record(),
        }
    }
}

/// What the memory budget leaves for band records once the documents are
/// held (the signatures, ids and bookkeeping, estimated from their sizes),
/// and at least a quarter of the budget.
fn record_budget(corpus: &Corpus, memory: u64) -> u64 {
    let resident: u64 = corpus
        .docs
        .iter()
        .zip(&corpus.fps)
        .map(|(d, fp)| {
            d.id.len() as u64
                + DOC_OVERHEAD
                + 4 * fp.signature.as_ref().map_or(0, |s| s.slots().len() as u64)
        })
        .sum();
    // Signatures beyond the budget would leave nothing: keep a quarter of
    // it for records anyway, rather than spill runs of a few records each.
    memory
        .saturating_sub(resident)
        .max(memory / 4)
        .max(MIN_BUFFER_BYTES)
}

/// Builds the band records of the `docs` (documents with a signature), in
/// memory when they fit the budget, else as sorted runs in `temp`.
pub fn band_records(
    corpus: &Corpus,
    docs: &[u32],
    plan: &Plan,
    memory: u64,
    temp: &Path,
    quiet: bool,
) -> Result<BandRecords> {
    let total = docs.len() as u64 * plan.banding().bands() as u64;
    let capacity = (record_budget(corpus, memory) / RECORD_BYTES as u64).min(total) as usize;
    let bar = crate::progress::count(total, quiet, "band records");
    let mut buffer: Vec<Record> = Vec::with_capacity(capacity);
    let mut runs: Vec<PathBuf> = Vec::new();
    for chunk in docs.chunks(4096) {
        let records: Vec<Record> = chunk
            .par_iter()
            .flat_map_iter(|&doc| {
                let sig = corpus.fps[doc as usize].signature.as_ref();
                sig.into_iter().flat_map(move |s| plan.band_records(doc, s))
            })
            .collect();
        bar.inc(records.len() as u64);
        for r in records {
            if buffer.len() == capacity {
                runs.push(spill(&mut buffer, temp, runs.len())?);
            }
            buffer.push(r);
        }
    }
    bar.finish_and_clear();
    if runs.is_empty() {
        buffer.par_sort_unstable();
        return Ok(BandRecords {
            source: Source::Memory(buffer.into_iter()),
            count: total,
            runs: usize::from(total > 0),
        });
    }
    if !buffer.is_empty() {
        runs.push(spill(&mut buffer, temp, runs.len())?);
    }
    drop(buffer);
    let written = runs.len();
    // Merge in rounds until one merge of at most FAN_IN runs is left.
    let mut next = written;
    while runs.len() > FAN_IN {
        let group: Vec<PathBuf> = runs.drain(..FAN_IN).collect();
        let mut merger = Merger::open(&group)?;
        let path = run_path(temp, next);
        next += 1;
        let mut out = RunWriter::create(&path)?;
        while let Some(r) = merger.next_record()? {
            out.write(r)?;
        }
        out.finish()?;
        for p in &group {
            let _ = std::fs::remove_file(p);
        }
        runs.push(path);
    }
    Ok(BandRecords {
        source: Source::Merge(Merger::open(&runs)?),
        count: total,
        runs: written,
    })
}

fn run_path(temp: &Path, n: usize) -> PathBuf {
    temp.join(format!("bands-{n:06}.run"))
}

/// Sorts the buffer and writes it as run number `n`, leaving it empty.
fn spill(buffer: &mut Vec<Record>, temp: &Path, n: usize) -> Result<PathBuf> {
    buffer.par_sort_unstable();
    let path = run_path(temp, n);
    let mut out = RunWriter::create(&path)?;
    for &r in buffer.iter() {
        out.write(r)?;
    }
    out.finish()?;
    buffer.clear();
    Ok(path)
}

struct RunWriter {
    out: BufWriter<File>,
    path: PathBuf,
}

impl RunWriter {
    fn create(path: &Path) -> Result<RunWriter> {
        let file = File::create(path).map_err(|e| temp_error(path, &e))?;
        Ok(RunWriter {
            out: BufWriter::with_capacity(1 << 20, file),
            path: path.to_owned(),
        })
    }

    fn write(&mut self, r: Record) -> Result<()> {
        let mut bytes = [0u8; RECORD_BYTES];
        bytes[..4].copy_from_slice(&r.band.to_le_bytes());
        bytes[4..12].copy_from_slice(&r.key.to_le_bytes());
        bytes[12..].copy_from_slice(&r.doc.to_le_bytes());
        self.out
            .write_all(&bytes)
            .map_err(|e| temp_error(&self.path, &e))
    }

    fn finish(self) -> Result<()> {
        let path = self.path;
        self.out
            .into_inner()
            .map_err(|e| temp_error(&path, e.error()))?;
        Ok(())
    }
}

fn temp_error(path: &Path, e: &io::Error) -> anyhow::Error {
    anyhow!(
        "writing the temp run '{}': {} (see --temp-dir and --memory)",
        path.display(),
        describe(e)
    )
}

struct RunReader {
    input: BufReader<File>,
    path: PathBuf,
}

impl RunReader {
    fn next_record(&mut self) -> Result<Option<Record>> {
        let mut bytes = [0u8; RECORD_BYTES];
        match self.input.read_exact(&mut bytes) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => {
                return Err(anyhow!(
                    "reading the temp run '{}': {}",
                    self.path.display(),
                    describe(&e)
                ))
            }
        }
        let u32_at =
            |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        let mut key = [0u8; 8];
        key.copy_from_slice(&bytes[4..12]);
        Ok(Some(Record {
            band: u32_at(0),
            key: u64::from_le_bytes(key),
            doc: u32_at(12),
        }))
    }
}

/// A k-way merge of sorted runs: a heap holds each run's next record.
struct Merger {
    readers: Vec<RunReader>,
    heap: BinaryHeap<Reverse<(Record, usize)>>,
}

impl Merger {
    fn open(paths: &[PathBuf]) -> Result<Merger> {
        let mut readers = Vec::with_capacity(paths.len());
        for p in paths {
            let file = File::open(p)
                .map_err(|e| anyhow!("reading the temp run '{}': {}", p.display(), describe(&e)))?;
            readers.push(RunReader {
                input: BufReader::with_capacity(256 << 10, file),
                path: p.clone(),
            });
        }
        let mut heap = BinaryHeap::with_capacity(readers.len());
        for (i, r) in readers.iter_mut().enumerate() {
            if let Some(rec) = r.next_record()? {
                heap.push(Reverse((rec, i)));
            }
        }
        Ok(Merger { readers, heap })
    }

    fn next_record(&mut self) -> Result<Option<Record>> {
        let Some(Reverse((rec, i))) = self.heap.pop() else {
            return Ok(None);
        };
        if let Some(next) = self.readers[i].next_record()? {
            self.heap.push(Reverse((next, i)));
        }
        Ok(Some(rec))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_merge_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut all = Vec::new();
        let mut paths = Vec::new();
        // 150 runs: more than FAN_IN, as a merge round would see them.
        for n in 0..150u32 {
            let mut buf: Vec<Record> = (0..7u32)
                .map(|i| Record {
                    band: (n * 7 + i) % 5,
                    key: u64::from((n * 31 + i * 17) % 13),
                    doc: n * 7 + i,
                })
                .collect();
            all.extend_from_slice(&buf);
            paths.push(spill(&mut buf, dir.path(), n as usize).unwrap());
        }
        all.sort_unstable();
        let mut m = Merger::open(&paths).unwrap();
        let mut got = Vec::new();
        while let Some(r) = m.next_record().unwrap() {
            got.push(r);
        }
        assert_eq!(got, all);
    }
}
