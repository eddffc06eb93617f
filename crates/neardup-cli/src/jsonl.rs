//! JSONL documents: `{"id": ..., "text": ...}` lines, read in bounded batches.

use std::fmt;
use std::io::BufRead;

use anyhow::{bail, Result};
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

/// One input line, not yet parsed: parsing happens on the worker threads.
pub struct Line {
    /// 1-based line number, for error messages.
    pub number: u64,
    pub bytes: Vec<u8>,
}

/// A parsed document: its id exactly as written (a JSON string or
/// integer, passed through unchanged) and its text.
pub struct Doc {
    pub id: String,
    pub text: String,
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
    pub fn parse(self, line: &Line) -> Result<Doc> {
        let n = line.number;
        let text = match std::str::from_utf8(&line.bytes) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) if self.lossy => String::from_utf8_lossy(&line.bytes),
            Err(e) => bail!(
                "line {n}: invalid UTF-8 at byte {} of the line; pass --lossy to replace invalid sequences",
                e.valid_up_to()
            ),
        };
        let mut de = serde_json::Deserializer::from_str(&text);
        let doc = self.deserialize(&mut de).and_then(|d| de.end().map(|()| d));
        match doc {
            Ok((Some(id), Some(text))) => Ok(Doc { id, text }),
            Ok((None, _)) => bail!("line {n}: missing field '{}'", self.id),
            Ok((_, None)) => bail!("line {n}: missing field '{}'", self.text),
            Err(e) => bail!("line {n}: {e}"),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Fields<'_> {
    type Value = (Option<String>, Option<String>);

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Fields<'_> {
    type Value = (Option<String>, Option<String>);

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
                id = Some(s.to_owned());
            } else if key == self.text {
                if text.is_some() {
                    return Err(de::Error::custom(format!("duplicate field '{key}'")));
                }
                text = Some(map.next_value::<String>().map_err(|e| {
                    de::Error::custom(format!("field '{key}' must be a string ({e})"))
                })?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok((id, text))
    }
}

fn is_integer(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Splits a reader into batches of whole lines, each of at least
/// `batch_bytes` (or the rest of the input). Blank lines are skipped. Memory
/// is bounded by the batch size plus the longest line.
pub struct Batches<R> {
    reader: R,
    number: u64,
    batch_bytes: usize,
    done: bool,
}

impl<R: BufRead> Batches<R> {
    pub fn new(reader: R, batch_bytes: usize) -> Batches<R> {
        Batches {
            reader,
            number: 0,
            batch_bytes,
            done: false,
        }
    }
}

impl<R: BufRead> Iterator for Batches<R> {
    type Item = std::io::Result<Vec<Line>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut batch = Vec::new();
        let mut size = 0;
        while size < self.batch_bytes {
            let mut bytes = Vec::new();
            match self.reader.read_until(b'\n', &mut bytes) {
                Ok(0) => {
                    self.done = true;
                    break;
                }
                Ok(_) => {}
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
            self.number += 1;
            if bytes.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            size += bytes.len();
            batch.push(Line {
                number: self.number,
                bytes,
            });
        }
        (!batch.is_empty()).then_some(Ok(batch))
    }
}

/// Input goes to the workers in batches of about this many bytes: large
/// enough to keep every thread busy, small enough that memory stays
/// bounded however large the input is.
pub const BATCH_BYTES: usize = 8 << 20;

/// Streams the lines of `reader` through `work` on the current rayon pool
/// and hands each result to `consume` in input order. A reader thread
/// fills the next batch while the pool works on this one (two batches in
/// flight). The first error stops the stream; `name` names the input in
/// messages.
pub fn pipeline<T: Send>(
    reader: Box<dyn BufRead + Send>,
    name: &str,
    work: impl Fn(&Line) -> Result<T> + Sync,
    consume: impl FnMut(&Line, T) -> Result<()>,
) -> Result<()> {
    let work = |_: &mut (), lines: &[Line]| lines.iter().map(&work).collect();
    pipeline_chunks(reader, name, || (), work, consume)
}

/// Lines go to a worker this many at a time, so that the worker can treat
/// them as one batch (`neardup sign` hashes their shingles together).
const CHUNK_LINES: usize = 32;

/// [`pipeline`] with `work` called on up to [`CHUNK_LINES`] lines at a
/// time, giving one result per line, and a state made by `init` for each
/// worker task (a [`neardup::Signer`] with its buffers).
pub fn pipeline_chunks<T: Send, S>(
    reader: Box<dyn BufRead + Send>,
    name: &str,
    init: impl Fn() -> S + Sync + Send,
    work: impl Fn(&mut S, &[Line]) -> Vec<Result<T>> + Sync + Send,
    mut consume: impl FnMut(&Line, T) -> Result<()>,
) -> Result<()> {
    use anyhow::Context;
    use rayon::prelude::*;
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel(2);
        s.spawn(move || {
            for batch in Batches::new(reader, BATCH_BYTES) {
                if tx.send(batch).is_err() {
                    break;
                }
            }
        });
        for batch in rx {
            let batch = batch
                .map_err(|e| anyhow::anyhow!("reading '{name}': {}", crate::input::describe(&e)))?;
            let results: Vec<Vec<Result<T>>> = batch
                .par_chunks(CHUNK_LINES)
                .map_init(&init, |state, lines| work(state, lines))
                .collect();
            for (line, result) in batch.iter().zip(results.into_iter().flatten()) {
                consume(line, result.with_context(|| format!("'{name}'"))?)?;
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Doc> {
        let fields = Fields {
            id: "id",
            text: "text",
            lossy: false,
        };
        fields.parse(&Line {
            number: 7,
            bytes: s.as_bytes().to_vec(),
        })
    }

    #[test]
    fn ids_pass_through_unchanged() {
        let d = parse(r#"{"text":"a\nb","id":12345678901234567890123,"x":[1,{"y":2}]}"#).unwrap();
        assert_eq!(
            (d.id.as_str(), d.text.as_str()),
            ("12345678901234567890123", "a\nb")
        );
        assert_eq!(parse(r#"{"id":"x\"y","text":""}"#).unwrap().id, r#""x\"y""#);
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
        let batches: Vec<Vec<Line>> = Batches::new(&input[..], 3).map(Result::unwrap).collect();
        let numbers: Vec<Vec<u64>> = batches
            .iter()
            .map(|b| b.iter().map(|l| l.number).collect())
            .collect();
        assert_eq!(numbers, [vec![1, 4], vec![5]]);
    }
}
