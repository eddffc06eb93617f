//! XML parts of zip documents (DOCX, ODT, EPUB's container and package),
//! read with quick-xml as a flat stream of events as the part inflates,
//! never recursively and never whole:
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
//! - one event (a run of text, a tag with its attributes, a comment) is
//!   held whole while it is read, so one over [`MAX_TOKEN`] bytes is
//!   refused as it is read: a part that is a gigabyte of spaces fails
//!   having held 32 MiB, whatever it inflates to;
//! - end tags must match their start tags.
//!
//! Elements are matched by local name (`w:p` and `p` alike): the readers
//! look only at parts whose vocabulary is fixed, and a prefix is only a
//! name for a namespace.

use std::borrow::Cow;
use std::io::{self, BufRead, Read};

use quick_xml::events::{BytesEnd, BytesStart, Event};
use quick_xml::Reader;

use crate::limits::MAX_TOKEN;
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
    /// A declaration, comment, processing instruction or DOCTYPE:
    /// nothing to a reader.
    Other,
}

/// An XML part being read from `R`.
pub(crate) struct Xml<R> {
    reader: Reader<Tokens<R>>,
    /// The current event's bytes, cleared before each event: it holds one
    /// event at a time.
    buf: Vec<u8>,
    depth: usize,
    limits: Limits,
    format: &'static str,
    part: String,
}

impl<R: BufRead> Xml<R> {
    /// Reads `input`, the part `part` of a `format` file (both name it in
    /// messages). quick-xml passes over a UTF-8 byte order mark.
    pub(crate) fn new(input: R, format: &'static str, part: &str, limits: &Limits) -> Self {
        let mut reader = Reader::from_reader(Tokens {
            inner: input,
            since: 0,
        });
        let config = reader.config_mut();
        config.check_end_names = true;
        config.expand_empty_elements = false;
        config.trim_text(false);
        Xml {
            reader,
            buf: Vec::new(),
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

    /// The next event.
    pub(crate) fn next(&mut self) -> Result<Node<'_>, Error> {
        let (format, part) = (self.format, self.part.as_str());
        {
            // After a long event, what the buffer grew to is let go.
            if self.buf.capacity() > 1 << 20 {
                self.buf = Vec::new();
            }
            self.buf.clear();
            self.reader.get_mut().since = 0;
            let event = match self.reader.read_event_into(&mut self.buf) {
                Ok(event) => event,
                Err(quick_xml::Error::Io(e)) => return Err(Error::from_io(&e, format, part)),
                Err(e) => return Err(broken(format, part, e)),
            };
            let bad = |e: &dyn std::fmt::Display| broken(format, part, e);
            Ok(match event {
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
                Event::Text(t) => Node::Text(t.decode().map_err(|e| bad(&e))?),
                Event::CData(t) => Node::Text(t.decode().map_err(|e| bad(&e))?),
                Event::GeneralRef(r) => {
                    if let Some(c) = r.resolve_char_ref().map_err(|e| bad(&e))? {
                        Node::Text(Cow::Owned(c.to_string()))
                    } else {
                        let name = r.decode().map_err(|e| bad(&e))?;
                        Node::Text(Cow::Borrowed(match name.as_ref() {
                            "lt" => "<",
                            "gt" => ">",
                            "amp" => "&",
                            "apos" => "'",
                            "quot" => "\"",
                            _ => {
                                return Err(bad(&format!(
                                    "undefined entity '&{name};' (DTDs are not read)"
                                )))
                            }
                        }))
                    }
                }
                Event::Eof => {
                    if self.depth > 0 {
                        return Err(bad(&"ends inside an element"));
                    }
                    Node::Eof
                }
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => {
                    Node::Other
                }
            })
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

/// `not a valid FORMAT file: PART: PROBLEM`.
fn broken(format: &'static str, part: &str, problem: impl std::fmt::Display) -> Error {
    Error::corrupt(format, format!("{part}: {problem}"))
}

/// The input of a part, the bytes of the event being read counted:
/// quick-xml gathers an event whole in its buffer before it returns it,
/// so an event that runs past [`MAX_TOKEN`] is stopped here, as it is
/// read.
struct Tokens<R> {
    inner: R,
    /// Bytes consumed since the current event began.
    since: u64,
}

impl<R: BufRead> Read for Tokens<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Tokens<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.since > MAX_TOKEN {
            return Err(Error::Limit(format!(
                "holds an XML token (a run of text, a tag, a comment) over {MAX_TOKEN} bytes"
            ))
            .into_io());
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        self.since += n as u64;
        self.inner.consume(n);
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
