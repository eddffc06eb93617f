//! `neardup extract`: the text that neardup compares for a document,
//! exactly, so that anyone can save it and check a receipt with plain
//! text files.

use anyhow::Result;
use serde_json::json;

use crate::args::ExtractArgs;
use crate::output::Sink;
use neardup_corpus::text::{display_name, read_document, Document};

pub fn run(args: &ExtractArgs) -> Result<()> {
    let doc = read_document(&args.file, &args.input.options())?;
    let bytes = if args.json {
        let mut line = json!({
            "file": display_name(&args.file),
            "format": doc.format.name(),
            "extractor": neardup_extract::VERSION,
            "warnings": doc.warnings,
            "text": &*doc.text,
        })
        .to_string();
        line.push('\n');
        line.into_bytes()
    } else {
        for warning in &doc.warnings {
            eprintln!(
                "neardup: warning: '{}': {warning}",
                display_name(&args.file)
            );
        }
        doc.text.as_bytes().to_vec()
    };
    let mut sink = Sink::create(args.output.as_deref())?;
    sink.write(&bytes)?;
    Ok(sink.finish()?)
}

/// What a user should know about documents before trusting a verdict on
/// them: the extractor's warnings and each text's [`neardup::Caveat`]
/// (from [`crate::compare::compare_in_parallel`]), one line each, `'NAME':
/// WARNING`.
pub fn warnings(
    docs: &[(&str, &Document); 2],
    caveats: [Option<neardup::Caveat>; 2],
) -> Vec<String> {
    let mut out = Vec::new();
    for ((name, doc), caveat) in docs.iter().zip(caveats) {
        for w in &doc.warnings {
            out.push(format!("'{name}': {w}"));
        }
        if let Some(caveat) = caveat {
            out.push(format!("'{name}': {caveat}"));
        }
    }
    out
}

/// The note `verify` adds to a mismatch when a text was extracted from a
/// document: the receipt may come from another extractor version.
pub fn mismatch_note(docs: &[(&str, &Document)]) -> Option<String> {
    let extracted: Vec<String> = docs
        .iter()
        .filter(|(_, d)| d.format != neardup_extract::Format::Text)
        .map(|(name, d)| format!("'{name}' ({})", d.format))
        .collect();
    (!extracted.is_empty()).then(|| {
        format!(
            "note: the text of {} was extracted by {}; a receipt made over text extracted by another version verifies only with that version, or against the saved text (neardup extract)",
            extracted.join(" and "),
            neardup_extract::VERSION
        )
    })
}
