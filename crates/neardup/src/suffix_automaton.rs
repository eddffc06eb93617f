//! A suffix automaton over a sequence of symbols: which runs of symbols
//! occur in it, how often, and where first, in time linear in its length.

use std::collections::hash_map::Entry;
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
    /// Transitions, keyed by `state << 32 | symbol`. The alphabet (shingle
    /// ids) is as large as the text, so a map beats per-state arrays.
    next: HashMap<u64, u32, FixedState>,
    /// Each state's outgoing symbols as a linked list (`head`, then
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
            next: HashMap::with_capacity_and_hasher(seq.len() * 2, FixedState::default()),
            head: Vec::with_capacity(states),
            edge_symbol: Vec::with_capacity(seq.len() * 2),
            edge_next: Vec::with_capacity(seq.len() * 2),
        };
        sa.push_state(0, NONE, 0, 0);
        let mut last = 0u32;
        for (i, &c) in seq.iter().enumerate() {
            last = sa.extend(last, c, i as u32);
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
        self.head.push(NONE);
        id
    }

    fn add_edge(&mut self, from: u32, symbol: u32, to: u32) {
        self.next.insert(key(from, symbol), to);
        self.edge_symbol.push(symbol);
        self.edge_next.push(self.head[from as usize]);
        self.head[from as usize] = (self.edge_symbol.len() - 1) as u32;
    }

    /// The textbook online construction step for symbol `c` at position
    /// `i`; returns the new last state.
    fn extend(&mut self, last: u32, c: u32, i: u32) -> u32 {
        let cur = self.push_state(self.len[last as usize] + 1, NONE, i, 1);
        let mut p = last;
        while p != NONE {
            match self.next.entry(key(p, c)) {
                Entry::Occupied(_) => break,
                Entry::Vacant(e) => {
                    e.insert(cur);
                    self.edge_symbol.push(c);
                    self.edge_next.push(self.head[p as usize]);
                    self.head[p as usize] = (self.edge_symbol.len() - 1) as u32;
                }
            }
            p = self.link[p as usize];
        }
        if p == NONE {
            self.link[cur as usize] = 0;
            return cur;
        }
        let q = self.next[&key(p, c)];
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
        let mut e = self.head[q as usize];
        while e != NONE {
            let symbol = self.edge_symbol[e as usize];
            let to = self.next[&key(q, symbol)];
            self.add_edge(clone, symbol, to);
            e = self.edge_next[e as usize];
        }
        while p != NONE {
            match self.next.get_mut(&key(p, c)) {
                Some(to) if *to == q => *to = clone,
                _ => break,
            }
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
        for &s in order.iter().rev() {
            let link = self.link[s as usize];
            if link != NONE {
                self.count[link as usize] += self.count[s as usize];
            }
        }
    }

    /// The longest prefix of `seq` that occurs in the automaton's sequence:
    /// its length, where its first occurrence starts, and how many times it
    /// occurs (overlapping occurrences included). `None` when not even
    /// `seq[0]` occurs.
    pub(crate) fn longest_prefix(&self, seq: &[u32]) -> Option<Match> {
        let mut state = 0u32;
        let mut len = 0usize;
        for &c in seq {
            match self.next.get(&key(state, c)) {
                Some(&to) => {
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
            Some(Match { len: 3, first_start: 0, occurrences: 2 })
        );
        assert_eq!(
            m(&[2, 1, 3, 9]),
            Some(Match { len: 3, first_start: 3, occurrences: 1 })
        );
        assert_eq!(m(&[9, 1]), None);
        assert_eq!(m(&[]), None);
    }

    #[test]
    fn unary_text_stays_linear() {
        let text = vec![7u32; 100_000];
        let sa = SuffixAutomaton::new(&text);
        let m = sa.longest_prefix(&text[..50_000]).unwrap();
        assert_eq!((m.len, m.first_start, m.occurrences), (50_000, 0, 50_001));
    }

    proptest! {
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
