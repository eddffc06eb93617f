//! A page's content streams, run just far enough to know where each glyph
//! lands: the graphics state's matrix (`q`, `Q`, `cm`), the text state
//! (`Tc`, `Tw`, `Tz`, `TL`, `Tf`, `Ts`), text positioning (`Td`, `TD`,
//! `Tm`, `T*`), the text-showing operators (`Tj`, `TJ`, `'`, `"`) and
//! form XObjects (`Do`). Glyphs are written in content-stream order; their
//! positions only decide where a line ends and where a space goes.

use std::collections::HashMap;
use std::rc::Rc;

use lopdf::content::Content;
use lopdf::{Dictionary, Document, Object, ObjectId};

use super::font::{deref, number, Font};
use super::lines::{length, Lines};
use super::stream::{self, Over};
use crate::{Error, Limits};

/// Form XObjects nested deeper than this are not entered.
const MAX_FORM_DEPTH: usize = 16;
/// Streams under this size are exempt from the ratio cap (as zip entries are).
const RATIO_FLOOR: u64 = 1 << 20;
/// `q` nested deeper than this is ignored (a hostile stream could push forever).
const MAX_SAVE_DEPTH: usize = 1024;

/// A 2-D affine matrix `[a b c d e f]`, as PDF writes them.
#[derive(Clone, Copy, Debug)]
struct Matrix([f64; 6]);

impl Matrix {
    const IDENTITY: Matrix = Matrix([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);

    /// `self` then `m`: PDF's `self × m`.
    fn then(self, m: Matrix) -> Matrix {
        let [a, b, c, d, e, f] = self.0;
        let [a2, b2, c2, d2, e2, f2] = m.0;
        Matrix([
            a * a2 + b * c2,
            a * b2 + b * d2,
            c * a2 + d * c2,
            c * b2 + d * d2,
            e * a2 + f * c2 + e2,
            e * b2 + f * d2 + f2,
        ])
    }

    fn translate(x: f64, y: f64) -> Matrix {
        Matrix([1.0, 0.0, 0.0, 1.0, x, y])
    }
}

/// The parts of the graphics state that move glyphs.
#[derive(Clone)]
struct State<'a> {
    ctm: Matrix,
    font: Option<Rc<Font<'a>>>,
    size: f64,
    char_spacing: f64,
    word_spacing: f64,
    /// `Tz` / 100.
    scale: f64,
    leading: f64,
    rise: f64,
}

/// Where resources are looked up: a dictionary, then referenced ones in order.
#[derive(Clone, Default)]
pub(super) struct Resources<'a> {
    direct: Option<&'a Dictionary>,
    ids: Vec<ObjectId>,
}

impl<'a> Resources<'a> {
    pub(super) fn of_page(doc: &'a Document, page: ObjectId) -> Resources<'a> {
        match doc.get_page_resources(page) {
            Ok((direct, ids)) => Resources { direct, ids },
            Err(_) => Resources::default(),
        }
    }

    /// Entry `name` of the resource category `kind` (`Font`, `XObject`).
    fn get(
        &self,
        doc: &'a Document,
        kind: &[u8],
        name: &[u8],
    ) -> Option<(Option<ObjectId>, &'a Object)> {
        let dicts = self.direct.into_iter().chain(
            self.ids
                .iter()
                .filter_map(|id| doc.get_dictionary(*id).ok()),
        );
        for dict in dicts {
            let Ok(category) = deref(doc, dict.get(kind)).and_then(Object::as_dict) else {
                continue;
            };
            if let Ok(o) = category.get(name) {
                return match o {
                    Object::Reference(id) => doc.get_object(*id).ok().map(|o| (Some(*id), o)),
                    o => Some((None, o)),
                };
            }
        }
        None
    }
}

/// Runs content streams, writing their glyphs into [`Lines`].
pub(super) struct Runner<'a, 'l> {
    doc: &'a Document,
    fonts: HashMap<ObjectId, Rc<Font<'a>>>,
    /// Bytes still allowed to be decompressed, all streams together.
    budget: &'l mut u64,
    limits: Limits,
    lines: &'l mut Lines,
    /// The forms being run, to refuse one that draws itself.
    forms: Vec<ObjectId>,
    /// Bytes of content held now: the page's streams and the forms being
    /// run inside it, which together stay within [`Limits::max_stream`].
    held: u64,
    /// The marked-content sequences open now (`BMC`/`BDC` … `EMC`), each
    /// with its `/ActualText` if it has one.
    marked: Vec<Option<ActualText>>,
    warned_no_map: bool,
    pub(super) warnings: Vec<String>,
}

/// A marked-content sequence's `/ActualText`: the text that stands for
/// every glyph drawn inside it (LibreOffice draws a glyph its font lacks
/// this way, poppler reads it so).
struct ActualText {
    text: String,
    /// Whether a glyph inside has written it already.
    written: bool,
}

impl<'a, 'l> Runner<'a, 'l> {
    pub(super) fn new(
        doc: &'a Document,
        budget: &'l mut u64,
        limits: Limits,
        lines: &'l mut Lines,
    ) -> Self {
        Runner {
            doc,
            fonts: HashMap::new(),
            budget,
            limits,
            lines,
            forms: Vec::new(),
            held: 0,
            marked: Vec::new(),
            warned_no_map: false,
            warnings: Vec::new(),
        }
    }

    /// The most `stream` may inflate to: what is left of the budget, what
    /// is left of the cap on content held at once, and its ratio cap;
    /// with the message for the cap that binds.
    fn cap(&self, stream: &lopdf::Stream) -> (u64, Error) {
        let ratio_cap = (stream.content.len() as u64)
            .saturating_mul(self.limits.max_ratio)
            .max(RATIO_FLOOR);
        let caps = [
            (*self.budget, self.limits.too_expanded()),
            (
                self.limits.max_stream().saturating_sub(self.held),
                too_long(&self.limits, "page's content"),
            ),
            (ratio_cap, too_dense(&self.limits)),
        ];
        caps.into_iter()
            .min_by_key(|(cap, _)| *cap)
            .expect("three caps")
    }

    /// Decodes a stream to run it, within its caps ([`Runner::cap`]):
    /// the budget is charged, and the bytes count as held until
    /// [`Runner::release`] gives them back.
    fn data(&mut self, stream: &lopdf::Stream) -> Result<Vec<u8>, Error> {
        let (cap, over) = self.cap(stream);
        let data = stream::decode(stream, cap).map_err(|Over| over)?;
        let n = data.len() as u64;
        if n > *self.budget {
            return Err(self.limits.too_expanded());
        }
        *self.budget -= n;
        self.held += n;
        Ok(data)
    }

    /// Content that has been run is let go of.
    fn release(&mut self, data: &[u8]) {
        self.held = self.held.saturating_sub(data.len() as u64);
    }

    /// A font's `/ToUnicode` map inflated within its caps, charging the
    /// budget; `None` if it is over them or broken, so that the font reads
    /// as if it had none.
    fn plain(&mut self, stream: &lopdf::Stream) -> Option<Vec<u8>> {
        let (cap, _) = self.cap(stream);
        let data = stream
            .get_plain_content_with_limit(usize::try_from(cap).ok()?)
            .ok()?;
        *self.budget = self.budget.saturating_sub(data.len() as u64);
        Some(data)
    }

    /// Ends a page in the text.
    pub(super) fn end_page(&mut self) -> Result<(), Error> {
        self.lines.end_page()
    }

    /// Runs one page's content streams, in order.
    pub(super) fn page(&mut self, page: ObjectId) -> Result<(), Error> {
        let resources = Resources::of_page(self.doc, page);
        let mut data = Vec::new();
        for id in self.doc.get_page_contents(page) {
            let Ok(stream) = self.doc.get_object(id).and_then(Object::as_stream) else {
                continue;
            };
            let part = self.data(stream)?;
            if data.is_empty() {
                data = part;
            } else {
                data.extend_from_slice(&part);
            }
            data.push(b'\n');
        }
        let state = State {
            ctm: Matrix::IDENTITY,
            font: None,
            size: 0.0,
            char_spacing: 0.0,
            word_spacing: 0.0,
            scale: 1.0,
            leading: 0.0,
            rise: 0.0,
        };
        let result = self.run(&data, &resources, state);
        self.release(&data);
        result
    }

    fn font(&mut self, resources: &Resources<'a>, name: &[u8]) -> Option<Rc<Font<'a>>> {
        let (id, o) = resources.get(self.doc, b"Font", name)?;
        if let Some(font) = id.and_then(|id| self.fonts.get(&id)) {
            return Some(font.clone());
        }
        let dict = o.as_dict().ok()?;
        let map = deref(self.doc, dict.get(b"ToUnicode"))
            .and_then(Object::as_stream)
            .ok()
            .and_then(|stream| self.plain(stream));
        let limit =
            usize::try_from((*self.budget).min(self.limits.max_stream())).unwrap_or(usize::MAX);
        let font = Rc::new(Font::load(self.doc, dict, map, limit));
        if !font.has_text() && !self.warned_no_map {
            self.warned_no_map = true;
            self.warnings.push(format!(
                "font '{}' has no map to Unicode: its text is left out",
                String::from_utf8_lossy(name)
            ));
        }
        if let Some(id) = id {
            self.fonts.insert(id, font.clone());
        }
        Some(font)
    }

    fn run(
        &mut self,
        data: &[u8],
        resources: &Resources<'a>,
        mut gs: State<'a>,
    ) -> Result<(), Error> {
        let doc = self.doc;
        // A content stream that does not parse gives what parsed before the fault.
        let ops = Content::decode_iter(data).map_while(Result::ok);
        let mut saved: Vec<State<'a>> = Vec::new();
        let mut tm = Matrix::IDENTITY;
        let mut tlm = Matrix::IDENTITY;
        for op in ops {
            let args = &op.operands;
            let num = |i: usize| args.get(i).and_then(|o| number(doc, o)).unwrap_or(0.0);
            match op.operator.as_str() {
                "q" if saved.len() < MAX_SAVE_DEPTH => saved.push(gs.clone()),
                "Q" => {
                    if let Some(s) = saved.pop() {
                        gs = s;
                    }
                }
                "cm" if args.len() == 6 => {
                    let m = Matrix([num(0), num(1), num(2), num(3), num(4), num(5)]);
                    gs.ctm = m.then(gs.ctm);
                }
                "BT" => {
                    tm = Matrix::IDENTITY;
                    tlm = Matrix::IDENTITY;
                }
                "Tc" => gs.char_spacing = num(0),
                "Tw" => gs.word_spacing = num(0),
                "Tz" => gs.scale = num(0) / 100.0,
                "TL" => gs.leading = num(0),
                "Ts" => gs.rise = num(0),
                "Tf" => {
                    gs.font = args
                        .first()
                        .and_then(|o| o.as_name().ok())
                        .and_then(|name| self.font(resources, name));
                    gs.size = num(1);
                }
                "Td" => {
                    tlm = Matrix::translate(num(0), num(1)).then(tlm);
                    tm = tlm;
                }
                "TD" => {
                    gs.leading = -num(1);
                    tlm = Matrix::translate(num(0), num(1)).then(tlm);
                    tm = tlm;
                }
                "Tm" if args.len() == 6 => {
                    tlm = Matrix([num(0), num(1), num(2), num(3), num(4), num(5)]);
                    tm = tlm;
                }
                "T*" => {
                    tlm = Matrix::translate(0.0, -gs.leading).then(tlm);
                    tm = tlm;
                }
                "Tj" => self.show(args.first(), &gs, &mut tm)?,
                "'" => {
                    tlm = Matrix::translate(0.0, -gs.leading).then(tlm);
                    tm = tlm;
                    self.show(args.first(), &gs, &mut tm)?;
                }
                "\"" => {
                    gs.word_spacing = num(0);
                    gs.char_spacing = num(1);
                    tlm = Matrix::translate(0.0, -gs.leading).then(tlm);
                    tm = tlm;
                    self.show(args.get(2), &gs, &mut tm)?;
                }
                "TJ" => {
                    let Some(Ok(items)) = args.first().map(Object::as_array) else {
                        continue;
                    };
                    for item in items {
                        match item {
                            Object::String(..) => self.show(Some(item), &gs, &mut tm)?,
                            o => {
                                if let Some(n) = number(doc, o) {
                                    let tx = -n / 1000.0 * gs.size * gs.scale;
                                    tm = Matrix::translate(tx, 0.0).then(tm);
                                }
                            }
                        }
                    }
                }
                "Do" => {
                    if let Some(name) = args.first().and_then(|o| o.as_name().ok()) {
                        self.form(resources, name, &gs)?;
                    }
                }
                "BMC" if self.marked.len() < MAX_SAVE_DEPTH => self.marked.push(None),
                "BDC" if self.marked.len() < MAX_SAVE_DEPTH => {
                    let text = actual_text(doc, resources, args.get(1));
                    self.marked.push(text.map(|text| ActualText {
                        text,
                        written: false,
                    }));
                }
                "EMC" => {
                    self.marked.pop();
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Runs form XObject `name`, if it is one and is not already running.
    fn form(
        &mut self,
        resources: &Resources<'a>,
        name: &[u8],
        gs: &State<'a>,
    ) -> Result<(), Error> {
        let Some((Some(id), o)) = resources.get(self.doc, b"XObject", name) else {
            return Ok(());
        };
        let Ok(stream) = o.as_stream() else {
            return Ok(());
        };
        if stream.dict.get(b"Subtype").and_then(Object::as_name).ok() != Some(b"Form")
            || self.forms.contains(&id)
            || self.forms.len() >= MAX_FORM_DEPTH
        {
            return Ok(());
        }
        let data = self.data(stream)?;
        let own = deref(self.doc, stream.dict.get(b"Resources")).and_then(Object::as_dict);
        let inner = match own {
            Ok(dict) => Resources {
                direct: Some(dict),
                ids: Vec::new(),
            },
            Err(_) => resources.clone(),
        };
        let mut state = gs.clone();
        if let Ok(m) = deref(self.doc, stream.dict.get(b"Matrix")).and_then(Object::as_array) {
            if m.len() == 6 {
                let n = |i: usize| number(self.doc, &m[i]).unwrap_or(0.0);
                state.ctm = Matrix([n(0), n(1), n(2), n(3), n(4), n(5)]).then(state.ctm);
            }
        }
        self.forms.push(id);
        let result = self.run(&data, &inner, state);
        self.forms.pop();
        self.release(&data);
        result
    }

    /// Shows a string: each code's text at its position, the pen moved by its width.
    fn show(&mut self, s: Option<&Object>, gs: &State<'a>, tm: &mut Matrix) -> Result<(), Error> {
        let (Some(Object::String(bytes, _)), Some(font)) = (s, &gs.font) else {
            return Ok(());
        };
        let mut text = String::new();
        for (code, n) in font.codes(bytes) {
            let trm = Matrix([gs.size * gs.scale, 0.0, 0.0, gs.size, 0.0, gs.rise])
                .then(*tm)
                .then(gs.ctm);
            let mut tx = font.advance(n) * gs.size + gs.char_spacing;
            if font.is_space_code(code) {
                tx += gs.word_spacing;
            }
            *tm = Matrix::translate(tx * gs.scale, 0.0).then(*tm);
            let end = Matrix([1.0, 0.0, 0.0, 1.0, 0.0, gs.rise])
                .then(*tm)
                .then(gs.ctm);
            text.clear();
            // Inside an `/ActualText` (the outermost, if they nest), its
            // text replaces the glyphs': written at the first glyph.
            match self.marked.iter_mut().flatten().next() {
                Some(actual) if !actual.written => {
                    actual.written = true;
                    text.push_str(&actual.text);
                }
                Some(_) => {}
                None => font.text(code, &mut text),
            }
            let [a, b, c, d, e, f] = trm.0;
            self.lines
                .glyph(&text, (e, f), (end.0[4], end.0[5]), (a, b), length((c, d)))?;
        }
        Ok(())
    }
}

/// The message for content (`what`: a page's content, an object
/// stream) that inflates past [`Limits::max_stream`].
pub(super) fn too_long(limits: &Limits, what: &str) -> Error {
    Error::Limit(format!(
        "a PDF {what} expands to more than {} bytes, a quarter of the --max-expanded limit (a PDF bomb?)",
        limits.max_stream()
    ))
}

/// The message for a stream past [`Limits::max_ratio`].
pub(super) fn too_dense(limits: &Limits) -> Error {
    Error::Limit(format!(
        "a PDF stream expands more than {}:1 (a PDF bomb?)",
        limits.max_ratio
    ))
}

/// The `/ActualText` of a `BDC`'s properties: an inline dictionary, or a
/// name in the resources' `/Properties`. A PDF text string: UTF-16BE after
/// its byte-order mark, else PDFDocEncoding, read as Latin-1 (they agree
/// on the letters).
fn actual_text(
    doc: &Document,
    resources: &Resources<'_>,
    props: Option<&Object>,
) -> Option<String> {
    let dict = match props? {
        Object::Dictionary(d) => d,
        Object::Name(name) => resources.get(doc, b"Properties", name)?.1.as_dict().ok()?,
        _ => return None,
    };
    let Ok(Object::String(bytes, _)) = deref(doc, dict.get(b"ActualText")) else {
        return None;
    };
    Some(match bytes.strip_prefix(&[0xFE, 0xFF]) {
        Some(utf16) => char::decode_utf16(
            utf16
                .chunks_exact(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]])),
        )
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect(),
        None => bytes.iter().map(|&b| char::from(b)).collect(),
    })
}
