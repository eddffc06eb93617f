//! `neardup compare`: verdict, similarity, exact Jaccard and the receipt.

use std::time::Instant;

use anyhow::Result;
use neardup::{Backend, Caveat, Comparison, Doc, Params};

use crate::args::CompareArgs;
use crate::explain;
use crate::output::{print, write_atomic};
use crate::report::Bases;
use neardup::report;
use neardup::scan::Pair;
use neardup_corpus::text::{at_most_one_stdin, display_name, read_document};

pub fn run(args: &CompareArgs, backend: Backend) -> Result<()> {
    let start = Instant::now();
    let params = args.params.params()?;
    at_most_one_stdin([args.a.as_path(), args.b.as_path()])?;
    if !args.report.base.is_empty() && args.report.report.is_none() && !args.explain.explain {
        anyhow::bail!("--base sets a base text aside in --report and --explain: give one of them");
    }
    let da = read_document(&args.a, &args.input.options())?;
    let db = read_document(&args.b, &args.input.options())?;
    let (a, b) = (&*da.text, &*db.text);
    let (c, caveats) = compare_in_parallel(a, b, params, backend)?;
    let evidence = args
        .explain
        .explain
        .then(|| neardup::explain(a, b, params))
        .transpose()?;
    let bases = Bases::read(&args.report.base, &args.input.options())?;
    let base = bases.base(params);
    // The base text's rule, for --explain: the words shared outside it.
    let outside = (evidence.is_some() && base.is_some()).then(|| {
        let (wa, wb) = (
            neardup::Words::with_rule(a, params.words()),
            neardup::Words::with_rule(b, params.words()),
        );
        neardup::mark(&wa, &wb, base.as_ref(), params.k()).outside()
    });
    // Microsecond resolution: finer digits would be noise.
    let elapsed_ms = (start.elapsed().as_secs_f64() * 1e6).round() / 1e3;
    // The receipt file comes before stdout, so a failed write leaves no
    // partial output behind.
    if let Some(path) = &args.receipt {
        write_atomic(path, c.receipt.canonical().as_bytes())?;
    }
    let names = [display_name(&args.a), display_name(&args.b)];
    if let Some(path) = &args.report.report {
        let docs = [
            report::Document {
                name: &names[0],
                fingerprint: &c.fingerprints[0],
                text: Some(a),
            },
            report::Document {
                name: &names[1],
                fingerprint: &c.fingerprints[1],
                text: Some(b),
            },
        ];
        let mut settings = report::Settings::compare(params, crate::report::VERSION);
        settings.extractor = crate::report::extractor([da.format, db.format]);
        let input = report::Input {
            settings,
            documents: &docs,
            pairs: &[Pair::new(0, 1, c.receipt.matches)],
            clusters: &[],
            refs: 0,
            bases: &bases.named(),
        };
        crate::report::write(path, &input)?;
    }
    let warnings = crate::extract::warnings(&[(&names[0], &da), (&names[1], &db)], caveats);
    // Warnings are for people: stderr, with --json too, whose object
    // stays the one every adapter prints.
    for w in &warnings {
        eprintln!("neardup: warning: {}", crate::output::one_line(w));
    }
    let out = if args.json {
        let mut out = to_json(&c, &names, elapsed_ms);
        if let Some(e) = &evidence {
            explain::add_json(&mut out, e);
        }
        if let Some(o) = &outside {
            out["shared_outside_base"] = serde_json::to_value(o).unwrap_or_default();
        }
        out.to_string() + "\n"
    } else {
        let mut out = human(&c, &names, elapsed_ms);
        if let Some(e) = &evidence {
            out += &explain::human(e, a, params.k(), &args.explain);
        }
        if let Some(o) = &outside {
            out += &explain::outside(o);
        }
        out
    };
    print(&out)
}

/// [`neardup::compare`], with the two documents made on two threads at
/// once, and each text's [`Caveat`], read off its normalized text on the
/// same thread.
pub fn compare_in_parallel(
    a: &str,
    b: &str,
    params: Params,
    backend: Backend,
) -> Result<(Comparison, [Option<Caveat>; 2])> {
    let doc = |text: &str| {
        let d = Doc::with_backend(text, params, backend);
        let caveat = Caveat::of_normalized(d.normalized(), params);
        (d, caveat)
    };
    let ((da, ca), (db, cb)) = rayon::join(|| doc(a), || doc(b));
    Ok((Comparison::of(&da, &db)?, [ca, cb]))
}

/// The `--json` object: the core's [`neardup::Report`], plus the elapsed
/// time, which only this command knows.
pub fn to_json(c: &Comparison, names: &[String; 2], elapsed_ms: f64) -> serde_json::Value {
    let mut out = serde_json::to_value(c.report([&names[0], &names[1]])).unwrap_or_default();
    out["elapsed_ms"] = elapsed_ms.into();
    out
}

fn human(c: &Comparison, names: &[String; 2], elapsed_ms: f64) -> String {
    let r = &c.receipt;
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    let similarity = match (r.matches, c.estimate()) {
        (Some(m), Some(e)) => format!(
            "{m}/{} = {}  (95% interval {} to {})",
            r.params.n(),
            pct(e.similarity),
            pct(e.low),
            pct(e.high)
        ),
        _ => "none: a document has fewer than k words, so no signature".to_owned(),
    };
    let jaccard = c.jaccard().map_or_else(
        || "undefined (no shingles)".to_owned(),
        |j| format!("{:.4} ({})", j, pct(j)),
    );
    format!(
        "{verdict}\n\
         \x20 A           {a}\n\
         \x20 B           {b}\n\
         \x20 similarity  {similarity}\n\
         \x20 jaccard     {jaccard} exact, over distinct shingles\n\
         \x20 containment {containment}, exact, not part of the receipt\n\
         \x20 shingles    A {sa} distinct, B {sb} distinct (k = {k}{words})\n\
         \x20 receipt     {hash}\n\
         \x20 elapsed     {elapsed_ms:.1} ms (not part of the receipt)\n\
         {contained}",
        containment = c.containment,
        contained = contained(c, names),
        verdict = r.verdict,
        a = names[0],
        b = names[1],
        sa = r.documents[0].shingles,
        sb = r.documents[1].shingles,
        k = r.params.k(),
        words = match r.params.words() {
            neardup::WordRule::Space => "",
            neardup::WordRule::Script => ", script words",
        },
        hash = r.sha256(),
    )
}

/// A plain sentence when the verdict, which compares whole documents,
/// hides that much of one is found in the other: a short text copied from
/// a long one reads DISTINCT, since Jaccard is about `|copied| / |source|`.
fn contained(c: &Comparison, names: &[String; 2]) -> String {
    use neardup::Verdict::{Distinct, Overlapping};
    let one_fifth = neardup::Threshold::from_basis_points(2000).expect("0.2 is a threshold");
    let verdict = c.receipt.verdict;
    if !matches!(verdict, Distinct | Overlapping) || !c.containment.reaches(one_fifth) {
        return String::new();
    }
    let Some(side) = c.containment.most_contained() else {
        return String::new();
    };
    let share = [c.containment.a_in_b(), c.containment.b_in_a()][side].unwrap_or(0.0);
    let (this, that) = (["A", "B"][side], ["B", "A"][side]);
    format!(
        "\n{:.1}% of {this} ({}) is found in {that} ({}). {verdict} judges the two documents as wholes; \
         containment says how much of one is in the other.\n",
        100.0 * share,
        names[side],
        names[1 - side],
    )
}
