//! An open index, for reading: the manifest's segments, memory-mapped,
//! asked as the core's [`References`].

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use neardup::scan::{self, Against, Plan, References};
use neardup::{Digest, Fingerprint, Params, Signature};
use serde::Serialize;

use crate::manifest::Manifest;
use crate::segment::{short_key, Segment};
use crate::{Error, Result};

/// An index opened for reading. It sees the manifest as it was when
/// opened: a writer adding meanwhile changes nothing under it (segments
/// are never rewritten, and a removed one stays readable while mapped).
pub struct Index {
    dir: PathBuf,
    manifest: Manifest,
    plan: Plan,
    segments: Vec<Segment>,
}

/// What `neardup index info` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Info {
    /// The index directory.
    pub path: String,
    /// The manifest's format version.
    pub format_version: u32,
    /// Documents in the index.
    pub documents: u32,
    /// Shingle length.
    pub k: u32,
    /// Signature slots.
    pub n: u32,
    /// The word rule: `space` or `script`.
    pub words: &'static str,
    /// The threshold, as given.
    pub threshold: String,
    /// LSH bands.
    pub bands: u32,
    /// Slots per band.
    pub rows: u32,
    /// `exact` when no pair at or over the threshold can be missed, else
    /// `probable`.
    pub recall: &'static str,
    /// The probability that a pair exactly at the threshold is missed.
    pub miss_probability: f64,
    /// Documents banded: the first of each normalized text, with a
    /// signature.
    pub banded: u64,
    /// Bytes on disk, all segments.
    pub bytes: u64,
    /// Each segment.
    pub segments: Vec<SegmentInfo>,
}

/// One segment in [`Info`].
#[derive(Debug, Clone, Serialize)]
pub struct SegmentInfo {
    /// Its file name.
    pub file: String,
    /// Its first document.
    pub first: u32,
    /// Its documents.
    pub documents: u32,
    /// Of those, the ones it bands.
    pub banded: u32,
    /// Its band records.
    pub band_records: u64,
    /// Its length.
    pub bytes: u64,
}

impl Index {
    /// Opens the index in `dir`, checking its manifest and every
    /// segment's header and length (and a small segment's checksum).
    pub fn open(dir: &Path) -> Result<Index> {
        // A compaction may remove segments between our reading the
        // manifest and opening them: then the new manifest names others.
        let mut attempts = 0;
        loop {
            let manifest = Manifest::read(dir)?;
            match Index::with_manifest(dir, manifest) {
                Err(Error::Io { source, .. })
                    if source.kind() == std::io::ErrorKind::NotFound && attempts < 3 =>
                {
                    attempts += 1;
                }
                other => return other,
            }
        }
    }

    /// The index `manifest` describes, its segments opened.
    pub(crate) fn with_manifest(dir: &Path, manifest: Manifest) -> Result<Index> {
        let plan = manifest
            .plan()
            .map_err(|e| Error::damaged(&dir.join(crate::MANIFEST), e))?;
        let segments = manifest
            .segments
            .iter()
            .map(|e| Segment::open(dir, e, &plan))
            .collect::<Result<Vec<_>>>()?;
        Ok(Index {
            dir: dir.to_owned(),
            manifest,
            plan,
            segments,
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `K`, `N`, threshold and banding: the plan every query runs.
    pub fn plan(&self) -> Plan {
        self.plan
    }

    /// `K`, `N` and the word rule.
    pub fn params(&self) -> Params {
        self.plan.params()
    }

    /// The number of documents: they are numbered `0..len`.
    pub fn len(&self) -> u32 {
        self.manifest.docs
    }

    /// Whether the index holds no document.
    pub fn is_empty(&self) -> bool {
        self.manifest.docs == 0
    }

    pub(crate) fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    pub(crate) fn segments(&self) -> &[Segment] {
        &self.segments
    }

    fn segment(&self, doc: u32) -> &Segment {
        let i = self.segments.partition_point(|s| s.header.first <= doc);
        &self.segments[i - 1]
    }

    /// Document `doc`'s id as JSON text (`"a.txt"`, `42`).
    ///
    /// # Panics
    /// If `doc >= self.len()`.
    pub fn id(&self, doc: u32) -> &str {
        self.segment(doc).id(doc)
    }

    /// Document `doc`'s fingerprint, as a receipt needs it.
    ///
    /// # Panics
    /// If `doc >= self.len()`.
    pub fn fingerprint(&self, doc: u32) -> Fingerprint {
        self.segment(doc).fingerprint(doc, self.params())
    }

    /// The document with id `id` (JSON text, as [`Index::id`] gives it).
    pub fn find_id(&self, id: &str) -> Option<u32> {
        self.segments.iter().find_map(|s| s.find_id(id))
    }

    /// Refuses an id the index holds already, or one given twice in `ids`
    /// (ids as JSON text): what an add must not take, and a query should
    /// not, as `scan --against` refuses it.
    pub fn check_ids<'a>(&self, ids: impl IntoIterator<Item = &'a str>) -> Result<()> {
        let mut seen = HashSet::with_hasher(foldhash::fast::RandomState::default());
        for id in ids {
            if let Some(doc) = self.find_id(id) {
                return Err(Error::Refused(format!(
                    "duplicate id {id}: document {doc} of index '{}' has it already",
                    self.dir.display()
                )));
            }
            if !seen.insert(id) {
                return Err(Error::Refused(format!(
                    "duplicate id {id} among the new documents"
                )));
            }
        }
        Ok(())
    }

    /// New documents scanned against the index, numbered from
    /// `self.len()`: what `neardup scan NEW --against ALL` reports.
    pub fn query(&self, new: &[Fingerprint]) -> Result<Against> {
        Ok(scan::against(self, new, &self.plan)?)
    }

    /// The summary `neardup index info` prints.
    pub fn info(&self) -> Info {
        let segments: Vec<SegmentInfo> = self
            .segments
            .iter()
            .zip(&self.manifest.segments)
            .map(|(s, e)| SegmentInfo {
                file: e.file.clone(),
                first: e.first,
                documents: e.docs,
                banded: s.banded(),
                band_records: s.header.records,
                bytes: e.bytes,
            })
            .collect();
        Info {
            path: self.dir.display().to_string(),
            format_version: self.manifest.version,
            documents: self.manifest.docs,
            k: self.manifest.k,
            n: self.manifest.n,
            words: self.params().words().name(),
            threshold: self.manifest.threshold.clone(),
            bands: self.manifest.bands,
            rows: self.manifest.rows,
            recall: if self.plan.misses_none() {
                "exact"
            } else {
                "probable"
            },
            miss_probability: self.plan.miss_probability(),
            banded: segments.iter().map(|s| u64::from(s.banded)).sum(),
            bytes: segments.iter().map(|s| s.bytes).sum(),
            segments,
        }
    }

    /// Checks everything: every segment's checksum and tables, that no id
    /// and no new text is in two segments. Returns the names of files in
    /// the directory that are not the index's (leftovers of a crashed
    /// writer, removed by the next one).
    pub fn verify(&self) -> Result<Vec<String>> {
        for (k, seg) in self.segments.iter().enumerate() {
            let earlier = &self.segments[..k];
            let mut seen = HashSet::new();
            let is_first: Vec<bool> = seg
                .docs()
                .map(|d| {
                    let digest = seg.digest(d);
                    earlier
                        .iter()
                        .all(|s| s.first_with_digest(&digest).is_none())
                        && seen.insert(digest)
                })
                .collect();
            seg.verify(&self.plan, &is_first)?;
            let mut ids = HashSet::new();
            for d in seg.docs() {
                let id = seg.id(d);
                if !ids.insert(id) || earlier.iter().any(|s| s.find_id(id).is_some()) {
                    return Err(Error::damaged(
                        &seg.path,
                        format!("id {id} is in the index twice"),
                    ));
                }
            }
        }
        let known: Vec<&str> = self
            .manifest
            .segments
            .iter()
            .map(|e| e.file.as_str())
            .collect();
        let mut leftovers: Vec<String> = std::fs::read_dir(&self.dir)
            .map_err(|e| Error::io("listing", &self.dir, e))?
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| {
                n != crate::MANIFEST && n != crate::lock::LOCK && !known.contains(&n.as_str())
            })
            .collect();
        leftovers.sort();
        Ok(leftovers)
    }
}

impl References for Index {
    fn len(&self) -> u32 {
        self.manifest.docs
    }

    fn first_with_digest(&self, digest: &Digest) -> Option<u32> {
        self.segments
            .iter()
            .find_map(|s| s.first_with_digest(digest))
    }

    fn bucket(&self, band: u32, key: u64, out: &mut Vec<u32>) {
        for s in &self.segments {
            s.bucket(band, short_key(key), out);
        }
    }

    fn signature(&self, doc: u32) -> Option<Signature> {
        self.segment(doc).signature(doc)
    }
}
