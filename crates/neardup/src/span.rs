//! A stretch of an original, unnormalized text, located three ways.

use serde::Serialize;

/// A stretch of an original input text: byte offsets, char offsets and the
/// line it starts on, so that any interface can highlight exactly the text
/// the user gave.
///
/// Ends are exclusive. Chars are Unicode scalar values (Rust `char`s, not
/// UTF-16 units). `line` is 1-based and counts `\n` only: `\r\n` is one
/// line break, as in [`str::lines`], while a lone `\r`, U+2028 or U+2029
/// are not line breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Span {
    /// Byte offset of the first byte.
    pub start_byte: usize,
    /// Byte offset one past the last byte.
    pub end_byte: usize,
    /// Char offset of the first char.
    pub start_char: usize,
    /// Char offset one past the last char.
    pub end_char: usize,
    /// The 1-based line that `start_byte` is on.
    pub line: usize,
}

impl Span {
    /// The spanned text, a slice of the text the span was made for.
    ///
    /// ```
    /// use neardup::Span;
    /// let s = Span { start_byte: 2, end_byte: 4, start_char: 1, end_char: 2, line: 1 };
    /// assert_eq!(s.of("ßß€"), "ß");
    /// ```
    pub fn of<'t>(&self, text: &'t str) -> &'t str {
        &text[self.start_byte..self.end_byte]
    }
}

/// Turns byte ranges of one text into [`Span`]s, all in one pass over the
/// text however many there are.
pub(crate) fn locate(text: &str, ranges: &[std::ops::Range<usize>]) -> Vec<Span> {
    // (byte offset, char offset, line) at every offset asked about.
    let mut marks: Vec<usize> = ranges.iter().flat_map(|r| [r.start, r.end]).collect();
    marks.sort_unstable();
    marks.dedup();
    let bytes = text.as_bytes();
    let mut at = Vec::with_capacity(marks.len());
    let (mut pos, mut chars, mut lines) = (0usize, 0usize, 0usize);
    for &m in &marks {
        let chunk = &bytes[pos..m];
        // A char starts at every byte that is not a UTF-8 continuation byte.
        chars += chunk.iter().filter(|&&b| (b as i8) >= -0x40).count();
        lines += chunk.iter().filter(|&&b| b == b'\n').count();
        pos = m;
        at.push((chars, lines + 1));
    }
    let find = |offset: usize| at[marks.binary_search(&offset).unwrap_or_default()];
    ranges
        .iter()
        .map(|r| {
            let (start_char, line) = find(r.start);
            let (end_char, _) = find(r.end);
            Span {
                start_byte: r.start,
                end_byte: r.end,
                start_char,
                end_char,
                line,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_and_lines() {
        let text = "ab\r\nİx\u{2028}y\nz";
        let spans = locate(text, &[0..2, 4..7, 10..11, 12..13, 4..13]);
        let got: Vec<(&str, usize, usize, usize)> = spans
            .iter()
            .map(|s| (s.of(text), s.start_char, s.end_char, s.line))
            .collect();
        assert_eq!(
            got,
            [
                ("ab", 0, 2, 1),
                ("İx", 4, 6, 2),
                ("y", 7, 8, 2),
                ("z", 9, 10, 3),
                ("İx\u{2028}y\nz", 4, 10, 2),
            ]
        );
    }

    #[test]
    fn nothing_to_locate() {
        assert!(locate("abc", &[]).is_empty());
    }
}
