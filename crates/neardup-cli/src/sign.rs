//! `neardup sign`: one JSON line per document, from files or a JSONL stream.

use std::path::Path;

use anyhow::{Context, Result};
use neardup::{Backend, Fingerprint, Params, SignatureRecord, Signer};

use crate::args::SignArgs;
use crate::format::Columns;
use crate::input::{at_most_one_stdin, display_name, read_text};
use crate::jsonl::{self, Fields, Line};
use crate::output::Sink;
use crate::progress;

pub fn run(args: &SignArgs, backend: Backend) -> Result<()> {
    let params = Params::new(args.params.k, args.params.n)?;
    let mut sink = Sink::create(args.output.as_deref())?;
    match &args.jsonl {
        Some(path) => sign_jsonl(path, args, params, backend, &mut sink)?,
        None => sign_files(args, params, backend, &mut sink)?,
    }
    sink.finish()
}

fn sign_files(args: &SignArgs, params: Params, backend: Backend, sink: &mut Sink) -> Result<()> {
    at_most_one_stdin(args.files.iter().map(|p| p.as_path()))?;
    // Lines are collected first: one unreadable file fails the command
    // before anything is printed, never after half the lines.
    let mut out = String::new();
    for path in &args.files {
        let text = read_text(path, &args.input)?;
        let name = serde_json::to_string(&display_name(path))?;
        let fp = Fingerprint::of_with(&text, params, backend);
        SignatureRecord::write(&mut out, "path", &name, &fp);
    }
    sink.write(out.as_bytes())
}

/// Streams a JSONL file through a reader thread and a worker pool. Output
/// stays in input order; a malformed line stops the run with its number.
fn sign_jsonl(
    path: &Path,
    args: &SignArgs,
    params: Params,
    backend: Backend,
    sink: &mut Sink,
) -> Result<()> {
    let columns = Columns {
        id: &args.id_field,
        text: &args.text_field,
    };
    let mut source = crate::format::open(path, columns)?;
    let fields = Fields {
        id: &args.id_field,
        text: &args.text_field,
        lossy: args.input.lossy,
    };
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(t) = args.batch.threads {
        builder = builder.num_threads(usize::from(t));
    }
    let pool = builder.build().context("starting worker threads")?;
    let bar = progress::bytes(source.total, args.batch.quiet);
    let name = display_name(path);

    // Each worker signs a chunk of lines as one batch; a line that does
    // not parse keeps its error, in its place.
    let sign_chunk = |signer: &mut Signer, lines: &[Line<'_>]| -> Vec<Result<String>> {
        let docs: Vec<Result<jsonl::Doc>> = lines.iter().map(|l| fields.parse(l)).collect();
        let texts = docs
            .iter()
            .filter_map(|d| d.as_ref().ok())
            .map(|d| &*d.text);
        let mut fps = signer.sign_all(texts).into_iter();
        docs.into_iter()
            .map(|doc| {
                let doc = doc?;
                let fp = fps.next().expect("one fingerprint per text");
                let mut out = String::with_capacity(160 + 8 * params.n());
                SignatureRecord::write(&mut out, "id", &doc.id, &fp);
                Ok(out)
            })
            .collect()
    };

    let (mut docs, mut bytes) = (0u64, 0u64);
    pool.install(|| {
        let signer = || Signer::new(params, backend);
        let max_line = args.input.max_size;
        jsonl::pipeline_chunks(
            source.data.lines(),
            &name,
            max_line,
            signer,
            sign_chunk,
            |l, out| {
                sink.write(out.as_bytes())?;
                docs += 1;
                bytes += l.bytes.len() as u64;
                bar.set_position(bytes);
                bar.set_message(format!("{docs} docs"));
                Ok(())
            },
        )
    })?;
    bar.finish_and_clear();
    Ok(())
}
