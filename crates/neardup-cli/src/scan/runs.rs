//! The bands stage: one record per band of each signature, sorted by
//! `(band, key, doc)` in memory or, beyond the memory budget, in sorted runs
//! spilled to the temp dir and k-way merged.
//!
//! The band is the partition key: the sorted stream is band 0's buckets,
//! then band 1's, and each band's records could be shuffled to and sorted
//! on a different machine.
//!
//! A run file is a sequence of 16-byte little-endian records, `band u32 ·
//! key u64 · doc u32`, then a 16-byte trailer, `count u64 · xxh3 u64`: the
//! number of records and the XXH3-64 of their bytes. A run is checked as it
//! is merged: a file truncated, extended or changed between writing and
//! merging (a failing disk, a full one that lost a write, another process)
//! stops the scan with an error naming it, before any output is written,
//! so it can never turn into wrong pairs.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::hash::Hasher as _;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};
use neardup::scan::{BandRecord as Record, Plan};
use rayon::prelude::*;
use twox_hash::XxHash3_64;

use super::corpus::Corpus;
use neardup_corpus::describe;

const RECORD_BYTES: usize = 16;

/// The trailer after a run's records: their count and checksum.
const TRAILER_BYTES: u64 = 16;

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
    #[cfg(debug_assertions)]
    if n == 0 {
        damage_for_tests(&path)?;
    }
    buffer.clear();
    Ok(path)
}

/// Debug builds only, for the end-to-end tests: with
/// `NEARDUP_TEST_CORRUPT_RUN=flip:OFFSET` (flip the byte at OFFSET) or
/// `truncate:LENGTH`, run 0 is damaged right after it is written, as a
/// failing disk or another process could, so that the tests can watch the
/// merge refuse it. There is no other way in between the write and the
/// merge from outside the process without racing it. Release builds do not
/// have the hook.
#[cfg(debug_assertions)]
fn damage_for_tests(path: &Path) -> Result<()> {
    let Ok(how) = std::env::var("NEARDUP_TEST_CORRUPT_RUN") else {
        return Ok(());
    };
    let (what, at) = how.split_once(':').unwrap_or((&how, "0"));
    let at: u64 = at.parse()?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)?;
    match what {
        "flip" => {
            let mut byte = [0u8];
            (&file).seek(SeekFrom::Start(at))?;
            (&file).read_exact(&mut byte)?;
            (&file).seek(SeekFrom::Start(at))?;
            (&file).write_all(&[!byte[0]])?;
        }
        "truncate" => file.set_len(at)?,
        _ => anyhow::bail!("NEARDUP_TEST_CORRUPT_RUN: unknown damage '{how}'"),
    }
    Ok(())
}

/// Writes one run: its records, then the trailer.
struct RunWriter {
    out: BufWriter<File>,
    path: PathBuf,
    count: u64,
    hash: XxHash3_64,
}

impl RunWriter {
    fn create(path: &Path) -> Result<RunWriter> {
        let file = File::create(path).map_err(|e| temp_error(path, &e))?;
        Ok(RunWriter {
            out: BufWriter::with_capacity(1 << 20, file),
            path: path.to_owned(),
            count: 0,
            hash: XxHash3_64::with_seed(0),
        })
    }

    fn write(&mut self, r: Record) -> Result<()> {
        let mut bytes = [0u8; RECORD_BYTES];
        bytes[..4].copy_from_slice(&r.band.to_le_bytes());
        bytes[4..12].copy_from_slice(&r.key.to_le_bytes());
        bytes[12..].copy_from_slice(&r.doc.to_le_bytes());
        self.count += 1;
        self.hash.write(&bytes);
        self.out
            .write_all(&bytes)
            .map_err(|e| temp_error(&self.path, &e))
    }

    fn finish(mut self) -> Result<()> {
        let mut trailer = [0u8; TRAILER_BYTES as usize];
        trailer[..8].copy_from_slice(&self.count.to_le_bytes());
        trailer[8..].copy_from_slice(&self.hash.finish().to_le_bytes());
        let path = self.path;
        self.out
            .write_all(&trailer)
            .map_err(|e| temp_error(&path, &e))?;
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

/// Reads one run back, checking it against its trailer: the file's length
/// first, the checksum once the last record is read.
struct RunReader {
    input: BufReader<File>,
    path: PathBuf,
    /// Records not yet read.
    left: u64,
    hash: XxHash3_64,
    /// The checksum the trailer promises.
    want: u64,
}

impl RunReader {
    fn open(path: &Path) -> Result<RunReader> {
        let fail = |e: io::Error| {
            anyhow!(
                "reading the temp run '{}': {}",
                path.display(),
                describe(&e)
            )
        };
        let mut file = File::open(path).map_err(fail)?;
        let len = file.metadata().map_err(fail)?.len();
        let mut trailer = [0u8; TRAILER_BYTES as usize];
        if len >= TRAILER_BYTES {
            file.seek(SeekFrom::Start(len - TRAILER_BYTES))
                .and_then(|_| file.read_exact(&mut trailer))
                .and_then(|()| file.seek(SeekFrom::Start(0)))
                .map_err(fail)?;
        }
        let [c0, c1, c2, c3, c4, c5, c6, c7, h0, h1, h2, h3, h4, h5, h6, h7] = trailer;
        let count = u64::from_le_bytes([c0, c1, c2, c3, c4, c5, c6, c7]);
        let want = u64::from_le_bytes([h0, h1, h2, h3, h4, h5, h6, h7]);
        let records = len.checked_sub(TRAILER_BYTES);
        if records.is_none() || count.checked_mul(RECORD_BYTES as u64) != records {
            return Err(corrupt(
                path,
                &format!(
                    "its {len} bytes do not hold the {count} records its trailer counts (truncated or overwritten?)"
                ),
            ));
        }
        Ok(RunReader {
            input: BufReader::with_capacity(256 << 10, file),
            path: path.to_owned(),
            left: count,
            hash: XxHash3_64::with_seed(0),
            want,
        })
    }

    fn next_record(&mut self) -> Result<Option<Record>> {
        if self.left == 0 {
            if self.hash.finish() != self.want {
                return Err(corrupt(
                    &self.path,
                    "its checksum does not match its records (changed after it was written?)",
                ));
            }
            return Ok(None);
        }
        let mut bytes = [0u8; RECORD_BYTES];
        self.input.read_exact(&mut bytes).map_err(|e| {
            anyhow!(
                "reading the temp run '{}': {}",
                self.path.display(),
                describe(&e)
            )
        })?;
        self.left -= 1;
        self.hash.write(&bytes);
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

fn corrupt(path: &Path, problem: &str) -> anyhow::Error {
    anyhow!(
        "the temp run '{}' is corrupt: {problem}; no output was written",
        path.display()
    )
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
            readers.push(RunReader::open(p)?);
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

    fn merged(paths: &[PathBuf]) -> Result<Vec<Record>> {
        let mut m = Merger::open(paths)?;
        let mut got = Vec::new();
        while let Some(r) = m.next_record()? {
            got.push(r);
        }
        Ok(got)
    }

    #[test]
    fn every_damaged_byte_and_every_truncation_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let records: Vec<Record> = (0..5u32)
            .map(|i| Record {
                band: i % 2,
                key: u64::from(i) * 0x0123_4567_89ab_cdef,
                doc: i,
            })
            .collect();
        let path = spill(&mut records.clone(), dir.path(), 1).unwrap();
        let good = std::fs::read(&path).unwrap();
        assert_eq!(good.len(), 16 * 5 + 16);
        let mut sorted = records.clone();
        sorted.sort_unstable();
        assert_eq!(merged(std::slice::from_ref(&path)).unwrap(), sorted);

        let check = |bytes: &[u8], what: &str| {
            std::fs::write(&path, bytes).unwrap();
            let e = merged(std::slice::from_ref(&path)).expect_err(what);
            let e = e.to_string();
            assert!(
                e.contains("is corrupt") && e.contains("bands-000001.run"),
                "{what}: {e}"
            );
        };
        for at in 0..good.len() {
            for bit in 0..8 {
                let mut bad = good.clone();
                bad[at] ^= 1 << bit;
                check(&bad, &format!("bit {bit} of byte {at} flipped"));
            }
        }
        for len in 0..good.len() {
            check(&good[..len], &format!("truncated to {len} bytes"));
        }
        let mut longer = good.clone();
        longer.extend_from_slice(&[0; 16]);
        check(&longer, "a record too many");
        // Two records swapped: the count and length hold, the checksum not.
        let mut swapped = good.clone();
        swapped[..16].copy_from_slice(&good[16..32]);
        swapped[16..32].copy_from_slice(&good[..16]);
        check(&swapped, "records swapped");
    }
}
