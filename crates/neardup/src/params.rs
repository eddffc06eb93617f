//! `K`, `N` and the word rule, valid by construction (SPEC, Parameters).

use std::fmt;

use crate::{Error, WordRule};

/// The shingle size `K`, the signature length `N` and the [`WordRule`] of
/// one run: everything that decides a receipt besides the texts.
///
/// A `Params` can only hold values inside the ranges SPEC v1 allows, so code
/// that receives one never re-checks them. Out-of-range values are refused,
/// never clamped: a clamped value would silently produce another receipt.
///
/// ```
/// use neardup::Params;
/// let p = Params::new(5, 128)?;
/// assert_eq!((p.k(), p.n()), (5, 128));
/// assert!(Params::new(0, 128).is_err());
/// assert!(Params::new(5, 300).is_err());
/// let script = p.with_words(neardup::WordRule::Script);
/// assert_eq!(script.to_string(), "k=5, n=128, words=script");
/// assert_eq!(p.to_string(), "k=5, n=128");
/// # Ok::<(), neardup::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Params {
    k: u8,
    n: u16,
    words: WordRule,
}

impl Params {
    /// Smallest and largest shingle size, in words.
    pub const K_RANGE: std::ops::RangeInclusive<u64> = 1..=64;
    /// Smallest and largest number of permutations.
    pub const N_RANGE: std::ops::RangeInclusive<u64> = 16..=256;
    /// `K = 5`, `N = 128`, words split on spaces (SPEC v1).
    pub const DEFAULT: Params = Params {
        k: 5,
        n: 128,
        words: WordRule::Space,
    };

    /// Checks `k` and `n` against the spec's ranges; words split on
    /// spaces ([`Params::with_words`] picks the other rule).
    ///
    /// Takes `u64` so that callers parsing user input can pass any value they
    /// read and get the spec's own error message for it.
    pub fn new(k: u64, n: u64) -> Result<Params, Error> {
        if !Self::K_RANGE.contains(&k) {
            return Err(Error::ShingleSize(k));
        }
        if !Self::N_RANGE.contains(&n) {
            return Err(Error::Permutations(n));
        }
        Ok(Params {
            k: k as u8,
            n: n as u16,
            words: WordRule::Space,
        })
    }

    /// The same `K` and `N` with the word rule `words`.
    pub fn with_words(self, words: WordRule) -> Params {
        Params { words, ..self }
    }

    /// The word rule.
    pub fn words(self) -> WordRule {
        self.words
    }

    /// The algorithm id its receipts carry.
    pub fn algorithm(self) -> &'static str {
        self.words.algorithm()
    }

    /// The shingle size `K`, in words.
    pub fn k(self) -> usize {
        usize::from(self.k)
    }

    /// The number of permutations `N`.
    pub fn n(self) -> usize {
        usize::from(self.n)
    }
}

/// `k=5, n=128`, with `, words=script` for the script rule: how errors
/// and notes name a run's parameters.
impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "k={}, n={}", self.k, self.n)?;
        if self.words != WordRule::Space {
            write!(f, ", words={}", self.words)?;
        }
        Ok(())
    }
}

impl Default for Params {
    fn default() -> Self {
        Self::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_inclusive() {
        assert!(Params::new(1, 16).is_ok());
        assert!(Params::new(64, 256).is_ok());
        assert_eq!(Params::new(65, 128), Err(Error::ShingleSize(65)));
        assert_eq!(Params::new(5, 15), Err(Error::Permutations(15)));
        assert_eq!(Params::new(5, u64::MAX), Err(Error::Permutations(u64::MAX)));
    }

    #[test]
    fn error_quotes_the_value() {
        let e = Params::new(0, 128).unwrap_err().to_string();
        assert_eq!(e, "shingle size k must be 1..=64, got 0");
    }
}
