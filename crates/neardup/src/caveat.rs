//! Texts that word shingles cannot compare. A shingle is `k` words cut at
//! whitespace (SPEC §2), so a text of fewer than `k` words has no
//! shingles however long it is, and a text written without spaces
//! (Chinese, Japanese, Thai) is a few very long "words" whose shingles
//! almost never recur. The verdict stays the spec's; the caveat tells the
//! reader not to trust a DISTINCT or an INSUFFICIENT-DATA it did not earn.

use std::fmt;

/// A text with fewer words than `k` yet at least this many characters
/// (not counting whitespace) is worth a caveat; a shorter one is just
/// short.
pub const FEW_WORDS_MIN_CHARS: usize = 100;

/// A word of at least this many characters is a run without spaces: no
/// word of a spaced language is this long (English's longest dictionary
/// words are about 30 letters, and they are rare).
pub const LONG_RUN_CHARS: usize = 30;

/// Why word shingles cannot compare a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caveat {
    /// Fewer than `k` words in at least [`FEW_WORDS_MIN_CHARS`] characters.
    FewWords {
        /// The text's words.
        words: usize,
        /// The shingle size.
        k: usize,
        /// The text's characters, whitespace not counted.
        chars: usize,
    },
    /// More than half of the characters (whitespace not counted) are in
    /// words of at least [`LONG_RUN_CHARS`] characters.
    LongRuns {
        /// That share, in whole percent (rounded down).
        percent: usize,
    },
}

impl Caveat {
    /// The caveat for `text` with shingle size `k`, if it needs one: the
    /// words and characters (Unicode scalar values) of its normalized
    /// text, the one that is shingled.
    ///
    /// ```
    /// use neardup::Caveat;
    /// assert_eq!(Caveat::of("plain english words, five or more of them", 5), None);
    /// let chinese = "这是一个没有空格的句子，中文和日文都是这样书写的，所以词语瓦片无法比较它们。".repeat(4);
    /// assert!(matches!(Caveat::of(&chinese, 5), Some(Caveat::FewWords { words: 1, .. })));
    /// let mixed = format!("{chinese} {chinese} {chinese} {chinese} {chinese} {chinese}");
    /// assert_eq!(Caveat::of(&mixed, 5), Some(Caveat::LongRuns { percent: 100 }));
    /// ```
    pub fn of(text: &str, k: usize) -> Option<Caveat> {
        Caveat::of_normalized(&crate::normalize(text), k)
    }

    /// [`Caveat::of`] for a text already normalized (a [`crate::Doc`]'s):
    /// its words are cut at single spaces, so one pass over the bytes
    /// counts them, with no decoding.
    pub fn of_normalized(normalized: &str, k: usize) -> Option<Caveat> {
        let (mut words, mut chars, mut in_runs) = (0, 0, 0);
        let mut len = 0; // chars of the word being read
                         // A space ends a word; a byte that does not continue another
                         // char starts one more char of it. (Splitting into words cost as
                         // much again per word as this whole loop.)
        for &b in normalized.as_bytes().iter().chain([b' '].iter()) {
            if b == b' ' {
                if len > 0 {
                    words += 1;
                    chars += len;
                    if len >= LONG_RUN_CHARS {
                        in_runs += len;
                    }
                }
                len = 0;
            } else {
                len += usize::from((b as i8) >= -0x40);
            }
        }
        if words < k && chars >= FEW_WORDS_MIN_CHARS {
            return Some(Caveat::FewWords { words, k, chars });
        }
        (2 * in_runs > chars).then(|| Caveat::LongRuns {
            percent: 100 * in_runs / chars,
        })
    }
}

impl fmt::Display for Caveat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Caveat::FewWords { words, k, chars } => write!(
                f,
                "{words} word(s) in {chars} characters, fewer than k = {k}: word shingles cannot compare this text"
            ),
            Caveat::LongRuns { percent } => write!(
                f,
                "{percent}% of its characters are in runs of {LONG_RUN_CHARS}+ without spaces (as in Chinese, Japanese or Thai): word shingles cannot compare this text"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_texts_and_spaced_texts_need_no_caveat() {
        assert_eq!(Caveat::of("", 5), None);
        assert_eq!(Caveat::of("four words only here", 5), None);
        let long_english = "word ".repeat(200);
        assert_eq!(Caveat::of(&long_english, 5), None);
        // A long word or two among many is not a run-on script.
        let with_url = format!("{long_english} https://example.com/a/very/long/path/indeed/yes");
        assert_eq!(Caveat::of(&with_url, 5), None);
    }

    #[test]
    fn whitespace_is_the_spec_set() {
        // U+3000 (ideographic space) separates words; U+200B does not.
        let spaced = "这是一个句子\u{3000}".repeat(40);
        assert_eq!(Caveat::of(&spaced, 5), None);
        let zwsp = "这是一个句子\u{200B}".repeat(40);
        assert!(Caveat::of(&zwsp, 5).is_some());
    }
}
