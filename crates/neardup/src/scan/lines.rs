//! The scan's outputs as `neardup scan` writes them, one JSON line per
//! pair or cluster and one id per list line, so that every adapter (CLI,
//! Python, Spark, the page) writes the same bytes.
//!
//! Ids are given as JSON text: a string id as its JSON string (`"a.txt"`,
//! as [`json_string`] writes it), an integer id as its digits. The lines
//! are written by hand, not through a serializer: a scan writes millions,
//! and every value is an id already in JSON, a number, a hex digest or an
//! ASCII name.

use std::fmt::Write as _;

use crate::{Containment, Digest, Receipt};

/// Appends one `--pairs` line (with its newline): `a`, `b`, `matches`,
/// `n`, `receipt_sha256`, `similarity`, `verdict`, keys in that order.
/// `similarity` is `matches / n` as the shortest decimal that reads back
/// as the same double (`0.75`, `1`), or `null` with `matches`. A scan for
/// containment adds `containment` after `b` ([`Containment::write_json`]):
/// evidence beside the receipt's fields, never part of the receipt.
///
/// ```
/// use neardup::{compare, scan::lines, Params};
/// let r = compare("a b c d e f g h", "a b c d e f g x", Params::new(2, 128).unwrap()).receipt;
/// let mut out = String::new();
/// lines::pair(&mut out, ["\"x\"", "7"], &r, &r.sha256(), None);
/// assert!(out.starts_with(r#"{"a":"x","b":7,"matches":"#));
/// assert!(out.ends_with(&format!("\"verdict\":\"{}\"}}\n", r.verdict)));
/// assert!(out.contains(&format!("\"receipt_sha256\":\"{}\"", r.sha256())));
/// ```
pub fn pair(
    out: &mut String,
    ids: [&str; 2],
    receipt: &Receipt,
    receipt_sha256: &Digest,
    containment: Option<&Containment>,
) {
    let n = receipt.params.n();
    let _ = write!(out, r#"{{"a":{},"b":{},"#, ids[0], ids[1]);
    if let Some(c) = containment {
        out.push_str(r#""containment":"#);
        c.write_json(out);
        out.push(',');
    }
    out.push_str(r#""matches":"#);
    match receipt.matches {
        Some(m) => write!(out, "{m}"),
        None => write!(out, "null"),
    }
    .unwrap_or(());
    let _ = write!(
        out,
        r#","n":{n},"receipt_sha256":"{receipt_sha256}","similarity":"#
    );
    match receipt.matches {
        Some(m) => write!(out, "{}", f64::from(m) / n as f64),
        None => write!(out, "null"),
    }
    .unwrap_or(());
    let _ = writeln!(out, r#","verdict":"{}"}}"#, receipt.verdict);
}

/// Appends one `--clusters` line (with its newline): `cluster` (its number,
/// from 0, in keeper order), `keep` (the first member), `members` and
/// `size`.
///
/// ```
/// let mut out = String::new();
/// neardup::scan::lines::cluster(&mut out, 0, &["\"a\"", "\"b\""]);
/// assert_eq!(out, "{\"cluster\":0,\"keep\":\"a\",\"members\":[\"a\",\"b\"],\"size\":2}\n");
/// ```
pub fn cluster(out: &mut String, number: usize, members: &[&str]) {
    let keep = members.first().copied().unwrap_or("null");
    let _ = write!(out, r#"{{"cluster":{number},"keep":{keep},"members":["#);
    for (i, m) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(m);
    }
    let _ = writeln!(out, r#"],"size":{}}}"#, members.len());
}

/// Appends one line of a keep or drop list (with its newline): a string id
/// without its quotes, unless it holds a line break or another control
/// character, when it stays JSON so that one line is one id; an integer
/// as written.
///
/// ```
/// let mut out = String::new();
/// neardup::scan::lines::list_id(&mut out, r#""a b.txt""#);
/// neardup::scan::lines::list_id(&mut out, r#""two\nlines""#);
/// neardup::scan::lines::list_id(&mut out, "42");
/// assert_eq!(out, "a b.txt\n\"two\\nlines\"\n42\n");
/// ```
pub fn list_id(out: &mut String, id: &str) {
    match serde_json::from_str::<String>(id) {
        Ok(s) if !s.chars().any(char::is_control) => out.push_str(&s),
        _ => out.push_str(id),
    }
    out.push('\n');
}

/// A string as JSON text: the spelling of a string id in every output
/// (serde_json's escaping: `"`, `\` and control characters only).
pub fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// One id, one spelling: a JSON string id with escapes is decoded and
/// encoded again, so `"\u0061"` and `"a"` are one id; anything else (an
/// integer) is kept as written. `None` for a string that is not JSON.
///
/// ```
/// use neardup::scan::lines::canonical_id;
/// assert_eq!(canonical_id(r#""\u0061""#).as_deref(), Some(r#""a""#));
/// assert_eq!(canonical_id("12").as_deref(), Some("12"));
/// ```
pub fn canonical_id(raw: &str) -> Option<String> {
    if raw.starts_with('"') && raw.contains('\\') {
        let s: String = serde_json::from_str(raw).ok()?;
        return Some(json_string(&s));
    }
    Some(raw.to_owned())
}
