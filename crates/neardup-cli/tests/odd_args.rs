//! Issue 30: odd values for every flag that takes a size, number,
//! threshold, name or colour, in every subcommand, through the real
//! binary. `neardup sign --max-size $'\u3000'4G` exited 101 with a
//! backtrace; any value must give success (0), a mismatch (1, verify) or a
//! usage or input error (2) whose first stderr line is the error, and never
//! a panic.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use crate::util::{command, Dir, Words};

/// Values that have broken or could break a hand-written parser: spaces of
/// every width around and inside numbers, signs, other scripts' digits,
/// overflow at every integer width, suffixes alone, control characters,
/// and very long ones.
fn table() -> Vec<OsString> {
    let mut v: Vec<OsString> = [
        "",
        " ",
        "\u{3000}",
        "\u{3000}4G",
        " 4G",
        "4G ",
        "4 G",
        "\t4\t",
        "\u{a0}1",
        "1\u{a0}",
        "\u{2028}2",
        "\u{feff}1",
        "1\u{200b}",
        "0",
        "00",
        "-0",
        "-1",
        "+1",
        "--1",
        "1e3",
        "0x10",
        "0b1",
        "1.5",
        ".5",
        "5.",
        "1,000",
        "1_000",
        "١٢٣",
        "４",
        "²",
        "Ⅻ",
        "∞",
        "NaN",
        "inf",
        "-inf",
        "K",
        "G",
        "4T",
        "4KB",
        "4Gi",
        "0G",
        "16G",
        "17179869183G",
        "65535",
        "65536",
        "4294967295",
        "4294967296",
        "9223372036854775808",
        "18446744073709551615",
        "18446744073709551616",
        "0.75",
        "0.00001",
        "1.0000",
        "1.00001",
        "0",
        "-0.5",
        "2",
        "1/2",
        "75%",
        "32",
        "128",
        "4",
        "é",
        "🦀",
        "\u{7f}",
        "\u{1b}[31m",
        "a\nb",
        "-",
        "--",
        "=",
        "always",
        "never",
        "AUTO",
        "id",
        "text",
        "a.b",
        "\"q\"",
    ]
    .iter()
    .map(OsString::from)
    .collect();
    v.push("9".repeat(5000).into());
    v.push("4".repeat(20).into());
    v.push(" ".repeat(3000).into());
    v.push("\u{3000}".repeat(1000).into());
    // Not UTF-8: only the binary can be given these.
    v.push(OsString::from_vec(b"\xff4G".to_vec()));
    v.push(OsString::from_vec(b"4\xc0".to_vec()));
    v
}

/// Strings of random scalar values (a fixed LCG, so runs repeat): the
/// property part of the table. NUL cannot be an argument of exec.
fn random(count: usize, seed: u64) -> Vec<OsString> {
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state >> 33
    };
    (0..count)
        .map(|_| {
            let len = next() % 12;
            let s: String = (0..len)
                .map(|_| {
                    // Mostly digits, signs, dots, suffixes and spaces, some
                    // of any plane.
                    let pick = next();
                    match pick % 4 {
                        0 => char::from_u32((next() % 0x11_0000) as u32)
                            .filter(|&c| c != '\0')
                            .unwrap_or('\u{3000}'),
                        _ => b"0123456789 .+-eKMG"[(pick / 4 % 18) as usize] as char,
                    }
                })
                .collect();
            OsString::from(s)
        })
        .collect()
}

/// A subcommand's arguments around the flag under test: what it needs to
/// run, and the flags the tested one requires.
struct Case {
    before: Vec<String>,
    flag: &'static str,
    after: Vec<String>,
}

fn cases(dir: &Dir) -> Vec<Case> {
    let mut words = Words(30);
    let (text_a, text_b) = (words.text(40), words.text(40));
    let a = dir.write("a.txt", &text_a);
    let b = dir.write("b.txt", format!("{text_b} {text_a}"));
    let corpus = dir.write(
        "c.jsonl",
        format!(
            "{{\"id\":1,\"text\":\"{}\"}}\n{{\"id\":2,\"text\":\"{}\"}}\n",
            words.text(30),
            words.text(30)
        ),
    );
    let receipt = dir.path("r.json");
    let made = command(dir.root())
        .args(["compare", &a, &b, "--receipt", &receipt])
        .output()
        .unwrap();
    assert!(made.status.success());
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let out = dir.path("out");
    let mut all = Vec::new();
    let mut add = |before: Vec<String>, flags: &[&'static str], after: &[&str]| {
        for &flag in flags {
            all.push(Case {
                before: before.clone(),
                flag,
                after: s(after),
            });
        }
    };
    add(s(&["compare", &a, &b]), &["--k", "--n", "--max-size"], &[]);
    add(
        s(&["compare", &a, &b]),
        &["--max-passages", "--color"],
        &["--explain"],
    );
    add(
        s(&["verify", &receipt, &a, &b]),
        &["--max-size", "--sha256"],
        &[],
    );
    add(
        s(&["sign", &a]),
        &["--k", "--n", "--max-size", "--threads"],
        &[],
    );
    add(
        s(&["sign", "--jsonl", &corpus]),
        &["--id-field", "--text-field", "--threads"],
        &[],
    );
    add(s(&["normalize", &a]), &["--max-size"], &[]);
    add(
        s(&["scan", &corpus, "--pairs", &out]),
        &[
            "--threshold",
            "--memory",
            "--k",
            "--n",
            "--max-size",
            "--threads",
            "--id-field",
            "--text-field",
        ],
        &[],
    );
    add(
        s(&["scan", &corpus, "--pairs", &out]),
        &["--bands"],
        &["--rows", "4"],
    );
    add(
        s(&["scan", &corpus, "--pairs", &out]),
        &["--rows"],
        &["--bands", "32"],
    );
    all
}

/// Thread counts the table holds that are valid but would start tens of
/// thousands of threads: not what this test is about.
fn too_many_threads(flag: &str, value: &OsString) -> bool {
    flag == "--threads"
        && value
            .to_str()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .is_some_and(|n| n > 64)
}

#[test]
fn issue_30_no_argument_value_panics() {
    let dir = Dir::new();
    let cases = cases(&dir);
    let mut values = table();
    values.extend(random(40, 30));
    // Split over two threads: a few thousand short runs of the binary.
    let runs: usize = std::thread::scope(|s| {
        let half = cases.len() / 2;
        let (first, second) = cases.split_at(half);
        let jobs = [first, second].map(|part| {
            let (dir, values) = (&dir, &values);
            s.spawn(move || part.iter().map(|c| try_all(dir, c, values)).sum::<usize>())
        });
        jobs.into_iter().map(|j| j.join().unwrap()).sum()
    });
    assert!(runs > 2000, "{runs}");
}

/// Runs `case` with each of `values`; returns how many runs it made.
fn try_all(dir: &Dir, case: &Case, values: &[OsString]) -> usize {
    let mut runs = 0;
    for value in values {
        if too_many_threads(case.flag, value) {
            continue;
        }
        // `--flag=VALUE`: a value starting with '-' stays a value.
        let mut arg = OsString::from(format!("{}=", case.flag));
        arg.push(value);
        let o = command(dir.root())
            .args(&case.before)
            .arg(&arg)
            .args(&case.after)
            .env_remove("RUST_BACKTRACE")
            .output()
            .unwrap();
        runs += 1;
        let err = String::from_utf8_lossy(&o.stderr);
        let shown = format!(
            "{:?} {} {:?}: exit {:?}, stderr {err:?}",
            case.before,
            case.flag,
            value,
            o.status.code()
        );
        assert!(matches!(o.status.code(), Some(0..=2)), "{shown}");
        assert!(!err.contains("panicked"), "{shown}");
        if o.status.code() == Some(2) {
            // One line: the error, naming the flag or the input.
            assert_eq!(err.lines().count(), 1, "{shown}");
            assert!(err.starts_with("neardup: error: "), "{shown}");
        }
    }
    runs
}

/// A panic (a bug) prints one line naming the command and asking for a
/// report, exit 101; with `RUST_BACKTRACE` set, Rust's own report.
#[test]
fn a_panic_is_one_line_asking_for_a_report() {
    let dir = Dir::new();
    let a = dir.write("a.txt", "some text");
    let run = |backtrace: Option<&str>| {
        let mut c = command(dir.root());
        c.args(["normalize", &a]).env("NEARDUP_TEST_PANIC", "1");
        match backtrace {
            Some(v) => c.env("RUST_BACKTRACE", v),
            None => c.env_remove("RUST_BACKTRACE"),
        };
        let o = c.output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    for quiet in [None, Some("0")] {
        let (code, err) = run(quiet);
        assert_eq!(code, Some(101), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("neardup normalize: internal error: forced by NEARDUP_TEST_PANIC at ")
                && err.contains("please report it"),
            "{err}"
        );
    }
    let (code, err) = run(Some("1"));
    assert_eq!(code, Some(101));
    assert!(
        err.contains("panicked at") && err.contains("stack backtrace"),
        "{err}"
    );
}
