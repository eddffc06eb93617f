//! One JSONL document: a `{"id": ..., "text": ...}` line. A plain line is
//! read by the fast reading of [`crate::json`]; any other, and every
//! error, by serde, so that errors have one source.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::lines::Line;
use crate::{Error, Result};

/// A parsed document: its id exactly as written (a JSON string or
/// integer, passed through unchanged) and its text, borrowed from the line
/// when it has no escapes (a line can be most of a gigabyte: one copy
/// fewer).
pub struct Document<'l> {
    /// The id as the line wrote it: JSON text, a string or an integer.
    pub id: String,
    /// The text, decoded.
    pub text: Cow<'l, str>,
}

impl Document<'_> {
    /// The document with its text copied out of the line.
    pub fn into_owned(self) -> Document<'static> {
        Document {
            id: self.id,
            text: Cow::Owned(self.text.into_owned()),
        }
    }
}

/// Which fields (JSONL) or columns (Parquet) hold the id and the text:
/// one pair of names for both, so a corpus converted from one to the other
/// is read with the same options.
#[derive(Debug, Clone, Copy)]
pub struct Columns<'a> {
    /// The id's field or column.
    pub id: &'a str,
    /// The text's field or column.
    pub text: &'a str,
}

/// Which fields hold the id and the text.
#[derive(Clone, Copy)]
pub struct Fields<'a> {
    /// The field holding the id.
    pub id: &'a str,
    /// The field holding the text.
    pub text: &'a str,
    /// Replace invalid UTF-8 in a line instead of refusing the line.
    pub lossy: bool,
}

impl<'a> Fields<'a> {
    /// The same fields as the columns of a Parquet file.
    pub fn columns(self) -> Columns<'a> {
        Columns {
            id: self.id,
            text: self.text,
        }
    }

    /// Parses one line, in a single pass: the id is kept as raw JSON, other
    /// fields are skipped without being built.
    pub fn parse<'l>(self, line: &Line<'l>) -> Result<Document<'l>> {
        let n = line.number;
        match neardup::utf8(line.bytes) {
            Ok(text) => self.parse_str(text, line),
            Err(_) if self.lossy => {
                let text = String::from_utf8_lossy(line.bytes).into_owned();
                self.parse_str(&text, line).map(Document::into_owned)
            }
            Err(e) => Err(Error::line(
                n,
                format!(
                    "invalid UTF-8 at byte {} of the line; pass --lossy to replace invalid sequences",
                    e.valid_up_to()
                ),
            )),
        }
    }

    /// [`Fields::parse`] of the line's bytes as `text`: a plain line by
    /// [`crate::json::object`], any other by serde.
    fn parse_str<'s>(self, text: &'s str, line: &Line<'_>) -> Result<Document<'s>> {
        match crate::json::object(text, self.id, self.text) {
            Some((id, text)) => Ok(Document {
                id: id.to_owned(),
                text,
            }),
            None => self.parse_serde(text, line),
        }
    }

    /// [`Fields::parse`] of a line already decoded, by serde alone: it
    /// reads every line and words every error, and is the reference the
    /// fast reading is tested and fuzzed against.
    pub fn parse_serde<'s>(self, text: &'s str, line: &Line<'_>) -> Result<Document<'s>> {
        let n = line.number;
        let mut de = serde_json::Deserializer::from_str(text);
        let doc = self.deserialize(&mut de).and_then(|d| de.end().map(|()| d));
        match doc {
            Ok((Some(id), Some(text))) => Ok(Document { id, text }),
            Ok((None, _)) => Err(Error::line(n, format!("missing field '{}'", self.id))),
            Ok((_, None)) => Err(Error::line(n, format!("missing field '{}'", self.text))),
            // Only the last line of a file can lack its newline; when its
            // JSON stops in the middle too, the file was most likely cut.
            Err(e) if !line.bytes.ends_with(b"\n") && is_cut_short(text) => Err(Error::line(
                n,
                format!("the last line ends without a newline, in the middle of its JSON (is the file truncated?): {e}"),
            )),
            Err(e) => Err(Error::line(n, e.to_string())),
        }
    }
}

/// Appends the JSONL line (with its newline) of one document:
/// `{"<id_key>": ID, "<text_key>": TEXT}`, the id already JSON text. How a
/// deduped corpus writes a text file's or a Parquet row's document.
pub fn write_line(out: &mut Vec<u8>, keys: [&str; 2], id: &str, text: &str) {
    let json = neardup::scan::lines::json_string;
    out.push(b'{');
    out.extend_from_slice(json(keys[0]).as_bytes());
    out.push(b':');
    out.extend_from_slice(id.as_bytes());
    out.push(b',');
    out.extend_from_slice(json(keys[1]).as_bytes());
    out.push(b':');
    out.extend_from_slice(json(text).as_bytes());
    out.extend_from_slice(b"}\n");
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Document<'static>> {
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
            .map(Document::into_owned)
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
                .map(Document::into_owned)
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
