//! `neardup index`: a persistent index (the `neardup-index` crate) behind
//! the scan's own input reading and output writing, so that `add` and
//! `query` write what `scan NEW --against ALL_ADDED_BEFORE` writes.
//!
//! The documents are read and signed exactly as `scan` reads its INPUTs
//! ([`neardup_scan::Corpus`]); the index scans them against its documents
//! ([`Index::scan`]); the result is handed to `scan`'s writers
//! ([`neardup_scan::Sinks`]) as a corpus of the references that take part
//! in a pair followed by the new documents. Outputs are put in place
//! before an `add` commits ([`Writer::add_found`]), so that a failed
//! commit is rerun with the same result, and a commit is never left
//! without its outputs by anything but a crash between the two.

use std::path::Path;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use neardup::scan::{Against, Plan};
use neardup::{Backend, Params};
use neardup_corpus::text::display_name;
use neardup_index::{Found, Index, Writer};
use neardup_scan::{Corpus, Reading, Sinks};

use crate::args::{IndexAddArgs, IndexCommand, IndexCreateArgs, IndexDocArgs};
use crate::progress::Terminal;

pub fn run(command: &IndexCommand, backend: Backend) -> Result<()> {
    let _ = ctrlc::set_handler(crate::interrupt::on_interrupt);
    match command {
        IndexCommand::Create(a) => create(a, backend),
        IndexCommand::Add(a) => add(a, backend, true),
        IndexCommand::Query(a) => add(a, backend, false),
        IndexCommand::Info(a) => {
            let info = Index::open(&a.index)?.info();
            let text = match a.json {
                true => serde_json::to_string(&info)? + "\n",
                false => info_text(&info),
            };
            crate::output::print(&text)
        }
        IndexCommand::Compact(a) => {
            let start = Instant::now();
            let mut w = Writer::open(&a.index)?;
            let before = w.index().info().segments.len();
            w.compact()?;
            if !a.batch.quiet {
                eprintln!(
                    "neardup index compact: {} segment(s) merged into 1, {} documents, {:.2}s",
                    before,
                    w.index().len(),
                    start.elapsed().as_secs_f64()
                );
            }
            Ok(())
        }
        IndexCommand::Verify(a) => {
            let index = Index::open(&a.index)?;
            let leftovers = index.verify()?;
            let info = index.info();
            println!(
                "{}: OK, {} documents in {} segment(s), {} bytes checked",
                display_name(&a.index),
                info.documents,
                info.segments.len(),
                info.bytes
            );
            if !leftovers.is_empty() && !a.batch.quiet {
                eprintln!(
                    "neardup: note: {} file(s) not part of the index, left by an interrupted writer and removed by the next one: {}",
                    leftovers.len(),
                    leftovers.join(", ")
                );
            }
            Ok(())
        }
    }
}

/// `index create`: the inputs are read and signed before the directory is
/// made, so that bad input leaves nothing behind; a failure after it
/// removes the directory it made.
fn create(args: &IndexCreateArgs, backend: Backend) -> Result<()> {
    let params = args.params.params()?;
    let plan = crate::scan::plan(params, &args.plan)?;
    let existed = args.index.exists();
    let mut made = false;
    let mut run = || -> Result<()> {
        let (sinks, corpus) = read(&args.inputs, &args.docs, params, backend)?;
        let mut writer = Writer::create(&args.index, &plan)?;
        made = true;
        let start = Instant::now();
        commit(
            "create",
            &mut writer,
            corpus,
            sinks,
            &args.docs,
            false,
            start,
        )
    };
    let result = run();
    if result.is_err() && made {
        // This run made the index: the directory goes, or is emptied
        // again if it was there, empty, before.
        let _ = std::fs::remove_dir_all(&args.index);
        if existed {
            let _ = std::fs::create_dir(&args.index);
        }
    }
    result
}

/// `index add` (`adding`) and `index query`.
fn add(args: &IndexAddArgs, backend: Backend, adding: bool) -> Result<()> {
    if args.only_new && !adding {
        bail!("--only-new chooses what `index add` adds; `index query` adds nothing");
    }
    if adding {
        // The lock first: a second writer is refused before it reads
        // anything.
        let mut writer = Writer::open(&args.index)?;
        let (sinks, corpus) = read_new(args, writer.index(), backend)?;
        let start = Instant::now();
        return commit(
            "add",
            &mut writer,
            corpus,
            sinks,
            &args.docs,
            args.only_new,
            start,
        );
    }
    let index = Index::open(&args.index)?;
    let (sinks, corpus) = read_new(args, &index, backend)?;
    let start = Instant::now();
    let (found, _) = scan(&index, corpus, sinks, &args.docs.read.reading())?;
    if !args.docs.batch.quiet {
        summary("query", &index, Some(&found.against), None, start);
    }
    Ok(())
}

/// Opens the outputs (before the documents are read, so that an
/// unwritable path fails first, their temporaries removed on Ctrl-C),
/// then reads and signs the documents, as `scan` reads its INPUTs.
fn read(
    inputs: &[std::path::PathBuf],
    docs: &IndexDocArgs,
    params: Params,
    backend: Backend,
) -> Result<(Sinks, Corpus)> {
    let watch = Terminal {
        quiet: docs.batch.quiet,
    };
    let sinks = Sinks::create(&docs.outputs.outputs(None), &watch)?;
    let reading = docs.read.reading();
    let corpus = Corpus::load(&[], inputs, &reading, (params, backend), None, &watch)?;
    Ok((sinks, corpus))
}

/// Checks the settings asked for, then opens the outputs and reads the
/// new documents with the index's params.
fn read_new(args: &IndexAddArgs, index: &Index, backend: Backend) -> Result<(Sinks, Corpus)> {
    let plan = index.plan();
    check_settings(args, &plan, index.dir())?;
    read(&args.inputs, &args.docs, plan.params(), backend)
}

/// Scans the new documents against the index and writes the outputs:
/// what was found, and the new documents' ids and fingerprints.
fn scan(
    index: &Index,
    corpus: Corpus,
    sinks: Sinks,
    reading: &Reading,
) -> Result<(Found, Vec<(String, neardup::Fingerprint)>)> {
    check_ids(index, &corpus)?;
    let ids: Vec<String> = corpus.docs.iter().map(|d| d.id.clone()).collect();
    let mut found = index.scan(&ids, &corpus.fps)?;
    // The reference documents move into the corpus the writers read; the
    // caller needs only the counts and the outcome.
    let local = corpus.behind(std::mem::take(&mut found.refs));
    sinks.write(&local, &found.outcome, reading)?;
    let refs = local.refs as usize;
    let new = local.docs.into_iter().zip(local.fps).skip(refs);
    Ok((found, new.map(|(doc, fp)| (doc.id, fp)).collect()))
}

/// Queries and writes the outputs, then adds (all, or the kept ones).
fn commit(
    verb: &str,
    writer: &mut Writer,
    corpus: Corpus,
    sinks: Sinks,
    docs: &IndexDocArgs,
    only_new: bool,
    start: Instant,
) -> Result<()> {
    let index = writer.index();
    let dir = index.dir().to_owned();
    // Without an output to write or a choice to make, the pairs are not
    // searched: `create` from a whole corpus is then a write, not a scan.
    let search = only_new || docs.outputs.outputs(None).any();
    let context = || format!("adding to index '{}' (it is unchanged)", dir.display());
    let (added, found) = if search {
        let (found, new) = scan(index, corpus, sinks, &docs.read.reading())?;
        let added = writer
            .add_found(new, &found, only_new)
            .with_context(context)?;
        (added, Some(found))
    } else {
        check_ids(index, &corpus)?;
        let new = corpus.docs.into_iter().map(|d| d.id).zip(corpus.fps);
        (writer.add(new.collect()).with_context(context)?, None)
    };
    if !docs.batch.quiet {
        let against = found.as_ref().map(|f| &f.against);
        summary(verb, writer.index(), against, Some(added.docs), start);
    }
    Ok(())
}

/// Refuses a document whose id the index holds, naming where it is (the
/// index's own check names no file).
fn check_ids(index: &Index, corpus: &Corpus) -> Result<()> {
    for doc in &corpus.docs {
        if let Some(there) = index.find_id(&doc.id) {
            let input = &corpus.inputs[doc.input as usize];
            let place = match doc.line {
                0 => format!("'{}'", display_name(&input.path)),
                l => format!("'{}' line {l}", display_name(&input.path)),
            };
            bail!(
                "{place}: duplicate id {}: document {there} of index '{}' has it already",
                doc.id,
                display_name(index.dir())
            );
        }
    }
    Ok(())
}

/// `--threshold`, `-k` and `-n` on `add`/`query` are checks: the index's
/// own settings are the ones it answers with.
fn check_settings(args: &IndexAddArgs, plan: &Plan, dir: &Path) -> Result<()> {
    let p = plan.params();
    let mismatch = |what: String, index: String| {
        anyhow!(
            "index '{}' was built with {index}, not {what} (an index answers with its own settings; drop the option or create another index)",
            display_name(dir)
        )
    };
    if let Some(t) = args.threshold.filter(|&t| t != plan.threshold()) {
        return Err(mismatch(
            format!("--threshold {t}"),
            format!("threshold {}", plan.threshold()),
        ));
    }
    if let Some(k) = args.k.filter(|&k| k != p.k() as u64) {
        return Err(mismatch(format!("-k {k}"), format!("k={}", p.k())));
    }
    if let Some(n) = args.n.filter(|&n| n != p.n() as u64) {
        return Err(mismatch(format!("-n {n}"), format!("n={}", p.n())));
    }
    if let Some(w) = args.words.filter(|&w| w != p.words()) {
        return Err(mismatch(
            format!("--words {w}"),
            format!("words={}", p.words()),
        ));
    }
    Ok(())
}

/// The stderr summary, as `scan`'s: what was found, and what was added.
fn summary(
    verb: &str,
    index: &Index,
    against: Option<&Against>,
    added: Option<u32>,
    start: Instant,
) {
    match added {
        Some(n) => eprintln!(
            "neardup index {verb}: {n} document(s) added, the index now holds {} in {} segment(s)",
            index.len(),
            index.info().segments.len()
        ),
        None => eprintln!(
            "neardup index {verb}: against {} indexed document(s)",
            index.len()
        ),
    }
    let Some(against) = against else {
        eprintln!(
            "  pairs not searched: no output asked for; {:.3}s after signing",
            start.elapsed().as_secs_f64()
        );
        return;
    };
    let o = &against.outcome;
    eprintln!(
        "  identical pairs: {}, candidate pairs: {}, verified pairs: {}",
        against.identical,
        against.candidates,
        o.pairs.len()
    );
    eprintln!(
        "  clusters: {}, documents dropped: {}, {:.3}s after signing",
        o.clusters.len(),
        o.dropped.len(),
        start.elapsed().as_secs_f64()
    );
}

/// `index info`'s text.
fn info_text(info: &neardup_index::Info) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(s, "index       {}", info.path);
    let _ = writeln!(s, "documents   {} ({} banded)", info.documents, info.banded);
    let _ = writeln!(
        s,
        "params      k={} n={} words={} threshold {}",
        info.k, info.n, info.words, info.threshold
    );
    let miss = match info.recall {
        "exact" => "recall exact: no pair at or over the threshold is missed".to_owned(),
        _ => format!(
            "recall probable: a pair at the threshold is missed with probability {:.4}%",
            100.0 * info.miss_probability
        ),
    };
    let _ = writeln!(
        s,
        "banding     {} bands × {} rows, {miss}",
        info.bands, info.rows
    );
    let _ = writeln!(
        s,
        "format      version {}, {} bytes in {} segment(s)",
        info.format_version,
        info.bytes,
        info.segments.len()
    );
    for seg in &info.segments {
        let _ = writeln!(
            s,
            "  {}  documents {}..{}  banded {}  {} bytes",
            seg.file,
            seg.first,
            u64::from(seg.first) + u64::from(seg.documents),
            seg.banded,
            seg.bytes
        );
    }
    s
}
