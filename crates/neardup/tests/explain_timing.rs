//! How long `explain` takes on two 10 MB documents (issue 6: under 2 s on
//! one core). Ignored by default; run it on a release build:
//!
//! ```text
//! cargo test --release -p neardup --test explain_timing -- --ignored --nocapture
//! ```

use std::time::Instant;

use neardup::{explain, Params};

/// A small deterministic generator (xorshift64*), so that every run times
/// the same texts.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Sentences of pseudo-words from a 20 000-word vocabulary, in paragraphs.
fn paragraphs(rng: &mut Rng, bytes: usize, non_ascii: bool) -> Vec<Vec<String>> {
    const SYLLABLES: [&str; 16] = [
        "ka", "ro", "mi", "te", "su", "lan", "dor", "vi", "ne", "sta", "pe", "lu", "ga", "fi",
        "ho", "ze",
    ];
    let vocab: Vec<String> = (0..20_000)
        .map(|i| {
            let mut w: String = (0..2 + i % 3)
                .map(|j| SYLLABLES[(i >> (4 * j)) % 16])
                .collect();
            if non_ascii && i % 7 == 0 {
                w.push_str("ΣÉİ");
            }
            w
        })
        .collect();
    let (mut out, mut size) = (Vec::new(), 0);
    while size < bytes {
        let para: Vec<String> = (0..3 + rng.below(6))
            .map(|_| {
                let n = 6 + rng.below(20);
                let words: Vec<&str> = (0..n)
                    .map(|_| vocab[rng.below(vocab.len())].as_str())
                    .collect();
                format!("{}.", words.join(" "))
            })
            .collect();
        size += para.iter().map(|s| s.len() + 1).sum::<usize>() + 2;
        out.push(para);
    }
    out
}

fn join(paragraphs: &[Vec<String>]) -> String {
    paragraphs
        .iter()
        .map(|p| p.join(" "))
        .collect::<Vec<_>>()
        .join("\r\n\r\n")
}

/// A, and B: A's paragraphs with a third of the sentences rewritten and one
/// paragraph in ten moved elsewhere.
fn pair(non_ascii: bool) -> (String, String) {
    let mut rng = Rng(0x6e65_6172_6475_7021);
    let a = paragraphs(&mut rng, 10 << 20, non_ascii);
    let fresh = paragraphs(&mut rng, 4 << 20, non_ascii);
    let mut fresh = fresh.into_iter().flatten();
    let mut b = a.clone();
    for p in &mut b {
        for s in p.iter_mut() {
            if rng.below(3) == 0 {
                if let Some(f) = fresh.next() {
                    *s = f.to_uppercase();
                }
            }
        }
    }
    for i in (0..b.len()).step_by(10) {
        let j = rng.below(b.len());
        b.swap(i, j);
    }
    (join(&a), join(&b))
}

/// Seconds this thread has spent on a CPU (Linux), so that a busy shared
/// machine does not count its neighbours' work as ours.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// The best of three runs: (wall seconds, CPU seconds or NaN).
fn best_of_3(f: impl Fn() -> neardup::Evidence) -> (String, neardup::Evidence) {
    let (mut wall, mut cpu) = (f64::INFINITY, f64::INFINITY);
    let mut e = None;
    for _ in 0..3 {
        let (start, cpu_start) = (Instant::now(), cpu_seconds());
        e = Some(f());
        wall = wall.min(start.elapsed().as_secs_f64());
        if let (Some(s), Some(t)) = (cpu_start, cpu_seconds()) {
            cpu = cpu.min(t - s);
        }
    }
    let took = format!("{wall:.3} s wall, {cpu:.3} s CPU (best of 3)");
    (took, e.unwrap())
}

fn time(non_ascii: bool) {
    let (a, b) = pair(non_ascii);
    let (took, e) = best_of_3(|| explain(&a, &b, Params::DEFAULT).unwrap());
    println!(
        "explain, {} A = {:.1} MB, B = {:.1} MB: {}; {} passages, coverage A {:.1}%, B {:.1}%",
        if non_ascii { "non-ASCII" } else { "ASCII" },
        a.len() as f64 / 1e6,
        b.len() as f64 / 1e6,
        took,
        e.passages.len(),
        100.0 * e.coverage_a,
        100.0 * e.coverage_b,
    );
    assert!(e.passages.len() > 1000);
}

#[test]
#[ignore = "a measurement: run with --release --ignored --nocapture"]
fn explain_two_10_mb_documents() {
    time(false);
    time(true);
    // The worst case for naive matching: one word, repeated.
    let (a, b) = ("la ".repeat((10 << 20) / 3), "la ".repeat((5 << 20) / 3));
    let (took, e) = best_of_3(|| explain(&a, &b, Params::DEFAULT).unwrap());
    println!(
        "explain, one word repeated, A = {:.1} MB, B = {:.1} MB: {}; {} passages",
        a.len() as f64 / 1e6,
        b.len() as f64 / 1e6,
        took,
        e.passages.len()
    );
}
