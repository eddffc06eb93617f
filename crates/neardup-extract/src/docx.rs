//! DOCX (Office Open XML word processing): the main document part, then
//! its footnotes and endnotes in the order the body refers to them
//! (EXTRACT.md, "DOCX"). Headers, footers and comments are not read.
//!
//! The main part is the target of the package's `officeDocument`
//! relationship (`_rels/.rels`), the notes parts the targets of its own
//! `footnotes` and `endnotes` relationships; `word/document.xml`,
//! `word/footnotes.xml` and `word/endnotes.xml` when there are none.

use std::collections::{HashMap, HashSet};
use std::io::BufRead;

use crate::archive::Archive;
use crate::out::Out;
use crate::xml::{attr, Node, Xml};
use crate::{Error, Limits};

const FORMAT: &str = "DOCX";

/// Which kind of note a reference in the body points to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Note {
    Foot,
    End,
}

/// The most distinct notes of one kind that a body may refer to. A
/// book has a few thousand; the cap keeps a crafted body of millions of
/// references from filling memory with their ids.
const MAX_NOTES: usize = 1 << 16;

/// The notes the body refers to, each kind's ids in the order of their
/// first reference.
#[derive(Default)]
struct Refs {
    foot: Vec<String>,
    end: Vec<String>,
    seen: HashSet<(bool, String)>,
}

impl Refs {
    fn add(&mut self, kind: Note, id: String) -> Result<(), Error> {
        let foot = kind == Note::Foot;
        if self.seen.contains(&(foot, id.clone())) {
            return Ok(());
        }
        let ids = if foot { &mut self.foot } else { &mut self.end };
        if ids.len() >= MAX_NOTES {
            return Err(Error::Limit(format!(
                "refers to more than {MAX_NOTES} notes"
            )));
        }
        ids.push(id.clone());
        self.seen.insert((foot, id));
        Ok(())
    }

    fn of(&self, kind: Note) -> &[String] {
        match kind {
            Note::Foot => &self.foot,
            Note::End => &self.end,
        }
    }
}

pub(crate) fn extract(
    bytes: &[u8],
    limits: &Limits,
    _warnings: &mut Vec<String>,
) -> Result<String, Error> {
    let mut zip = Archive::open(bytes, FORMAT, limits)?;
    let main = relationship(&mut zip, "_rels/.rels", "", "/officeDocument")?
        .unwrap_or_else(|| "word/document.xml".to_owned());
    let (dir, file) = main.rsplit_once('/').unwrap_or(("", &main));
    let rels = if dir.is_empty() {
        format!("_rels/{file}.rels")
    } else {
        format!("{dir}/_rels/{file}.rels")
    };
    let notes_part = |zip: &mut Archive, kind: &str, default: &str| {
        relationship(zip, &rels, dir, kind).map(|p| p.unwrap_or_else(|| format!("{dir}/{default}")))
    };
    let foot_part = notes_part(&mut zip, "/footnotes", "footnotes.xml")?;
    let end_part = notes_part(&mut zip, "/endnotes", "endnotes.xml")?;

    let mut out = Out::new(limits);
    let mut refs = Refs::default();
    let mut body = zip
        .xml(&main)?
        .ok_or_else(|| Error::corrupt(FORMAT, format!("no document part '{main}'")))?;
    read_part(&mut body, &mut out, &mut refs)?;
    drop(body);

    for (kind, part) in [(Note::Foot, &foot_part), (Note::End, &end_part)] {
        let ids = refs.of(kind);
        if ids.is_empty() {
            continue;
        }
        let Some(mut xml) = zip.xml(part)? else {
            continue;
        };
        let notes = read_notes(&mut xml, ids, limits)?;
        for id in ids {
            if let Some(text) = notes.get(id) {
                out.push_blocks(text)?;
            }
        }
    }
    out.finish()
}

/// The part that relationship list `rels` points to with a type ending
/// in `kind`, as a path in the zip; `dir` is the directory targets are
/// relative to.
fn relationship(
    zip: &mut Archive,
    rels: &str,
    dir: &str,
    kind: &str,
) -> Result<Option<String>, Error> {
    let Some(mut xml) = zip.xml(rels)? else {
        return Ok(None);
    };
    loop {
        match xml.next()? {
            Node::Open(e) | Node::Empty(e) if e.local_name().as_ref() == b"Relationship" => {
                let is_kind = attr(&e, b"Type").is_some_and(|t| t.ends_with(kind));
                let external = attr(&e, b"TargetMode").is_some_and(|m| m == "External");
                if let (true, false, Some(target)) = (is_kind, external, attr(&e, b"Target")) {
                    return Ok(Some(resolve(dir, &target)));
                }
            }
            Node::Eof => return Ok(None),
            _ => {}
        }
    }
}

/// `target` relative to `dir` (or absolute, from the package root), with
/// `.` and `..` segments resolved.
pub(crate) fn resolve(dir: &str, target: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let joined;
    let path = match target.strip_prefix('/') {
        Some(abs) => abs,
        None => {
            joined = format!("{dir}/{target}");
            &joined
        }
    };
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// The text of the notes of a notes part that the body refers to
/// (`wanted`), by `w:id`: each note's paragraphs as blocks. Separator
/// notes (those with a `w:type`) are left out, and so are notes never
/// referred to, unread.
fn read_notes(
    xml: &mut Xml<impl BufRead>,
    wanted: &[String],
    limits: &Limits,
) -> Result<HashMap<String, String>, Error> {
    let wanted: HashSet<&str> = wanted.iter().map(String::as_str).collect();
    let mut notes = HashMap::new();
    loop {
        match xml.next()? {
            Node::Open(e) if matches!(e.local_name().as_ref(), b"footnote" | b"endnote") => {
                let id = attr(&e, b"id").unwrap_or_default();
                let separator = attr(&e, b"type").is_some_and(|t| t != "normal");
                if separator || !wanted.contains(id.as_str()) {
                    xml.skip()?;
                    continue;
                }
                let mut out = Out::new(limits);
                read_part(xml, &mut out, &mut Refs::default())?;
                notes.insert(id, out.finish()?);
            }
            Node::Eof => return Ok(notes),
            _ => {}
        }
    }
}

/// Reads a part's paragraphs and tables into `out`, up to the end of the
/// element that is open when it is called (or the end of the part),
/// noting the body's note references in `refs`.
fn read_part(xml: &mut Xml<impl BufRead>, out: &mut Out, refs: &mut Refs) -> Result<(), Error> {
    let base = xml.depth();
    // Inside a `w:t`, and the `xml.depth()` of the run whose `w:rPr` said
    // `w:vanish` (hidden text), if any.
    let mut in_text = false;
    let mut hidden_run: Option<usize> = None;
    loop {
        // The node borrows the reader, so the depth it leaves is worked
        // out from the depth before it: one less after an end tag.
        let after_close = xml.depth().saturating_sub(1);
        let node = xml.next()?;
        let (e, open) = match node {
            Node::Open(e) => (e, true),
            Node::Empty(e) => (e, false),
            Node::Text(t) => {
                if in_text && hidden_run.is_none() {
                    out.push_str(&t)?;
                }
                continue;
            }
            Node::Close(e) => {
                if after_close < base {
                    return Ok(());
                }
                match e.local_name().as_ref() {
                    b"t" => in_text = false,
                    b"p" => out.end_paragraph()?,
                    b"tc" => {}
                    b"tr" => out.end_row()?,
                    b"tbl" => out.end_table()?,
                    b"r" if hidden_run.is_some_and(|d| d > after_close) => hidden_run = None,
                    _ => {}
                }
                continue;
            }
            Node::Eof => return Ok(()),
            Node::Other => continue,
        };
        let hidden = hidden_run.is_some();
        match e.local_name().as_ref() {
            b"t" if open => in_text = true,
            // Deleted and moved-away text, instructions of fields, the
            // fallback copy of alternate content (the same text again),
            // paragraph properties and content-control properties.
            b"del" | b"moveFrom" | b"delText" | b"instrText" | b"Fallback" | b"pPr" | b"sdtPr"
                if open =>
            {
                xml.skip()?
            }
            b"rPr" if open => {
                // Only a run's own `w:vanish` hides it.
                let run_depth = xml.depth() - 1;
                loop {
                    let after_close = xml.depth().saturating_sub(1);
                    match xml.next()? {
                        Node::Empty(v) | Node::Open(v)
                            if v.local_name().as_ref() == b"vanish" && !is_off(&v) =>
                        {
                            hidden_run = Some(run_depth);
                        }
                        Node::Close(_) if after_close < run_depth + 1 => break,
                        Node::Eof => return Ok(()),
                        _ => {}
                    }
                }
            }
            b"tab" if !hidden => out.push('\t')?,
            b"br" | b"cr" if !hidden => out.push('\n')?,
            b"noBreakHyphen" if !hidden => out.push('-')?,
            b"tbl" if open => out.start_table()?,
            b"tr" if open => out.start_row()?,
            b"tc" => out.start_cell()?,
            b"p" if !open => out.end_paragraph()?,
            b"footnoteReference" => refs.add(Note::Foot, attr(&e, b"id").unwrap_or_default())?,
            b"endnoteReference" => refs.add(Note::End, attr(&e, b"id").unwrap_or_default())?,
            // `w:softHyphen`, `w:sym` (a glyph of a symbol font), note
            // marks, drawings: nothing.
            _ => {}
        }
    }
}

/// Whether a toggle property (`<w:vanish w:val="0"/>`) is switched off.
fn is_off(e: &quick_xml::events::BytesStart<'_>) -> bool {
    attr(e, b"val").is_some_and(|v| matches!(v.as_str(), "0" | "false" | "off"))
}
