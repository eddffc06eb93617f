//! One self-contained HTML report of a comparison or a scan, for people
//! who will never open JSONL: a committee, an author, a court.
//!
//! [`render`] is the one renderer: the CLI (`--report`), the page and the
//! bindings call it with the same [`Input`] and get the same bytes. The
//! report:
//! - needs no JavaScript and has none; its Content-Security-Policy is
//!   `default-src 'none'; style-src 'unsafe-inline'`, so it loads nothing;
//! - holds no time or anything else that is not in its input, so the same
//!   input gives byte-identical reports;
//! - has the settings, the pairs table (verdict, MinHash similarity, exact
//!   Jaccard, coverage, receipt hash; "shared outside the base" with a
//!   base text), the clusters with their keepers, a heat map for up to
//!   [`MAX_MAP`] documents, and for the [`MAX_EVIDENCE`] most similar
//!   pairs the evidence: the shared passages, both texts side by side with
//!   line numbers, the canonical receipt and the `neardup verify` command;
//! - prints each pair on a new page.
//!
//! Every text in it (documents, names) is HTML-escaped.
//!
//! ```
//! use neardup::report::{self, Document, Input, Settings};
//! use neardup::scan::Pair;
//! use neardup::{Fingerprint, Params};
//! let (a, b) = ("the cat sat on the mat today", "the cat sat on the <mat> today!");
//! let p = Params::new(3, 128)?;
//! let fps = [Fingerprint::of(a, p), Fingerprint::of(b, p)];
//! let docs = [
//!     Document { name: "a.txt", fingerprint: &fps[0], text: Some(a) },
//!     Document { name: "b.txt", fingerprint: &fps[1], text: Some(b) },
//! ];
//! let matches = neardup::Receipt::new(&fps[0], &fps[1])?.matches;
//! let pairs = [Pair::new(0, 1, matches)];
//! let input = Input {
//!     settings: Settings::compare(p, "1.0.0"),
//!     documents: &docs,
//!     pairs: &pairs,
//!     clusters: &[],
//!     refs: 0,
//!     bases: &[],
//! };
//! let html = report::render(&input)?;
//! assert!(html.starts_with("<!DOCTYPE html>"));
//! assert!(!html.contains("<script") && html.contains("&lt;mat&gt;"));
//! assert_eq!(html, report::render(&input)?);
//! # Ok::<(), neardup::Error>(())
//! ```

mod html;
mod map;
mod pair;
mod sources;

pub use sources::{submissions, Submission};

use std::fmt::Write as _;

use crate::scan::Pair;
use crate::{Banding, Base, Error, Fingerprint, Params, Threshold, WordRule, Words};
use html::{esc, escaped, pct, CSS};
use pair::Row;

/// Evidence (passages, texts, receipt) is shown for at most this many
/// pairs, the most similar; the pairs table lists them all.
pub const MAX_EVIDENCE: usize = 100;
/// The heat map is drawn for up to this many documents (about 20,000
/// cells); above, it is left out with a note.
pub const MAX_MAP: usize = 200;
/// A pair's evidence lists at most this many passages, the longest.
pub const MAX_PASSAGES: usize = 20;
/// A text longer than this (in bytes) is not shown in full; its passages
/// are still listed.
pub const MAX_SHOWN_BYTES: usize = 256 << 10;

/// How the documents were compared.
#[derive(Debug, Clone, Copy)]
pub struct Settings<'a> {
    /// `K` and `N`.
    pub params: Params,
    /// The scan's threshold, or `None` for a comparison of two texts (no
    /// clusters, no heat map).
    pub threshold: Option<Threshold>,
    /// The scan's LSH banding.
    pub banding: Option<Banding>,
    /// The version of neardup that made the report (the caller's: the
    /// CLI's and the page's are the workspace's).
    pub version: &'a str,
    /// The extraction rules' version, when a document was extracted from
    /// a format other than plain text.
    pub extractor: Option<&'a str>,
    /// The containment threshold of a scan for containment (`scan
    /// --containment`): the pairs carry containment, the table shows it
    /// and sorts by it, and with reference documents (sources) the report
    /// opens with the submissions table.
    pub containment: Option<Threshold>,
}

impl<'a> Settings<'a> {
    /// The settings of a comparison of two texts.
    pub fn compare(params: Params, version: &'a str) -> Settings<'a> {
        Settings {
            params,
            threshold: None,
            banding: None,
            version,
            extractor: None,
            containment: None,
        }
    }
}

/// One document.
#[derive(Debug, Clone, Copy)]
pub struct Document<'a> {
    /// Its id or path, as shown (a string id without its JSON quotes).
    pub name: &'a str,
    /// Its fingerprint, made with the settings' params.
    pub fingerprint: &'a Fingerprint,
    /// Its text; needed for every document of a reported pair, and only
    /// for those.
    pub text: Option<&'a str>,
}

/// A base text and its name.
#[derive(Debug, Clone, Copy)]
pub struct Named<'a> {
    /// Its file name, as shown.
    pub name: &'a str,
    /// Its text.
    pub text: &'a str,
}

/// Everything a report shows.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// How the documents were compared.
    pub settings: Settings<'a>,
    /// The documents, numbered from 0 as the pairs and clusters number them.
    pub documents: &'a [Document<'a>],
    /// The reported pairs (a scan's [`crate::scan::Outcome::pairs`]; for a
    /// comparison, the one pair `0, 1`).
    pub pairs: &'a [Pair],
    /// The clusters, keeper first ([`crate::scan::Outcome::clusters`]).
    pub clusters: &'a [Vec<u32>],
    /// Documents `0..refs` are reference documents (`--against`): never
    /// dropped.
    pub refs: u32,
    /// The base texts, set aside from the evidence.
    pub bases: &'a [Named<'a>],
}

/// Renders the report of `input` (see the [module docs](self)).
///
/// # Errors
/// [`Error::MissingText`] when a document of a reported pair has no text,
/// [`Error::TooManyDocuments`] for a pair or cluster naming a document
/// past the end, [`Error::MixedParams`] for a fingerprint made with other
/// params, [`Error::TooManyWords`] for a text too long for evidence.
pub fn render(input: &Input<'_>) -> Result<String, Error> {
    let params = input.settings.params;
    let len = input.documents.len();
    let past = |d: u32| (d as usize >= len).then_some(Error::TooManyDocuments(u64::from(d) + 1));
    let named = input.pairs.iter().flat_map(|p| [p.a, p.b]);
    if let Some(e) = named
        .chain(input.clusters.iter().flatten().copied())
        .find_map(past)
    {
        return Err(e);
    }
    if let Some(d) = input
        .documents
        .iter()
        .position(|d| d.fingerprint.params != params)
    {
        let got = input.documents[d].fingerprint.params;
        return Err(Error::MixedParams {
            doc: d as u64,
            got,
            want: params,
        });
    }
    let base =
        (!input.bases.is_empty()).then(|| Base::new(input.bases.iter().map(|b| b.text), params));
    let mut rows = input
        .pairs
        .iter()
        .map(|&p| Row::new(input, p, base.as_ref()))
        .collect::<Result<Vec<Row>, Error>>()?;
    let contained = input.settings.containment.is_some();
    rows.sort_by(|x, y| Row::order(x, y, base.is_some(), contained));
    let submissions = match contained && input.refs > 0 {
        true => Some(submissions(
            len as u32,
            input.refs,
            input.pairs,
            (params, base.as_ref()),
            |d| pair::text(input, d),
        )?),
        false => None,
    };

    let mut out = String::with_capacity(64 << 10);
    head(&mut out, input, rows.len());
    if let Some(subs) = &submissions {
        sources::table(&mut out, input, subs);
    }
    settings(&mut out, input);
    pairs_table(&mut out, input, &rows, base.is_some());
    if input.settings.threshold.is_some() {
        clusters(&mut out, input);
        heat_map(&mut out, input);
        documents(&mut out, input);
    }
    check(&mut out, rows.len(), contained, params.algorithm());
    if !rows.is_empty() {
        let _ = writeln!(out, "<h2 id=evidence>Evidence</h2>");
        if rows.len() > MAX_EVIDENCE {
            let _ = writeln!(
                out,
                "<p class=note>The evidence of the {MAX_EVIDENCE} first pairs of the table is shown; the other {} are in the table only.</p>",
                rows.len() - MAX_EVIDENCE
            );
        }
    }
    for (i, row) in rows.iter().take(MAX_EVIDENCE).enumerate() {
        pair::section(&mut out, input, row, i + 1, base.as_ref())?;
    }
    let _ = writeln!(
        out,
        "<p class=note>Made by neardup {} ({}). This file holds no time and loads nothing: the same inputs give the same bytes.</p>\n</body>\n</html>",
        escaped(input.settings.version),
        input.settings.params.algorithm()
    );
    Ok(out)
}

fn head(out: &mut String, input: &Input<'_>, pairs: usize) {
    let what = match input.settings.threshold {
        None => "comparison".to_owned(),
        Some(_) => format!("scan of {} documents", input.documents.len()),
    };
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=referrer content=no-referrer>\n\
         <meta name=viewport content=\"width=device-width, initial-scale=1\">\n\
         <title>neardup report: {what}, {pairs} pair(s)</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n\
         <h1>neardup report</h1>\n<p>A {what}: {pairs} pair(s) reported.</p>\n\
         <nav>"
    );
    if input.settings.containment.is_some() && input.refs > 0 {
        out.push_str("<a href=\"#submissions\">Submissions</a>");
    }
    out.push_str("<a href=\"#settings\">Settings</a><a href=\"#pairs\">Pairs</a>");
    if input.settings.threshold.is_some() {
        out.push_str("<a href=\"#clusters\">Clusters</a><a href=\"#map\">Heat map</a><a href=\"#documents\">Documents</a>");
    }
    out.push_str("<a href=\"#check\">How to check this</a>");
    if pairs > 0 {
        out.push_str("<a href=\"#evidence\">Evidence</a>");
    }
    out.push_str("</nav>\n");
    if !input.bases.is_empty() {
        out.push_str(
            "<p class=warn>A base text was given: passages that also occur in it are shown \
             as \u{201c}from the base text\u{201d}, and the column \u{201c}shared outside the \
             base\u{201d} orders the pairs. The verdicts, similarities and receipts are \
             still those of the whole texts (SPEC), so do not read that column as a verdict.</p>\n",
        );
    }
}

fn settings(out: &mut String, input: &Input<'_>) {
    let s = &input.settings;
    let p = s.params;
    let _ = write!(
        out,
        "<h2 id=settings>Settings</h2>\n<table>\n\
         <tr><th>Algorithm<td>{}\n\
         <tr><th>Shingle size k<td>{} words{}\n\
         <tr><th>Permutations n<td>{}\n",
        p.algorithm(),
        p.k(),
        match p.words() {
            WordRule::Space => "",
            WordRule::Script =>
                " (script words: each Han, kana, Thai \u{2026} character a word, SPEC \u{a7}11)",
        },
        p.n()
    );
    if let Some(t) = s.containment {
        let _ = writeln!(out, "<tr><th>Containment<td>{t} (pairs in which one document holds at least this share of the other\u{2019}s distinct shingles, found exactly)");
    } else if let Some(t) = s.threshold {
        let _ = writeln!(out, "<tr><th>Threshold<td>{t} (pairs whose signatures agree on at least this share of slots)");
    }
    if let (Some(b), None) = (s.banding, s.containment) {
        let _ = writeln!(
            out,
            "<tr><th>Banding<td>{} bands \u{d7} {} rows",
            b.bands(),
            b.rows()
        );
    }
    let _ = writeln!(out, "<tr><th>neardup<td>{}", escaped(s.version));
    if let Some(x) = s.extractor {
        let _ = writeln!(out, "<tr><th>Extractor<td>{}", escaped(x));
    }
    out.push_str("<tr><th>Base texts<td>");
    if input.bases.is_empty() {
        out.push_str("none");
    }
    for (i, b) in input.bases.iter().enumerate() {
        if i > 0 {
            out.push_str("; ");
        }
        esc(out, b.name);
        let _ = write!(
            out,
            " ({} words)",
            Words::with_rule(b.text, input.settings.params.words()).len()
        );
    }
    let _ = write!(
        out,
        "\n<tr><th>Documents<td>{}\n<tr><th>Pairs reported<td>{}\n</table>\n",
        input.documents.len(),
        input.pairs.len()
    );
}

fn pairs_table(out: &mut String, input: &Input<'_>, rows: &[Row], with_base: bool) {
    let name = |d: u32| escaped(input.documents[d as usize].name);
    out.push_str("<h2 id=pairs>Pairs</h2>\n");
    if rows.is_empty() {
        out.push_str("<p>No pair was reported.</p>\n");
        return;
    }
    let _ = writeln!(
        out,
        "<p class=note>Ordered by {}. Coverage: the share of each text's words inside passages of at least k words that the other text has too.{}</p>",
        match (with_base, input.settings.containment.is_some()) {
            (true, _) => "the share shared outside the base (the larger of A's and B's), then by similarity",
            (false, true) => "containment, the most contained first",
            (false, false) => "similarity, most similar first",
        },
        if with_base {
            " Shared outside the base: the same, leaving out the passages that also occur in a base text."
        } else {
            ""
        }
    );
    let contained = input.settings.containment.is_some();
    out.push_str(
        "<table>\n<tr><th class=r>#<th>A<th>B<th>Verdict<th>MinHash similarity<th>Exact Jaccard",
    );
    if contained {
        out.push_str("<th>Containment A in B / B in A");
    }
    out.push_str("<th>Coverage A / B");
    if with_base {
        out.push_str("<th>Shared outside the base A / B");
    }
    out.push_str("<th>Receipt SHA-256\n");
    for (i, r) in rows.iter().enumerate() {
        let number = i + 1;
        let link = if i < MAX_EVIDENCE {
            format!("<a href=\"#p{number}\">{number}</a>")
        } else {
            number.to_string()
        };
        let (ca, cb) = r.coverage();
        let v = r.receipt.verdict.as_str();
        let _ = write!(
            out,
            "<tr><td class=r>{link}<td>{}<td>{}<td class=\"v-{v}\">{v}<td>{}<td class=r>{}",
            name(r.pair.a),
            name(r.pair.b),
            r.similarity_text(),
            r.jaccard_text(),
        );
        if contained {
            let share = |x: Option<f64>| x.map_or_else(|| "undefined".to_owned(), pct);
            let c = &r.containment;
            let _ = write!(
                out,
                "<td class=r>{} / {}",
                share(c.a_in_b()),
                share(c.b_in_a())
            );
        }
        let _ = write!(out, "<td class=r>{} / {}", pct(ca), pct(cb));
        if with_base {
            let _ = write!(
                out,
                "<td class=r>{} / {}",
                pct(r.outside.a),
                pct(r.outside.b)
            );
        }
        let _ = writeln!(out, "<td><code>{}</code>", r.hash);
    }
    out.push_str("</table>\n");
}

fn clusters(out: &mut String, input: &Input<'_>) {
    let name = |d: u32| escaped(input.documents[d as usize].name);
    out.push_str("<h2 id=clusters>Clusters</h2>\n");
    if input.clusters.is_empty() {
        out.push_str("<p>No cluster: no two documents were paired.</p>\n");
        return;
    }
    let dropped = dropped(input);
    out.push_str(match input.settings.containment {
        None => "<p class=note>Documents joined by reported pairs. Each cluster keeps its first document in input order (the keeper) and a deduplication drops the others, except reference documents.</p>\n<table>\n<tr><th class=r>#<th>Keeper<th>Dropped<th class=r>Size\n",
        Some(_) => "<p class=note>Documents joined by reported pairs. In each pair the document most contained in the other (the one with fewer distinct shingles; on a tie, the later) is dropped, except reference documents; the largest, listed first, is always kept, and so is any other that is the smaller side of no pair.</p>\n<table>\n<tr><th class=r>#<th>Largest<th>Others<th class=r>Size\n",
    });
    for (i, g) in input.clusters.iter().enumerate() {
        let Some((&keep, rest)) = g.split_first() else {
            continue;
        };
        let others: Vec<String> = rest
            .iter()
            .map(
                |&d| match (d < input.refs, dropped.binary_search(&d).is_ok()) {
                    (true, _) => format!("{} (reference, kept)", name(d)),
                    (false, false) => format!("{} (kept)", name(d)),
                    (false, true) => name(d),
                },
            )
            .collect();
        let _ = writeln!(
            out,
            "<tr><td class=r>{}<td><b>{}</b><td>{}<td class=r>{}",
            i + 1,
            name(keep),
            others.join("<br>"),
            g.len()
        );
    }
    out.push_str("</table>\n");
}

fn heat_map(out: &mut String, input: &Input<'_>) {
    let len = input.documents.len();
    out.push_str("<h2 id=map>Heat map</h2>\n");
    if len > MAX_MAP {
        let _ = writeln!(
            out,
            "<p class=note>The heat map is drawn for up to {MAX_MAP} documents; this report has {len}, so it is left out. The pairs table lists every reported pair.</p>"
        );
        return;
    }
    let fps: Vec<Fingerprint> = input
        .documents
        .iter()
        .map(|d| d.fingerprint.clone())
        .collect();
    map::svg(out, &fps, input.settings.params.n());
    out.push('\n');
    map::legend(out);
}

/// The documents a deduplication drops: the clusters' non-keepers, or in a
/// scan for containment the smaller side of each pair; ascending.
fn dropped(input: &Input<'_>) -> Vec<u32> {
    if input.settings.containment.is_some() {
        let sizes: Vec<u64> = input
            .documents
            .iter()
            .map(|d| d.fingerprint.shingles)
            .collect();
        return crate::scan::smaller_sides(input.pairs, &sizes, input.refs);
    }
    let mut out: Vec<u32> = input
        .clusters
        .iter()
        .flat_map(|g| g.iter().skip(1).copied())
        .filter(|&d| d >= input.refs)
        .collect();
    out.sort_unstable();
    out
}

fn documents(out: &mut String, input: &Input<'_>) {
    let len = input.documents.len();
    let mut role = vec![String::new(); len];
    let dropped = dropped(input);
    for (c, g) in input.clusters.iter().enumerate() {
        for (i, &d) in g.iter().enumerate() {
            let is_dropped = dropped.binary_search(&d).is_ok();
            role[d as usize] = match (i, d < input.refs, is_dropped) {
                (0, _, _) => format!("keeper of cluster {}", c + 1),
                (_, true, _) => format!("reference in cluster {}", c + 1),
                (_, false, true) => format!("dropped, cluster {}", c + 1),
                (_, false, false) => format!("kept, cluster {}", c + 1),
            };
        }
    }
    out.push_str("<h2 id=documents>Documents</h2>\n");
    let all = len <= MAX_MAP;
    if !all {
        let _ = writeln!(
            out,
            "<p class=note>{len} documents: only those in a reported pair are listed.</p>"
        );
    }
    out.push_str(
        "<table>\n<tr><th class=r>#<th>Document<th class=r>Distinct shingles<th>Cluster\n",
    );
    for (d, doc) in input.documents.iter().enumerate() {
        if !all && role[d].is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "<tr><td class=r>{}<td>{}<td class=r>{}<td>{}",
            d + 1,
            escaped(doc.name),
            doc.fingerprint.shingles,
            role[d]
        );
    }
    out.push_str("</table>\n");
}

fn check(out: &mut String, pairs: usize, contained: bool, algorithm: &str) {
    let _ = write!(
        out,
        "<h2 id=check>How to check this</h2>\n\
         <p>Each pair's verdict comes with a <b>receipt</b>: canonical JSON that anyone holding the two \
         texts recomputes, bit for bit, with neardup or any other implementation of the published \
         algorithm ({algorithm}). Its SHA-256 is the receipt hash in the pairs table.</p>\n"
    );
    out.push_str(
        "<ol>\n<li>Save the pair's receipt (in its evidence section) to a file, exactly as shown, \
         under the name given there.\n\
         <li>Run the command shown under it, <code>neardup verify RECEIPT A B --sha256 HASH</code>, \
         where A and B are the two documents as files (for a corpus of JSONL lines, each text saved \
         to a file of its own). It exits with 0 and says the receipt is verified, or names each \
         field that differs.\n\
         <li>Or, without installing anything, open <code>neardup.html</code>, go to its \
         <b>Verify</b> tab, paste the receipt and give the two texts: it recomputes the receipt in \
         the browser, and nothing leaves the page.\n</ol>\n\
         <p class=note>The similarity, the Jaccard, the coverage, the passages, the base text and \
         this layout are for people: none of them is part of a receipt.</p>\n",
    );
    if contained {
        out.push_str("<p class=note>So is the containment, and the submissions table: they are exact, and anyone can recount them from the texts, but no receipt holds them.</p>\n");
    }
    if pairs > MAX_EVIDENCE {
        let _ = writeln!(
            out,
            "<p class=note>Receipts are shown for the first {MAX_EVIDENCE} pairs; <code>neardup scan --receipts DIR</code> writes all of them.</p>"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::{self, Plan};

    const T: &str = "the committee met on a grey morning to weigh the proposal for a new bridge";

    /// `count` documents, the first two near-duplicates, the rest
    /// distinct; scanned at 0.5 with k = 3.
    fn scan_of(count: usize) -> (Vec<String>, Vec<Fingerprint>, scan::Outcome, Plan) {
        let p = Params::new(3, 64).unwrap();
        let mut texts = vec![T.to_owned(), T.replace("grey", "gray")];
        texts.extend((2..count).map(|i| format!("document {i} says something else entirely, {i}")));
        let fps: Vec<Fingerprint> = texts.iter().map(|t| Fingerprint::of(t, p)).collect();
        let plan = Plan::new(p, Threshold::parse("0.5").unwrap());
        let out = scan::run(&fps, 0, &plan).unwrap();
        (texts, fps, out, plan)
    }

    fn render_scan(count: usize, with_texts: bool) -> Result<String, Error> {
        let (texts, fps, out, plan) = scan_of(count);
        let names: Vec<String> = (0..count).map(|i| format!("<d{i}>")).collect();
        let docs: Vec<Document<'_>> = (0..count)
            .map(|i| Document {
                name: &names[i],
                fingerprint: &fps[i],
                text: (with_texts && i < 2).then(|| texts[i].as_str()),
            })
            .collect();
        let input = Input {
            settings: Settings {
                params: plan.params(),
                threshold: Some(plan.threshold()),
                banding: Some(plan.banding()),
                version: "9.9.9",
                extractor: Some("neardup-extract-v1"),
                containment: None,
            },
            documents: &docs,
            pairs: &out.pairs,
            clusters: &out.clusters,
            refs: 0,
            bases: &[],
        };
        render(&input)
    }

    #[test]
    fn a_scan_report_has_every_section() {
        let html = render_scan(5, true).unwrap();
        for part in [
            "<h2 id=settings>",
            "<td>0.5 (pairs",
            "<tr><th>Extractor<td>neardup-extract-v1",
            "<tr><th>neardup<td>9.9.9",
            "<h2 id=clusters>",
            "<td><b>&lt;d0&gt;</b><td>&lt;d1&gt;",
            "<svg class=map",
            "<h2 id=documents>",
            "<section class=pair id=\"p1\">",
            "neardup verify receipt-",
            "&#39;&lt;d0&gt;&#39; &#39;&lt;d1&gt;&#39;",
        ] {
            assert!(html.contains(part), "{part}");
        }
        assert!(!html.contains("<d0>") && !html.contains("<script"));
    }

    #[test]
    fn above_the_map_limit_the_map_is_left_out_and_documents_listed_in_pairs_only() {
        let html = render_scan(MAX_MAP + 1, true).unwrap();
        assert!(!html.contains("<svg class=map"));
        assert!(html.contains("this report has 201, so it is left out"));
        assert!(html.contains("only those in a reported pair are listed"));
        assert!(!html.contains("&lt;d7&gt;"));
    }

    #[test]
    fn a_pair_without_its_texts_is_refused() {
        assert_eq!(render_scan(3, false).unwrap_err(), Error::MissingText(0));
        let (_, fps, _, plan) = scan_of(2);
        let docs = [Document {
            name: "a",
            fingerprint: &fps[0],
            text: Some(T),
        }];
        let input = Input {
            settings: Settings::compare(plan.params(), "1"),
            documents: &docs,
            pairs: &[Pair::new(0, 1, None)],
            clusters: &[],
            refs: 0,
            bases: &[],
        };
        assert_eq!(render(&input).unwrap_err(), Error::TooManyDocuments(2));
    }
}
