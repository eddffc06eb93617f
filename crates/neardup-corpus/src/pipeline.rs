//! A corpus's records signed in parallel batches and handed back in input
//! order: the one engine under `neardup sign --jsonl` and `neardup scan`.
//!
//! A reader thread cuts the next batch (reading or decompressing it, or
//! decoding Parquet) while the pool signs this one and the calling thread
//! consumes the last one: a few batches in flight, so memory stays
//! bounded however large the input is. Each worker keeps one state for
//! the whole stream (a [`Signer`] whose buffers, once grown, serve every
//! later batch).

use std::borrow::Cow;
use std::ops::Range;
use std::sync::{mpsc, Mutex};

use neardup::{Backend, Fingerprint, Params, Signer};
use rayon::prelude::*;

use crate::jsonl::{Document, Fields};
use crate::lines::{Batch, Batches, Line, Slices};
use crate::parquet::{Row, RowBatch};
use crate::source::Data;
use crate::{Error, Result};

/// Input goes to the workers in batches of about this many bytes: large
/// enough to keep every thread busy, small enough that memory stays
/// bounded however large the input is.
pub const BATCH_BYTES: usize = 8 << 20;

/// One record of a corpus: a JSONL line, or a Parquet row.
pub enum Record<'b> {
    /// A line, not yet parsed.
    Line(Line<'b>),
    /// A row, its id and text already typed.
    Row(Row<'b>),
}

impl Record<'_> {
    /// The 1-based line or row number.
    pub fn number(&self) -> u64 {
        match self {
            Record::Line(l) => l.number,
            Record::Row(r) => r.number,
        }
    }

    /// The bytes it took in the input (a row: its text's), for progress.
    pub fn len(&self) -> usize {
        match self {
            Record::Line(l) => l.bytes.len(),
            Record::Row(r) => r.text.len(),
        }
    }

    /// Whether it took no bytes (never a line; an empty row).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The line, for a record that must be one (a signature line).
    pub fn line(&self) -> Result<&Line<'_>> {
        match self {
            Record::Line(l) => Ok(l),
            Record::Row(r) => Err(Error::line(
                r.number,
                "a Parquet row is not a signature line",
            )),
        }
    }

    /// The document it holds: a line parsed with `fields`, or a row as it
    /// is.
    pub fn document(&self, fields: Fields<'_>) -> Result<Document<'_>> {
        match self {
            Record::Line(l) => fields.parse(l),
            Record::Row(r) => Ok(Document {
                id: r.id.clone(),
                text: Cow::Borrowed(r.text),
            }),
        }
    }
}

/// What the reader thread hands on.
enum Chunk<'m> {
    Lines(Batch<'m>),
    Rows(RowBatch),
}

/// Records go to a worker this many at a time, so that the worker can
/// treat them as one batch (the signer hashes their shingles together)...
const CHUNK_RECORDS: usize = 32;

/// ... or fewer, when they reach this many bytes: chunks of about equal
/// work, so that no thread is left with a long one at the end of a batch
/// while the others wait.
const CHUNK_BYTES: usize = 64 << 10;

/// `records` cut into chunks of [`CHUNK_RECORDS`] records or
/// [`CHUNK_BYTES`] bytes, largest first: a long record then starts early,
/// and the small chunks fill in around it.
fn chunks(records: &[Record<'_>]) -> Vec<Range<usize>> {
    let mut chunks = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, record) in records.iter().enumerate() {
        bytes += record.len();
        if i + 1 - start == CHUNK_RECORDS || bytes >= CHUNK_BYTES || i + 1 == records.len() {
            chunks.push((bytes, start..i + 1));
            (start, bytes) = (i + 1, 0);
        }
    }
    chunks.sort_by_key(|&(bytes, _)| std::cmp::Reverse(bytes));
    chunks.into_iter().map(|(_, range)| range).collect()
}

/// The lines of a chunk of a mapped file, copied into `buf`: a `str` is
/// made only of bytes that cannot change under it. The lines of a chunk
/// lie in one span of the batch, so this is one copy, into a buffer the
/// worker keeps, while the span is in cache anyway.
fn copied<'b>(records: &[Record<'_>], buf: &'b mut Vec<u8>) -> Vec<Record<'b>> {
    let span = |r: &Record<'_>| match r {
        Record::Line(l) => l.bytes.as_ptr() as usize..l.bytes.as_ptr() as usize + l.bytes.len(),
        Record::Row(_) => 0..0,
    };
    let (Some(first), Some(last)) = (records.first(), records.last()) else {
        return Vec::new();
    };
    let (start, end) = (span(first).start, span(last).end);
    buf.clear();
    for r in records {
        if let Record::Line(l) = r {
            let at = span(r).start - start;
            buf.resize(at, 0);
            buf.extend_from_slice(l.bytes);
        }
    }
    debug_assert!(buf.len() == end - start);
    let buf: &'b [u8] = buf;
    records
        .iter()
        .map(|r| match r {
            Record::Line(l) => {
                let at = span(r).start - start;
                Record::Line(Line {
                    number: l.number,
                    bytes: &buf[at..at + l.bytes.len()],
                })
            }
            Record::Row(_) => unreachable!("a mapped file holds lines"),
        })
        .collect()
}

/// A worker's state: the caller's, and the buffer that lines of a mapped
/// file are copied into.
type Worker<S> = (S, Vec<u8>);

/// Streams the records of `data` through `work`, called on up to [`CHUNK_RECORDS`]
/// records at a time on the current rayon pool, giving one result per
/// record, with a state made by `init` once per worker thread. Each
/// result goes to `consume` in input order. The first error stops the
/// stream; `name` names the input in messages, and a line over `max_line`
/// bytes is one.
pub fn pipeline<T: Send, S: Send, E: From<Error>>(
    data: &mut Data,
    name: &str,
    max_line: u64,
    init: impl Fn() -> S + Sync + Send,
    work: impl Fn(&mut S, &[Record<'_>]) -> Vec<Result<T>> + Sync + Send,
    mut consume: impl FnMut(&Record<'_>, T) -> Result<(), E>,
) -> Result<(), E> {
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::sync_channel::<Result<Chunk<'_>>>(2);
        // Used buffers go back to the reader, to be read into again.
        let (give_back, given_back) = mpsc::channel::<Vec<u8>>();
        // The reader thread: it cuts (reads, decompresses, decodes) the
        // next batch while the pool works on this one.
        let mapped = match data {
            Data::Mapped(map) => {
                let map: &memmap2::Mmap = map;
                s.spawn(move || {
                    for batch in Slices::new(map, BATCH_BYTES, max_line) {
                        let batch = batch.map(Chunk::Lines).map_err(|e| Error::io(name, &e));
                        if tx.send(batch).is_err() {
                            break;
                        }
                    }
                });
                Some(map)
            }
            Data::Stream(reader) => {
                s.spawn(move || {
                    let mut batches = Batches::new(reader, BATCH_BYTES).max_line(max_line);
                    while let Some(batch) = batches.next() {
                        let batch = batch.map(Chunk::Lines).map_err(|e| Error::io(name, &e));
                        if tx.send(batch).is_err() {
                            break;
                        }
                        while let Ok(buffer) = given_back.try_recv() {
                            batches.recycle(buffer);
                        }
                    }
                });
                None
            }
            Data::Rows(rows) => {
                s.spawn(move || {
                    for batch in rows {
                        let batch = batch.map(Chunk::Rows).map_err(|e| Error::read(name, e));
                        if tx.send(batch).is_err() {
                            break;
                        }
                    }
                });
                None
            }
        };
        // One state per worker thread: a thread only ever locks its own,
        // and `work` never waits on the pool, so no lock is contended.
        let states: Vec<Mutex<Option<Worker<S>>>> = (0..rayon::current_num_threads())
            .map(|_| Mutex::new(None))
            .collect();
        let run = |records: &[Record<'_>]| {
            let i = rayon::current_thread_index().unwrap_or(0) % states.len();
            let mut state = states[i].lock().unwrap_or_else(|e| e.into_inner());
            let (state, buf) = state.get_or_insert_with(|| (init(), Vec::new()));
            match mapped {
                Some(_) => work(state, &copied(records, buf)),
                None => work(state, records),
            }
        };
        // Batch k is consumed on this thread while the pool works on batch
        // k + 1: `consume` is serial, and the pool would otherwise wait on it.
        let results_of = |chunk: &Chunk<'_>| -> Result<Vec<Result<T>>> {
            let records = records(chunk, name)?;
            let mut results: Vec<(usize, Vec<Result<T>>)> = chunks(&records)
                .into_par_iter()
                .with_max_len(1)
                .map(|r| (r.start, run(&records[r])))
                .collect();
            results.sort_unstable_by_key(|&(start, _)| start);
            Ok(results.into_iter().flat_map(|(_, r)| r).collect())
        };
        let mut finish = |chunk: Chunk<'_>, results: Vec<Result<T>>| -> Result<(), E> {
            for (record, result) in records(&chunk, name)?.iter().zip(results) {
                consume(record, result.map_err(|e| e.within(name))?)?;
            }
            match chunk {
                Chunk::Lines(batch) => match batch.into_bytes() {
                    // The reader may be gone already, at the end.
                    Cow::Owned(buffer) => drop(give_back.send(buffer)),
                    Cow::Borrowed(bytes) => {
                        if let Some(map) = mapped {
                            let start = bytes.as_ptr() as usize - map.as_ptr() as usize;
                            release_pages(map, start..start + bytes.len());
                        }
                    }
                },
                Chunk::Rows(_) => {}
            }
            Ok(())
        };
        let mut rx = rx.into_iter();
        let mut signed: Option<(Chunk<'_>, Vec<Result<T>>)> = None;
        loop {
            // A batch that cannot be read is an error after the batches
            // before it are consumed.
            let next = rx.next().transpose();
            let mut results = None;
            let consumed = rayon::in_place_scope(|s| {
                if let Ok(Some(chunk)) = &next {
                    let results = &mut results;
                    s.spawn(move |_| *results = Some(results_of(chunk)));
                }
                signed
                    .take()
                    .map_or(Ok(()), |(chunk, done)| finish(chunk, done))
            });
            consumed?;
            match (next?, results) {
                (Some(chunk), Some(results)) => signed = Some((chunk, results?)),
                _ => break,
            }
        }
        Ok(())
    })
}

/// The records of a batch, in input order: made once to sign the batch
/// and once to consume it, since records borrow their batch and cannot
/// travel with it (for lines, one more pass of `memchr`).
fn records<'c>(chunk: &'c Chunk<'_>, name: &str) -> Result<Vec<Record<'c>>> {
    Ok(match chunk {
        Chunk::Lines(batch) => batch.lines().map(Record::Line).collect(),
        Chunk::Rows(batch) => {
            let rows = batch.rows().map_err(|e| Error::read(name, e))?;
            rows.into_iter().map(Record::Row).collect()
        }
    })
}

/// Lets the pages of `range`, read and done with, leave the process (the
/// file's pages stay cached), so that reading a corpus does not keep all
/// of it mapped.
fn release_pages(map: &memmap2::Mmap, range: Range<usize>) {
    // SAFETY: the map is read-only and of a file, so a page let go of
    // reads the file's bytes again when touched: nothing a reader holds
    // can change. (memmap2 marks DONTNEED unsafe for writable private
    // maps, whose changes it drops.) Only advice: a failure changes
    // nothing.
    #[allow(unsafe_code)]
    let _ = unsafe {
        map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, range.start, range.len())
    };
}

/// How documents are signed: which fields hold them, with which
/// parameters, on which code path.
#[derive(Clone, Copy)]
pub struct Signing<'a> {
    /// The id and text fields (or columns), and whether invalid UTF-8 is
    /// replaced.
    pub fields: Fields<'a>,
    /// K and N.
    pub params: Params,
    /// The code path; every one gives the same signatures.
    pub backend: Backend,
    /// Whether each document's distinct shingle keys are kept too, for a
    /// scan for containment ([`Signer::keeping_keys`]).
    pub keys: bool,
}

/// [`pipeline`] that signs each record's document, a chunk at a time as
/// one batch of the worker's [`Signer`], and hands its id (as the input
/// wrote it), fingerprint and shingle keys (empty unless
/// [`Signing::keys`]) to `make`, on the worker; `make`'s result
/// goes to `consume` in input order. A record that is not a document
/// stops the stream with its error, in its place.
pub fn sign<T: Send, E: From<Error>>(
    data: &mut Data,
    name: &str,
    max_line: u64,
    how: Signing<'_>,
    make: impl Fn(String, Fingerprint, Vec<u64>) -> Result<T> + Sync + Send,
    consume: impl FnMut(&Record<'_>, T) -> Result<(), E>,
) -> Result<(), E> {
    let work = |signer: &mut Signer, records: &[Record<'_>]| -> Vec<Result<T>> {
        let docs: Vec<Result<Document<'_>>> =
            records.iter().map(|r| r.document(how.fields)).collect();
        let texts = docs
            .iter()
            .filter_map(|d| d.as_ref().ok())
            .map(|d| &*d.text);
        let mut fps = signer.sign_all_with_keys(texts).into_iter();
        docs.into_iter()
            .map(|doc| {
                let doc = doc?;
                let (fp, keys) = fps.next().expect("one fingerprint per text");
                make(doc.id, fp, keys)
            })
            .collect()
    };
    let init = || {
        let signer = Signer::new(how.params, how.backend);
        if how.keys {
            signer.keeping_keys()
        } else {
            signer
        }
    };
    pipeline(data, name, max_line, init, work, consume)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The non-blank lines of `bytes`, as one batch holds them.
    fn lines(bytes: &[u8]) -> Vec<Record<'_>> {
        bytes
            .split_inclusive(|&b| b == b'\n')
            .zip(1..)
            .filter(|(l, _)| !l.iter().all(u8::is_ascii_whitespace))
            .map(|(bytes, number)| Record::Line(Line { number, bytes }))
            .collect()
    }

    /// A chunk's lines copied out keep their numbers and bytes, blank
    /// lines between them or not.
    #[test]
    fn copied_lines_are_the_lines() {
        let input = b"a\n\n  \nbb\ncc\n\ndd";
        let records = lines(input);
        for range in [0..4, 1..3, 2..4, 3..4] {
            let mut buf = Vec::new();
            let copy = copied(&records[range.clone()], &mut buf);
            let want: Vec<(u64, &[u8])> = records[range]
                .iter()
                .map(|r| (r.number(), r.line().unwrap().bytes))
                .collect();
            let got: Vec<(u64, &[u8])> = copy
                .iter()
                .map(|r| (r.number(), r.line().unwrap().bytes))
                .collect();
            assert_eq!(got, want);
        }
    }

    /// `lines` numbered lines of about 100 bytes: several batches.
    fn numbered(lines: u64) -> Vec<u8> {
        (1..=lines)
            .flat_map(|i| format!("{i} {}\n", "x".repeat(96)).into_bytes())
            .collect()
    }

    /// Streams `input` through a pipeline whose work reads each line's
    /// number, and fails on line `bad`, and returns what was consumed.
    fn run(input: Vec<u8>, bad: u64) -> (Vec<u64>, Result<()>) {
        let mut data = Data::Stream(Box::new(std::io::Cursor::new(input)));
        let mut seen = Vec::new();
        let work = |_: &mut (), records: &[Record<'_>]| -> Vec<Result<u64>> {
            records
                .iter()
                .map(|r| {
                    let l = r.line()?;
                    let text = std::str::from_utf8(l.bytes).unwrap();
                    let n: u64 = text.split(' ').next().unwrap().parse().unwrap();
                    match n == bad {
                        true => Err(Error::line(l.number, "bad")),
                        false => Ok(n),
                    }
                })
                .collect()
        };
        let got = pipeline(
            &mut data,
            "in",
            1 << 20,
            || (),
            work,
            |r, n| {
                assert_eq!(r.number(), n);
                seen.push(n);
                Ok::<(), Error>(())
            },
        );
        (seen, got)
    }

    /// Over several batches, each consumed while the next is worked on,
    /// every record is consumed once, in input order, and a bad one stops
    /// the stream after every record before it.
    #[test]
    fn batches_are_consumed_in_order_up_to_the_first_error() {
        let lines = 3 * BATCH_BYTES as u64 / 100;
        let (seen, got) = run(numbered(lines), 0);
        got.unwrap();
        assert_eq!(seen, (1..=lines).collect::<Vec<_>>());
        for bad in [1, lines / 2, lines - 1] {
            let (seen, got) = run(numbered(lines), bad);
            assert_eq!(seen, (1..bad).collect::<Vec<_>>());
            let e = got.unwrap_err().to_string();
            assert_eq!(e, format!("'in': line {bad}: bad"));
        }
    }

    /// A batch that cannot be read (here, a line over the limit) is an
    /// error after the batches before it are consumed.
    #[test]
    fn a_batch_that_cannot_be_read_stops_the_stream_after_the_ones_before() {
        let lines = 2 * BATCH_BYTES as u64 / 100;
        let mut input = numbered(lines);
        input.extend(vec![b'y'; 2 << 20]);
        let (seen, got) = run(input, 0);
        let e = got.unwrap_err().to_string();
        assert!(e.contains(&format!("line {} is over", lines + 1)), "{e}");
        assert_eq!(seen, (1..=lines).collect::<Vec<_>>());
    }

    #[test]
    fn chunks_cover_every_record_once() {
        let input: Vec<u8> = (0..200)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let records = lines(&input);
        let mut covered: Vec<usize> = chunks(&records).into_iter().flatten().collect();
        covered.sort_unstable();
        assert_eq!(covered, (0..200).collect::<Vec<_>>());
    }
}
