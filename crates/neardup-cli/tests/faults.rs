//! Fault injection for `neardup scan`, end to end: a full temp dir, SIGKILL
//! at random points, spilled runs damaged before their merge, outputs that
//! cannot be written. Each fault must end in a clear error (or no error at
//! all) and never in a partial output or wrong pairs.
//!
//! Mounting a tmpfs needs root; the tests that need one print why they are
//! skipped when the mount fails.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::util::*;

/// Asserts that `dir` holds nothing.
#[track_caller]
fn assert_empty(dir: &Path) {
    assert_eq!(
        names(dir),
        Vec::<String>::new(),
        "{} is not empty",
        dir.display()
    );
}

#[test]
fn a_full_temp_dir_fails_naming_it_and_leaves_nothing() {
    let dir = Dir::new();
    let root = dir.root();
    // 8,000 documents × 25 bands × 16 bytes: 3.2 MB of band records, more
    // than the 2 MB the temp dir holds.
    write_jsonl(&root.join("c.jsonl"), &docs(8_000, 30, 1));
    let tmp = root.join("tmp");
    let _mount = match Mount::tmpfs(&tmp, "size=2M") {
        Ok(m) => m,
        Err(why) => {
            eprintln!("skipped a_full_temp_dir_fails_naming_it_and_leaves_nothing: {why}");
            return;
        }
    };
    std::fs::create_dir(root.join("out")).unwrap();
    let o = neardup_in(
        root,
        &[
            "scan",
            "c.jsonl",
            "--temp-dir",
            "tmp",
            "--memory",
            "64K",
            "--pairs",
            "out/p.jsonl",
            "--clusters",
            "out/c.jsonl",
        ],
    );
    assert_error(&o, 2, "in 'tmp': no space left on device");
    let err = stderr(&o);
    assert!(err.contains("writing the temp run "), "{err}");
    assert_empty(&root.join("out"));
    assert_empty(&tmp);
}

#[test]
fn a_damaged_run_is_refused_before_any_output() {
    let dir = Dir::new();
    let root = dir.root();
    write_jsonl(&root.join("c.jsonl"), &docs(600, 200, 2));
    std::fs::create_dir_all(root.join("tmp")).unwrap();
    let scan = |damage: Option<&str>| {
        let mut cmd = command(root);
        cmd.args([
            "scan",
            "c.jsonl",
            "--temp-dir",
            "tmp",
            "--memory",
            "16K",
            "--pairs",
            "p.jsonl",
            "-q",
        ]);
        if let Some(d) = damage {
            cmd.env("NEARDUP_TEST_CORRUPT_RUN", d);
        }
        cmd.output().unwrap()
    };
    let o = scan(None);
    let clean = ok(&o);
    assert!(clean.is_empty(), "{clean}");
    let pairs = read(root.join("p.jsonl"));
    assert!(pairs.lines().count() >= 150, "{pairs}");
    assert_eq!(
        std::fs::metadata(root.join("tmp"))
            .map(|_| names(root.join("tmp")).len())
            .unwrap(),
        0
    );
    std::fs::remove_file(root.join("p.jsonl")).unwrap();
    // The signatures take more than the 16K budget, so records get its
    // last quarter: run 0 is 256 records (4,096 bytes), then the trailer,
    // its count at 4,096 and its checksum at 4,104. Damage a key in the
    // middle, a doc number, the checksum, the count, or cut the file short.
    for (damage, needle) in [
        ("flip:2000", "its checksum does not match"),
        ("flip:12", "its checksum does not match"),
        ("flip:4106", "its checksum does not match"),
        ("flip:4098", "do not hold the"),
        ("truncate:4000", "do not hold the"),
        ("truncate:4096", "do not hold the"),
        ("truncate:0", "do not hold the"),
    ] {
        let o = scan(Some(damage));
        assert_error(&o, 2, needle);
        let err = stderr(&o);
        assert!(
            err.contains("the temp run 0 in 'tmp' is corrupt"),
            "{damage}: {err}"
        );
        assert!(!root.join("p.jsonl").exists(), "{damage}");
        assert_empty(&root.join("tmp"));
    }
}

#[test]
fn unwritable_outputs_fail_before_any_work() {
    let dir = Dir::new();
    let root = dir.root();
    std::fs::create_dir(root.join("adir")).unwrap();
    std::fs::write(root.join("afile"), "x").unwrap();
    // The input does not exist: an error about the output proves that the
    // outputs were checked before the input was read.
    for (args, needle) in [
        (
            vec!["--pairs", "adir"],
            "writing 'adir': it is a directory, not a file",
        ),
        (
            vec!["--write-deduped", "adir"],
            "writing 'adir': it is a directory, not a file",
        ),
        (vec!["--receipts", "afile"], "creating 'afile': "),
        (
            vec!["--pairs", "p.jsonl", "--temp-dir", "nowhere"],
            "creating a temp file in 'nowhere': no such file or directory (see --temp-dir)",
        ),
    ] {
        let mut all = vec!["scan", "missing.jsonl"];
        all.extend(args);
        assert_error(&neardup_in(root, &all), 2, needle);
    }
    assert_eq!(names(root), ["adir", "afile"]);
    assert_empty(&root.join("adir"));

    // A read-only directory. Root writes through mode 0555, so it takes a
    // read-only mount to refuse root.
    let ro = root.join("ro");
    let mount = Mount::tmpfs(&ro, "ro,size=64K");
    if let Err(why) = &mount {
        std::fs::create_dir_all(&ro).unwrap();
        set_mode(&ro, 0o555);
        if std::fs::write(ro.join("probe"), "").is_ok() {
            eprintln!("skipped the read-only directory case: {why}, and mode 0555 does not stop this user");
            return;
        }
    }
    assert_error(
        &neardup_in(root, &["scan", "missing.jsonl", "--pairs", "ro/p.jsonl"]),
        2,
        "writing 'ro/p.jsonl': ",
    );
    assert_error(
        &neardup_in(
            root,
            &[
                "scan",
                "missing.jsonl",
                "--pairs",
                "p.jsonl",
                "--receipts",
                "ro/r",
            ],
        ),
        2,
        "creating 'ro/r': ",
    );
    assert_empty(&ro);
    drop(mount);
    set_mode(&ro, 0o755);
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Every file under `dir`, `name -> bytes`, receipts included, and every
/// directory as `name/` with no bytes.
fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for name in names(dir) {
        let path = dir.join(&name);
        if path.is_dir() {
            out.push((format!("{name}/"), Vec::new()));
            for (inner, bytes) in outputs(&path) {
                out.push((format!("{name}/{inner}"), bytes));
            }
        } else {
            out.push((name, std::fs::read(path).unwrap()));
        }
    }
    out
}

/// Issue 26: a SIGKILLed scan leaves nothing behind. Killed 20 times at
/// random points while it spills runs (a 256K budget for 1.2 MB of band
/// records) and writes outputs, it must leave nothing but complete
/// outputs: no file in `--temp-dir`, none in `TMPDIR`, and nothing in the
/// output directories but the outputs of a complete run, byte for byte.
#[test]
fn sigkill_at_random_points_leaves_nothing_behind() {
    let dir = Dir::new();
    let root = dir.root();
    write_jsonl(&root.join("c.jsonl"), &docs(3_000, 200, 3));
    std::fs::create_dir(root.join("tmp")).unwrap();
    std::fs::create_dir(root.join("tmpdir")).unwrap();
    let command = |root: &Path| {
        let mut cmd = command(root);
        cmd.env("TMPDIR", root.join("tmpdir"));
        cmd
    };
    let args = |out: &str| -> Vec<String> {
        let mut v: Vec<String> = [
            "scan",
            "c.jsonl",
            "--temp-dir",
            "tmp",
            "--memory",
            "256K",
            "-q",
        ]
        .map(String::from)
        .to_vec();
        for (flag, file) in [
            ("--pairs", "pairs.jsonl"),
            ("--clusters", "clusters.jsonl"),
            ("--keep-list", "keep.txt"),
            ("--drop-list", "drop.txt"),
            ("--write-deduped", "deduped.jsonl.gz"),
            ("--receipts", "receipts"),
        ] {
            v.push(flag.into());
            v.push(format!("{out}/{file}"));
        }
        v
    };
    std::fs::create_dir(root.join("ref")).unwrap();
    ok(&command(root).args(args("ref")).output().unwrap());
    let want: std::collections::BTreeMap<String, Vec<u8>> =
        outputs(&root.join("ref")).into_iter().collect();
    assert!(
        want.len() > 900,
        "receipts expected, got {} files",
        want.len()
    );
    // How long a run takes now, warm, with no outputs yet: kills land in
    // its first 90%.
    std::fs::create_dir(root.join("warm")).unwrap();
    let start = Instant::now();
    ok(&command(root).args(args("warm")).output().unwrap());
    let took = start.elapsed();

    let out = root.join("out");
    let tmp = root.join("tmp");
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut killed_running = 0;
    let mut killed_spilling = 0;
    let mut killed_writing = 0;
    for round in 0..20 {
        // Every other round starts with no outputs; the others keep what
        // the rounds before left, as a rerun after a crash would.
        if round % 2 == 0 {
            let _ = std::fs::remove_dir_all(&out);
        }
        std::fs::create_dir_all(&out).unwrap();
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let delay = took.mul_f64(((seed >> 33) % 900) as f64 / 1000.0);
        let mut child = command(root).args(args("out")).spawn().unwrap();
        let pid = child.id();
        // A third of the kills land anywhere in the run, a third while it
        // holds spilled runs open, a third while it writes outputs (an
        // unnamed output file with bytes in it), each a few random
        // microseconds after it is seen there.
        let aimed = match round % 3 {
            0 => {
                std::thread::sleep(delay);
                false
            }
            1 => wait_for(&mut child, || open_files_in(pid, &tmp).next().is_some()),
            _ => wait_for(&mut child, || open_files_in(pid, &out).any(|len| len > 0)),
        };
        std::thread::sleep(Duration::from_micros((seed >> 40) % 2_000));
        if child.try_wait().unwrap().is_none() {
            killed_running += 1;
            killed_spilling += usize::from(aimed && round % 3 == 1);
            killed_writing += usize::from(aimed && round % 3 == 2);
        }
        let _ = child.kill();
        child.wait().unwrap();
        assert_empty(&root.join("tmp"));
        assert_empty(&root.join("tmpdir"));
        for (name, bytes) in outputs(&out) {
            let reference = want
                .get(&name)
                .unwrap_or_else(|| panic!("round {round}: unexpected output {name}"));
            assert!(
                &bytes == reference,
                "round {round}, killed after {delay:?}: {name} is partial ({} of {} bytes)",
                bytes.len(),
                reference.len()
            );
        }
    }
    eprintln!(
        "sigkill: {killed_running} of 20 kills hit a running scan, {killed_spilling} of 7 aimed at its spilling, {killed_writing} of 6 at its writing (a full run took {:.2} s)",
        took.as_secs_f64()
    );
    assert!(
        killed_running >= 10,
        "only {killed_running} kills hit a running scan"
    );
    assert!(
        killed_spilling >= 4,
        "{killed_spilling} kills hit a spilling scan"
    );
    assert!(
        killed_writing >= 3,
        "{killed_writing} kills hit a scan writing"
    );
    assert_eq!(
        names(root),
        ["c.jsonl", "out", "ref", "tmp", "tmpdir", "warm"]
    );
}

/// The lengths of the files process `pid` has open under `dir`: an
/// unnamed file shows in `/proc/PID/fd` as `DIR/#INODE (deleted)`, and its
/// length is the length of the file that link opens.
fn open_files_in(pid: u32, dir: &Path) -> impl Iterator<Item = u64> + '_ {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .into_iter()
        .flatten()
        .filter_map(move |fd| {
            let fd = fd.ok()?.path();
            let target = std::fs::read_link(&fd).ok()?;
            target
                .starts_with(dir)
                .then(|| std::fs::metadata(&fd).ok())?
        })
        .map(|m| m.len())
}

/// Polls until `seen` holds, for at most 30 s; false if the child ended
/// first.
fn wait_for(child: &mut std::process::Child, mut seen: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(30) {
        if seen() {
            return true;
        }
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    false
}
