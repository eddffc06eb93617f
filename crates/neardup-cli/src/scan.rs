//! `neardup scan`: every near-duplicate pair of a corpus, verified, with a
//! receipt hash each, clustered, in bounded memory (see `SCAN.md`).
//!
//! The engine is `neardup-scan`'s ([`neardup_scan::scan`]); this module
//! turns the arguments into its options, runs it in a pool of `--threads`
//! workers, and prints its summary.

use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use neardup::scan::Plan;
use neardup::{Backend, Params};

use crate::args::PlanArgs;
pub use crate::args::ScanArgs;
use crate::progress::Terminal;

/// The plan `--threshold`, `--recall` and `--bands`/`--rows` ask for
/// (`scan`'s and `index create`'s options).
pub(crate) fn plan(params: Params, args: &PlanArgs) -> Result<Plan> {
    let threshold = args.threshold;
    Ok(match args.bands.zip(args.rows) {
        Some((b, r)) => Plan::with_banding(params, threshold, b, r).map_err(|_| {
            anyhow!(
                "--bands {b} × --rows {r} must be at least 1 each and use at most n = {} slots",
                params.n()
            )
        })?,
        None if args.recall == "exact" => Plan::exact(params, threshold),
        None => Plan::new(params, threshold),
    })
}

/// The engine's options for these arguments.
fn options(args: &ScanArgs) -> neardup_scan::Options {
    neardup_scan::Options {
        inputs: args.inputs.clone(),
        against: args.against.clone(),
        reading: args.read.reading(),
        memory: args.memory,
        temp_dir: args.temp_dir.clone(),
        outputs: args.outputs.outputs(args.write_deduped.clone()),
        report: args.report.report.clone(),
        bases: args.report.base.clone(),
        containment: args.containment,
    }
}

pub fn run(args: &ScanArgs, backend: Backend) -> Result<()> {
    let start = Instant::now();
    let params = args.params.params()?;
    let plan = plan(params, &args.plan)?;
    let options = options(args);
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(t) = args.batch.threads {
        builder = builder.num_threads(usize::from(t));
    }
    let pool = builder.build().context("starting worker threads")?;
    let _ = ctrlc::set_handler(crate::interrupt::on_interrupt);
    let quiet = args.batch.quiet;
    let watch = Terminal { quiet };
    let summary = pool.install(|| neardup_scan::scan(&options, &plan, backend, &watch))?;
    if !quiet {
        print_summary(&summary, &plan, start.elapsed());
    }
    Ok(())
}

/// The figures of a scan on stderr: what was read, searched and found,
/// and how long each stage took.
fn print_summary(s: &neardup_scan::Summary, plan: &Plan, total: Duration) {
    let stages: Vec<String> = s
        .times
        .iter()
        .map(|(n, d)| format!("{n} {:.2}s", d.as_secs_f64()))
        .collect();
    let docs = s.docs;
    let new = docs - u64::from(s.refs);
    eprintln!(
        "neardup scan: {docs} documents ({new} new, {} from --against, {} skipped), {:.0} docs/s",
        s.refs,
        s.skipped,
        docs as f64 / total.as_secs_f64().max(1e-9)
    );
    if let (count @ 1.., Some(first)) = &s.caveats {
        eprintln!(
            "  warning: {count} text file(s) that word shingles cannot compare, first {}",
            crate::output::one_line(first)
        );
    }
    match s.join {
        Some(j) => eprintln!(
            "  containment join: {} shingles held by two or more documents, {} in all; distinct lists of documents: {} (exact: every pair at or over the threshold)",
            j.vocabulary, j.occurrences, j.lists
        ),
        None => print_lsh(s, plan),
    }
    eprintln!(
        "  identical groups: {} ({} documents)",
        s.groups.0, s.groups.1
    );
    if s.join.is_none() {
        let (records, runs) = s.records;
        eprintln!(
            "  band records: {records} in {runs} sorted run(s){}",
            if runs > 1 { " spilled and merged" } else { "" }
        );
        eprintln!(
            "  candidate pairs: {} (largest bucket: {} documents)",
            s.candidates.0, s.candidates.1
        );
    }
    let (pairs, identical) = s.pairs;
    eprintln!(
        "  verified pairs: {pairs} ({identical} identical, {} at or over the threshold)",
        pairs - identical
    );
    eprintln!(
        "  clusters: {}, documents dropped: {}{}",
        s.clusters.0,
        s.clusters.1,
        if s.join.is_some() {
            " (the smaller side of each pair)"
        } else {
            ""
        }
    );
    eprintln!(
        "  time: {}, total {:.2}s",
        stages.join(", "),
        total.as_secs_f64()
    );
}

/// The LSH line of [`print_summary`]: the banding and its miss probability.
fn print_lsh(s: &neardup_scan::Summary, plan: &Plan) {
    let miss = if plan.misses_none() {
        "0 (exact recall: every pair at or over the threshold has a shared band)".to_owned()
    } else {
        format!("{:.4}%", 100.0 * plan.miss_probability())
    };
    let banding = s.banding;
    eprintln!(
        "  lsh: {} bands × {} rows ({} of {} slots), threshold {}, miss probability at the threshold {miss}",
        banding.bands(),
        banding.rows(),
        banding.bands() * banding.rows(),
        plan.params().n(),
        plan.threshold(),
    );
}
