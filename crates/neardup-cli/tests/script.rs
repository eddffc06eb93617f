//! SPEC §11's script words end to end: a Chinese corpus that the default
//! rule cannot compare, found with `--words script` by `scan`, an index,
//! `--explain` and `--report`.

use serde_json::Value;

use crate::util::*;

/// Deterministic Chinese-like text: `chars` code points from the first
/// 3,000 CJK Unified Ideographs, with an ideographic full stop now and
/// then, and no spaces at all.
fn han(seed: u64, chars: usize) -> Vec<char> {
    let mut x = seed;
    (0..chars)
        .map(|i| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            if i % 40 == 39 {
                '。'
            } else {
                char::from_u32(0x4e00 + ((x >> 33) % 3_000) as u32).unwrap()
            }
        })
        .collect()
}

/// 30 documents of 800 characters; documents 10..15 are copies of 0..5
/// with 1% of their characters changed.
fn planted() -> Vec<(String, String)> {
    let mut docs: Vec<(String, String)> = (0..30)
        .map(|i| (format!("d{i:02}"), han(i + 1, 800).into_iter().collect()))
        .collect();
    for i in 0..5 {
        let mut copy: Vec<char> = docs[i].1.chars().collect();
        for j in (0..copy.len()).step_by(100) {
            copy[j + 7] = '变';
        }
        docs[10 + i].1 = copy.into_iter().collect();
    }
    docs
}

fn pairs_of(out: &str) -> Vec<(String, String)> {
    out.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["a"].as_str().unwrap().into(),
                v["b"].as_str().unwrap().into(),
            )
        })
        .collect()
}

#[test]
fn a_planted_chinese_corpus_is_found_with_script_words_and_missed_without() {
    let d = Dir::new();
    write_jsonl(&d.root().join("zh.jsonl"), &planted());
    let want: Vec<(String, String)> = (0..5)
        .map(|i| (format!("d{i:02}"), format!("d{:02}", 10 + i)))
        .collect();

    let script = neardup_in(
        d.root(),
        &[
            "scan", "zh.jsonl", "--words", "script", "--pairs", "-", "-q",
        ],
    );
    assert_eq!(pairs_of(&ok_stdout(&script)), want);
    // Every receipt is §11's, and says so.
    for l in stdout(&script).lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["verdict"], "NEAR-DUPLICATE", "{l}");
    }

    let space = neardup_in(d.root(), &["scan", "zh.jsonl", "--pairs", "-", "-q"]);
    assert_eq!(ok_stdout(&space), "", "space words see one word a document");

    // Signing first, then scanning the signatures, gives the same pairs.
    let signed = neardup_in(
        d.root(),
        &["sign", "--words", "script", "--jsonl", "zh.jsonl"],
    );
    d.write("zh.sig.jsonl", ok_stdout(&signed));
    assert!(stdout(&signed)
        .lines()
        .all(|l| l.contains(r#","words":"script","#)));
    let again = neardup_in(
        d.root(),
        &[
            "scan",
            "zh.sig.jsonl",
            "--words",
            "script",
            "--pairs",
            "-",
            "-q",
        ],
    );
    assert_eq!(ok_stdout(&again), ok_stdout(&script));
}

#[test]
fn compare_names_the_flag_and_script_words_compare() {
    let d = Dir::new();
    let docs = planted();
    let (a, b) = (d.write("a.txt", &docs[0].1), d.write("b.txt", &docs[10].1));

    let space = neardup(&["compare", &a, &b]);
    assert_eq!(space.status.code(), Some(0));
    assert!(
        stdout(&space).starts_with("INSUFFICIENT-DATA"),
        "{}",
        stdout(&space)
    );
    let warning = stderr(&space);
    assert!(
        warning.contains("script words can (--words script)"),
        "{warning}"
    );

    let script = neardup(&["compare", "--words", "script", &a, &b]);
    assert!(
        stdout(&script).starts_with("NEAR-DUPLICATE"),
        "{}",
        stdout(&script)
    );
    assert!(stdout(&script).contains("(k = 5, script words)"));
    assert_eq!(
        stderr(&script),
        "",
        "no caveat once script words cut the text"
    );

    // The receipt names §11's algorithm, and verify takes the rule from it.
    let receipt = d.path("r.json");
    ok(&neardup(&[
        "compare",
        "--words",
        "script",
        "--receipt",
        &receipt,
        &a,
        &b,
    ]));
    assert!(read(&receipt).starts_with(r#"{"algorithm":"kar-script-shingle-minhash-v1","#));
    assert_eq!(
        neardup(&["verify", &receipt, &a, &b]).status.code(),
        Some(0)
    );

    // Evidence cuts the same words: most of A is in shared passages.
    let explained = json_of(&neardup(&[
        "compare",
        "--words",
        "script",
        "--explain",
        "--json",
        &a,
        &b,
    ]));
    let coverage = explained["coverage"]["a"].as_f64().unwrap();
    assert!(coverage > 0.8, "{explained}");
    let first = &explained["passages"][0];
    let (start, end) = (
        first["a"]["start_byte"].as_u64().unwrap(),
        first["a"]["end_byte"].as_u64().unwrap(),
    );
    let text = docs[0].1.as_bytes();
    assert!(
        std::str::from_utf8(&text[start as usize..end as usize]).is_ok(),
        "passages cut at characters"
    );

    // The report too.
    let report = d.path("r.html");
    ok(&neardup(&[
        "compare", "--words", "script", "--report", &report, &a, &b,
    ]));
    let html = read(&report);
    assert!(html.contains("<tr><th>Algorithm<td>kar-script-shingle-minhash-v1"));
    assert!(
        !html.contains("kar-shingle-minhash-v1"),
        "no word of v1 in a script report"
    );
}

#[test]
fn an_index_records_its_rule_and_refuses_another() {
    let d = Dir::new();
    let docs = planted();
    write_jsonl(&d.root().join("old.jsonl"), &docs[..10]);
    write_jsonl(&d.root().join("new.jsonl"), &docs[10..]);
    ok(&neardup_in(
        d.root(),
        &[
            "index",
            "create",
            "idx",
            "old.jsonl",
            "--words",
            "script",
            "-q",
        ],
    ));
    let manifest = read(d.root().join("idx/MANIFEST"));
    assert!(manifest.contains(r#""words": "script""#), "{manifest}");
    let info = json_of(&neardup_in(d.root(), &["index", "info", "idx", "--json"]));
    assert_eq!(info["words"], "script");

    let refused = neardup_in(
        d.root(),
        &[
            "index",
            "query",
            "idx",
            "new.jsonl",
            "--words",
            "space",
            "--pairs",
            "-",
        ],
    );
    assert_error(
        &refused,
        2,
        "was built with words=script, not --words space",
    );
    assert_eq!(stdout(&refused), "");

    let found = neardup_in(
        d.root(),
        &["index", "query", "idx", "new.jsonl", "--pairs", "-", "-q"],
    );
    let want: Vec<(String, String)> = (0..5)
        .map(|i| (format!("d{i:02}"), format!("d{:02}", 10 + i)))
        .collect();
    assert_eq!(pairs_of(&ok_stdout(&found)), want);
}
