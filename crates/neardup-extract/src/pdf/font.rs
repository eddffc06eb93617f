//! A font as text extraction needs it: how a string splits into codes,
//! which Unicode text each code stands for, and how far each code moves
//! the pen (its width), so that gaps between glyphs can be measured.

use std::collections::HashMap;

use lopdf::{Dictionary, Document, Encoding, Object, Stream};

/// The width assumed for a code a font gives no width for, in thousandths
/// of the font size: about an average Latin glyph.
const DEFAULT_WIDTH: f64 = 500.0;

/// One font of a page's resources, ready to decode strings.
pub(super) struct Font<'a> {
    /// Codes are two bytes (a composite `Type0` font) rather than one.
    two_byte: bool,
    /// The `/ToUnicode` map, which wins over the encoding when it has the code.
    to_unicode: Option<Encoding<'a>>,
    /// The simple font's encoding (`/Encoding`, or the standard one).
    encoding: Option<Encoding<'a>>,
    /// Widths by code, in glyph units.
    widths: HashMap<u32, f64>,
    /// The width of a code missing from `widths`.
    default_width: f64,
    /// Glyph units to text space: 1/1000, or a Type 3 font's `/FontMatrix`.
    scale: f64,
}

impl<'a> Font<'a> {
    /// Reads `dict`, whose `/ToUnicode` map the caller has inflated
    /// (`map`, within its caps); any other decompression is capped at
    /// `limit` bytes.
    pub(super) fn load(
        doc: &'a Document,
        dict: &'a Dictionary,
        map: Option<Vec<u8>>,
        limit: usize,
    ) -> Font<'a> {
        let subtype = dict
            .get(b"Subtype")
            .and_then(Object::as_name)
            .unwrap_or(b"");
        let two_byte = subtype == b"Type0";
        let to_unicode = map.and_then(|map| to_unicode(doc, map));
        let encoding = if two_byte {
            None
        } else {
            dict.get_font_encoding_with_limit(doc, limit).ok()
        };
        let mut font = Font {
            two_byte,
            to_unicode,
            encoding,
            widths: HashMap::new(),
            default_width: DEFAULT_WIDTH,
            scale: 0.001,
        };
        if two_byte {
            font.cid_widths(doc, dict);
        } else {
            font.simple_widths(doc, dict);
        }
        if subtype == b"Type3" {
            if let Ok(m) = deref(doc, dict.get(b"FontMatrix")).and_then(Object::as_array) {
                if let Some(a) = m.first().and_then(|o| number(doc, o)) {
                    font.scale = a;
                }
            }
        }
        font
    }

    /// `/FirstChar` and `/Widths`, with `/MissingWidth` from the descriptor.
    fn simple_widths(&mut self, doc: &Document, dict: &Dictionary) {
        if let Ok(fd) = deref(doc, dict.get(b"FontDescriptor")).and_then(Object::as_dict) {
            if let Some(w) = fd.get(b"MissingWidth").ok().and_then(|o| number(doc, o)) {
                if w > 0.0 {
                    self.default_width = w;
                }
            }
        }
        let first = dict
            .get(b"FirstChar")
            .ok()
            .and_then(|o| number(doc, o))
            .unwrap_or(0.0);
        if let Ok(widths) = deref(doc, dict.get(b"Widths")).and_then(Object::as_array) {
            for (i, w) in widths.iter().take(256).enumerate() {
                if let Some(w) = number(doc, w) {
                    self.widths.insert(first as u32 + i as u32, w);
                }
            }
        }
    }

    /// A composite font's `/DW` and `/W` in its descendant font.
    fn cid_widths(&mut self, doc: &Document, dict: &Dictionary) {
        self.default_width = 1000.0;
        let Some(cid) = deref(doc, dict.get(b"DescendantFonts"))
            .and_then(Object::as_array)
            .ok()
            .and_then(|a| a.first())
            .and_then(|o| deref(doc, Ok(o)).and_then(Object::as_dict).ok())
        else {
            return;
        };
        if let Some(dw) = cid.get(b"DW").ok().and_then(|o| number(doc, o)) {
            self.default_width = dw;
        }
        let Ok(w) = deref(doc, cid.get(b"W")).and_then(Object::as_array) else {
            return;
        };
        // `c [w1 w2 ...]` or `c_first c_last w`; 65,536 codes at most.
        let mut i = 0;
        while i < w.len() && self.widths.len() < 1 << 16 {
            let Some(first) = number(doc, &w[i]) else {
                break;
            };
            let first = first as u32;
            match w.get(i + 1).map(|o| deref(doc, Ok(o))) {
                Some(Ok(Object::Array(list))) => {
                    for (k, v) in list.iter().take(1 << 16).enumerate() {
                        if let Some(v) = number(doc, v) {
                            self.widths.insert(first.saturating_add(k as u32), v);
                        }
                    }
                    i += 2;
                }
                Some(Ok(last)) => {
                    let (Some(last), Some(v)) =
                        (number(doc, last), w.get(i + 2).and_then(|o| number(doc, o)))
                    else {
                        break;
                    };
                    let last = (last as u32).min(first.saturating_add(1 << 16));
                    for c in first..=last {
                        self.widths.insert(c, v);
                    }
                    i += 3;
                }
                _ => break,
            }
        }
    }

    /// The codes of a string, each with its bytes and its number.
    pub(super) fn codes<'s>(&self, s: &'s [u8]) -> impl Iterator<Item = (&'s [u8], u32)> {
        let n = if self.two_byte { 2 } else { 1 };
        s.chunks(n)
            .map(|c| (c, c.iter().fold(0u32, |acc, &b| acc << 8 | u32::from(b))))
    }

    /// The text a code stands for: the `/ToUnicode` map's if it has the
    /// code, else the encoding's; empty if neither knows it.
    pub(super) fn text(&self, code: &[u8], out: &mut String) {
        if let Some(map) = &self.to_unicode {
            let mut s = String::new();
            if map.write_to_string(code, &mut s).is_ok() && !s.is_empty() && s != "\u{FFFD}" {
                out.push_str(&s);
                return;
            }
        }
        if let Some(enc) = &self.encoding {
            let _ = enc.write_to_string(code, out);
        }
    }

    /// Whether this font can give text at all.
    pub(super) fn has_text(&self) -> bool {
        self.to_unicode.is_some() || self.encoding.is_some()
    }

    /// How far `code` moves the pen, in text space per unit of font size.
    pub(super) fn advance(&self, code: u32) -> f64 {
        self.widths
            .get(&code)
            .copied()
            .unwrap_or(self.default_width)
            * self.scale
    }

    /// Whether `code` is the single-byte code 32, which word spacing (`Tw`) widens.
    pub(super) fn is_space_code(&self, code: &[u8]) -> bool {
        code == b" "
    }
}

/// A `/ToUnicode` map (inflated), read by lopdf's CMap parser.
fn to_unicode<'a>(doc: &'a Document, map: Vec<u8>) -> Option<Encoding<'a>> {
    // lopdf reads `/ToUnicode` only when a font has no `/Encoding`, and
    // parses a CMap only from a stream: ask it about a font that has
    // nothing else, whose map is a plain stream of the inflated bytes.
    let mut only = Dictionary::new();
    only.set("Type", Object::Name(b"Font".to_vec()));
    only.set(
        "ToUnicode",
        Object::Stream(Stream::new(Dictionary::new(), map)),
    );
    match only.get_font_encoding_with_limit(doc, usize::MAX) {
        Ok(Encoding::UnicodeMapEncoding(map)) => Some(Encoding::UnicodeMapEncoding(map)),
        _ => None,
    }
}

/// The object `o` is or refers to (one level; lopdf bounds chains).
pub(super) fn deref<'a>(
    doc: &'a Document,
    o: lopdf::Result<&'a Object>,
) -> lopdf::Result<&'a Object> {
    let o = o?;
    match o {
        Object::Reference(id) => doc.get_object(*id),
        o => Ok(o),
    }
}

/// A number, integer or real, directly or by reference; `None` if not finite.
pub(super) fn number(doc: &Document, o: &Object) -> Option<f64> {
    let v = match deref(doc, Ok(o)).ok()? {
        Object::Integer(i) => *i as f64,
        Object::Real(r) => f64::from(*r),
        _ => return None,
    };
    v.is_finite().then_some(v)
}
