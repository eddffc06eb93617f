//! Bad corpus input for `neardup scan`, end to end: each case gives one
//! clear error line and exit 2 with no output written, or, for a file in a
//! directory input, a warning and a skip (an error with `--strict`).

use std::path::Path;
use std::process::{Command, Output};

use crate::util::*;

/// `scan INPUT... --pairs out/p.jsonl` from `root`, asserting the error
/// contract and that nothing was written.
#[track_caller]
fn refused(root: &Path, inputs: &[&str], needle: &str) {
    std::fs::create_dir_all(root.join("out")).unwrap();
    let mut args = vec!["scan"];
    args.extend_from_slice(inputs);
    args.extend_from_slice(&["--pairs", "out/p.jsonl", "--keep-list", "out/k.txt"]);
    assert_error(&neardup_in(root, &args), 2, needle);
    assert_eq!(names(root.join("out")), Vec::<String>::new());
}

/// A scan of a directory input: its stderr, and the ids kept.
fn scan_tree(root: &Path, tree: &str, extra: &[&str]) -> (Output, Vec<String>) {
    let _ = std::fs::remove_file(root.join("k.txt"));
    let mut args = vec!["scan", tree, "--keep-list", "k.txt"];
    args.extend_from_slice(extra);
    let o = neardup_in(root, &args);
    let kept = std::fs::read_to_string(root.join("k.txt"))
        .map(|s| s.lines().map(str::to_owned).collect())
        .unwrap_or_default();
    (o, kept)
}

#[test]
fn a_truncated_last_line_says_the_file_looks_cut() {
    let d = Dir::new();
    d.write(
        "t.jsonl",
        "{\"id\":1,\"text\":\"a b c\"}\n{\"id\":2,\"text\":\"a b",
    );
    refused(
        d.root(),
        &["t.jsonl"],
        "'t.jsonl': line 2: the last line ends without a newline, in the middle of its JSON (is the file truncated?)",
    );
    // A last line without its newline is fine when it is whole.
    d.write(
        "whole.jsonl",
        "{\"id\":1,\"text\":\"a b c\"}\n{\"id\":2,\"text\":\"a b\"}",
    );
    ok(&neardup_in(d.root(), &["scan", "whole.jsonl", "-q"]));
}

#[test]
fn a_line_over_max_size_is_refused_without_reading_it_all() {
    let d = Dir::new();
    let long = format!("{{\"id\":2,\"text\":\"{}\"}}\n", "word ".repeat(20_000));
    d.write("long.jsonl", format!("{{\"id\":1,\"text\":\"a\"}}\n{long}"));
    refused(
        d.root(),
        &["long.jsonl", "--max-size", "64K"],
        "reading 'long.jsonl': line 2 is over the --max-size limit of 65536 bytes",
    );
    // The first line is read to tell documents from signatures: capped too.
    d.write("first.jsonl", &long);
    refused(
        d.root(),
        &["first.jsonl", "--max-size", "64K"],
        "reading 'first.jsonl': line 1 is over the --max-size limit of 65536 bytes",
    );
    // In a directory, a corpus file's lines are capped the same way.
    std::fs::create_dir(d.root().join("tree")).unwrap();
    std::fs::copy(d.root().join("long.jsonl"), d.root().join("tree/c.jsonl")).unwrap();
    refused(
        d.root(),
        &["tree", "--max-size", "64K"],
        "line 2 is over the --max-size limit of 65536 bytes",
    );
    // Under the limit, the same line is a document like any other.
    ok(&neardup_in(d.root(), &["scan", "long.jsonl", "-q"]));
}

/// A line of 1 GB: signed in bounded memory beyond the line itself, or
/// refused by `--max-size`. Slow (writes 1 GB), so run on demand:
/// `cargo test -p neardup-cli --release --test tests one_gigabyte -- --ignored`.
#[test]
#[ignore = "writes a 1 GB file"]
fn a_one_gigabyte_line() {
    use std::io::Write;
    let d = Dir::new();
    let mut f = std::io::BufWriter::new(std::fs::File::create(d.root().join("big.jsonl")).unwrap());
    f.write_all(b"{\"id\":1,\"text\":\"").unwrap();
    let mut w = Words(9);
    let chunk: String = w.text(100_000) + " ";
    let mut written = 0;
    while written < 1 << 30 {
        f.write_all(chunk.as_bytes()).unwrap();
        written += chunk.len();
    }
    f.write_all(b"\"}\n{\"id\":2,\"text\":\"a\"}\n").unwrap();
    drop(f);
    refused(
        d.root(),
        &["big.jsonl", "--max-size", "100M"],
        "line 1 is over the --max-size limit of 104857600 bytes",
    );
    ok(&neardup_in(
        d.root(),
        &["scan", "big.jsonl", "-q", "--pairs", "p.jsonl"],
    ));
}

#[test]
fn nul_bytes_in_json_are_refused_and_in_text_files_are_text() {
    let d = Dir::new();
    d.write("raw.jsonl", b"{\"id\":1,\"text\":\"a \x00 b\"}\n");
    refused(
        d.root(),
        &["raw.jsonl"],
        "'raw.jsonl': line 1: field 'text' must be a string (control character",
    );
    d.write("key.jsonl", b"{\"id\":1,\x00\"text\":\"a\"}\n");
    refused(
        d.root(),
        &["key.jsonl"],
        "'key.jsonl': line 1: key must be a string",
    );
    d.write("zeros.jsonl", [0u8; 64]);
    refused(
        d.root(),
        &["zeros.jsonl"],
        "'zeros.jsonl': line 1: expected value",
    );
    // U+0000 is a character like any other (SPEC §1; the vectors hold
    // some): escaped in JSON, or raw in a text file, it is text.
    d.write("escaped.jsonl", "{\"id\":1,\"text\":\"a \\u0000 b\"}\n");
    ok(&neardup_in(d.root(), &["scan", "escaped.jsonl", "-q"]));
    std::fs::create_dir(d.root().join("tree")).unwrap();
    d.write("tree/nul.txt", b"one\x00two three");
    let (o, kept) = scan_tree(d.root(), "tree", &["--strict"]);
    ok(&o);
    assert_eq!(kept, ["tree/nul.txt"]);
}

#[test]
fn duplicate_ids_are_refused_naming_both_places() {
    let d = Dir::new();
    d.write(
        "a.jsonl",
        "{\"id\":\"x\",\"text\":\"a\"}\n{\"id\":7,\"text\":\"b\"}\n",
    );
    d.write(
        "b.jsonl",
        "{\"id\":\"y\",\"text\":\"a\"}\n\n{\"id\":7,\"text\":\"c\"}\n",
    );
    refused(
        d.root(),
        &["a.jsonl", "b.jsonl"],
        "'b.jsonl' line 3: duplicate id 7 (first seen at 'a.jsonl' line 2)",
    );
    // Against a reference corpus too.
    refused(
        d.root(),
        &["b.jsonl", "--against", "a.jsonl"],
        "'b.jsonl' line 3: duplicate id 7 (first seen at 'a.jsonl' line 2)",
    );
    // The string "7" is not the integer 7.
    d.write("c.jsonl", "{\"id\":\"7\",\"text\":\"a\"}\n");
    ok(&neardup_in(d.root(), &["scan", "a.jsonl", "c.jsonl", "-q"]));
}

#[test]
fn ids_that_are_not_strings_or_integers_are_refused() {
    let d = Dir::new();
    for (id, shown) in [
        ("1.5", "1.5"),
        ("1e3", "1e3"),
        ("-0.0", "-0.0"),
        ("{\"a\":1}", "{\"a\":1}"),
        ("[1]", "[1]"),
        ("null", "null"),
        ("true", "true"),
    ] {
        d.write("i.jsonl", format!("{{\"id\":{id},\"text\":\"a\"}}\n"));
        refused(
            d.root(),
            &["i.jsonl"],
            &format!("'i.jsonl': line 1: field 'id' must be a string or an integer, got {shown}"),
        );
    }
}

/// `sign --jsonl` of two documents, as lines.
fn signed(root: &Path, args: &[&str]) -> Vec<String> {
    std::fs::write(
        root.join("docs.jsonl"),
        "{\"id\":\"a\",\"text\":\"one two three four five six seven\"}\n{\"id\":\"b\",\"text\":\"one two three four five six eight\"}\n",
    )
    .unwrap();
    let mut all = vec!["sign", "--jsonl", "docs.jsonl"];
    all.extend_from_slice(args);
    ok_stdout(&neardup_in(root, &all))
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn signature_files_that_do_not_hold_together_are_refused() {
    let d = Dir::new();
    let root = d.root();
    let lines = signed(root, &[]);
    // A signature changed under its signature_sha256.
    let mut record: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
    let sig = record["signature"].as_str().unwrap().to_owned();
    let flipped = if sig.starts_with('0') { "1" } else { "0" };
    record["signature"] = format!("{flipped}{}", &sig[1..]).into();
    d.write("bad.jsonl", format!("{}\n{record}\n", lines[0]));
    refused(
        root,
        &["bad.jsonl"],
        "'bad.jsonl': line 2: field 'signature_sha256' does not match the signature",
    );
    // k changes within a file, n between files.
    let k3 = signed(root, &["-k", "3"]);
    d.write("mixed.jsonl", format!("{}\n{}\n", lines[0], k3[1]));
    refused(
        root,
        &["mixed.jsonl"],
        "'mixed.jsonl': line 2: signed with k=3, n=128, words=space, but this scan uses k=5, n=128, words=space",
    );
    let n64 = signed(root, &["-n", "64"]);
    d.write("a.jsonl", format!("{}\n", lines[0]));
    d.write("n64.jsonl", format!("{}\n", n64[1]));
    refused(
        root,
        &["a.jsonl", "n64.jsonl"],
        "'n64.jsonl': line 1: signed with k=5, n=64, words=space, but this scan uses k=5, n=128, words=space",
    );
    // Signatures of the two word rules never mix.
    let script = signed(root, &["--words", "script"]);
    d.write("script.jsonl", format!("{}\n", script[1]));
    refused(
        root,
        &["a.jsonl", "script.jsonl"],
        "'script.jsonl': line 1: signed with k=5, n=128, words=script, but this scan uses k=5, n=128, words=space",
    );
    // Documents after signatures: a document line is no signature line.
    d.write(
        "both.jsonl",
        format!("{}\n{{\"id\":\"c\",\"text\":\"x\"}}\n", lines[0]),
    );
    refused(root, &["both.jsonl"], "'both.jsonl': line 2: ");
}

#[cfg(unix)]
#[test]
fn symbolic_link_loops_in_a_directory_warn_unless_strict() {
    use std::os::unix::fs::symlink;
    let d = Dir::new();
    let root = d.root();
    std::fs::create_dir_all(root.join("tree/sub")).unwrap();
    d.write("tree/a.txt", "one two three four five six");
    symlink("loop2", root.join("tree/loop1")).unwrap();
    symlink("loop1", root.join("tree/loop2")).unwrap();
    symlink("self", root.join("tree/sub/self")).unwrap();
    // A link to a directory is never followed, so a link to an ancestor
    // is no cycle: it is passed over in silence.
    symlink("..", root.join("tree/sub/up")).unwrap();
    let (o, kept) = scan_tree(root, "tree", &[]);
    let err = ok(&o);
    for link in ["tree/loop1", "tree/loop2", "tree/sub/self"] {
        assert!(
            err.contains(&format!(
                "warning: reading '{link}': too many levels of symbolic links (skipped)"
            )),
            "{err}"
        );
    }
    assert!(!err.contains("tree/sub/up"), "{err}");
    assert!(err.contains("3 skipped"), "{err}");
    assert_eq!(kept, ["tree/a.txt"]);
    let (o, _) = scan_tree(root, "tree", &["--strict"]);
    assert_error(&o, 2, "too many levels of symbolic links");
}

#[cfg(unix)]
#[test]
fn fifos_are_streams_when_named_and_skipped_in_a_directory() {
    let d = Dir::new();
    let root = d.root();
    let mkfifo = |p: &Path| assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
    std::fs::create_dir(root.join("tree")).unwrap();
    d.write("tree/a.txt", "one two three four five six");
    mkfifo(&root.join("tree/pipe"));
    // No writer ever opens it: reading it would wait forever.
    let (o, kept) = scan_tree(root, "tree", &[]);
    let err = ok(&o);
    assert!(
        err.contains("warning: 'tree/pipe' is a FIFO, not a regular file (skipped)"),
        "{err}"
    );
    assert_eq!(kept, ["tree/a.txt"]);
    let (o, _) = scan_tree(root, "tree", &["--strict"]);
    assert_error(&o, 2, "'tree/pipe' is a FIFO, not a regular file");

    // Named on the command line, a FIFO is a stream, as `<(zcat c.gz)` is.
    let fifo = root.join("c.jsonl");
    mkfifo(&fifo);
    let writer = std::thread::spawn(move || {
        std::fs::write(
            fifo,
            "{\"id\":1,\"text\":\"a b c\"}\n{\"id\":2,\"text\":\"a b c\"}\n",
        )
        .unwrap()
    });
    let pairs = ok_stdout(&neardup_in(
        root,
        &["scan", "c.jsonl", "--pairs", "-", "-q"],
    ));
    writer.join().unwrap();
    assert_eq!(pairs.lines().count(), 1, "{pairs}");
    // But it can be read only once, and --write-deduped reads twice.
    refused(
        root,
        &["c.jsonl", "--write-deduped", "out/d.jsonl"],
        "--write-deduped reads the inputs a second time, so it cannot take the pipe 'c.jsonl'",
    );
}

#[cfg(unix)]
#[test]
fn unreadable_files_warn_in_a_directory_and_fail_when_named() {
    use std::os::unix::fs::PermissionsExt;
    let d = Dir::new();
    let root = d.root();
    std::fs::create_dir(root.join("tree")).unwrap();
    d.write("tree/a.txt", "one two three four five six");
    d.write("tree/secret.txt", "seven eight nine ten eleven twelve");
    d.write("secret.jsonl", "{\"id\":1,\"text\":\"a\"}\n");
    for p in ["tree/secret.txt", "secret.jsonl"] {
        std::fs::set_permissions(root.join(p), std::fs::Permissions::from_mode(0o000)).unwrap();
    }
    // Root reads through mode 000: run the scan as nobody instead, when
    // this user can switch to it.
    let mut runner: Vec<String> = Vec::new();
    if std::fs::read(root.join("secret.jsonl")).is_ok() {
        let probe = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "true"])
            .status();
        if !probe.is_ok_and(|s| s.success()) {
            eprintln!("skipped unreadable_files_...: this user reads mode 000 files and cannot become nobody");
            return;
        }
        runner = [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ]
        .map(String::from)
        .to_vec();
        // nobody needs to get into the temp dir and write its outputs.
        std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o777)).unwrap();
        std::fs::set_permissions(root.join("tree"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
    }
    let run = |args: &[&str]| -> Output {
        let mut cmd = match runner.split_first() {
            Some((first, rest)) => {
                let mut c = Command::new(first);
                c.args(rest).arg(env!("CARGO_BIN_EXE_neardup"));
                c
            }
            None => Command::new(env!("CARGO_BIN_EXE_neardup")),
        };
        cmd.current_dir(root)
            .env("TMPDIR", root)
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let o = run(&["scan", "tree", "--keep-list", "k.txt"]);
    let err = ok(&o);
    assert!(
        err.contains("warning: reading 'tree/secret.txt': permission denied (skipped)"),
        "{err}"
    );
    assert_eq!(read(root.join("k.txt")), "tree/a.txt\n");
    let o = run(&["scan", "tree", "--strict", "--keep-list", "k2.txt"]);
    assert_error(&o, 2, "reading 'tree/secret.txt': permission denied");
    let o = run(&["scan", "secret.jsonl", "--keep-list", "k3.txt"]);
    assert_error(&o, 2, "reading 'secret.jsonl': permission denied");
    assert!(!root.join("k2.txt").exists() && !root.join("k3.txt").exists());
}
