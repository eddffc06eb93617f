//! `vectors/` is a copy of the shared contract in `../shared/vectors`; a copy
//! that drifts would let every suite pass against stale expectations, so the
//! two folders are compared byte for byte whenever the shared one exists.

use std::path::{Path, PathBuf};

/// `../shared/vectors`, beside the checkout (present on a developer's
/// machine, absent on a fresh clone).
pub fn shared_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/vectors")
}

/// Every difference between the folders `ours` and `shared`, one line per
/// file: missing on either side, or with other bytes. Empty when they are
/// the same.
pub fn differences(ours: &Path, shared: &Path) -> Vec<String> {
    let (mine, theirs) = (files(ours), files(shared));
    let mut out = Vec::new();
    for rel in &theirs {
        match (
            std::fs::read(ours.join(rel)),
            std::fs::read(shared.join(rel)),
        ) {
            (Err(_), _) => out.push(format!("{} is missing", rel.display())),
            (Ok(a), Ok(b)) if a == b => {}
            _ => out.push(format!("{} differs", rel.display())),
        }
    }
    for rel in mine.iter().filter(|r| !theirs.contains(r)) {
        out.push(format!("{} is not in the shared vectors", rel.display()));
    }
    out
}

/// The files under `dir`, relative to it, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_drift_is_named() {
        let (ours, shared) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for d in [&ours, &shared] {
            std::fs::create_dir(d.path().join("texts")).unwrap();
            std::fs::write(d.path().join("compare.json"), "[]").unwrap();
            std::fs::write(d.path().join("texts/a.txt"), "a").unwrap();
        }
        assert_eq!(
            differences(ours.path(), shared.path()),
            Vec::<String>::new()
        );

        std::fs::write(ours.path().join("texts/a.txt"), "A").unwrap();
        std::fs::write(shared.path().join("normalize.json"), "[]").unwrap();
        std::fs::write(ours.path().join("extra.json"), "[]").unwrap();
        assert_eq!(
            differences(ours.path(), shared.path()),
            [
                "normalize.json is missing",
                "texts/a.txt differs",
                "extra.json is not in the shared vectors"
            ]
        );
    }
}
