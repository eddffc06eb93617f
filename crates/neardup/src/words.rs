//! The words of a normalized text, each mapped back to the bytes of the
//! original text it came from.

use std::ops::Range;

use crate::normalize::{self, is_whitespace};
use crate::WordRule;

/// A text's normalized words (SPEC §1–§2), with, for each word, the byte
/// range of the original text it was normalized from.
///
/// The map is exact because normalizing never moves a word boundary:
/// lowercasing maps every character to one or more characters, whitespace
/// characters map to themselves, and no other character maps to anything
/// containing whitespace (a test checks every `char`). So the `i`-th word of
/// the normalized text is the lowercase of the `i`-th maximal run of
/// non-whitespace characters in the original; no search is needed.
///
/// A word's lowercase still depends on its surroundings through
/// Final_Sigma, which is why the words themselves come from normalizing the
/// whole text, never from normalizing each run alone.
///
/// ```
/// use neardup::Words;
/// let w = Words::new("  İs\r\nTHIS\u{feff}ΟΔΟΣ ");
/// assert_eq!(w.word_text(), "i̇s this οδος");
/// assert_eq!(w.len(), 3);
/// assert_eq!(w.word(0), "i\u{307}s");
/// assert_eq!(w.original(0), 2..5); // "İs": İ is two bytes
/// assert_eq!(w.original(2), 14..22);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Words {
    normalized: String,
    /// Where each word starts in `normalized`, plus one past-the-end entry
    /// at `normalized.len() + 1`, so word `i` ends one byte (the space)
    /// before word `i + 1` starts.
    starts: Vec<usize>,
    /// The byte range of each word in the original text.
    original: Vec<Range<usize>>,
}

impl Words {
    /// Normalizes `text` and maps its words (split on spaces) back to it.
    pub fn new(text: &str) -> Words {
        Words::with_rule(text, WordRule::Space)
    }

    /// Normalizes `text` and maps its words under `rule` back to it. Under
    /// [`WordRule::Script`] a code point of the table is a word of its
    /// own, in the normalized text and in the original alike: lowercasing
    /// maps no code point into or out of the table (a test checks every
    /// `char`).
    ///
    /// ```
    /// use neardup::{WordRule, Words};
    /// let w = Words::with_rule("Ab你好 c", WordRule::Script);
    /// assert_eq!(w.word_text(), "ab 你 好 c");
    /// assert_eq!(w.original(1), 2..5);
    /// assert_eq!(w.original_span(0..3), 0..8);
    /// ```
    pub fn with_rule(text: &str, rule: WordRule) -> Words {
        let mut normalized = normalize::normalize(text);
        let spaced = match rule.word_text(&normalized) {
            std::borrow::Cow::Borrowed(_) => false,
            std::borrow::Cow::Owned(spaced) => {
                normalized = spaced;
                true
            }
        };
        let mut starts = Vec::with_capacity(normalized.len() / 5 + 2);
        if !normalized.is_empty() {
            starts.push(0);
            starts.extend(spaces(&normalized).map(|i| i + 1));
        }
        starts.push(normalized.len() + 1);
        let mut original = runs(text);
        if spaced {
            original = split_script(text, original);
        }
        // Holds for every text; see the type's documentation and the
        // `no_char_moves_a_word_boundary` test.
        assert_eq!(
            original.len(),
            starts.len() - 1,
            "normalization moved a word boundary"
        );
        Words {
            normalized,
            starts,
            original,
        }
    }

    /// The word text: the normalized text ([`crate::normalize()`]'s
    /// output) as the rule's words joined by single spaces; under
    /// [`WordRule::Space`], the normalized text itself.
    pub fn word_text(&self) -> &str {
        &self.normalized
    }

    /// The number of words.
    pub fn len(&self) -> usize {
        self.original.len()
    }

    /// Whether the text has no words at all.
    pub fn is_empty(&self) -> bool {
        self.original.is_empty()
    }

    /// The `i`-th normalized word. Panics if `i >= self.len()`.
    pub fn word(&self, i: usize) -> &str {
        &self.normalized[self.starts[i]..self.starts[i + 1] - 1]
    }

    /// The normalized words `range`, joined by single spaces: a slice of
    /// the normalized text. For `k` words from `j` this is shingle `j`.
    /// Panics if the range is empty or out of bounds.
    pub fn join(&self, range: Range<usize>) -> &str {
        assert!(range.start < range.end, "empty word range {range:?}");
        &self.normalized[self.starts[range.start]..self.starts[range.end] - 1]
    }

    /// The byte range in the original text that word `i` was normalized
    /// from. Panics if `i >= self.len()`.
    pub fn original(&self, i: usize) -> Range<usize> {
        self.original[i].clone()
    }

    /// The byte range in the original text that words `range` were
    /// normalized from: from the first one's start to the last one's end.
    /// Panics if the range is empty or out of bounds.
    pub fn original_span(&self, range: Range<usize>) -> Range<usize> {
        assert!(range.start < range.end, "empty word range {range:?}");
        self.original[range.start].start..self.original[range.end - 1].end
    }
}

/// Byte offsets of the spaces in a normalized text.
fn spaces(normalized: &str) -> impl Iterator<Item = usize> + '_ {
    normalized
        .bytes()
        .enumerate()
        .filter_map(|(i, b)| (b == b' ').then_some(i))
}

/// `runs` cut further so that every code point of the script table is a
/// range of its own.
fn split_script(text: &str, runs: Vec<Range<usize>>) -> Vec<Range<usize>> {
    let mut out = Vec::with_capacity(runs.len() * 2);
    for run in runs {
        let mut start = run.start;
        for (i, c) in text[run.clone()].char_indices() {
            if WordRule::is_script_char(c) {
                let at = run.start + i;
                if start < at {
                    out.push(start..at);
                }
                start = at + c.len_utf8();
                out.push(at..start);
            }
        }
        if start < run.end {
            out.push(start..run.end);
        }
    }
    out
}

/// The byte ranges of the maximal runs of non-whitespace characters.
fn runs(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::with_capacity(text.len() / 6 + 1);
    let mut start = None;
    if text.is_ascii() {
        // Same result, without decoding: the common case, and the one that
        // makes explaining two 10 MB files fast.
        for (i, &b) in text.as_bytes().iter().enumerate() {
            if matches!(b, b'\t'..=b'\r' | b' ') {
                if let Some(s) = start.take() {
                    out.push(s..i);
                }
            } else if start.is_none() {
                start = Some(i);
            }
        }
    } else {
        for (i, c) in text.char_indices() {
            if is_whitespace(c) {
                if let Some(s) = start.take() {
                    out.push(s..i);
                }
            } else if start.is_none() {
                start = Some(i);
            }
        }
    }
    if let Some(s) = start {
        out.push(s..text.len());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The claim the whole map rests on, checked for every scalar value.
    #[test]
    #[cfg_attr(miri, ignore = "every code point: hours under Miri")]
    fn no_char_moves_a_word_boundary() {
        for c in (0..=0x10_ffff).filter_map(char::from_u32) {
            let lower: Vec<char> = c.to_lowercase().collect();
            assert!(!lower.is_empty(), "{c:?} lowercases to nothing");
            if is_whitespace(c) {
                assert_eq!(lower, [c], "whitespace {c:?} changes when lowercased");
            } else {
                assert!(
                    !lower.iter().any(|&l| is_whitespace(l)),
                    "{c:?} lowercases to whitespace"
                );
            }
        }
        // Final_Sigma's other outcome is not whitespace either.
        assert!(!is_whitespace('ς'));
    }

    #[test]
    fn script_words_map_back_to_the_original() {
        let text = "ＡＢ漢字\u{3000}ÀBC日本 x";
        let w = Words::with_rule(text, WordRule::Script);
        assert_eq!(w.word_text(), "ａｂ 漢 字 àbc 日 本 x");
        let originals: Vec<&str> = (0..w.len()).map(|i| &text[w.original(i)]).collect();
        assert_eq!(originals, ["ＡＢ", "漢", "字", "ÀBC", "日", "本", "x"]);
        assert_eq!(w.join(1..3), "漢 字");
        assert_eq!(Words::new(text).len(), 3);
    }

    #[test]
    fn empty_and_blank() {
        for text in ["", " \u{3000}\u{feff}\r\n"] {
            let w = Words::new(text);
            assert!(w.is_empty());
            assert_eq!(w.word_text(), "");
        }
    }

    #[test]
    fn final_sigma_sees_the_whole_text() {
        // U+FEFF is whitespace and Case_Ignorable: the sigma is not final.
        let w = Words::new("ΑΣ\u{feff}Β");
        assert_eq!(w.word(0), "ασ");
        assert_eq!(w.original(0), 0..4);
        let w = Words::new("ΑΣ Β");
        assert_eq!(w.word(0), "ας");
    }

    #[test]
    fn join_is_a_shingle() {
        let w = Words::new("One  TWO\tthree four");
        assert_eq!(w.join(1..3), "two three");
        assert_eq!(w.join(0..4), "one two three four");
        assert_eq!(w.original_span(1..3), 5..14);
    }

    fn text() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(vec![
            "a", "B", "İ", "Σ", "ΑΣ", "σ", "ς", "ʰ", "'", "ẞ", "é", "\u{301}", "\u{feff}", " ",
            "  ", "\t", "\r\n", "\n", "\u{2028}", "\u{a0}", "\u{85}", "\u{200b}", "x1",
        ]);
        prop::collection::vec(pieces, 0..40).prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn words_are_exactly_the_normalized_words(t in text()) {
            let w = Words::new(&t);
            let n = normalize::normalize(&t);
            let expected: Vec<&str> = if n.is_empty() { Vec::new() } else { n.split(' ').collect() };
            let got: Vec<&str> = (0..w.len()).map(|i| w.word(i)).collect();
            prop_assert_eq!(got, expected);
            for i in 0..w.len() {
                let run = &t[w.original(i)];
                prop_assert!(!run.is_empty());
                prop_assert!(!run.chars().any(is_whitespace));
                // Alone, a run normalizes to its word, except that the
                // sigma may turn final where U+FEFF hid the word end.
                prop_assert_eq!(
                    normalize::normalize(run).replace('ς', "σ"),
                    w.word(i).replace('ς', "σ")
                );
            }
        }
    }
}
