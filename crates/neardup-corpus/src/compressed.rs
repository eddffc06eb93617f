//! gzip and zstd streams: read with errors that say where they broke and
//! refuse a stream that ends early, and written for a deduped corpus.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::describe;
use crate::format::Format;

/// `out`, compressed as `format` asks (gzip, zstd), or as it is.
pub fn encoder<'w>(format: Format, out: impl Write + 'w) -> io::Result<Box<dyn Write + 'w>> {
    Ok(match format {
        Format::Gzip => Box::new(flate2::write::GzEncoder::new(
            out,
            flate2::Compression::default(),
        )),
        Format::Zstd => Box::new(zstd::stream::write::Encoder::new(out, 3)?.auto_finish()),
        Format::Jsonl | Format::Parquet => Box::new(out),
    })
}

/// A reader that counts the bytes read through it, so that a decoding
/// error can say where in the compressed file it happened.
pub(crate) struct Counted<R> {
    inner: R,
    at: Arc<AtomicU64>,
}

impl<R: Read> Counted<R> {
    pub(crate) fn new(inner: R) -> (Counted<R>, Arc<AtomicU64>) {
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
pub(crate) struct Decoded<R> {
    inner: R,
    format: Format,
    at: Arc<AtomicU64>,
}

impl<R> Decoded<R> {
    pub(crate) fn new(inner: R, format: Format, at: Arc<AtomicU64>) -> Decoded<R> {
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
