//! The evidence behind a verdict: which passages two texts share, located in
//! the original texts. For humans only; nothing here enters a receipt.

use std::collections::HashMap;

use foldhash::fast::FixedState;
use serde::Serialize;

use crate::span::locate;
use crate::suffix_automaton::SuffixAutomaton;
use crate::{Error, Params, Span, Words};

/// A word of A that does not occur in B: a symbol B's automaton has no
/// transition for.
const ABSENT: u32 = u32::MAX;

/// A run of words that A and B share.
///
/// The normalized words of `a` and of `b` are the same `words` words (see
/// [`explain`] for the one caveat about the final sigma).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Passage {
    /// Its length, in words (at least `K`).
    pub words: usize,
    /// Where it is in A.
    pub a: Span,
    /// Where it first occurs in B.
    pub b: Span,
    /// How many times it occurs in B, overlapping occurrences included: a
    /// word sequence `w` occurs at every word position of B where B's next
    /// `w.len()` normalized words are `w`.
    pub b_occurrences: usize,
}

/// The shared passages of two texts and how much of each they cover.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evidence {
    /// The shared passages, in the order they appear in A; they never
    /// overlap in A.
    pub passages: Vec<Passage>,
    /// The number of words in A.
    pub words_a: usize,
    /// The number of words in B.
    pub words_b: usize,
    /// The words of A inside some K-shingle that also occurs in B (see
    /// [`explain`] on how they relate to the passages).
    pub shared_words_a: usize,
    /// The words of B inside some K-shingle that also occurs in A. Every
    /// occurrence counts, not only the first one a passage reports, so this
    /// is `shared_words_a` with A and B swapped.
    pub shared_words_b: usize,
    /// `shared_words_a / words_a`, or 0 when A has no words.
    pub coverage_a: f64,
    /// `shared_words_b / words_b`, or 0 when B has no words.
    pub coverage_b: f64,
}

/// How much of each text the shared passages cover: the `coverage` object
/// of `neardup compare --explain --json` and of Python's `explain`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Coverage {
    /// [`Evidence::coverage_a`].
    pub a: f64,
    /// [`Evidence::coverage_b`].
    pub b: f64,
    /// [`Evidence::words_a`].
    pub words_a: usize,
    /// [`Evidence::words_b`].
    pub words_b: usize,
    /// [`Evidence::shared_words_a`].
    pub shared_words_a: usize,
    /// [`Evidence::shared_words_b`].
    pub shared_words_b: usize,
}

impl Evidence {
    /// The coverage figures, as one object.
    pub fn coverage(&self) -> Coverage {
        Coverage {
            a: self.coverage_a,
            b: self.coverage_b,
            words_a: self.words_a,
            words_b: self.words_b,
            shared_words_a: self.shared_words_a,
            shared_words_b: self.shared_words_b,
        }
    }

    /// The passages longest first; among equally long ones, in A's order.
    ///
    /// ```
    /// use neardup::{explain, Params};
    /// let p = Params::new(2, 128)?;
    /// let e = explain("a b x c d e y", "c d e q a b", p)?;
    /// let words: Vec<usize> = e.longest().iter().map(|p| p.words).collect();
    /// assert_eq!(words, [3, 2]);
    /// # Ok::<(), neardup::Error>(())
    /// ```
    pub fn longest(&self) -> Vec<&Passage> {
        let mut v: Vec<&Passage> = self.passages.iter().collect();
        v.sort_by_key(|p| std::cmp::Reverse(p.words));
        v
    }
}

/// Finds the passages that text `a` shares with text `b`, with K-shingles
/// of size `params.k()` (`N` plays no part).
///
/// **The rule.** Take the K-shingles of A in order, and mark those that
/// also occur in B. Going through A from its start: at the first marked
/// shingle, a passage begins, and it is the longest run of words from there
/// that also occurs, word for word, somewhere in B (so it holds at least K
/// words). The search for the next passage resumes at the first marked
/// shingle that starts after this passage's last word. So passages never
/// overlap in A and come in A's order, and a maximal run of marked
/// shingles is one passage whenever B has it in one piece, split where B's
/// text continues differently.
///
/// Repeated text:
/// - a passage that occurs several times in B reports its first
///   occurrence, and [`Passage::b_occurrences`] counts them all;
/// - a passage repeated in A is reported once for each time it occurs in A,
///   each paired with the same first occurrence in B.
///
/// Passages are located in the original texts through [`Words`]: A's span
/// runs from the start of its first word to the end of its last, and so
/// does B's. Normalizing A's span and B's span gives the same words, with
/// one caveat: a sigma at a span's edge may normalize as final (`ς`) on its
/// own where, in the whole text, a U+FEFF next to the span hid the word end
/// (SPEC §1), or the other way round.
///
/// Coverage counts the words inside marked shingles, on each side, so it
/// does not depend on how passages are paired: A's shared words are the
/// words of its passages, save (rarely) a few words of a marked shingle that
/// straddles the end of a passage whose continuation B has elsewhere.
///
/// Cost: linear in the texts' lengths (a suffix automaton of B's words,
/// walked once along A's words, and once more along each passage).
///
/// ```
/// use neardup::{explain, Params};
/// let a = "The cat sat on the mat. It was a sunny day in the city.";
/// let b = "It was a SUNNY day\nin the city. The cat sat on the mat.";
/// let e = explain(a, b, Params::new(3, 128)?)?;
/// assert_eq!(e.passages.len(), 2);
/// let p = e.longest()[0];
/// assert_eq!((p.words, p.b.line), (8, 1));
/// assert_eq!(&a[p.a.start_byte..p.a.end_byte], "It was a sunny day in the city.");
/// assert_eq!(p.b.of(b), "It was a SUNNY day\nin the city.");
/// assert_eq!((e.shared_words_a, e.coverage_a), (14, 1.0));
/// # Ok::<(), neardup::Error>(())
/// ```
///
/// # Errors
/// [`Error::TooManyWords`] for a text of `2³¹` words or more (a text of
/// more than 4 GB): the automaton numbers its states with 32 bits.
pub fn explain(a: &str, b: &str, params: Params) -> Result<Evidence, Error> {
    let k = params.k();
    let (wa, wb) = (
        Words::with_rule(a, params.words()),
        Words::with_rule(b, params.words()),
    );
    within_word_limit(wa.len())?;
    within_word_limit(wb.len())?;

    // Intern B's words as dense ids; A's words become the same ids, or
    // ABSENT. Two runs of words are equal exactly when their ids are, and
    // a shingle is k consecutive ids. The vocabulary is small, so this map
    // stays in cache where a map of shingles would not.
    let mut ids: HashMap<&str, u32, FixedState> =
        HashMap::with_capacity_and_hasher(1 << 12, FixedState::default());
    let seq_b: Vec<u32> = (0..wb.len())
        .map(|i| {
            let next = ids.len() as u32;
            *ids.entry(wb.word(i)).or_insert(next)
        })
        .collect();
    let seq_a: Vec<u32> = (0..wa.len())
        .map(|i| ids.get(wa.word(i)).copied().unwrap_or(ABSENT))
        .collect();
    drop(ids);

    let automaton = SuffixAutomaton::new(&seq_b);
    // For each word of A, the longest run of words ending there that B
    // has: shingle j of A occurs in B exactly when the run ending at word
    // j + k - 1 is at least k long.
    let stats = automaton.matching_statistics(&seq_a);
    let run_a = |end: usize| stats[end].1 as usize;
    let marked_a: Vec<bool> = (k - 1..seq_a.len()).map(|e| run_a(e) >= k).collect();
    let marked_b: Vec<bool> = automaton
        .k_ends(&stats, k)
        .split_off((k - 1).min(seq_b.len()));

    let (mut ranges_a, mut ranges_b, mut found) = (Vec::new(), Vec::new(), Vec::new());
    let mut s = 0;
    while s < marked_a.len() {
        if !marked_a[s] {
            s += 1;
            continue;
        }
        // The longest run of words from s that B has: words s..s+len occur
        // in B exactly when the run ending at s+len-1 is len long or more.
        let mut len = k;
        while s + len < seq_a.len() && run_a(s + len) > len {
            len += 1;
        }
        let m = automaton
            .longest_prefix(&seq_a[s..s + len])
            .expect("a marked shingle occurs in B");
        debug_assert_eq!(m.len, len);
        ranges_a.push(wa.original_span(s..s + len));
        ranges_b.push(wb.original_span(m.first_start..m.first_start + len));
        found.push((len, m.occurrences));
        s += len;
    }
    drop(automaton);

    let spans_a = locate(a, &ranges_a);
    let spans_b = locate(b, &ranges_b);
    let passages = found
        .iter()
        .zip(spans_a.into_iter().zip(spans_b))
        .map(|(&(words, b_occurrences), (a, b))| Passage {
            words,
            a,
            b,
            b_occurrences,
        })
        .collect();

    let shared_words_a = covered(marked_a.iter().copied(), k);
    let shared_words_b = covered(marked_b.iter().copied(), k);
    Ok(Evidence {
        passages,
        words_a: wa.len(),
        words_b: wb.len(),
        shared_words_a,
        shared_words_b,
        coverage_a: ratio(shared_words_a, wa.len()),
        coverage_b: ratio(shared_words_b, wb.len()),
    })
}

/// The most words a text may have for evidence: word and state numbers
/// are 32-bit, and the automaton has up to `2·words + 1` states.
const MAX_WORDS: usize = (1 << 31) - 1;

fn within_word_limit(words: usize) -> Result<(), Error> {
    if words > MAX_WORDS {
        return Err(Error::TooManyWords(words as u64));
    }
    Ok(())
}

/// The number of words inside the marked shingles (shingle `j` holds words
/// `j .. j + k`).
fn covered(marked: impl Iterator<Item = bool>, k: usize) -> usize {
    let (mut until, mut count) = (0, 0);
    for (j, m) in marked.enumerate() {
        if m {
            count += j + k - j.max(until);
            until = j + k;
        }
    }
    count
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize;
    use crate::shingle::shingles;
    use proptest::prelude::*;

    /// Every text here is far below the word limit.
    fn explain(a: &str, b: &str, params: Params) -> Evidence {
        super::explain(a, b, params).unwrap()
    }

    #[test]
    fn the_word_limit_is_an_error() {
        assert!(within_word_limit(MAX_WORDS).is_ok());
        let e = within_word_limit(1 << 31).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a text of 2147483648 words is too long for evidence (at most 2147483647)"
        );
    }

    fn k(k: u64) -> Params {
        Params::new(k, 128).unwrap()
    }

    /// Each passage as (A text, B text, b_occurrences).
    fn texts<'t>(e: &Evidence, a: &'t str, b: &'t str) -> Vec<(&'t str, &'t str, usize)> {
        e.passages
            .iter()
            .map(|p| (p.a.of(a), p.b.of(b), p.b_occurrences))
            .collect()
    }

    const P1: &str = "The first paragraph talks about the weather in the hills.";
    const P2: &str = "A second paragraph describes the river and its old bridge.";
    const P3: &str = "Finally the third one ends the story with a quiet dinner.";

    #[test]
    fn paragraph_moved() {
        let a = format!("{P1}\n\n{P2}\n\n{P3}\n");
        let b = format!("{P2}\n\n{P3}\n\n{P1}\n");
        let e = explain(&a, &b, k(3));
        assert_eq!(
            texts(&e, &a, &b),
            [
                (P1, P1, 1),
                (
                    &a[P1.len() + 2..a.len() - 1],
                    &b[..P2.len() + 2 + P3.len()],
                    1
                )
            ]
        );
        assert_eq!(e.passages[0].a.line, 1);
        assert_eq!(e.passages[0].b.line, 5);
        assert_eq!(e.passages[1].a.line, 3);
        assert_eq!((e.coverage_a, e.coverage_b), (1.0, 1.0));
    }

    #[test]
    fn inserted_sentence_splits_a_passage() {
        let (head, tail) = P1.split_at(P1.find("in the").unwrap());
        let a = format!("{P1} {P2}");
        let b = format!("{head}— and nobody, said the mayor, expected snow — {tail} {P2}");
        let e = explain(&a, &b, k(3));
        let t = texts(&e, &a, &b);
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].0, head.trim_end());
        assert_eq!(t[1].0, &a[head.len()..]);
        assert_eq!(t[1].1, &b[b.find(tail).unwrap()..]);
        assert_eq!(e.shared_words_a, e.words_a);
        assert!(e.coverage_b < 1.0);
    }

    #[test]
    fn repeated_sentence() {
        let s = "we shall fight on the beaches";
        let a = format!("Opening words here. {s}. Closing words there.");
        let b = format!("{s}. Other text in between. {s}. More other text. {s}.");
        let e = explain(&a, &b, k(3));
        assert_eq!(
            texts(&e, &a, &b),
            [(&*format!("{s}."), &*format!("{s}."), 3)]
        );
        assert_eq!(e.passages[0].b.start_byte, 0);
        // Every copy in B counts as shared.
        assert_eq!(e.shared_words_b, 18);
        // Repeated in A too: one passage per copy, both pointing at B's first.
        let a2 = format!("{s}. {a}");
        let e2 = explain(&a2, &b, k(3));
        assert_eq!(e2.passages.len(), 2);
        assert!(e2
            .passages
            .iter()
            .all(|p| p.b.start_byte == 0 && p.b_occurrences == 3));
    }

    #[test]
    fn case_and_whitespace_only_is_one_passage() {
        let a = "İstanbul is  a CITY\r\nwith \u{39f}\u{394}\u{39f}\u{3a3} many\u{2028}streets.";
        let b =
            "\u{feff}i\u{307}STANBUL IS A city with \u{3bf}\u{3b4}\u{3bf}\u{3c2}\tMANY streets.  ";
        let e = explain(a, b, k(5));
        assert_eq!(
            texts(&e, a, b),
            [(a, b.trim_start_matches('\u{feff}').trim_end(), 1)]
        );
        let p = e.passages[0];
        assert_eq!((p.words, p.a.start_char, p.b.start_char), (8, 0, 1));
        assert_eq!((e.coverage_a, e.coverage_b), (1.0, 1.0));
    }

    #[test]
    fn nothing_shared() {
        let e = explain(P1, P2, k(2));
        assert!(e.passages.is_empty());
        assert_eq!((e.shared_words_a, e.shared_words_b), (0, 0));
        assert_eq!((e.words_a, e.words_b), (10, 10));
        assert_eq!(e.coverage_a, 0.0);
    }

    #[test]
    fn shorter_than_k() {
        let e = explain("one two three", "one two three", k(5));
        assert!(e.passages.is_empty());
        assert_eq!((e.words_a, e.coverage_a), (3, 0.0));
        let e = explain("", "", k(1));
        assert_eq!((e.words_a, e.words_b, e.coverage_b), (0, 0, 0.0));
        // K = 1: single shared words are passages.
        let e = explain("x y z", "z q x", k(1));
        assert_eq!(texts(&e, "x y z", "z q x"), [("x", "x", 1), ("z", "z", 1)]);
    }

    #[test]
    fn repetitive_text_tiles_without_overlap() {
        let a = "la ".repeat(1000);
        let e = explain(&a, "LA LA LA LA LA", k(5));
        assert_eq!(e.passages.len(), 200);
        assert!(e
            .passages
            .iter()
            .all(|p| p.words == 5 && p.b_occurrences == 1));
        assert_eq!(e.passages[1].a.start_byte, 15);
        assert_eq!((e.shared_words_a, e.shared_words_b), (1000, 5));
        let e = explain("la la la la la la", &a, k(2));
        assert_eq!(e.passages.len(), 1);
        assert_eq!((e.passages[0].words, e.passages[0].b_occurrences), (6, 995));
    }

    #[test]
    fn coverage_is_symmetric() {
        let a = format!("{P1} {P2} {P1}");
        let b = format!("{P3} {P1}");
        let (ab, ba) = (explain(&a, &b, k(4)), explain(&b, &a, k(4)));
        assert_eq!(ab.shared_words_a, ba.shared_words_b);
        assert_eq!(ab.shared_words_b, ba.shared_words_a);
    }

    #[test]
    fn covered_counts_each_word_once() {
        let m = |v: &[u8]| covered(v.iter().map(|&x| x == 1), 3);
        assert_eq!(m(&[]), 0);
        assert_eq!(m(&[1, 1, 0, 0, 0, 1]), 4 + 3);
        assert_eq!(m(&[1, 0, 0, 1]), 6);
    }

    fn text() -> impl Strategy<Value = String> {
        // Few distinct words, so that texts share a lot, and the awkward
        // characters of SPEC §1 around and inside them.
        let pieces = prop::sample::select(vec![
            "a", "A", "b", "ΑΣ", "σ", "ς", "Σ", "İ", "i\u{307}", "x'", "ʰ", " ", " ", " ", "  ",
            "\r\n", "\n", "\u{feff}", "\u{2028}", "\t", "\u{a0}",
        ]);
        prop::collection::vec(pieces, 0..80).prop_map(|v| v.concat())
    }

    fn words(s: &str) -> Vec<String> {
        normalize(s).split(' ').map(str::to_owned).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 8 } else { 512 }))]

        #[test]
        fn passages_are_the_same_words_in_a_and_b(a in text(), b in text(), kk in 1u64..4) {
            let e = explain(&a, &b, k(kk));
            let no_bom = !a.contains('\u{feff}') && !b.contains('\u{feff}');
            let fold = |v: Vec<String>| -> Vec<String> { v.into_iter().map(|w| w.replace('ς', "σ")).collect() };
            let (wa, wb) = (Words::new(&a), Words::new(&b));
            let mut shared_a = vec![false; wa.len()];
            for p in &e.passages {
                let (sa, sb) = (words(p.a.of(&a)), words(p.b.of(&b)));
                prop_assert_eq!(sa.len(), p.words);
                prop_assert_eq!(fold(sa.clone()), fold(sb.clone()));
                if no_bom {
                    prop_assert_eq!(&sa, &sb);
                }
                // Offsets agree with each other.
                for (s, t) in [(p.a, &a), (p.b, &b)] {
                    prop_assert_eq!(s.start_char, t[..s.start_byte].chars().count());
                    prop_assert_eq!(s.end_char, t[..s.end_byte].chars().count());
                    prop_assert_eq!(s.line, 1 + t[..s.start_byte].matches('\n').count());
                }
                prop_assert!(p.b_occurrences >= 1);
                let first = (0..wa.len()).find(|&i| wa.original(i).start == p.a.start_byte).unwrap();
                prop_assert!(!shared_a[first..first + p.words].iter().any(|&x| x), "overlap");
                shared_a[first..first + p.words].iter_mut().for_each(|x| *x = true);
            }
            prop_assert!(e.passages.windows(2).all(|w| w[0].a.end_byte < w[1].a.start_byte));
            prop_assert!(shared_a.iter().filter(|&&x| x).count() <= e.shared_words_a);
            // Nothing shared is missed: every marked shingle starts inside
            // a passage.
            let kk = kk as usize;
            let in_b: std::collections::HashSet<&str> = shingles(wb.word_text(), kk).collect();
            for (j, s) in shingles(wa.word_text(), kk).enumerate() {
                if in_b.contains(s) {
                    prop_assert!(shared_a[j]);
                }
            }
        }
    }
}
