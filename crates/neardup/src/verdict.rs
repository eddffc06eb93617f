//! The verdict and its rules (SPEC §7, §8).

use std::fmt;
use std::str::FromStr;

/// What two documents are to each other. The first rule of SPEC §8 that
/// applies wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The normalized texts are byte-identical.
    Identical,
    /// `similarity >= 0.75`.
    NearDuplicate,
    /// `0.35 <= similarity < 0.75`.
    Overlapping,
    /// `similarity < 0.35`.
    Distinct,
    /// A document has fewer than `K` words, so no signature.
    InsufficientData,
}

impl Verdict {
    /// Every verdict, in rule order.
    pub const ALL: [Verdict; 5] = [
        Verdict::Identical,
        Verdict::NearDuplicate,
        Verdict::Overlapping,
        Verdict::Distinct,
        Verdict::InsufficientData,
    ];

    /// Applies SPEC §8. `matches` is `None` when either document has no
    /// signature. Thresholds are compared in integers (`100·m >= 75·N`) so
    /// that no float rounding can move a verdict.
    ///
    /// ```
    /// use neardup::Verdict;
    /// assert_eq!(Verdict::decide(false, Some(15), 20), Verdict::NearDuplicate);
    /// assert_eq!(Verdict::decide(false, Some(14), 20), Verdict::Overlapping);
    /// assert_eq!(Verdict::decide(true, None, 128), Verdict::Identical);
    /// ```
    pub fn decide(same_normalized_text: bool, matches: Option<u32>, n: usize) -> Verdict {
        let n = n as u64;
        match matches.map(u64::from) {
            _ if same_normalized_text => Verdict::Identical,
            None => Verdict::InsufficientData,
            Some(m) if 100 * m >= 75 * n => Verdict::NearDuplicate,
            Some(m) if 100 * m >= 35 * n => Verdict::Overlapping,
            Some(_) => Verdict::Distinct,
        }
    }

    /// The word the receipt uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Identical => "IDENTICAL",
            Verdict::NearDuplicate => "NEAR-DUPLICATE",
            Verdict::Overlapping => "OVERLAPPING",
            Verdict::Distinct => "DISTINCT",
            Verdict::InsufficientData => "INSUFFICIENT-DATA",
        }
    }
}

/// Serialized as its name, `"NEAR-DUPLICATE"`.
impl serde::Serialize for Verdict {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Verdict {
    type Err = String;

    fn from_str(s: &str) -> Result<Verdict, String> {
        Verdict::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| format!("unknown verdict '{}'", crate::error::Snippet(s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_are_exact() {
        assert_eq!(
            Verdict::decide(false, Some(96), 128),
            Verdict::NearDuplicate
        );
        assert_eq!(Verdict::decide(false, Some(95), 128), Verdict::Overlapping);
        assert_eq!(Verdict::decide(false, Some(7), 20), Verdict::Overlapping);
        assert_eq!(Verdict::decide(false, Some(6), 20), Verdict::Distinct);
        assert_eq!(Verdict::decide(false, None, 20), Verdict::InsufficientData);
    }

    #[test]
    fn words_round_trip() {
        for v in Verdict::ALL {
            assert_eq!(v.as_str().parse::<Verdict>(), Ok(v));
        }
        assert!("identical".parse::<Verdict>().is_err());
    }
}
