//! A zip container (DOCX, ODT, EPUB) read within caps: entry count,
//! bytes inflated in all ([`Limits::max_expanded`]), and each entry's
//! expansion ratio. Entries are readers that inflate as they are read,
//! so a part is parsed while it inflates and never held whole: memory
//! does not grow with how far an entry expands. Entry sizes in the zip's
//! directory are claims, so every read is counted as it goes, not
//! trusted up front.

use std::cell::Cell;
use std::io::{self, BufReader, Cursor, Read, Seek, SeekFrom};
use std::rc::Rc;

use zip::read::ZipFile;
use zip::result::ZipError;
use zip::ZipArchive;

use crate::xml::Xml;
use crate::{Error, Limits};

/// Entries under this size are exempt from the ratio cap: a few kilobytes
/// of repeated XML may compress 2000:1 and harm no one.
const RATIO_FLOOR: u64 = 1 << 20;

/// How much of an entry is inflated ahead of the parser: enough that
/// the inflater runs in long strides, small beside any cap.
const READ_AHEAD: usize = 64 << 10;

/// Past this much output, an entry that has inflated more than
/// [`RUNNING_RATIO`]:1 *so far* is a bomb. The markup of a real document
/// compresses 5:1 to 30:1; deflate peaks near 1032:1, which only a long
/// run of one repeated pattern reaches, and a bomb is such a run. So a
/// bomb is refused after 16 MiB, in a few hundredths of a second, instead
/// of being parsed up to [`Limits::max_expanded`], which markup that
/// dense (a tag every few bytes) would take seconds to reach.
const RUNNING_FLOOR: u64 = 16 << 20;

/// See [`RUNNING_FLOOR`].
const RUNNING_RATIO: u64 = 256;

/// An opened zip and what is left of its inflation budget.
pub(crate) struct Archive<'a> {
    zip: ZipArchive<Tracked<'a>>,
    /// Where the zip is being read: the compressed bytes an entry has
    /// consumed, for its running ratio.
    at: Rc<Cell<u64>>,
    format: &'static str,
    limits: Limits,
    /// Bytes that reads may still inflate, all entries together.
    budget: u64,
}

impl<'a> Archive<'a> {
    /// Opens `bytes` as a zip; `format` (`DOCX`) names it in messages.
    pub(crate) fn open(
        bytes: &'a [u8],
        format: &'static str,
        limits: &Limits,
    ) -> Result<Self, Error> {
        let at = Rc::new(Cell::new(0));
        let tracked = Tracked {
            inner: Cursor::new(bytes),
            at: at.clone(),
        };
        let zip = ZipArchive::new(tracked).map_err(|e| zip_error(format, "", e))?;
        if zip.len() > limits.max_entries {
            return Err(Error::Limit(format!(
                "holds {} zip entries, over the limit of {}",
                zip.len(),
                limits.max_entries
            )));
        }
        Ok(Archive {
            zip,
            at,
            format,
            limits: *limits,
            budget: limits.max_expanded,
        })
    }

    /// Entry `name` as a reader that inflates as it is read, or `None`
    /// if there is none.
    pub(crate) fn entry(&mut self, name: &str) -> Result<Option<Entry<'_, 'a>>, Error> {
        let format = self.format;
        let file = match self.zip.by_name(name) {
            Ok(file) => file,
            Err(ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(zip_error(format, name, e)),
        };
        if file.encrypted() {
            return Err(Error::Encrypted);
        }
        let ratio_cap = file
            .compressed_size()
            .saturating_mul(self.limits.max_ratio)
            .max(RATIO_FLOOR);
        let start = file.data_start();
        Ok(Some(Entry {
            file,
            at: self.at.clone(),
            start,
            format,
            name: name.to_owned(),
            budget: &mut self.budget,
            limits: self.limits,
            ratio_cap,
            read: 0,
        }))
    }

    /// Entry `name` as XML, parsed as it inflates.
    pub(crate) fn xml(
        &mut self,
        name: &str,
    ) -> Result<Option<Xml<BufReader<Entry<'_, 'a>>>>, Error> {
        let (format, limits) = (self.format, self.limits);
        Ok(self.entry(name)?.map(|entry| {
            Xml::new(
                BufReader::with_capacity(READ_AHEAD, entry),
                format,
                name,
                &limits,
            )
        }))
    }

    /// Entry `name`, read whole only if it is at most 64 KiB (a
    /// `mimetype`, a content-types list).
    pub(crate) fn read_small(&mut self, name: &str) -> Result<Option<Vec<u8>>, Error> {
        const SMALL: u64 = 64 << 10;
        let Some(entry) = self.entry(name)? else {
            return Ok(None);
        };
        let (format, name) = (entry.format, entry.name.clone());
        let mut out = Vec::new();
        entry
            .take(SMALL + 1)
            .read_to_end(&mut out)
            .map_err(|e| Error::from_io(&e, format, &name))?;
        if out.len() as u64 > SMALL {
            return Err(Error::corrupt(
                format,
                format!("entry '{name}' is over {SMALL} bytes"),
            ));
        }
        Ok(Some(out))
    }
}

/// One zip entry being inflated: every byte is counted against the
/// archive's budget and the entry's ratio cap as it comes, and a read
/// past either fails with the cap's [`Error`] (carried in the
/// `io::Error`, see [`Error::from_io`]).
pub(crate) struct Entry<'z, 'a> {
    file: ZipFile<'z, Tracked<'a>>,
    /// Where the zip is being read, and where this entry's data starts:
    /// the compressed bytes it has consumed are the difference (a read
    /// ahead of the inflater's counts too, which only lowers the ratio).
    at: Rc<Cell<u64>>,
    start: u64,
    format: &'static str,
    name: String,
    budget: &'z mut u64,
    limits: Limits,
    /// The most this entry may give by [`Limits::max_ratio`].
    ratio_cap: u64,
    /// Bytes given so far.
    read: u64,
}

impl Entry<'_, '_> {
    /// Reads until `needle` is found (true) or the entry ends (false),
    /// holding no more than a read's worth of it at a time.
    pub(crate) fn contains(mut self, needle: &[u8]) -> Result<bool, Error> {
        let keep = needle.len().saturating_sub(1);
        let mut window = Vec::with_capacity(READ_AHEAD + keep);
        let mut chunk = vec![0; READ_AHEAD];
        loop {
            let n = self
                .read(&mut chunk)
                .map_err(|e| Error::from_io(&e, self.format, &self.name))?;
            if n == 0 {
                return Ok(false);
            }
            window.extend_from_slice(&chunk[..n]);
            if memchr::memmem::find(&window, needle).is_some() {
                return Ok(true);
            }
            let cut = window.len().saturating_sub(keep);
            window.drain(..cut);
        }
    }
}

impl Read for Entry<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read(buf)?;
        self.read += n as u64;
        if self.read > self.ratio_cap {
            return Err(Error::Limit(format!(
                "zip entry '{}' expands more than {}:1 (a zip bomb?)",
                self.name, self.limits.max_ratio
            ))
            .into_io());
        }
        if n as u64 > *self.budget {
            return Err(self.limits.too_expanded().into_io());
        }
        *self.budget -= n as u64;
        let consumed = self.at.get().saturating_sub(self.start).max(1);
        if self.read > RUNNING_FLOOR && self.read / consumed > RUNNING_RATIO {
            return Err(Error::Limit(format!(
                "zip entry '{}' has expanded more than {RUNNING_RATIO}:1 past {RUNNING_FLOOR} bytes (a zip bomb?)",
                self.name
            ))
            .into_io());
        }
        Ok(n)
    }
}

/// The zip's bytes, telling where they are being read.
struct Tracked<'a> {
    inner: Cursor<&'a [u8]>,
    at: Rc<Cell<u64>>,
}

impl Read for Tracked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.at.set(self.inner.position());
        Ok(n)
    }
}

impl Seek for Tracked<'_> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let at = self.inner.seek(to)?;
        self.at.set(at);
        Ok(at)
    }
}

/// A zip error in words: `not a valid DOCX file: ...`.
fn zip_error(format: &'static str, name: &str, e: ZipError) -> Error {
    match e {
        ZipError::UnsupportedArchive(m) if m.contains("ncrypt") || m.contains("assword") => {
            Error::Encrypted
        }
        ZipError::InvalidPassword => Error::Encrypted,
        e if name.is_empty() => Error::corrupt(format, format!("broken zip: {e}")),
        e => Error::corrupt(format, format!("zip entry '{name}': {e}")),
    }
}
