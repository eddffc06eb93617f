//! A PDF stream's data, decoded within a cap and never past it.
//!
//! A page's content is a FlateDecode stream in every writer we know of;
//! that one is inflated here, through a reader that stops one byte past
//! the cap and into a buffer that never grows past it, so that a bomb
//! costs its cap in memory (a doubling `Vec` would reserve twice that)
//! and its cap's worth of inflating, never its expansion. A stream that
//! inflates cleanly gives the bytes it holds, as lopdf's
//! `decompressed_content_with_limit` does. A broken one (a bad byte, a
//! bad checksum) is left to lopdf, whose way with it (what inflated
//! before the fault, a retry as raw deflate) is part of the rules of
//! [`crate::VERSION`]; so are other filter chains and predictors. lopdf
//! reads those within the same cap.

use std::io::{self, Read};

use flate2::read::ZlibDecoder;
use lopdf::{Object, Stream};

/// The cap was passed.
pub(super) struct Over;

/// The data of `stream`, at most `cap` bytes. A stream whose filter
/// neither lopdf nor we know, or that is broken past reading, gives its
/// raw bytes when it names no filter and nothing otherwise, as viewers do.
pub(super) fn decode(stream: &Stream, cap: u64) -> Result<Vec<u8>, Over> {
    let limit = usize::try_from(cap).unwrap_or(usize::MAX);
    let flate_only = matches!(stream.filters().as_deref(), Ok([b"FlateDecode"]))
        && matches!(stream.dict.get(b"DecodeParms"), Err(_) | Ok(Object::Null));
    if flate_only {
        if let Some(out) = inflate(&stream.content, limit) {
            return if out.len() > limit {
                Err(Over)
            } else {
                Ok(out)
            };
        }
    }
    match stream.decompressed_content_with_limit(limit) {
        Ok(data) => Ok(data),
        Err(lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded { .. })) => {
            Err(Over)
        }
        Err(_) if stream.filters().map(|f| f.is_empty()).unwrap_or(true) => {
            Ok(stream.content.clone())
        }
        Err(_) => Ok(Vec::new()),
    }
}

/// How many bytes `stream` decodes to, counted without keeping them when
/// it is FlateDecode alone; `Over` past `cap`.
pub(super) fn measure(stream: &Stream, cap: u64) -> Result<u64, Over> {
    let flate_only = matches!(stream.filters().as_deref(), Ok([b"FlateDecode"]));
    if flate_only && !stream.content.is_empty() {
        let mut reader = ZlibDecoder::new(&stream.content[..]).take(cap.saturating_add(1));
        let mut chunk = vec![0; 64 << 10];
        let mut total = 0u64;
        loop {
            match reader.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => total += n as u64,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // Broken: what lopdf makes of it is counted below.
                Err(_) => return decode(stream, cap).map(|d| d.len() as u64),
            }
        }
        return if total > cap { Err(Over) } else { Ok(total) };
    }
    decode(stream, cap).map(|d| d.len() as u64)
}

/// `input` inflated as zlib, at most `limit + 1` bytes (so that `> limit`
/// tells a bomb); `None` if it is broken before that.
fn inflate(input: &[u8], limit: usize) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    if !input.is_empty() {
        read_capped(ZlibDecoder::new(input), &mut out, limit).ok()?;
    }
    Some(out)
}

/// Reads `reader` into `out` up to `limit + 1` bytes, keeping what was
/// read before an error. The buffer doubles as it fills, but never past
/// `limit + 1`.
fn read_capped(reader: impl Read, out: &mut Vec<u8>, limit: usize) -> io::Result<()> {
    const STEP: usize = 64 << 10;
    let most = limit.saturating_add(1);
    let mut reader = reader.take(most as u64);
    loop {
        if out.len() == out.capacity() {
            let grow = out.capacity().max(STEP).min(most - out.len());
            if grow == 0 {
                return Ok(());
            }
            out.reserve_exact(grow);
        }
        let len = out.len();
        out.resize(len + (out.capacity() - len).min(STEP), 0);
        let got = reader.read(&mut out[len..]);
        let n = *got.as_ref().unwrap_or(&0);
        out.truncate(len + n);
        match got {
            Ok(0) => return Ok(()),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::Dictionary;
    use std::io::Write;

    fn flate(data: &[u8]) -> Stream {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(data).unwrap();
        let mut dict = Dictionary::new();
        dict.set("Filter", Object::Name(b"FlateDecode".to_vec()));
        Stream::new(dict, z.finish().unwrap())
    }

    #[test]
    fn gives_what_lopdf_gives_within_the_cap() {
        let data: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let mut broken = flate(&data);
        let at = broken.content.len() / 2;
        broken.content[at..at + 64].fill(0x55);
        let mut no_header = flate(&data);
        no_header.content[0] = 0;
        let mut empty = flate(b"");
        empty.content.clear();
        for stream in [flate(&data), broken, no_header, empty] {
            for cap in [0u64, 1, 1000, 1 << 20, 1 << 30] {
                let ours = decode(&stream, cap).ok();
                let theirs = stream.decompressed_content_with_limit(cap as usize).ok();
                let len = |d: &Option<Vec<u8>>| d.as_ref().map(Vec::len);
                assert!(
                    ours == theirs,
                    "cap {cap}: {:?} {:?}",
                    len(&ours),
                    len(&theirs)
                );
            }
        }
    }

    #[test]
    fn the_buffer_never_grows_past_the_cap() {
        let stream = flate(&vec![b' '; 10 << 20]);
        let mut out = Vec::new();
        read_capped(ZlibDecoder::new(&stream.content[..]), &mut out, 3 << 20).unwrap();
        assert_eq!(out.len(), (3 << 20) + 1);
        assert_eq!(out.capacity(), (3 << 20) + 1);
    }
}
