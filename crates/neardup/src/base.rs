//! Base texts: what every document may quote (an assignment's prompt, a
//! template), set aside from the shared evidence. For humans only: the
//! verdict and the receipt stay SPEC's, over the whole texts.

use std::collections::HashSet;

use foldhash::fast::FixedState;
use serde::Serialize;

use crate::shingle::shingles;
use crate::{Params, Words};

/// The K-shingles of one or more base texts.
///
/// ```
/// use neardup::{Base, Params};
/// let base = Base::new(["Write about your summer holiday."], Params::new(3, 128)?);
/// assert!(base.contains("about your summer"));
/// assert!(!base.contains("your summer in"));
/// # Ok::<(), neardup::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Base {
    shingles: HashSet<String, FixedState>,
}

impl Base {
    /// The shingles of every text in `texts`, with `params`' `K` and word
    /// rule.
    pub fn new<'t>(texts: impl IntoIterator<Item = &'t str>, params: Params) -> Base {
        let mut set = HashSet::with_hasher(FixedState::default());
        for t in texts {
            let words = Words::with_rule(t, params.words());
            set.extend(shingles(words.word_text(), params.k()).map(str::to_owned));
        }
        Base { shingles: set }
    }

    /// Whether a base text has this normalized shingle.
    pub fn contains(&self, shingle: &str) -> bool {
        self.shingles.contains(shingle)
    }

    /// Whether no base text has a shingle (none given, or all too short).
    pub fn is_empty(&self) -> bool {
        self.shingles.is_empty()
    }
}

/// What one word of a text is, seen from the other text of a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mark {
    /// In no K-shingle that the other text also has.
    Own,
    /// In a K-shingle that both texts have and that no base text has.
    Shared,
    /// In a K-shingle that both texts have, but only in ones that a base
    /// text has too: shown "from the base text", not as evidence.
    FromBase,
}

/// Each word of both texts of a pair, marked ([`mark`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marks {
    /// One mark per word of A ([`Words`]' words).
    pub a: Vec<Mark>,
    /// One mark per word of B.
    pub b: Vec<Mark>,
}

/// How much of each text is shared outside the base: the column that a
/// report sorts by when a base text is given. Never part of a receipt.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Outside {
    /// The words of A.
    pub words_a: usize,
    /// The words of B.
    pub words_b: usize,
    /// The words of A marked [`Mark::Shared`].
    pub shared_words_a: usize,
    /// The words of B marked [`Mark::Shared`].
    pub shared_words_b: usize,
    /// The words of A marked [`Mark::FromBase`].
    pub base_words_a: usize,
    /// The words of B marked [`Mark::FromBase`].
    pub base_words_b: usize,
    /// `shared_words_a / words_a`, 0 for a text with no words.
    pub a: f64,
    /// `shared_words_b / words_b`, 0 for a text with no words.
    pub b: f64,
}

impl Marks {
    /// The counts of these marks.
    pub fn outside(&self) -> Outside {
        let count = |v: &[Mark], m: Mark| v.iter().filter(|&&x| x == m).count();
        let (sa, sb) = (count(&self.a, Mark::Shared), count(&self.b, Mark::Shared));
        let ratio = |p: usize, w: usize| if w == 0 { 0.0 } else { p as f64 / w as f64 };
        Outside {
            words_a: self.a.len(),
            words_b: self.b.len(),
            shared_words_a: sa,
            shared_words_b: sb,
            base_words_a: count(&self.a, Mark::FromBase),
            base_words_b: count(&self.b, Mark::FromBase),
            a: ratio(sa, self.a.len()),
            b: ratio(sb, self.b.len()),
        }
    }
}

impl Outside {
    /// The larger of the two shares as an exact fraction `(part, whole)`,
    /// to sort by without floats: a short text copied whole into a long
    /// one ranks by the short one's share.
    pub fn key(&self) -> (usize, usize) {
        let a = (self.shared_words_a, self.words_a.max(1));
        let b = (self.shared_words_b, self.words_b.max(1));
        // a.0 / a.1 >= b.0 / b.1, cross-multiplied.
        if (a.0 as u128) * (b.1 as u128) >= (b.0 as u128) * (a.1 as u128) {
            a
        } else {
            b
        }
    }
}

/// Marks every word of `a` and of `b` (as [`Words`] splits them): the
/// rule of the base text.
///
/// A K-shingle of one text is *shared* when the other text has it too
/// (what [`crate::explain`]'s coverage counts). A shared shingle that a
/// base text also has is *from the base*. A word inside at least one
/// shared shingle that is not from the base is [`Mark::Shared`]; a word
/// inside shared shingles that are all from the base is
/// [`Mark::FromBase`]; every other word is [`Mark::Own`]. So with no base
/// (or an empty one), the words marked `Shared` are exactly the words that
/// `explain`'s `shared_words_a` and `shared_words_b` count.
///
/// ```
/// use neardup::{mark, Base, Mark, Params, Words};
/// let p = Params::new(2, 128)?;
/// let prompt = "Describe your town.";
/// let a = Words::new("Describe your town. Mine is small and quiet.");
/// let b = Words::new("describe your town. mine is small and loud");
/// let m = mark(&a, &b, Some(&Base::new([prompt], p)), p.k());
/// // "describe your" and "your town." are the prompt's; "town. mine" is not.
/// assert_eq!(m.a[..2], [Mark::FromBase; 2]);
/// assert_eq!(m.a[2..7], [Mark::Shared; 5]);
/// assert_eq!(m.a[7], Mark::Own);
/// assert_eq!(m.outside().shared_words_a, 5);
/// # Ok::<(), neardup::Error>(())
/// ```
pub fn mark(a: &Words, b: &Words, base: Option<&Base>, k: usize) -> Marks {
    let (sa, sb) = (shingle_set(a, k), shingle_set(b, k));
    Marks {
        a: marks_of(a, &sb, base, k),
        b: marks_of(b, &sa, base, k),
    }
}

/// The distinct shingles of a text, borrowed from its normalized text.
fn shingle_set(w: &Words, k: usize) -> HashSet<&str, FixedState> {
    shingles(w.word_text(), k).collect()
}

fn marks_of(
    words: &Words,
    other: &HashSet<&str, FixedState>,
    base: Option<&Base>,
    k: usize,
) -> Vec<Mark> {
    let mut out = vec![Mark::Own; words.len()];
    for (j, s) in shingles(words.word_text(), k).enumerate() {
        if !other.contains(s) {
            continue;
        }
        let m = match base {
            Some(base) if base.contains(s) => Mark::FromBase,
            _ => Mark::Shared,
        };
        // Shared wins over FromBase, which wins over Own.
        for w in &mut out[j..j + k] {
            *w = match (*w, m) {
                (Mark::Shared, _) | (_, Mark::Shared) => Mark::Shared,
                _ => Mark::FromBase,
            };
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(k: u64) -> Params {
        Params::new(k, 128).unwrap()
    }

    #[test]
    fn without_a_base_shared_words_are_explains() {
        let a = "The first paragraph talks about the weather in the hills. And more.";
        let b = "Elsewhere: the weather in the hills was grey. The first paragraph talks.";
        for kk in 1..5 {
            let (wa, wb) = (Words::new(a), Words::new(b));
            let m = mark(&wa, &wb, None, kk).outside();
            let e = crate::explain(a, b, k(kk as u64)).unwrap();
            assert_eq!(
                (m.shared_words_a, m.shared_words_b),
                (e.shared_words_a, e.shared_words_b)
            );
            let empty = Base::new(["too short"], k(kk as u64 + 5));
            assert_eq!(mark(&wa, &wb, Some(&empty), kk).outside(), m);
        }
    }

    #[test]
    fn a_base_moves_words_from_shared_to_base() {
        let prompt = "Explain why the river floods every spring.";
        let a = format!("{prompt} It floods because snow melts in the hills.");
        let b = format!("{prompt} Snow melts in the hills, so it floods.");
        let p = k(3);
        let (wa, wb) = (Words::new(&a), Words::new(&b));
        let none = mark(&wa, &wb, None, 3).outside();
        let with = mark(&wa, &wb, Some(&Base::new([prompt], p)), 3).outside();
        assert_eq!(with.base_words_a, 7);
        assert_eq!(with.shared_words_a + with.base_words_a, none.shared_words_a);
        assert!(with.a < none.a);
    }

    fn text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let pieces = prop::sample::select(vec![
            "a", "A", "b", "c", "ΑΣ", "σ", " ", "  ", "\n", "\u{feff}",
        ]);
        prop::collection::vec(pieces, 0..60).prop_map(|v| v.concat())
    }

    proptest::proptest! {
        /// Whatever the base, shared and from-base words together are
        /// exactly `explain`'s shared words, and a base only moves words
        /// from shared to from-base.
        #[test]
        fn a_base_only_relabels_shared_words(a in text(), b in text(), base in text(), kk in 1usize..4) {
            let p = k(kk as u64);
            let (wa, wb) = (Words::new(&a), Words::new(&b));
            let e = crate::explain(&a, &b, p).unwrap();
            let none = mark(&wa, &wb, None, kk);
            let with = mark(&wa, &wb, Some(&Base::new([base.as_str()], p)), kk);
            let o = with.outside();
            proptest::prop_assert_eq!(o.shared_words_a + o.base_words_a, e.shared_words_a);
            proptest::prop_assert_eq!(o.shared_words_b + o.base_words_b, e.shared_words_b);
            for (x, y) in none.a.iter().zip(&with.a).chain(none.b.iter().zip(&with.b)) {
                proptest::prop_assert_eq!(*x == Mark::Own, *y == Mark::Own);
            }
        }
    }

    #[test]
    fn the_key_is_the_larger_share() {
        let o = |sa, wa, sb, wb| Outside {
            words_a: wa,
            words_b: wb,
            shared_words_a: sa,
            shared_words_b: sb,
            base_words_a: 0,
            base_words_b: 0,
            a: 0.0,
            b: 0.0,
        };
        assert_eq!(o(10, 10, 10, 100).key(), (10, 10));
        assert_eq!(o(1, 100, 3, 4).key(), (3, 4));
        assert_eq!(o(0, 0, 0, 0).key(), (0, 1));
    }
}
