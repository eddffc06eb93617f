//! A plain JSONL line read without serde: the object of strings and
//! integers that nearly every corpus line is, its text field decoded in
//! runs found 16 bytes a step.
//!
//! `serde_json` scans a string 8 bytes a step and stops at every escape,
//! then the text is copied out of its scratch buffer: on a corpus of man
//! pages, a newline escape every few dozen bytes, that was a tenth of
//! `sign --jsonl`. Here a run between escapes is found 16 bytes a step and
//! copied once. Only the well-formed plain case is read; anything else
//! (an error, a duplicate field, a nested value, a float) gives `None`, and
//! serde reads the line and says what is wrong, so errors have one source.
//!
//! Differential tests hold this to serde's reading: whenever [`object`]
//! gives a document, it is the one serde gives.

use std::borrow::Cow;

/// The id (as written: a JSON string with its quotes, or an integer) and
/// the decoded text of `line`, a JSON object with fields `id` and `text`
/// whose other values are strings, integers, `true`, `false` or `null`.
/// `None` for any other line, valid or not.
pub fn object<'l>(line: &'l str, id: &str, text: &str) -> Option<(&'l str, Cow<'l, str>)> {
    let mut at = Cursor { line, at: 0 };
    let (mut got_id, mut got_text) = (None, None);
    at.expect(b'{')?;
    loop {
        at.expect(b'"')?;
        let key = at.string()?;
        at.expect(b':')?;
        at.space();
        let start = at.at;
        if key == text {
            at.expect(b'"')?;
            let value = at.string()?;
            got_text.replace(value).is_none().then_some(())?;
        } else {
            let value = at.scalar()?;
            if key == id {
                // An id is a string or an integer.
                (value != Scalar::Word).then_some(())?;
                let raw = line.get(start..at.at)?;
                got_id.replace(raw).is_none().then_some(())?;
            }
        }
        match at.next()? {
            b',' => {}
            b'}' => break,
            _ => return None,
        }
    }
    at.space();
    (at.at == line.len()).then_some(())?;
    Some((got_id?, got_text?))
}

/// What [`Cursor::scalar`] read.
#[derive(PartialEq)]
enum Scalar {
    String,
    Integer,
    /// `true`, `false` or `null`.
    Word,
}

struct Cursor<'l> {
    line: &'l str,
    at: usize,
}

impl<'l> Cursor<'l> {
    fn bytes(&self) -> &'l [u8] {
        self.line.as_bytes()
    }

    /// Skips JSON whitespace.
    fn space(&mut self) {
        let rest = &self.bytes()[self.at..];
        self.at += rest
            .iter()
            .position(|&b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .unwrap_or(rest.len());
    }

    /// The next byte after whitespace, consumed.
    fn next(&mut self) -> Option<u8> {
        self.space();
        let b = *self.bytes().get(self.at)?;
        self.at += 1;
        Some(b)
    }

    fn expect(&mut self, want: u8) -> Option<()> {
        (self.next()? == want).then_some(())
    }

    /// A value other than the text: a string (decoded, to check it, and
    /// dropped), an integer, `true`, `false` or `null`.
    fn scalar(&mut self) -> Option<Scalar> {
        let rest = &self.bytes()[self.at..];
        match *rest.first()? {
            b'"' => {
                self.at += 1;
                self.string().map(|_| Scalar::String)
            }
            b'-' | b'0'..=b'9' => {
                let sign = usize::from(rest[0] == b'-');
                let digits = rest[sign..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                // No digits, or a leading zero: serde says which error.
                (digits == 1 || (digits > 1 && rest[sign] != b'0')).then_some(())?;
                self.at += sign + digits;
                // A fraction or an exponent makes it no integer.
                let after = self.bytes().get(self.at);
                (!matches!(after, Some(b'.' | b'e' | b'E'))).then_some(Scalar::Integer)
            }
            _ => {
                let word = ["true", "false", "null"]
                    .into_iter()
                    .find(|w| rest.starts_with(w.as_bytes()))?;
                self.at += word.len();
                Some(Scalar::Word)
            }
        }
    }

    /// The string whose opening quote was just read, decoded, the cursor
    /// left after its closing quote. Borrowed when it has no escape.
    fn string(&mut self) -> Option<Cow<'l, str>> {
        let (line, bytes) = (self.line, self.bytes());
        let start = self.at;
        self.at += plain_len(&bytes[start..]);
        if *bytes.get(self.at)? == b'"' {
            self.at += 1;
            // Quotes are ASCII: both ends are boundaries.
            return line.get(start..self.at - 1).map(Cow::Borrowed);
        }
        // An escape is longer than what it stands for, so the rest of the
        // line holds the decoded bytes, and a step more the runs' copies.
        let mut out = Vec::with_capacity(bytes.len() - start + STEP);
        out.extend_from_slice(&bytes[start..self.at]);
        loop {
            // A control character must be escaped; the line's end is no
            // string's end.
            match *bytes.get(self.at)? {
                b'"' => break,
                b'\\' => {}
                _ => return None,
            }
            let escape = *bytes.get(self.at + 1)?;
            self.at += 2;
            let byte = match escape {
                b'"' => b'"',
                b'\\' => b'\\',
                b'/' => b'/',
                b'b' => 0x08,
                b'f' => 0x0c,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                b'u' => {
                    let c = self.unicode()?;
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                    self.at = copy_plain(bytes, self.at, &mut out);
                    continue;
                }
                _ => return None,
            };
            out.push(byte);
            self.at = copy_plain(bytes, self.at, &mut out);
        }
        self.at += 1;
        // SAFETY: `out` is the line's bytes between the quotes, a `str`
        // cut only before or after ASCII quotes and backslashes, so at
        // character boundaries, with each escape replaced by the UTF-8 of
        // the character it stands for: UTF-8 throughout.
        #[allow(unsafe_code)]
        Some(Cow::Owned(unsafe { String::from_utf8_unchecked(out) }))
    }

    /// The character of a `\u` escape whose `\u` was just read: four hex
    /// digits, or a surrogate pair of two escapes. A lone surrogate is
    /// `None`.
    fn unicode(&mut self) -> Option<char> {
        let first = self.hex4()?;
        if !(0xd800..0xdc00).contains(&first) {
            return char::from_u32(first);
        }
        (self.bytes().get(self.at..self.at + 2)? == b"\\u").then_some(())?;
        self.at += 2;
        let second = self.hex4()?;
        (0xdc00..0xe000).contains(&second).then_some(())?;
        char::from_u32(0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00))
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.bytes().get(self.at..self.at + 4)?;
        self.at += 4;
        digits
            .iter()
            .try_fold(0, |n, &d| Some(n << 4 | char::from(d).to_digit(16)?))
    }
}

/// The bytes [`copy_plain`] copies in one step.
const STEP: usize = 16;

/// Appends to `out` the bytes of `bytes` from `at` up to the first quote,
/// backslash or control byte (or the end), and returns where that stop is:
/// the search and the copy in one pass, 16 bytes a step with SSE2 (each
/// step stores all 16 into `out`'s spare room, and the length takes only
/// the plain ones), one at a time elsewhere and at the end of the line.
fn copy_plain(bytes: &[u8], at: usize, out: &mut Vec<u8>) -> usize {
    // Counted by the SSE2 steps; elsewhere (wasm) it stays 0.
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
    let mut n = 0;
    #[cfg(target_arch = "x86_64")]
    {
        out.reserve(bytes.len() - at + STEP);
        let room = out.spare_capacity_mut();
        while let Some(chunk) = bytes.get(at + n..at + n + STEP) {
            let to = &mut room[n..n + STEP];
            // SAFETY: SSE2 is part of x86-64; the load reads the 16 bytes
            // of `chunk` and the store writes the 16 of `to`, both without
            // alignment.
            #[allow(unsafe_code)]
            let mask = unsafe {
                use std::arch::x86_64::*;
                let v = _mm_loadu_si128(chunk.as_ptr().cast());
                _mm_storeu_si128(to.as_mut_ptr().cast(), v);
                sse2_stops(v)
            };
            if mask != 0 {
                n += mask.trailing_zeros() as usize;
                // SAFETY: the stores above wrote the `n` bytes past the
                // length, and the room reserved holds them.
                #[allow(unsafe_code)]
                unsafe {
                    out.set_len(out.len() + n)
                };
                return at + n;
            }
            n += STEP;
        }
        // SAFETY: as above, for the whole chunks stored.
        #[allow(unsafe_code)]
        unsafe {
            out.set_len(out.len() + n)
        };
    }
    let rest = plain_len(&bytes[at + n..]);
    out.extend_from_slice(&bytes[at + n..at + n + rest]);
    at + n + rest
}

/// How many bytes of `bytes` come before the first quote, backslash or
/// control byte (all of them if none does): 16 a step with SSE2, which
/// every x86-64 CPU has, one at a time elsewhere.
fn plain_len(bytes: &[u8]) -> usize {
    let stops = |b: u8| b == b'"' || b == b'\\' || b < 0x20;
    #[cfg(target_arch = "x86_64")]
    let n = sse2_plain_len(bytes);
    #[cfg(not(target_arch = "x86_64"))]
    let n = 0;
    n + bytes[n..]
        .iter()
        .position(|&b| stops(b))
        .unwrap_or(bytes.len() - n)
}

/// [`plain_len`] over the whole 16-byte chunks: their length if no chunk
/// stops, else the first stop's offset.
#[cfg(target_arch = "x86_64")]
fn sse2_plain_len(bytes: &[u8]) -> usize {
    let mut n = 0;
    while let Some(chunk) = bytes.get(n..n + STEP) {
        // SAFETY: SSE2 is part of x86-64; the load reads the 16 bytes of
        // `chunk`, without alignment.
        #[allow(unsafe_code)]
        let mask = unsafe { sse2_stops(std::arch::x86_64::_mm_loadu_si128(chunk.as_ptr().cast())) };
        if mask != 0 {
            return n + mask.trailing_zeros() as usize;
        }
        n += STEP;
    }
    n
}

/// A bit for each byte of `v` that is a quote, a backslash or a control
/// byte.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "sse2")]
fn sse2_stops(v: std::arch::x86_64::__m128i) -> i32 {
    use std::arch::x86_64::*;
    let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
    let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
    // b < 0x20 exactly when min(b, 0x1f) == b, unsigned.
    let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
    _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The document serde reads from `line`: the reference.
    fn by_serde(line: &str) -> Option<(String, String)> {
        let fields = crate::jsonl::Fields {
            id: "id",
            text: "text",
            lossy: false,
        };
        let at = crate::lines::Line {
            number: 1,
            bytes: line.as_bytes(),
        };
        let doc = fields.parse_serde(line, &at).ok()?;
        Some((doc.id, doc.text.into_owned()))
    }

    #[test]
    fn reads_plain_lines_as_serde_does() {
        let lines = [
            r#"{"id": 1, "text": "a b c"}"#,
            r#"{"id":"x","text":"line\none\ttab \"q\" \\ \/ \b\f\r"}"#,
            "{\"text\": \"caf\\u00e9 \\uD83D\\ude00 caf\u{e9}\", \"id\": -17}\n",
            r#"  {"id": "a\"b", "meta": null, "n": 0, "ok": true, "no": false, "s": "x\ny", "text": ""}  "#,
            r#"{"id": 123456789012345678901234567890, "text": "big id"}"#,
            r#"{"te\u0078t": "escaped key", "id": 3}"#,
        ];
        for line in lines {
            let (id, text) = object(line, "id", "text").unwrap_or_else(|| panic!("{line}"));
            assert_eq!(
                Some((id.to_owned(), text.into_owned())),
                by_serde(line),
                "{line}"
            );
        }
    }

    /// A run is copied up to where the byte-at-a-time reading stops, at
    /// every offset and length around the 16-byte steps.
    #[test]
    fn a_run_is_copied_up_to_its_stop() {
        let stops = [b'"', b'\\', 0, 0x1f, b'\n'];
        for len in 0..80 {
            for stop in [
                None,
                Some(0),
                Some(1),
                Some(15),
                Some(16),
                Some(17),
                Some(40),
            ] {
                let mut bytes: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
                if let Some(s) = stop.filter(|&s| s < len) {
                    bytes[s] = stops[(s + len) % stops.len()];
                }
                for at in [0, 1, 17].into_iter().filter(|&at| at <= len) {
                    let end = at + plain_len(&bytes[at..]);
                    let mut got = b"x".to_vec();
                    assert_eq!(copy_plain(&bytes, at, &mut got), end);
                    assert_eq!(got[1..], bytes[at..end], "{len} {stop:?} {at}");
                }
            }
        }
    }

    /// Escapes at every offset from the string's start and from the
    /// line's end, between runs of every length, with characters of one
    /// to four bytes: where the copy goes 16 bytes a step and where it
    /// goes one at a time.
    #[test]
    fn escapes_at_every_offset_read_as_serde_does() {
        let pieces = [
            "a",
            "é",
            "€",
            "😀",
            "\\n",
            "\\\"",
            "\\u00e9",
            "\\ud83d\\ude00",
            "\\\\",
        ];
        for lead in 0..40 {
            for (p, piece) in pieces.iter().enumerate() {
                for trail in [0, 1, 15, 16, 17, 33] {
                    let text = format!(
                        "{}{piece}{}{}",
                        "x".repeat(lead),
                        "y".repeat(trail),
                        pieces[(p + lead) % pieces.len()]
                    );
                    for line in [
                        format!(r#"{{"id":1,"text":"{text}"}}"#),
                        format!(r#"{{"text":"{text}","id":1}}"#),
                    ] {
                        let (id, got) =
                            object(&line, "id", "text").unwrap_or_else(|| panic!("{line}"));
                        assert_eq!(
                            Some((id.to_owned(), got.into_owned())),
                            by_serde(&line),
                            "{line}"
                        );
                    }
                }
            }
        }
    }

    /// Lines serde refuses, or that need its reading: never a document here.
    #[test]
    fn leaves_the_rest_to_serde() {
        let lines = [
            "",
            "[1]",
            r#"{"id": 1}"#,
            r#"{"text": "a"}"#,
            r#"{"id": 1, "text": "a", "text": "b"}"#,
            r#"{"id": 1, "id": 2, "text": "a"}"#,
            r#"{"id": 1.5, "text": "a"}"#,
            r#"{"id": 1e3, "text": "a"}"#,
            r#"{"id": 01, "text": "a"}"#,
            r#"{"id": -, "text": "a"}"#,
            r#"{"id": [1], "text": "a"}"#,
            r#"{"id": 1, "text": 5}"#,
            r#"{"id": 1, "meta": {"a": 1}, "text": "a"}"#,
            r#"{"id": 1, "text": "lone \ud800 surrogate"}"#,
            r#"{"id": 1, "text": "lone \udc00 low"}"#,
            r#"{"id": 1, "text": "bad \x escape"}"#,
            r#"{"id": 1, "text": "short \u12"}"#,
            "{\"id\": 1, \"text\": \"raw\ttab\"}",
            r#"{"id": 1, "text": "unterminated}"#,
            r#"{"id": 1, "text": "a"} trailing"#,
            r#"{"id": 1, "text": "a",}"#,
            r#"{"id": 1 "text": "a"}"#,
            r#"{"id": "\ud800", "text": "a"}"#,
            r#"{"id": tru, "text": "a"}"#,
            r#"{"id": null, "text": "a"}"#,
            r#"{"id": true, "text": "a"}"#,
        ];
        for line in lines {
            assert_eq!(object(line, "id", "text"), None, "{line}");
        }
    }
}
