//! HTML and XHTML (EXTRACT.md, "HTML"): the text a reader sees, block
//! by block, read with html5ever's tokenizer.
//!
//! **Why html5ever's tokenizer.** The text of an HTML file depends on
//! how it is tokenized (character references with and without their `;`,
//! `<script>` and `<style>` as raw text, comments, CDATA, a `<` that opens
//! no tag), and html5ever's tokenizer is the WHATWG algorithm itself,
//! tested against html5lib-tests, kept by Servo. Its tree builder is not
//! used: the text needs no tree, only the block boundaries, which tag
//! tokens give; the tokenizer streams with no recursion and no tree to
//! drop, so 100,000 nested elements are one counter, and the tree
//! builder's code stays out of the wasm.
//!
//! The alternatives, by what they add to a release wasm32 build of this
//! crate (`opt-level = "s"`, LTO, stripped; 451,791 bytes with no HTML
//! parser, measured with a cdylib calling `extract`, Dec 2026):
//!
//! | parser | wasm bytes | added | text it gives |
//! |---|---|---|---|
//! | html5ever 0.40 tokenizer (chosen) | 812,445 | +360,654 | WHATWG tokenizing, all 2,231 named references |
//! | lol_html 2 (a text handler) | 691,263 | +239,472 | text chunks still escaped: references need a decoder and its table on top |
//! | tl 0.7 | 470,623 | +18,832 | not a spec parser: no raw-text states, references not decoded |
//! | scraper 0.25 | 892,457 | +440,666 | html5ever's tree builder and a DOM: the same tokens, a tree to walk and drop |
//!
//! Most of html5ever's share is data a correct reader needs anyway (the
//! named-reference table, the interned tag and attribute names).
//!
//! **Encoding.** A UTF-8 BOM is dropped; a UTF-16 BOM decodes as UTF-16.
//! Without a BOM, a `charset=` in the first 1024 bytes (a `<meta
//! charset>` or `<meta http-equiv>`) naming an encoding other than UTF-8
//! (by the WHATWG Encoding Standard's labels; `utf-16` counts as UTF-8,
//! as in browsers) decodes the file with that encoding, with a warning;
//! anything else is UTF-8, invalid bytes an error unless `lossy`.

use std::cell::RefCell;
use std::io::Read;

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8};
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::TokenizerResult;

use crate::limits::MAX_TOKEN;
use crate::out::Out;
use crate::{Error, Limits};

pub(crate) fn extract(
    bytes: &[u8],
    lossy: bool,
    limits: &Limits,
    warnings: &mut Vec<String>,
) -> Result<String, Error> {
    let text = decode(bytes, lossy, warnings)?;
    let xhtml = text.trim_start().starts_with("<?xml");
    let mut out = Out::new(limits);
    read(&text, xhtml, limits, &mut out)?;
    out.finish()
}

/// The file's characters (see the module's "Encoding").
pub(crate) fn decode(
    bytes: &[u8],
    lossy: bool,
    warnings: &mut Vec<String>,
) -> Result<String, Error> {
    let (encoding, bom) = sniff(bytes, warnings);
    let body = &bytes[bom..];
    if encoding == UTF_8 {
        return neardup::decode(body.to_vec(), lossy).map_err(Error::Markup);
    }
    let (text, bad) = encoding.decode_without_bom_handling(body);
    if bad && bom > 0 {
        warnings.push(replaced(encoding));
    }
    Ok(text.into_owned())
}

/// The encoding of a file that starts with `head` (its first 1024 bytes
/// are enough), and the length of its byte order mark: see the module's
/// "Encoding". A declared encoding is read with a warning.
fn sniff(head: &[u8], warnings: &mut Vec<String>) -> (&'static Encoding, usize) {
    if let Some((encoding, bom)) = Encoding::for_bom(head) {
        return (encoding, bom);
    }
    if let Some(encoding) = meta_charset(&head[..head.len().min(1024)]) {
        if encoding != UTF_8 && encoding != UTF_16LE && encoding != UTF_16BE {
            warnings.push(format!(
                "read as {}, as its charset declaration says",
                encoding.name()
            ));
            return (encoding, 0);
        }
    }
    (UTF_8, 0)
}

/// The warning for bytes that `encoding` could not decode.
fn replaced(encoding: &'static Encoding) -> String {
    format!("invalid {} replaced by U+FFFD", encoding.name())
}

/// The encoding a `charset=` in `head` names, if it names one.
fn meta_charset(head: &[u8]) -> Option<&'static Encoding> {
    let lower = head.to_ascii_lowercase();
    let at = memchr::memmem::find(&lower, b"charset=")? + b"charset=".len();
    let rest = &head[at..];
    let rest = rest
        .strip_prefix(b"\"")
        .or(rest.strip_prefix(b"'"))
        .unwrap_or(rest);
    let end = rest
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || b"-_:.".contains(b)))
        .unwrap_or(rest.len());
    Encoding::for_label(&rest[..end])
}

/// Reads an HTML (or, `xhtml`, an XHTML) document's text into `out`.
pub(crate) fn read(text: &str, xhtml: bool, limits: &Limits, out: &mut Out) -> Result<(), Error> {
    let tokenizer = tokenizer(out, xhtml, limits);
    feed(&tokenizer, text)?;
    finish(tokenizer)
}

/// Reads an XHTML document (an EPUB's content document) into `out` as it
/// comes from `input`, decoding it by the module's "Encoding" with
/// invalid bytes replaced (each warned of once), so that neither the
/// document nor its characters are ever held whole. `part` names it in
/// messages.
pub(crate) fn read_from(
    mut input: impl Read,
    part: &str,
    limits: &Limits,
    out: &mut Out,
    warnings: &mut Vec<String>,
) -> Result<(), Error> {
    const CHUNK: usize = 64 << 10;
    let io = |e: std::io::Error| Error::from_io(&e, "EPUB", part);
    let mut bytes = Vec::with_capacity(CHUNK);
    (&mut input)
        .take(1024)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    let (encoding, bom) = sniff(&bytes, warnings);
    bytes.drain(..bom);
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut bad = false;
    let mut text = String::new();
    let tokenizer = tokenizer(out, true, limits);
    // Bytes fed since the tokenizer last gave a token: the one it is
    // gathering (a tag, a comment) grows with them.
    let mut pending = 0u64;
    loop {
        let read = bytes.len();
        bytes.resize(CHUNK.max(read), 0);
        let n = if read > 0 {
            read
        } else {
            input.read(&mut bytes).map_err(io)?
        };
        let last = n == 0;
        text.clear();
        text.reserve(decoder.max_utf8_buffer_length(n).unwrap_or(4 * n + 16));
        let (_, _, replaced) = decoder.decode_to_string(&bytes[..n], &mut text, last);
        bad |= replaced;
        bytes.clear();
        let before = tokenizer.sink.0.borrow().tokens;
        feed(&tokenizer, &text)?;
        if tokenizer.sink.0.borrow().tokens == before {
            pending += n as u64;
            if pending > MAX_TOKEN {
                return Err(Error::Limit(format!(
                    "holds an HTML token (a tag, a comment) over {MAX_TOKEN} bytes"
                )));
            }
        } else {
            pending = 0;
        }
        if last {
            break;
        }
    }
    // A declared encoding was warned of already; bytes it cannot decode
    // are what declaring it risks.
    if bad && (bom > 0 || encoding == UTF_8) {
        warnings.push(replaced(encoding));
    }
    finish(tokenizer)
}

/// A tokenizer writing into `out`.
fn tokenizer<'o>(out: &'o mut Out, xhtml: bool, limits: &Limits) -> Tokenizer<Sink<'o>> {
    let sink = Sink(RefCell::new(State {
        out,
        error: None,
        depth: 0,
        max_depth: limits.max_depth,
        limits: *limits,
        skip: None,
        pre: 0,
        xhtml,
        tokens: 0,
    }));
    Tokenizer::new(sink, TokenizerOpts::default())
}

/// Feeds `text` to the tokenizer, stopping at the first error a token gave.
fn feed(tokenizer: &Tokenizer<Sink<'_>>, text: &str) -> Result<(), Error> {
    if text.is_empty() {
        return Ok(());
    }
    let queue = BufferQueue::default();
    queue.push_back(StrTendril::from_slice(text));
    while let TokenizerResult::Script(()) = tokenizer.feed(&queue) {}
    match tokenizer.sink.0.borrow_mut().error.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Ends the document: the tokens held back for more input, then its last block.
fn finish(tokenizer: Tokenizer<Sink<'_>>) -> Result<(), Error> {
    tokenizer.end();
    let mut state = tokenizer.sink.0.into_inner();
    if let Some(e) = state.error.take() {
        return Err(e);
    }
    state.out.end_document()
}

struct Sink<'o>(RefCell<State<'o>>);

struct State<'o> {
    out: &'o mut Out,
    /// The first error; tokens after it are passed over.
    error: Option<Error>,
    /// Elements open, not counting void ones and those whose end tag may
    /// be left out (`p`, `li`, `td`, …) in HTML.
    depth: usize,
    max_depth: usize,
    limits: Limits,
    /// The element whose content is not text (`script`, `template`, …)
    /// and how many more of it are open inside it.
    skip: Option<(String, usize)>,
    /// `pre`, `listing` and `xmp` elements open: their line breaks stay.
    pre: usize,
    /// A self-closing tag (`<div/>`) is a whole element, as in XML.
    xhtml: bool,
    /// Tokens given so far.
    tokens: u64,
}

/// Elements that end one block and start another.
const BLOCKS: [&str; 42] = [
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "caption",
    "center",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "html",
    "legend",
    "li",
    "listing",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "plaintext",
    "pre",
    "section",
    "summary",
    "ul",
];

/// Elements with no content.
const VOID: [&str; 17] = [
    "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "img", "input",
    "keygen", "link", "meta", "param", "source", "track",
];

/// Elements whose end tag HTML lets a writer leave out.
const OPTIONAL_END: [&str; 21] = [
    "body", "caption", "colgroup", "dd", "dt", "head", "html", "li", "optgroup", "option", "p",
    "rb", "rp", "rt", "rtc", "tbody", "td", "tfoot", "th", "thead", "tr",
];

/// Elements whose content is never text: scripts, styles, templates,
/// what shows only without scripts, the title, form controls' values,
/// frames, embedded objects and images.
const SKIPPED: [&str; 12] = [
    "script", "style", "template", "noscript", "title", "textarea", "iframe", "noembed",
    "noframes", "svg", "select", "object",
];

impl State<'_> {
    fn tag(&mut self, tag: Tag) -> Result<TokenSinkResult<()>, Error> {
        let name: &str = &tag.name;
        let start = tag.kind == TagKind::StartTag;
        let whole = self.xhtml && tag.self_closing;
        let counts = !VOID.contains(&name) && (self.xhtml || !OPTIONAL_END.contains(&name));
        if counts && start && !whole {
            self.depth += 1;
            if self.depth > self.max_depth {
                return Err(self.limits.too_deep());
            }
        } else if counts && !start {
            self.depth = self.depth.saturating_sub(1);
        }
        let raw = match name {
            "script" => Some(TokenSinkResult::RawData(RawKind::ScriptData)),
            "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => {
                Some(TokenSinkResult::RawData(RawKind::Rawtext))
            }
            "textarea" | "title" => Some(TokenSinkResult::RawData(RawKind::Rcdata)),
            "plaintext" => Some(TokenSinkResult::Plaintext),
            _ => None,
        };
        let result = match raw {
            Some(raw) if start && !whole => raw,
            _ => TokenSinkResult::Continue,
        };
        if let Some((skipped, open)) = &mut self.skip {
            if skipped == name && !whole {
                if start {
                    *open += 1;
                } else if *open == 0 {
                    self.skip = None;
                } else {
                    *open -= 1;
                }
            }
            return Ok(result);
        }
        if start && !whole && (SKIPPED.contains(&name) || is_note_mark(&tag)) {
            self.skip = Some((name.to_owned(), 0));
            return Ok(result);
        }
        let out = &mut *self.out;
        match name {
            "br" => out.push('\n')?,
            "table" if !start => out.end_table()?,
            "table" if !whole => out.start_table()?,
            "tr" if start => out.start_row()?,
            "tr" => out.end_row()?,
            "td" | "th" if start => out.start_cell()?,
            "pre" | "listing" | "xmp" => {
                out.end_paragraph()?;
                if start && !whole {
                    self.pre += 1;
                } else if !start {
                    self.pre = self.pre.saturating_sub(1);
                }
            }
            _ if BLOCKS.contains(&name) => out.end_paragraph()?,
            _ => {}
        }
        Ok(result)
    }

    fn text(&mut self, text: &str) -> Result<(), Error> {
        if self.skip.is_some() {
            return Ok(());
        }
        if self.pre == 0 && text.contains(['\n', '\r', '\t', '\x0C']) {
            // Outside `pre`, a line break in the source is a space.
            self.out
                .push_str(&text.replace(['\n', '\r', '\t', '\x0C'], " "))
        } else {
            self.out.push_str(&text.replace('\r', ""))
        }
    }
}

/// A note's reference mark or its link back (DPUB-ARIA `doc-noteref`,
/// `doc-backlink`; EPUB's `epub:type="noteref"`): like a DOCX footnote
/// reference, it writes nothing.
fn is_note_mark(tag: &Tag) -> bool {
    tag.attrs.iter().any(|a| {
        let (name, value): (&str, &str) = (&a.name.local, &a.value);
        match name {
            "role" => value
                .split_ascii_whitespace()
                .any(|r| r == "doc-noteref" || r == "doc-backlink"),
            "epub:type" => value.split_ascii_whitespace().any(|t| t == "noteref"),
            _ => false,
        }
    })
}

impl TokenSink for Sink<'_> {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut state = self.0.borrow_mut();
        state.tokens += 1;
        if state.error.is_some() {
            return TokenSinkResult::Continue;
        }
        let result = match token {
            Token::TagToken(tag) => state.tag(tag),
            Token::CharacterTokens(text) => state.text(&text).map(|()| TokenSinkResult::Continue),
            _ => Ok(TokenSinkResult::Continue),
        };
        result.unwrap_or_else(|e| {
            state.error = Some(e);
            TokenSinkResult::Continue
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html(s: &str) -> String {
        extract(s.as_bytes(), false, &Limits::default(), &mut Vec::new()).unwrap()
    }

    #[test]
    fn blocks_inline_and_skipped_content() {
        assert_eq!(
            html("<title>T</title><style>p{}</style><p>a<b>b</b>c<br>d</p><div>e&amp;f&nbsp;g</div><script>x<y</script><template><p>no</template><img alt=no>h"),
            "abc\nd\ne&f\u{a0}g\nh\n"
        );
        assert_eq!(
            html("<table><tr><td>a<p>b<td>c<tr><th>d</table>"),
            "a b\tc\nd\n"
        );
        assert_eq!(html("<pre>a\n b</pre>x\ny"), "a\n b\nx y\n");
        assert_eq!(
            html("w<a role=doc-noteref href=#1><sup>1</sup></a> x"),
            "w x\n"
        );
    }

    #[test]
    fn deep_nesting_is_refused() {
        let deep = "<div>".repeat(100_000);
        let e = extract(deep.as_bytes(), false, &Limits::default(), &mut Vec::new());
        assert_eq!(
            e.unwrap_err().to_string(),
            "nested more than 512 levels deep"
        );
        // Unclosed paragraphs and list items are not nesting.
        assert!(extract(
            "<li>a".repeat(2000).as_bytes(),
            false,
            &Limits::default(),
            &mut Vec::new()
        )
        .is_ok());
    }

    #[test]
    fn a_declared_charset_decodes() {
        let mut warnings = Vec::new();
        let got = extract(
            b"<meta charset=windows-1252><p>caf\xE9",
            false,
            &Limits::default(),
            &mut warnings,
        );
        assert_eq!(got.unwrap(), "caf\u{e9}\n");
        assert_eq!(
            warnings,
            ["read as windows-1252, as its charset declaration says"]
        );
    }
}
