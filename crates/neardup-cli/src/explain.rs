//! `compare --explain`: the passages two texts share, for humans. Nothing
//! here enters the receipt.

use std::io::IsTerminal;

use clap::{Args, ValueEnum};
use neardup::normalize::is_whitespace;
use neardup::{Evidence, Passage};

/// The `--explain` options of `compare`.
#[derive(Debug, Args, Clone, Copy)]
pub struct ExplainArgs {
    /// Also show where the texts overlap: the share of each text's words in
    /// shared passages, then the longest passages with their line numbers.
    /// With --json, adds `coverage` and every passage with its offsets.
    #[arg(long)]
    pub explain: bool,
    /// How many passages --explain prints, longest first (--json lists all).
    #[arg(long, value_name = "N", default_value_t = 10, requires = "explain")]
    pub max_passages: usize,
    /// Highlight the shared text: auto does so on a terminal unless NO_COLOR is set.
    #[arg(
        long,
        value_name = "WHEN",
        value_enum,
        default_value_t = Color::Auto,
        requires = "explain"
    )]
    pub color: Color,
}

/// When to use colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Color {
    /// On a terminal, unless NO_COLOR is set (to anything but "") or TERM is dumb.
    Auto,
    /// Always, even into a pipe or with NO_COLOR set.
    Always,
    /// Never.
    Never,
}

impl Color {
    /// Whether to colour standard output.
    pub fn enabled(self) -> bool {
        match self {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => {
                let set = |name| std::env::var_os(name).is_some_and(|v| !v.is_empty());
                std::io::stdout().is_terminal()
                    && !set("NO_COLOR")
                    && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
            }
        }
    }
}

/// Adds the evidence to `compare --json`'s object: `coverage`, and
/// `passages`, all of them, in A's order.
pub fn add_json(out: &mut serde_json::Value, e: &Evidence) {
    out["coverage"] = serde_json::to_value(e.coverage()).unwrap_or_default();
    out["passages"] = serde_json::to_value(&e.passages).unwrap_or_default();
}

/// Excerpts show at most this many words; longer passages keep their first
/// and last `EXCERPT_WORDS / 2` and lose the middle.
const EXCERPT_WORDS: usize = 24;
/// A word longer than this many chars is cut short in an excerpt.
const WORD_CHARS: usize = 40;

const HIGHLIGHT: &str = "\x1b[1;32m";
const DIM: &str = "\x1b[2m";
const RESET: &str = "\x1b[0m";

/// The human report's evidence section: coverage, then the longest
/// passages, each with its lines in A and B and an excerpt of A's text.
pub fn human(e: &Evidence, a: &str, k: usize, args: &ExplainArgs) -> String {
    let color = args.color.enabled();
    let share = |shared: usize, words: usize, x: f64| {
        format!("{:.1}% ({shared} of {words} words)", 100.0 * x)
    };
    let mut out = format!(
        "  coverage    A {}, B {} in shared passages (k = {k})\n",
        share(e.shared_words_a, e.words_a, e.coverage_a),
        share(e.shared_words_b, e.words_b, e.coverage_b),
    );
    let shown = e.passages.len().min(args.max_passages);
    out += &match (e.passages.len(), shown) {
        (0, _) => "  passages    none shared\n".to_owned(),
        (n, 0) => format!("  passages    {n} (--max-passages 0 shows none)\n"),
        (n, s) if s == n => format!("  passages    {n}, longest first:\n"),
        (n, s) => format!("  passages    {n}, the {s} longest:\n"),
    };
    let width = shown.to_string().len();
    for (i, p) in e.longest().into_iter().take(shown).enumerate() {
        out += &format!("  {:>width$}. {}\n", i + 1, location(p));
        out += &format!("  {:>width$}  {}\n", "", excerpt(p.a.of(a), color));
    }
    out
}

/// The line `--base` adds: how much of each text is shared outside the
/// base texts (the verdict and receipt are still the whole texts').
pub fn outside(o: &neardup::Outside) -> String {
    format!(
        "  outside     A {:.1}% ({} of {} words), B {:.1}% ({} of {} words) shared outside the base text; \
         from the base: A {} words, B {} words (the verdict and receipt are the whole texts')\n",
        100.0 * o.a,
        o.shared_words_a,
        o.words_a,
        100.0 * o.b,
        o.shared_words_b,
        o.words_b,
        o.base_words_a,
        o.base_words_b
    )
}

/// `212 words, A line 12, B line 40 (3 times in B)`.
fn location(p: &Passage) -> String {
    let times = match p.b_occurrences {
        1 => String::new(),
        n => format!(" (first of {n} in B)"),
    };
    format!(
        "{} words, A line {}, B line {}{times}",
        p.words, p.a.line, p.b.line
    )
}

/// The passage's text on one line, whitespace runs shown as one space,
/// control characters escaped (a text must not drive the terminal), the
/// middle elided when long.
fn excerpt(text: &str, color: bool) -> String {
    let words: Vec<String> = text
        .split(is_whitespace)
        .filter(|w| !w.is_empty())
        .map(shown_word)
        .collect();
    let (on, off, dim) = if color {
        (HIGHLIGHT, RESET, DIM)
    } else {
        ("", "", "")
    };
    if words.len() <= EXCERPT_WORDS {
        return format!("\"{on}{}{off}\"", words.join(" "));
    }
    let half = EXCERPT_WORDS / 2;
    let left = words.len() - 2 * half;
    format!(
        "\"{on}{}{off} {dim}… {left} more words …{off} {on}{}{off}\"",
        words[..half].join(" "),
        words[words.len() - half..].join(" "),
    )
}

fn shown_word(word: &str) -> String {
    let mut out = String::new();
    for (i, c) in word.chars().enumerate() {
        if i == WORD_CHARS {
            out.push('…');
            break;
        }
        if c.is_control() || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}') {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_excerpts_lose_their_middle() {
        let text: Vec<String> = (1..=30).map(|i| format!("w{i}")).collect();
        let got = excerpt(&text.join("\r\n "), false);
        assert_eq!(
            got,
            "\"w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 … 6 more words … \
             w19 w20 w21 w22 w23 w24 w25 w26 w27 w28 w29 w30\""
        );
        assert_eq!(excerpt("a\u{2028}b", false), "\"a b\"");
    }

    #[test]
    fn highlighted_only_in_colour() {
        assert_eq!(excerpt("a b", true), "\"\x1b[1;32ma b\x1b[0m\"");
    }

    #[test]
    fn controls_are_escaped() {
        assert_eq!(shown_word("a\x1b[31mb"), "a\\u{1b}[31mb");
        assert_eq!(shown_word(&"x".repeat(50)), "x".repeat(40) + "…");
    }
}
