//! What the docs say of the index, against the index: INDEX.md's account
//! of the MANIFEST against the file an index writes, and the README's
//! figures against the bench run they come from.

use std::path::Path;

use neardup::scan::Plan;
use neardup::{Fingerprint, Params, Threshold};
use neardup_index::Writer;

/// The comma-separated names after `marker` in INDEX.md, up to the line's
/// end (or, for a marker that opens a parenthesis, to its close).
fn listed(doc: &str, marker: &str) -> Vec<String> {
    let at = doc
        .find(marker)
        .unwrap_or_else(|| panic!("INDEX.md has no '{marker}'"));
    let rest = &doc[at + marker.len()..];
    // A parenthesised list may wrap onto the next line.
    let end = match marker.starts_with('(') {
        true => rest.find(')'),
        false => rest.find('\n'),
    };
    rest[..end.unwrap_or(rest.len())]
        .split(',')
        .map(|k| k.trim().to_owned())
        .collect()
}

/// A file of the repository.
fn read(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// An object's keys, sorted (serde_json's map sorts them).
fn keys(v: &serde_json::Value) -> Vec<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

/// The names, sorted: the doc lists them in the file's order.
fn sorted(mut names: Vec<String>) -> Vec<String> {
    names.sort();
    names
}

#[test]
fn index_md_lists_the_manifest_keys() {
    let doc = read("crates/neardup-cli/INDEX.md");
    let dir = tempfile::tempdir().unwrap();
    let params = Params::new(5, 128).unwrap();
    let plan = Plan::new(params, Threshold::NEAR_DUPLICATE);
    let path = dir.path().join("idx");
    let mut w = Writer::create(&path, &plan).unwrap();
    let text = "one two three four five six seven eight";
    w.add(vec![("1".to_owned(), Fingerprint::of(text, params))])
        .unwrap();
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path.join("MANIFEST")).unwrap()).unwrap();
    assert_eq!(
        keys(&manifest),
        sorted(listed(&doc, "IDX/MANIFEST           JSON: "))
    );
    let segment = &manifest["segments"][0];
    assert_eq!(keys(segment), sorted(listed(&doc, "(`segments`: ")));
}

/// The README quotes the index's speed; the figures must be the bench's,
/// not a rounding of an older run.
#[test]
fn readme_index_figures_are_the_benchs() {
    let readme = read("README.md");
    let results = read("bench/RESULTS.md");
    let at = readme
        .find("adding 10,000 signed documents takes ")
        .unwrap();
    let words: Vec<&str> = readme[at..].split_whitespace().collect();
    // "... takes ADD s\nagainst SCAN s for the `scan --against` ..."
    let (add, scan) = (words[5], words[8]);
    assert_eq!((words[6], words[7], words[9]), ("s", "against", "s"));
    for figure in [add, scan] {
        assert!(
            results.contains(&format!("{figure} s")),
            "the README's {figure} s is not in bench/RESULTS.md"
        );
    }
}
