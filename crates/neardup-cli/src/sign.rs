//! `neardup sign`: one JSON line per document.

use anyhow::Result;
use neardup::{Fingerprint, Params};
use serde_json::json;

use crate::args::SignArgs;
use crate::input::{at_most_one_stdin, display_name, read_text};
use crate::output::print;

pub fn run(args: &SignArgs) -> Result<()> {
    let params = Params::new(args.params.k, args.params.n)?;
    at_most_one_stdin(args.files.iter().map(|p| p.as_path()))?;
    // Lines are collected first: one unreadable file fails the command
    // before anything is printed, never after half the lines.
    let mut out = String::new();
    for path in &args.files {
        let text = read_text(path, &args.input)?;
        let f = Fingerprint::of(&text, params);
        out += &line(json!(display_name(path)), "path", &f, params);
        out.push('\n');
    }
    print(&out)
}

/// One signature line: `key` holds the document's name (`path` or `id`).
pub fn line(name: serde_json::Value, key: &str, f: &Fingerprint, params: Params) -> String {
    let mut obj = serde_json::Map::new();
    obj.insert(key.to_owned(), name);
    obj.insert("k".into(), json!(params.k()));
    obj.insert("n".into(), json!(params.n()));
    obj.insert(
        "normalized_sha256".into(),
        json!(f.normalized_sha256.to_string()),
    );
    obj.insert("shingles".into(), json!(f.shingles));
    obj.insert(
        "signature".into(),
        json!(f.signature.as_ref().map(|s| s.to_hex())),
    );
    obj.insert(
        "signature_sha256".into(),
        json!(f.signature.as_ref().map(|s| s.sha256().to_string())),
    );
    serde_json::Value::Object(obj).to_string()
}
