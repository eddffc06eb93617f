//! One segment file: the documents of one `add` (or a `compact`), written
//! once, then only memory-mapped and read.
//!
//! Layout (little-endian; every section starts at a multiple of 8, zero
//! padding between, so that a section's integers are aligned):
//!
//! | section | size | content |
//! |---|---|---|
//! | header | 128 | [`Header`] |
//! | id offsets | 8·(docs+1) | where each id's JSON text starts in the id bytes |
//! | id bytes | `id_bytes` | the ids as JSON text, one after the other |
//! | digests | 32·docs | each document's `normalized_sha256` |
//! | shingles | 8·docs | each document's distinct shingle count (0: no signature) |
//! | signatures | 4·N·docs | each signature's slots (zeros without one) |
//! | first digests | 32·firsts | digests new to the index in this segment, sorted |
//! | first docs | 4·firsts | the document of each |
//! | id hashes | 8·docs | XXH3-64 of each id's text, sorted |
//! | id docs | 4·docs | the document of each |
//! | band starts | 4·(bands+1) | where each band's records start |
//! | band keys | 4·records | the low 32 bits of each record's band key |
//! | band docs | 4·records | each record's document |
//!
//! Document numbers in the tables are the index's (global), so segments
//! merge without renumbering. Band records are those of the documents a
//! scan bands: the first of each normalized text in the whole index, with
//! a signature; sorted by `(band, key, doc)`.
//!
//! A query reads the tables it binary-searches through the mapping, and
//! reads a signature or a bucket's documents with `pread`
//! ([`Segment::read_at`]). The kernel maps up to 16 neighbouring cached
//! pages on each fault of a mapping (fault-around, which `MADV_RANDOM`
//! does not turn off), and every mapped page counts in the process's RSS.
//! So a reader that took its signatures from the mapping would map 64 KiB
//! per candidate. Read with `pread`, those bytes come from the same page
//! cache and do not count: after 2,000 queries of a 1M-document index the
//! mapped pages went from 359 MB to 198 MB (`bench/index-bench`).

use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use neardup::scan::{lines, Plan};
use neardup::{Digest, Fingerprint, Params, Signature, MAX_PERMUTATIONS};
use rayon::prelude::*;
use std::hash::Hasher;
use twox_hash::XxHash3_64;

use crate::manifest::{Entry, FORMAT_VERSION};
use crate::{Error, Result};

const MAGIC: [u8; 8] = *b"NDIXSEG\0";

/// The header's length: the body (the part the checksum covers) starts here.
pub const HEADER_LEN: usize = 128;

/// Segments up to this size have their whole body checked on open, not
/// only by `verify`: it costs a few milliseconds.
const CHECK_ON_OPEN: u64 = 64 << 20;

/// A segment's fixed-size header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// The plan's `K`, `N`, banding and threshold (basis points): a
    /// segment is only ever read with the plan it was written for.
    pub k: u32,
    pub n: u32,
    pub bands: u32,
    pub rows: u32,
    pub threshold_bp: u32,
    /// The first document's number.
    pub first: u32,
    /// Its documents: `first..first + docs`.
    pub docs: u32,
    /// Documents whose normalized text is new to the index.
    pub firsts: u32,
    /// The ids' total length.
    pub id_bytes: u64,
    /// Band records.
    pub records: u64,
    /// XXH3-64 of everything after the header.
    pub body_xxh3: u64,
}

impl Header {
    fn for_plan(plan: &Plan, first: u32, docs: u32) -> Header {
        Header {
            k: plan.params().k() as u32,
            n: plan.params().n() as u32,
            bands: plan.banding().bands() as u32,
            rows: plan.banding().rows() as u32,
            threshold_bp: plan.threshold().basis_points(),
            first,
            docs,
            firsts: 0,
            id_bytes: 0,
            records: 0,
            body_xxh3: 0,
        }
    }

    /// The header's bytes; its last 8 are XXH3-64 of the 120 before.
    fn encode(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[..8].copy_from_slice(&MAGIC);
        let words = [
            FORMAT_VERSION,
            self.k,
            self.n,
            self.bands,
            self.rows,
            self.threshold_bp,
            self.first,
            self.docs,
            self.firsts,
        ];
        for (i, w) in words.iter().enumerate() {
            b[8 + 4 * i..12 + 4 * i].copy_from_slice(&w.to_le_bytes());
        }
        for (i, w) in [self.id_bytes, self.records, self.body_xxh3]
            .iter()
            .enumerate()
        {
            b[48 + 8 * i..56 + 8 * i].copy_from_slice(&w.to_le_bytes());
        }
        let sum = xxh3_64(&b[..120]);
        b[120..].copy_from_slice(&sum.to_le_bytes());
        b
    }

    fn decode(b: &[u8]) -> std::result::Result<Header, String> {
        if b.len() < HEADER_LEN {
            return Err(format!("{} bytes, shorter than a segment header", b.len()));
        }
        if b[..8] != MAGIC {
            return Err("it is not a neardup index segment (wrong magic bytes)".into());
        }
        if xxh3_64(&b[..120]) != u64_at(b, 15) {
            return Err("its header checksum does not match".into());
        }
        let w = |i: usize| u32_at(b, 2 + i);
        if w(0) != FORMAT_VERSION {
            return Err(format!(
                "segment format version {}, not {FORMAT_VERSION}",
                w(0)
            ));
        }
        Ok(Header {
            k: w(1),
            n: w(2),
            bands: w(3),
            rows: w(4),
            threshold_bp: w(5),
            first: w(6),
            docs: w(7),
            firsts: w(8),
            id_bytes: u64_at(b, 6),
            records: u64_at(b, 7),
            body_xxh3: u64_at(b, 8),
        })
    }

    /// Where each section is, or `None` if the sizes overflow.
    fn layout(&self) -> Option<Layout> {
        let docs = u64::from(self.docs);
        let firsts = u64::from(self.firsts);
        let mut at = HEADER_LEN as u64;
        let mut next = |len: Option<u64>| -> Option<Range<usize>> {
            let start = at.checked_add(7)? & !7;
            let end = start.checked_add(len?)?;
            at = end;
            Some(usize::try_from(start).ok()?..usize::try_from(end).ok()?)
        };
        let layout = Layout {
            id_offsets: next((docs + 1).checked_mul(8))?,
            id_bytes: next(Some(self.id_bytes))?,
            digests: next(Some(32 * docs))?,
            shingles: next(Some(8 * docs))?,
            signatures: next((4 * u64::from(self.n)).checked_mul(docs))?,
            first_digests: next(Some(32 * firsts))?,
            first_docs: next(Some(4 * firsts))?,
            id_hashes: next(Some(8 * docs))?,
            id_docs: next(Some(4 * docs))?,
            band_starts: next(Some(4 * (u64::from(self.bands) + 1)))?,
            band_keys: next(self.records.checked_mul(4))?,
            band_docs: next(self.records.checked_mul(4))?,
            end: 0,
        };
        // The file ends aligned too.
        Some(Layout {
            end: usize::try_from(at.checked_add(7)? & !7).ok()?,
            ..layout
        })
    }
}

/// The byte ranges of a segment's sections.
#[derive(Debug, Clone)]
struct Layout {
    id_offsets: Range<usize>,
    id_bytes: Range<usize>,
    digests: Range<usize>,
    shingles: Range<usize>,
    signatures: Range<usize>,
    first_digests: Range<usize>,
    first_docs: Range<usize>,
    id_hashes: Range<usize>,
    id_docs: Range<usize>,
    band_starts: Range<usize>,
    band_keys: Range<usize>,
    band_docs: Range<usize>,
    /// The file's length.
    end: usize,
}

/// The `i`th little-endian `u32` of `b`.
fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().expect("4 bytes"))
}

/// The `i`th little-endian `u64` of `b`.
fn u64_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().expect("8 bytes"))
}

/// The band key a segment stores: the low 32 bits of the core's 64-bit
/// key. Keys then collide more often (about one in 4·10⁹ per pair of
/// records), which only adds a candidate the slots check turns away, and
/// each record takes 8 bytes instead of 12.
pub fn short_key(key: u64) -> u32 {
    key as u32
}

/// One document to write: its id as JSON text and its fingerprint.
pub type NewDoc = (String, Fingerprint);

/// Writes a segment of `docs` (numbered from `first`) to `out`, banding
/// those `is_first` marks (new normalized texts) that have a signature.
/// Returns the header written, whose `body_xxh3` the manifest records.
pub fn write(
    out: &mut File,
    plan: &Plan,
    first: u32,
    docs: &[NewDoc],
    is_first: &[bool],
) -> io::Result<Header> {
    let count = u32::try_from(docs.len()).map_err(|_| io::Error::other("too many documents"))?;
    let mut header = Header::for_plan(plan, first, count);
    let global = |i: usize| first + i as u32;

    let mut firsts: Vec<(&Digest, u32)> = (0..docs.len())
        .filter(|&i| is_first[i])
        .map(|i| (&docs[i].1.normalized_sha256, global(i)))
        .collect();
    firsts.sort_unstable();
    let mut id_hashes: Vec<(u64, u32)> = docs
        .par_iter()
        .enumerate()
        .map(|(i, (id, _))| (xxh3_64(id.as_bytes()), global(i)))
        .collect();
    id_hashes.par_sort_unstable();
    let banding = plan.banding();
    let banded: Vec<usize> = (0..docs.len())
        .filter(|&i| is_first[i] && docs[i].1.signature.is_some())
        .collect();
    // Every band key of a signature while it is in cache (row by row),
    // then each band's records gathered and sorted: reading all the
    // signatures once per band cost more than the rest of a segment.
    let b = banding.bands();
    let mut keys = vec![0u32; banded.len() * b];
    keys.par_chunks_mut(b).zip(&banded).for_each(|(row, &i)| {
        if let Some(sig) = &docs[i].1.signature {
            for (band, k) in row.iter_mut().enumerate() {
                *k = short_key(banding.key(sig, band));
            }
        }
    });
    let bands: Vec<Vec<u64>> = (0..b)
        .into_par_iter()
        .map(|band| {
            let mut recs: Vec<u64> = banded
                .iter()
                .enumerate()
                .map(|(r, &i)| u64::from(keys[r * b + band]) << 32 | u64::from(global(i)))
                .collect();
            recs.sort_unstable();
            recs
        })
        .collect();
    drop(keys);
    header.firsts = firsts.len() as u32;
    header.id_bytes = docs.iter().map(|(id, _)| id.len() as u64).sum();
    header.records = bands.iter().map(|b| b.len() as u64).sum();
    if header.records > u64::from(u32::MAX) {
        // Band starts are 32-bit offsets.
        return Err(io::Error::other(format!(
            "{} band records is more than a segment holds (2^32 - 1): add the documents in smaller batches",
            header.records
        )));
    }

    out.seek(SeekFrom::Start(0))?;
    out.write_all(&[0; HEADER_LEN])?;
    let mut body = Body::new(&mut *out);
    let mut offset = 0u64;
    body.section(docs.iter().map(|(id, _)| {
        let at = offset;
        offset += id.len() as u64;
        at.to_le_bytes()
    }))?;
    body.put(&offset.to_le_bytes())?;
    body.section(docs.iter().map(|(id, _)| id.as_bytes()))?;
    body.section(docs.iter().map(|(_, fp)| fp.normalized_sha256.0))?;
    body.section(docs.iter().map(|(_, fp)| fp.shingles.to_le_bytes()))?;
    body.align()?;
    let zeros = vec![0u32; plan.params().n()];
    for (_, fp) in docs {
        let slots = fp.signature.as_ref().map_or(&zeros[..], |s| s.slots());
        for s in slots {
            body.put(&s.to_le_bytes())?;
        }
    }
    body.section(firsts.iter().map(|(d, _)| d.0))?;
    body.section(firsts.iter().map(|(_, doc)| doc.to_le_bytes()))?;
    body.section(id_hashes.iter().map(|(h, _)| h.to_le_bytes()))?;
    body.section(id_hashes.iter().map(|(_, doc)| doc.to_le_bytes()))?;
    let mut start = 0u32;
    body.align()?;
    body.put(&0u32.to_le_bytes())?;
    for b in &bands {
        start += b.len() as u32;
        body.put(&start.to_le_bytes())?;
    }
    body.section(
        bands
            .iter()
            .flatten()
            .map(|r| ((r >> 32) as u32).to_le_bytes()),
    )?;
    body.section(bands.iter().flatten().map(|&r| (r as u32).to_le_bytes()))?;
    body.align()?;
    header.body_xxh3 = body.finish()?;
    out.seek(SeekFrom::Start(0))?;
    out.write_all(&header.encode())?;
    Ok(header)
}

/// The body being written: hashed as it goes, aligned between sections.
/// Values are gathered in a buffer and hashed and written a megabyte at a
/// time: a segment is mostly 4-byte slots, and hashing them one by one
/// took longer than everything else `create` does.
struct Body<W: Write> {
    out: W,
    hash: XxHash3_64,
    buf: Vec<u8>,
    at: u64,
}

impl<W: Write> Body<W> {
    fn new(out: W) -> Body<W> {
        Body {
            out,
            hash: XxHash3_64::with_seed(0),
            buf: Vec::with_capacity(BUFFER + 64),
            at: HEADER_LEN as u64,
        }
    }

    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.at += bytes.len() as u64;
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= BUFFER {
            self.drain()?;
        }
        Ok(())
    }

    fn drain(&mut self) -> io::Result<()> {
        self.hash.write(&self.buf);
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }

    fn align(&mut self) -> io::Result<()> {
        let pad = (8 - self.at % 8) % 8;
        self.put(&[0; 8][..pad as usize])
    }

    /// An aligned section of the values `items` gives, each as bytes.
    fn section<B: AsRef<[u8]>>(&mut self, items: impl Iterator<Item = B>) -> io::Result<()> {
        self.align()?;
        for b in items {
            self.put(b.as_ref())?;
        }
        Ok(())
    }

    /// Writes what is buffered; returns the body's checksum.
    fn finish(mut self) -> io::Result<u64> {
        self.drain()?;
        self.out.flush()?;
        Ok(self.hash.finish())
    }
}

/// How much [`Body`] gathers before hashing and writing.
const BUFFER: usize = 1 << 20;

/// An open segment: its file memory-mapped, its header checked.
pub struct Segment {
    /// Its file, for messages.
    pub path: PathBuf,
    /// Its checked header.
    pub header: Header,
    file: File,
    map: Mmap,
    layout: Layout,
}

impl Segment {
    /// Opens `dir/entry.file` and checks it against the manifest's entry
    /// and `plan`: its length, header checksum, settings and document
    /// range, and (for a small segment) its body checksum.
    pub fn open(dir: &Path, entry: &Entry, plan: &Plan) -> Result<Segment> {
        let path = dir.join(&entry.file);
        let file = File::open(&path).map_err(|e| Error::io("opening", &path, e))?;
        let len = file
            .metadata()
            .map_err(|e| Error::io("reading", &path, e))?
            .len();
        if len != entry.bytes {
            let what = if len < entry.bytes {
                "truncated"
            } else {
                "longer than written"
            };
            return Err(Error::damaged(
                &path,
                format!(
                    "it is {what}: {len} bytes where the manifest says {}",
                    entry.bytes
                ),
            ));
        }
        // SAFETY: segments are never written after the manifest names
        // them (a new one is a new file), so the mapping does not change
        // under us unless someone edits the index by hand, which a checksum
        // finds.
        #[allow(unsafe_code)]
        let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io("mapping", &path, e))?;
        // Queries read a few entries here and there (binary searches, a
        // candidate's signature): without read-ahead and fault-around, a
        // query maps in the pages it reads and not their neighbours, which
        // keeps a large index's resident memory to what is used.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Random);
        let header = Header::decode(&map).map_err(|why| Error::damaged(&path, why))?;
        let want = Header::for_plan(plan, entry.first, entry.docs);
        let same = (
            header.k,
            header.n,
            header.bands,
            header.rows,
            header.threshold_bp,
            header.first,
            header.docs,
        ) == (
            want.k,
            want.n,
            want.bands,
            want.rows,
            want.threshold_bp,
            want.first,
            want.docs,
        );
        if !same {
            return Err(Error::damaged(
                &path,
                "its header does not match the manifest",
            ));
        }
        if format!("{:016x}", header.body_xxh3) != entry.xxh3 {
            return Err(Error::damaged(
                &path,
                "its checksum is not the one the manifest recorded",
            ));
        }
        let layout = header
            .layout()
            .filter(|l| l.end as u64 == len)
            .ok_or_else(|| Error::damaged(&path, "its sections do not add up to its length"))?;
        let segment = Segment {
            path,
            header,
            file,
            map,
            layout,
        };
        if len <= CHECK_ON_OPEN {
            segment.check_body()?;
        }
        Ok(segment)
    }

    /// The body checksum: the one check that finds any flipped byte.
    fn check_body(&self) -> Result<()> {
        #[cfg(unix)]
        let _ = self.map.advise(memmap2::Advice::Sequential);
        let sum = xxh3_64(&self.map[HEADER_LEN..]);
        #[cfg(unix)]
        let _ = self.map.advise(memmap2::Advice::Random);
        if sum != self.header.body_xxh3 {
            return Err(Error::damaged(
                &self.path,
                "its content does not match its checksum",
            ));
        }
        Ok(())
    }

    fn bytes(&self, r: &Range<usize>) -> &[u8] {
        &self.map[r.clone()]
    }

    /// Fills `buf` from offset `at` of the file with `pread`, which does
    /// not map the pages it reads (see the module's doc); from the mapping
    /// if that fails or off Unix. The caller keeps `at..at + buf.len()`
    /// within a section, which [`Layout`] checked against the file's length.
    fn read_at(&self, at: usize, buf: &mut [u8]) {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileExt;
            if self.file.read_exact_at(buf, at as u64).is_ok() {
                return;
            }
        }
        buf.copy_from_slice(&self.map[at..at + buf.len()]);
    }

    /// The documents this segment bands (one record per band each).
    pub fn banded(&self) -> u32 {
        (self.header.records / u64::from(self.header.bands.max(1))) as u32
    }

    /// The documents this segment holds.
    pub fn docs(&self) -> Range<u32> {
        self.header.first..self.header.first + self.header.docs
    }

    /// Document `doc`'s (global number) id as JSON text. A damaged id
    /// table gives `null`, never a panic; `verify` finds it.
    pub fn id(&self, doc: u32) -> &str {
        let i = (doc - self.header.first) as usize;
        let offsets = self.bytes(&self.layout.id_offsets);
        let (a, b) = (u64_at(offsets, i) as usize, u64_at(offsets, i + 1) as usize);
        self.bytes(&self.layout.id_bytes)
            .get(a..b)
            .and_then(|s| std::str::from_utf8(s).ok())
            .unwrap_or("null")
    }

    /// Document `doc`'s `normalized_sha256`.
    pub fn digest(&self, doc: u32) -> Digest {
        let i = (doc - self.header.first) as usize;
        let digest: [u8; 32] = self.bytes(&self.layout.digests)[32 * i..32 * i + 32]
            .try_into()
            .expect("32 bytes");
        Digest(digest)
    }

    /// Document `doc`'s fingerprint.
    pub fn fingerprint(&self, doc: u32, params: Params) -> Fingerprint {
        let i = (doc - self.header.first) as usize;
        Fingerprint {
            params,
            normalized_sha256: self.digest(doc),
            shingles: u64_at(self.bytes(&self.layout.shingles), i),
            signature: self.signature(doc),
        }
    }

    /// Document `doc`'s signature, `None` when it has zero shingles, read
    /// with `pread`: a query reads a few, here and there.
    pub fn signature(&self, doc: u32) -> Option<Signature> {
        let at = self.signature_bytes(doc)?;
        let mut buf = [0u8; 4 * MAX_PERMUTATIONS];
        let buf = &mut buf[..at.len()];
        self.read_at(at.start, buf);
        decode_signature(buf)
    }

    /// [`Segment::signature`] from the mapping, for `verify`, which reads
    /// them all in order.
    fn mapped_signature(&self, doc: u32) -> Option<Signature> {
        decode_signature(&self.map[self.signature_bytes(doc)?])
    }

    /// Where document `doc`'s signature is in the file; `None` when it has
    /// zero shingles, so no signature.
    fn signature_bytes(&self, doc: u32) -> Option<Range<usize>> {
        let i = (doc - self.header.first) as usize;
        if u64_at(self.bytes(&self.layout.shingles), i) == 0 {
            return None;
        }
        let len = 4 * self.header.n as usize;
        let start = self.layout.signatures.start + len * i;
        Some(start..start + len)
    }

    /// The document of this segment whose text is new to the index with
    /// this digest, if any.
    pub fn first_with_digest(&self, digest: &Digest) -> Option<u32> {
        let digests = self.bytes(&self.layout.first_digests);
        let at = |i: usize| &digests[32 * i..32 * i + 32];
        let count = self.header.firsts as usize;
        let i = partition_point(count, |i| at(i) < &digest.0[..]);
        let doc = (i < count && at(i) == digest.0)
            .then(|| u32_at(self.bytes(&self.layout.first_docs), i))?;
        self.docs().contains(&doc).then_some(doc)
    }

    /// The document with id `id` (JSON text), if this segment has it.
    pub fn find_id(&self, id: &str) -> Option<u32> {
        let hashes = self.bytes(&self.layout.id_hashes);
        let docs = self.bytes(&self.layout.id_docs);
        let h = xxh3_64(id.as_bytes());
        let count = self.header.docs as usize;
        let mut i = partition_point(count, |i| u64_at(hashes, i) < h);
        while i < count && u64_at(hashes, i) == h {
            let doc = u32_at(docs, i);
            if self.docs().contains(&doc) && self.id(doc) == id {
                return Some(doc);
            }
            i += 1;
        }
        None
    }

    /// Appends the documents of band `band`'s bucket `key` (the short key):
    /// the keys binary-searched in the mapping, the documents read with
    /// `pread`.
    pub fn bucket(&self, band: u32, key: u32, out: &mut Vec<u32>) {
        let starts = self.bytes(&self.layout.band_starts);
        let keys = self.bytes(&self.layout.band_keys);
        let records = self.header.records as usize;
        let lo = (u32_at(starts, band as usize) as usize).min(records);
        let hi = (u32_at(starts, band as usize + 1) as usize).clamp(lo, records);
        let start = lo + partition_point(hi - lo, |i| u32_at(keys, lo + i) < key);
        // A bucket's records are few and follow each other: a second
        // binary search would touch pages of the whole band.
        let mut end = start;
        while end < hi && u32_at(keys, end) == key {
            end += 1;
        }
        let mut buf = [0u8; 4 * 256];
        for at in (start..end).step_by(256) {
            let docs = &mut buf[..4 * (end - at).min(256)];
            self.read_at(self.layout.band_docs.start + 4 * at, docs);
            out.extend(
                docs.chunks_exact(4)
                    .map(|d| u32::from_le_bytes(d.try_into().expect("4 bytes")))
                    .filter(|doc| self.docs().contains(doc)),
            );
        }
    }

    /// Every check: the body checksum, then each table against the
    /// documents it indexes. `is_first` says, for each of this segment's
    /// documents, whether its text is new to the index (the caller knows
    /// the earlier segments).
    pub fn verify(&self, plan: &Plan, is_first: &[bool]) -> Result<()> {
        self.check_body()?;
        let bad = |why: String| Err(Error::damaged(&self.path, why));
        let h = &self.header;
        let offsets = self.bytes(&self.layout.id_offsets);
        for i in 0..h.docs as usize {
            let (a, b) = (u64_at(offsets, i), u64_at(offsets, i + 1));
            let doc = h.first + i as u32;
            let id = self.id(doc);
            if a > b
                || b > h.id_bytes
                || lines::canonical_id(id).as_deref() != Some(id)
                || id == "null"
            {
                return bad(format!(
                    "document {doc}'s id is not a JSON string or integer"
                ));
            }
        }
        let firsts: Vec<u32> = (0..h.docs)
            .filter(|&i| is_first[i as usize])
            .map(|i| h.first + i)
            .collect();
        let mut want: Vec<(Digest, u32)> = firsts.iter().map(|&d| (self.digest(d), d)).collect();
        want.sort_unstable();
        let digests = self.bytes(&self.layout.first_digests);
        let got: Vec<(Digest, u32)> = (0..h.firsts as usize)
            .map(|i| {
                let d: [u8; 32] = digests[32 * i..32 * i + 32].try_into().expect("32 bytes");
                (Digest(d), u32_at(self.bytes(&self.layout.first_docs), i))
            })
            .collect();
        if got != want {
            return bad("its table of new texts does not match its documents".into());
        }
        let mut ids: Vec<(u64, u32)> = (h.first..h.first + h.docs)
            .map(|d| (xxh3_64(self.id(d).as_bytes()), d))
            .collect();
        ids.sort_unstable();
        let (hashes, docs) = (
            self.bytes(&self.layout.id_hashes),
            self.bytes(&self.layout.id_docs),
        );
        if ids
            .iter()
            .enumerate()
            .any(|(i, &(x, d))| (u64_at(hashes, i), u32_at(docs, i)) != (x, d))
        {
            return bad("its id table does not match its ids".into());
        }
        let banding = plan.banding();
        let starts = self.bytes(&self.layout.band_starts);
        let (keys, bdocs) = (
            self.bytes(&self.layout.band_keys),
            self.bytes(&self.layout.band_docs),
        );
        for band in 0..banding.bands() {
            let mut want: Vec<(u32, u32)> = firsts
                .iter()
                .filter_map(|&d| {
                    Some((short_key(banding.key(&self.mapped_signature(d)?, band)), d))
                })
                .collect();
            want.sort_unstable();
            let (lo, hi) = (
                u32_at(starts, band) as usize,
                u32_at(starts, band + 1) as usize,
            );
            let got: Option<Vec<(u32, u32)>> = (hi >= lo && hi as u64 <= h.records).then(|| {
                (lo..hi)
                    .map(|i| (u32_at(keys, i), u32_at(bdocs, i)))
                    .collect()
            });
            if got.as_ref() != Some(&want) {
                return bad(format!(
                    "its band {band} table does not match its signatures"
                ));
            }
        }
        Ok(())
    }
}

/// A signature from its slots' little-endian bytes (a damaged segment's
/// slots may not make one: `None`, which `verify` finds).
fn decode_signature(bytes: &[u8]) -> Option<Signature> {
    let slots = bytes
        .chunks_exact(4)
        .map(|s| u32::from_le_bytes(s.try_into().expect("4 bytes")))
        .collect();
    Signature::from_slots(slots).ok()
}

/// The first `i` in `0..len` for which `below(i)` is false, `below` being
/// true then false along the range (a binary search over a table read
/// through accessors, where `slice::partition_point` needs a slice).
fn partition_point(len: usize, below: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if below(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// XXH3-64 (seed 0) of `bytes`: every checksum and id hash of the format.
fn xxh3_64(bytes: &[u8]) -> u64 {
    XxHash3_64::oneshot(bytes)
}
