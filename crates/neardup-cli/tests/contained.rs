//! `neardup scan --containment T` (issue 37), end to end: every pair in
//! which one document holds at least T of the other, against every pair
//! compared one by one.

use std::path::Path;

use neardup::{Params, Threshold};
use serde_json::Value;

use crate::util::*;

/// `(id, text)` documents.
type Docs = Vec<(String, String)>;

/// Sources of 400 to 2,000 words, essays that copy 20% to 70% of their
/// words from one or two sources, copies of essays, and strangers: sizes
/// that differ up to 1:50 (a 40-word note among 2,000-word sources).
fn class() -> (Docs, Docs) {
    let mut w = Words(37);
    let sources: Vec<(String, String)> = (0..5)
        .map(|i| (format!("source{i}"), w.text(400 + 400 * i)))
        .collect();
    let words = |t: &str| t.split(' ').map(str::to_owned).collect::<Vec<_>>();
    let mut essays = Vec::new();
    for i in 0..12usize {
        let src = words(&sources[i % 5].1);
        let len = 300;
        let copied = len * (20 + 5 * (i % 11)) / 100;
        let from = (i * 37) % (src.len() - copied);
        let mut essay = w.text((len - copied) / 2);
        essay.push(' ');
        essay += &src[from..from + copied].join(" ");
        if i % 4 == 0 {
            // A second source too.
            let other = words(&sources[(i + 2) % 5].1);
            essay.push(' ');
            essay += &other[10..10 + copied / 2].join(" ");
        }
        essay.push(' ');
        essay += &w.text((len - copied) / 2);
        essays.push((format!("essay{i:02}"), essay));
    }
    essays.push(("essay12".into(), essays[3].1.to_uppercase()));
    essays.push(("note".into(), words(&sources[4].1)[100..140].join(" ")));
    essays.push(("stranger".into(), w.text(500)));
    (sources, essays)
}

fn pairs_of(path: &Path) -> Vec<Value> {
    jsonl(path)
}

/// The containment of every pair, compared one by one with the core.
fn brute_force(docs: &[(String, String)], refs: usize, t: Threshold) -> Vec<String> {
    let mut want = Vec::new();
    for a in 0..docs.len() {
        for b in a + 1..docs.len() {
            if b < refs {
                continue;
            }
            let c = neardup::compare(&docs[a].1, &docs[b].1, Params::DEFAULT);
            if c.containment.reaches(t) {
                let mut json = String::new();
                c.containment.write_json(&mut json);
                want.push(format!("{} {} {json}", docs[a].0, docs[b].0));
            }
        }
    }
    want
}

/// `a b {containment}` of each line, the object as the line spells it
/// (a double read back and written again could change its last digit).
fn got(path: &Path) -> Vec<String> {
    read(path)
        .lines()
        .map(|raw| {
            let l: Value = serde_json::from_str(raw).unwrap();
            let c =
                &raw[raw.find("\"containment\":").unwrap() + 14..raw.find(",\"matches\"").unwrap()];
            format!(
                "{} {} {c}",
                l["a"].as_str().unwrap(),
                l["b"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn every_pair_at_or_over_t_and_none_below() {
    let d = Dir::new();
    let (sources, essays) = class();
    let all: Vec<_> = sources.iter().chain(&essays).cloned().collect();
    write_jsonl(&d.root().join("class.jsonl"), &all);
    for t in ["0.1", "0.25", "0.5", "0.7", "1"] {
        let o = neardup_in(
            d.root(),
            &[
                "scan",
                "class.jsonl",
                "--containment",
                t,
                "--pairs",
                "p.jsonl",
                "-q",
            ],
        );
        ok(&o);
        let lines = pairs_of(&d.root().join("p.jsonl"));
        let want = brute_force(&all, 0, t.parse().unwrap());
        assert_eq!(got(&d.root().join("p.jsonl")), want, "containment {t}");
        // Each line keeps its SPEC fields: the receipt of the two texts.
        for l in &lines {
            let text = |id: &Value| {
                &all.iter()
                    .find(|(i, _)| i == id.as_str().unwrap())
                    .unwrap()
                    .1
            };
            let c = neardup::compare(text(&l["a"]), text(&l["b"]), Params::DEFAULT);
            assert_eq!(l["receipt_sha256"], c.receipt.sha256().to_string());
            assert_eq!(l["verdict"], c.receipt.verdict.as_str());
        }
    }
    // At 0.5 the essays copied from one source make pairs that Jaccard
    // misses: none of them is a near-duplicate.
    ok(&neardup_in(
        d.root(),
        &["scan", "class.jsonl", "--pairs", "j.jsonl", "-q"],
    ));
    let jaccard = pairs_of(&d.root().join("j.jsonl"));
    assert_eq!(jaccard.len(), 1, "only essay12, identical to essay03");
}

#[test]
fn submissions_against_sources_and_the_smaller_side_is_dropped() {
    let d = Dir::new();
    let (sources, essays) = class();
    write_jsonl(&d.root().join("sources.jsonl"), &sources);
    write_jsonl(&d.root().join("essays.jsonl"), &essays);
    let args = [
        "scan",
        "essays.jsonl",
        "--against",
        "sources.jsonl",
        "--containment",
        "0.3",
        "--pairs",
        "p.jsonl",
        "--drop-list",
        "drop.txt",
        "--clusters",
        "c.jsonl",
        "-q",
    ];
    ok(&neardup_in(d.root(), &args));
    let all: Vec<_> = sources.iter().chain(&essays).cloned().collect();
    let lines = pairs_of(&d.root().join("p.jsonl"));
    let want = brute_force(&all, sources.len(), "0.3".parse().unwrap());
    assert_eq!(got(&d.root().join("p.jsonl")), want);
    assert!(lines
        .iter()
        .all(|l| !l["b"].as_str().unwrap().starts_with("source")));
    // Each pair drops its smaller side; no source is ever dropped.
    let dropped = read(d.root().join("drop.txt"));
    let size = |id: &str| {
        let text = &all.iter().find(|(i, _)| i == id).unwrap().1;
        neardup::Fingerprint::of(text, Params::DEFAULT).shingles
    };
    let mut want: Vec<&str> = lines
        .iter()
        .map(|l| {
            let (a, b) = (l["a"].as_str().unwrap(), l["b"].as_str().unwrap());
            if size(b) <= size(a) {
                b
            } else {
                a
            }
        })
        .filter(|id| !id.starts_with("source"))
        .collect();
    want.sort_unstable();
    want.dedup();
    let mut got: Vec<&str> = dropped.lines().collect();
    got.sort_unstable();
    assert_eq!(got, want);
    assert!(got.contains(&"note") && !got.contains(&"stranger"));
    // A cluster's keeper, listed first, is its largest document.
    for c in jsonl(d.root().join("c.jsonl")) {
        let members: Vec<&str> = c["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        assert_eq!(c["keep"], members[0]);
        assert!(members.iter().all(|m| size(m) <= size(members[0])), "{c}");
    }
}

#[test]
fn outputs_are_byte_identical_on_any_thread_count() {
    let d = Dir::new();
    let (sources, essays) = class();
    let all: Vec<_> = sources.iter().chain(&essays).cloned().collect();
    write_jsonl(&d.root().join("class.jsonl"), &all);
    let run = |threads: &str| {
        let out = format!("p{threads}.jsonl");
        let args = [
            "scan",
            "class.jsonl",
            "--containment",
            "0.2",
            "--pairs",
            &out,
            "-j",
            threads,
            "-q",
        ];
        ok(&neardup_in(d.root(), &args));
        std::fs::read(d.root().join(out)).unwrap()
    };
    let one = run("1");
    assert!(!one.is_empty());
    assert_eq!(one, run("2"));
    assert_eq!(one, run("3"));
}

#[test]
fn bad_containment_input_is_refused_with_no_output() {
    let d = Dir::new();
    let (sources, _) = class();
    write_jsonl(&d.root().join("c.jsonl"), &sources);
    let sigs = ok_stdout(&neardup_in(d.root(), &["sign", "--jsonl", "c.jsonl"]));
    std::fs::write(d.root().join("sigs.jsonl"), sigs).unwrap();
    let scan = |extra: &[&str]| {
        let mut args = vec!["scan", "c.jsonl", "--pairs", "out.jsonl"];
        args.extend_from_slice(extra);
        neardup_in(d.root(), &args)
    };
    for bad in ["0", "1.5", "0.12345", "-0.5", "half", ""] {
        let o = scan(&[&format!("--containment={bad}")]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(stderr(&o).contains("--containment"), "{}", stderr(&o));
    }
    let o = scan(&["--containment", "0.5", "--threshold", "0.8"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));
    let o = neardup_in(
        d.root(),
        &[
            "scan",
            "sigs.jsonl",
            "--containment",
            "0.5",
            "--pairs",
            "out.jsonl",
        ],
    );
    assert_error(
        &o,
        2,
        "'sigs.jsonl' holds signatures, which keep no shingles: --containment needs the texts",
    );
    assert!(!d.root().join("out.jsonl").exists());
}

/// The teacher's report: one row per submission, the share of its words
/// found in any source (each source's part beside it), sorted by share;
/// then the pairs, with containment.
#[test]
fn the_report_opens_with_the_submissions_table() {
    let d = Dir::new();
    let (sources, essays) = class();
    let (subs, srcs) = (d.root().join("subs"), d.root().join("srcs"));
    std::fs::create_dir_all(&subs).unwrap();
    std::fs::create_dir_all(&srcs).unwrap();
    for (id, text) in &sources {
        std::fs::write(srcs.join(format!("{id}.txt")), text).unwrap();
    }
    for (id, text) in &essays {
        std::fs::write(subs.join(format!("{id}.txt")), text).unwrap();
    }
    let args = [
        "scan",
        "subs",
        "--against",
        "srcs",
        "--containment",
        "0.3",
        "--report",
        "r.html",
        "-q",
    ];
    ok(&neardup_in(d.root(), &args));
    let html = read(d.root().join("r.html"));
    let table = &html[html.find("<h2 id=submissions>").unwrap()..];
    let table = &table[..table.find("</table>").unwrap()];
    assert!(html.find("<h2 id=submissions>") < html.find("<h2 id=pairs>"));
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("<tr><td")).collect();
    assert_eq!(rows.len(), essays.len(), "one row per submission");
    // Each share is the one `compare --explain` gives a submission paired
    // with one source; sorted, highest first; unpaired ones last.
    let mut last = f64::INFINITY;
    let mut unpaired = 0;
    for row in &rows {
        let cells: Vec<&str> = row.split("<td").collect();
        let name = cells[2].trim_start_matches('>');
        if row.contains("no source at or over 0.3") {
            unpaired += 1;
            continue;
        }
        assert_eq!(unpaired, 0, "paired rows come first: {row}");
        let share: f64 = cells[4]
            .trim_start_matches(" class=r><b>")
            .trim_end_matches("%</b>")
            .parse()
            .unwrap();
        assert!(share <= last, "{row}");
        last = share;
        let parts: Vec<&str> = cells[5].trim_start_matches('>').split("<br>").collect();
        if parts.len() == 1 {
            let source = parts[0].split(' ').next().unwrap();
            let o = neardup_in(d.root(), &["compare", "--explain", "--json", name, source]);
            let cov = json_of(&o)["coverage"]["a"].as_f64().unwrap();
            assert_eq!(
                format!("{:.1}", 100.0 * cov),
                format!("{share:.1}"),
                "{row}"
            );
        }
    }
    assert!(
        rows[0].contains(
            "subs/note.txt<td class=r>40<td class=r><b>100.0%</b><td>srcs/source4.txt 100.0%"
        ),
        "{}",
        rows[0]
    );
    assert!(unpaired > 0 && table.contains("subs/stranger.txt<td class=r>—"));
    assert!(html.contains("<th>Containment A in B / B in A"));
    assert!(html.contains("<tr><th>Containment<td>0.3 (pairs in which one document holds"));
}
