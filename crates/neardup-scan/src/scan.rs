//! A whole scan on one machine: every near-duplicate pair of a corpus,
//! verified, with a receipt hash each, clustered, in bounded memory (see
//! the CLI's `SCAN.md`).
//!
//! The algorithm is the core's ([`neardup::scan`]); this is its engine,
//! and owns the I/O:
//!
//! 1. **sign** ([`Corpus::load`]): inputs, one shard per input, signed in
//!    parallel batches (or signatures read back from `sign --jsonl`);
//! 2. **exact**: the core's [`neardup::scan::exact`];
//! 3. **bands** ([`crate::runs`]): the core's band records of each
//!    representative, sorted in runs that spill to a temp dir beyond the
//!    memory budget, then k-way merged;
//! 4. **pairs** ([`crate::pairs`]): each bucket of the merged stream gives
//!    the core's candidates, verified in parallel batches by
//!    [`Plan::check`];
//! 5. **clusters**: [`Outcome`].
//!
//! With `--containment T`, stages 3 and 4 are the containment join
//! ([`crate::contained`]) instead, and clusters drop the smaller side of
//! each pair ([`Outcome::contained`]); then
//! 6. **outputs** ([`Sinks`], and the report).
//!
//! Every output is sorted by input order, so it is byte-identical whatever
//! the thread count (the rayon pool it runs in) or memory budget.

use std::time::{Duration, Instant};

use neardup::scan::{self, Outcome, Plan};
use neardup::Backend;
use neardup::Banding;
use neardup_corpus::text::{at_most_one_stdin, display_name, is_pipe, is_stdin};

use crate::contained::Figures;
use crate::corpus::Corpus;
use crate::error::{bail, Result};
use crate::keys::KeyFiles;
use crate::options::Options;
use crate::outputs::Sinks;
use crate::sink::Sink;
use crate::spill::SpillDir;
use crate::watch::Watch;
use crate::{contained, pairs, report, runs};

/// What a scan found and how long each stage took: the figures of the
/// CLI's summary.
#[derive(Debug, Clone)]
pub struct Summary {
    /// Documents in all, references included.
    pub docs: u64,
    /// Documents from `against`.
    pub refs: u32,
    /// Files skipped with a warning.
    pub skipped: u64,
    /// Text files word shingles cannot compare, and the first one's name
    /// and caveat.
    pub caveats: (u64, Option<String>),
    /// The bands and rows searched.
    pub banding: Banding,
    /// Identical groups, and the documents in them.
    pub groups: (u64, u64),
    /// Band records, and the sorted runs they were written in (more than
    /// one: spilled and merged).
    pub records: (u64, usize),
    /// Candidate pairs checked, and the most documents in one bucket.
    pub candidates: (u64, usize),
    /// Pairs reported, and how many of them are identical.
    pub pairs: (usize, usize),
    /// Clusters, and documents dropped.
    pub clusters: (usize, usize),
    /// With `--containment`, what the join indexed (in place of band
    /// records and candidates).
    pub join: Option<Figures>,
    /// Each stage's name and time, in order.
    pub times: Vec<(&'static str, Duration)>,
}

/// Refuses options that cannot work together, before anything is read.
fn check(options: &Options) -> Result<()> {
    let all_inputs = || options.against.iter().chain(&options.inputs);
    at_most_one_stdin(all_inputs().map(|p| p.as_path()))?;
    let deduped = options.outputs.write_deduped.is_some();
    if deduped && options.inputs.iter().any(|p| is_stdin(p)) {
        bail!("--write-deduped reads the inputs a second time, so it cannot take standard input ('-')");
    }
    let report = &options.report;
    let to_stdout = options.outputs.files();
    if report.as_deref().is_some_and(is_stdin)
        && to_stdout.iter().any(|p| p.as_deref().is_some_and(is_stdin))
    {
        bail!("only one output can go to standard output ('-')");
    }
    if report.is_none() && !options.bases.is_empty() {
        bail!("--base sets a base text aside in the report: give --report too");
    }
    if report.is_some() && all_inputs().any(|p| is_stdin(p) || is_pipe(p)) {
        bail!("--report reads the texts of the documents in pairs a second time, so it cannot take standard input or a pipe");
    }
    let pipe = options.inputs.iter().find(|p| !is_stdin(p) && is_pipe(p));
    if let (true, Some(pipe)) = (deduped, pipe) {
        bail!(
            "--write-deduped reads the inputs a second time, so it cannot take the pipe '{}'",
            display_name(pipe)
        );
    }
    Ok(())
}

/// Scans `options`' inputs under `plan`, writes every output asked for,
/// and says what it found. Runs in the current rayon pool.
///
/// Outputs are opened first, so that an unwritable path fails before a
/// long scan, and put in place only once everything succeeded.
pub fn scan(
    options: &Options,
    plan: &Plan,
    backend: Backend,
    watch: &dyn Watch,
) -> Result<Summary> {
    check(options)?;
    let sinks = Sinks::create(&options.outputs, watch)?;
    let report = match &options.report {
        Some(path) if is_stdin(path) => Some(Sink::create(None)?),
        Some(path) => Some(Sink::create(Some(path))?),
        None => None,
    };
    if let Some(p) = report.as_ref().and_then(|s| s.temp_path()) {
        watch.temporary(p.to_owned());
    }
    let temp = SpillDir::new(options.temp_dir.clone().unwrap_or_else(std::env::temp_dir))?;

    let mut times = Vec::new();
    let mut lap = Instant::now();
    let mut time = |name: &'static str| {
        times.push((name, lap.elapsed()));
        lap = Instant::now();
    };

    let params = plan.params();
    let reading = &options.reading;
    let mut corpus = Corpus::load(
        &options.against,
        &options.inputs,
        reading,
        (params, backend),
        options.containment.map(|_| temp.path()),
        watch,
    )?;
    time("sign");

    scan::check(&corpus.fps, corpus.refs, plan)?;
    let exact = scan::exact(&corpus.fps, corpus.refs);
    time("exact");

    let exact_pairs = exact.pairs.len();
    let (mut records, mut candidates, mut join) = ((0, 0), (0, 0), None);
    let outcome = if let Some(t) = options.containment {
        let keys = corpus.keys.take().map(KeyFiles::finish).transpose()?;
        let keys = keys.unwrap_or_default();
        let found = contained::pairs(&corpus, keys, &temp, &exact, t, watch)?;
        time("join");
        join = Some(found.figures);
        scan::contained::outcome(&corpus.fps, corpus.refs, &exact, found.found)?
    } else {
        let reps = &exact.representatives;
        let bands = runs::band_records(&corpus, reps, plan, options.memory, &temp, watch)?;
        time("bands");
        let near = pairs::near(&corpus, bands, plan, watch)?;
        time("pairs");
        (records, candidates) = (
            (near.records, near.runs),
            (near.candidates, near.largest_bucket),
        );
        let mut all = exact.pairs;
        all.extend(near.pairs);
        Outcome::new(corpus.docs.len(), corpus.refs, all)?
    };
    time("clusters");

    sinks.write(&corpus, &outcome, reading)?;
    if let Some(sink) = report {
        report::write(
            sink,
            &corpus,
            &outcome,
            plan,
            reading,
            &options.bases,
            options.containment,
        )?;
    }
    time("outputs");

    Ok(Summary {
        docs: corpus.docs.len() as u64,
        refs: corpus.refs,
        skipped: corpus.skipped,
        caveats: corpus.caveats,
        banding: plan.banding(),
        groups: (exact.groups, exact.grouped_docs),
        records,
        candidates,
        pairs: (outcome.pairs.len(), exact_pairs),
        clusters: (outcome.clusters.len(), outcome.dropped.len()),
        join,
        times,
    })
}
