//! `--report` and `--base` (issue 28): one self-contained HTML report,
//! deterministic, with no script, every text escaped, the receipts and the
//! verify command in it; a base text changes the column and the
//! highlights, never the receipts.

use std::time::Instant;

use crate::util::*;

/// The prompt every essay quotes: what `--base` sets aside.
fn prompt() -> String {
    Words(7).text(60)
}

/// `count` essays of `words` words each, every one opening with the
/// prompt, where essay `2i + 1` copies essay `2i` with one word in 60
/// changed, for the first `pairs` values of `i`: `pairs` reported pairs.
fn essays(dir: &Dir, count: usize, words: usize, pairs: usize) -> String {
    let folder = dir.path("essays");
    std::fs::create_dir_all(&folder).unwrap();
    let mut w = Words(1);
    let prompt = prompt();
    let mut texts: Vec<Vec<String>> = (0..count)
        .map(|_| (0..words).map(|_| w.next()).collect())
        .collect();
    for i in 0..pairs {
        let mut copy = texts[2 * i].clone();
        for j in (0..words).step_by(60) {
            copy[j] = w.next();
        }
        texts[2 * i + 1] = copy;
    }
    for (i, t) in texts.iter().enumerate() {
        // Lines of 100 words, paragraphs apart, as an essay would be.
        let body: Vec<String> = t.chunks(100).map(|c| c.join(" ")).collect();
        let text = format!("{prompt}\n{}\n", body.join("\n\n"));
        std::fs::write(format!("{folder}/e{i:02}.txt"), text).unwrap();
    }
    folder
}

#[test]
fn thirty_essays_give_a_deterministic_report_under_three_megabytes() {
    let dir = Dir::new();
    essays(&dir, 30, 3000, 10);
    let run = |out: &str, extra: &[&str]| {
        let mut args = vec!["scan", "-q", "essays", "--report", out];
        args.extend_from_slice(extra);
        let start = Instant::now();
        ok(&neardup_in(dir.root(), &args));
        start.elapsed()
    };
    let plain = {
        let start = Instant::now();
        ok(&neardup_in(
            dir.root(),
            &["scan", "-q", "essays", "--pairs", "pairs.jsonl"],
        ));
        start.elapsed()
    };
    let with_report = run("r1.html", &[]);
    run("r2.html", &["-j", "1"]);
    let (r1, r2) = (
        std::fs::read(dir.path("r1.html")).unwrap(),
        std::fs::read(dir.path("r2.html")).unwrap(),
    );
    assert_eq!(r1, r2, "two runs must give byte-identical reports");
    let html = String::from_utf8(r1).unwrap();
    println!(
        "report of 30 essays x 3000 words, 10 pairs: {} bytes; scan {:.0} ms, scan + report {:.0} ms",
        html.len(),
        plain.as_secs_f64() * 1e3,
        with_report.as_secs_f64() * 1e3
    );
    assert!(html.len() < 3 << 20, "{} bytes", html.len());
    assert!(!html.to_ascii_lowercase().contains("<script"));
    assert!(html.contains(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
    ));
    let pairs = jsonl(dir.path("pairs.jsonl"));
    assert_eq!(pairs.len(), 10);
    for p in &pairs {
        let hash = p["receipt_sha256"].as_str().unwrap();
        assert!(html.contains(hash), "{hash}");
        let (a, b) = (p["a"].as_str().unwrap(), p["b"].as_str().unwrap());
        let command = format!(
            "neardup verify receipt-{}.json {a} {b} --sha256 {hash}",
            &hash[..12]
        );
        assert!(html.contains(&command), "{command}");
    }
    assert!(html.contains("<svg class=map"));
    assert_eq!(html.matches("<section class=pair").count(), 10);
    assert!(html.contains("Verify</b> tab"));
}

/// Saving a receipt as the report says and running its command verifies.
#[test]
fn the_reports_receipt_and_command_verify() {
    let dir = Dir::new();
    essays(&dir, 4, 300, 1);
    ok(&neardup_in(
        dir.root(),
        &[
            "compare",
            "essays/e00.txt",
            "essays/e01.txt",
            "--report",
            "c.html",
        ],
    ));
    let html = read(dir.path("c.html"));
    let receipt = html
        .split("<pre>")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .unwrap()
        .replace("&quot;", "\"");
    let command = html
        .split("<pre>")
        .nth(2)
        .and_then(|s| s.split("</pre>").next())
        .unwrap()
        .to_owned();
    let words: Vec<&str> = command.split(' ').collect();
    assert_eq!(words[..2], ["neardup", "verify"]);
    std::fs::write(dir.path(words[2]), &receipt).unwrap();
    let out = neardup_in(dir.root(), &words[1..]);
    ok(&out);
    assert!(stdout(&out).contains("verified") || stdout(&out).contains("VERIFIED"));
}

#[test]
fn html_in_texts_and_names_is_escaped() {
    let dir = Dir::new();
    let text = "<script>alert('x')</script> & the same words in both of these two texts here";
    std::fs::create_dir(dir.path("d")).unwrap();
    dir.write("d/<script>a.txt", text);
    dir.write("d/b\".txt", format!("{text}!"));
    ok(&neardup_in(
        dir.root(),
        &["scan", "-q", "d", "--report", "r.html"],
    ));
    let html = read(dir.path("r.html"));
    assert!(!html.to_ascii_lowercase().contains("<script"));
    assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
    assert!(html.contains("d/&lt;script&gt;a.txt"));
    assert!(html.contains("d/b&quot;.txt"));
    // The command quotes the names for a shell, then escapes them.
    assert!(html.contains("&#39;d/&lt;script&gt;a.txt&#39;"));
}

#[test]
fn a_base_text_changes_the_column_and_the_highlights_not_the_receipts() {
    let dir = Dir::new();
    essays(&dir, 4, 400, 2);
    dir.write("prompt.txt", prompt());
    // `args`, with the base text when `base`.
    let run = |args: &[&str], base: bool| {
        let base: &[&str] = if base { &["--base", "prompt.txt"] } else { &[] };
        neardup_in(dir.root(), &[args, base].concat())
    };
    let report = |out: &str, base: bool| {
        let args = [
            "compare",
            "essays/e00.txt",
            "essays/e01.txt",
            "--report",
            out,
        ];
        ok(&run(&args, base));
        read(dir.path(out))
    };
    let (plain, based) = (report("a.html", false), report("b.html", true));
    assert_ne!(plain, based);
    assert!(!plain.contains("Shared outside the base"));
    assert!(based.contains("Shared outside the base"));
    assert!(!plain.contains("<mark class=b>"));
    assert!(based.contains("<mark class=b>"));
    assert!(based.contains("from the base text"));
    assert!(based.contains("do not read that column as a verdict"));
    let receipts = |h: &str| -> Vec<String> {
        h.split("<pre>")
            .skip(1)
            .map(|s| s.split("</pre>").next().unwrap().to_owned())
            .collect()
    };
    assert_eq!(receipts(&plain), receipts(&based));

    // compare --explain --json: the same column, the same receipt.
    let json = |base: bool| {
        let args = [
            "compare",
            "essays/e00.txt",
            "essays/e01.txt",
            "--explain",
            "--json",
        ];
        json_of(&run(&args, base))
    };
    let (j0, j1) = (json(false), json(true));
    assert_eq!(j0["receipt_sha256"], j1["receipt_sha256"]);
    assert!(j0.get("shared_outside_base").is_none());
    let o = &j1["shared_outside_base"];
    assert_eq!(o["base_words_a"], 60);
    assert_eq!(
        o["shared_words_a"].as_u64().unwrap() + 60,
        j1["coverage"]["shared_words_a"].as_u64().unwrap()
    );

    // In a scan, the base text reorders by the column and keeps the receipts.
    let scan = |out: &str, base: bool| {
        let args = [
            "scan",
            "-q",
            "essays",
            "--threshold",
            "0.5",
            "--report",
            out,
        ];
        ok(&run(&args, base));
        read(dir.path(out))
    };
    let (s0, s1) = (scan("s0.html", false), scan("s1.html", true));
    let mut r0 = receipts(&s0);
    let mut r1 = receipts(&s1);
    r0.sort();
    r1.sort();
    assert_eq!(r0, r1);
    assert!(s1.contains("Shared outside the base A / B"));
}

#[test]
fn a_jsonl_corpus_is_read_again_for_its_pairs() {
    let dir = Dir::new();
    let mut w = Words(3);
    let base = w.text(200);
    let docs = vec![
        ("one".to_owned(), base.clone()),
        ("two".to_owned(), w.text(200)),
        ("three".to_owned(), format!("{base} <b>end</b>")),
    ];
    write_jsonl(&dir.root().join("c.jsonl"), &docs);
    ok(&neardup_in(
        dir.root(),
        &[
            "scan", "-q", "c.jsonl", "--report", "r.html", "--pairs", "p.jsonl",
        ],
    ));
    let html = read(dir.path("r.html"));
    let pairs = jsonl(dir.path("p.jsonl"));
    assert_eq!(pairs.len(), 1);
    assert!(html.contains(pairs[0]["receipt_sha256"].as_str().unwrap()));
    assert!(html.contains("&lt;b&gt;end&lt;/b&gt;"));
    assert!(html.contains("<h2>Pair 1: one and three</h2>"));
}

#[test]
fn report_refuses_inputs_without_texts() {
    let dir = Dir::new();
    let mut w = Words(5);
    let t = w.text(50);
    let docs = vec![("a".to_owned(), t.clone()), ("b".to_owned(), t)];
    write_jsonl(&dir.root().join("c.jsonl"), &docs);
    ok(&neardup_in(
        dir.root(),
        &["sign", "--jsonl", "c.jsonl", "-o", "sigs.jsonl"],
    ));
    let out = neardup_in(
        dir.root(),
        &["scan", "-q", "sigs.jsonl", "--report", "r.html"],
    );
    assert_error(&out, 2, "holds signatures only");
    assert!(!dir.root().join("r.html").exists());
    let out = neardup_stdin(&["scan", "-q", "-", "--report", "r.html"], b"");
    assert_error(&out, 2, "cannot take standard input");
    let out = neardup_in(dir.root(), &["scan", "-q", "c.jsonl", "--base", "c.jsonl"]);
    assert_error(&out, 2, "give --report too");
    dir.write("a.txt", "a b c");
    let out = neardup_in(
        dir.root(),
        &["compare", "a.txt", "a.txt", "--base", "a.txt"],
    );
    assert_error(&out, 2, "--base sets a base text aside");
}

/// The page's request for files under `dir`: their names as the CLI shows
/// them, and their bytes one after another.
fn page_request(dir: &Dir, names: &[String]) -> (Vec<u8>, Vec<String>, Vec<u64>) {
    let mut data = Vec::new();
    let mut sizes = Vec::new();
    for n in names {
        let bytes = std::fs::read(dir.root().join(n)).unwrap();
        sizes.push(bytes.len() as u64);
        data.extend(bytes);
    }
    (data, names.to_vec(), sizes)
}

#[test]
fn the_page_and_the_cli_give_byte_identical_reports() {
    let dir = Dir::new();
    essays(&dir, 8, 500, 3);
    dir.write("prompt.txt", prompt());
    // A document the scan skips (not UTF-8), as the page skips it.
    dir.write("essays/zz.txt", b"caf\xe9 au lait");
    let mut names: Vec<String> = names(dir.path("essays"))
        .into_iter()
        .map(|n| format!("essays/{n}"))
        .collect();
    // The page may send the files in any order; it sorts them as the CLI.
    names.reverse();
    for base in [false, true] {
        let mut args = vec![
            "scan",
            "-q",
            "essays",
            "--threshold",
            "0.6",
            "--report",
            "cli.html",
        ];
        let mut req = neardup_web::ReportRequest {
            k: "5".into(),
            n: "128".into(),
            threshold: Some("0.6".into()),
            ..Default::default()
        };
        let (mut data, ids, sizes) = page_request(&dir, &names);
        (req.ids, req.sizes) = (ids, sizes);
        if base {
            args.extend(["--base", "prompt.txt"]);
            let (b, ids, sizes) = page_request(&dir, &["prompt.txt".to_owned()]);
            data.extend(b);
            (req.bases, req.base_sizes) = (ids, sizes);
        }
        ok(&neardup_in(dir.root(), &args));
        let cli = read(dir.path("cli.html"));
        let page = neardup_web::report(&data, &req).unwrap();
        assert!(cli.contains("<section class=pair"));
        assert_eq!(cli, page, "collection report, base {base}");

        // One pair, as the Compare tab and `neardup compare` give it.
        let pair = ["essays/e02.txt".to_owned(), "essays/e03.txt".to_owned()];
        let mut args = vec!["compare", &pair[0], &pair[1], "--report", "cli.html"];
        let (mut data, ids, sizes) = page_request(&dir, &pair);
        let mut req = neardup_web::ReportRequest {
            k: "5".into(),
            n: "128".into(),
            ids,
            sizes,
            files: vec![Some(pair[0].clone()), Some(pair[1].clone())],
            ..Default::default()
        };
        if base {
            args.extend(["--base", "prompt.txt"]);
            let (b, ids, sizes) = page_request(&dir, &["prompt.txt".to_owned()]);
            data.extend(b);
            (req.bases, req.base_sizes) = (ids, sizes);
        }
        ok(&neardup_in(dir.root(), &args));
        let cli = read(dir.path("cli.html"));
        assert_eq!(
            cli,
            neardup_web::report(&data, &req).unwrap(),
            "pair report, base {base}"
        );
    }
}
