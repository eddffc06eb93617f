//! The text being written, with the separators every format shares
//! (EXTRACT.md, "Common rules"): a block ends with one `\n`, an empty
//! block writes nothing, a line break is `\n`, a tab `\t`, table cells
//! are joined by `\t`, and soft hyphens (U+00AD) are dropped.

use crate::{Error, Limits};

/// Text under construction.
pub(crate) struct Out {
    text: String,
    /// Where the current block started: a block that wrote nothing but
    /// spaces is taken back.
    block_start: usize,
    max_size: u64,
}

impl Out {
    pub(crate) fn new(limits: &Limits) -> Out {
        Out {
            text: String::new(),
            block_start: 0,
            max_size: limits.max_size,
        }
    }

    /// Appends text as the file holds it, minus soft hyphens.
    pub(crate) fn push_str(&mut self, s: &str) -> Result<(), Error> {
        if (self.text.len() + s.len()) as u64 > self.max_size {
            return Err(Error::Limit(format!(
                "gives more text than the --max-size limit of {} bytes",
                self.max_size
            )));
        }
        if s.contains('\u{AD}') {
            self.text.extend(s.chars().filter(|&c| c != '\u{AD}'));
        } else {
            self.text.push_str(s);
        }
        Ok(())
    }

    /// Appends one character.
    pub(crate) fn push(&mut self, c: char) -> Result<(), Error> {
        self.push_str(c.encode_utf8(&mut [0; 4]))
    }

    /// Ends the current block (paragraph, heading, list item, table row):
    /// one `\n`, or nothing at all if the block holds no text.
    pub(crate) fn end_block(&mut self) -> Result<(), Error> {
        if self.text[self.block_start..]
            .trim_matches(is_blank)
            .is_empty()
        {
            self.text.truncate(self.block_start);
        } else {
            self.push('\n')?;
        }
        self.block_start = self.text.len();
        Ok(())
    }

    /// Whether the current block has text yet.
    pub(crate) fn block_is_empty(&self) -> bool {
        self.text.len() == self.block_start
    }

    /// The text, ending any open block.
    pub(crate) fn finish(mut self) -> Result<String, Error> {
        self.end_block()?;
        Ok(self.text)
    }
}

/// Spaces and tabs: a block of only these is empty.
fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_blocks_vanish_and_soft_hyphens_go() {
        let mut out = Out::new(&Limits::default());
        out.push_str("co\u{AD}operate").unwrap();
        out.end_block().unwrap();
        out.push_str(" \t ").unwrap();
        out.end_block().unwrap();
        out.push_str("b").unwrap();
        assert_eq!(out.finish().unwrap(), "cooperate\nb\n");
    }

    #[test]
    fn text_past_the_cap_is_refused() {
        let limits = Limits {
            max_size: 4,
            ..Limits::default()
        };
        let mut out = Out::new(&limits);
        assert!(out.push_str("12345").is_err());
    }
}
