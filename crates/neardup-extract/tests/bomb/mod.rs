//! Decompression bombs of every container kind, built small: a block
//! deflated with a full flush is byte-aligned and refers to nothing
//! before it, so one compressed copy, repeated, stands for any number of
//! blocks (a 4 GiB bomb costs a 4 MiB stream and no time to build).
//! Shared by this crate's `tests/memory.rs` and the CLI's
//! `tests/bombs.rs` (through `#[path]`).

use std::io::Write;

use flate2::{Compress, Compression, Crc, FlushCompress};

pub const MIB: usize = 1 << 20;

/// A raw deflate stream, with the CRC-32 and the length of what it
/// inflates to.
pub struct Deflated {
    data: Vec<u8>,
    crc: u32,
    size: u64,
}

/// A raw deflate stream of `head`, `block` `count` times, then `tail`.
pub fn repeated(head: &[u8], block: &[u8], count: usize, tail: &[u8]) -> Deflated {
    let mut c = Compress::new(Compression::best(), false);
    let mut pass = |input: &[u8], flush| {
        let mut out = Vec::with_capacity(input.len() / 100 + 1024);
        let start = c.total_in();
        loop {
            let done = (c.total_in() - start) as usize;
            c.compress_vec(&input[done..], &mut out, flush).unwrap();
            if (c.total_in() - start) as usize == input.len() && out.len() < out.capacity() {
                return out;
            }
            out.reserve(out.capacity().max(1024));
        }
    };
    let mut data = pass(head, FlushCompress::Full);
    let first = pass(block, FlushCompress::Full);
    let again = pass(block, FlushCompress::Full);
    data.extend_from_slice(&first);
    for _ in 1..count {
        data.extend_from_slice(&again);
    }
    data.extend(pass(tail, FlushCompress::Finish));
    // The CRC of `count` blocks by doubling (CRC-32's combine), not by
    // reading a GiB: that was a fifth of the memory test's time.
    let mut crc = Crc::new();
    crc.update(head);
    let mut power = Crc::new();
    power.update(block);
    let mut n = count;
    while n > 0 {
        if n & 1 == 1 {
            crc.combine(&power);
        }
        let mut doubled = Crc::new();
        doubled.combine(&power);
        doubled.combine(&power);
        power = doubled;
        n >>= 1;
    }
    crc.update(tail);
    let size = (head.len() + block.len() * count + tail.len()) as u64;
    Deflated {
        data,
        crc: crc.sum(),
        size,
    }
}

/// A zip entry's content.
pub enum Entry<'a> {
    Stored(&'a [u8]),
    Deflated(Deflated),
}

/// A zip of (name, entry). Sizes stay under 4 GiB (no zip64).
pub fn zip(entries: &[(&str, Entry)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, entry) in entries {
        let (data, method, crc, size) = match entry {
            Entry::Deflated(d) => (&d.data[..], 8u16, d.crc, d.size as u32),
            Entry::Stored(stored) => {
                let mut crc = Crc::new();
                crc.update(stored);
                (*stored, 0u16, crc.sum(), stored.len() as u32)
            }
        };
        let offset = out.len() as u32;
        let header = |sig: u32, central: bool| {
            let mut h = sig.to_le_bytes().to_vec();
            if central {
                h.extend(20u16.to_le_bytes());
            }
            for v in [20u16, 0, method, 0, 0x21] {
                h.extend(v.to_le_bytes());
            }
            for v in [crc, data.len() as u32, size] {
                h.extend(v.to_le_bytes());
            }
            h.extend((name.len() as u16).to_le_bytes());
            h.extend(0u16.to_le_bytes());
            if central {
                h.extend([0u8; 6]);
                h.extend(0u32.to_le_bytes());
                h.extend(offset.to_le_bytes());
            }
            h.extend_from_slice(name.as_bytes());
            h
        };
        out.extend(header(0x0403_4b50, false));
        out.extend_from_slice(data);
        central.extend(header(0x0201_4b50, true));
    }
    let (at, len, n) = (out.len() as u32, central.len() as u32, entries.len() as u16);
    out.extend(central);
    out.extend(0x0605_4b50u32.to_le_bytes());
    for v in [0u16, 0, n, n] {
        out.extend(v.to_le_bytes());
    }
    for v in [len, at] {
        out.extend(v.to_le_bytes());
    }
    out.extend(0u16.to_le_bytes());
    out
}

const TYPES: &[u8] = br#"<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>"#;

/// The opening of a DOCX's `word/document.xml`.
pub const DOC: &[u8] = b"<w:document xmlns:w=\"w\"><w:body>";

/// A DOCX whose `word/document.xml` is `document`.
pub fn docx(document: Deflated) -> Vec<u8> {
    zip(&[
        ("[Content_Types].xml", Entry::Stored(TYPES)),
        ("word/document.xml", Entry::Deflated(document)),
    ])
}

/// An ODT whose `content.xml` is `content`.
pub fn odt(content: Deflated) -> Vec<u8> {
    zip(&[
        (
            "mimetype",
            Entry::Stored(b"application/vnd.oasis.opendocument.text"),
        ),
        ("content.xml", Entry::Deflated(content)),
    ])
}

/// An EPUB of one chapter, `a.xhtml`.
pub fn epub(chapter: Deflated) -> Vec<u8> {
    zip(&[
        ("mimetype", Entry::Stored(b"application/epub+zip")),
        (
            "META-INF/container.xml",
            Entry::Stored(br#"<container><rootfiles><rootfile full-path="c.opf"/></rootfiles></container>"#),
        ),
        (
            "c.opf",
            Entry::Stored(br#"<package><manifest><item id="a" href="a.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="a"/></spine></package>"#),
        ),
        ("a.xhtml", Entry::Deflated(chapter)),
    ])
}

/// A one-page PDF whose FlateDecode content is a line of text, then
/// `block` `count` times (a zlib stream, compressed whole).
pub fn pdf(block: &[u8], count: usize) -> Vec<u8> {
    let mut content = Vec::new();
    {
        let mut z = flate2::write::ZlibEncoder::new(&mut content, Compression::best());
        z.write_all(b"BT /F1 12 Tf 72 720 Td (x) Tj ET\n").unwrap();
        for _ in 0..count {
            z.write_all(block).unwrap();
        }
        z.finish().unwrap();
    }
    let mut stream = format!(
        "<< /Filter /FlateDecode /Length {} >>\nstream\n",
        content.len()
    )
    .into_bytes();
    stream.extend(content);
    stream.extend(b"\nendstream");
    let objects: [&[u8]; 5] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        &stream,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend(format!("{} 0 obj\n", i + 1).bytes());
        out.extend_from_slice(body);
        out.extend(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend(b"xref\n0 6\n0000000000 65535 f \n");
    for o in offsets {
        out.extend(format!("{o:010} 00000 n \n").bytes());
    }
    out.extend(format!("trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n").bytes());
    out
}
