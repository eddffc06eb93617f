//! The one writer of an index: it holds the lock, adds segments and
//! compacts them, and replaces the manifest last, so that every step
//! before is invisible to readers until it is complete.

use std::collections::HashSet;

use foldhash::fast::RandomState;
use std::path::Path;

use neardup::scan::Plan;

use crate::index::Index;
use crate::lock::Lock;
use crate::manifest::{sync_dir, Entry, Manifest};
use crate::segment::{self, NewDoc};
use crate::{Error, Result};

/// Temporary files start with this: a writer killed mid-write leaves them,
/// readers never look at them, the next writer removes them.
const TEMP_PREFIX: &str = ".tmp-";

/// An index open for writing, its lock held until dropped.
pub struct Writer {
    index: Index,
    _lock: Lock,
}

/// What one [`Writer::add`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Added {
    /// The first added document's number.
    pub first: u32,
    /// How many were added.
    pub docs: u32,
    /// The new segment's file, `None` when nothing was added.
    pub file: Option<String>,
}

impl Writer {
    /// Creates an empty index in `dir`, which must not exist or be empty.
    pub fn create(dir: &Path, plan: &Plan) -> Result<Writer> {
        match std::fs::read_dir(dir) {
            Ok(mut entries) => {
                if entries.next().is_some() {
                    let what = match dir.join(crate::MANIFEST).exists() {
                        true => "is an index already (`neardup index add` adds to it)",
                        false => "exists and is not empty",
                    };
                    return Err(Error::Refused(format!(
                        "cannot create an index in '{}': it {what}",
                        dir.display()
                    )));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(dir).map_err(|e| Error::io("creating", dir, e))?;
            }
            Err(e) => return Err(Error::io("reading", dir, e)),
        }
        let lock = Lock::take(dir)?;
        let manifest = Manifest::new(plan);
        manifest.write(dir)?;
        Ok(Writer {
            index: Index::with_manifest(dir, manifest)?,
            _lock: lock,
        })
    }

    /// Opens the index in `dir` for writing: takes the lock (or says who
    /// holds it), then removes what a crashed writer left.
    pub fn open(dir: &Path) -> Result<Writer> {
        Manifest::read(dir)?; // a missing or foreign directory gets no LOCK file
        let lock = Lock::take(dir)?;
        let index = Index::open(dir)?;
        let known: HashSet<&str> = index
            .manifest()
            .segments
            .iter()
            .map(|e| e.file.as_str())
            .collect();
        let entries = std::fs::read_dir(dir).map_err(|e| Error::io("listing", dir, e))?;
        for name in entries.filter_map(|e| e.ok()?.file_name().into_string().ok()) {
            let stray = name.starts_with(TEMP_PREFIX)
                || (name.starts_with("seg-")
                    && name.ends_with(".nds")
                    && !known.contains(name.as_str()));
            if stray {
                let path = dir.join(&name);
                std::fs::remove_file(&path).map_err(|e| Error::io("removing", &path, e))?;
            }
        }
        Ok(Writer { index, _lock: lock })
    }

    /// The index as this writer last committed it.
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// Adds `docs` (ids as JSON text, fingerprints made with the index's
    /// params) as one new segment, numbered from `self.index().len()`.
    /// Nothing changes unless all of it is written: the segment is written
    /// and synced under a temporary name, renamed, and only then named in
    /// a new manifest.
    pub fn add(&mut self, docs: Vec<NewDoc>) -> Result<Added> {
        let index = &self.index;
        let first = index.len();
        let count = u32::try_from(docs.len())
            .ok()
            .filter(|&c| u64::from(first) + u64::from(c) < u64::from(u32::MAX))
            .ok_or_else(|| {
                Error::Refused(format!("an index holds at most {} documents", u32::MAX - 1))
            })?;
        if count == 0 {
            return Ok(Added {
                first,
                docs: 0,
                file: None,
            });
        }
        let params = index.params();
        if let Some((id, fp)) = docs.iter().find(|(_, fp)| fp.params != params) {
            return Err(Error::Refused(format!(
                "document {id} was signed with k={}, n={}, but index '{}' uses k={}, n={}",
                fp.params.k(),
                fp.params.n(),
                index.dir().display(),
                params.k(),
                params.n()
            )));
        }
        index.check_ids(docs.iter().map(|(id, _)| id.as_str()))?;
        let mut seen = HashSet::with_hasher(RandomState::default());
        let is_first: Vec<bool> = docs
            .iter()
            .map(|(_, fp)| {
                use neardup::scan::References;
                let d = &fp.normalized_sha256;
                index.first_with_digest(d).is_none() && seen.insert(*d)
            })
            .collect();
        let mut manifest = index.manifest().clone();
        let entry = self.write_segment(&mut manifest, first, &docs, &is_first)?;
        manifest.docs += count;
        manifest.segments.push(entry.clone());
        self.commit(manifest, &[])?;
        Ok(Added {
            first,
            docs: count,
            file: Some(entry.file),
        })
    }

    /// Merges every segment into one, so that a query searches one table
    /// per band. The old segments are removed once the new manifest is in
    /// place; a reader that opened them keeps reading its mapping.
    pub fn compact(&mut self) -> Result<()> {
        let index = &self.index;
        if index.segments().len() <= 1 {
            return Ok(());
        }
        let docs: Vec<NewDoc> = (0..index.len())
            .map(|d| (index.id(d).to_owned(), index.fingerprint(d)))
            .collect();
        let mut seen = HashSet::with_hasher(RandomState::default());
        let is_first: Vec<bool> = docs
            .iter()
            .map(|(_, fp)| seen.insert(fp.normalized_sha256))
            .collect();
        let mut manifest = index.manifest().clone();
        let old: Vec<String> = manifest.segments.iter().map(|e| e.file.clone()).collect();
        let entry = self.write_segment(&mut manifest, 0, &docs, &is_first)?;
        manifest.segments = vec![entry];
        self.commit(manifest, &old)
    }

    /// Writes one segment file under its final name (via a synced
    /// temporary), taking its number from `manifest`.
    fn write_segment(
        &self,
        manifest: &mut Manifest,
        first: u32,
        docs: &[NewDoc],
        is_first: &[bool],
    ) -> Result<Entry> {
        let dir = self.index.dir();
        let file = format!("seg-{:08}.nds", manifest.next_segment);
        manifest.next_segment += 1;
        let path = dir.join(&file);
        let fail = |e| Error::io("writing", &path, e);
        let mut tmp = tempfile::Builder::new()
            .prefix(TEMP_PREFIX)
            .tempfile_in(dir)
            .map_err(fail)?;
        let header = segment::write(tmp.as_file_mut(), &self.index.plan(), first, docs, is_first)
            .map_err(fail)?;
        tmp.as_file().sync_all().map_err(fail)?;
        let bytes = tmp.as_file().metadata().map_err(fail)?.len();
        tmp.persist_noclobber(&path).map_err(|e| fail(e.error))?;
        Ok(Entry {
            file,
            first,
            docs: header.docs,
            bytes,
            xxh3: format!("{:016x}", header.body_xxh3),
        })
    }

    /// Puts `manifest` in place, then removes the files it no longer
    /// names (`old`) and reopens. If the manifest cannot be written, the
    /// segment written for it is removed and the index stays as it was.
    fn commit(&mut self, manifest: Manifest, old: &[String]) -> Result<()> {
        let dir = self.index.dir().to_owned();
        let new_file = manifest.segments.last().map(|e| e.file.clone());
        if let Err(e) = sync_dir(&dir).and_then(|()| manifest.write(&dir)) {
            if let Some(f) = new_file {
                let _ = std::fs::remove_file(dir.join(f));
            }
            return Err(e);
        }
        for f in old {
            let path = dir.join(f);
            std::fs::remove_file(&path).map_err(|e| Error::io("removing", &path, e))?;
        }
        self.index = Index::with_manifest(&dir, manifest)?;
        Ok(())
    }
}
