//! Corpus file formats: JSONL, plain or compressed with gzip or zstd, and
//! Parquet. A corpus is recognised by its first bytes, never by its name
//! alone, and read as one stream of JSONL lines whatever its format, so
//! that signing and scanning see the same documents in every format.
//!
//! Decompression and Parquet decoding run in the reader thread of
//! [`crate::jsonl::pipeline`], beside the workers that sign, so they do not
//! slow signing while there is a core for them.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::{anyhow, bail, Result};

use crate::input::{describe, display_name, is_stdin};
use crate::jsonl::{Lines, Mapped};

mod parquet;

pub use self::parquet::{write_deduped_parquet, ParquetLines};

/// What a corpus file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Jsonl,
    Gzip,
    Zstd,
    Parquet,
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
const PARQUET_MAGIC: [u8; 4] = *b"PAR1";

impl Format {
    /// The format whose magic bytes `head` starts with; JSONL otherwise.
    pub fn sniff(head: &[u8]) -> Format {
        if head.starts_with(&GZIP_MAGIC) {
            Format::Gzip
        } else if head.starts_with(&ZSTD_MAGIC) {
            Format::Zstd
        } else if head.starts_with(&PARQUET_MAGIC) {
            Format::Parquet
        } else {
            Format::Jsonl
        }
    }

    /// The format a file name asks for: `.gz`, `.zst`, `.parquet`; `None`
    /// for any other name.
    pub fn of_name(path: &Path) -> Option<Format> {
        let name = path.file_name()?.to_str()?;
        if name.ends_with(".gz") {
            Some(Format::Gzip)
        } else if name.ends_with(".zst") || name.ends_with(".zstd") {
            Some(Format::Zstd)
        } else if name.ends_with(".parquet") {
            Some(Format::Parquet)
        } else if name.ends_with(".jsonl") || name.ends_with(".ndjson") {
            Some(Format::Jsonl)
        } else {
            None
        }
    }

    /// Whether a file in a directory input is read as a corpus rather than
    /// as one text document: `.jsonl`, `.jsonl.gz`, `.jsonl.zst` and
    /// `.parquet` files (and their `.ndjson` spellings).
    pub fn is_corpus_name(path: &Path) -> bool {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            return false;
        };
        [
            ".jsonl",
            ".jsonl.gz",
            ".jsonl.zst",
            ".ndjson",
            ".ndjson.gz",
            ".ndjson.zst",
            ".parquet",
        ]
        .iter()
        .any(|ext| name.ends_with(ext))
    }

    fn name(self) -> &'static str {
        match self {
            Format::Jsonl => "JSONL",
            Format::Gzip => "gzip",
            Format::Zstd => "zstd",
            Format::Parquet => "Parquet",
        }
    }
}

/// Which Parquet columns hold the id and the text.
#[derive(Debug, Clone, Copy)]
pub struct Columns<'a> {
    pub id: &'a str,
    pub text: &'a str,
}

/// A corpus opened for reading: its lines, its format, and its size on
/// disk when that says how far the reading has got (plain files only).
pub struct Source {
    pub data: Data,
    pub format: Format,
    pub total: Option<u64>,
}

/// A corpus's JSONL bytes.
pub enum Data {
    /// A plain JSONL file, mapped, as ripgrep maps a large file: its lines
    /// are read where they lie in the page cache. Reading it would copy
    /// every byte into a buffer first, on the reader thread, which beside
    /// two signing threads on two cores takes time from them.
    Mapped(memmap2::Mmap),
    /// Standard input, a pipe, or decompressed or decoded lines.
    Stream(Box<dyn BufRead + Send>),
}

impl Data {
    /// The lines, for [`crate::jsonl::pipeline`].
    pub fn lines(&mut self) -> Lines<'_> {
        match self {
            Data::Mapped(map) => Lines::Mapped(map),
            Data::Stream(reader) => Lines::Stream(&mut **reader),
        }
    }

    /// The bytes as one stream.
    pub fn into_reader(self) -> Box<dyn BufRead + Send> {
        match self {
            Data::Mapped(map) => Box::new(Cursor::new(map)),
            Data::Stream(reader) => reader,
        }
    }
}

impl Mapped for memmap2::Mmap {
    fn bytes(&self) -> &[u8] {
        self
    }

    fn release(&self, range: std::ops::Range<usize>) {
        // SAFETY: the map is read-only and of a file, so a page let go of
        // reads the file's bytes again when touched: nothing a reader
        // holds can change. (memmap2 marks DONTNEED unsafe for writable
        // private maps, whose changes it drops.) Only advice: a failure
        // changes nothing.
        #[allow(unsafe_code)]
        let _ = unsafe {
            self.unchecked_advise_range(
                memmap2::UncheckedAdvice::DontNeed,
                range.start,
                range.len(),
            )
        };
    }
}

/// Opens a corpus file, or stdin for `-`, as JSONL lines.
pub fn open(path: &Path, columns: Columns<'_>) -> Result<Source> {
    let name = display_name(path);
    let fail = |e: io::Error| anyhow!("reading '{name}': {}", describe(&e));
    let (file, size, mappable) = if is_stdin(path) {
        (None, None, false)
    } else {
        let meta = std::fs::metadata(path).map_err(fail)?;
        if meta.is_dir() {
            bail!("reading '{name}': it is a directory, not a file");
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
        // SAFETY: the map is only read. Like every program that maps a
        // file, this trusts that no other process truncates or rewrites
        // the file while it is being read.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(file) }.map_err(fail)?;
        return Ok(Source {
            total: Some(map.len() as u64),
            data: Data::Mapped(map),
            format,
        });
    }
    let raw: Box<dyn Read + Send> = match file {
        Some(file) => Box::new(file),
        None => Box::new(io::stdin()),
    };
    let raw = Cursor::new(head).chain(raw);
    let lines: Box<dyn BufRead + Send> = match format {
        Format::Jsonl => Box::new(BufReader::with_capacity(1 << 20, raw)),
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
        Format::Parquet => {
            if is_stdin(path) {
                bail!("reading standard input: Parquet needs a file it can seek in; pass the file's path");
            }
            let file = File::open(path).map_err(fail)?;
            Box::new(BufReader::with_capacity(
                1 << 20,
                ParquetLines::open(file, columns).map_err(|e| anyhow!("reading '{name}': {e}"))?,
            ))
        }
    };
    Ok(Source {
        data: Data::Stream(lines),
        format,
        total: size.filter(|_| format == Format::Jsonl),
    })
}

/// A reader that counts the bytes read through it, so that a decoding
/// error can say where in the compressed file it happened.
struct Counted<R> {
    inner: R,
    at: Arc<AtomicU64>,
}

impl<R: Read> Counted<R> {
    fn new(inner: R) -> (Counted<R>, Arc<AtomicU64>) {
        let at = Arc::new(AtomicU64::new(0));
        (
            Counted {
                inner,
                at: Arc::clone(&at),
            },
            at,
        )
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.at.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// A decompressor whose errors say which format failed and at which
/// compressed byte, and which refuses a stream that ends early: a truncated
/// corpus must never read as a shorter one.
struct Decoded<R> {
    inner: R,
    format: Format,
    at: Arc<AtomicU64>,
}

impl<R> Decoded<R> {
    fn new(inner: R, format: Format, at: Arc<AtomicU64>) -> Decoded<R> {
        Decoded { inner, format, at }
    }
}

impl<R: Read> Read for Decoded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            let at = self.at.load(Ordering::Relaxed);
            let what = if e.kind() == io::ErrorKind::UnexpectedEof {
                "truncated".to_owned()
            } else {
                format!("corrupt ({})", describe(&e))
            };
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{what} {} stream, at or before compressed byte {at}",
                    self.format.name()
                ),
            )
        })
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
    fn magic_bytes_decide() {
        assert_eq!(Format::sniff(b"\x1f\x8b\x08"), Format::Gzip);
        assert_eq!(Format::sniff(&ZSTD_MAGIC), Format::Zstd);
        assert_eq!(Format::sniff(b"PAR1...."), Format::Parquet);
        assert_eq!(Format::sniff(b"{\"id\""), Format::Jsonl);
        assert_eq!(Format::sniff(b""), Format::Jsonl);
        assert!(Format::is_corpus_name(Path::new("a/b.jsonl.gz")));
        assert!(!Format::is_corpus_name(Path::new("a/b.txt.gz")));
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
}
