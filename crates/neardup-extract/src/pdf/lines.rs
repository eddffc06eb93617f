//! Glyphs, in the order they are drawn, to lines of text. A glyph that
//! starts more than half a font size above or below where the last one
//! ended, or more than a font size back along the line, begins a new line;
//! one that starts more than [`SPACE_GAP`] of a font size past it is a new
//! word. Distances are measured along the text's own direction, so rotated
//! text reads the same.

use crate::out::Out;
use crate::{Error, Limits};

/// The gap, as a fraction of the font size, that separates two words. A
/// space is a quarter to a third of an em in common fonts; kerning and
/// letter spacing stay well under a tenth.
pub(super) const SPACE_GAP: f64 = 0.15;

/// Where the last glyph ended, in device space.
#[derive(Clone, Copy)]
struct Last {
    end: (f64, f64),
    size: f64,
    /// The unit vector of the text's direction.
    dir: (f64, f64),
}

/// The text of a document's pages, line by line.
pub(super) struct Lines {
    out: Out,
    last: Option<Last>,
    space: bool,
    page_breaks: usize,
    line_has_text: bool,
    any_text: bool,
}

impl Lines {
    pub(super) fn new(limits: &Limits) -> Lines {
        Lines {
            out: Out::new(limits),
            last: None,
            space: false,
            page_breaks: 0,
            line_has_text: false,
            any_text: false,
        }
    }

    /// One glyph whose text is `text`, drawn from `start` to `end` in the
    /// direction `dir` at `size` (device space).
    pub(super) fn glyph(
        &mut self,
        text: &str,
        start: (f64, f64),
        end: (f64, f64),
        dir: (f64, f64),
        size: f64,
    ) -> Result<(), Error> {
        let size = if size.is_finite() && size > 0.0 {
            size
        } else {
            1.0
        };
        if let Some(last) = self.last {
            let (ux, uy) = last.dir;
            let (dx, dy) = (start.0 - last.end.0, start.1 - last.end.1);
            let along = dx * ux + dy * uy;
            let across = dy * ux - dx * uy;
            let em = size.max(last.size);
            if !(across.abs() <= 0.5 * em && along >= -em) {
                self.end_line()?;
            } else if along > SPACE_GAP * em {
                self.space = true;
            }
        }
        for c in text.chars() {
            self.char(c)?;
        }
        let len = length(dir);
        let dir = if len.is_finite() && len > 0.0 {
            (dir.0 / len, dir.1 / len)
        } else {
            (1.0, 0.0)
        };
        self.last = Some(Last { end, size, dir });
        Ok(())
    }

    fn char(&mut self, c: char) -> Result<(), Error> {
        if c.is_whitespace() {
            self.space = true;
            return Ok(());
        }
        if c.is_control() {
            return Ok(());
        }
        if let Some(letters) = ligature(c) {
            for c in letters.chars() {
                self.char(c)?;
            }
            return Ok(());
        }
        if self.page_breaks > 0 {
            for _ in 0..self.page_breaks {
                self.out.push('\u{C}')?;
            }
            self.page_breaks = 0;
        }
        if self.space && self.line_has_text {
            self.out.push(' ')?;
        }
        self.space = false;
        self.out.push(c)?;
        self.line_has_text = true;
        self.any_text = true;
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), Error> {
        self.out.end_block()?;
        self.line_has_text = false;
        self.space = false;
        Ok(())
    }

    /// Ends a page: the next text is on a new line of a new page.
    pub(super) fn end_page(&mut self) -> Result<(), Error> {
        self.end_line()?;
        self.last = None;
        if self.any_text {
            self.page_breaks += 1;
        }
        Ok(())
    }

    /// The text, or `None` if no page had any.
    pub(super) fn finish(self) -> Result<Option<String>, Error> {
        if !self.any_text {
            return Ok(None);
        }
        self.out.finish().map(Some)
    }
}

/// The length of a vector. Not `f64::hypot`, whose last bit differs
/// between C libraries (glibc, wasm's libm): only `+ - * /` and `sqrt`,
/// which IEEE 754 rounds exactly, so every platform draws lines and
/// spaces at the same places and gives the same text.
pub(super) fn length((x, y): (f64, f64)) -> f64 {
    (x * x + y * y).sqrt()
}

/// The letters of a Unicode ligature (U+FB00..U+FB06), as their
/// compatibility decomposition gives them.
fn ligature(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{FB00}' => "ff",
        '\u{FB01}' => "fi",
        '\u{FB02}' => "fl",
        '\u{FB03}' => "ffi",
        '\u{FB04}' => "ffl",
        '\u{FB05}' | '\u{FB06}' => "st",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(glyphs: &[(&str, f64, f64)]) -> String {
        let mut lines = Lines::new(&Limits::default());
        for &(t, x, y) in glyphs {
            lines
                .glyph(t, (x, y), (x + 5.0, y), (1.0, 0.0), 10.0)
                .unwrap();
        }
        lines.finish().unwrap().unwrap()
    }

    #[test]
    fn gaps_make_spaces_and_drops_make_lines() {
        let got = write(&[
            ("a", 0.0, 100.0),
            ("b", 5.0, 100.0),
            ("c", 15.0, 100.0),
            ("\u{FB01}", 20.0, 88.0),
        ]);
        assert_eq!(got, "ab c\nfi\n");
    }

    #[test]
    fn pages_are_separated_by_form_feeds() {
        let mut lines = Lines::new(&Limits::default());
        lines.end_page().unwrap();
        lines
            .glyph("a", (0.0, 0.0), (5.0, 0.0), (1.0, 0.0), 10.0)
            .unwrap();
        lines.end_page().unwrap();
        lines.end_page().unwrap();
        lines
            .glyph("b", (0.0, 0.0), (5.0, 0.0), (1.0, 0.0), 10.0)
            .unwrap();
        lines.end_page().unwrap();
        assert_eq!(lines.finish().unwrap().unwrap(), "a\n\u{C}\u{C}b\n");
    }
}
