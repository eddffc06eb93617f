//! One reported pair: its figures for the pairs table, and its evidence
//! section (passages, both texts side by side, the receipt).

use std::cmp::Ordering;
use std::fmt::Write as _;
use std::ops::Range;

use super::html::{esc, escaped, pct, shell_word};
use super::{Input, MAX_PASSAGES, MAX_SHOWN_BYTES};
use crate::base::{mark, Base, Mark, Outside};
use crate::normalize::is_whitespace;
use crate::scan::Pair;
use crate::{Containment, Digest, Error, Params, Receipt, ShingleSet, Verdict, Words};

/// A pair's figures: what the pairs table shows and sorts by.
pub(crate) struct Row {
    pub(crate) pair: Pair,
    pub(crate) receipt: Receipt,
    pub(crate) hash: Digest,
    pub(crate) containment: Containment,
    /// The words of each text shared and from the base ([`mark`]); with no
    /// base, `base_words_*` are 0 and the shared words are the coverage's.
    pub(crate) outside: Outside,
}

impl Row {
    pub(crate) fn new(input: &Input<'_>, pair: Pair, base: Option<&Base>) -> Result<Row, Error> {
        let params = input.settings.params;
        let (da, db) = (
            &input.documents[pair.a as usize],
            &input.documents[pair.b as usize],
        );
        let receipt = Receipt::new(da.fingerprint, db.fingerprint)?;
        let (ta, tb) = (text(input, pair.a)?, text(input, pair.b)?);
        let (wa, wb) = (
            Words::with_rule(ta, params.words()),
            Words::with_rule(tb, params.words()),
        );
        let k = params.k();
        let containment =
            ShingleSet::new(wa.word_text(), k).containment(&ShingleSet::new(wb.word_text(), k));
        let outside = mark(&wa, &wb, base, k).outside();
        Ok(Row {
            pair,
            hash: receipt.sha256(),
            receipt,
            containment,
            outside,
        })
    }

    /// Most similar first: identical texts, then by matching slots.
    fn similarity(&self) -> (bool, u32) {
        (
            self.receipt.verdict == Verdict::Identical,
            self.receipt.matches.unwrap_or(0),
        )
    }

    /// The report's order: by the share shared outside the base when a
    /// base is given, else by containment in a scan for containment, then
    /// by similarity, then in input order.
    pub(crate) fn order(x: &Row, y: &Row, by_outside: bool, contained: bool) -> Ordering {
        let outside = || {
            let ((p1, w1), (p2, w2)) = (x.outside.key(), y.outside.key());
            ((p2 as u128) * (w1 as u128)).cmp(&((p1 as u128) * (w2 as u128)))
        };
        // shared / min(|A|, |B|), most contained first, cross-multiplied.
        let containment = || {
            let key = |r: &Row| {
                let c = &r.containment;
                (
                    u128::from(c.shared),
                    u128::from(c.sizes[0].min(c.sizes[1]).max(1)),
                )
            };
            let ((s1, m1), (s2, m2)) = (key(x), key(y));
            (s2 * m1).cmp(&(s1 * m2))
        };
        let by = match (by_outside, contained) {
            (true, _) => outside(),
            (false, true) => containment(),
            (false, false) => Ordering::Equal,
        };
        by.then_with(|| y.similarity().cmp(&x.similarity()))
            .then_with(|| (x.pair.a, x.pair.b).cmp(&(y.pair.a, y.pair.b)))
    }

    /// The coverage of A and B: shared words, from the base or not.
    pub(crate) fn coverage(&self) -> (f64, f64) {
        let o = &self.outside;
        let r = |p: usize, w: usize| if w == 0 { 0.0 } else { p as f64 / w as f64 };
        (
            r(o.shared_words_a + o.base_words_a, o.words_a),
            r(o.shared_words_b + o.base_words_b, o.words_b),
        )
    }

    /// `96/128 = 75.0%`, or why there is none.
    pub(crate) fn similarity_text(&self) -> String {
        match self.receipt.matches {
            Some(m) => {
                let n = self.receipt.params.n();
                format!("{m}/{n} = {}", pct(f64::from(m) / n as f64))
            }
            None => "none (fewer than k words)".to_owned(),
        }
    }

    pub(crate) fn jaccard_text(&self) -> String {
        self.containment
            .jaccard()
            .map_or_else(|| "undefined".to_owned(), |j| format!("{j:.4}"))
    }
}

/// A document's text, which every document of a reported pair must have.
pub(crate) fn text<'a>(input: &Input<'a>, doc: u32) -> Result<&'a str, Error> {
    input.documents[doc as usize]
        .text
        .ok_or(Error::MissingText(u64::from(doc)))
}

/// The file name a pair's receipt is saved under in the instructions.
pub(crate) fn receipt_file(hash: &Digest) -> String {
    format!("receipt-{}.json", &hash.to_string()[..12])
}

/// The exact `neardup verify` command for a pair.
pub(crate) fn verify_command(input: &Input<'_>, row: &Row) -> String {
    let name = |d: u32| shell_word(input.documents[d as usize].name);
    format!(
        "neardup verify {} {} {} --sha256 {}",
        receipt_file(&row.hash),
        name(row.pair.a),
        name(row.pair.b),
        row.hash
    )
}

/// Appends pair number `number`'s evidence section.
pub(crate) fn section(
    out: &mut String,
    input: &Input<'_>,
    row: &Row,
    number: usize,
    base: Option<&Base>,
) -> Result<(), Error> {
    let params: Params = input.settings.params;
    let k = params.k();
    let (a, b) = (row.pair.a, row.pair.b);
    let (na, nb) = (
        input.documents[a as usize].name,
        input.documents[b as usize].name,
    );
    let (ta, tb) = (text(input, a)?, text(input, b)?);
    let (wa, wb) = (
        Words::with_rule(ta, params.words()),
        Words::with_rule(tb, params.words()),
    );
    let marks = mark(&wa, &wb, base, k);
    let evidence = crate::explain(ta, tb, params)?;
    let verdict = row.receipt.verdict.as_str();

    let _ = write!(
        out,
        "<section class=pair id=\"p{number}\">\n<h2>Pair {number}: {} and {}</h2>\n",
        escaped(na),
        escaped(nb)
    );
    let (ca, cb) = row.coverage();
    let o = &row.outside;
    let _ = writeln!(
        out,
        "<table><tr><th>Verdict<td class=\"v-{verdict}\">{verdict}\
         <tr><th>MinHash similarity<td>{}\
         <tr><th>Exact Jaccard<td>{}\
         <tr><th>Coverage<td>A {} ({} of {} words), B {} ({} of {} words) in shared passages (k = {k})",
        row.similarity_text(),
        row.jaccard_text(),
        pct(ca),
        o.shared_words_a + o.base_words_a,
        o.words_a,
        pct(cb),
        o.shared_words_b + o.base_words_b,
        o.words_b,
    );
    if base.is_some() {
        let _ = writeln!(
            out,
            "<tr><th>Shared outside the base<td>A {} ({} words), B {} ({} words); \
             from the base text: A {} words, B {} words",
            pct(o.a),
            o.shared_words_a,
            pct(o.b),
            o.shared_words_b,
            o.base_words_a,
            o.base_words_b
        );
    }
    out.push_str("</table>\n");

    // The passages, longest first.
    let starts: Vec<usize> = (0..wa.len()).map(|i| wa.original(i).start).collect();
    let longest = evidence.longest();
    let _ = write!(out, "<h3>Shared passages</h3>\n<p class=note>");
    match longest.len() {
        0 => out.push_str("The texts share no passage of k words or more."),
        n if n <= MAX_PASSAGES => {
            let _ = write!(out, "{n} passage(s) of at least {k} words, longest first.");
        }
        n => {
            let _ = write!(
                out,
                "{n} passages of at least {k} words; the {MAX_PASSAGES} longest are listed, and the texts below highlight them all."
            );
        }
    }
    out.push_str("</p>\n");
    if !longest.is_empty() {
        out.push_str(
            "<table><tr><th class=r>#<th class=r>Words<th class=r>Line in A<th class=r>Line in B<th>Passage (as A has it)<th>Kind\n",
        );
        for (i, p) in longest.iter().take(MAX_PASSAGES).enumerate() {
            let first = starts.partition_point(|&s| s < p.a.start_byte);
            let from_base = marks.a[first..first + p.words]
                .iter()
                .filter(|&&m| m == Mark::FromBase)
                .count();
            let kind = match from_base {
                0 => "shared".to_owned(),
                x if x == p.words => "from the base text".to_owned(),
                x => format!("shared; {x} of its words from the base text"),
            };
            let times = match p.b_occurrences {
                1 => String::new(),
                t => format!(" (first of {t})"),
            };
            let _ = writeln!(
                out,
                "<tr><td class=r>{}<td class=r>{}<td class=r>{}<td class=r>{}{times}<td>{}<td>{kind}",
                i + 1,
                p.words,
                p.a.line,
                p.b.line,
                excerpt(p.a.of(ta))
            );
        }
        out.push_str("</table>\n");
    }

    // Both texts side by side.
    out.push_str("<h3>The two texts</h3>\n<p class=note><mark class=s>Highlighted</mark>: shared with the other text");
    if base.is_some() {
        out.push_str("; <mark class=b>shaded</mark>: shared, but from the base text");
    }
    out.push_str(". Line numbers count line breaks in each text as given.</p>\n<div class=sbs>\n");
    for (name, t, w, m) in [(na, ta, &wa, &marks.a), (nb, tb, &wb, &marks.b)] {
        let _ = writeln!(out, "<div><h4>{}</h4>", escaped(name));
        if t.len() > MAX_SHOWN_BYTES {
            let _ = writeln!(
                out,
                "<p class=note>This text is {} bytes long: the report shows texts of up to {} KiB in full, so only its passages are listed above.</p>",
                t.len(),
                MAX_SHOWN_BYTES >> 10
            );
        } else {
            lines(out, t, &runs(w, m));
        }
        out.push_str("</div>\n");
    }
    out.push_str("</div>\n");

    // The receipt and how to check it.
    let _ = write!(
        out,
        "<h3>Receipt</h3>\n<p>SHA-256 <code>{}</code>. Save the canonical receipt below, exactly, as <code>{}</code>:</p>\n<pre>",
        row.hash,
        receipt_file(&row.hash)
    );
    esc(out, &row.receipt.canonical());
    out.push_str("</pre>\n<p>then run</p>\n<pre>");
    esc(out, &verify_command(input, row));
    out.push_str("</pre>\n</section>\n");
    Ok(())
}

/// The runs of equally marked words, as byte ranges of the original text
/// (from a run's first word's start to its last word's end).
fn runs(words: &Words, marks: &[Mark]) -> Vec<(Range<usize>, Mark)> {
    let mut out: Vec<(Range<usize>, Mark)> = Vec::new();
    let mut prev = Mark::Own;
    for (i, &m) in marks.iter().enumerate() {
        if m != Mark::Own {
            let r = words.original(i);
            match out.last_mut() {
                Some(last) if prev == m => last.0.end = r.end,
                _ => out.push((r, m)),
            }
        }
        prev = m;
    }
    out
}

/// Appends `text` as a table of numbered lines, `runs` highlighted (a run
/// across a line break is closed at the end of the line and reopened on
/// the next).
fn lines(out: &mut String, text: &str, runs: &[(Range<usize>, Mark)]) {
    out.push_str("<table class=t>\n");
    let mut r = 0;
    let mut start = 0;
    for (no, line) in text.split('\n').enumerate() {
        let end = start + line.len();
        // A `\r` before the `\n` is part of the line break.
        let shown_end = if line.ends_with('\r') { end - 1 } else { end };
        let _ = write!(out, "<tr><td class=n>{}<td>", no + 1);
        let mut pos = start;
        while pos < shown_end {
            while r < runs.len() && runs[r].0.end <= pos {
                r += 1;
            }
            match runs.get(r) {
                Some((range, m)) if range.start < shown_end => {
                    let s = range.start.max(pos);
                    let e = range.end.min(shown_end);
                    esc(out, &text[pos..s]);
                    out.push_str(match m {
                        Mark::FromBase => "<mark class=b>",
                        _ => "<mark class=s>",
                    });
                    esc(out, &text[s..e]);
                    out.push_str("</mark>");
                    pos = e;
                }
                _ => {
                    esc(out, &text[pos..shown_end]);
                    pos = shown_end;
                }
            }
        }
        out.push('\n');
        start = end + 1;
    }
    out.push_str("</table>\n");
}

/// Excerpts show at most this many words; a longer passage keeps its first
/// and last half and loses the middle.
const EXCERPT_WORDS: usize = 40;

/// A passage on one line, escaped, whitespace runs shown as one space.
fn excerpt(text: &str) -> String {
    let words: Vec<&str> = text
        .split(is_whitespace)
        .filter(|w| !w.is_empty())
        .collect();
    if words.len() <= EXCERPT_WORDS {
        return escaped(&words.join(" "));
    }
    let half = EXCERPT_WORDS / 2;
    format!(
        "{} <i>… {} more words …</i> {}",
        escaped(&words[..half].join(" ")),
        words.len() - 2 * half,
        escaped(&words[words.len() - half..].join(" "))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_and_runs_cross_line_breaks() {
        let text = "a b\r\nc <d>\n\ne";
        let w = Words::new(text);
        let marks = [
            Mark::Own,
            Mark::Shared,
            Mark::Shared,
            Mark::FromBase,
            Mark::Own,
        ];
        let mut out = String::new();
        lines(&mut out, text, &runs(&w, &marks));
        assert_eq!(
            out,
            "<table class=t>\n<tr><td class=n>1<td>a <mark class=s>b</mark>\n\
             <tr><td class=n>2<td><mark class=s>c</mark> <mark class=b>&lt;d&gt;</mark>\n\
             <tr><td class=n>3<td>\n<tr><td class=n>4<td>e\n</table>\n"
        );
    }

    #[test]
    fn long_excerpts_lose_their_middle() {
        let t: Vec<String> = (0..50).map(|i| format!("w{i}")).collect();
        let e = excerpt(&t.join("\n"));
        assert!(e.contains("<i>… 10 more words …</i>"), "{e}");
        assert_eq!(excerpt("x  <y>"), "x &lt;y&gt;");
    }
}
