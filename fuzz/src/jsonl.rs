use serde_json::Value;

use neardup_corpus::json;
use neardup_corpus::jsonl::{self, Fields};
use neardup_corpus::lines::{self, Batches, Line, Slices};

/// The JSONL reading of `neardup-corpus`, the code `scan`, `sign --jsonl`,
/// Python and Spark all run: `Batches` and `Slices` (lines read or
/// mapped) and `Fields::parse` (one `{"id", "text"}` document).
///
/// Checked: no panic; mapped bytes are cut into the lines read ones are;
/// a line the fast reading (`json.rs`) accepts is the
/// document serde reads; the lines, with the blank ones skipped, are the
/// input; an accepted document agrees with a plain serde_json reading of
/// the line and round-trips through `{"id": ID, "text": TEXT}`; and any
/// line serde_json reads as an object with a string or integer id and a
/// string text, written back, is accepted.
pub fn jsonl(data: &[u8]) {
    // Lines: every non-blank line once, in order, with its number.
    let batch = 1 + data.first().map_or(0, |&b| usize::from(b) % 64);
    let batches: Vec<lines::Batch> = Batches::new(data, batch)
        .map(|b| b.expect("a slice never fails to read"))
        .collect();
    // A mapped file is cut as a read one is.
    let mapped: Vec<lines::Batch> = Slices::new(data, batch, u64::MAX)
        .map(|b| b.expect("no line is over the cap"))
        .collect();
    assert_eq!(mapped.len(), batches.len());
    for (m, b) in mapped.iter().zip(&batches) {
        assert!(m
            .lines()
            .map(|l| (l.number, l.bytes))
            .eq(b.lines().map(|l| (l.number, l.bytes))));
    }
    let mut kept = Vec::new();
    let mut last = 0;
    for b in &batches {
        for line in b.lines() {
            assert!(line.number > last);
            last = line.number;
            assert!(!line.bytes.iter().all(u8::is_ascii_whitespace));
            kept.push(line);
        }
    }
    let want: Vec<&[u8]> = data
        .split_inclusive(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .collect();
    assert_eq!(kept.len(), want.len());
    for (l, w) in kept.iter().zip(&want) {
        assert_eq!(l.bytes, *w);
    }

    for line in &kept {
        // The fast reading of a plain line is serde's.
        if let Ok(text) = std::str::from_utf8(line.bytes) {
            if let Some((id, fast)) = json::object(text, "id", "text") {
                let doc = FIELDS
                    .parse_serde(text, line)
                    .expect("serde accepts a plain line");
                assert_eq!((id, &*fast), (doc.id.as_str(), &*doc.text));
            }
        }
        let Ok(doc) = FIELDS.parse(line) else {
            // The lossy reading may accept what the strict one refused,
            // never the other way round.
            continue;
        };
        let lossy = Fields {
            lossy: true,
            ..FIELDS
        }
        .parse(line)
        .expect("lossy accepts too");
        assert_eq!((&lossy.id, &lossy.text), (&doc.id, &doc.text));
        // The same document as serde_json reads it. Its `Value` refuses a
        // lone surrogate escape (`"\ud83c"`) anywhere in the line, and
        // RFC 8259 leaves such a string's meaning open; the fields neardup
        // skips are never decoded, so there such a line is accepted (as
        // Python's json accepts it), and is still JSON.
        serde_json::from_slice::<serde::de::IgnoredAny>(line.bytes).expect("accepted line is JSON");
        let id: Value = serde_json::from_str(&doc.id).expect("the id is JSON");
        assert!(id.is_string() || id.is_number());
        match serde_json::from_slice::<Value>(line.bytes) {
            Ok(value) => {
                assert_eq!(value["text"].as_str(), Some(&*doc.text));
                assert_eq!(value["id"], id);
            }
            Err(_) => assert!(line.bytes.windows(3).any(|w| w == br"\ud" || w == br"\uD")),
        }
        // Written back, it reads the same.
        let again = format!(
            "{{\"id\":{},\"text\":{}}}",
            doc.id,
            serde_json::to_string(&doc.text).unwrap()
        );
        let back = parse(again.as_bytes()).expect("written document parses");
        assert_eq!((back.id, back.text), (doc.id, doc.text));
    }

    // The other way: what serde_json reads as a document, written back as
    // JSON, is accepted.
    for line in data.split(|&b| b == b'\n') {
        let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        let id_ok = match &map.get("id") {
            Some(Value::String(_)) => true,
            Some(Value::Number(n)) => n.is_i64() || n.is_u64(),
            _ => false,
        };
        if !id_ok || !map.get("text").is_some_and(Value::is_string) {
            continue;
        }
        let written = serde_json::to_string(&map).unwrap();
        let doc = parse(written.as_bytes()).expect("a document serde_json reads is accepted");
        assert_eq!(Some(&*doc.text), map["text"].as_str());
    }
}

const FIELDS: Fields<'static> = Fields {
    id: "id",
    text: "text",
    lossy: false,
};

fn parse(bytes: &[u8]) -> neardup_corpus::Result<jsonl::Document<'static>> {
    FIELDS
        .parse(&Line { number: 1, bytes })
        .map(jsonl::Document::into_owned)
}
