//! The shingle keys of a scan for containment, spilled as the corpus is
//! signed: one unnamed temp file a key range ([`RANGES`]), each read back
//! on its own as the core's [`Part`] when the join sorts it. Held in
//! memory, the keys (8 bytes a distinct shingle of every document) were
//! the largest thing a containment scan kept; on disk, a scan holds one
//! range at a time per thread, a 64th of them (read, then sorted with
//! their documents: 28 bytes a key of the range, in buffers each thread
//! keeps for its next range). The holders each range gives
//! ([`Repeated`]) wait in temp files too, until the join's lists are laid
//! out and they are placed.
//!
//! A key range's file holds, for each document in order, `count u32` and
//! its `count` keys in the range (`u64`); a holders file, the `u32`
//! holders. All little-endian, then a trailer, the `xxh3 u64` of what
//! precedes it, checked on reading.

use std::fs::File;
use std::hash::Hasher as _;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::mem::take;
use std::sync::{mpsc, Mutex};

use neardup::scan::contained::{range_of, Part, Repeated, Sorting};
use neardup_corpus::describe;
use twox_hash::XxHash3_64;

use crate::error::{message, Error, Result};
use crate::spill::SpillDir;

/// The key ranges the keys are spilled by: their top 6 bits.
const RANGES: u32 = 64;

/// Each document's keys, a temp file a key range.
pub(crate) struct KeyFiles {
    /// Each range's documents not yet written, as the file holds them:
    /// sent to be written a [`KeyFiles::CHUNK`] at a time, since a
    /// document has only a few keys in each range.
    pending: Vec<Vec<u8>>,
    /// The thread that writes (and hashes) the files: the corpus is read
    /// on one thread, which waited on 2.4 GB of writes for 1M documents
    /// (7 s, the signing stopped meanwhile).
    writer: Option<Writer>,
}

/// The writer thread, and where its chunks go.
struct Writer {
    chunks: mpsc::SyncSender<(usize, Vec<u8>)>,
    /// Chunks written, to be filled again (behind a lock only so that a
    /// corpus can be shared between threads: only its reader takes them).
    spare: Mutex<mpsc::Receiver<Vec<u8>>>,
    thread: std::thread::JoinHandle<Result<Vec<Checked>>>,
}

impl KeyFiles {
    const CHUNK: usize = 64 << 10;

    /// No documents yet: one empty file a key range in `dir`.
    pub fn new(dir: &SpillDir) -> Result<KeyFiles> {
        let mut files: Vec<Checked> = (0..RANGES as usize)
            .map(|p| Checked::create(dir, format!("keys {p}")))
            .collect::<Result<_>>()?;
        // A few chunks a range in flight at most.
        let (chunks, to_write) = mpsc::sync_channel::<(usize, Vec<u8>)>(4 * RANGES as usize);
        let (give_back, spare) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            for (range, mut chunk) in to_write {
                files[range].write(&chunk)?;
                chunk.clear();
                // The reader may be done with them.
                let _ = give_back.send(chunk);
            }
            Ok(files)
        });
        Ok(KeyFiles {
            pending: vec![Vec::with_capacity(2 * KeyFiles::CHUNK); RANGES as usize],
            writer: Some(Writer {
                chunks,
                spare: Mutex::new(spare),
                thread,
            }),
        })
    }

    /// Adds the next document's keys.
    pub fn push(&mut self, keys: &Grouped) -> Result<()> {
        let mut start = 0;
        for (range, &end) in keys.ends.iter().enumerate() {
            let p = &mut self.pending[range];
            p.extend_from_slice(&keys.bytes[start..end]);
            start = end;
            if p.len() >= KeyFiles::CHUNK {
                self.send(range)?;
            }
        }
        Ok(())
    }

    /// Sends range `range`'s pending bytes to be written.
    fn send(&mut self, range: usize) -> Result<()> {
        let writer = self.writer.as_ref().expect("sending before finish");
        let next = writer
            .spare
            .lock()
            .ok()
            .and_then(|spare| spare.try_recv().ok())
            .unwrap_or_else(|| Vec::with_capacity(2 * KeyFiles::CHUNK));
        let chunk = std::mem::replace(&mut self.pending[range], next);
        if writer.chunks.send((range, chunk)).is_err() {
            // The writer stops early only on an error, which it returns.
            return Err(self
                .join()
                .err()
                .unwrap_or_else(|| message!("the key writer stopped")));
        }
        Ok(())
    }

    /// The writer's files, once all it was sent is written.
    fn join(&mut self) -> Result<Vec<Checked>> {
        let Writer { chunks, thread, .. } = self.writer.take().expect("joined once");
        drop(chunks);
        thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }

    /// The key ranges written, in order, each to be read back once.
    pub fn finish(mut self) -> Result<Vec<Spilled>> {
        for range in 0..RANGES as usize {
            self.send(range)?;
        }
        self.join()?.into_iter().map(Checked::finish).collect()
    }
}

/// One document's distinct keys as the key files hold them: each range's
/// count and keys, one range after the other. Made on the thread that
/// signed the document, so that the one thread that reads the corpus in
/// order only copies each range's bytes to its file (routing each key
/// there was a third of its time).
pub(crate) struct Grouped {
    bytes: Vec<u8>,
    /// Where each range's bytes end.
    ends: [usize; RANGES as usize],
}

impl Grouped {
    /// `keys` grouped when a scan keeps them (`keeping`), else nothing.
    pub fn kept(keeping: bool, keys: &[u64]) -> Option<Grouped> {
        keeping.then(|| Grouped::new(keys))
    }

    /// `keys`, in any order, grouped.
    pub fn new(keys: &[u64]) -> Grouped {
        let mut counts = [0u32; RANGES as usize];
        for &k in keys {
            counts[range_of(k, RANGES)] += 1;
        }
        let (mut bytes, mut at) = (vec![0; 4 * RANGES as usize + 8 * keys.len()], 0);
        let mut next = [0usize; RANGES as usize];
        let ends = std::array::from_fn(|r| {
            // No text has 2^32 shingles in a 64th of the key space.
            bytes[at..at + 4].copy_from_slice(&counts[r].to_le_bytes());
            next[r] = at + 4;
            at += 4 + 8 * counts[r] as usize;
            at
        });
        for &k in keys {
            let at = &mut next[range_of(k, RANGES)];
            bytes[*at..*at + 8].copy_from_slice(&k.to_le_bytes());
            *at += 8;
        }
        Grouped { bytes, ends }
    }
}

/// Writes one key range's holders to a temp file, keeping its counts:
/// what [`Spilled::holders`] reads back.
pub(crate) fn spill_holders(dir: &SpillDir, range: usize, r: &Repeated) -> Result<Spilled> {
    let mut file = Checked::create(dir, format!("holders {range}"))?;
    let mut bytes = Vec::with_capacity(KeyFiles::CHUNK);
    for some in r.holders().chunks(KeyFiles::CHUNK / 4) {
        bytes.clear();
        bytes.extend(some.iter().flat_map(|h| h.to_le_bytes()));
        file.write(&bytes)?;
    }
    file.finish()
}

/// One thread's buffers for reading and sorting key ranges, kept from
/// one range to the next: each fresh page is a fault, and fresh buffers
/// for each of a 1M-document scan's 64 ranges were 2.6M faults and 22 s
/// of system time.
#[derive(Default)]
pub(crate) struct RangeBuffers {
    bytes: Vec<u8>,
    keys: Vec<u64>,
    counts: Vec<u32>,
    /// What the core sorts in.
    pub sorting: Sorting,
}

impl RangeBuffers {
    /// Takes back the buffers of a [`Part`] read with [`Spilled::part`].
    pub fn keep(&mut self, part: Part) {
        (self.keys, self.counts) = part.into_counts();
    }
}

/// A temp file written, to be read back once.
pub(crate) struct Spilled {
    file: File,
    what: String,
    dir: SpillDir,
}

impl Spilled {
    /// A key range's keys, as the core's [`Part`], in `buffers`' memory
    /// (given back with [`RangeBuffers::keep`]).
    pub fn part(mut self, buffers: &mut RangeBuffers) -> Result<Part> {
        self.read_into(&mut buffers.bytes)?;
        let (mut keys, mut counts) = (take(&mut buffers.keys), take(&mut buffers.counts));
        keys.clear();
        counts.clear();
        let mut rest = &buffers.bytes[..];
        while let Some((count, after)) = rest.split_first_chunk::<4>() {
            let n = u32::from_le_bytes(*count);
            let Some((these, after)) = after.split_at_checked(8 * n as usize) else {
                return Err(self.corrupt("it ends inside a document's keys"));
            };
            keys.extend(
                these
                    .chunks_exact(8)
                    .map(|k| u64::from_le_bytes(k.try_into().expect("chunks of 8 bytes"))),
            );
            counts.push(n);
            rest = after;
        }
        if !rest.is_empty() {
            return Err(self.corrupt("it ends inside a document's count"));
        }
        Ok(Part::from_counts(keys, counts))
    }

    /// A key range's holders.
    pub fn holders(mut self) -> Result<Vec<u32>> {
        let bytes = self.read()?;
        if bytes.len() % 4 != 0 {
            return Err(self.corrupt("it ends inside a holder"));
        }
        Ok(bytes
            .chunks_exact(4)
            .map(|h| u32::from_le_bytes(h.try_into().expect("chunks of 4 bytes")))
            .collect())
    }

    /// The file's bytes but its trailer, checked against it.
    fn read(&mut self) -> Result<Vec<u8>> {
        let mut bytes = Vec::new();
        self.read_into(&mut bytes)?;
        Ok(bytes)
    }

    /// [`Spilled::read`] into `bytes`, whatever they held.
    fn read_into(&mut self, bytes: &mut Vec<u8>) -> Result<()> {
        bytes.clear();
        self.file
            .seek(SeekFrom::Start(0))
            .and_then(|_| self.file.read_to_end(bytes))
            .map_err(|e| fail(&self.dir, &self.what, "reading", &e))?;
        let Some(at) = bytes.len().checked_sub(8) else {
            return Err(self.corrupt("it is shorter than its checksum"));
        };
        let mut hash = XxHash3_64::with_seed(0);
        hash.write(&bytes[..at]);
        if bytes[at..] != hash.finish().to_le_bytes() {
            return Err(self.corrupt(
                "its checksum does not match its contents (changed after it was written?)",
            ));
        }
        bytes.truncate(at);
        Ok(())
    }

    fn corrupt(&self, why: &str) -> Error {
        message!(
            "the temp {} in '{}' is damaged: {why}",
            self.what,
            self.dir.path().display()
        )
    }
}

/// A temp file being written, with the checksum of what it holds.
struct Checked {
    out: BufWriter<File>,
    hash: XxHash3_64,
    what: String,
    dir: SpillDir,
}

impl Checked {
    fn create(dir: &SpillDir, what: String) -> Result<Checked> {
        let file = dir.file().map_err(|e| fail(dir, &what, "writing", &e))?;
        Ok(Checked {
            out: BufWriter::with_capacity(64 << 10, file),
            hash: XxHash3_64::with_seed(0),
            what,
            dir: dir.clone(),
        })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.hash.write(bytes);
        self.out
            .write_all(bytes)
            .map_err(|e| fail(&self.dir, &self.what, "writing", &e))
    }

    fn finish(self) -> Result<Spilled> {
        let Checked {
            mut out,
            hash,
            what,
            dir,
        } = self;
        let file = out
            .write_all(&hash.finish().to_le_bytes())
            .and_then(|()| out.into_inner().map_err(io::IntoInnerError::into_error))
            .map_err(|e| fail(&dir, &what, "writing", &e))?;
        Ok(Spilled { file, what, dir })
    }
}

/// A temp file that failed to be written or read.
fn fail(dir: &SpillDir, what: &str, doing: &str, e: &io::Error) -> Error {
    message!(
        "{doing} the temp {what} in '{}': {} (see --temp-dir)",
        dir.path().display(),
        describe(e)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> (tempfile::TempDir, SpillDir) {
        let dir = tempfile::tempdir().unwrap();
        let spill = SpillDir::new(dir.path().to_owned()).unwrap();
        (dir, spill)
    }

    /// Keys of every range, documents with none in some ranges among them.
    fn documents() -> Vec<Vec<u64>> {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        (0..50)
            .map(|d| {
                (0..d * 7)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        x
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn each_range_reads_back_as_pushed() {
        let (_dir, spill) = dir();
        let docs = documents();
        let mut files = KeyFiles::new(&spill).unwrap();
        docs.iter()
            .for_each(|d| files.push(&Grouped::new(d)).unwrap());
        let ranges = files.finish().unwrap();
        assert_eq!(ranges.len(), RANGES as usize);
        for (r, file) in ranges.into_iter().enumerate() {
            let mut want = Part::default();
            for d in &docs {
                let keys: Vec<u64> = d
                    .iter()
                    .copied()
                    .filter(|&k| range_of(k, RANGES) == r)
                    .collect();
                want.push(&keys);
            }
            let part = file.part(&mut RangeBuffers::default()).unwrap();
            assert_eq!(part, want, "range {r}");
        }
    }

    #[test]
    fn a_damaged_file_is_refused_in_one_line() {
        let (_dir, spill) = dir();
        let mut files = KeyFiles::new(&spill).unwrap();
        documents()
            .iter()
            .for_each(|d| files.push(&Grouped::new(d)).unwrap());
        let mut ranges = files.finish().unwrap();
        let mut file = ranges.swap_remove(3);
        let mut byte = [0u8];
        file.file.seek(SeekFrom::Start(9)).unwrap();
        file.file.read_exact(&mut byte).unwrap();
        file.file.seek(SeekFrom::Start(9)).unwrap();
        file.file.write_all(&[!byte[0]]).unwrap();
        let err = file
            .part(&mut RangeBuffers::default())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("the temp keys 3 in '"), "{err}");
        assert!(err.ends_with("is damaged: its checksum does not match its contents (changed after it was written?)"), "{err}");
        assert!(!err.contains('\n'));

        let repeated = Repeated::new(vec![2, 3], vec![0, 1, 0, 1, 2]);
        let holders = spill_holders(&spill, 5, &repeated).unwrap();
        holders.file.set_len(10).unwrap();
        let err = holders.holders().unwrap_err().to_string();
        assert!(err.contains("the temp holders 5 in '"), "{err}");
    }

    #[test]
    fn holders_read_back_as_written() {
        let (_dir, spill) = dir();
        let repeated = Repeated::new(vec![2, 3], vec![0, 1, 0, 1, 2]);
        let file = spill_holders(&spill, 0, &repeated).unwrap();
        assert_eq!(file.holders().unwrap(), [0, 1, 0, 1, 2]);
    }
}
