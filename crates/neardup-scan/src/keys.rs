//! The shingle keys of a scan for containment, spilled as the corpus is
//! signed: one unnamed temp file a key range ([`RANGES`]), each read back
//! on its own as the core's [`Part`] when the join sorts it. Held in
//! memory, the keys (8 bytes a distinct shingle of every document) were
//! the largest thing a containment scan kept; on disk, a scan holds one
//! range at a time per thread, a 64th of them (sorted with their
//! documents: 24 bytes a key of the range). The holders each range gives
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

use neardup::scan::contained::{range_of, Part, Repeated};
use neardup_corpus::describe;
use twox_hash::XxHash3_64;

use crate::error::{message, Error, Result};
use crate::spill::SpillDir;

/// The key ranges the keys are spilled by: their top 6 bits.
const RANGES: u32 = 64;

/// Each document's keys, a temp file a key range.
pub(crate) struct KeyFiles {
    files: Vec<Checked>,
    /// Each range's documents not yet written, as the file holds them:
    /// written (and hashed) a [`KeyFiles::CHUNK`] at a time, since a
    /// document has only a few keys in each range and the corpus is read
    /// on one thread.
    pending: Vec<Vec<u8>>,
}

impl KeyFiles {
    const CHUNK: usize = 64 << 10;

    /// No documents yet: one empty file a key range in `dir`.
    pub fn new(dir: &SpillDir) -> Result<KeyFiles> {
        let files = (0..RANGES as usize)
            .map(|p| Checked::create(dir, format!("keys {p}")))
            .collect::<Result<_>>()?;
        Ok(KeyFiles {
            files,
            pending: vec![Vec::with_capacity(2 * KeyFiles::CHUNK); RANGES as usize],
        })
    }

    /// Adds the next document's distinct keys, in any order.
    pub fn push(&mut self, keys: &[u64]) -> Result<()> {
        let starts: [usize; RANGES as usize] = std::array::from_fn(|r| {
            let p = &mut self.pending[r];
            p.extend([0; 4]);
            p.len()
        });
        for &k in keys {
            self.pending[range_of(k, RANGES)].extend(k.to_le_bytes());
        }
        for ((file, p), start) in self.files.iter_mut().zip(&mut self.pending).zip(starts) {
            // No text has 2^32 shingles in a 64th of the key space.
            let count = ((p.len() - start) / 8) as u32;
            p[start - 4..start].copy_from_slice(&count.to_le_bytes());
            if p.len() >= KeyFiles::CHUNK {
                file.write(p)?;
                p.clear();
            }
        }
        Ok(())
    }

    /// The key ranges written, in order, each to be read back once.
    pub fn finish(self) -> Result<Vec<Spilled>> {
        self.files
            .into_iter()
            .zip(self.pending)
            .map(|(mut file, p)| {
                file.write(&p)?;
                file.finish()
            })
            .collect()
    }
}

/// Writes one key range's holders to a temp file, keeping its counts:
/// what [`Spilled::holders`] reads back.
pub(crate) fn spill_holders(dir: &SpillDir, range: usize, r: &Repeated) -> Result<Spilled> {
    let mut file = Checked::create(dir, format!("holders {range}"))?;
    let bytes: Vec<u8> = r.holders().iter().flat_map(|h| h.to_le_bytes()).collect();
    file.write(&bytes)?;
    file.finish()
}

/// A temp file written, to be read back once.
pub(crate) struct Spilled {
    file: File,
    what: String,
    dir: SpillDir,
}

impl Spilled {
    /// A key range's keys, as the core's [`Part`].
    pub fn part(mut self) -> Result<Part> {
        let bytes = self.read()?;
        let mut part = Part::default();
        let (mut rest, mut keys) = (&bytes[..], Vec::new());
        while let Some((count, after)) = rest.split_first_chunk::<4>() {
            let n = u32::from_le_bytes(*count) as usize;
            let Some((these, after)) = after.split_at_checked(8 * n) else {
                return Err(self.corrupt("it ends inside a document's keys"));
            };
            keys.clear();
            keys.extend(
                these
                    .chunks_exact(8)
                    .map(|k| u64::from_le_bytes(k.try_into().expect("chunks of 8 bytes"))),
            );
            part.push(&keys);
            rest = after;
        }
        if !rest.is_empty() {
            return Err(self.corrupt("it ends inside a document's count"));
        }
        Ok(part)
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
        self.file
            .seek(SeekFrom::Start(0))
            .and_then(|_| self.file.read_to_end(&mut bytes))
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
        Ok(bytes)
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
        docs.iter().for_each(|d| files.push(d).unwrap());
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
            assert_eq!(file.part().unwrap(), want, "range {r}");
        }
    }

    #[test]
    fn a_damaged_file_is_refused_in_one_line() {
        let (_dir, spill) = dir();
        let mut files = KeyFiles::new(&spill).unwrap();
        documents().iter().for_each(|d| files.push(d).unwrap());
        let mut ranges = files.finish().unwrap();
        let mut file = ranges.swap_remove(3);
        let mut byte = [0u8];
        file.file.seek(SeekFrom::Start(9)).unwrap();
        file.file.read_exact(&mut byte).unwrap();
        file.file.seek(SeekFrom::Start(9)).unwrap();
        file.file.write_all(&[!byte[0]]).unwrap();
        let err = file.part().unwrap_err().to_string();
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
