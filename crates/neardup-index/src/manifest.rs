//! `MANIFEST`: what the index is (format, settings) and which segments
//! make it, replaced as a whole by a rename, never edited in place.

use std::io::Write;
use std::path::Path;

use neardup::scan::Plan;
use neardup::{Params, Threshold, WordRule};
use serde::{Deserialize, Serialize};

use crate::{Error, Result, MANIFEST};

/// The on-disk format this build reads and writes (manifest and segments).
/// A change to either bumps it; another version's index is refused, never
/// guessed at.
pub const FORMAT_VERSION: u32 = 1;

/// The `format` field: tells an index manifest from any other JSON.
const FORMAT: &str = "neardup-index";

/// The manifest's content. Field order is the file's key order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Always `neardup-index`.
    pub format: String,
    /// [`FORMAT_VERSION`].
    pub version: u32,
    /// Shingle length.
    pub k: u32,
    /// Signature slots.
    pub n: u32,
    /// The word rule, `"script"` (SPEC §11); absent for space words, so
    /// that an index of the default rule is written as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub words: Option<String>,
    /// The threshold as a decimal (`"0.75"`), read exactly.
    pub threshold: String,
    /// LSH bands and rows: the banding every segment's band tables use.
    pub bands: u32,
    /// Slots per band.
    pub rows: u32,
    /// Documents in all segments: they are numbered `0..docs`.
    pub docs: u32,
    /// The number the next segment file gets; never reused, so a file name
    /// always means one content.
    pub next_segment: u64,
    /// The segments, in document order.
    pub segments: Vec<Entry>,
}

/// One segment as the manifest records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The file name, in the index directory.
    pub file: String,
    /// Its first document's number.
    pub first: u32,
    /// Its documents: `first..first + docs`.
    pub docs: u32,
    /// The file's length.
    pub bytes: u64,
    /// XXH3-64 of the file after its header, as 16 hex digits.
    pub xxh3: String,
}

impl Manifest {
    /// An empty index's manifest for `plan`.
    pub fn new(plan: &Plan) -> Manifest {
        let (params, banding) = (plan.params(), plan.banding());
        Manifest {
            format: FORMAT.to_owned(),
            version: FORMAT_VERSION,
            k: params.k() as u32,
            n: params.n() as u32,
            words: (params.words() != WordRule::Space).then(|| params.words().to_string()),
            threshold: plan.threshold().to_string(),
            bands: banding.bands() as u32,
            rows: banding.rows() as u32,
            docs: 0,
            next_segment: 1,
            segments: Vec::new(),
        }
    }

    /// Reads `dir`'s manifest: refused with one line if `dir` is missing,
    /// holds no index, another format version, or a manifest that does
    /// not add up.
    pub fn read(dir: &Path) -> Result<Manifest> {
        let path = dir.join(MANIFEST);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::NotAnIndex(match dir.is_dir() {
                    true => format!("'{}' is not a neardup index: it has no {MANIFEST} (create one with `neardup index create`)", dir.display()),
                    false => format!("'{}': no such index (the directory does not exist)", dir.display()),
                }));
            }
            Err(e) => return Err(Error::io("reading", &path, e)),
        };
        // The format and version first, so that another version's
        // manifest is named for what it is, whatever its other fields.
        let head: serde_json::Value = serde_json::from_slice(&bytes)
            .map_err(|e| Error::damaged(&path, format!("not JSON ({e})")))?;
        if head.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(Error::NotAnIndex(format!(
                "'{}' is not a neardup index manifest (no \"format\": \"{FORMAT}\")",
                path.display()
            )));
        }
        match head.get("version").and_then(|v| v.as_u64()) {
            Some(v) if v == u64::from(FORMAT_VERSION) => {}
            v => {
                return Err(Error::Refused(format!(
                    "index '{}' has format version {}; this neardup reads version {FORMAT_VERSION} (rebuild it with this version's `neardup index create`)",
                    dir.display(),
                    v.map_or("(none)".to_owned(), |v| v.to_string())
                )))
            }
        }
        let m: Manifest = serde_json::from_slice(&bytes)
            .map_err(|e| Error::damaged(&path, format!("a field is wrong ({e})")))?;
        m.check(&path)?;
        Ok(m)
    }

    /// The settings make a plan, and the segments follow each other.
    fn check(&self, path: &Path) -> Result<()> {
        self.plan().map_err(|e| Error::damaged(path, e))?;
        let mut next = 0u64;
        for s in &self.segments {
            let name_ok =
                s.file.starts_with("seg-") && s.file.ends_with(".nds") && !s.file.contains('/');
            if !name_ok || u64::from(s.first) != next || s.xxh3.len() != 16 {
                return Err(Error::damaged(
                    path,
                    format!("segment entry '{}' is out of place", s.file),
                ));
            }
            next += u64::from(s.docs);
        }
        if next != u64::from(self.docs) {
            return Err(Error::damaged(
                path,
                format!("its segments hold {next} documents, not {}", self.docs),
            ));
        }
        Ok(())
    }

    /// The scan plan the index was built with.
    pub fn plan(&self) -> std::result::Result<Plan, neardup::Error> {
        let words = match &self.words {
            None => WordRule::Space,
            Some(w) => w.parse()?,
        };
        let params = Params::new(u64::from(self.k), u64::from(self.n))?.with_words(words);
        let threshold = Threshold::parse(&self.threshold)?;
        Plan::with_banding(params, threshold, self.bands as usize, self.rows as usize)
    }

    /// Writes the manifest to `dir` atomically: a temporary file, synced,
    /// renamed over the old one, and the directory synced, so that after a
    /// crash the index is the old manifest's or this one's.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let path = dir.join(MANIFEST);
        let fail = |e| Error::io("writing", &path, e);
        let mut tmp = tempfile::Builder::new()
            .prefix(".tmp-manifest-")
            .tempfile_in(dir)
            .map_err(fail)?;
        let mut json = serde_json::to_vec_pretty(self).expect("a manifest serializes");
        json.push(b'\n');
        tmp.write_all(&json).map_err(fail)?;
        tmp.as_file().sync_all().map_err(fail)?;
        tmp.persist(&path).map_err(|e| fail(e.error))?;
        sync_dir(dir)
    }
}

/// Makes a rename in `dir` durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io("syncing", dir, e))
}
