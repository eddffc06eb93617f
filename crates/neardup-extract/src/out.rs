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
    /// Tables open around the text: rows and cells of the outermost one
    /// are blocks and `\t`-joined cells; a nested table's parts, like
    /// paragraphs in a cell, are joined by spaces.
    tables: usize,
    /// Cells begun in the current row.
    cells: usize,
    /// A paragraph in a cell ended: a space goes before any more text.
    space: bool,
}

impl Out {
    pub(crate) fn new(limits: &Limits) -> Out {
        Out {
            text: String::new(),
            block_start: 0,
            max_size: limits.max_size,
            tables: 0,
            cells: 0,
            space: false,
        }
    }

    /// Appends text as the file holds it, minus soft hyphens.
    pub(crate) fn push_str(&mut self, s: &str) -> Result<(), Error> {
        if self.space {
            self.space = false;
            if !self.block_is_empty() {
                self.push_raw(" ")?;
            }
        }
        self.push_raw(s)
    }

    fn push_raw(&mut self, s: &str) -> Result<(), Error> {
        if (self.text.len() + s.len()) as u64 > self.max_size {
            return Err(Error::Limit(format!(
                "gives more text than the --max-size limit of {} bytes",
                self.max_size
            )));
        }
        // Past 16 MiB the text grows by a quarter at a time, not by
        // doubling: what a bomb's text reserves stays near what it wrote.
        let spare = self.text.capacity() - self.text.len();
        if spare < s.len() && self.text.len() >= 16 << 20 {
            self.text.reserve_exact(s.len().max(self.text.len() / 4));
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

    /// Ends a paragraph (or heading, list item): a block, or inside a
    /// table cell a space before the cell's next text.
    pub(crate) fn end_paragraph(&mut self) -> Result<(), Error> {
        if self.tables > 0 {
            self.space = true;
            Ok(())
        } else {
            self.end_block()
        }
    }

    /// A table starts.
    pub(crate) fn start_table(&mut self) -> Result<(), Error> {
        if self.tables == 0 {
            self.end_block()?;
        }
        self.tables += 1;
        Ok(())
    }

    /// A table ends.
    pub(crate) fn end_table(&mut self) -> Result<(), Error> {
        self.tables = self.tables.saturating_sub(1);
        self.space = self.tables > 0;
        if self.tables == 0 {
            self.end_block()?;
        }
        Ok(())
    }

    /// Closes the tables a document left open and ends its last block:
    /// one HTML file of an EPUB ends before the next one starts.
    pub(crate) fn end_document(&mut self) -> Result<(), Error> {
        self.tables = 0;
        self.cells = 0;
        self.end_block()
    }

    /// A row starts (ending the one before, for HTML's optional `</tr>`).
    pub(crate) fn start_row(&mut self) -> Result<(), Error> {
        self.end_row()
    }

    /// A row ends: a block of the outermost table, a space in a nested one.
    pub(crate) fn end_row(&mut self) -> Result<(), Error> {
        if self.tables <= 1 {
            self.space = false;
            self.cells = 0;
            self.end_block()
        } else {
            self.space = true;
            Ok(())
        }
    }

    /// A cell starts: `\t` after the row's earlier cells.
    pub(crate) fn start_cell(&mut self) -> Result<(), Error> {
        if self.tables <= 1 {
            self.space = false;
            if self.cells > 0 {
                self.push_raw("\t")?;
            }
            self.cells += 1;
        } else {
            self.space = true;
        }
        Ok(())
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
            self.push_raw("\n")?;
        }
        self.space = false;
        self.block_start = self.text.len();
        Ok(())
    }

    /// Appends finished blocks (a note's text, each block ending in
    /// `\n`), ending the current block first.
    pub(crate) fn push_blocks(&mut self, blocks: &str) -> Result<(), Error> {
        self.end_block()?;
        self.push_raw(blocks)?;
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
