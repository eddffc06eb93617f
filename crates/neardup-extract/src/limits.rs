//! The caps that keep a hostile file bounded: a zip bomb, a PDF stream
//! that inflates to gigabytes, markup nested a million deep.

/// The most bytes one token of markup may take while it is parsed (an
/// XML event, an HTML tag or comment): a parser holds the token it is
/// reading whole, so this, not how far a part inflates, bounds what it
/// holds. A paragraph of a plain text converted by a word processor is
/// one text event, so this is well above the 16 MB of text a document is
/// expected to hold.
pub(crate) const MAX_TOKEN: u64 = 32 << 20;

/// Caps on what one file may expand to. The defaults suit documents a
/// person writes; `max_size` is the CLI's `--max-size`, `max_expanded`
/// its `--max-expanded`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most text a file may give (for a plain text, the file itself).
    pub max_size: u64,
    /// The most bytes a container may inflate to, all its parts together
    /// (the zip entries read, the PDF streams decoded), counted as they
    /// inflate. Parts are parsed as they inflate, so this bounds the time
    /// a bomb takes, not the memory, which never holds a part whole; only
    /// a PDF stream is held whole, and each may be at most a quarter of it
    /// ([`Limits::max_stream`]).
    pub max_expanded: u64,
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
            max_expanded: 256 << 20,
            max_entries: 10_000,
            max_ratio: 1_100,
            max_depth: 512,
        }
    }
}

impl Limits {
    /// The most a PDF stream may inflate to: a quarter of
    /// [`Limits::max_expanded`]. A page's content stream is parsed whole,
    /// so this is what one stream may hold in memory.
    ///
    /// ```
    /// use neardup_extract::Limits;
    /// assert_eq!(Limits::default().max_stream(), 64 << 20);
    /// ```
    pub fn max_stream(&self) -> u64 {
        self.max_expanded / 4
    }

    /// The message for a file that inflates past `max_expanded`.
    pub(crate) fn too_expanded(&self) -> crate::Error {
        crate::Error::Limit(format!(
            "expands to more than the --max-expanded limit of {} bytes (a decompression bomb?)",
            self.max_expanded
        ))
    }

    /// The message for markup nested past `max_depth`.
    pub(crate) fn too_deep(&self) -> crate::Error {
        crate::Error::Limit(format!("nested more than {} levels deep", self.max_depth))
    }
}
