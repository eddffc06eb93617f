//! `neardup scan`: every near-duplicate pair of a corpus, verified, with a
//! receipt hash each, clustered, in bounded memory (see `SCAN.md`).
//!
//! The algorithm is the core's ([`neardup::scan`]); this module is its
//! engine on one machine, and owns only the I/O:
//!
//! 1. **sign** ([`corpus`]): inputs, one shard per input, signed in
//!    parallel batches (or signatures read back from `sign --jsonl`);
//! 2. **exact**: the core's [`neardup::scan::exact`];
//! 3. **bands** ([`runs`]): the core's band records of each representative,
//!    sorted in runs that spill to a temp dir beyond `--memory`, then k-way
//!    merged;
//! 4. **pairs** ([`pairs::near`]): each bucket of the merged stream gives
//!    the core's candidates, verified in parallel batches by
//!    [`neardup::scan::Plan::check`];
//! 5. **clusters**: [`neardup::scan::Outcome`].
//!
//! Every output is sorted by input order, so it is byte-identical whatever
//! the thread count or memory budget.

pub(crate) mod corpus;
pub(crate) mod outputs;
mod pairs;
mod runs;
mod texts;

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use neardup::scan::{self, Outcome, Plan};
use neardup::{Backend, Params};

use neardup_corpus::text::{at_most_one_stdin, display_name, is_pipe, is_stdin};

use crate::args::PlanArgs;
pub use crate::args::ScanArgs;

/// Paths to remove if the user presses Ctrl-C: the named temporaries of
/// outputs not yet renamed into place (where they cannot be unnamed).
static CLEANUP: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

pub(crate) fn on_interrupt() {
    let paths = CLEANUP.lock().map(|p| p.clone()).unwrap_or_default();
    for p in paths {
        let _ = std::fs::remove_dir_all(&p).or_else(|_| std::fs::remove_file(&p));
    }
    eprintln!("neardup: interrupted");
    std::process::exit(130);
}

/// Registers `path` for removal on Ctrl-C.
pub(crate) fn remove_on_interrupt(path: PathBuf) {
    if let Ok(mut p) = CLEANUP.lock() {
        p.push(path);
    }
}

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

/// Every input, `--against` ones included.
fn all_inputs_again(args: &ScanArgs) -> impl Iterator<Item = &std::path::Path> {
    args.against.iter().chain(&args.inputs).map(|p| p.as_path())
}

pub fn run(args: &ScanArgs, backend: Backend) -> Result<()> {
    let start = Instant::now();
    let params = Params::new(args.params.k, args.params.n)?;
    let plan = plan(params, &args.plan)?;
    let banding = plan.banding();
    let all_inputs = args.against.iter().chain(&args.inputs);
    at_most_one_stdin(all_inputs.map(|p| p.as_path()))?;
    if args.write_deduped.is_some() && args.inputs.iter().any(|p| is_stdin(p)) {
        bail!("--write-deduped reads the inputs a second time, so it cannot take standard input ('-')");
    }
    let to_stdout = [
        &args.pairs,
        &args.clusters,
        &args.keep_list,
        &args.drop_list,
        &args.write_deduped,
    ];
    if args.report.report.as_deref().is_some_and(is_stdin)
        && to_stdout.iter().any(|p| p.as_deref().is_some_and(is_stdin))
    {
        bail!("only one output can go to standard output ('-')");
    }
    if args.report.report.is_none() && !args.report.base.is_empty() {
        bail!("--base sets a base text aside in the report: give --report too");
    }
    if args.report.report.is_some() && all_inputs_again(args).any(|p| is_stdin(p) || is_pipe(p)) {
        bail!("--report reads the texts of the documents in pairs a second time, so it cannot take standard input or a pipe");
    }
    if let Some(pipe) = args
        .inputs
        .iter()
        .find(|p| args.write_deduped.is_some() && !is_stdin(p) && is_pipe(p))
    {
        bail!(
            "--write-deduped reads the inputs a second time, so it cannot take the pipe '{}'",
            display_name(pipe)
        );
    }

    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(t) = args.batch.threads {
        builder = builder.num_threads(usize::from(t));
    }
    let pool = builder.build().context("starting worker threads")?;
    let _ = ctrlc::set_handler(on_interrupt);

    // Outputs are opened first, so that an unwritable path fails before a
    // long scan, and renamed into place only once everything succeeded.
    let sinks = outputs::Sinks::create(args)?;
    for p in sinks.temp_paths() {
        remove_on_interrupt(p);
    }
    let report = match &args.report.report {
        Some(path) if is_stdin(path) => Some(crate::output::Sink::create(None)?),
        Some(path) => Some(crate::output::Sink::create(Some(path))?),
        None => None,
    };
    if let Some(p) = report.as_ref().and_then(|s| s.temp_path()) {
        remove_on_interrupt(p.to_owned());
    }
    let temp = runs::SpillDir::new(args.temp_dir.clone().unwrap_or_else(std::env::temp_dir))?;

    let quiet = args.batch.quiet;

    pool.install(|| -> Result<()> {
        let mut times: Vec<(&str, Duration)> = Vec::new();
        let mut lap = Instant::now();
        let mut time = |name: &'static str, times: &mut Vec<(&str, Duration)>| {
            times.push((name, lap.elapsed()));
            lap = Instant::now();
        };

        let corpus = corpus::Corpus::load(args, params, backend)?;
        time("sign", &mut times);

        scan::check(&corpus.fps, corpus.refs, &plan)?;
        let exact = scan::exact(&corpus.fps, corpus.refs);
        time("exact", &mut times);

        let bands = runs::band_records(
            &corpus,
            &exact.representatives,
            &plan,
            args.memory,
            &temp,
            quiet,
        )?;
        time("bands", &mut times);

        let near = pairs::near(&corpus, bands, &plan, quiet)?;
        time("pairs", &mut times);

        let exact_pairs = exact.pairs.len();
        let mut all = exact.pairs;
        all.extend(near.pairs);
        let outcome = Outcome::new(corpus.docs.len(), corpus.refs, all)?;
        time("clusters", &mut times);

        sinks.write(&corpus, &outcome, args)?;
        if let Some(sink) = report {
            texts::write(sink, &corpus, &outcome, &plan, args)?;
        }
        time("outputs", &mut times);
        let all = &outcome.pairs;

        if !quiet {
            let total: Duration = start.elapsed();
            let stages: Vec<String> = times
                .iter()
                .map(|(n, d)| format!("{n} {:.2}s", d.as_secs_f64()))
                .collect();
            let docs = corpus.docs.len() as u64;
            let new = docs - u64::from(corpus.refs);
            eprintln!(
                "neardup scan: {docs} documents ({new} new, {} from --against, {} skipped), {:.0} docs/s",
                corpus.refs,
                corpus.skipped,
                docs as f64 / total.as_secs_f64().max(1e-9)
            );
            if let (count @ 1.., Some(first)) = &corpus.caveats {
                eprintln!(
                    "  warning: {count} text file(s) that word shingles cannot compare, first {}",
                    crate::output::one_line(first)
                );
            }
            let miss = if plan.misses_none() {
                "0 (exact recall: every pair at or over the threshold has a shared band)".to_owned()
            } else {
                format!("{:.4}%", 100.0 * plan.miss_probability())
            };
            eprintln!(
                "  lsh: {} bands × {} rows ({} of {} slots), threshold {}, miss probability at the threshold {miss}",
                banding.bands(),
                banding.rows(),
                banding.bands() * banding.rows(),
                params.n(),
                args.plan.threshold,
            );
            eprintln!(
                "  identical groups: {} ({} documents)",
                exact.groups, exact.grouped_docs
            );
            eprintln!(
                "  band records: {} in {} sorted run(s){}",
                near.records,
                near.runs,
                if near.runs > 1 {
                    " spilled and merged"
                } else {
                    ""
                }
            );
            eprintln!(
                "  candidate pairs: {} (largest bucket: {} documents)",
                near.candidates, near.largest_bucket
            );
            eprintln!(
                "  verified pairs: {} ({} identical, {} at or over the threshold)",
                all.len(),
                exact_pairs,
                all.len() - exact_pairs
            );
            eprintln!(
                "  clusters: {}, documents dropped: {}",
                outcome.clusters.len(),
                outcome.dropped.len()
            );
            eprintln!(
                "  time: {}, total {:.2}s",
                stages.join(", "),
                total.as_secs_f64()
            );
        }
        Ok(())
    })
}
