//! The steps of the page's work, reported to it as progress: a comparison's
//! ([`Stage`]) and a collection's ([`CollectionStage`]).

/// One step of comparing two documents. Document indices are 0 for A and 1
/// for B.
///
/// The core computes each step in one call, so progress moves step by step;
/// the page weights the steps by document size to draw its bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Decoding a document's bytes as UTF-8.
    Decode(usize),
    /// Lowercasing and collapsing whitespace (SPEC §1).
    Normalize(usize),
    /// Collecting the distinct shingles (SPEC §2).
    Shingle(usize),
    /// Hashing the shingles into a MinHash signature (SPEC §3–§6).
    Sign(usize),
    /// Exact Jaccard, matches, verdict and receipt (SPEC §7–§9).
    Combine,
    /// Finding the passages the documents share (explain).
    Explain,
}

impl Stage {
    /// The number the page's JS glue receives: `4 * doc + step` with steps
    /// decode 0, normalize 1, shingle 2, sign 3; `8` for [`Stage::Combine`]
    /// and `9` for [`Stage::Explain`].
    ///
    /// ```
    /// use neardup_web::Stage;
    /// assert_eq!(Stage::Decode(0).code(), 0);
    /// assert_eq!(Stage::Sign(1).code(), 7);
    /// assert_eq!(Stage::Combine.code(), 8);
    /// assert_eq!(Stage::Explain.code(), 9);
    /// ```
    pub fn code(self) -> u32 {
        let (doc, step) = match self {
            Stage::Decode(d) => (d, 0),
            Stage::Normalize(d) => (d, 1),
            Stage::Shingle(d) => (d, 2),
            Stage::Sign(d) => (d, 3),
            Stage::Combine => return 8,
            Stage::Explain => return 9,
        };
        4 * u32::from(doc != 0) + step
    }
}

/// One step of scanning a collection. Each comes with how far it is
/// (`done` of `total`, in the step's own unit), so the page can draw a bar
/// that moves within a step as well as between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CollectionStage {
    /// Decoding, normalizing, shingling and signing the documents; counted
    /// in bytes.
    Sign,
    /// The core's scan at the chosen threshold; counted once.
    Scan,
    /// Each reported pair's receipt and exact Jaccard; counted in pairs.
    Pairs,
    /// The second scan, at 0.75, for the clusters (none with containment);
    /// counted once.
    Clusters,
    /// The heat map's slot-match counts; counted in documents.
    Map,
    /// With containment against sources, each submission's words found in
    /// the sources; counted once.
    Submissions,
}

impl CollectionStage {
    /// The number the page's JS glue receives, 0 to 5 in the order above.
    ///
    /// ```
    /// use neardup_web::CollectionStage;
    /// assert_eq!(CollectionStage::Sign.code(), 0);
    /// assert_eq!(CollectionStage::Map.code(), 4);
    /// assert_eq!(CollectionStage::Submissions.code(), 5);
    /// ```
    pub fn code(self) -> u32 {
        self as u32
    }
}
