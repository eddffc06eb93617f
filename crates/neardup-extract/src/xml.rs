//! XML parts of zip documents (DOCX, ODT, EPUB's container and package),
//! read with quick-xml as a flat stream of events, never recursively:
//!
//! - no DTD is processed: a `<!DOCTYPE>` is passed over, and an entity
//!   other than XML's five (`&lt;` `&gt;` `&amp;` `&apos;` `&quot;`) and
//!   character references is an error (`undefined entity '&lol9;'`), so
//!   a billion-laughs file expands nothing and fails on its first use of
//!   an entity. Office writers never declare entities, so a real file
//!   never meets this;
//! - elements nested deeper than [`Limits::max_depth`] are refused with
//!   [`Limits::too_deep`], so a 100,000-deep file is one error, not a
//!   stack overflow in a reader;
//! - end tags must match their start tags.
//!
//! Elements are matched by local name (`w:p` and `p` alike): the readers
//! look only at parts whose vocabulary is fixed, and a prefix is only a
//! name for a namespace.

use std::borrow::Cow;

use quick_xml::events::{BytesEnd, BytesStart, Event};
use quick_xml::Reader;

use crate::{Error, Limits};

/// One event of an XML part, with text already decoded.
pub(crate) enum Node<'a> {
    /// A start tag `<a>`.
    Open(BytesStart<'a>),
    /// An empty element `<a/>`.
    Empty(BytesStart<'a>),
    /// An end tag `</a>`.
    Close(BytesEnd<'a>),
    /// Character data: text, a CDATA section, or one resolved reference.
    Text(Cow<'a, str>),
    /// The end of the part.
    Eof,
}

/// An XML part being read.
pub(crate) struct Xml<'a> {
    reader: Reader<&'a [u8]>,
    depth: usize,
    limits: Limits,
    format: &'static str,
    part: String,
}

impl<'a> Xml<'a> {
    /// Reads `bytes`, the part `part` of a `format` file (both name it in
    /// messages).
    pub(crate) fn new(bytes: &'a [u8], format: &'static str, part: &str, limits: &Limits) -> Self {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let mut reader = Reader::from_reader(bytes);
        let config = reader.config_mut();
        config.check_end_names = true;
        config.expand_empty_elements = false;
        config.trim_text(false);
        Xml {
            reader,
            depth: 0,
            limits: *limits,
            format,
            part: part.to_owned(),
        }
    }

    /// How many elements are open.
    pub(crate) fn depth(&self) -> usize {
        self.depth
    }

    /// `not a valid FORMAT file: PART: PROBLEM`.
    pub(crate) fn error(&self, problem: impl std::fmt::Display) -> Error {
        Error::corrupt(self.format, format!("{}: {problem}", self.part))
    }

    /// The next event that matters to a reader (declarations, comments,
    /// processing instructions and the DOCTYPE are passed over).
    pub(crate) fn next(&mut self) -> Result<Node<'a>, Error> {
        loop {
            let event = self.reader.read_event().map_err(|e| self.error(e))?;
            return Ok(match event {
                Event::Start(e) => {
                    self.depth += 1;
                    if self.depth > self.limits.max_depth {
                        return Err(self.limits.too_deep());
                    }
                    Node::Open(e)
                }
                Event::Empty(e) => Node::Empty(e),
                Event::End(e) => {
                    self.depth = self.depth.saturating_sub(1);
                    Node::Close(e)
                }
                Event::Text(t) => Node::Text(t.decode().map_err(|e| self.error(e))?),
                Event::CData(t) => Node::Text(t.decode().map_err(|e| self.error(e))?),
                Event::GeneralRef(r) => {
                    if let Some(c) = r.resolve_char_ref().map_err(|e| self.error(e))? {
                        Node::Text(Cow::Owned(c.to_string()))
                    } else {
                        let name = r.decode().map_err(|e| self.error(e))?;
                        Node::Text(Cow::Borrowed(match name.as_ref() {
                            "lt" => "<",
                            "gt" => ">",
                            "amp" => "&",
                            "apos" => "'",
                            "quot" => "\"",
                            _ => {
                                return Err(self.error(format!(
                                    "undefined entity '&{name};' (DTDs are not read)"
                                )))
                            }
                        }))
                    }
                }
                Event::Eof => {
                    if self.depth > 0 {
                        return Err(self.error("ends inside an element"));
                    }
                    Node::Eof
                }
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => continue,
            });
        }
    }

    /// Passes over the rest of the element whose start tag was just read.
    pub(crate) fn skip(&mut self) -> Result<(), Error> {
        let depth = self.depth;
        while self.depth >= depth {
            if let Node::Eof = self.next()? {
                break;
            }
        }
        Ok(())
    }
}

/// The value of attribute `local` (any prefix), entities resolved; `None`
/// when it is absent or holds an undefined entity.
pub(crate) fn attr(e: &BytesStart<'_>, local: &[u8]) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.local_name().as_ref() == local)
        .and_then(|a| a.unescape_value().ok())
        .map(Cow::into_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(xml: &str, limits: &Limits) -> Result<String, Error> {
        let mut x = Xml::new(xml.as_bytes(), "DOCX", "p.xml", limits);
        let mut s = String::new();
        loop {
            match x.next()? {
                Node::Text(t) => s.push_str(&t),
                Node::Eof => return Ok(s),
                _ => {}
            }
        }
    }

    #[test]
    fn references_resolve_and_entities_do_not_expand() {
        let l = Limits::default();
        assert_eq!(
            texts("<a>x&amp;&#x3b1;<![CDATA[<y>]]></a>", &l).unwrap(),
            "x&α<y>"
        );
        let laughs = "<!DOCTYPE a [<!ENTITY l \"lol\"><!ENTITY l2 \"&l;&l;\">]><a>&l2;</a>";
        assert_eq!(
            texts(laughs, &l).unwrap_err().to_string(),
            "not a valid DOCX file: p.xml: undefined entity '&l2;' (DTDs are not read)"
        );
    }

    #[test]
    fn deep_nesting_is_refused() {
        let deep = "<a>".repeat(100_000) + &"</a>".repeat(100_000);
        assert_eq!(
            texts(&deep, &Limits::default()).unwrap_err().to_string(),
            "nested more than 512 levels deep"
        );
    }
}
