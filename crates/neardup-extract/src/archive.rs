//! A zip container (DOCX, ODT, EPUB) read within caps: entry count,
//! bytes decompressed in all, and each entry's expansion ratio. Entry
//! sizes in the zip's directory are claims, so every read is capped as it
//! goes, not trusted up front.

use std::io::{Cursor, Read};

use zip::result::ZipError;
use zip::ZipArchive;

use crate::{Error, Limits};

/// Entries under this size are exempt from the ratio cap: a few kilobytes
/// of repeated XML may compress 2000:1 and harm no one.
const RATIO_FLOOR: u64 = 1 << 20;

/// An opened zip and what is left of its decompression budget.
pub(crate) struct Archive<'a> {
    zip: ZipArchive<Cursor<&'a [u8]>>,
    format: &'static str,
    limits: Limits,
    /// Bytes that reads may still decompress, all entries together.
    budget: u64,
}

impl<'a> Archive<'a> {
    /// Opens `bytes` as a zip; `format` (`DOCX`) names it in messages.
    pub(crate) fn open(
        bytes: &'a [u8],
        format: &'static str,
        limits: &Limits,
    ) -> Result<Self, Error> {
        let zip = ZipArchive::new(Cursor::new(bytes)).map_err(|e| zip_error(format, "", e))?;
        if zip.len() > limits.max_entries {
            return Err(Error::Limit(format!(
                "holds {} zip entries, over the limit of {}",
                zip.len(),
                limits.max_entries
            )));
        }
        Ok(Archive {
            zip,
            format,
            limits: *limits,
            budget: limits.max_size,
        })
    }

    /// The whole of entry `name`, or `None` if there is none.
    pub(crate) fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>, Error> {
        self.read_capped(name, self.budget)
    }

    /// Entry `name`, read only if it is at most 64 KiB (a `mimetype`, a
    /// content-types list).
    pub(crate) fn read_small(&mut self, name: &str) -> Result<Option<Vec<u8>>, Error> {
        self.read_capped(name, self.budget.min(64 << 10))
    }

    fn read_capped(&mut self, name: &str, cap: u64) -> Result<Option<Vec<u8>>, Error> {
        let format = self.format;
        let mut entry = match self.zip.by_name(name) {
            Ok(entry) => entry,
            Err(ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(zip_error(format, name, e)),
        };
        if entry.encrypted() {
            return Err(Error::Encrypted);
        }
        let ratio_cap = entry
            .compressed_size()
            .saturating_mul(self.limits.max_ratio)
            .max(RATIO_FLOOR);
        let cap = cap.min(ratio_cap);
        let mut out = Vec::with_capacity(entry.size().min(cap).min(16 << 20) as usize);
        (&mut entry)
            .take(cap.saturating_add(1))
            .read_to_end(&mut out)
            .map_err(|e| Error::corrupt(format, format!("entry '{name}': {e}")))?;
        let got = out.len() as u64;
        if got > cap {
            return Err(if cap == ratio_cap {
                Error::Limit(format!(
                    "zip entry '{name}' expands more than {}:1 (a zip bomb?)",
                    self.limits.max_ratio
                ))
            } else if cap < self.budget {
                Error::corrupt(format, format!("entry '{name}' is over {cap} bytes"))
            } else {
                self.limits.too_large()
            });
        }
        self.budget -= got;
        Ok(Some(out))
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
