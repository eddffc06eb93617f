//! Containment: how much of one document's shingle set is found in the
//! other's, the measure plagiarism tools report.
//!
//! Jaccard asks how alike two *whole* documents are; when part of a long
//! source is copied into a short essay it stays near `|copied| / |source|`,
//! small, although most of the essay is copied. Containment asks the
//! question a reader has: `|SA ∩ SB| / |SA|`, the share of A's distinct
//! shingles (SPEC §2) found in B, and the same for B. It is evidence
//! beside the receipt, never part of it: receipts and verdicts ignore it.

use std::fmt::Write as _;

use serde::ser::{Serialize, SerializeStruct, Serializer};

use crate::Threshold;

/// The shingles two documents share, and each one's number of distinct
/// shingles: every containment figure follows from these three integers.
///
/// ```
/// use neardup::{Containment, ShingleSet, Threshold};
/// let a = ShingleSet::new("a b c d", 2); // ab bc cd
/// let b = ShingleSet::new("x a b c d e f g h", 2); // 8 shingles, ab bc cd among them
/// let c = a.containment(&b);
/// assert_eq!((c.shared, c.sizes), (3, [3, 8]));
/// assert_eq!((c.a_in_b(), c.b_in_a()), (Some(1.0), Some(0.375)));
/// assert!(c.reaches("0.9".parse::<Threshold>()?));
/// assert_eq!(c.to_string(), "A in B 100.0%, B in A 37.5% (3 shared shingles)");
/// # Ok::<(), neardup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Containment {
    /// `|SA ∩ SB|`.
    pub shared: u64,
    /// `[|SA|, |SB|]`.
    pub sizes: [u64; 2],
}

impl Containment {
    /// `shared` of `sizes`.
    pub fn new(shared: u64, sizes: [u64; 2]) -> Containment {
        Containment { shared, sizes }
    }

    /// `shared / |SA|`: how much of A is found in B; `None` when A has no
    /// shingles, where it is undefined.
    pub fn a_in_b(&self) -> Option<f64> {
        self.share(0)
    }

    /// `shared / |SB|`: how much of B is found in A.
    pub fn b_in_a(&self) -> Option<f64> {
        self.share(1)
    }

    fn share(&self, side: usize) -> Option<f64> {
        let size = self.sizes[side];
        (size > 0).then(|| self.shared as f64 / size as f64)
    }

    /// The exact Jaccard similarity `|A ∩ B| / |A ∪ B|`, `None` when both
    /// sets are empty.
    pub fn jaccard(&self) -> Option<f64> {
        let union = self.sizes[0] + self.sizes[1] - self.shared;
        (union > 0).then(|| self.shared as f64 / union as f64)
    }

    /// Whether either direction reaches `t`: `shared / min(|SA|, |SB|) ≥ t`,
    /// decided in integers, so that no float rounding picks a pair. A
    /// document without shingles is contained in nothing.
    pub fn reaches(&self, t: Threshold) -> bool {
        let smaller = self.sizes[0].min(self.sizes[1]);
        smaller > 0 && reaches(self.shared, smaller, t)
    }

    /// The side most contained in the other: 0 for A, 1 for B, and `None`
    /// when neither has shingles. On a tie (equal sizes), A.
    pub fn most_contained(&self) -> Option<usize> {
        match self.sizes {
            [0, 0] => None,
            [a, b] if b == 0 || (a > 0 && a <= b) => Some(0),
            _ => Some(1),
        }
    }

    /// The JSON object `{"a_in_b":…,"b_in_a":…,"shared":…}` appended to
    /// `out`, each share as the shortest decimal that reads back as the
    /// same double (`0.5`, `1`), as `--pairs` lines write numbers.
    ///
    /// ```
    /// let mut out = String::new();
    /// neardup::Containment::new(3, [4, 0]).write_json(&mut out);
    /// assert_eq!(out, r#"{"a_in_b":0.75,"b_in_a":null,"shared":3}"#);
    /// ```
    pub fn write_json(&self, out: &mut String) {
        let share = |x: Option<f64>| x.map_or_else(|| "null".to_owned(), |x| x.to_string());
        let _ = write!(
            out,
            r#"{{"a_in_b":{},"b_in_a":{},"shared":{}}}"#,
            share(self.a_in_b()),
            share(self.b_in_a()),
            self.shared
        );
    }
}

/// `shared / size ≥ t`, in integers: `10000·shared ≥ bp·size`.
pub(crate) fn reaches(shared: u64, size: u64, t: Threshold) -> bool {
    10_000 * u128::from(shared) >= u128::from(t.basis_points()) * u128::from(size)
}

/// The fewest shared shingles that make a document of `size` shingles
/// reach `t`: `⌈t·size⌉`, at least 1.
pub(crate) fn needed(size: u64, t: Threshold) -> u64 {
    let bp = u128::from(t.basis_points());
    ((bp * u128::from(size)).div_ceil(10_000) as u64).max(1)
}

/// `A in B 36.4%, B in A 4.6% (254 shared shingles)`, as `neardup compare`
/// prints it; a side without shingles reads `undefined`.
impl std::fmt::Display for Containment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pct =
            |x: Option<f64>| x.map_or_else(|| "undefined".into(), |x| format!("{:.1}%", 100.0 * x));
        let s = if self.shared == 1 { "" } else { "s" };
        write!(
            f,
            "A in B {}, B in A {} ({} shared shingle{s})",
            pct(self.a_in_b()),
            pct(self.b_in_a()),
            self.shared
        )
    }
}

/// `{"a_in_b": …, "b_in_a": …, "shared": …}`: the object of `compare
/// --json`, Python's `to_json()` and the page.
impl Serialize for Containment {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Containment", 3)?;
        s.serialize_field("a_in_b", &self.a_in_b())?;
        s.serialize_field("b_in_a", &self.b_in_a())?;
        s.serialize_field("shared", &self.shared)?;
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Threshold {
        s.parse().unwrap()
    }

    #[test]
    fn thresholds_are_decided_in_integers() {
        // 0.3 of 10 is exactly 3, which a float product misses (2.9999…).
        assert!(Containment::new(3, [10, 100]).reaches(t("0.3")));
        assert!(!Containment::new(2, [10, 100]).reaches(t("0.3")));
        assert_eq!(needed(10, t("0.3")), 3);
        assert_eq!(needed(7, t("0.5")), 4);
        assert_eq!(needed(1, t("0.0001")), 1);
        assert!(!Containment::new(0, [0, 5]).reaches(t("0.0001")));
    }

    #[test]
    fn the_most_contained_side_is_the_smaller_one() {
        assert_eq!(Containment::new(2, [3, 9]).most_contained(), Some(0));
        assert_eq!(Containment::new(2, [9, 3]).most_contained(), Some(1));
        assert_eq!(Containment::new(2, [3, 3]).most_contained(), Some(0));
        assert_eq!(Containment::new(0, [0, 3]).most_contained(), Some(1));
        assert_eq!(Containment::new(0, [0, 0]).most_contained(), None);
    }

    #[test]
    fn json_and_text() {
        let c = Containment::new(1, [4, 1]);
        let v = serde_json::to_value(c).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"a_in_b": 0.25, "b_in_a": 1.0, "shared": 1})
        );
        assert_eq!(
            c.to_string(),
            "A in B 25.0%, B in A 100.0% (1 shared shingle)"
        );
        assert_eq!(Containment::default().jaccard(), None);
        assert_eq!(Containment::new(1, [2, 2]).jaccard(), Some(1.0 / 3.0));
    }
}
