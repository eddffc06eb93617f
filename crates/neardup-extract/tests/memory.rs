//! Issue 38: what a document holds in memory does not depend on how far
//! its parts inflate. Each container kind is given as a bomb that
//! inflates to 256 MiB and as one that inflates to 1 GiB, read with the
//! default limits; both must be refused having allocated less than
//! [`BOUND`] at their peak, and the same at both sizes, measured by a
//! counting allocator (net bytes allocated, so deterministic, unlike the
//! RSS that `bench/run-bombs` reports). Before the readers streamed, a
//! part was read whole, up to `max_size` (1 GiB): the first bomb alone
//! peaked past 256 MiB.
//!
//! One test in its own binary, so that no other test allocates while it
//! measures.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

use flate2::{Compress, Compression, Crc, FlushCompress};
use neardup_extract::{extract, Limits, Options};

/// Net bytes allocated now, and the most since the last [`reset`].
static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

struct Counting;

fn grow(n: usize) {
    let now = NOW.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is passed to the system allocator unchanged; the
// counters only watch.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        // SAFETY: the caller upholds `alloc`'s contract, which `System` shares.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        NOW.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            grow(new_size - layout.size());
        } else {
            NOW.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: the caller upholds `realloc`'s contract, which `System` shares.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most a bomb may allocate at its peak: the 32 MiB token a parser
/// may hold (its buffer doubles to 64 MiB), the 64 MiB of a PDF page's
/// content, or the text given before a cap stops it, and buffers.
const BOUND: usize = 96 << 20;

const MIB: usize = 1 << 20;

/// A raw deflate stream, the CRC-32 of what it inflates to, and that length.
type Deflated = (Vec<u8>, u32, u64);

/// A raw deflate stream of `head`, `block` `count` times, then `tail`,
/// with the CRC-32 and length of what it inflates to. A block compressed
/// with a full flush is byte-aligned and refers to nothing before it, so
/// one compressed copy repeated stands for any number of blocks: a 4 GiB
/// bomb costs a 4 MiB stream and no time to build.
fn repeated(head: &[u8], block: &[u8], count: usize, tail: &[u8]) -> Deflated {
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
    let mut stream = pass(head, FlushCompress::Full);
    let first = pass(block, FlushCompress::Full);
    let again = pass(block, FlushCompress::Full);
    stream.extend_from_slice(&first);
    for _ in 1..count {
        stream.extend_from_slice(&again);
    }
    stream.extend(pass(tail, FlushCompress::Finish));
    let mut crc = Crc::new();
    crc.update(head);
    for _ in 0..count {
        crc.update(block);
    }
    crc.update(tail);
    let size = (head.len() + block.len() * count + tail.len()) as u64;
    (stream, crc.sum(), size)
}

/// A zip of entries, each (name, raw deflate stream, CRC-32, size), or
/// stored when the stream is `None`. Sizes stay under 4 GiB (no zip64).
fn zip(entries: &[(&str, Option<Deflated>, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, deflated, stored) in entries {
        let (data, method, crc, size) = match deflated {
            Some((data, crc, size)) => (data.as_slice(), 8u16, *crc, *size as u32),
            None => {
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
                for v in [0u16, 0, 0] {
                    h.extend(v.to_le_bytes());
                }
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
const DOC: &[u8] = b"<w:document xmlns:w=\"w\"><w:body>";
const CONTAINER: &[u8] =
    br#"<container><rootfiles><rootfile full-path="c.opf"/></rootfiles></container>"#;

/// Pseudo-random lowercase letters (an LCG), for blocks that compress
/// too little to trip the running ratio.
struct Letters(u64);

impl Letters {
    fn next(&mut self) -> u8 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        b'a' + ((self.0 >> 33) % 26) as u8
    }
}

/// Bombs of every container kind that inflate to `mib` MiB: dense ones
/// (a pattern repeated, near deflate's 1032:1), or `sparse` ones, with
/// random letters strewn through, that compress under 100:1 and so are
/// stopped by the other caps (the token, `max_expanded`).
fn bombs(mib: usize, sparse: bool) -> Vec<(&'static str, Vec<u8>)> {
    let mut letters = Letters(7);
    let mut spaces = vec![b' '; MIB];
    let mut paragraphs = Vec::new();
    let mut chapter = Vec::new();
    while paragraphs.len() < MIB - 64 {
        paragraphs.extend_from_slice(b"<w:p><w:r><w:t>word");
        chapter.extend_from_slice(b"<p>a word ");
        if sparse {
            for _ in 0..3 {
                paragraphs.push(letters.next());
                chapter.push(letters.next());
            }
        }
        paragraphs.extend_from_slice(b"</w:t></w:r></w:p>");
        chapter.extend_from_slice(b"</p>");
    }
    if sparse {
        for i in (0..MIB).step_by(32) {
            spaces[i] = letters.next();
        }
    }
    let n = mib;
    let docx = |part: Deflated| {
        zip(&[
            ("[Content_Types].xml", None, TYPES),
            ("word/document.xml", Some(part), b""),
        ])
    };
    let epub = |chapter: Deflated| {
        let opf = b"<package><manifest><item id=\"a\" href=\"a.xhtml\" media-type=\"application/xhtml+xml\"/></manifest><spine><itemref idref=\"a\"/></spine></package>";
        zip(&[
            ("mimetype", None, b"application/epub+zip"),
            ("META-INF/container.xml", None, CONTAINER),
            ("c.opf", None, opf),
            ("a.xhtml", Some(chapter), b""),
        ])
    };
    let mut pdf_content = Vec::new();
    {
        let mut z = flate2::write::ZlibEncoder::new(&mut pdf_content, Compression::best());
        z.write_all(b"BT /F1 12 Tf 72 720 Td (x) Tj ET\n").unwrap();
        for _ in 0..n.min(80) {
            z.write_all(&spaces).unwrap();
        }
        z.finish().unwrap();
    }
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>".to_vec(),
        [
            format!("<< /Filter /FlateDecode /Length {} >>\nstream\n", pdf_content.len()).as_bytes(),
            &pdf_content,
            b"\nendstream",
        ]
        .concat(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
    ];
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend(format!("{} 0 obj\n", i + 1).bytes());
        pdf.extend_from_slice(body);
        pdf.extend_from_slice(b"\nendobj\n");
    }
    let xref = pdf.len();
    pdf.extend_from_slice(b"xref\n0 6\n0000000000 65535 f \n");
    for o in offsets {
        pdf.extend(format!("{o:010} 00000 n \n").bytes());
    }
    pdf.extend(format!("trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n").bytes());
    vec![
        (
            "DOCX, spaces in one w:t",
            docx(repeated(
                &[DOC, b"<w:p><w:r><w:t>"].concat(),
                &spaces,
                n,
                b"",
            )),
        ),
        (
            "DOCX, one-word paragraphs",
            docx(repeated(DOC, &paragraphs, n, b"")),
        ),
        (
            "ODT, spaces in a paragraph",
            zip(&[
                ("mimetype", None, b"application/vnd.oasis.opendocument.text"),
                (
                    "content.xml",
                    Some(repeated(
                        b"<document-content><body><text><p>",
                        &spaces,
                        n,
                        b"",
                    )),
                    b"",
                ),
            ]),
        ),
        (
            "EPUB, a chapter of paragraphs",
            epub(repeated(b"<html><body>", &chapter, n, b"")),
        ),
        (
            "EPUB, a chapter that is a comment",
            epub(repeated(b"<html><body><!--", &spaces, n, b"")),
        ),
        ("PDF, a page of spaces", pdf),
    ]
}

#[test]
fn peak_memory_does_not_grow_with_how_far_a_bomb_inflates() {
    // Dense bombs with the default limits: the running ratio stops them.
    // Sparse ones with `max_expanded` at 64 MiB (a quarter of the
    // default, to keep the test fast): the token cap and `max_expanded`.
    let sparse_limits = Options {
        limits: Limits {
            max_expanded: 64 << 20,
            ..Limits::default()
        },
        ..Options::default()
    };
    for (sparse, opts) in [(false, Options::default()), (true, sparse_limits)] {
        peaks(sparse, &opts);
    }
}

fn peaks(sparse: bool, opts: &Options) {
    let mut first = Vec::new();
    for mib in [256, 1024] {
        for (i, (name, bomb)) in bombs(mib, sparse).into_iter().enumerate() {
            let base = NOW.load(Ordering::Relaxed);
            PEAK.store(base, Ordering::Relaxed);
            let got = extract(&bomb, None, opts);
            let peak = PEAK.load(Ordering::Relaxed) - base;
            let error = got.expect_err(name).to_string();
            println!(
                "{name}{} ({mib} MiB, {} KiB on disk): peak {} KiB, '{error}'",
                if sparse { ", sparse" } else { "" },
                bomb.len() >> 10,
                peak >> 10
            );
            assert!(peak < BOUND, "{name}: peak {peak} bytes, over {BOUND}");
            // Four times the expansion, the same peak (within a MiB).
            match first.get(i) {
                None => first.push(peak),
                Some(&before) => assert!(
                    peak.abs_diff(before) < MIB,
                    "{name}: peak {before} bytes at 256 MiB, {peak} at 1 GiB"
                ),
            }
        }
    }
}
