//! The fuzz targets on stable, in `cargo test`: CI's fuzzing. Each target
//! (its body in fuzz/src/, included here by path) runs on the inputs that
//! once crashed it (fuzz/regressions/TARGET/), on its seeds
//! (`fuzz/seeds.py`, made from vectors/ and the document fixtures), then
//! on a fixed number of mutants of those: bits and bytes flipped, random
//! bytes and tokens inserted, ranges removed or copied, cut short, two
//! inputs spliced, all drawn from a PRNG with a fixed seed, so every run
//! tries the same inputs. It finds what breaks near known inputs; the
//! coverage-guided search, for hours, is `scripts/fuzz` (nightly,
//! libFuzzer).
//!
//! A target that panics fails its test (one test a target) with the input
//! named: its file under fuzz/regressions/, or a copy written under
//! target/tmp/fuzz_replay/TARGET/, which `cargo fuzz run TARGET FILE`
//! replays under libFuzzer.

#[path = "../../../fuzz/src/lib.rs"]
mod fuzz;

use std::collections::BTreeMap;
use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// One test a target, each with its number of mutants: about a second of
/// a core each in the test profile, but `extract_pdf`'s (13 ms an input:
/// `lopdf` is unoptimized there), 6 s; the whole file about 20 s on two
/// busy cores.
macro_rules! targets {
    ($($name:ident: $mutants:expr,)*) => {
        /// Every target this file runs, checked against fuzz/Cargo.toml.
        const TARGETS: &[&str] = &[$(stringify!($name)),*];
        $(
            #[test]
            fn $name() {
                replay(stringify!($name), fuzz::$name, $mutants);
            }
        )*
    };
}

targets! {
    backends: 6_000,
    explain: 10_000,
    extract_docx: 30_000,
    extract_epub: 40_000,
    extract_html: 6_000,
    extract_odt: 25_000,
    extract_pdf: 450,
    extract_rtf: 2_500,
    jsonl: 30_000,
    normalize: 15_000,
    receipt: 300_000,
    record: 250_000,
}

/// The `-max_len` CI's libFuzzer runs had: room for the document fixtures
/// whole.
const MAX_LEN: usize = 64 << 10;

fn root() -> PathBuf {
    fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
}

/// An input and where it came from, as a failure names it.
struct Input {
    name: String,
    bytes: Vec<u8>,
    /// Its file in the repository, if it is one.
    file: Option<PathBuf>,
}

/// Runs `run` on the target's regressions and seeds, then on `mutants`
/// mutants of them; fails at the first input that panics.
fn replay(target: &str, run: fn(&[u8]), mutants: usize) {
    let regressions = regressions(target);
    // Regressions first: seeds.py copies them among the seeds too, and a
    // failure had better name the file in fuzz/regressions/.
    let seeds = seeds().get(target).into_iter().flatten();
    let inputs: Vec<&Input> = regressions.iter().chain(seeds).collect();
    assert!(!inputs.is_empty(), "fuzz target '{target}' has no seeds");
    for input in &inputs {
        check(target, run, input);
    }
    let mut rng = Rng::new(target);
    for i in 0..mutants {
        let base = inputs[rng.below(inputs.len())];
        let other = inputs[rng.below(inputs.len())];
        let mutant = Input {
            name: format!("mutant-{i}-of-{}", base.name),
            bytes: mutate(&mut rng, &base.bytes, &other.bytes),
            file: None,
        };
        check(target, run, &mutant);
    }
}

/// Runs `run` on `input`; if it panics, fails naming the target and a
/// file that holds the input.
fn check(target: &str, run: fn(&[u8]), input: &Input) {
    let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| run(&input.bytes))) else {
        return;
    };
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("(not a string)");
    let file = input.file.clone().unwrap_or_else(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("fuzz_replay")
            .join(target);
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join(&input.name);
        fs::write(&file, &input.bytes).unwrap();
        file
    });
    let file = file.display();
    panic!(
        "fuzz target '{target}' panicked on '{file}': {message}\n\
         replay it: cd fuzz && cargo fuzz run {target} {file}"
    );
}

/// Every target's seeds by target, made once a test run by
/// `fuzz/seeds.py`.
fn seeds() -> &'static BTreeMap<String, Vec<Input>> {
    static SEEDS: OnceLock<BTreeMap<String, Vec<Input>>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new("python3")
            .arg(root().join("fuzz/seeds.py"))
            .arg(dir.path())
            .output()
            .expect("running python3 fuzz/seeds.py");
        assert!(
            out.status.success(),
            "python3 fuzz/seeds.py failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut seeds = BTreeMap::new();
        for target in fs::read_dir(dir.path()).unwrap() {
            let target = target.unwrap();
            let name = target.file_name().into_string().unwrap();
            // The folder is deleted: a failure writes its seed out again.
            seeds.insert(name, read_dir(&target.path(), false));
        }
        seeds
    })
}

/// fuzz/regressions/TARGET/*: named by their file, which stays.
fn regressions(target: &str) -> Vec<Input> {
    let dir = root().join("fuzz/regressions").join(target);
    if !dir.exists() {
        return Vec::new();
    }
    read_dir(&dir, true)
}

/// The files of `dir` as inputs, in name order; a failure names the file
/// itself if it `stays`.
fn read_dir(dir: &Path, stays: bool) -> Vec<Input> {
    let mut files: Vec<Input> = fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            Input {
                name: path.file_name().unwrap().to_str().unwrap().to_owned(),
                bytes: fs::read(&path).unwrap(),
                file: stays.then_some(path),
            }
        })
        .collect();
    files.sort_by(|a, b| a.name.cmp(&b.name));
    files
}

/// Pieces that reach deeper than random bytes: JSON's syntax and numbers
/// at the integer limits, escapes (a lone surrogate among them);
/// characters whose lowercase is longer or that the spec treats apart
/// (whitespace, final sigma, the byte-order mark, the soft hyphen); bits
/// of HTML, PDF and RTF syntax.
#[rustfmt::skip]
const TOKENS: &[&str] = &[
    // JSON
    "\"", "\\", "{", "}", "[", "]", ":", ",", "\n", "\r\n", "\"id\":", "\"text\":",
    "null", "true", "-0", "1e400", "18446744073709551616", "-9223372036854775809",
    "\\u0000", "\\ud83c", "\\udfb1", "\\n",
    // Text
    "Ⱥ", "İ", "ẞ", "ς", "Σ", "\u{3000}", "\u{feff}", "\u{a0}", "\u{85}", "\u{200b}", "\u{ad}",
    // HTML, PDF, RTF
    "<", ">", "&amp;", "&#0;", "obj", "endobj", "stream", "xref", "\\par ", "{\\*", "\\'e9",
    "\\u-1?",
];

/// One mutant of `base`: one to four edits, each of libFuzzer's kinds in
/// small, at most `MAX_LEN` bytes. An edit an empty input cannot take
/// splices instead.
fn mutate(rng: &mut Rng, base: &[u8], other: &[u8]) -> Vec<u8> {
    let mut data = base.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(data.len() + 1);
        match rng.below(8) {
            // A bit flipped.
            0 if at < data.len() => data[at] ^= 1 << rng.below(8),
            // A byte replaced, often by one at a boundary.
            1 if at < data.len() => {
                data[at] = match rng.below(2) {
                    0 => [0, 0x7f, 0x80, 0xbf, 0xc0, 0xff][rng.below(6)],
                    _ => rng.byte(),
                }
            }
            // Random bytes inserted.
            2 => {
                let bytes: Vec<u8> = (0..1 + rng.below(16)).map(|_| rng.byte()).collect();
                data.splice(at..at, bytes);
            }
            // A token inserted.
            3 => {
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                data.splice(at..at, token.iter().copied());
            }
            // A range removed.
            4 => {
                let end = (at + 1 + rng.below(64)).min(data.len());
                data.drain(at..end);
            }
            // A range of the input copied elsewhere in it.
            5 if !data.is_empty() => {
                let from = rng.below(data.len());
                let end = (from + 1 + rng.below(64)).min(data.len());
                let copy = data[from..end].to_vec();
                data.splice(at..at, copy);
            }
            // Cut short.
            6 => data.truncate(at),
            // Spliced: this input's head, another's tail.
            _ => {
                let tail = &other[rng.below(other.len() + 1)..];
                data.truncate(at);
                data.extend_from_slice(tail);
            }
        }
    }
    data.truncate(MAX_LEN);
    data
}

/// xorshift64: the same mutants every run, a stream of its own for each
/// target.
struct Rng(u64);

impl Rng {
    fn new(target: &str) -> Rng {
        // FNV-1a of the name; never 0, xorshift's fixed point.
        let hash = target.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        Rng(hash | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// In `0..n`; `n` is not 0.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn byte(&mut self) -> u8 {
        self.next() as u8
    }
}

/// A new target in fuzz/Cargo.toml that this file does not run, or one
/// run here that is gone there, fails; so does a target whose
/// fuzz_targets/NAME.rs does not hand its input to `neardup_fuzz::NAME`
/// (its body would not be the one tested here), and a regressions folder
/// named after no target.
#[test]
fn every_fuzz_target_is_replayed() {
    let fuzz = root().join("fuzz");
    let manifest = fs::read_to_string(fuzz.join("Cargo.toml")).unwrap();
    let mut bins = Vec::new();
    let mut in_bin = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if let Some(name) = line.strip_prefix("name = ").filter(|_| in_bin) {
            bins.push(name.trim_matches('"').to_owned());
        }
    }
    bins.sort();
    let mut ours: Vec<&str> = TARGETS.to_vec();
    ours.sort_unstable();
    assert_eq!(
        bins, ours,
        "fuzz/Cargo.toml's [[bin]]s and this file's targets! list"
    );
    for bin in &bins {
        let path = fuzz.join("fuzz_targets").join(format!("{bin}.rs"));
        let source = fs::read_to_string(&path).unwrap();
        assert!(
            source.contains(&format!("neardup_fuzz::{bin}(data)")),
            "'{}' does not call neardup_fuzz::{bin}",
            path.display()
        );
    }
    for dir in fs::read_dir(fuzz.join("regressions")).unwrap() {
        let name = dir.unwrap().file_name().into_string().unwrap();
        assert!(
            TARGETS.contains(&name.as_str()),
            "fuzz/regressions/{name}: no such target"
        );
    }
}
