//! `neardup scan`, end to end, on small corpora made in temp dirs.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::util::*;

/// The documents of the test corpus, in order: 12 distinct bases, a
/// near-duplicate of each of the first 8 (two words changed in 300), an
/// exact duplicate of the first 3 (other case and spacing), two empty
/// documents, a short one and a distinct one.
fn corpus() -> Vec<(String, String)> {
    let mut w = Words(7);
    let bases: Vec<String> = (0..12).map(|_| w.text(300)).collect();
    let mut docs = Vec::new();
    for (i, b) in bases.iter().enumerate() {
        docs.push((format!("base{i}"), b.clone()));
    }
    for (i, b) in bases.iter().take(8).enumerate() {
        let mut words: Vec<String> = b.split(' ').map(str::to_owned).collect();
        words[50] = "edited".into();
        words[250] = w.next();
        docs.push((format!("near{i}"), words.join(" ")));
    }
    for (i, b) in bases.iter().take(3).enumerate() {
        docs.push((format!("same{i}"), format!("  {}\n", b.to_uppercase())));
    }
    docs.push(("empty0".into(), String::new()));
    docs.push(("empty1".into(), " \n ".into()));
    docs.push(("short".into(), "too short".into()));
    docs.push(("other".into(), w.text(300)));
    docs
}

/// Runs a full scan with every output into `out/`, returning the stderr.
fn scan_all(dir: &Path, out: &str, extra: &[&str]) -> String {
    std::fs::create_dir_all(dir.join(out)).unwrap();
    let paths: Vec<String> = [
        "pairs.jsonl",
        "clusters.jsonl",
        "keep.txt",
        "drop.txt",
        "deduped.jsonl",
    ]
    .iter()
    .map(|f| format!("{out}/{f}"))
    .collect();
    let receipts = format!("{out}/receipts");
    let mut args = vec![
        "scan",
        "--pairs",
        &paths[0],
        "--clusters",
        &paths[1],
        "--keep-list",
        &paths[2],
        "--drop-list",
        &paths[3],
        "--write-deduped",
        &paths[4],
        "--receipts",
        &receipts,
    ];
    args.extend_from_slice(extra);
    ok(&neardup_in(dir, &args))
}

fn setup() -> (Dir, std::path::PathBuf) {
    let dir = Dir::new();
    let root = dir.root().to_owned();
    write_jsonl(&root.join("corpus.jsonl"), &corpus());
    (dir, root)
}

// ----- tests -----------------------------------------------------------------

#[test]
fn finds_verifies_and_clusters() {
    let (_d, root) = setup();
    let err = scan_all(&root, "out", &["corpus.jsonl"]);
    assert!(err.contains("25 bands × 5 rows"), "{err}");
    assert!(err.contains("miss probability"), "{err}");
    for word in [
        "identical groups: 4",
        "verified pairs: 12",
        "clusters: 9",
        "documents dropped: 12",
    ] {
        assert!(err.contains(word), "{word} not in {err}");
    }

    let pairs = jsonl(root.join("out/pairs.jsonl"));
    let got: Vec<(String, String, String)> = pairs
        .iter()
        .map(|p| {
            (
                p["a"].as_str().unwrap().to_owned(),
                p["b"].as_str().unwrap().to_owned(),
                p["verdict"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let mut want = Vec::new();
    for i in 0..8 {
        want.push((
            format!("base{i}"),
            format!("near{i}"),
            "NEAR-DUPLICATE".to_owned(),
        ));
        if i < 3 {
            want.push((
                format!("base{i}"),
                format!("same{i}"),
                "IDENTICAL".to_owned(),
            ));
        }
    }
    want.push(("empty0".into(), "empty1".into(), "IDENTICAL".into()));
    assert_eq!(got, want);
    for p in &pairs {
        // No false positive: every near pair meets the threshold exactly.
        if let Some(m) = p["matches"].as_u64() {
            assert!(100 * m >= 75 * 128, "{p}");
            assert_eq!(p["similarity"].as_f64().unwrap(), m as f64 / 128.0);
        }
        assert_eq!(p["n"], 128);
    }
    assert_eq!(pairs.last().unwrap()["matches"], Value::Null);

    let clusters = jsonl(root.join("out/clusters.jsonl"));
    assert_eq!(
        clusters[0],
        serde_json::json!({"cluster":0,"keep":"base0","members":["base0","near0","same0"],"size":3})
    );
    assert_eq!(clusters.len(), 9);
    let drop = read(root.join("out/drop.txt"));
    assert!(drop.starts_with("near0\nnear1\n"), "{drop}");
    assert!(drop.ends_with("same2\nempty1\n"), "{drop}");
    let keep = read(root.join("out/keep.txt"));
    assert_eq!(keep.lines().count() + drop.lines().count(), corpus().len());
    assert!(keep.contains("\nshort\n") && keep.contains("\nempty0\n"));

    // Outputs get the mode any new file gets, not a temporary's 0600.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode();
        std::fs::write(root.join("plain.txt"), "").unwrap();
        assert_eq!(
            mode(&root.join("out/pairs.jsonl")),
            mode(&root.join("plain.txt"))
        );
    }

    // The deduped corpus is the input's kept lines, unchanged.
    let input = read(root.join("corpus.jsonl"));
    let kept: Vec<&str> = input
        .lines()
        .filter(|l| {
            let id = serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned();
            keep.lines().any(|k| k == id)
        })
        .collect();
    assert_eq!(read(root.join("out/deduped.jsonl")), kept.join("\n") + "\n");
}

#[test]
fn receipt_hashes_are_what_compare_prints_and_verify() {
    let (_d, root) = setup();
    scan_all(&root, "out", &["corpus.jsonl"]);
    let docs = corpus();
    let text = |id: &str| docs.iter().find(|(i, _)| i == id).unwrap().1.clone();
    let pairs = jsonl(root.join("out/pairs.jsonl"));
    assert_eq!(
        std::fs::read_dir(root.join("out/receipts"))
            .unwrap()
            .count(),
        // Every pair has its own receipt, except that the three documents
        // of a fully identical group would share one (none here).
        pairs.len()
    );
    for p in pairs.iter().step_by(3) {
        let (a, b) = (p["a"].as_str().unwrap(), p["b"].as_str().unwrap());
        std::fs::write(root.join("a.txt"), text(a)).unwrap();
        std::fs::write(root.join("b.txt"), text(b)).unwrap();
        let o = neardup_in(&root, &["compare", "--json", "a.txt", "b.txt"]);
        ok(&o);
        let c: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(c["receipt_sha256"], p["receipt_sha256"], "{a} {b}");
        assert_eq!(c["verdict"], p["verdict"]);
        assert_eq!(c["matches"], p["matches"]);
        let hash = p["receipt_sha256"].as_str().unwrap();
        let receipt = format!("out/receipts/{hash}.json");
        let bytes = std::fs::read(root.join(&receipt)).unwrap();
        assert_eq!(neardup::Digest::of(&bytes).to_string(), hash);
        ok(&neardup_in(
            &root,
            &["verify", "--sha256", hash, &receipt, "a.txt", "b.txt"],
        ));
    }
}

fn outputs(root: &Path, out: &str) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut stack = vec![root.join(out)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let name = p
                    .strip_prefix(root.join(out))
                    .unwrap()
                    .display()
                    .to_string();
                files.push((name, std::fs::read(&p).unwrap()));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn outputs_are_byte_identical_across_threads_and_memory_budgets() {
    let (_d, root) = setup();
    std::fs::create_dir(root.join("tmp")).unwrap();
    scan_all(&root, "base", &["corpus.jsonl", "-j", "2"]);
    scan_all(&root, "one", &["corpus.jsonl", "-j", "1"]);
    let err = scan_all(
        &root,
        "tiny",
        &[
            "corpus.jsonl",
            "--memory",
            "1K",
            "--temp-dir",
            "tmp",
            "-j",
            "2",
        ],
    );
    // A 1 KiB budget holds 64 band records: the run spilled and merged.
    assert!(err.contains("spilled and merged"), "{err}");
    let base = outputs(&root, "base");
    assert!(base.len() > 5);
    assert_eq!(outputs(&root, "one"), base);
    assert_eq!(outputs(&root, "tiny"), base);
    // The temp dir is cleaned up.
    assert_eq!(std::fs::read_dir(root.join("tmp")).unwrap().count(), 0);
}

#[test]
fn signature_files_give_the_same_result_without_re_signing() {
    let (_d, root) = setup();
    ok(&neardup_in(
        &root,
        &["sign", "--jsonl", "corpus.jsonl", "-o", "sigs.jsonl"],
    ));
    let p = |out: &str| format!("{out}.jsonl");
    ok(&neardup_in(
        &root,
        &[
            "scan",
            "corpus.jsonl",
            "--pairs",
            &p("a"),
            "--clusters",
            "ca.jsonl",
        ],
    ));
    ok(&neardup_in(
        &root,
        &[
            "scan",
            "sigs.jsonl",
            "--pairs",
            &p("b"),
            "--clusters",
            "cb.jsonl",
        ],
    ));
    assert_eq!(read(root.join("a.jsonl")), read(root.join("b.jsonl")));
    let o = neardup_in(&root, &["scan", "sigs.jsonl", "--pairs", "-", "-q"]);
    ok(&o);
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        read(root.join("a.jsonl"))
    );
    assert_eq!(read(root.join("ca.jsonl")), read(root.join("cb.jsonl")));

    // Signatures made with other parameters are refused, naming the line.
    ok(&neardup_in(
        &root,
        &[
            "sign",
            "--jsonl",
            "corpus.jsonl",
            "-k",
            "3",
            "-o",
            "k3.jsonl",
        ],
    ));
    assert_error(
        &neardup_in(&root, &["scan", "k3.jsonl", "--pairs", "x.jsonl"]),
        2,
        "'k3.jsonl': line 1: signed with k=3, n=128, words=space, but this scan uses k=5, n=128, words=space",
    );
    assert!(!root.join("x.jsonl").exists());
}

#[test]
fn against_reports_only_new_pairs_and_never_drops_ref() {
    let (_d, root) = setup();
    let docs = corpus();
    // REF: the bases and their near copies; NEW: everything else.
    let (refs, new): (Vec<_>, Vec<_>) = docs
        .into_iter()
        .partition(|(id, _)| id.starts_with("base") || id.starts_with("near"));
    write_jsonl(&root.join("ref.jsonl"), &refs);
    write_jsonl(&root.join("new.jsonl"), &new);
    ok(&neardup_in(
        &root,
        &["sign", "--jsonl", "ref.jsonl", "-o", "ref.sig"],
    ));
    ok(&neardup_in(
        &root,
        &[
            "scan",
            "new.jsonl",
            "--against",
            "ref.sig",
            "--pairs",
            "p.jsonl",
            "--drop-list",
            "d.txt",
            "--keep-list",
            "k.txt",
        ],
    ));
    let pairs: BTreeSet<(String, String)> = jsonl(root.join("p.jsonl"))
        .iter()
        .map(|p| {
            (
                p["a"].as_str().unwrap().into(),
                p["b"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want: BTreeSet<(String, String)> = [
        ("base0", "same0"),
        ("base1", "same1"),
        ("base2", "same2"),
        ("empty0", "empty1"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(pairs, want);
    assert_eq!(read(root.join("d.txt")), "same0\nsame1\nsame2\nempty1\n");
    assert_eq!(read(root.join("k.txt")), "empty0\nshort\nother\n");
}

#[test]
fn directory_inputs_warn_on_bad_files_unless_strict() {
    let dir = Dir::new();
    let root = dir.root();
    let docs = corpus();
    std::fs::create_dir_all(root.join("tree/sub")).unwrap();
    for (id, text) in docs.iter().take(24) {
        std::fs::write(root.join(format!("tree/sub/{id}.txt")), text).unwrap();
    }
    std::fs::write(root.join("tree/binary.bin"), b"\xff\xfe\x00 not text").unwrap();
    std::fs::write(root.join("tree/big.txt"), "x ".repeat(10_000)).unwrap();
    let o = neardup_in(
        root,
        &[
            "scan",
            "tree",
            "--max-size",
            "10K",
            "--pairs",
            "p.jsonl",
            "--write-deduped",
            "d.jsonl",
        ],
    );
    let err = ok(&o);
    assert!(
        err.contains("warning: reading 'tree/binary.bin': invalid UTF-8"),
        "{err}"
    );
    assert!(
        err.contains("warning: 'tree/big.txt' is 20000 bytes, over the --max-size"),
        "{err}"
    );
    assert!(err.contains("2 skipped"), "{err}");
    let pairs = jsonl(root.join("p.jsonl"));
    assert_eq!(pairs.len(), 11);
    assert_eq!(pairs[0]["a"], "tree/sub/base0.txt");
    let deduped = jsonl(root.join("d.jsonl"));
    assert_eq!(deduped.len(), 24 - 11);
    assert_eq!(deduped[0]["id"], "tree/sub/base0.txt");
    assert_eq!(deduped[0]["text"].as_str().unwrap(), docs[0].1);

    assert_error(
        &neardup_in(
            root,
            &[
                "scan",
                "tree",
                "--strict",
                "--max-size",
                "10K",
                "--pairs",
                "q.jsonl",
            ],
        ),
        2,
        "'tree/big.txt' is 20000 bytes",
    );
    assert!(!root.join("q.jsonl").exists());
}

#[test]
fn bad_input_fails_cleanly_and_leaves_no_output() {
    let (_d, root) = setup();
    std::fs::write(
        root.join("bad.jsonl"),
        "{\"id\":1,\"text\":\"a\"}\n\n{\"id\":2,\"text\":\n",
    )
    .unwrap();
    std::fs::write(
        root.join("dup.jsonl"),
        "{\"id\":\"x\",\"text\":\"a\"}\n{\"id\":\"\\u0078\",\"text\":\"b\"}\n",
    )
    .unwrap();
    let args = |input: &'static str| {
        vec![
            "scan",
            input,
            "--pairs",
            "o/p.jsonl",
            "--clusters",
            "o/c.jsonl",
            "--keep-list",
            "o/k.txt",
        ]
    };
    std::fs::create_dir(root.join("o")).unwrap();
    assert_error(
        &neardup_in(&root, &args("bad.jsonl")),
        2,
        "'bad.jsonl': line 3: ",
    );
    assert_error(
        &neardup_in(&root, &args("dup.jsonl")),
        2,
        "'dup.jsonl' line 2: duplicate id \"x\" (first seen at 'dup.jsonl' line 1)",
    );
    assert_error(
        &neardup_in(&root, &args("missing.jsonl")),
        2,
        "reading 'missing.jsonl': no such file",
    );
    assert_eq!(std::fs::read_dir(root.join("o")).unwrap().count(), 0);

    assert_error(
        &neardup_in(
            &root,
            &["scan", "corpus.jsonl", "--bands", "40", "--rows", "4"],
        ),
        2,
        "--bands 40 × --rows 4 must be at least 1 each and use at most n = 128 slots",
    );
    assert_error(
        &neardup_in(
            &root,
            &["scan", "corpus.jsonl", "--pairs", "no/such/dir/p.jsonl"],
        ),
        2,
        "writing 'no/such/dir/p.jsonl'",
    );
    assert_error(
        &neardup_in(
            &root,
            &["scan", "corpus.jsonl", "--pairs", "-", "--clusters", "-"],
        ),
        2,
        "only one output can go to standard output",
    );
    let o = neardup_in(&root, &["scan", "corpus.jsonl", "--threshold", "1.5"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn bands_and_rows_and_threshold_can_be_set() {
    let (_d, root) = setup();
    let err = ok(&neardup_in(
        &root,
        &[
            "scan",
            "corpus.jsonl",
            "--bands",
            "16",
            "--rows",
            "8",
            "--threshold",
            "0.9",
            "--pairs",
            "p.jsonl",
        ],
    ));
    assert!(
        err.contains("16 bands × 8 rows (128 of 128 slots), threshold 0.9"),
        "{err}"
    );
    for p in jsonl(root.join("p.jsonl")) {
        if let Some(m) = p["matches"].as_u64() {
            assert!(10 * m >= 9 * 128, "{p}");
        }
    }
}

/// `--pairs /dev/null` once replaced /dev/null with a regular file (as
/// root, a rename over it): an output path that is there and is not a
/// regular file is written in place. A FIFO stands for the device here.
#[cfg(unix)]
#[test]
fn an_output_that_is_a_fifo_is_written_into_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = Dir::new();
    let root = dir.root();
    let mut w = Words(5);
    let mut docs: Vec<(String, String)> = (0..20).map(|i| (format!("d{i}"), w.text(60))).collect();
    docs[7].1 = docs[3].1.clone() + " end";
    write_jsonl(&root.join("c.jsonl"), &docs);
    ok(&neardup_in(
        root,
        &["scan", "c.jsonl", "--pairs", "want.jsonl", "-q"],
    ));
    assert!(Command::new("mkfifo")
        .arg(root.join("fifo"))
        .status()
        .unwrap()
        .success());
    let fifo = root.join("fifo");
    let reader = std::thread::spawn(move || std::fs::read(fifo).unwrap());
    ok(&neardup_in(
        root,
        &["scan", "c.jsonl", "--pairs", "fifo", "-q"],
    ));
    let kind = std::fs::symlink_metadata(root.join("fifo"))
        .unwrap()
        .file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced: {kind:?}");
    let got = reader.join().unwrap();
    assert_eq!(got, std::fs::read(root.join("want.jsonl")).unwrap());
    assert!(!got.is_empty());
    assert_eq!(names(root), ["c.jsonl", "fifo", "want.jsonl"]);
}

#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_leaves_nothing_behind() {
    let dir = Dir::new();
    let root = dir.root();
    // Large enough that the scan is still running when the signal comes.
    let mut w = Words(3);
    let docs: Vec<(String, String)> = (0..4000).map(|i| (format!("d{i}"), w.text(400))).collect();
    write_jsonl(&root.join("big.jsonl"), &docs);
    std::fs::create_dir(root.join("tmp")).unwrap();
    let mut child = command(root)
        .args([
            "scan",
            "big.jsonl",
            "--temp-dir",
            "tmp",
            "--memory",
            "1K",
            "-j",
            "1",
            "--pairs",
            "p.jsonl",
        ])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the scan to hold a run open (unnamed: it shows only in
    // /proc/PID/fd, as `tmp/#INODE (deleted)`), then interrupt.
    let start = std::time::Instant::now();
    let fds = format!("/proc/{}/fd", child.id());
    let tmp = root.join("tmp");
    let spilling = || {
        std::fs::read_dir(&fds)
            .into_iter()
            .flatten()
            .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
            .any(|target| target.starts_with(&tmp))
    };
    while !spilling() && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let code = child.wait().unwrap().code();
    // 130 when interrupted; 0 if it finished first. Either way: no leftovers.
    assert!(matches!(code, Some(130) | Some(0)), "{code:?}");
    assert_eq!(std::fs::read_dir(root.join("tmp")).unwrap().count(), 0);
    let leftovers: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// Brute force over the signatures: every pair at or over `bp` basis points.
fn all_pairs(root: &Path, sigs: &str, bp: u64) -> BTreeSet<(String, String)> {
    let lines = jsonl(root.join(sigs));
    let sig: Vec<(String, neardup::Signature)> = lines
        .iter()
        .filter_map(|l| {
            let s = neardup::Signature::from_hex(l["signature"].as_str()?).ok()?;
            Some((l["id"].as_str().unwrap().to_owned(), s))
        })
        .collect();
    let mut out = BTreeSet::new();
    for (i, (a, sa)) in sig.iter().enumerate() {
        for (b, sb) in &sig[i + 1..] {
            if 10_000 * u64::from(sa.matches(sb)) >= bp * 128 {
                out.insert((a.clone(), b.clone()));
            }
        }
    }
    out
}

#[test]
fn reports_exactly_the_pairs_an_all_pairs_comparison_finds() {
    let dir = Dir::new();
    let root = dir.root();
    let mut w = Words(11);
    let mut docs = Vec::new();
    for i in 0..40 {
        let base = w.text(300);
        // 0 to 14 substituted words: Jaccard from 1 down to about 0.6,
        // across the 0.75 line.
        let mut words: Vec<String> = base.split(' ').map(str::to_owned).collect();
        for e in 0..(i % 15) {
            words[(e * 37 + 11) % 300] = w.next();
        }
        docs.push((format!("b{i}"), base));
        docs.push((format!("v{i}"), words.join(" ")));
    }
    write_jsonl(&root.join("c.jsonl"), &docs);
    ok(&neardup_in(
        root,
        &["sign", "--jsonl", "c.jsonl", "-o", "s.jsonl"],
    ));
    for ((t, bp), recall) in [("0.75", 7500), ("0.5", 5000), ("0.9", 9000)]
        .into_iter()
        .flat_map(|t| [(t, "probable"), (t, "exact")])
    {
        let err = ok(&neardup_in(
            root,
            &[
                "scan",
                "s.jsonl",
                "--threshold",
                t,
                "--recall",
                recall,
                "--pairs",
                "p.jsonl",
            ],
        ));
        let exact = err.contains("miss probability at the threshold 0 (exact recall");
        assert_eq!(exact, recall == "exact", "{err}");
        let got: BTreeSet<(String, String)> = jsonl(root.join("p.jsonl"))
            .iter()
            .map(|p| {
                (
                    p["a"].as_str().unwrap().into(),
                    p["b"].as_str().unwrap().into(),
                )
            })
            .collect();
        let want = all_pairs(root, "s.jsonl", bp);
        assert!(want.len() > 10 && want.len() <= 40, "{t}: {}", want.len());
        assert_eq!(got, want, "threshold {t}, recall {recall}");
    }
}

/// A directory's files come in bytewise path order (`a-b.txt` before the
/// directory `a/`, as SCAN.md says), and names starting with `.` or `_`
/// (hidden files, Spark's `_SUCCESS`) are not read.
#[test]
fn directory_files_come_in_bytewise_order_without_hidden_names() {
    let dir = Dir::new();
    let root = dir.root();
    let text = corpus().remove(0).1;
    std::fs::create_dir_all(root.join("tree/a")).unwrap();
    std::fs::create_dir_all(root.join("tree/_temporary")).unwrap();
    for f in [
        "a/z.txt",
        "a-b.txt",
        "a.txt",
        ".hidden.txt",
        "_SUCCESS",
        "_temporary/x.txt",
    ] {
        std::fs::write(root.join("tree").join(f), &text).unwrap();
    }
    let o = neardup_in(root, &["scan", "tree", "--clusters", "c.jsonl"]);
    ok(&o);
    let clusters = jsonl(root.join("c.jsonl"));
    assert_eq!(clusters.len(), 1);
    assert_eq!(
        clusters[0]["members"],
        serde_json::json!(["tree/a-b.txt", "tree/a.txt", "tree/a/z.txt"])
    );
}
