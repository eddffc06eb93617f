//! JSONL documents: `{"id": ..., "text": ...}` lines, read in bounded batches.

use std::borrow::Cow;
use std::fmt;
use std::io::{BufRead, Read};

use anyhow::{bail, Result};
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

/// One input line, not yet parsed: parsing happens on the worker threads.
/// Its bytes (the newline included, when it has one) lie in its [`Batch`].
#[derive(Clone, Copy)]
pub struct Line<'b> {
    /// 1-based line number, for error messages.
    pub number: u64,
    pub bytes: &'b [u8],
}

/// A parsed document: its id exactly as written (a JSON string or
/// integer, passed through unchanged) and its text, borrowed from the line
/// when it has no escapes (a line can be most of a gigabyte: one copy
/// fewer).
pub struct Doc<'l> {
    pub id: String,
    pub text: Cow<'l, str>,
}

impl Doc<'_> {
    pub fn into_owned(self) -> Doc<'static> {
        Doc {
            id: self.id,
            text: Cow::Owned(self.text.into_owned()),
        }
    }
}

/// Which fields hold the id and the text.
#[derive(Clone, Copy)]
pub struct Fields<'a> {
    pub id: &'a str,
    pub text: &'a str,
    /// Replace invalid UTF-8 in a line instead of refusing the line.
    pub lossy: bool,
}

impl Fields<'_> {
    /// Parses one line, in a single pass: the id is kept as raw JSON, other
    /// fields are skipped without being built.
    pub fn parse<'l>(self, line: &Line<'l>) -> Result<Doc<'l>> {
        let n = line.number;
        match neardup::utf8(line.bytes) {
            Ok(text) => self.parse_str(text, line),
            Err(_) if self.lossy => {
                let text = String::from_utf8_lossy(line.bytes).into_owned();
                self.parse_str(&text, line).map(Doc::into_owned)
            }
            Err(e) => bail!(
                "line {n}: invalid UTF-8 at byte {} of the line; pass --lossy to replace invalid sequences",
                e.valid_up_to()
            ),
        }
    }

    /// [`Fields::parse`] of the line's bytes as `text`: a plain line by
    /// [`crate::json::object`], any other by serde.
    fn parse_str<'s>(self, text: &'s str, line: &Line<'_>) -> Result<Doc<'s>> {
        match crate::json::object(text, self.id, self.text) {
            Some((id, text)) => Ok(Doc {
                id: id.to_owned(),
                text,
            }),
            None => self.parse_serde(text, line),
        }
    }

    /// [`Fields::parse_str`] by serde, which reads every line and words
    /// every error.
    pub(crate) fn parse_serde<'s>(self, text: &'s str, line: &Line<'_>) -> Result<Doc<'s>> {
        let n = line.number;
        let mut de = serde_json::Deserializer::from_str(text);
        let doc = self.deserialize(&mut de).and_then(|d| de.end().map(|()| d));
        match doc {
            Ok((Some(id), Some(text))) => Ok(Doc { id, text }),
            Ok((None, _)) => bail!("line {n}: missing field '{}'", self.id),
            Ok((_, None)) => bail!("line {n}: missing field '{}'", self.text),
            // Only the last line of a file can lack its newline; when its
            // JSON stops in the middle too, the file was most likely cut.
            Err(e) if !line.bytes.ends_with(b"\n") && is_cut_short(text) => bail!(
                "line {n}: the last line ends without a newline, in the middle of its JSON (is the file truncated?): {e}"
            ),
            Err(e) => bail!("line {n}: {e}"),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Fields<'_> {
    type Value = (Option<String>, Option<Cow<'de, str>>);

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Fields<'_> {
    type Value = (Option<String>, Option<Cow<'de, str>>);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a JSON object with '{}' and '{}'", self.id, self.text)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut id, mut text) = (None, None);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == self.id {
                if id.is_some() {
                    return Err(de::Error::custom(format!("duplicate field '{key}'")));
                }
                let raw: &RawValue = map.next_value()?;
                let s = raw.get();
                if !(s.starts_with('"') || is_integer(s)) {
                    return Err(de::Error::custom(format!(
                        "field '{key}' must be a string or an integer, got {}",
                        s.chars().take(40).collect::<String>()
                    )));
                }
                // RawValue checks a string's syntax, not that its escapes
                // decode: `"\ud800"` (a lone surrogate) is no string, and
                // `scan` could not read it back from `sign`'s output.
                if s.contains('\\') && serde_json::from_str::<String>(s).is_err() {
                    return Err(de::Error::custom(format!(
                        "field '{key}' is not a valid string (a lone surrogate escape?), got {}",
                        s.chars().take(40).collect::<String>()
                    )));
                }
                id = Some(s.to_owned());
            } else if key == self.text {
                if text.is_some() {
                    return Err(de::Error::custom(format!("duplicate field '{key}'")));
                }
                text = Some(
                    map.next_value::<Text<'de>>()
                        .map_err(|e| {
                            de::Error::custom(format!("field '{key}' must be a string ({e})"))
                        })?
                        .0,
                );
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok((id, text))
    }
}

/// A JSON string, borrowed when it has no escapes. (Serde's own
/// `Cow<str>` always copies.)
struct Text<'de>(Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Text<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(TextVisitor)
    }
}

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Owned(v)))
    }
}

/// Whether `json` is valid as far as it goes but ends too soon.
fn is_cut_short(json: &str) -> bool {
    serde_json::from_str::<IgnoredAny>(json).is_err_and(|e| e.is_eof())
}

fn is_integer(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Whole lines read together into one buffer, and where each one lies in
/// it. One buffer per batch, instead of one per line, spares the reader
/// thread a copy and an allocation per line (it is a third of the work
/// beside two signing threads), and a used buffer can be handed back
/// ([`Batches::recycle`]) instead of faulting in fresh pages. A batch of a
/// mapped file ([`Slices`]) borrows its bytes and copies nothing.
pub struct Batch<'m> {
    bytes: Cow<'m, [u8]>,
    /// Each kept line's number and `start..end` in `bytes`.
    lines: Vec<(u64, usize, usize)>,
}

impl Batch<'_> {
    pub fn lines(&self) -> impl ExactSizeIterator<Item = Line<'_>> {
        self.lines.iter().map(|&(number, start, end)| Line {
            number,
            bytes: &self.bytes[start..end],
        })
    }
}

/// What ended [`Cutter::take`].
enum Cut {
    /// The lines taken reach the batch size.
    Full,
    /// The next line goes on past the bytes there are: read more.
    More,
    /// No bytes are left.
    End,
}

/// Cuts bytes into numbered lines, skipping blank ones and refusing one
/// over the cap: the part of reading JSONL that is the same whether the
/// bytes are read ([`Batches`]) or mapped ([`Slices`]).
struct Cutter {
    number: u64,
    max_line: u64,
}

impl Cutter {
    fn over(&self, number: u64) -> std::io::Error {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "line {number} is over the --max-size limit of {} bytes",
                self.max_line
            ),
        )
    }

    /// Takes the lines of `bytes` from `*at` on into `lines` (as `(number,
    /// start, end)`, blank ones skipped) until their bytes, counted in
    /// `size`, reach `want`. `eof` says that no bytes follow `bytes`, so
    /// that a last line without its newline is a line. A line over the cap
    /// is an error as soon as its first `max_line + 1` bytes are there.
    fn take(
        &mut self,
        bytes: &[u8],
        at: &mut usize,
        eof: bool,
        want: usize,
        size: &mut usize,
        lines: &mut Vec<(u64, usize, usize)>,
    ) -> std::io::Result<Cut> {
        // A line is searched for its newline no further than its cap: a
        // mapped file of one huge line is refused without reading it all.
        let cap = usize::try_from(self.max_line.saturating_add(1)).unwrap_or(usize::MAX);
        while *size < want {
            let rest = &bytes[*at..];
            let seen = &rest[..rest.len().min(cap)];
            let end = match memchr::memchr(b'\n', seen) {
                Some(i) => *at + i + 1,
                None if seen.len() < rest.len() => return Err(self.over(self.number + 1)),
                None if eof => bytes.len(),
                None => return Ok(Cut::More),
            };
            if end == *at {
                return Ok(Cut::End);
            }
            self.number += 1;
            let line = &bytes[*at..end];
            let len = line.len() as u64 - u64::from(line.last() == Some(&b'\n'));
            if len > self.max_line {
                return Err(self.over(self.number));
            }
            if !line.iter().all(u8::is_ascii_whitespace) {
                *size += line.len();
                lines.push((self.number, *at, end));
            }
            *at = end;
        }
        Ok(Cut::Full)
    }
}

/// How a stream of batches ends: an error found after the lines of a
/// batch comes on the next call, and after it nothing.
#[derive(Default)]
struct Ending {
    error: Option<std::io::Error>,
    done: bool,
}

impl Ending {
    /// What `next` returns without cutting more, if anything: the error
    /// waiting, or the end.
    fn waiting<T>(&mut self) -> Option<Option<std::io::Result<T>>> {
        if let Some(e) = self.error.take() {
            self.done = true;
            return Some(Some(Err(e)));
        }
        self.done.then_some(None)
    }

    /// The batch of `lines` in `bytes`; when there are none, the end, or
    /// the error that came before any line.
    fn batch<'m>(
        &mut self,
        bytes: Cow<'m, [u8]>,
        lines: Vec<(u64, usize, usize)>,
    ) -> Option<std::io::Result<Batch<'m>>> {
        if lines.is_empty() {
            self.done = true;
            return self.error.take().map(Err);
        }
        Some(Ok(Batch { bytes, lines }))
    }
}

/// Splits a reader into batches of whole lines, each of at least
/// `batch_bytes` (or the rest of the input). Blank lines are skipped. Memory
/// is bounded by the batch size plus the longest line, which
/// [`Batches::max_line`] caps.
pub struct Batches<R> {
    reader: R,
    cutter: Cutter,
    batch_bytes: usize,
    /// Bytes read past the end of the last batch: the start of a line.
    rest: Vec<u8>,
    /// Emptied buffers to read into.
    spare: Vec<Vec<u8>>,
    ending: Ending,
    eof: bool,
}

impl<R: Read> Batches<R> {
    pub fn new(reader: R, batch_bytes: usize) -> Batches<R> {
        Batches {
            reader,
            cutter: Cutter {
                number: 0,
                max_line: u64::MAX,
            },
            batch_bytes,
            rest: Vec::new(),
            spare: Vec::new(),
            ending: Ending::default(),
            eof: false,
        }
    }

    /// Refuses a line of more than `max` bytes (its newline not counted)
    /// once `max + 1` of them are read, so that one huge line cannot take
    /// all memory: the `--max-size` of a JSONL input.
    pub fn max_line(mut self, max: u64) -> Batches<R> {
        self.cutter.max_line = max;
        self
    }

    /// Gives back a batch's buffer for a later batch to read into.
    pub fn recycle(&mut self, mut buffer: Vec<u8>) {
        buffer.clear();
        self.spare.push(buffer);
    }

    /// Appends up to `want` more bytes of input to `bytes`, noting the end.
    fn fill(&mut self, bytes: &mut Vec<u8>, want: usize) -> std::io::Result<()> {
        bytes.reserve(want);
        let got = (&mut self.reader).take(want as u64).read_to_end(bytes)?;
        self.eof = got == 0;
        Ok(())
    }
}

impl<R: Read> Iterator for Batches<R> {
    type Item = std::io::Result<Batch<'static>>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(item) = self.ending.waiting() {
            return item;
        }
        let mut bytes = self.spare.pop().unwrap_or_default();
        bytes.append(&mut self.rest);
        let (mut lines, mut size, mut at, mut filled) = (Vec::new(), 0, 0, false);
        loop {
            let cut = self.cutter.take(
                &bytes,
                &mut at,
                self.eof,
                self.batch_bytes,
                &mut size,
                &mut lines,
            );
            match cut {
                Ok(Cut::Full) => break,
                Ok(Cut::End) => {
                    self.ending.done = true;
                    break;
                }
                Err(e) => {
                    self.ending.error = Some(e);
                    break;
                }
                Ok(Cut::More) => {
                    // A batch's worth at first; after that, as much as the
                    // line so far, so that the bytes read past the batch
                    // (copied to the next one) stay few.
                    let want = match filled {
                        false => self.batch_bytes.saturating_sub(bytes.len()),
                        true => bytes.len() - at,
                    };
                    filled = true;
                    if let Err(e) = self.fill(&mut bytes, want.max(1 << 16)) {
                        self.ending.error = Some(e);
                        break;
                    }
                }
            }
        }
        self.rest.extend_from_slice(&bytes[at..]);
        bytes.truncate(at);
        self.ending.batch(Cow::Owned(bytes), lines)
    }
}

/// [`Batches`] of bytes already in memory (a mapped file): each batch
/// borrows its lines where they lie.
pub struct Slices<'m> {
    bytes: &'m [u8],
    cutter: Cutter,
    batch_bytes: usize,
    ending: Ending,
}

impl<'m> Slices<'m> {
    /// Batches of `bytes`, cut as [`Batches::new`] and
    /// [`Batches::max_line`] cut a reader's.
    pub fn new(bytes: &'m [u8], batch_bytes: usize, max_line: u64) -> Slices<'m> {
        Slices {
            bytes,
            cutter: Cutter {
                number: 0,
                max_line,
            },
            batch_bytes,
            ending: Ending::default(),
        }
    }
}

impl<'m> Iterator for Slices<'m> {
    type Item = std::io::Result<Batch<'m>>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(item) = self.ending.waiting() {
            return item;
        }
        let (mut lines, mut size, mut at) = (Vec::new(), 0, 0);
        let want = self.batch_bytes;
        match self
            .cutter
            .take(self.bytes, &mut at, true, want, &mut size, &mut lines)
        {
            Ok(Cut::Full) => {}
            // Nothing follows the bytes, so no line waits for more.
            Ok(Cut::End | Cut::More) => self.ending.done = true,
            Err(e) => self.ending.error = Some(e),
        }
        let (batch, rest) = self.bytes.split_at(at);
        self.bytes = rest;
        self.ending.batch(Cow::Borrowed(batch), lines)
    }
}

/// Where the lines of a JSONL input come from.
pub enum Lines<'m> {
    /// Bytes in memory, read where they lie.
    Mapped(&'m dyn Mapped),
    /// A stream, read into buffers.
    Stream(&'m mut (dyn BufRead + Send)),
}

/// Bytes in memory that can be let go of once read: a mapped file.
pub trait Mapped: Sync {
    fn bytes(&self) -> &[u8];

    /// The bytes `range` are read and done with: a mapped file's pages
    /// may leave the process (the file's pages stay cached), so that
    /// reading a corpus does not keep all of it mapped.
    fn release(&self, range: std::ops::Range<usize>);
}

/// Input goes to the workers in batches of about this many bytes: large
/// enough to keep every thread busy, small enough that memory stays
/// bounded however large the input is.
pub const BATCH_BYTES: usize = 8 << 20;

/// Streams `lines` through `work` on the current rayon pool and hands
/// each result to `consume` in input order. A reader thread cuts the next
/// batch (reading it, from a stream) while the pool works on this one (two
/// batches in flight). The first error stops the stream; `name` names the input in
/// messages, and a line over `max_line` bytes is one.
pub fn pipeline<T: Send>(
    lines: Lines<'_>,
    name: &str,
    max_line: u64,
    work: impl Fn(&Line<'_>) -> Result<T> + Sync,
    consume: impl FnMut(&Line<'_>, T) -> Result<()>,
) -> Result<()> {
    let work = |_: &mut (), lines: &[Line<'_>]| lines.iter().map(&work).collect();
    pipeline_chunks(lines, name, max_line, || (), work, consume)
}

/// Lines go to a worker this many at a time, so that the worker can treat
/// them as one batch (`neardup sign` hashes their shingles together)...
const CHUNK_LINES: usize = 32;

/// ... or fewer, when they reach this many bytes: chunks of about equal
/// work, so that no thread is left with a long one at the end of a batch
/// while the others wait.
const CHUNK_BYTES: usize = 64 << 10;

/// `lines` cut into chunks of [`CHUNK_LINES`] lines or [`CHUNK_BYTES`]
/// bytes, largest first: a long line then starts early, and the small
/// chunks fill in around it.
fn chunks(lines: &[Line<'_>]) -> Vec<std::ops::Range<usize>> {
    let mut chunks = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, line) in lines.iter().enumerate() {
        bytes += line.bytes.len();
        if i + 1 - start == CHUNK_LINES || bytes >= CHUNK_BYTES || i + 1 == lines.len() {
            chunks.push((bytes, start..i + 1));
            (start, bytes) = (i + 1, 0);
        }
    }
    chunks.sort_by_key(|&(bytes, _)| std::cmp::Reverse(bytes));
    chunks.into_iter().map(|(_, range)| range).collect()
}

/// [`pipeline`] with `work` called on up to [`CHUNK_LINES`] lines at a
/// time, giving one result per line, and a state made by `init` once per
/// worker thread and kept for the whole stream (a [`neardup::Signer`]
/// whose buffers, once grown, serve every later batch).
pub fn pipeline_chunks<T: Send, S: Send>(
    lines: Lines<'_>,
    name: &str,
    max_line: u64,
    init: impl Fn() -> S + Sync + Send,
    work: impl Fn(&mut S, &[Line<'_>]) -> Vec<Result<T>> + Sync + Send,
    mut consume: impl FnMut(&Line<'_>, T) -> Result<()>,
) -> Result<()> {
    use anyhow::Context;
    use rayon::prelude::*;
    use std::sync::mpsc;
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::sync_channel(2);
        // Used buffers go back to the reader, to be read into again.
        let (give_back, given_back) = mpsc::channel::<Vec<u8>>();
        let mapped = match &lines {
            Lines::Mapped(mapped) => Some(*mapped),
            Lines::Stream(_) => None,
        };
        s.spawn(move || match lines {
            Lines::Mapped(mapped) => {
                for batch in Slices::new(mapped.bytes(), BATCH_BYTES, max_line) {
                    if tx.send(batch).is_err() {
                        break;
                    }
                }
            }
            Lines::Stream(reader) => {
                let mut batches = Batches::new(reader, BATCH_BYTES).max_line(max_line);
                while let Some(batch) = batches.next() {
                    if tx.send(batch).is_err() {
                        break;
                    }
                    while let Ok(buffer) = given_back.try_recv() {
                        batches.recycle(buffer);
                    }
                }
            }
        });
        // One state per worker thread: a thread only ever locks its own,
        // and `work` never waits on the pool, so no lock is contended.
        let states: Vec<std::sync::Mutex<Option<S>>> = (0..rayon::current_num_threads())
            .map(|_| std::sync::Mutex::new(None))
            .collect();
        let run = |lines: &[Line<'_>]| {
            let i = rayon::current_thread_index().unwrap_or(0) % states.len();
            let mut state = states[i].lock().unwrap_or_else(|e| e.into_inner());
            work(state.get_or_insert_with(&init), lines)
        };
        for batch in rx {
            let batch = batch
                .map_err(|e| anyhow::anyhow!("reading '{name}': {}", crate::input::describe(&e)))?;
            let lines: Vec<Line<'_>> = batch.lines().collect();
            let mut results: Vec<(usize, Vec<Result<T>>)> = chunks(&lines)
                .into_par_iter()
                .with_max_len(1)
                .map(|r| (r.start, run(&lines[r])))
                .collect();
            results.sort_unstable_by_key(|&(start, _)| start);
            let results = results.into_iter().flat_map(|(_, r)| r);
            for (line, result) in lines.iter().zip(results) {
                consume(line, result.with_context(|| format!("'{name}'"))?)?;
            }
            drop(lines);
            match batch.bytes {
                // The reader may be gone already, at the end.
                Cow::Owned(buffer) => drop(give_back.send(buffer)),
                Cow::Borrowed(bytes) => {
                    if let Some(mapped) = mapped {
                        let start = bytes.as_ptr() as usize - mapped.bytes().as_ptr() as usize;
                        mapped.release(start..start + bytes.len());
                    }
                }
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Doc<'static>> {
        let fields = Fields {
            id: "id",
            text: "text",
            lossy: false,
        };
        fields
            .parse(&Line {
                number: 7,
                bytes: s.as_bytes(),
            })
            .map(Doc::into_owned)
    }

    /// Lines made of plain and unusual pieces: whenever the fast reading
    /// gives a document, serde's gives the same one.
    #[test]
    fn the_fast_reading_agrees_with_serde() {
        let keys = [
            r#""id""#,
            r#""text""#,
            r#""te\u0078t""#,
            r#""x""#,
            r#""i\"d""#,
        ];
        let values = [
            r#""a b""#,
            r#""a\nb \"q\" \\""#,
            r#""\ud83d\ude00 caf\u00E9""#,
            r#""\ud800""#,
            r#""\udc00""#,
            r#""\x""#,
            "\"raw\ttab\"",
            "\"caf\u{e9}\"",
            r#""""#,
            r#""\u00""#,
            "1",
            "-0",
            "01",
            "-",
            "1.5",
            "2e3",
            "123456789012345678901234567890",
            "true",
            "nul",
            "null",
            "false",
            "[1]",
            r#"{"a":1}"#,
            r#""unterminated"#,
        ];
        let space = ["", " ", "\t", "\r\n "];
        let fields = Fields {
            id: "id",
            text: "text",
            lossy: false,
        };
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut pick = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut fast = 0;
        for _ in 0..20_000 {
            let mut line = String::from(space[pick(4)]);
            line.push('{');
            // An id and a text, plain half the time, among other fields.
            let mut members: Vec<(&str, &str)> = (0..pick(3))
                .map(|_| (keys[pick(keys.len())], values[pick(values.len())]))
                .collect();
            let id = if pick(2) == 0 {
                "7"
            } else {
                values[pick(values.len())]
            };
            members.insert(pick(members.len() + 1), (keys[0], id));
            let text = values[if pick(2) == 0 {
                pick(3)
            } else {
                pick(values.len())
            }];
            members.insert(pick(members.len() + 1), (keys[1 + pick(2)], text));
            for (i, (key, value)) in members.into_iter().enumerate() {
                if i > 0 {
                    line.push(',');
                }
                for part in [
                    space[pick(4)],
                    key,
                    space[pick(4)],
                    ":",
                    space[pick(4)],
                    value,
                ] {
                    line.push_str(part);
                }
                line.push_str(space[pick(4)]);
            }
            line.push_str(["}", "}", "}\n", "} x", ",}", ""][pick(6)]);
            let line_ = Line {
                number: 1,
                bytes: line.as_bytes(),
            };
            if let Some((id, text)) = crate::json::object(&line, "id", "text") {
                fast += 1;
                let doc = fields
                    .parse_serde(&line, &line_)
                    .unwrap_or_else(|e| panic!("{line}: {e}"));
                assert_eq!((id, &*text), (doc.id.as_str(), &*doc.text), "{line}");
            }
        }
        // Not a check that never runs: many lines are plain.
        assert!(fast > 1_000, "{fast}");
    }

    #[test]
    fn ids_pass_through_unchanged() {
        let d = parse(r#"{"text":"a\nb","id":12345678901234567890123,"x":[1,{"y":2}]}"#).unwrap();
        assert_eq!(
            (d.id.as_str(), &*d.text),
            ("12345678901234567890123", "a\nb")
        );
        assert_eq!(parse(r#"{"id":"x\"y","text":""}"#).unwrap().id, r#""x\"y""#);
        // A text without escapes is borrowed from the line, not copied.
        let line = Line {
            number: 1,
            bytes: br#"{"id":1,"text":"plain"}"#,
        };
        let fields = Fields {
            id: "id",
            text: "text",
            lossy: false,
        };
        assert!(matches!(
            fields.parse(&line).unwrap().text,
            Cow::Borrowed("plain")
        ));
    }

    #[test]
    fn bad_lines_name_the_line() {
        for (line, needle) in [
            ("{", "line 7: "),
            (r#"{"text":"a"}"#, "missing field 'id'"),
            (r#"{"id":1}"#, "missing field 'text'"),
            (r#"{"id":1.5,"text":""}"#, "string or an integer"),
            (r#"{"id":1,"text":2}"#, "field 'text' must be a string"),
            (r#"{"id":1,"id":2,"text":""}"#, "duplicate field 'id'"),
            // Found by fuzz/fuzz_targets/jsonl.rs: a lone surrogate escape.
            (
                r#"{"id":"0d\udfb1","text":""}"#,
                "field 'id' is not a valid string",
            ),
            (r#"[1]"#, "line 7: "),
            (r#"{"id":1,"text":""} x"#, "line 7: "),
        ] {
            let e = parse(line).err().unwrap().to_string();
            assert!(e.contains(needle), "{line}: {e}");
        }
    }

    #[test]
    fn batches_keep_line_numbers() {
        let input = b"a\n\n  \nb\nc";
        let batches: Vec<Batch> = Batches::new(&input[..], 3).map(Result::unwrap).collect();
        let numbers: Vec<Vec<u64>> = batches
            .iter()
            .map(|b| b.lines().map(|l| l.number).collect())
            .collect();
        assert_eq!(numbers, [vec![1, 4], vec![5]]);
    }

    /// A mapped file is cut into the lines a read one is, errors included.
    #[test]
    fn slices_cut_as_batches_do() {
        type Cut = Vec<Result<Vec<(u64, Vec<u8>)>, String>>;
        fn cuts<'b>(batches: impl Iterator<Item = std::io::Result<Batch<'b>>>) -> Cut {
            let line = |l: Line<'_>| (l.number, l.bytes.to_vec());
            let batch = |b: Batch<'_>| b.lines().map(line).collect();
            batches
                .map(|b| b.map(batch).map_err(|e| e.to_string()))
                .collect()
        }
        let inputs: [&[u8]; 7] = [
            b"",
            b"\n\n",
            b"a\n\n  \nb\nc",
            b"abc\nabcd\nab\n",
            b"abcd",
            b"ab\r\n{}\n\t\nxyz\n",
            b"a\nbb\nccc\ndddd\neeeee",
        ];
        for input in inputs {
            for (size, max) in [(1, 3), (3, 3), (5, 4), (1 << 20, u64::MAX)] {
                let read = cuts(Batches::new(input, size).max_line(max));
                let mapped = cuts(Slices::new(input, size, max));
                assert_eq!(read, mapped, "{input:?} {size} {max}");
            }
        }
    }

    #[test]
    fn a_line_over_the_cap_stops_the_batches() {
        let lines = |input: &[u8], max| -> Vec<std::io::Result<Batch>> {
            Batches::new(input, 1).max_line(max).collect()
        };
        // Exactly the cap, with or without its newline, is fine.
        assert!(lines(b"abc\nabc\n", 3).iter().all(Result::is_ok));
        assert!(lines(b"abc\nabc", 3).iter().all(Result::is_ok));
        let got = lines(b"abc\nabcd\nab\n", 3);
        assert_eq!(got.len(), 2, "nothing after the long line");
        let first = got[0].as_ref().unwrap().lines().next().unwrap();
        assert_eq!(first.bytes, b"abc\n");
        let e = got[1].as_ref().err().unwrap().to_string();
        assert_eq!(e, "line 2 is over the --max-size limit of 3 bytes");
        assert!(lines(b"abcd", 3)[0].is_err());
    }

    #[test]
    fn a_cut_short_last_line_says_so() {
        let e = parse(r#"{"id":1,"text":"a b"#).err().unwrap().to_string();
        assert!(
            e.starts_with("line 7: the last line ends without a newline, in the middle of its JSON (is the file truncated?)"),
            "{e}"
        );
        let fields = Fields {
            id: "id",
            text: "text",
            lossy: false,
        };
        let whole = |s: &str| {
            fields
                .parse(&Line {
                    number: 2,
                    bytes: s.as_bytes(),
                })
                .map(Doc::into_owned)
        };
        for line in [
            "{\"id\":1,\"text\":\"a\"} x\n",
            "{\"id\":1.5,\"text\":\"a\"}",
            "{\"id\":\n",
        ] {
            let e = whole(line).err().unwrap().to_string();
            assert!(!e.contains("truncated"), "{line}: {e}");
        }
    }
}
