//! The bands stage: one record per band of each signature, sorted by
//! `(band, key, doc)` in memory or, beyond the memory budget, in sorted runs
//! spilled to the temp dir and k-way merged.
//!
//! A run is an unnamed file (`tempfile::tempfile_in`: `O_TMPFILE` on Linux,
//! created and unlinked at once elsewhere), so the kernel frees it when its
//! last descriptor closes, however the process ends: a scan killed by
//! SIGKILL leaves nothing in the temp dir. Since a run then lives only as
//! an open descriptor, runs are merged as they pile up (64 of one size into
//! one of the next), which keeps the descriptors held to a few hundred
//! whatever the number of spills.
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

use neardup::scan::{BandRecord as Record, Plan};
use rayon::prelude::*;
use twox_hash::XxHash3_64;

use crate::corpus::Corpus;
#[cfg(debug_assertions)]
use crate::error::bail;
use crate::error::{message, Error, Result};
use crate::spill::SpillDir;
use crate::watch::Watch;
use neardup_corpus::describe;

const RECORD_BYTES: usize = 16;

/// The trailer after a run's records: their count and checksum.
const TRAILER_BYTES: u64 = 16;

/// The smallest record buffer, whatever the budget: 64 records.
const MIN_BUFFER_BYTES: u64 = 64 * RECORD_BYTES as u64;

/// At most this many runs are merged at once: this many runs of one size
/// class are merged into one of the next, and the last merge takes at most
/// this many.
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
    temp: &SpillDir,
    watch: &dyn Watch,
) -> Result<BandRecords> {
    let total = docs.len() as u64 * plan.banding().bands() as u64;
    let capacity = (record_budget(corpus, memory) / RECORD_BYTES as u64).min(total) as usize;
    let bar = watch.count(total, "band records");
    let mut buffer: Vec<Record> = Vec::with_capacity(capacity);
    let mut runs = Runs::new(temp);
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
                runs.spill(&mut buffer)?;
            }
            buffer.push(r);
        }
    }
    bar.finish();
    if runs.spilled == 0 {
        buffer.par_sort_unstable();
        return Ok(BandRecords {
            source: Source::Memory(buffer.into_iter()),
            count: total,
            runs: usize::from(total > 0),
        });
    }
    if !buffer.is_empty() {
        runs.spill(&mut buffer)?;
    }
    drop(buffer);
    let written = runs.spilled;
    Ok(BandRecords {
        source: Source::Merge(runs.merger()?),
        count: total,
        runs: written,
    })
}

/// One sorted run: an unnamed file, freed when dropped.
struct Run {
    file: File,
    /// Its number and its dir, to name it in errors, as it has no name of
    /// its own. Runs are numbered from 0 in the order they are written,
    /// spills and merges alike.
    n: usize,
    dir: SpillDir,
}

/// The runs spilled so far, each with its size class (0 for a spill, one
/// more for each merge it went through), the largest first. Whenever the
/// last [`FAN_IN`] runs are of one class, they are merged into one run of
/// the next class, as a binary counter carries: every record is merged
/// once per class, as in rounds of merges after the last spill, and at
/// most `FAN_IN - 1` runs of each class are held open.
struct Runs {
    dir: SpillDir,
    held: Vec<(u32, Run)>,
    /// Runs written so far, spills and merges: the next run's number.
    next: usize,
    /// Spills so far.
    spilled: usize,
}

impl Runs {
    fn new(dir: &SpillDir) -> Runs {
        Runs {
            dir: dir.clone(),
            held: Vec::new(),
            next: 0,
            spilled: 0,
        }
    }

    /// Sorts the buffer and writes it as the next run, leaving it empty,
    /// then merges what piled up.
    fn spill(&mut self, buffer: &mut Vec<Record>) -> Result<()> {
        buffer.par_sort_unstable();
        let mut out = RunWriter::create(&self.dir, self.next)?;
        for &r in buffer.iter() {
            out.write(r)?;
        }
        let run = out.finish()?;
        #[cfg(debug_assertions)]
        if run.n == 0 {
            damage_for_tests(&run)?;
        }
        buffer.clear();
        self.next += 1;
        self.spilled += 1;
        self.held.push((0, run));
        while let Some(&(class, _)) = self.held.last() {
            let len = self.held.len();
            if len < FAN_IN || self.held[len - FAN_IN].0 != class {
                break;
            }
            self.merge_last(FAN_IN, class + 1)?;
        }
        Ok(())
    }

    /// Merges the last `count` runs held into one of class `class`.
    fn merge_last(&mut self, count: usize, class: u32) -> Result<()> {
        let group: Vec<Run> = self
            .held
            .drain(self.held.len() - count..)
            .map(|(_, r)| r)
            .collect();
        let mut merger = Merger::open(group)?;
        let mut out = RunWriter::create(&self.dir, self.next)?;
        self.next += 1;
        while let Some(r) = merger.next_record()? {
            out.write(r)?;
        }
        self.held.push((class, out.finish()?));
        Ok(())
    }

    /// The merge of every run, after merging the smallest together until
    /// at most [`FAN_IN`] are left.
    fn merger(mut self) -> Result<Merger> {
        while self.held.len() > FAN_IN {
            let count = (self.held.len() - FAN_IN + 1).min(FAN_IN);
            let class = self.held[self.held.len() - count].0 + 1;
            self.merge_last(count, class)?;
        }
        Merger::open(self.held.into_iter().map(|(_, r)| r).collect())
    }
}

/// Debug builds only, for the end-to-end tests: with
/// `NEARDUP_TEST_CORRUPT_RUN=flip:OFFSET` (flip the byte at OFFSET) or
/// `truncate:LENGTH`, run 0 is damaged right after it is written, as a
/// failing disk or another process could, so that the tests can watch the
/// merge refuse it. There is no other way in between the write and the
/// merge from outside the process without racing it. Release builds do not
/// have the hook.
#[cfg(debug_assertions)]
fn damage_for_tests(run: &Run) -> Result<()> {
    let Ok(how) = std::env::var("NEARDUP_TEST_CORRUPT_RUN") else {
        return Ok(());
    };
    let (what, at) = how.split_once(':').unwrap_or((&how, "0"));
    let Ok(at) = at.parse::<u64>() else {
        bail!("NEARDUP_TEST_CORRUPT_RUN: bad offset in '{how}'");
    };
    let mut file = &run.file;
    let damaged = match what {
        "flip" => {
            let mut byte = [0u8];
            file.seek(SeekFrom::Start(at))
                .and_then(|_| file.read_exact(&mut byte))
                .and_then(|()| file.seek(SeekFrom::Start(at)))
                .and_then(|_| file.write_all(&[!byte[0]]))
        }
        "truncate" => file.set_len(at),
        _ => bail!("NEARDUP_TEST_CORRUPT_RUN: unknown damage '{how}'"),
    };
    damaged.map_err(|e| message!("NEARDUP_TEST_CORRUPT_RUN: {e}"))
}

/// Writes one run: its records, then the trailer.
struct RunWriter {
    out: BufWriter<File>,
    dir: SpillDir,
    n: usize,
    count: u64,
    hash: XxHash3_64,
}

impl RunWriter {
    fn create(dir: &SpillDir, n: usize) -> Result<RunWriter> {
        let file = dir.file().map_err(|e| temp_error(dir, n, &e))?;
        Ok(RunWriter {
            out: BufWriter::with_capacity(1 << 20, file),
            dir: dir.clone(),
            n,
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
            .map_err(|e| temp_error(&self.dir, self.n, &e))
    }

    fn finish(mut self) -> Result<Run> {
        let mut trailer = [0u8; TRAILER_BYTES as usize];
        trailer[..8].copy_from_slice(&self.count.to_le_bytes());
        trailer[8..].copy_from_slice(&self.hash.finish().to_le_bytes());
        let (dir, n) = (self.dir, self.n);
        self.out
            .write_all(&trailer)
            .map_err(|e| temp_error(&dir, n, &e))?;
        let file = self
            .out
            .into_inner()
            .map_err(|e| temp_error(&dir, n, e.error()))?;
        Ok(Run { file, n, dir })
    }
}

fn temp_error(dir: &SpillDir, n: usize, e: &io::Error) -> Error {
    message!(
        "writing the temp run {n} in '{}': {} (see --temp-dir and --memory)",
        dir.path().display(),
        describe(e)
    )
}

/// Reads one run back, checking it against its trailer: the file's length
/// first, the checksum once the last record is read.
struct RunReader {
    input: BufReader<File>,
    /// The run's number and dir, for errors.
    n: usize,
    dir: SpillDir,
    /// Records not yet read.
    left: u64,
    hash: XxHash3_64,
    /// The checksum the trailer promises.
    want: u64,
}

impl RunReader {
    fn open(run: Run) -> Result<RunReader> {
        let Run { mut file, n, dir } = run;
        let fail = |e: io::Error| {
            message!(
                "reading the temp run {n} in '{}': {}",
                dir.path().display(),
                describe(&e)
            )
        };
        let len = file.metadata().map_err(fail)?.len();
        let mut trailer = [0u8; TRAILER_BYTES as usize];
        if len >= TRAILER_BYTES {
            file.seek(SeekFrom::Start(len - TRAILER_BYTES))
                .and_then(|_| file.read_exact(&mut trailer))
                .map_err(fail)?;
        }
        file.seek(SeekFrom::Start(0)).map_err(fail)?;
        let [c0, c1, c2, c3, c4, c5, c6, c7, h0, h1, h2, h3, h4, h5, h6, h7] = trailer;
        let count = u64::from_le_bytes([c0, c1, c2, c3, c4, c5, c6, c7]);
        let want = u64::from_le_bytes([h0, h1, h2, h3, h4, h5, h6, h7]);
        let records = len.checked_sub(TRAILER_BYTES);
        if records.is_none() || count.checked_mul(RECORD_BYTES as u64) != records {
            return Err(corrupt(
                &dir,
                n,
                &format!(
                    "its {len} bytes do not hold the {count} records its trailer counts (truncated or overwritten?)"
                ),
            ));
        }
        Ok(RunReader {
            input: BufReader::with_capacity(256 << 10, file),
            n,
            dir,
            left: count,
            hash: XxHash3_64::with_seed(0),
            want,
        })
    }

    fn next_record(&mut self) -> Result<Option<Record>> {
        if self.left == 0 {
            if self.hash.finish() != self.want {
                return Err(corrupt(
                    &self.dir,
                    self.n,
                    "its checksum does not match its records (changed after it was written?)",
                ));
            }
            return Ok(None);
        }
        let mut bytes = [0u8; RECORD_BYTES];
        self.input.read_exact(&mut bytes).map_err(|e| {
            message!(
                "reading the temp run {} in '{}': {}",
                self.n,
                self.dir.path().display(),
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

fn corrupt(dir: &SpillDir, n: usize, problem: &str) -> Error {
    message!(
        "the temp run {n} in '{}' is corrupt: {problem}; no output was written",
        dir.path().display()
    )
}

/// A k-way merge of sorted runs: a heap holds each run's next record.
struct Merger {
    readers: Vec<RunReader>,
    heap: BinaryHeap<Reverse<(Record, usize)>>,
}

impl Merger {
    fn open(runs: Vec<Run>) -> Result<Merger> {
        let mut readers = Vec::with_capacity(runs.len());
        for run in runs {
            readers.push(RunReader::open(run)?);
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
    use std::path::PathBuf;

    fn records(n: u32, len: u32) -> Vec<Record> {
        (0..len)
            .map(|i| Record {
                band: (n * len + i) % 5,
                key: u64::from((n * 31 + i * 17) % 13),
                doc: n * len + i,
            })
            .collect()
    }

    fn merged(mut m: Merger) -> Result<Vec<Record>> {
        let mut got = Vec::new();
        while let Some(r) = m.next_record()? {
            got.push(r);
        }
        Ok(got)
    }

    fn spill_dir(dir: &tempfile::TempDir) -> SpillDir {
        SpillDir::new(dir.path().to_owned()).unwrap()
    }

    /// Spills of a few records, enough for merges of merges, come back in
    /// order, and the runs held open stay few: at most `FAN_IN - 1` of each
    /// size class, where holding every spill would take one descriptor each.
    #[test]
    fn runs_merge_in_order_holding_few() {
        let dir = tempfile::tempdir().unwrap();
        let mut runs = Runs::new(&spill_dir(&dir));
        let spills = FAN_IN * FAN_IN + 3 * FAN_IN + 5;
        let mut all = Vec::new();
        let mut most_held = 0;
        for n in 0..spills as u32 {
            let mut buf = records(n, 3);
            all.extend_from_slice(&buf);
            runs.spill(&mut buf).unwrap();
            assert!(buf.is_empty());
            most_held = most_held.max(runs.held.len());
        }
        assert_eq!(runs.spilled, spills);
        // One run of class 2, three of class 1, five spills.
        let classes: Vec<u32> = runs.held.iter().map(|(c, _)| *c).collect();
        assert_eq!(classes, [2, 1, 1, 1, 0, 0, 0, 0, 0]);
        // 63 of class 1 and 63 spills, just before the 64th spill.
        assert_eq!(most_held, 2 * (FAN_IN - 1));
        all.sort_unstable();
        assert_eq!(merged(runs.merger().unwrap()).unwrap(), all);
        // Unnamed runs: nothing was ever in the dir.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    /// More runs held than one merge takes: the smallest are merged first,
    /// just enough of them to leave `FAN_IN`.
    #[test]
    fn the_last_merge_takes_at_most_fan_in() {
        let dir = tempfile::tempdir().unwrap();
        let mut runs = Runs::new(&spill_dir(&dir));
        let mut all = Vec::new();
        // Two of class 1 and 63 spills: 65 runs held.
        for n in 0..(3 * FAN_IN - 1) as u32 {
            let mut buf = records(n, 2);
            all.extend_from_slice(&buf);
            runs.spill(&mut buf).unwrap();
        }
        assert_eq!(runs.held.len(), FAN_IN + 1);
        all.sort_unstable();
        assert_eq!(merged(runs.merger().unwrap()).unwrap(), all);
    }

    #[test]
    fn a_missing_temp_dir_is_named() {
        let e = SpillDir::new(PathBuf::from("no/such/dir")).err().unwrap();
        assert_eq!(
            e.to_string(),
            "creating a temp file in 'no/such/dir': no such file or directory (see --temp-dir)"
        );
    }

    #[test]
    fn every_damaged_byte_and_every_truncation_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let spill_dir = spill_dir(&dir);
        let records: Vec<Record> = (0..5u32)
            .map(|i| Record {
                band: i % 2,
                key: u64::from(i) * 0x0123_4567_89ab_cdef,
                doc: i,
            })
            .collect();
        let mut sorted = records.clone();
        sorted.sort_unstable();
        // The run as its writer leaves it, number 1, and its bytes.
        let written = || {
            let mut out = RunWriter::create(&spill_dir, 1).unwrap();
            for &r in &sorted {
                out.write(r).unwrap();
            }
            out.finish().unwrap()
        };
        let run = written();
        let mut good = Vec::new();
        (&run.file).seek(SeekFrom::Start(0)).unwrap();
        (&run.file).read_to_end(&mut good).unwrap();
        assert_eq!(good.len(), 16 * 5 + 16);
        assert_eq!(merged(Merger::open(vec![run]).unwrap()).unwrap(), sorted);

        let check = |bytes: &[u8], what: &str| {
            let run = written();
            run.file.set_len(0).unwrap();
            (&run.file).seek(SeekFrom::Start(0)).unwrap();
            (&run.file).write_all(bytes).unwrap();
            let e = Merger::open(vec![run])
                .and_then(merged)
                .expect_err(what)
                .to_string();
            let want = format!("the temp run 1 in '{}' is corrupt", dir.path().display());
            assert!(e.contains(&want), "{what}: {e}");
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
