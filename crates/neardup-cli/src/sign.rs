//! `neardup sign`: one JSON line per document, from files or a corpus.

use std::path::Path;

use anyhow::{Context, Result};
use neardup::{Backend, Fingerprint, Params, SignatureRecord};
use neardup_corpus::jsonl::Fields;
use neardup_corpus::pipeline::{self, Signing};
use neardup_corpus::source;
use neardup_corpus::text::{at_most_one_stdin, display_name, read_text};

use crate::args::SignArgs;
use crate::output::Sink;
use crate::progress;

pub fn run(args: &SignArgs, backend: Backend) -> Result<()> {
    let params = args.params.params()?;
    let mut sink = Sink::create(args.output.as_deref())?;
    match &args.jsonl {
        Some(path) => sign_corpus(path, args, params, backend, &mut sink)?,
        None => sign_files(args, params, backend, &mut sink)?,
    }
    Ok(sink.finish()?)
}

fn sign_files(args: &SignArgs, params: Params, backend: Backend, sink: &mut Sink) -> Result<()> {
    at_most_one_stdin(args.files.iter().map(|p| p.as_path()))?;
    // Lines are collected first: one unreadable file fails the command
    // before anything is printed, never after half the lines.
    let mut out = String::new();
    for path in &args.files {
        let text = read_text(path, &args.input.options())?;
        let name = neardup_corpus::id::of_str(&display_name(path));
        let fp = Fingerprint::of_with(&text, params, backend);
        SignatureRecord::write(&mut out, "path", &name, &fp);
    }
    Ok(sink.write(out.as_bytes())?)
}

/// Streams a corpus through the signing pipeline. Output stays in input
/// order; a malformed line stops the run with its number.
fn sign_corpus(
    path: &Path,
    args: &SignArgs,
    params: Params,
    backend: Backend,
    sink: &mut Sink,
) -> Result<()> {
    let fields = Fields {
        id: &args.id_field,
        text: &args.text_field,
        lossy: args.input.lossy,
    };
    let mut source = source::open(path, fields.columns())?;
    let how = Signing {
        fields,
        params,
        backend,
        keys: false,
    };
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(t) = args.batch.threads {
        builder = builder.num_threads(usize::from(t));
    }
    let pool = builder.build().context("starting worker threads")?;
    let bar = progress::bytes(source.total, args.batch.quiet);
    let name = display_name(path);

    // The line is written on the worker: the id passes through unchanged.
    let line = |id: String, fp: Fingerprint, _| {
        let mut out = String::with_capacity(160 + 8 * params.n());
        SignatureRecord::write(&mut out, "id", &id, &fp);
        Ok(out)
    };
    let (mut docs, mut bytes) = (0u64, 0u64);
    pool.install(|| {
        pipeline::sign(
            &mut source.data,
            &name,
            args.input.max_size,
            how,
            line,
            |record, out: String| -> Result<()> {
                sink.write(out.as_bytes())?;
                docs += 1;
                bytes += record.len() as u64;
                bar.set_position(bytes);
                bar.set_message(format!("{docs} docs"));
                Ok(())
            },
        )
    })?;
    bar.finish_and_clear();
    Ok(())
}
