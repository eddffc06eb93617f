//! End-to-end tests of `neardup compare --explain` against the built binary.

use std::process::Output;

use serde_json::Value;

use crate::util::*;

fn explain(name: &str) -> std::path::PathBuf {
    data("explain").join(name)
}

fn text(name: &str) -> String {
    read(explain(name))
}

/// Runs `neardup compare A B <args>` on the crafted pair, with NO_COLOR
/// cleared unless `no_color` says otherwise.
fn compare(args: &[&str], no_color: Option<&str>) -> Output {
    let mut cmd = command(&repo());
    cmd.arg("compare")
        .arg(explain("a.txt"))
        .arg(explain("b.txt"))
        .args(args)
        .env_remove("NO_COLOR");
    if let Some(v) = no_color {
        cmd.env("NO_COLOR", v);
    }
    cmd.output().unwrap()
}

/// The report's evidence section: from the coverage line to the end.
fn evidence(report: &str) -> &str {
    &report[report.find("  coverage").expect("a coverage line")..]
}

#[test]
fn plain_output_matches_the_expected_file() {
    let out = ok_stdout(&compare(
        &["-k", "3", "--explain", "--color", "never"],
        None,
    ));
    assert_eq!(evidence(&out), text("expected.txt"));
    assert!(!out.contains('\x1b'));
    // The evidence comes after the usual report, which is unchanged.
    let plain = ok_stdout(&compare(&["-k", "3"], None));
    let head = |s: &str| s.lines().take(7).collect::<Vec<_>>().join("\n");
    assert_eq!(head(&out), head(&plain));
}

#[test]
fn max_passages_keeps_the_longest() {
    let out = ok_stdout(&compare(
        &["-k", "3", "--explain", "--max-passages", "1"],
        None,
    ));
    let ev = evidence(&out);
    assert!(ev.contains("  passages    4, the 1 longest:\n  1. 43 words, A line 1, B line 3\n"));
    assert!(!ev.contains("  2. "));
    let none = ok_stdout(&compare(&["--explain", "-k", "60"], None));
    assert!(none.contains("  passages    none shared\n"));
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let always = ok_stdout(&compare(
        &["-k", "3", "--explain", "--color", "always"],
        Some("1"),
    ));
    assert!(always.contains("\x1b[1;32mVisitors today"), "{always}");
    // Not a terminal: auto means no colour, NO_COLOR or not.
    for no_color in [None, Some("1"), Some("")] {
        let auto = ok_stdout(&compare(&["-k", "3", "--explain"], no_color));
        assert!(!auto.contains('\x1b'));
    }
}

#[test]
fn explain_options_need_explain() {
    for args in [&["--max-passages", "3"][..], &["--color", "always"]] {
        let o = compare(args, None);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("--explain"));
    }
}

fn words(text: &str) -> Vec<String> {
    neardup::normalize(text)
        .split(' ')
        .map(str::to_owned)
        .collect()
}

#[test]
fn json_offsets_point_into_the_original_texts() {
    let (a, b) = (text("a.txt"), text("b.txt"));
    let out: Value = serde_json::from_str(&ok_stdout(&compare(
        &["-k", "3", "--explain", "--json"],
        None,
    )))
    .unwrap();
    let passages = out["passages"].as_array().unwrap();
    assert_eq!(passages.len(), 4);
    let mut shared = 0;
    for p in passages {
        let n = p["words"].as_u64().unwrap() as usize;
        let mut texts = Vec::new();
        for (side, text) in [("a", &a), ("b", &b)] {
            let s = &p[side];
            let get = |k: &str| s[k].as_u64().unwrap() as usize;
            let slice = &text[get("start_byte")..get("end_byte")];
            assert_eq!(get("start_char"), text[..get("start_byte")].chars().count());
            assert_eq!(get("end_char"), text[..get("end_byte")].chars().count());
            assert_eq!(
                get("line"),
                1 + text[..get("start_byte")].matches('\n').count()
            );
            assert_eq!(words(slice).len(), n);
            texts.push(words(slice));
        }
        assert_eq!(texts[0], texts[1]);
        shared += n;
    }
    // The repeated sentence: reported once, at its first place in B.
    let last = &passages[3];
    assert_eq!(last["b_occurrences"], 2);
    assert_eq!(
        &b[last["b"]["start_byte"].as_u64().unwrap() as usize..][..5],
        "Ships"
    );
    let c = &out["coverage"];
    assert_eq!(c["words_a"], 84);
    assert_eq!(c["shared_words_a"], shared);
    assert_eq!(c["a"], 1.0);
    assert!(c["b"].as_f64().unwrap() < 1.0);
    // Passages never enter the receipt.
    let without: Value =
        serde_json::from_str(&ok_stdout(&compare(&["-k", "3", "--json"], None))).unwrap();
    assert_eq!(out["receipt"], without["receipt"]);
    assert_eq!(out["receipt_sha256"], without["receipt_sha256"]);
    assert!(without.get("passages").is_none());
}
