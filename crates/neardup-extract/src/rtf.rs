//! RTF (EXTRACT.md, "RTF"): a hand-written reader, one pass over the
//! bytes with an explicit stack of groups (never recursion), so a file
//! nested past [`Limits::max_depth`] is one error.
//!
//! Text bytes and `\'hh` escapes are decoded with the document's code
//! page (`\ansicpg`, or `\mac`; Windows-1252 by default), via
//! encoding_rs; `\uN` is a Unicode character, after which `\ucN` (1 by
//! default) fallback characters are skipped. Font charsets are not
//! consulted: writers that need them also write `\uN`.
//! (`rtf-parser` 0.4 was considered: it recurses per group, and does not
//! skip `\uc` fallbacks or decode `\'hh` by code page.)

use encoding_rs::{Encoding, WINDOWS_1252};

use crate::out::Out;
use crate::{Error, Limits};

/// Destinations whose content is never text: tables of fonts, colours,
/// styles, lists and revisions, document properties, pictures, objects,
/// shapes, headers and footers, comments, field instructions, index and
/// table-of-contents entries, and list numbers (`\listtext`,
/// `\pntext`).
const SKIPPED: &[&[u8]] = &[
    b"fonttbl",
    b"colortbl",
    b"stylesheet",
    b"info",
    b"pict",
    b"object",
    b"objdata",
    b"shp",
    b"shppict",
    b"nonshppict",
    b"header",
    b"headerl",
    b"headerr",
    b"headerf",
    b"footer",
    b"footerl",
    b"footerr",
    b"footerf",
    b"listtable",
    b"listoverridetable",
    b"revtbl",
    b"rsidtbl",
    b"generator",
    b"fldinst",
    b"annotation",
    b"atnid",
    b"atnauthor",
    b"atnref",
    b"atndate",
    b"listtext",
    b"pntext",
    b"pntxta",
    b"pntxtb",
    b"xe",
    b"tc",
    b"tcn",
    b"template",
    b"docvar",
    b"userprops",
    b"filetbl",
    b"themedata",
    b"colorschememapping",
    b"datastore",
    b"latentstyles",
    b"xmlnstbl",
    b"pgdsctbl",
    b"bkmkstart",
    b"bkmkend",
    b"falt",
    b"panose",
    b"leveltext",
    b"levelnumbers",
    b"mmathPr",
    b"wgrffmtfilter",
    b"passwordhash",
    b"fchars",
    b"lchars",
    b"private",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dest {
    Body,
    Note,
    Skip,
}

#[derive(Clone, Copy)]
struct Group {
    dest: Dest,
    /// Fallback characters after `\uN`.
    uc: usize,
    /// `\v` (hidden) or `\deleted` (a tracked deletion) is on.
    hidden: bool,
    deleted: bool,
    /// This group starts a note (`\footnote`).
    note_start: bool,
}

struct Reader<'a> {
    out: Out,
    /// The note being read: whether it is an endnote (`\ftnalt`), and
    /// its text.
    note: Option<(bool, Out)>,
    footnotes: Vec<String>,
    endnotes: Vec<String>,
    limits: &'a Limits,
    encoding: &'static Encoding,
    /// Text bytes not yet decoded (a code page may use two per char).
    bytes: Vec<u8>,
    /// A high surrogate from `\uN` waiting for its low half.
    high: Option<u16>,
    /// Fallback characters still to skip after a `\uN`.
    skip: usize,
    /// In a table row; the cells ended (`\cell`) since the last text:
    /// the next text starts that many cells.
    in_row: bool,
    cells_ended: usize,
}

pub(crate) fn extract(
    bytes: &[u8],
    limits: &Limits,
    warnings: &mut Vec<String>,
) -> Result<String, Error> {
    let mut r = Reader {
        out: Out::new(limits),
        note: None,
        footnotes: Vec::new(),
        endnotes: Vec::new(),
        limits,
        encoding: WINDOWS_1252,
        bytes: Vec::new(),
        high: None,
        skip: 0,
        in_row: false,
        cells_ended: 0,
    };
    let mut stack: Vec<Group> = Vec::new();
    let mut g = Group {
        dest: Dest::Body,
        uc: 1,
        hidden: false,
        deleted: false,
        note_start: false,
    };
    // Set by `\*`: the group's destination is skipped unless it is one
    // this reader knows.
    let mut starred = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        i += 1;
        match b {
            b'{' => {
                r.flush(&g)?;
                r.skip = 0;
                stack.push(g);
                if stack.len() > limits.max_depth {
                    return Err(limits.too_deep());
                }
                g.note_start = false;
                starred = false;
            }
            b'}' => {
                r.flush(&g)?;
                r.skip = 0;
                if g.note_start {
                    r.end_note()?;
                }
                match stack.pop() {
                    Some(outer) => g = outer,
                    None => break,
                }
                if stack.is_empty() {
                    break;
                }
            }
            b'\\' => {
                let Some(&c) = bytes.get(i) else { break };
                if c.is_ascii_alphabetic() {
                    let start = i;
                    while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                        i += 1;
                    }
                    let word = &bytes[start..i];
                    let num_start = i;
                    if i < bytes.len() && bytes[i] == b'-' {
                        i += 1;
                    }
                    while i < bytes.len() && bytes[i].is_ascii_digit() && i - num_start < 11 {
                        i += 1;
                    }
                    let param: Option<i64> = std::str::from_utf8(&bytes[num_start..i])
                        .ok()
                        .and_then(|s| s.parse().ok());
                    if i < bytes.len() && bytes[i] == b' ' {
                        i += 1;
                    }
                    if word == b"bin" {
                        r.flush(&g)?;
                        let n = param.unwrap_or(0).max(0) as usize;
                        i = i.saturating_add(n).min(bytes.len());
                        continue;
                    }
                    if word != b"u" && r.skip > 0 {
                        r.skip -= 1;
                        continue;
                    }
                    r.flush(&g)?;
                    r.word(word, param, &mut g, starred, warnings)?;
                    starred = false;
                } else {
                    i += 1;
                    match c {
                        b'\'' => {
                            let hex = bytes
                                .get(i..i + 2)
                                .and_then(|h| std::str::from_utf8(h).ok());
                            let byte = hex.and_then(|h| u8::from_str_radix(h, 16).ok());
                            if byte.is_some() {
                                i += 2;
                            }
                            if r.skip > 0 {
                                r.skip -= 1;
                            } else if let Some(byte) = byte {
                                r.bytes.push(byte);
                            }
                        }
                        b'*' => starred = true,
                        _ if r.skip > 0 => r.skip -= 1,
                        b'\\' | b'{' | b'}' => r.bytes.push(c),
                        b'~' => r.text(&g, "\u{A0}")?,
                        b'_' => r.text(&g, "-")?,
                        b'\n' | b'\r' => r.par(&g)?,
                        // `\-` (an optional hyphen), `\:` and the rest.
                        _ => {}
                    }
                }
            }
            b'\r' | b'\n' => {}
            _ if r.skip > 0 => r.skip -= 1,
            _ => r.bytes.push(b),
        }
    }
    r.flush(&g)?;
    if r.note.is_some() {
        r.end_note()?;
    }
    let mut out = r.out;
    for text in r.footnotes.iter().chain(&r.endnotes) {
        out.push_blocks(text)?;
    }
    out.finish()
}

impl Reader<'_> {
    fn sink(&mut self, g: &Group) -> Option<&mut Out> {
        if g.hidden || g.deleted {
            return None;
        }
        match g.dest {
            Dest::Body => Some(&mut self.out),
            Dest::Note => self.note.as_mut().map(|n| &mut n.1),
            Dest::Skip => None,
        }
    }

    /// Writes text, starting the cell a `\cell` ended before it.
    fn text(&mut self, g: &Group, s: &str) -> Result<(), Error> {
        if self.cells_ended > 0 && g.dest == Dest::Body && !s.trim().is_empty() {
            for _ in 0..std::mem::take(&mut self.cells_ended) {
                self.out.start_cell()?;
            }
        }
        match self.sink(g) {
            Some(out) => out.push_str(s),
            None => Ok(()),
        }
    }

    /// Decodes the pending text bytes.
    fn flush(&mut self, g: &Group) -> Result<(), Error> {
        if self.bytes.is_empty() {
            return Ok(());
        }
        let bytes = std::mem::take(&mut self.bytes);
        let (text, _) = self.encoding.decode_without_bom_handling(&bytes);
        self.text(g, &text)
    }

    fn par(&mut self, g: &Group) -> Result<(), Error> {
        match self.sink(g) {
            Some(out) => out.end_paragraph(),
            None => Ok(()),
        }
    }

    fn end_note(&mut self) -> Result<(), Error> {
        if let Some((end, note)) = self.note.take() {
            let text = note.finish()?;
            if end {
                self.endnotes.push(text);
            } else {
                self.footnotes.push(text);
            }
        }
        Ok(())
    }

    fn word(
        &mut self,
        word: &[u8],
        param: Option<i64>,
        g: &mut Group,
        starred: bool,
        warnings: &mut Vec<String>,
    ) -> Result<(), Error> {
        let on = param != Some(0);
        match word {
            b"par" | b"sect" => self.par(g)?,
            b"line" | b"page" => self.text(g, "\n")?,
            b"tab" => self.text(g, "\t")?,
            b"emdash" => self.text(g, "\u{2014}")?,
            b"endash" => self.text(g, "\u{2013}")?,
            b"lquote" => self.text(g, "\u{2018}")?,
            b"rquote" => self.text(g, "\u{2019}")?,
            b"ldblquote" => self.text(g, "\u{201C}")?,
            b"rdblquote" => self.text(g, "\u{201D}")?,
            b"bullet" => self.text(g, "\u{2022}")?,
            b"emspace" | b"enspace" | b"qmspace" => self.text(g, " ")?,
            b"u" => {
                let n = param.unwrap_or(0);
                let unit = if n < 0 { (n + 65536) as u16 } else { n as u16 };
                let c = match (self.high.take(), unit) {
                    (Some(high), 0xDC00..=0xDFFF) => char::from_u32(
                        0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00),
                    ),
                    (_, 0xD800..=0xDBFF) => {
                        self.high = Some(unit);
                        None
                    }
                    (_, u) => char::from_u32(u32::from(u)),
                };
                if let Some(c) = c {
                    self.text(g, c.encode_utf8(&mut [0; 4]))?;
                }
                self.skip = g.uc;
            }
            b"uc" => g.uc = param.unwrap_or(1).clamp(0, 16) as usize,
            b"v" => g.hidden = on,
            b"deleted" => g.deleted = on,
            b"plain" => {
                g.hidden = false;
                g.deleted = false;
            }
            b"ansicpg" => {
                self.encoding = code_page(param.unwrap_or(1252)).unwrap_or_else(|| {
                    warnings.push(format!(
                        "code page {} is not supported, read as windows-1252",
                        param.unwrap_or(0)
                    ));
                    WINDOWS_1252
                })
            }
            b"mac" => self.encoding = code_page(10000).unwrap_or(WINDOWS_1252),
            b"footnote" if g.dest == Dest::Body => {
                self.end_note()?;
                self.note = Some((false, Out::new(self.limits)));
                g.dest = Dest::Note;
                g.note_start = true;
            }
            b"ftnalt" if g.dest == Dest::Note => {
                if let Some(note) = &mut self.note {
                    note.0 = true;
                }
            }
            b"intbl" | b"trowd" if g.dest == Dest::Body && !self.in_row => {
                self.out.start_table()?;
                self.out.start_row()?;
                self.out.start_cell()?;
                self.in_row = true;
                self.cells_ended = 0;
            }
            b"cell" if self.in_row && g.dest == Dest::Body => {
                self.cells_ended = self.cells_ended.saturating_add(1).min(1 << 16)
            }
            b"row" if self.in_row && g.dest == Dest::Body => {
                self.out.end_row()?;
                self.out.end_table()?;
                self.in_row = false;
                self.cells_ended = 0;
            }
            b"nestcell" | b"nestrow" | b"cell" | b"row" => self.text(g, " ")?,
            _ if SKIPPED.contains(&word) || starred => g.dest = Dest::Skip,
            _ => {}
        }
        Ok(())
    }
}

/// The encoding of Windows code page `cp`.
fn code_page(cp: i64) -> Option<&'static Encoding> {
    let label = match cp {
        874 => "windows-874".to_owned(),
        932 => "shift_jis".to_owned(),
        936 => "gbk".to_owned(),
        949 => "euc-kr".to_owned(),
        950 => "big5".to_owned(),
        1250..=1258 => format!("windows-{cp}"),
        10000 => "macintosh".to_owned(),
        65001 => "utf-8".to_owned(),
        _ => return None,
    };
    Encoding::for_label(label.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rtf(s: &str) -> Result<String, Error> {
        extract(s.as_bytes(), &Limits::default(), &mut Vec::new())
    }

    #[test]
    fn text_escapes_and_destinations() {
        let got = rtf(
            r"{\rtf1\ansi\ansicpg1253{\fonttbl{\f0 Times;}}{\*\generator x;}{\info{\title T}}\pard caf\'e9 \u945\'3f\uc2\u946 xx!\par co\-op\tab b\line c{\v hidden}{\deleted gone}\par}",
        );
        assert_eq!(got.unwrap(), "caf\u{3b9} αβ!\ncoop\tb\nc\n");
    }

    #[test]
    fn tables_and_notes() {
        let got = rtf(
            r"{\rtf1 a{\footnote\chftn one}b\par\trowd\cellx1\cellx2\pard\intbl x\cell\cell y\cell\row z{\footnote\ftnalt end}\par}",
        );
        assert_eq!(got.unwrap(), "ab\nx\t\ty\nz\none\nend\n");
    }

    #[test]
    fn deep_groups_are_refused() {
        let deep = "{\\rtf1 ".to_owned() + &"{".repeat(100_000);
        assert_eq!(
            rtf(&deep).unwrap_err().to_string(),
            "nested more than 512 levels deep"
        );
    }
}
