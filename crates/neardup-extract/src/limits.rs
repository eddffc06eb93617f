//! The caps that keep a hostile file bounded: a zip bomb, a PDF stream
//! that inflates to gigabytes, markup nested a million deep.

/// Caps on what one file may expand to. The defaults suit documents a
/// person writes; `max_size` is the CLI's `--max-size`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes a file may decompress to, all its parts together
    /// (zip entries, PDF streams), and the most text it may give.
    pub max_size: u64,
    /// The most entries a zip container may list.
    pub max_entries: usize,
    /// The most a zip entry or a PDF stream may expand, as a ratio of
    /// decompressed to compressed bytes. Deflate peaks near 1032:1, so a
    /// real document stays well below the default.
    pub max_ratio: u64,
    /// The deepest nesting of elements or groups that is read.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_size: 1 << 30,
            max_entries: 10_000,
            max_ratio: 1_100,
            max_depth: 512,
        }
    }
}

impl Limits {
    /// The message for a file that expands past `max_size`.
    pub(crate) fn too_large(&self) -> crate::Error {
        crate::Error::Limit(format!(
            "expands to more than the --max-size limit of {} bytes",
            self.max_size
        ))
    }

    /// The message for markup nested past `max_depth`.
    pub(crate) fn too_deep(&self) -> crate::Error {
        crate::Error::Limit(format!("nested more than {} levels deep", self.max_depth))
    }
}
