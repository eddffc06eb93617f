//! Texts that word shingles cannot compare. A shingle is `k` words cut at
//! whitespace (SPEC §2), so a text of fewer than `k` words has no
//! shingles however long it is, and a text written without spaces
//! (Chinese, Japanese, Thai) is a few very long "words" whose shingles
//! almost never recur. The verdict stays the spec's; the caveat tells the
//! reader not to trust a DISTINCT or an INSUFFICIENT-DATA it did not earn.

use std::fmt;

use crate::{Params, WordRule};

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
        /// When script words ([`WordRule::Script`]) would cut it into
        /// more (it was cut on spaces and has code points of the table):
        /// the K to use with them ([`WordRule::recommended_k`]).
        script_k: Option<usize>,
    },
    /// More than half of the characters (whitespace not counted) are in
    /// words of at least [`LONG_RUN_CHARS`] characters.
    LongRuns {
        /// That share, in whole percent (rounded down).
        percent: usize,
        /// As for [`Caveat::FewWords`].
        script_k: Option<usize>,
    },
}

impl Caveat {
    /// The caveat for `text` with `params`' `K` and word rule, if it needs
    /// one: the words and characters (Unicode scalar values) of its
    /// normalized text, cut as the rule cuts it.
    ///
    /// ```
    /// use neardup::{Caveat, Params, WordRule};
    /// let p = Params::DEFAULT;
    /// assert_eq!(Caveat::of("plain english words, five or more of them", p), None);
    /// let chinese = "这是一个没有空格的句子，中文和日文都是这样书写的，所以词语瓦片无法比较它们。".repeat(4);
    /// let few = Caveat::of(&chinese, p).unwrap();
    /// assert!(matches!(few, Caveat::FewWords { words: 1, script_k: Some(5), .. }));
    /// assert!(few.to_string().ends_with("script words can (--words script)"));
    /// let mixed = format!("{chinese} {chinese} {chinese} {chinese} {chinese} {chinese}");
    /// assert_eq!(Caveat::of(&mixed, p), Some(Caveat::LongRuns { percent: 100, script_k: Some(5) }));
    /// let thai = "ภาษาไทยเขียนติดกันโดยไม่เว้นวรรคระหว่างคำ".repeat(5);
    /// assert!(Caveat::of(&thai, p).unwrap().to_string().ends_with("(--words script -k 8)"));
    /// // Script words cut it into one word a character.
    /// assert_eq!(Caveat::of(&mixed, p.with_words(WordRule::Script)), None);
    /// ```
    pub fn of(text: &str, params: Params) -> Option<Caveat> {
        Caveat::of_normalized(&crate::normalize(text), params)
    }

    /// [`Caveat::of`] for a text already normalized (a [`crate::Doc`]'s).
    pub fn of_normalized(normalized: &str, params: Params) -> Option<Caveat> {
        let mut caveat = Caveat::of_word_text(&params.words().word_text(normalized), params.k())?;
        let k = match params.words() {
            WordRule::Space => WordRule::recommended_k(normalized),
            WordRule::Script => None,
        };
        match &mut caveat {
            Caveat::FewWords { script_k, .. } | Caveat::LongRuns { script_k, .. } => *script_k = k,
        }
        Some(caveat)
    }

    /// The caveat of a word text, whose words are cut at single spaces, so
    /// one pass over the bytes counts them, with no decoding.
    fn of_word_text(normalized: &str, k: usize) -> Option<Caveat> {
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
            return Some(Caveat::FewWords {
                words,
                k,
                chars,
                script_k: None,
            });
        }
        (2 * in_runs > chars).then(|| Caveat::LongRuns {
            percent: 100 * in_runs / chars,
            script_k: None,
        })
    }
}

impl fmt::Display for Caveat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let script_k = match *self {
            Caveat::FewWords {
                words,
                k,
                chars,
                script_k,
            } => {
                write!(
                    f,
                    "{words} word(s) in {chars} characters, fewer than k = {k}: word shingles cannot compare this text"
                )?;
                script_k
            }
            Caveat::LongRuns { percent, script_k } => {
                write!(
                    f,
                    "{percent}% of its characters are in runs of {LONG_RUN_CHARS}+ without spaces (as in Chinese, Japanese or Thai): word shingles cannot compare this text"
                )?;
                script_k
            }
        };
        match script_k {
            Some(5) => f.write_str("; script words can (--words script)")?,
            Some(k) => write!(f, "; script words can (--words script -k {k})")?,
            None => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: Params = Params::DEFAULT;

    #[test]
    fn short_texts_and_spaced_texts_need_no_caveat() {
        assert_eq!(Caveat::of("", P), None);
        assert_eq!(Caveat::of("four words only here", P), None);
        let long_english = "word ".repeat(200);
        assert_eq!(Caveat::of(&long_english, P), None);
        // A long word or two among many is not a run-on script.
        let with_url = format!("{long_english} https://example.com/a/very/long/path/indeed/yes");
        assert_eq!(Caveat::of(&with_url, P), None);
    }

    #[test]
    fn whitespace_is_the_spec_set() {
        // U+3000 (ideographic space) separates words; U+200B does not.
        let spaced = "这是一个句子\u{3000}".repeat(40);
        assert_eq!(Caveat::of(&spaced, P), None);
        let zwsp = "这是一个句子\u{200B}".repeat(40);
        assert!(Caveat::of(&zwsp, P).is_some());
    }
}
