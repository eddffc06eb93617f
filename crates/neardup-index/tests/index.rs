//! The index against the core's whole scan, and every way it refuses a
//! damaged or foreign directory.

use std::path::Path;

use neardup::scan::{self, Plan};
use neardup::{Fingerprint, Params, Threshold};
use neardup_index::{Error, Index, Writer};

/// Documents with planted near-duplicates and exact copies: drawn from a
/// few base texts, a few words changed, some repeated whole.
fn corpus(len: usize, seed: u64) -> Vec<(String, Fingerprint)> {
    let words: Vec<String> = (0..60).map(|i| format!("w{i}")).collect();
    let mut x = seed;
    let mut next = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) as usize
    };
    let bases: Vec<Vec<&str>> = (0..8)
        .map(|_| (0..40).map(|_| words[next() % 60].as_str()).collect())
        .collect();
    (0..len)
        .map(|i| {
            let mut w = bases[next() % bases.len()].clone();
            for _ in 0..next() % 5 {
                let at = next() % w.len();
                w[at] = words[next() % 60].as_str();
            }
            if next() % 9 == 0 {
                w.truncate(2); // fewer than k words: no signature
            }
            let id = if i % 3 == 0 {
                format!("{}", i + 1000)
            } else {
                format!("\"doc {i}\"")
            };
            (
                id,
                Fingerprint::of(&w.join(" "), Params::new(3, 32).unwrap()),
            )
        })
        .collect()
}

fn plan(exact: bool) -> Plan {
    let p = Params::new(3, 32).unwrap();
    match exact {
        true => Plan::exact(p, Threshold::NEAR_DUPLICATE),
        false => Plan::new(p, Threshold::NEAR_DUPLICATE),
    }
}

fn fps(docs: &[(String, Fingerprint)]) -> Vec<Fingerprint> {
    docs.iter().map(|(_, f)| f.clone()).collect()
}

#[test]
fn every_add_answers_as_the_whole_scan_against_what_came_before() {
    for exact in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("idx");
        let plan = plan(exact);
        let docs = corpus(300, 7);
        let mut w = Writer::create(&path, &plan).unwrap();
        let mut before = 0;
        for size in [0, 50, 1, 120, 29, 100] {
            let batch = &docs[before..before + size];
            let got = w.index().query(&fps(batch)).unwrap();
            let whole = scan::run(&fps(&docs[..before + size]), before as u32, &plan).unwrap();
            assert_eq!(got.outcome, whole, "exact={exact}, after {before}");
            w.add(batch.to_vec()).unwrap();
            before += size;
        }
        assert!(w.index().verify().unwrap().is_empty());
        let segments = w.index().info().segments.len();
        assert_eq!(segments, 5);
        let probe = [corpus(40, 99), docs[..20].to_vec()].concat();
        let reopened = Index::open(&path).unwrap();
        let answer = reopened.query(&fps(&probe)).unwrap();
        let near = |p: &&scan::Pair| p.matches.is_some_and(|m| m < 32);
        assert!(
            answer.outcome.pairs.iter().filter(near).count() > 10,
            "the corpus plants near pairs"
        );
        assert!(
            answer.outcome.pairs.iter().any(|p| p.matches.is_none()),
            "and short identical texts"
        );
        assert_eq!(
            answer.outcome,
            scan::run(&fps(&[&docs[..], &probe].concat()), 300, &plan).unwrap()
        );
        for d in [0, 1, 150, 299] {
            assert_eq!(reopened.id(d), docs[d as usize].0);
            assert_eq!(reopened.fingerprint(d), docs[d as usize].1);
        }
        drop(w);
        let mut w = Writer::open(&path).unwrap();
        w.compact().unwrap();
        assert_eq!(w.index().info().segments.len(), 1);
        assert!(w.index().verify().unwrap().is_empty());
        assert_eq!(w.index().query(&fps(&probe)).unwrap(), answer);
        // The reader opened before the compaction still reads its mapping.
        assert_eq!(reopened.query(&fps(&probe)).unwrap(), answer);
    }
}

/// A query reads a bucket's documents 256 at a time: a bucket of 600
/// (texts of one repeated word, all one shingle, so one signature, but
/// distinct texts) gives every one of them, in a segment of its own and
/// after a compaction.
#[test]
fn a_bucket_of_more_than_256_documents_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idx");
    let plan = plan(false);
    let params = plan.params();
    let docs: Vec<(String, Fingerprint)> = (3..603)
        .map(|len| {
            (
                format!("{len}"),
                Fingerprint::of(&vec!["w"; len].join(" "), params),
            )
        })
        .collect();
    let mut w = Writer::create(&path, &plan).unwrap();
    w.add(docs[..10].to_vec()).unwrap();
    w.add(docs[10..].to_vec()).unwrap();
    let probe = vec![Fingerprint::of(&vec!["w"; 1000].join(" "), params)];
    let all: Vec<Fingerprint> = fps(&docs).into_iter().chain(probe.clone()).collect();
    let whole = scan::run(&all, 600, &plan).unwrap();
    assert_eq!(whole.pairs.len(), 600);
    assert_eq!(w.index().query(&probe).unwrap().outcome, whole);
    w.compact().unwrap();
    assert_eq!(
        Index::open(&path).unwrap().query(&probe).unwrap().outcome,
        whole
    );
}

fn built(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("idx");
    let docs = corpus(60, 3);
    let mut w = Writer::create(&path, &plan(false)).unwrap();
    w.add(docs[..30].to_vec()).unwrap();
    w.add(docs[30..].to_vec()).unwrap();
    path
}

fn message<T>(r: Result<T, Error>) -> String {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_second_writer_is_refused_and_readers_are_not() {
    let dir = tempfile::tempdir().unwrap();
    let path = built(dir.path());
    let w = Writer::open(&path).unwrap();
    let e = message(Writer::open(&path));
    assert!(e.contains("is being written by another process"), "{e}");
    Index::open(&path).unwrap();
    drop(w);
    Writer::open(&path).unwrap();
}

#[test]
fn damage_is_found_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = built(dir.path());
    let seg = path.join("seg-00000002.nds");
    let good = std::fs::read(&seg).unwrap();

    // A flipped byte in the body: a small segment is checked on open.
    let mut bad = good.clone();
    let at = good.len() - 9;
    bad[at] ^= 1;
    std::fs::write(&seg, &bad).unwrap();
    let e = message(Index::open(&path));
    assert!(
        e.contains("seg-00000002.nds' is damaged: its content does not match its checksum"),
        "{e}"
    );

    // A flipped byte in the header.
    let mut bad = good.clone();
    bad[20] ^= 1;
    std::fs::write(&seg, &bad).unwrap();
    assert!(message(Index::open(&path)).contains("header checksum"));

    std::fs::write(&seg, &good[..good.len() - 100]).unwrap();
    let e = message(Index::open(&path));
    assert!(e.contains("is truncated"), "{e}");

    std::fs::remove_file(&seg).unwrap();
    let e = message(Index::open(&path));
    assert!(e.contains("seg-00000002.nds"), "{e}");
    std::fs::write(&seg, &good).unwrap();
    Index::open(&path).unwrap().verify().unwrap();
}

#[test]
fn foreign_and_other_version_directories_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let e = message(Index::open(&dir.path().join("nope")));
    assert!(
        e.ends_with("no such index (the directory does not exist)"),
        "{e}"
    );
    let e = message(Index::open(dir.path()));
    assert!(
        e.contains("is not a neardup index: it has no MANIFEST"),
        "{e}"
    );
    assert!(!dir.path().join("LOCK").exists());
    let e = message(Writer::open(dir.path()));
    assert!(e.contains("is not a neardup index"), "{e}");
    assert!(
        !dir.path().join("LOCK").exists(),
        "a foreign directory is left untouched"
    );

    let path = built(dir.path());
    let manifest = std::fs::read_to_string(path.join("MANIFEST")).unwrap();
    std::fs::write(
        path.join("MANIFEST"),
        manifest.replace("\"version\": 1", "\"version\": 2"),
    )
    .unwrap();
    let e = message(Index::open(&path));
    assert!(
        e.contains("has format version 2; this neardup reads version 1"),
        "{e}"
    );
    std::fs::write(path.join("MANIFEST"), "{\"format\": \"something-else\"}").unwrap();
    assert!(message(Index::open(&path)).contains("is not a neardup index manifest"));
    let e = message(Writer::create(&path, &plan(false)));
    assert!(e.contains("is an index already"), "{e}");
}

#[test]
fn documents_that_do_not_fit_are_refused_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = built(dir.path());
    let before = std::fs::read(path.join("MANIFEST")).unwrap();
    let mut w = Writer::open(&path).unwrap();
    let other = Fingerprint::of("a b c d e f", Params::DEFAULT);
    let e = message(w.add(vec![("\"new\"".into(), other)]));
    assert!(e.contains("was signed with k=5, n=128, but index"), "{e}");
    let again = corpus(1, 3).remove(0);
    let e = message(w.add(vec![again]));
    assert!(
        e.starts_with("duplicate id 1000: document 0 of index"),
        "{e}"
    );
    let fp = corpus(1, 5).remove(0).1;
    let e = message(w.add(vec![("\"x\"".into(), fp.clone()), ("\"x\"".into(), fp)]));
    assert!(
        e.contains("duplicate id \"x\" among the new documents"),
        "{e}"
    );
    assert_eq!(std::fs::read(path.join("MANIFEST")).unwrap(), before);
    assert!(w.index().verify().unwrap().is_empty());
}

/// A segment whose body is damaged but whose checksums were made to match
/// it (as a bug or a hand edit could): opening, querying, reading every
/// document and verifying must answer or refuse, never panic.
mod damaged_content {
    use super::*;
    use proptest::prelude::*;
    use std::hash::Hasher;

    /// Rewrites the header's and the manifest's checksums for `seg`.
    fn reseal(idx: &Path, file: &str) {
        let path = idx.join(file);
        let mut b = std::fs::read(&path).unwrap();
        let mut h = twox_hash::XxHash3_64::with_seed(0);
        h.write(&b[128..]);
        let body = h.finish();
        b[64..72].copy_from_slice(&body.to_le_bytes());
        let head = twox_hash::XxHash3_64::oneshot(&b[..120]);
        b[120..128].copy_from_slice(&head.to_le_bytes());
        std::fs::write(&path, &b).unwrap();
        let m = std::fs::read_to_string(idx.join("MANIFEST")).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&m).unwrap();
        for s in v["segments"].as_array_mut().unwrap() {
            if s["file"] == file {
                s["xxh3"] = format!("{body:016x}").into();
            }
        }
        std::fs::write(idx.join("MANIFEST"), serde_json::to_string(&v).unwrap()).unwrap();
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn never_panics(flips in proptest::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..8)) {
            let dir = tempfile::tempdir().unwrap();
            let path = built(dir.path());
            let seg = path.join("seg-00000002.nds");
            let mut b = std::fs::read(&seg).unwrap();
            for (at, x) in &flips {
                let i = 128 + at.index(b.len() - 128);
                b[i] ^= x;
            }
            std::fs::write(&seg, &b).unwrap();
            reseal(&path, "seg-00000002.nds");
            if let Ok(index) = Index::open(&path) {
                let probe = corpus(40, 3);
                let _ = index.query(&fps(&probe));
                for d in 0..index.len() {
                    let _ = (index.id(d), index.fingerprint(d), index.find_id(index.id(d)));
                }
                let _ = index.verify();
            }
        }
    }
}
