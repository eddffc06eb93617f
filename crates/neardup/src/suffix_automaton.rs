//! A suffix automaton over a sequence of symbols: which runs of symbols
//! occur in it, how often, and where first, in time linear in its length.

use std::collections::HashMap;

use foldhash::fast::FixedState;

const NONE: u32 = u32::MAX;

/// The suffix automaton (DAWG) of one sequence of `u32` symbols.
///
/// Every state stands for a set of substrings that end at the same set of
/// positions. Besides the usual length and suffix link, each state keeps
/// where its substrings first end and how many times they occur, so that a
/// walk from the root answers "is this a substring, where first, how often"
/// in one step per symbol.
pub(crate) struct SuffixAutomaton {
    /// Length of the longest substring of each state.
    len: Vec<u32>,
    /// Suffix link; `NONE` for the root.
    link: Vec<u32>,
    /// The smallest end position (inclusive) of the state's substrings.
    first_end: Vec<u32>,
    /// How many times the state's substrings occur.
    count: Vec<u32>,
    /// The state of each prefix `seq[..=i]`.
    prefix_state: Vec<u32>,
    /// All states, shortest `len` first (a counting sort).
    by_len: Vec<u32>,
    /// Each state's first transition `(symbol, target)`, or `(NONE, _)`.
    /// Most states have exactly one, so most steps read only this array.
    first_edge: Vec<(u32, u32)>,
    /// The other transitions, keyed by `state << 32 | symbol`. The alphabet
    /// (word ids) is as large as the vocabulary, so a map beats per-state
    /// arrays.
    more: HashMap<u64, u32, FixedState>,
    /// Each state's symbols in `more` as a linked list (`head`, then
    /// `edge_next`), needed only to copy a state's transitions into a clone.
    head: Vec<u32>,
    edge_symbol: Vec<u32>,
    edge_next: Vec<u32>,
}

fn key(state: u32, symbol: u32) -> u64 {
    (u64::from(state) << 32) | u64::from(symbol)
}

impl SuffixAutomaton {
    /// Builds the automaton of `seq`. Panics if `seq` has `2^31` symbols or
    /// more.
    pub(crate) fn new(seq: &[u32]) -> SuffixAutomaton {
        assert!(seq.len() < (1 << 31), "sequence too long");
        let states = 2 * seq.len() + 1;
        let mut sa = SuffixAutomaton {
            len: Vec::with_capacity(states),
            link: Vec::with_capacity(states),
            first_end: Vec::with_capacity(states),
            count: Vec::with_capacity(states),
            prefix_state: Vec::with_capacity(seq.len()),
            by_len: Vec::new(),
            first_edge: Vec::with_capacity(states),
            // Natural text branches after most words, so expect about one
            // extra transition per symbol; reserving avoids rehashing.
            more: HashMap::with_capacity_and_hasher(seq.len(), FixedState::default()),
            head: Vec::with_capacity(states),
            edge_symbol: Vec::with_capacity(seq.len()),
            edge_next: Vec::with_capacity(seq.len()),
        };
        sa.push_state(0, NONE, 0, 0);
        let mut last = 0u32;
        for (i, &c) in seq.iter().enumerate() {
            last = sa.extend(last, c, i as u32);
            sa.prefix_state.push(last);
        }
        sa.count_occurrences();
        sa
    }

    fn push_state(&mut self, len: u32, link: u32, first_end: u32, count: u32) -> u32 {
        let id = self.len.len() as u32;
        self.len.push(len);
        self.link.push(link);
        self.first_end.push(first_end);
        self.count.push(count);
        self.first_edge.push((NONE, NONE));
        self.head.push(NONE);
        id
    }

    /// The transition from `state` on `symbol`.
    #[inline]
    fn next(&self, state: u32, symbol: u32) -> Option<u32> {
        let (s, to) = self.first_edge[state as usize];
        if s == symbol {
            // NONE marks a missing edge, and is also a symbol that never
            // occurs.
            (to != NONE).then_some(to)
        } else if self.head[state as usize] == NONE {
            None
        } else {
            self.more.get(&key(state, symbol)).copied()
        }
    }

    /// Adds a transition that `state` does not have yet.
    fn add_edge(&mut self, state: u32, symbol: u32, to: u32) {
        let first = &mut self.first_edge[state as usize];
        if first.0 == NONE {
            *first = (symbol, to);
            return;
        }
        self.more.insert(key(state, symbol), to);
        self.edge_symbol.push(symbol);
        self.edge_next.push(self.head[state as usize]);
        self.head[state as usize] = (self.edge_symbol.len() - 1) as u32;
    }

    /// Points `state`'s transition on `symbol` at `to` if it now points at
    /// `from`; says whether it did.
    fn redirect(&mut self, state: u32, symbol: u32, from: u32, to: u32) -> bool {
        let first = &mut self.first_edge[state as usize];
        let target = if first.0 == symbol {
            Some(&mut first.1)
        } else {
            self.more.get_mut(&key(state, symbol))
        };
        match target {
            Some(t) if *t == from => {
                *t = to;
                true
            }
            _ => false,
        }
    }

    /// The textbook online construction step for symbol `c` at position
    /// `i`; returns the new last state.
    fn extend(&mut self, last: u32, c: u32, i: u32) -> u32 {
        let cur = self.push_state(self.len[last as usize] + 1, NONE, i, 1);
        let mut p = last;
        let q = loop {
            if p == NONE {
                self.link[cur as usize] = 0;
                return cur;
            }
            if let Some(q) = self.next(p, c) {
                break q;
            }
            self.add_edge(p, c, cur);
            p = self.link[p as usize];
        };
        if self.len[p as usize] + 1 == self.len[q as usize] {
            self.link[cur as usize] = q;
            return cur;
        }
        let clone = self.push_state(
            self.len[p as usize] + 1,
            self.link[q as usize],
            self.first_end[q as usize],
            0,
        );
        self.first_edge[clone as usize] = self.first_edge[q as usize];
        let mut e = self.head[q as usize];
        while e != NONE {
            let symbol = self.edge_symbol[e as usize];
            let to = self.more[&key(q, symbol)];
            self.add_edge(clone, symbol, to);
            e = self.edge_next[e as usize];
        }
        while p != NONE && self.redirect(p, c, q, clone) {
            p = self.link[p as usize];
        }
        self.link[q as usize] = clone;
        self.link[cur as usize] = clone;
        cur
    }

    /// Every non-clone state ends one occurrence; a state's count is the sum
    /// over the states whose suffix links lead to it. Longest first, by a
    /// counting sort on length, keeps this linear.
    fn count_occurrences(&mut self) {
        self.sort_by_len();
        for &s in self.by_len.iter().rev() {
            let link = self.link[s as usize];
            if link != NONE {
                self.count[link as usize] += self.count[s as usize];
            }
        }
    }

    fn sort_by_len(&mut self) {
        let max = self.len.iter().copied().max().unwrap_or(0) as usize;
        let mut bucket = vec![0u32; max + 2];
        for &l in &self.len {
            bucket[l as usize + 1] += 1;
        }
        for i in 1..bucket.len() {
            bucket[i] += bucket[i - 1];
        }
        let mut order = vec![0u32; self.len.len()];
        for (s, &l) in self.len.iter().enumerate() {
            order[bucket[l as usize] as usize] = s as u32;
            bucket[l as usize] += 1;
        }
        self.by_len = order;
    }

    /// The matching statistics of `seq`: for each `i`, the length of the
    /// longest suffix of `seq[..=i]` that occurs in the automaton's
    /// sequence, with the state that suffix reaches. Linear in `seq.len()`.
    pub(crate) fn matching_statistics(&self, seq: &[u32]) -> Vec<(u32, u32)> {
        let (mut state, mut len) = (0u32, 0u32);
        seq.iter()
            .map(|&c| {
                loop {
                    if let Some(to) = self.next(state, c) {
                        state = to;
                        len += 1;
                        break;
                    }
                    if state == 0 {
                        len = 0;
                        break;
                    }
                    state = self.link[state as usize];
                    len = self.len[state as usize];
                }
                (state, len)
            })
            .collect()
    }

    /// Marks every position `e` of the automaton's sequence where the
    /// `k`-long run of symbols ending at `e` is also the `k`-long end of one
    /// of `hits`: `(state, len)` pairs from [`Self::matching_statistics`]
    /// (those shorter than `k` are ignored). Linear, however often the runs
    /// occur.
    pub(crate) fn k_ends(&self, hits: &[(u32, u32)], k: usize) -> Vec<bool> {
        let k = k as u32;
        // The k-long end of a hit lives in the one ancestor (along suffix
        // links) of the hit's state whose lengths include k. Find them all
        // in one pass, longest states first.
        let mut flag = vec![false; self.len.len()];
        for &(state, len) in hits {
            if len >= k {
                flag[state as usize] = true;
            }
        }
        let mut has_k = vec![false; self.len.len()];
        for &s in self.by_len.iter().rev() {
            let s = s as usize;
            if flag[s] {
                let link = self.link[s];
                if link != NONE && self.len[link as usize] >= k {
                    flag[link as usize] = true;
                } else {
                    has_k[s] = true;
                }
            }
        }
        // A prefix's ancestors include exactly one state with length k, so a
        // marked ancestor is that one. Push marks down, shortest first.
        for &s in &self.by_len {
            let link = self.link[s as usize];
            if link != NONE && has_k[link as usize] {
                has_k[s as usize] = true;
            }
        }
        self.prefix_state
            .iter()
            .map(|&s| has_k[s as usize])
            .collect()
    }

    /// The longest prefix of `seq` that occurs in the automaton's sequence:
    /// its length, where its first occurrence starts, and how many times it
    /// occurs (overlapping occurrences included). `None` when not even
    /// `seq[0]` occurs.
    pub(crate) fn longest_prefix(&self, seq: &[u32]) -> Option<Match> {
        let mut state = 0u32;
        let mut len = 0usize;
        for &c in seq {
            match self.next(state, c) {
                Some(to) => {
                    state = to;
                    len += 1;
                }
                None => break,
            }
        }
        (len > 0).then(|| {
            let s = state as usize;
            Match {
                len,
                first_start: self.first_end[s] as usize + 1 - len,
                occurrences: self.count[s] as usize,
            }
        })
    }
}

/// What [`SuffixAutomaton::longest_prefix`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Match {
    /// Length in symbols.
    pub(crate) len: usize,
    /// Start of the first occurrence.
    pub(crate) first_start: usize,
    /// Number of occurrences.
    pub(crate) occurrences: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The same answer by brute force.
    fn naive(text: &[u32], seq: &[u32]) -> Option<Match> {
        let found = |l: usize| {
            (0..=text.len().saturating_sub(l))
                .filter(|&p| p + l <= text.len() && text[p..p + l] == seq[..l])
                .collect::<Vec<_>>()
        };
        let mut best = None;
        for l in 1..=seq.len() {
            let at = found(l);
            if at.is_empty() {
                break;
            }
            best = Some(Match {
                len: l,
                first_start: at[0],
                occurrences: at.len(),
            });
        }
        best
    }

    #[test]
    fn repeats() {
        let sa = SuffixAutomaton::new(&[1, 2, 1, 2, 1, 3]);
        let m = |s: &[u32]| sa.longest_prefix(s);
        assert_eq!(
            m(&[1, 2, 1]),
            Some(Match {
                len: 3,
                first_start: 0,
                occurrences: 2
            })
        );
        assert_eq!(
            m(&[2, 1, 3, 9]),
            Some(Match {
                len: 3,
                first_start: 3,
                occurrences: 1
            })
        );
        assert_eq!(m(&[9, 1]), None);
        assert_eq!(m(&[]), None);
    }

    #[test]
    #[cfg_attr(miri, ignore = "a 100,000-symbol text: slow under Miri")]
    fn unary_text_stays_linear() {
        let text = vec![7u32; 100_000];
        let sa = SuffixAutomaton::new(&text);
        let m = sa.longest_prefix(&text[..50_000]).unwrap();
        assert_eq!((m.len, m.first_start, m.occurrences), (50_000, 0, 50_001));
    }

    proptest! {
        #[test]
        fn statistics_and_ends_agree_with_brute_force(
            text in prop::collection::vec(0u32..3, 0..50),
            seq in prop::collection::vec(0u32..4, 0..30),
            k in 1usize..4,
        ) {
            let sa = SuffixAutomaton::new(&text);
            let ms = sa.matching_statistics(&seq);
            let occurs = |w: &[u32]| text.windows(w.len()).any(|x| x == w);
            for (i, &(_, len)) in ms.iter().enumerate() {
                let want = (1..=i + 1).rev().find(|&l| occurs(&seq[i + 1 - l..=i])).unwrap_or(0);
                prop_assert_eq!(len as usize, want);
            }
            let ends = sa.k_ends(&ms, k);
            for (e, &got) in ends.iter().enumerate() {
                let want = e + 1 >= k && seq.windows(k).any(|w| w == &text[e + 1 - k..=e]);
                prop_assert_eq!(got, want, "end {}", e);
            }
        }

        #[test]
        fn agrees_with_brute_force(
            text in prop::collection::vec(0u32..4, 0..60),
            seq in prop::collection::vec(0u32..4, 0..12),
        ) {
            let sa = SuffixAutomaton::new(&text);
            prop_assert_eq!(sa.longest_prefix(&seq), naive(&text, &seq));
        }
    }
}
