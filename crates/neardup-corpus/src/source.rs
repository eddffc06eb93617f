//! A corpus file opened for reading: its format sniffed from its first
//! bytes, then its records, JSONL lines (mapped, read or decompressed) or
//! Parquet rows. Decompression and Parquet decoding run in the reader
//! thread of [`crate::pipeline`], beside the workers that sign, so they do
//! not slow signing while there is a core for them.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::Path;

use neardup::SignatureRecord;

use crate::compressed::{Counted, Decoded};
use crate::format::Format;
use crate::parquet::{ParquetLines, Rows};
use crate::text::{display_name, is_stdin};
use crate::{Error, Result};

// Callers name the columns where they open a source: the type lives in
// `jsonl`, beside the fields it is made from, so that `parquet` and this
// module both take it from below.
pub use crate::jsonl::Columns;

/// A corpus opened for reading.
pub struct Source {
    /// Its records.
    pub data: Data,
    /// What the file holds.
    pub format: Format,
    /// Its size on disk, when that says how far the reading has got (plain
    /// JSONL files only): for a progress bar.
    pub total: Option<u64>,
}

/// A corpus's records.
pub enum Data {
    /// A plain JSONL file, mapped, as ripgrep maps a large file: its lines
    /// are cut where they lie in the page cache. Reading it would copy
    /// every byte into a buffer first, on the reader thread, which beside
    /// two signing threads on two cores takes time from them. The map
    /// stays bytes: a worker copies its lines out before they are checked
    /// as UTF-8 and read as `str` (see [`crate::pipeline`]), so another
    /// process rewriting the file can garble a document, never memory.
    Mapped(memmap2::Mmap),
    /// JSONL lines from standard input, a pipe, or a decompressor.
    Stream(Box<dyn BufRead + Send>),
    /// A Parquet file's id and text columns.
    Rows(Rows),
}

impl Data {
    /// The records as one stream of JSONL lines (Parquet rows written as
    /// `{"<id>": ID, "<text>": TEXT}` lines): what a deduped copy of the
    /// corpus is made of.
    pub fn into_reader(self) -> Box<dyn BufRead + Send> {
        match self {
            Data::Mapped(map) => Box::new(Cursor::new(map)),
            Data::Stream(reader) => reader,
            Data::Rows(rows) => {
                Box::new(BufReader::with_capacity(1 << 20, ParquetLines::new(rows)))
            }
        }
    }
}

/// Opens a corpus file, or stdin for `-`, sniffing its format from its
/// first bytes.
pub fn open(path: &Path, columns: Columns<'_>) -> Result<Source> {
    let name = display_name(path);
    let fail = |e: io::Error| Error::io(&name, &e);
    let (file, size, mappable) = if is_stdin(path) {
        (None, None, false)
    } else {
        let meta = std::fs::metadata(path).map_err(fail)?;
        if meta.is_dir() {
            return Err(Error::read(&name, "it is a directory, not a file"));
        }
        let file = File::open(path).map_err(fail)?;
        (
            Some(file),
            Some(meta.len()),
            meta.is_file() && meta.len() > 0,
        )
    };
    let mut head = Vec::with_capacity(4);
    match &file {
        Some(file) => file.take(4).read_to_end(&mut head),
        None => io::stdin().take(4).read_to_end(&mut head),
    }
    .map_err(fail)?;
    let format = Format::sniff(&head);
    if let Some(file) = file
        .as_ref()
        .filter(|_| mappable && format == Format::Jsonl)
    {
        // SAFETY: the map is only read, and only as bytes (see
        // `Data::Mapped`). A file truncated while mapped can still raise
        // SIGBUS, as in every program that maps files.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(file) }.map_err(fail)?;
        return Ok(Source {
            total: Some(map.len() as u64),
            data: Data::Mapped(map),
            format,
        });
    }
    if format == Format::Parquet {
        let Some(file) = file else {
            return Err(Error::read(
                "-",
                "Parquet needs a file it can seek in; pass the file's path",
            ));
        };
        let rows = Rows::open(file, columns).map_err(|e| Error::read(&name, e))?;
        return Ok(Source {
            data: Data::Rows(rows),
            format,
            total: None,
        });
    }
    let raw: Box<dyn Read + Send> = match file {
        Some(file) => Box::new(file),
        None => Box::new(io::stdin()),
    };
    let raw = Cursor::new(head).chain(raw);
    let lines: Box<dyn BufRead + Send> = match format {
        Format::Gzip => {
            let (counted, at) = Counted::new(raw);
            let decoder =
                flate2::read::MultiGzDecoder::new(BufReader::with_capacity(1 << 16, counted));
            Box::new(BufReader::with_capacity(
                1 << 20,
                Decoded::new(decoder, format, at),
            ))
        }
        Format::Zstd => {
            let (counted, at) = Counted::new(raw);
            let decoder = zstd::stream::read::Decoder::new(counted).map_err(fail)?;
            Box::new(BufReader::with_capacity(
                1 << 20,
                Decoded::new(decoder, format, at),
            ))
        }
        Format::Jsonl | Format::Parquet => Box::new(BufReader::with_capacity(1 << 20, raw)),
    };
    Ok(Source {
        data: Data::Stream(lines),
        format,
        total: size.filter(|_| format == Format::Jsonl),
    })
}

impl Source {
    /// Whether the corpus holds signature lines (`neardup sign --jsonl`'s
    /// output) rather than documents, told by its first non-blank line,
    /// read no further than `cap` bytes. A stream gets the line back in
    /// front, so nothing is lost; a Parquet file holds documents.
    pub fn holds_signatures(&mut self, name: &str, cap: u64) -> Result<bool> {
        let fail = |e: io::Error| Error::io(name, &e);
        match &mut self.data {
            Data::Mapped(map) => Ok(SignatureRecord::looks_like(
                &first_line(&mut &map[..], cap).map_err(fail)?,
            )),
            Data::Stream(reader) => {
                let head = first_line(reader, cap).map_err(fail)?;
                let yes = SignatureRecord::looks_like(&head);
                let rest = std::mem::replace(reader, Box::new(io::empty()));
                *reader = Box::new(BufReader::new(Replay { head, at: 0, rest }));
                Ok(yes)
            }
            Data::Rows(_) => Ok(false),
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn read_all(bytes: Vec<u8>) -> io::Result<Vec<u8>> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c");
        std::fs::write(&path, bytes).unwrap();
        let cols = Columns {
            id: "id",
            text: "text",
        };
        let s = open(&path, cols).map_err(io::Error::other)?;
        let mut out = Vec::new();
        s.data.into_reader().read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn members_and_frames_concatenate() {
        let mut two = gz(b"{\"a\":1}\n");
        two.extend(gz(b"{\"a\":2}\n"));
        assert_eq!(read_all(two).unwrap(), b"{\"a\":1}\n{\"a\":2}\n");
        let mut z = zstd::encode_all(&b"x\n"[..], 3).unwrap();
        z.extend(zstd::encode_all(&b"y\n"[..], 3).unwrap());
        assert_eq!(read_all(z).unwrap(), b"x\ny\n");
        assert_eq!(read_all(b"ab".to_vec()).unwrap(), b"ab");
        assert_eq!(read_all(Vec::new()).unwrap(), b"");
    }

    #[test]
    fn truncated_and_corrupt_streams_fail() {
        let data: Vec<u8> = (0..20_000u32)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let whole = gz(&data);
        let e = read_all(whole[..whole.len() / 2].to_vec())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("truncated gzip stream, at or before compressed byte"),
            "{e}"
        );
        let mut bad = whole.clone();
        bad[20] ^= 0xff;
        bad[21] ^= 0xff;
        assert!(read_all(bad).is_err());
        let z = zstd::encode_all(&data[..], 3).unwrap();
        let e = read_all(z[..z.len() - 10].to_vec())
            .unwrap_err()
            .to_string();
        assert!(e.contains("zstd stream"), "{e}");
        let mut bad = z.clone();
        let mid = bad.len() / 2;
        bad[mid] ^= 0x55;
        assert!(read_all(bad).is_err());
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
}
