//! Compare, verify, sign and normalize, end to end.

use std::path::Path;

use neardup::Digest;
use serde_json::Value;

use crate::util::*;

const A: &str =
    "The quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat by the door";
const B: &str =
    "The quick brown fox jumps over the lazy dog while the cat sleeps on the cold mat by the door";

// ----- vectors through the binary ---------------------------------------------

#[test]
fn every_compare_vector_through_the_binary() {
    let mut cases = neardup_vectors::compare_cases();
    cases.extend(neardup_vectors::script_compare_cases());
    let dir = Dir::new();
    for case in &cases {
        let name = &case.name;
        let file = |text: &neardup_vectors::Text, side: &str| match &text.file {
            Some(path) => path.to_str().unwrap().to_owned(),
            None => dir.write(&format!("{name}.{side}"), &text.text),
        };
        let (a, b) = (file(&case.a, "a"), file(&case.b, "b"));
        let (k, n) = (case.k.to_string(), case.n.to_string());
        let receipt = dir.path(&format!("{name}.receipt"));
        let out = json_of(&neardup(&[
            "compare",
            "--json",
            "-k",
            &k,
            "-n",
            &n,
            "--words",
            &case.words,
            "--receipt",
            &receipt,
            &a,
            &b,
        ]));
        let want = &case.expected;
        assert_eq!(out["receipt_sha256"], want.receipt_sha256, "{name}");
        assert_eq!(out["receipt"]["verdict"], want.verdict, "{name}");
        // The receipt file is exactly the canonical bytes: its sha256sum is the hash.
        let bytes = std::fs::read(&receipt).unwrap();
        assert_eq!(bytes, want.canonical.as_bytes(), "{name}");
        assert_eq!(
            Digest::of(&bytes).to_string(),
            want.receipt_sha256,
            "{name}"
        );
        // And the receipt verifies against the same files, with the
        // word rule its algorithm names.
        let v = neardup(&["verify", &receipt, &a, &b]);
        assert_eq!(v.status.code(), Some(0), "{name}: {}", stderr(&v));
    }
}

#[test]
fn readme_example_command_works() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.starts_with("cargo run") && l.contains(" compare "))
        .expect("README shows a `cargo run ... compare` command");
    let args: Vec<&str> = line
        .split_once(" -- ")
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let o = neardup(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("NEAR-DUPLICATE\n"), "{}", stdout(&o));
}

// ----- compare ------------------------------------------------------------------

#[test]
fn human_report_has_every_figure() {
    let d = Dir::new();
    let (a, b) = (d.write("a", A), d.write("b", B));
    let o = neardup(&["compare", &a, &b]);
    let s = stdout(&o);
    assert_eq!(o.status.code(), Some(0));
    let json = json_of(&neardup(&["compare", "--json", &a, &b]));
    let m = json["matches"].as_u64().unwrap();
    assert!(s.starts_with(json["verdict"].as_str().unwrap()), "{s}");
    assert!(s.contains(&format!("similarity  {m}/128 = ")), "{s}");
    assert!(s.contains("95% interval"), "{s}");
    assert!(s.contains("jaccard     0."), "{s}");
    assert!(
        s.contains(&format!(
            "receipt     {}",
            json["receipt_sha256"].as_str().unwrap()
        )),
        "{s}"
    );
    assert!(s.contains("elapsed"), "{s}");
    for key in [
        "a",
        "b",
        "similarity",
        "jaccard",
        "elapsed_ms",
        "receipt",
        "receipt_sha256",
    ] {
        assert!(json.get(key).is_some(), "--json lacks {key}");
    }
}

/// Issue 37: a short essay whose words all come from a long source is
/// DISTINCT as a whole, and containment says how much of it is copied.
#[test]
fn containment_shows_a_short_text_inside_a_long_one() {
    let d = Dir::new();
    let source: Vec<String> = (0..300).map(|i| format!("w{i}")).collect();
    let essay = format!("{} own words at the end", source[40..100].join(" "));
    let (a, b) = (
        d.write("essay", &essay),
        d.write("source", source.join(" ")),
    );
    let out = neardup(&["compare", "--json", &a, &b]);
    assert_eq!(json_of(&out)["verdict"], "DISTINCT");
    // 60 copied words give 56 shingles, of the essay's 61 (5 more words),
    // each share written as serde_json writes a double.
    let f = |x: f64| serde_json::to_string(&x).unwrap();
    let want = format!(
        r#""containment":{{"a_in_b":{},"b_in_a":{},"shared":56}}"#,
        f(56.0 / 61.0),
        f(56.0 / 296.0)
    );
    assert!(stdout(&out).contains(&want), "{}", stdout(&out));
    let s = ok_stdout(&neardup(&["compare", &a, &b]));
    assert!(
        s.contains("  containment A in B 91.8%, B in A 18.9% (56 shared shingles), exact, not part of the receipt\n"),
        "{s}"
    );
    assert!(
        s.contains(&format!(
            "\n91.8% of A ({a}) is found in B ({b}). DISTINCT judges"
        )),
        "{s}"
    );
    // Swapped, B is the one found in A; unrelated texts get no sentence.
    let s = ok_stdout(&neardup(&["compare", &b, &a]));
    assert!(
        s.contains(&format!("91.8% of B ({a}) is found in A ({b}).")),
        "{s}"
    );
    let other = d.write("other", "nothing at all in common with either of them here");
    assert!(!ok_stdout(&neardup(&["compare", &a, &other])).contains("is found in"));
}

#[test]
fn stdin_is_accepted_for_either_side() {
    let d = Dir::new();
    let a = d.write("a", A);
    let from_file = json_of(&neardup(&["compare", "--json", &a, &d.write("b", B)]));
    let from_stdin = json_of(&neardup_stdin(
        &["compare", "--json", &a, "-"],
        B.as_bytes(),
    ));
    assert_eq!(from_file["receipt_sha256"], from_stdin["receipt_sha256"]);
    assert_eq!(from_stdin["b"], "-");
}

#[test]
fn empty_and_blank_inputs_are_valid() {
    let d = Dir::new();
    let (e, w, t) = (
        d.write("e", ""),
        d.write("w", " \n\t\u{3000}"),
        d.write("t", A),
    );
    let r = json_of(&neardup(&["compare", "--json", &e, &w]));
    assert_eq!(r["receipt"]["verdict"], "IDENTICAL");
    assert_eq!(r["jaccard"], Value::Null);
    let r = json_of(&neardup(&["compare", "--json", &e, &t]));
    assert_eq!(r["receipt"]["verdict"], "INSUFFICIENT-DATA");
    assert_eq!(r["receipt"]["matches"], Value::Null);
}

#[test]
fn lossy_decodes_by_replacement() {
    let d = Dir::new();
    let bad = d.write("bad", b"caf\xe9 au lait one two three four");
    let good = d.write("good", "caf\u{fffd} au lait one two three four");
    assert_error(
        &neardup(&["compare", &bad, &good]),
        2,
        "invalid UTF-8 at byte 3",
    );
    let r = json_of(&neardup(&["compare", "--json", "--lossy", &bad, &good]));
    assert_eq!(r["receipt"]["verdict"], "IDENTICAL");
    let n = neardup(&["normalize", "--lossy", &bad]);
    assert_eq!(stdout(&n), "caf\u{fffd} au lait one two three four");
}

// ----- bad input ---------------------------------------------------------------

#[test]
fn bad_inputs_give_one_line_and_exit_2() {
    let d = Dir::new();
    let a = d.write("a", A);
    let missing = d.path("missing.txt");
    assert_error(
        &neardup(&["compare", &missing, &a]),
        2,
        "missing.txt': no such file",
    );
    assert_error(
        &neardup(&["compare", &a, d.root().to_str().unwrap()]),
        2,
        "is a directory",
    );
    let junk = d.write("junk", [0u8, 159, 146, 150, 0, 1, 2, 255]);
    assert_error(&neardup(&["compare", &a, &junk]), 2, "looks binary");
    assert_error(
        &neardup(&["compare", "-k", "0", &a, &a]),
        2,
        "k must be 1..=64, got 0",
    );
    assert_error(&neardup(&["compare", "-k", "65", &a, &a]), 2, "got 65");
    assert_error(
        &neardup(&["compare", "-n", "15", &a, &a]),
        2,
        "n must be 16..=256, got 15",
    );
    assert_error(&neardup(&["sign", "-n", "257", &a]), 2, "got 257");
    assert_error(&neardup(&["compare", "-", "-"]), 2, "only once");
    assert_error(
        &neardup(&["compare", "--max-size", "10", &a, &a]),
        2,
        "over the --max-size limit",
    );
    let unwritable = d.path("no/such/dir/r.json");
    assert_error(
        &neardup(&["compare", "--receipt", &unwritable, &a, &a]),
        2,
        "writing '",
    );
    assert_error(&neardup(&["sign", &a, &missing]), 2, "no such file");
    assert_error(&neardup(&["normalize", &missing]), 2, "no such file");
}

#[test]
fn receipt_file_is_replaced_atomically() {
    let d = Dir::new();
    let (a, b) = (d.write("a", A), d.write("b", B));
    let r = d.write("r.json", "old");
    let out = json_of(&neardup(&["compare", "--json", "--receipt", &r, &a, &b]));
    let bytes = std::fs::read(&r).unwrap();
    assert_eq!(
        Digest::of(&bytes).to_string(),
        out["receipt_sha256"].as_str().unwrap()
    );
    assert!(!bytes.ends_with(b"\n"));
    let leftovers: Vec<_> = std::fs::read_dir(d.root())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

// ----- verify ------------------------------------------------------------------

struct Verified {
    d: Dir,
    a: String,
    b: String,
    receipt: String,
    canonical: String,
    hash: String,
}

fn verified_pair() -> Verified {
    let d = Dir::new();
    let (a, b) = (d.write("a", A), d.write("b", B));
    let receipt = d.path("r.json");
    let out = json_of(&neardup(&[
        "compare",
        "--json",
        "--receipt",
        &receipt,
        &a,
        &b,
    ]));
    let canonical = std::fs::read_to_string(&receipt).unwrap();
    let hash = out["receipt_sha256"].as_str().unwrap().to_owned();
    Verified {
        d,
        a,
        b,
        receipt,
        canonical,
        hash,
    }
}

#[test]
fn a_correct_receipt_verifies() {
    let v = verified_pair();
    let o = neardup(&["verify", &v.receipt, &v.a, &v.b, "--sha256", &v.hash]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("VERIFIED"));
    // A saved `compare --json` output is accepted too.
    let env = neardup(&["compare", "--json", &v.a, &v.b]);
    let saved = v.d.write("saved.json", &env.stdout);
    assert_eq!(
        neardup(&["verify", &saved, &v.a, &v.b]).status.code(),
        Some(0)
    );
}

#[test]
fn a_changed_word_is_a_mismatch_naming_the_document() {
    let v = verified_pair();
    let a2 = v.d.write("a2", A.replace("quick", "slow"));
    let o = neardup(&["verify", &v.receipt, &a2, &v.b]);
    assert_eq!(o.status.code(), Some(1));
    let s = stdout(&o);
    assert!(s.starts_with("MISMATCH"), "{s}");
    assert!(
        s.contains("documents[0].normalized_sha256: document A: the normalized text differs"),
        "{s}"
    );
    assert!(s.contains("documents[0].signature_sha256"), "{s}");
    assert!(!s.contains("documents[1]"), "{s}");
    let b2 = v.d.write("b2", B.replace("cold", "hot"));
    let s = stdout(&neardup(&["verify", &v.receipt, &v.a, &b2]));
    assert!(
        s.contains("documents[1].normalized_sha256: document B"),
        "{s}"
    );
    // Swapped texts are a different receipt.
    assert_eq!(
        neardup(&["verify", &v.receipt, &v.b, &v.a]).status.code(),
        Some(1)
    );
}

#[test]
fn a_wrong_sha256_is_a_mismatch() {
    let v = verified_pair();
    let wrong = Digest::of(b"x").to_string();
    let o = neardup(&["verify", &v.receipt, &v.a, &v.b, "--sha256", &wrong]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("receipt_sha256"));
    assert_error(
        &neardup(&["verify", &v.receipt, &v.a, &v.b, "--sha256", "xyz"]),
        2,
        "--sha256",
    );
}

#[test]
fn editing_any_receipt_field_is_a_mismatch() {
    let v = verified_pair();
    let r: Value = serde_json::from_str(&v.canonical).unwrap();
    let other_hash = Digest::of(b"other").to_string();
    let mut edits: Vec<(&str, Value)> = vec![];
    let flip_verdict = if r["verdict"] == "DISTINCT" {
        "OVERLAPPING"
    } else {
        "DISTINCT"
    };
    edits.push(("verdict", Value::from(flip_verdict)));
    edits.push(("matches", Value::from(r["matches"].as_u64().unwrap() - 1)));
    edits.push(("k", Value::from(4)));
    edits.push(("n", Value::from(256)));
    for (i, doc) in ["documents[0]", "documents[1]"].into_iter().enumerate() {
        let shingles = r["documents"][i]["shingles"].as_u64().unwrap();
        let fields = [
            ("normalized_sha256", Value::from(other_hash.clone())),
            ("shingles", Value::from(shingles + 1)),
            ("signature_sha256", Value::from(other_hash.clone())),
        ];
        for (field, value) in fields {
            let mut edited = r.clone();
            edited["documents"][i][field] = value;
            let path = v.d.write("edited.json", edited.to_string());
            let o = neardup(&["verify", &path, &v.a, &v.b]);
            assert_eq!(o.status.code(), Some(1), "{doc}.{field}: {}", stderr(&o));
            assert!(
                stdout(&o).contains(&format!("{doc}.{field}")),
                "{}",
                stdout(&o)
            );
        }
    }
    for (field, value) in edits {
        let mut edited = r.clone();
        edited[field] = value;
        let path = v.d.write("edited.json", edited.to_string());
        let o = neardup(&["verify", &path, &v.a, &v.b]);
        assert_eq!(o.status.code(), Some(1), "{field}: {}", stderr(&o));
        assert!(stdout(&o).contains("MISMATCH"), "{field}");
    }
}

#[test]
fn malformed_receipts_exit_2_and_name_the_field() {
    let v = verified_pair();
    let c = &v.canonical;
    let k = r#""k":5"#;
    let cases: Vec<(String, &str)> = vec![
        (c.replace(r#","k":5"#, ""), "field 'k'"),
        (c.replace(k, r#""k":5,"extra":1"#), "field 'extra'"),
        (c.replace(k, r#""k":5,"k":5"#), "field 'k'"),
        (c.replace(k, r#""k":5.0"#), "field 'k'"),
        (c.replace(k, r#""k":5e0"#), "field 'k'"),
        (c.replace("minhash-v1", "minhash-v9"), "field 'algorithm'"),
        (c.replace(k, r#""k":0"#), "field 'k'"),
        (c.replace(k, r#""k":99"#), "field 'k'"),
        (
            c.replacen(r#""shingles":"#, r#""shingles":"1","x":"#, 1),
            "field 'documents[0].shingles'",
        ),
        (c[..c.len() - 1].to_owned(), "invalid JSON"),
        (String::new(), "empty"),
        ("null".to_owned(), "expected a JSON object"),
    ];
    for (text, needle) in cases {
        let path = v.d.write("bad.json", &text);
        let o = neardup(&["verify", &path, &v.a, &v.b]);
        assert_error(&o, 2, needle);
        assert!(stderr(&o).contains("malformed receipt"), "{}", stderr(&o));
    }
}

// ----- sign and normalize ------------------------------------------------------

#[test]
fn sign_prints_one_line_per_file() {
    let d = Dir::new();
    let (a, e) = (d.write("a", A), d.write("e", "two words"));
    let o = neardup(&["sign", "-k", "3", "-n", "16", &a, &e]);
    assert_eq!(o.status.code(), Some(0));
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    let f = neardup::Fingerprint::of(A, neardup::Params::new(3, 16).unwrap());
    let sig = f.signature.unwrap();
    assert_eq!(lines[0]["path"], a.as_str());
    assert_eq!(
        (lines[0]["k"].as_u64(), lines[0]["n"].as_u64()),
        (Some(3), Some(16))
    );
    assert_eq!(lines[0]["signature"], sig.to_hex());
    assert_eq!(
        lines[0]["signature_sha256"],
        Digest::of(sig.to_hex().as_bytes()).to_string()
    );
    assert_eq!(
        lines[0]["normalized_sha256"],
        f.normalized_sha256.to_string()
    );
    assert_eq!(lines[0]["shingles"], f.shingles);
    assert_eq!(lines[1]["signature"], Value::Null);
    assert_eq!(lines[1]["shingles"], 0);
}

#[test]
fn large_files_are_mapped_and_sign_as_when_read() {
    // Over 4 MiB, `read_text` maps the file instead of reading it: the
    // same bytes through stdin (always read) must give the same line, and
    // invalid UTF-8 the same refusal, at the same byte.
    let d = Dir::new();
    let text: String = (0..700_000)
        .map(|i| format!("Wörd{} ", i % 90_000))
        .collect();
    assert!(text.len() > 4 << 20);
    let big = d.write("big", &text);
    let mapped = ok_stdout(&neardup(&["sign", &big]));
    let read = ok_stdout(&neardup_stdin(&["sign", "-"], text.as_bytes()));
    let field = |line: &str, name: &str| -> Value {
        serde_json::from_str::<Value>(line).unwrap()[name].clone()
    };
    for name in ["signature", "normalized_sha256", "shingles"] {
        assert_eq!(field(&mapped, name), field(&read, name), "{name}");
    }
    let f = neardup::Fingerprint::of(&text, neardup::Params::default());
    assert_eq!(field(&mapped, "shingles"), f.shingles);
    let mut bad = text.into_bytes();
    let at = 3_000_000 + bad[3_000_000..].iter().position(|&b| b == b' ').unwrap();
    bad[at] = 0xff;
    let bad = d.write("bad", &bad);
    assert_error(
        &neardup(&["sign", &bad]),
        2,
        &format!("invalid UTF-8 at byte {at}"),
    );
    let lossy = ok_stdout(&neardup(&["sign", "--lossy", &bad]));
    assert_ne!(
        field(&lossy, "normalized_sha256"),
        field(&mapped, "normalized_sha256")
    );
}

#[test]
fn normalize_prints_exactly_the_hashed_bytes() {
    let d = Dir::new();
    let a = d.write("a", "  ΟΔΟΣ\r\n\u{feff}İ  x ");
    let o = neardup(&["normalize", &a]);
    assert_eq!(stdout(&o), "οδος i\u{307} x");
    let signed = json_of(&neardup(&["sign", &a]));
    assert_eq!(
        signed["normalized_sha256"],
        Digest::of(&o.stdout).to_string()
    );
}

/// EXTRACT.md: the extractor version is "shown in `--version`"; so are
/// the algorithm and the Unicode version a receipt depends on.
#[test]
fn version_names_the_extractor_algorithm_and_unicode() {
    let s = stdout(&neardup(&["--version"]));
    let (a, b, c) = neardup::UNICODE_VERSION;
    let want = format!(
        "neardup {} (algorithm {}, extractor {}, Unicode {a}.{b}.{c})\n",
        env!("CARGO_PKG_VERSION"),
        neardup::ALGORITHM,
        neardup_extract::VERSION
    );
    assert_eq!(s, want);
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../EXTRACT.md")).unwrap();
    assert!(
        doc.contains("shown in `--version`"),
        "EXTRACT.md no longer says so"
    );
}

#[test]
fn help_documents_exit_codes() {
    let s = stdout(&neardup(&["--help"]));
    for needle in ["0  success", "1  verify", "2  any error"] {
        assert!(s.contains(needle), "{s}");
    }
}

#[test]
fn help_names_every_backend() {
    let s = stdout(&neardup(&["--help"]));
    let start = s
        .find("NEARDUP_BACKEND")
        .expect("the variable is documented");
    let end = start + s[start..].find("\n\n").unwrap_or(s.len() - start);
    let section = &s[start..end];
    // sha-ni first: it was once left out of the list.
    for name in ["sha-ni"].into_iter().chain(neardup::Backend::ALL) {
        assert!(section.contains(name), "{name} missing from {section:?}");
    }
    // Each subcommand's help carries the same notes.
    let sign = stdout(&neardup(&["sign", "--help"]));
    assert!(sign.contains(section), "{sign}");
}

// ----- sign --jsonl ------------------------------------------------------------

fn corpus_lines(n: usize) -> String {
    (0..n)
        .map(|i| {
            let id = if i % 2 == 0 {
                Value::from(i)
            } else {
                Value::from(format!("doc-{i}"))
            };
            let text = format!("{A} number {i} {}", "word ".repeat(i % 7));
            serde_json::json!({"id": id, "text": text, "extra": [1, 2]}).to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn sign_jsonl_keeps_order_and_ids_on_any_thread_count() {
    let d = Dir::new();
    let input = d.write(
        "c.jsonl",
        corpus_lines(300) + "\n\n" + r#"{"id":"short","text":"too few"}"#,
    );
    let one = neardup(&["sign", "--jsonl", &input, "-j", "1", "-k", "3", "-n", "32"]);
    let two = neardup(&["sign", "--jsonl", &input, "-j", "2", "-k", "3", "-n", "32"]);
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
    assert_eq!(one.stdout, two.stdout);
    let lines: Vec<Value> = stdout(&one)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 301);
    assert_eq!(lines[0]["id"], 0);
    assert_eq!(lines[1]["id"], "doc-1");
    assert_eq!(lines[300]["id"], "short");
    assert_eq!(lines[300]["signature"], Value::Null);
    // Each line equals signing that text alone.
    let p = neardup::Params::new(3, 32).unwrap();
    let f = neardup::Fingerprint::of(&format!("{A} number 5 {}", "word ".repeat(5)), p);
    assert_eq!(lines[5]["signature"], f.signature.unwrap().to_hex());
    // From stdin, and to a file written atomically.
    let out = d.path("sigs.jsonl");
    let bytes = std::fs::read(&input).unwrap();
    let piped = neardup_stdin(
        &["sign", "--jsonl", "-", "-k", "3", "-n", "32", "-o", &out],
        &bytes,
    );
    assert_eq!(piped.status.code(), Some(0), "{}", stderr(&piped));
    assert_eq!(std::fs::read(&out).unwrap(), one.stdout);
}

#[test]
fn sign_jsonl_field_names_can_be_set() {
    let d = Dir::new();
    let input = d.write(
        "c.jsonl",
        r#"{"url":"https://x","body":"alpha beta gamma delta epsilon"}"#,
    );
    let o = neardup(&[
        "sign",
        "--jsonl",
        &input,
        "--id-field",
        "url",
        "--text-field",
        "body",
    ]);
    let line = json_of(&o);
    assert_eq!(line["id"], "https://x");
    assert_eq!(line["shingles"], 1);
}

#[test]
fn sign_jsonl_bad_lines_name_the_line() {
    let d = Dir::new();
    let good = r#"{"id":1,"text":"a b c d e"}"#;
    for (bad, needle) in [
        ("{\"id\":2", "line 2: "),
        (r#"{"id":2}"#, "line 2: missing field 'text'"),
        (
            r#"{"id":[2],"text":""}"#,
            "line 2: field 'id' must be a string or an integer",
        ),
    ] {
        let input = d.write("bad.jsonl", format!("{good}\n{bad}\n{good}\n"));
        let out = d.path("out.jsonl");
        assert_error(
            &neardup(&["sign", "--jsonl", &input, "-o", &out]),
            2,
            needle,
        );
        assert!(!Path::new(&out).exists(), "no partial output file");
    }
    let bytes = d.write("bin.jsonl", b"{\"id\":1,\"text\":\"\xff\"}\n");
    assert_error(
        &neardup(&["sign", "--jsonl", &bytes]),
        2,
        "line 1: invalid UTF-8",
    );
    assert_eq!(
        neardup(&["sign", "--jsonl", &bytes, "--lossy"])
            .status
            .code(),
        Some(0)
    );
    assert_error(
        &neardup(&["sign", "--jsonl", &d.path("nope")]),
        2,
        "no such file",
    );
}

#[test]
fn every_backend_gives_the_same_lines() {
    let d = Dir::new();
    let input = d.write("c.jsonl", corpus_lines(50));
    let run = |backend: &str| {
        command(&repo())
            .args(["sign", "--jsonl", &input])
            .env("NEARDUP_BACKEND", backend)
            .output()
            .unwrap()
    };
    let portable = run("portable");
    assert_eq!(portable.status.code(), Some(0));
    for backend in ["avx2", "sha-ni", "avx512"] {
        let o = run(backend);
        match o.status.code() {
            Some(0) => assert_eq!(o.stdout, portable.stdout, "{backend}"),
            // This CPU lacks it: a clear refusal, never a silent fallback.
            _ => assert!(stderr(&o).contains("cannot run"), "{}", stderr(&o)),
        }
    }
    assert!(stderr(&run("mmx")).contains("unknown backend 'mmx'"));
}

#[test]
fn every_backend_gives_the_same_comparison_and_verifies_it() {
    let d = Dir::new();
    let (a, b) = (d.write("a.txt", A), d.write("b.txt", B));
    let receipt = d.path("r.json");
    let run = |backend: &str, args: &[&str]| {
        command(&repo())
            .args(args)
            .env("NEARDUP_BACKEND", backend)
            .output()
            .unwrap()
    };
    let compare = |backend| {
        let o = run(
            backend,
            &["compare", "--json", &a, &b, "--receipt", &receipt],
        );
        let mut json = json_of(&o);
        json.as_object_mut().unwrap().remove("elapsed_ms");
        json
    };
    let portable = compare("portable");
    let written = std::fs::read(&receipt).unwrap();
    for backend in neardup::Backend::ALL {
        if neardup::Backend::from_name(backend).is_none() {
            assert_error(&run(backend, &["compare", &a, &b]), 2, "cannot run");
            continue;
        }
        assert_eq!(compare(backend), portable, "{backend}");
        assert_eq!(std::fs::read(&receipt).unwrap(), written, "{backend}");
        let o = run(backend, &["verify", &receipt, &a, &b]);
        assert_eq!(o.status.code(), Some(0), "{backend}: {}", stderr(&o));
    }
}
