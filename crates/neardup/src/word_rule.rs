//! Which words a normalized text is cut into: SPEC §2's, split on spaces,
//! or §11's script words, where each Han, kana, Thai … code point is one.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use crate::Error;

/// The word rule, carried with the [`crate::Params`]: it decides the words
/// that shingles are made of, and so the receipt's algorithm id.
///
/// The script rule is applied to the *normalized* text (SPEC §1 is the
/// same for both), by writing it as its **word text**: the normalized text
/// with a single space on each side of every code point of SPEC §11's
/// table. The word text's space-separated words are exactly §11's words,
/// and its shingles are §2's shingles of them, so everything downstream
/// (the SIMD shingle hashing, the distinct set, evidence) runs unchanged
/// on it. The receipt still hashes the normalized text, never the word
/// text.
///
/// ```
/// use neardup::WordRule;
/// assert_eq!(WordRule::Script.word_text("你好，世界"), "你 好 ， 世 界");
/// assert_eq!(WordRule::Script.word_text("neardup是工具 ok"), "neardup 是 工 具 ok");
/// assert_eq!(WordRule::Space.word_text("你好"), "你好");
/// assert_eq!(WordRule::Script.algorithm(), "kar-script-shingle-minhash-v1");
/// assert_eq!("script".parse::<WordRule>()?, WordRule::Script);
/// # Ok::<(), neardup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum WordRule {
    /// SPEC §2: words are split on spaces (`kar-shingle-minhash-v1`).
    #[default]
    Space,
    /// SPEC §11: every code point of the script table is a word by itself
    /// (`kar-script-shingle-minhash-v1`).
    Script,
}

impl WordRule {
    /// Both rules, the default first.
    pub const ALL: [WordRule; 2] = [WordRule::Space, WordRule::Script];

    /// The algorithm id a receipt made with this rule carries.
    pub fn algorithm(self) -> &'static str {
        match self {
            WordRule::Space => "kar-shingle-minhash-v1",
            WordRule::Script => "kar-script-shingle-minhash-v1",
        }
    }

    /// The rule whose algorithm id is `id`, if any.
    pub fn from_algorithm(id: &str) -> Option<WordRule> {
        WordRule::ALL.into_iter().find(|r| r.algorithm() == id)
    }

    /// The name users type: `space` or `script`.
    pub fn name(self) -> &'static str {
        match self {
            WordRule::Space => "space",
            WordRule::Script => "script",
        }
    }

    /// Whether `c` is in SPEC §11's table: a word by itself under the
    /// script rule. The table is numbers, not a Unicode property, so it
    /// never changes with a Unicode version.
    pub fn is_script_char(c: char) -> bool {
        is_script(c as u32)
    }

    /// The `K` to use with script words for a normalized text that has
    /// code points of the table, `None` for one without: 8 when most of
    /// them are Thai, Lao, Khmer or Myanmar, whose code points are letters
    /// (five make a short shingle, and unrelated texts share many), else
    /// 5, the default, for Han and kana, whose code points are morphemes
    /// or syllables. From `bench/run-script`'s measurements (RESULTS.md,
    /// "Script words"): at k = 5, unrelated Thai pairs had a median
    /// Jaccard of 0.027 against 0.005 at k = 8, while 1%-edited copies kept
    /// 0.87.
    ///
    /// ```
    /// use neardup::WordRule;
    /// assert_eq!(WordRule::recommended_k("中文和日本語です"), Some(5));
    /// assert_eq!(WordRule::recommended_k("ภาษาไทย and 中"), Some(8));
    /// assert_eq!(WordRule::recommended_k("plain text"), None);
    /// ```
    pub fn recommended_k(normalized: &str) -> Option<usize> {
        let (mut letters, mut others) = (0usize, 0usize);
        for c in normalized.chars().filter(|&c| WordRule::is_script_char(c)) {
            match c as u32 {
                0x0E00..=0x0EFF
                | 0x1000..=0x109F
                | 0x1780..=0x17FF
                | 0x19E0..=0x19FF
                | 0xA9E0..=0xA9FF
                | 0xAA60..=0xAA7F => letters += 1,
                _ => others += 1,
            }
        }
        match (letters, others) {
            (0, 0) => None,
            _ if letters > others => Some(8),
            _ => Some(5),
        }
    }

    /// The word text of a normalized text: the text whose words, split on
    /// single spaces, are this rule's words. Borrowed when that is the
    /// normalized text itself (always under [`WordRule::Space`], and under
    /// [`WordRule::Script`] for a text with no code point of the table).
    pub fn word_text(self, normalized: &str) -> Cow<'_, str> {
        let mut out = Vec::new();
        if self.write_word_text(normalized.as_bytes(), &mut out) {
            // Only whole UTF-8 sequences and ASCII spaces were written.
            Cow::Owned(String::from_utf8(out).unwrap_or_default())
        } else {
            Cow::Borrowed(normalized)
        }
    }

    /// Appends the word text of `normalized` (valid UTF-8) to `out` and
    /// returns true, or returns false and leaves `out` alone when the word
    /// text is `normalized` itself.
    ///
    /// Every code point of the table is U+0E00 or above, so it is a 3- or
    /// 4-byte sequence whose lead byte is 0xE0 or above: bytes below that
    /// (ASCII, 2-byte sequences, continuation bytes) are copied in runs,
    /// and only a 3- or 4-byte sequence is decoded and looked up.
    pub(crate) fn write_word_text(self, normalized: &[u8], out: &mut Vec<u8>) -> bool {
        if self == WordRule::Space {
            return false;
        }
        let Some(at) = next_script(normalized, 0) else {
            return false;
        };
        out.reserve(normalized.len() + normalized.len() / 2);
        // The text before the first table code point, less a space that
        // ends it: that space is written again, once, before the word.
        let mut last = match normalized[..at].last() {
            None => Last::Nothing,
            Some(b' ') => Last::Space,
            Some(_) => Last::Run,
        };
        let head = normalized[..at]
            .strip_suffix(b" ")
            .unwrap_or(&normalized[..at]);
        out.extend_from_slice(head);
        let mut i = at;
        while i < normalized.len() {
            let rest = &normalized[i..];
            // A run of bytes that can be neither a space nor a table code
            // point: part of a word of the run being read.
            let run = rest
                .iter()
                .position(|&b| b == b' ' || b >= 0xE0)
                .unwrap_or(rest.len());
            if run > 0 {
                if matches!(last, Last::Space | Last::Script) {
                    out.push(b' ');
                }
                out.extend_from_slice(&rest[..run]);
                last = Last::Run;
                i += run;
                continue;
            }
            if rest[0] == b' ' {
                // Deferred: written before the next word, so a table code
                // point right after gets one space, not two.
                last = Last::Space;
                i += 1;
                continue;
            }
            let (c, width) = decode_wide(rest);
            let script = is_script(c);
            let gap = match last {
                Last::Nothing => false,
                Last::Space | Last::Script => true,
                Last::Run => script,
            };
            if gap {
                out.push(b' ');
            }
            out.extend_from_slice(&rest[..width]);
            last = if script { Last::Script } else { Last::Run };
            i += width;
        }
        true
    }
}

/// What [`WordRule::write_word_text`] wrote last: nothing, a space (not
/// yet written), a table code point, or a code point of a run.
#[derive(PartialEq)]
enum Last {
    Nothing,
    Space,
    Script,
    Run,
}

/// The offset of the first table code point of `text` from `from` on.
fn next_script(text: &[u8], mut from: usize) -> Option<usize> {
    loop {
        from += text.get(from..)?.iter().position(|&b| b >= 0xE0)?;
        let (c, width) = decode_wide(&text[from..]);
        if is_script(c) {
            return Some(from);
        }
        from += width;
    }
}

/// The code point and length of the 3- or 4-byte UTF-8 sequence that
/// `bytes` starts with (its lead byte is 0xE0 or above). Truncated input,
/// impossible in valid UTF-8, reads as a code point outside the table.
fn decode_wide(bytes: &[u8]) -> (u32, usize) {
    let tail = |i: usize| bytes.get(i).map_or(0, |&b| u32::from(b & 0x3F));
    let lead = u32::from(bytes[0]);
    if lead < 0xF0 {
        (
            ((lead & 0x0F) << 12) | (tail(1) << 6) | tail(2),
            3.min(bytes.len()),
        )
    } else {
        let c = ((lead & 0x07) << 18) | (tail(1) << 12) | (tail(2) << 6) | tail(3);
        (c, 4.min(bytes.len()))
    }
}

/// SPEC §11's table, on a code point's number.
fn is_script(c: u32) -> bool {
    matches!(c,
        0x0E00..=0x0EFF // Thai, Lao
        | 0x1000..=0x109F // Myanmar
        | 0x1780..=0x17FF // Khmer
        | 0x19E0..=0x19FF // Khmer Symbols
        | 0x2E80..=0x2FDF // CJK and Kangxi radicals
        | 0x2FF0..=0x2FFF // Ideographic description
        | 0x3001..=0x303F // CJK symbols and punctuation
        | 0x3040..=0x30FF // Hiragana, Katakana
        | 0x3100..=0x312F // Bopomofo
        | 0x3190..=0x31FF // Kanbun … Katakana extensions
        | 0x3400..=0x4DBF // CJK Extension A
        | 0x4E00..=0x9FFF // CJK Unified Ideographs
        | 0xA000..=0xA4CF // Yi
        | 0xA9E0..=0xA9FF // Myanmar Extended-B
        | 0xAA60..=0xAA7F // Myanmar Extended-A
        | 0xF900..=0xFAFF // CJK Compatibility Ideographs
        | 0xFE30..=0xFE4F // CJK Compatibility Forms
        | 0xFF61..=0xFF9F // halfwidth CJK punctuation and Katakana
        | 0x1AFF0..=0x1B16F // Kana Extended-B … Small Kana
        | 0x20000..=0x3FFFF // Supplementary and Tertiary Ideographic Planes
    )
}

impl fmt::Display for WordRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for WordRule {
    type Err = Error;

    /// `space` or `script`; anything else is refused, quoted.
    fn from_str(s: &str) -> Result<WordRule, Error> {
        WordRule::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| Error::WordRule(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// §11's words, straight from its text: split on U+0020, then split
    /// each run at every code point of the table.
    fn words(normalized: &str) -> Vec<String> {
        let mut out = Vec::new();
        if normalized.is_empty() {
            return out;
        }
        for run in normalized.split(' ') {
            let mut word = String::new();
            for c in run.chars() {
                if WordRule::is_script_char(c) {
                    if !word.is_empty() {
                        out.push(std::mem::take(&mut word));
                    }
                    out.push(c.to_string());
                } else {
                    word.push(c);
                }
            }
            if !word.is_empty() {
                out.push(word);
            }
        }
        out
    }

    #[test]
    fn spec_examples() {
        let w = |t: &str| WordRule::Script.word_text(t).into_owned();
        assert_eq!(w("你好，世界"), "你 好 ， 世 界");
        assert_eq!(w("neardup是工具"), "neardup 是 工 具");
        // Hangul and fullwidth Latin stay in their runs.
        assert_eq!(w("한국어 ａｂ"), "한국어 ａｂ");
        // A combining mark in the table is a word; one outside stays.
        assert_eq!(w("か\u{3099}e\u{301}"), "か \u{3099} e\u{301}");
        assert_eq!(w(""), "");
        assert!(matches!(
            WordRule::Script.word_text("plain text"),
            Cow::Borrowed(_)
        ));
        assert!(matches!(
            WordRule::Script.word_text("é ü ☃"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn table_edges() {
        for (c, inside) in [
            (0x0DFF, false),
            (0x0E00, true),
            (0x3000, false),
            (0x3001, true),
            (0x303F, true),
            (0x3040, true),
            (0x3130, false),
            (0xAC00, false),
            (0xFF60, false),
            (0xFF61, true),
            (0xFF9F, true),
            (0xFFA0, false),
            (0x1AFEF, false),
            (0x1AFF0, true),
            (0x1B16F, true),
            (0x1B170, false),
            (0x3FFFF, true),
            (0x40000, false),
        ] {
            let c = char::from_u32(c).unwrap();
            assert_eq!(WordRule::is_script_char(c), inside, "{c:?}");
        }
    }

    /// Lowercasing never maps a code point into or out of the table, so
    /// the script words of a normalized text sit at the same places as in
    /// the original (what evidence relies on).
    #[test]
    #[cfg_attr(miri, ignore = "every code point: hours under Miri")]
    fn lowercase_keeps_the_table() {
        for c in (0..=0x10_ffff).filter_map(char::from_u32) {
            let lower: Vec<char> = c.to_lowercase().collect();
            if WordRule::is_script_char(c) {
                assert_eq!(lower, [c], "{c:?}");
            } else {
                assert!(!lower.iter().any(|&l| WordRule::is_script_char(l)), "{c:?}");
            }
        }
    }

    #[test]
    fn names_and_ids() {
        for r in WordRule::ALL {
            assert_eq!(r.name().parse::<WordRule>().unwrap(), r);
            assert_eq!(WordRule::from_algorithm(r.algorithm()), Some(r));
        }
        assert_eq!(
            "Script".parse::<WordRule>().unwrap_err().to_string(),
            "words must be 'space' or 'script', got 'Script'"
        );
        assert_eq!(WordRule::from_algorithm("kar-shingle-minhash-v2"), None);
    }

    proptest! {
        #[test]
        fn word_text_has_the_spec_words(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just(" ".to_owned()),
                    "[a-zé]{1,4}",
                    "[\u{4e00}-\u{4e10}\u{3040}-\u{3045}\u{0e01}-\u{0e05}，]{1,3}",
                    "[한ａ\u{301}\u{3099}“”]{1,2}",
                    "[\u{20000}\u{2A6D6}\u{1F600}\u{1B000}]{1,2}",
                ],
                0..20,
            )
        ) {
            let normalized = crate::normalize(&parts.concat());
            let text = WordRule::Script.word_text(&normalized);
            let got: Vec<String> = if text.is_empty() {
                Vec::new()
            } else {
                text.split(' ').map(str::to_owned).collect()
            };
            prop_assert_eq!(got, words(&normalized));
        }
    }
}
