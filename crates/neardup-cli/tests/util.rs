//! The harness every end-to-end test uses: running the built binary,
//! temp dirs, and the output contract (exit code, stdout, one stderr line).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// The repository root, where relative paths in the README resolve.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A file under `tests/data`.
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

/// The built binary, run from `dir` with stdin closed: the base of every run,
/// for the tests that set environment variables or spawn it.
pub fn command(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_neardup"));
    cmd.current_dir(dir).stdin(Stdio::null());
    cmd
}

/// `neardup ARGS`, run from the repository root.
pub fn neardup(args: &[&str]) -> Output {
    neardup_in(&repo(), args)
}

/// `neardup ARGS`, run from `dir`.
pub fn neardup_in(dir: &Path, args: &[&str]) -> Output {
    command(dir).args(args).output().unwrap()
}

/// `neardup ARGS`, run from the repository root with `stdin` on its stdin.
pub fn neardup_stdin(args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = command(&repo())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Asserts success and returns stderr (where scan's summary goes).
#[track_caller]
pub fn ok(o: &Output) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(0), "stderr: {err}");
    err
}

/// Asserts success and returns stdout.
#[track_caller]
pub fn ok_stdout(o: &Output) -> String {
    ok(o);
    stdout(o)
}

/// Asserts success and parses stdout as one JSON value.
#[track_caller]
pub fn json_of(o: &Output) -> Value {
    ok(o);
    serde_json::from_str(&stdout(o)).unwrap()
}

/// Asserts the error contract: the exit code, nothing on stdout, and one
/// stderr line that contains `needle`.
#[track_caller]
pub fn assert_error(o: &Output, code: i32, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "stderr: {err}");
    assert!(
        o.stdout.is_empty(),
        "no partial output expected, got {:?}",
        stdout(o)
    );
    assert_eq!(
        err.lines().count(),
        1,
        "one-line error expected, got {err:?}"
    );
    assert!(err.contains(needle), "{err:?} should contain {needle:?}");
}

pub fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// The lines of a JSONL file, parsed.
pub fn jsonl(path: impl AsRef<Path>) -> Vec<Value> {
    read(path)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A temp dir, removed when dropped; paths come back as strings, ready to be
/// arguments.
pub struct Dir(tempfile::TempDir);

impl Dir {
    pub fn new() -> Dir {
        Dir(tempfile::tempdir().unwrap())
    }

    pub fn root(&self) -> &Path {
        self.0.path()
    }

    pub fn path(&self, name: &str) -> String {
        self.root().join(name).to_str().unwrap().to_owned()
    }

    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> String {
        let p = self.path(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

/// A deterministic word stream (an LCG), so corpora need no RNG crate.
pub struct Words(pub u64);

impl Words {
    pub fn next(&mut self) -> String {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        format!("w{}", (self.0 >> 33) % 20_000)
    }

    pub fn text(&mut self, words: usize) -> String {
        (0..words)
            .map(|_| self.next())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Writes `{"id","text"}` lines.
pub fn write_jsonl(path: &Path, docs: &[(String, String)]) {
    let mut s = String::new();
    for (id, text) in docs {
        s += &serde_json::json!({"id": id, "text": text}).to_string();
        s.push('\n');
    }
    std::fs::write(path, s).unwrap();
}

/// The names in a directory, sorted.
pub fn names(dir: impl AsRef<Path>) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A tmpfs mounted on a directory, unmounted when dropped.
pub struct Mount(PathBuf);

impl Mount {
    /// Mounts a tmpfs with `options` on `dir` (made if needed), or says why
    /// it could not.
    pub fn tmpfs(dir: &Path, options: &str) -> Result<Mount, String> {
        std::fs::create_dir_all(dir).unwrap();
        let o = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(dir)
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !o.status.success() {
            return Err(format!(
                "mount -t tmpfs failed: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            ));
        }
        Ok(Mount(dir.to_owned()))
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// `count` documents of `words` words, every third one a near copy (two
/// words changed) of the one before, so that scans find pairs.
pub fn docs(count: usize, words: usize, seed: u64) -> Vec<(String, String)> {
    let mut w = Words(seed);
    let mut docs: Vec<(String, String)> = Vec::with_capacity(count);
    for i in 0..count {
        let text = if i % 3 == 2 {
            let mut v: Vec<String> = docs[i - 1].1.split(' ').map(str::to_owned).collect();
            v[words / 3] = w.next();
            v[2 * words / 3] = w.next();
            v.join(" ")
        } else {
            w.text(words)
        };
        docs.push((format!("d{i}"), text));
    }
    docs
}
