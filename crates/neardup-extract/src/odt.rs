//! ODT (OpenDocument text): `content.xml`'s body, then its notes,
//! footnotes before endnotes, each in citation order (EXTRACT.md, "ODT").
//! Headers and footers live in `styles.xml`, which is not read.

use std::io::BufRead;

use crate::archive::Archive;
use crate::out::Out;
use crate::xml::{attr, Node, Xml};
use crate::{Error, Limits};

const FORMAT: &str = "ODT";

pub(crate) fn extract(
    bytes: &[u8],
    limits: &Limits,
    _warnings: &mut Vec<String>,
) -> Result<String, Error> {
    let mut zip = Archive::open(bytes, FORMAT, limits)?;
    // A password-protected ODT keeps its zip plain and encrypts the
    // parts, saying so in its manifest.
    if let Some(manifest) = zip.entry("META-INF/manifest.xml")? {
        if manifest.contains(b"encryption-data")? {
            return Err(Error::Encrypted);
        }
    }
    let mut content = zip
        .xml("content.xml")?
        .ok_or_else(|| Error::corrupt(FORMAT, "no 'content.xml'"))?;
    read(&mut content, limits)
}

/// Reads an OpenDocument text body (`content.xml`, or a flat `.fodt`).
fn read(xml: &mut Xml<impl BufRead>, limits: &Limits) -> Result<String, Error> {
    let mut out = Out::new(limits);
    // Paragraphs open around the text: text outside any is whitespace
    // of the markup.
    let mut paragraphs = 0usize;
    // The note being read (its class, its text), and those read.
    let mut note: Option<(bool, Out)> = None;
    let (mut footnotes, mut endnotes) = (Vec::new(), Vec::new());
    let mut endnote = false;
    loop {
        let (e, open) = match xml.next()? {
            Node::Open(e) => (e, true),
            Node::Empty(e) => (e, false),
            Node::Text(t) => {
                if paragraphs > 0 {
                    // ODF: a newline, a tab or a CR in a paragraph's
                    // markup is a space; `text:tab` and `text:line-break`
                    // are the real ones.
                    let o = note.as_mut().map_or(&mut out, |n| &mut n.1);
                    if t.contains(['\n', '\t', '\r']) {
                        o.push_str(&t.replace(['\n', '\t', '\r'], " "))?;
                    } else {
                        o.push_str(&t)?;
                    }
                }
                continue;
            }
            Node::Close(e) => {
                let o = note.as_mut().map_or(&mut out, |n| &mut n.1);
                match e.local_name().as_ref() {
                    b"p" | b"h" => {
                        paragraphs = paragraphs.saturating_sub(1);
                        o.end_paragraph()?;
                    }
                    b"table-row" => o.end_row()?,
                    b"table" => o.end_table()?,
                    b"note-body" => {
                        if let Some((end, body)) = note.take() {
                            let text = body.finish()?;
                            if end {
                                endnotes.push(text)
                            } else {
                                footnotes.push(text)
                            }
                        }
                    }
                    _ => {}
                }
                continue;
            }
            Node::Eof => break,
            Node::Other => continue,
        };
        let o = note.as_mut().map_or(&mut out, |n| &mut n.1);
        match e.local_name().as_ref() {
            b"p" | b"h" if open => paragraphs += 1,
            b"p" | b"h" => o.end_paragraph()?,
            b"s" => {
                let n: usize = attr(&e, b"c").and_then(|c| c.parse().ok()).unwrap_or(1);
                for _ in 0..n.min(1024) {
                    o.push(' ')?;
                }
            }
            b"tab" => o.push('\t')?,
            b"line-break" => o.push('\n')?,
            b"table" if open => o.start_table()?,
            b"table-row" if open => o.start_row()?,
            b"table-cell" => o.start_cell()?,
            b"note" => endnote = attr(&e, b"note-class").is_some_and(|c| c == "endnote"),
            b"note-body" if open && note.is_none() => note = Some((endnote, Out::new(limits))),
            // The note's mark, deleted text kept for tracked changes,
            // comments, an image's title and description, an embedded
            // object's data, conditionally hidden text.
            b"title" | b"desc"
                if open && e.name().prefix().is_some_and(|p| p.as_ref() == b"svg") =>
            {
                xml.skip()?
            }
            b"note-citation" | b"number" | b"tracked-changes" | b"annotation" | b"binary-data"
            | b"hidden-text" | b"hidden-paragraph" | b"script"
                if open =>
            {
                xml.skip()?
            }
            _ => {}
        }
    }
    for text in footnotes.iter().chain(&endnotes) {
        out.push_blocks(text)?;
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn odt(body: &str) -> String {
        let xml = format!(
            "<office:document-content xmlns:office=\"o\" xmlns:text=\"t\" xmlns:table=\"b\" xmlns:svg=\"s\" xmlns:draw=\"d\"><office:body><office:text>{body}</office:text></office:body></office:document-content>"
        );
        let limits = Limits::default();
        read(
            &mut Xml::new(xml.as_bytes(), FORMAT, "content.xml", &limits),
            &limits,
        )
        .unwrap()
    }

    #[test]
    fn spaces_tabs_breaks_and_changes() {
        assert_eq!(
            odt("<text:tracked-changes><text:changed-region><text:deletion><text:p>gone</text:p></text:deletion></text:changed-region></text:tracked-changes>\n<text:p>a<text:s text:c=\"2\"/>b<text:tab/>c<text:line-break/>d\ne<text:change text:change-id=\"x\"/><text:soft-page-break/>f<office:annotation><text:p>note to self</text:p></office:annotation></text:p><text:h>H</text:h>"),
            "a  b\tc\nd ef\nH\n"
        );
    }

    #[test]
    fn notes_follow_the_body_footnotes_first() {
        assert_eq!(
            odt("<text:p>x<text:note text:note-class=\"endnote\"><text:note-citation>i</text:note-citation><text:note-body><text:p>end</text:p></text:note-body></text:note>y<text:note text:note-class=\"footnote\"><text:note-citation>1</text:note-citation><text:note-body><text:p>foot</text:p></text:note-body></text:note></text:p><table:table><table:table-row><table:table-cell><text:p>a</text:p><text:p>b</text:p></table:table-cell><table:covered-table-cell/><table:table-cell><text:p>c</text:p></table:table-cell></table:table-row></table:table><text:p><draw:frame><svg:title>T</svg:title><svg:desc>D</svg:desc></draw:frame>z</text:p>"),
            "xy\na b\tc\nz\nfoot\nend\n"
        );
    }
}
