//! Corpus formats end to end: one corpus as JSONL, gzip, zstd and Parquet
//! gives byte-identical `sign` and `scan` output, the deduped corpus keeps
//! its format, and broken files fail with the file and the place.

use std::io::{Read, Write};
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use serde_json::json;

use crate::util::*;

/// 40 documents with planted near-duplicates, exact copies and a short one.
fn docs() -> Vec<(String, String)> {
    let base = [
        "the committee met on tuesday to discuss the budget for the coming year and agreed on most points",
        "rain fell over the valley all night and the river rose above the old stone bridge by morning",
        "a small bakery on the corner sells bread cakes and coffee to the workers of the nearby factory",
    ];
    (0..40)
        .map(|i| {
            let b = base[i % 3];
            let text = match i % 5 {
                0 => b.to_owned(),
                1 => format!("{b} indeed"),
                2 => b.to_uppercase(),
                3 => format!(
                    "unrelated text number {i} about something else entirely {}",
                    "x ".repeat(i)
                ),
                _ => "too short".to_owned(),
            };
            (format!("doc-{i:02}"), text)
        })
        .collect()
}

fn jsonl_of(docs: &[(String, String)]) -> String {
    docs.iter()
        .map(|(id, text)| json!({"id": id, "text": text}).to_string() + "\n")
        .collect()
}

fn gzip(parts: &[&[u8]]) -> Vec<u8> {
    // One gzip member per part: multi-member files must read whole.
    let mut out = Vec::new();
    for part in parts {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(part).unwrap();
        out.extend(e.finish().unwrap());
    }
    out
}

/// One zstd frame per part, each with its content checksum, as the `zstd`
/// command writes them (without one, a flipped byte inside a frame's data
/// cannot be noticed by any reader).
fn zstd_frames(parts: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for part in parts {
        let mut e = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
        e.include_checksum(true).unwrap();
        e.write_all(part).unwrap();
        out.extend(e.finish().unwrap());
    }
    out
}

/// A Parquet file of the documents with an extra column, in row groups of
/// 7 rows; `text` may be given as another column type.
fn parquet_of(docs: &[(String, String)], text: Option<ArrayRef>) -> Vec<u8> {
    let ids: ArrayRef = Arc::new(StringArray::from_iter_values(docs.iter().map(|d| &d.0)));
    let texts = text.unwrap_or_else(|| {
        Arc::new(StringArray::from_iter_values(docs.iter().map(|d| &d.1))) as ArrayRef
    });
    let extra: ArrayRef = Arc::new(Int64Array::from_iter_values(0..docs.len() as i64));
    let batch =
        RecordBatch::try_from_iter([("id", ids), ("text", texts), ("extra", extra)]).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(7))
        .build();
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    out
}

fn parquet_rows(path: &str) -> (Vec<String>, Vec<String>) {
    let file = std::fs::File::open(path).unwrap();
    let reader = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let columns: Vec<String> = reader
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let mut ids = Vec::new();
    for batch in reader.build().unwrap() {
        let batch = batch.unwrap();
        let col = batch.column_by_name("id").unwrap();
        let col = col.as_any().downcast_ref::<StringArray>().unwrap();
        ids.extend(col.iter().map(|s| s.unwrap().to_owned()));
    }
    (columns, ids)
}

/// Every format of one corpus, by name.
fn every_format(d: &Dir) -> Vec<String> {
    let docs = docs();
    let plain = jsonl_of(&docs);
    // Split at a line break, into two gzip members or zstd frames.
    let cut = plain[..plain.len() / 2].rfind('\n').unwrap() + 1;
    let (head, rest) = plain.split_at(cut);
    vec![
        d.write("c.jsonl", &plain),
        d.write("c.jsonl.gz", gzip(&[head.as_bytes(), rest.as_bytes()])),
        d.write(
            "c.jsonl.zst",
            zstd_frames(&[head.as_bytes(), rest.as_bytes()]),
        ),
        d.write("c.parquet", parquet_of(&docs, None)),
        // The magic bytes decide, not the name.
        d.write("c.data", gzip(&[plain.as_bytes()])),
    ]
}

#[test]
fn one_corpus_in_every_format_signs_and_scans_identically() {
    let d = Dir::new();
    let files = every_format(&d);
    let run = |args: &[&str]| ok_stdout(&neardup_in(d.root(), args));
    let sign: Vec<String> = files.iter().map(|f| run(&["sign", "--jsonl", f])).collect();
    assert_eq!(sign[0].lines().count(), 40);
    let scan: Vec<String> = files
        .iter()
        .map(|f| run(&["scan", f, "--threshold", "0.7", "--pairs", "-", "--quiet"]))
        .collect();
    assert!(scan[0].lines().count() > 20, "{}", scan[0]);
    for (i, f) in files.iter().enumerate() {
        assert_eq!(sign[i], sign[0], "sign {f}");
        assert_eq!(scan[i], scan[0], "scan {f}");
    }
    // Compressed from standard input too.
    let gz = std::fs::read(&files[1]).unwrap();
    assert_eq!(
        ok_stdout(&neardup_stdin(&["sign", "--jsonl", "-"], &gz)),
        sign[0]
    );
    let zst = std::fs::read(&files[2]).unwrap();
    let piped = neardup_stdin(
        &["scan", "-", "--threshold", "0.7", "--pairs", "-", "--quiet"],
        &zst,
    );
    assert_eq!(ok_stdout(&piped), scan[0]);
}

#[test]
fn the_deduped_corpus_keeps_its_format() {
    let d = Dir::new();
    let files = every_format(&d);
    let dedup = |input: &str, out: &str| {
        let o = neardup_in(
            d.root(),
            &["scan", input, "--write-deduped", out, "--quiet"],
        );
        ok(&o);
        std::fs::read(d.path(out)).unwrap()
    };
    let plain = String::from_utf8(dedup(&files[0], "plain.jsonl")).unwrap();
    let kept = plain.lines().count();
    assert!(kept > 5 && kept < 40, "{kept}");

    let mut gz = String::new();
    flate2::read::MultiGzDecoder::new(&dedup(&files[1], "out.jsonl.gz")[..])
        .read_to_string(&mut gz)
        .unwrap();
    assert_eq!(gz, plain);
    // No extension: the input's own format.
    let zst = zstd::decode_all(&dedup(&files[2], "out-zstd")[..]).unwrap();
    assert_eq!(String::from_utf8(zst).unwrap(), plain);

    dedup(&files[3], "out.parquet");
    let (columns, ids) = parquet_rows(&d.path("out.parquet"));
    assert_eq!(columns, ["id", "text", "extra"]);
    let want: Vec<String> = plain
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(ids, want);
    // Parquet to JSONL when the name asks for it.
    assert_eq!(
        String::from_utf8(dedup(&files[3], "p.jsonl")).unwrap(),
        plain
    );
    // JSONL cannot become Parquet.
    let o = neardup_in(
        d.root(),
        &["scan", &files[0], "--write-deduped", "x.parquet", "--quiet"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("Parquet only from Parquet inputs"),
        "{}",
        stderr(&o)
    );
    assert!(!d.root().join("x.parquet").exists());
}

#[test]
fn corpus_files_inside_a_directory_are_read_as_corpora() {
    let d = Dir::new();
    std::fs::create_dir(d.root().join("tree")).unwrap();
    let docs = docs();
    let t = |name: &str| d.root().join("tree").join(name);
    std::fs::write(t("a.txt"), &docs[0].1).unwrap();
    std::fs::write(t("b.jsonl.gz"), gzip(&[jsonl_of(&docs[1..6]).as_bytes()])).unwrap();
    std::fs::write(t("c.txt"), &docs[3].1).unwrap();
    let o = neardup_in(d.root(), &["scan", "tree", "--keep-list", "-", "--quiet"]);
    let keep: Vec<String> = ok_stdout(&o).lines().map(str::to_owned).collect();
    // Path order: a.txt, then b's five documents, then c.txt. doc-05 has
    // doc-02's text (in other case) and c.txt doc-03's: both dropped.
    assert_eq!(keep, ["tree/a.txt", "doc-01", "doc-02", "doc-03", "doc-04"]);
    let o = neardup_in(d.root(), &["scan", "tree", "--drop-list", "-", "--quiet"]);
    assert_eq!(ok_stdout(&o), "doc-05\ntree/c.txt\n");
}

#[test]
fn broken_compressed_and_parquet_files_fail_clearly() {
    let d = Dir::new();
    let docs = docs();
    let plain = jsonl_of(&docs).repeat(20);
    let gz = gzip(&[plain.as_bytes()]);
    let truncated = d.write("t.jsonl.gz", &gz[..gz.len() * 2 / 3]);
    let mut zst = zstd_frames(&[plain.as_bytes()]);
    let mid = zst.len() / 2;
    zst[mid] ^= 0xa5;
    zst[mid + 1] ^= 0x5a;
    let corrupt = d.write("c.jsonl.zst", &zst);
    let short_zst = d.write("s.jsonl.zst", &zst[..zst.len() / 3]);
    for (file, needle) in [
        (
            &truncated,
            "truncated gzip stream, at or before compressed byte",
        ),
        (&corrupt, "zstd stream, at or before compressed byte"),
        (&short_zst, "zstd stream, at or before compressed byte"),
    ] {
        for cmd in [
            &["sign", "--jsonl", file.as_str()][..],
            &["scan", file.as_str(), "--pairs", "p.jsonl"][..],
        ] {
            let o = neardup_in(d.root(), cmd);
            assert_error(&o, 2, needle);
            assert!(stderr(&o).contains(file.as_str()), "{}", stderr(&o));
        }
    }
    assert!(!d.root().join("p.jsonl").exists(), "no partial output");

    let mut nulls: Vec<Option<&str>> = docs.iter().map(|d| Some(d.1.as_str())).collect();
    nulls[9] = None;
    let null_text = d.write(
        "n.parquet",
        parquet_of(&docs, Some(Arc::new(StringArray::from(nulls)))),
    );
    assert_error(
        &neardup_in(d.root(), &["sign", "--jsonl", &null_text]),
        2,
        "column 'text' row 10 is null",
    );
    let int_text = d.write(
        "i.parquet",
        parquet_of(&docs, Some(Arc::new(Int64Array::from_iter_values(0..40)))),
    );
    assert_error(
        &neardup_in(d.root(), &["scan", &int_text]),
        2,
        "column 'text' is Int64, not a string",
    );
    let o = neardup_in(
        d.root(),
        &["sign", "--jsonl", &null_text, "--text-field", "body"],
    );
    assert_error(&o, 2, "no column 'body' (columns: id, text, extra)");
    let o = neardup_stdin(
        &["sign", "--jsonl", "-"],
        &std::fs::read(&null_text).unwrap(),
    );
    assert_error(&o, 2, "Parquet needs a file it can seek in");
}

#[test]
fn integer_ids_read_the_same_from_parquet() {
    let d = Dir::new();
    let docs = docs();
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values((0..40).map(|i| 1000 - 7 * i)));
    let texts: ArrayRef = Arc::new(StringArray::from_iter_values(docs.iter().map(|d| &d.1)));
    let batch = RecordBatch::try_from_iter([("id", ids), ("text", texts)]).unwrap();
    let mut bytes = Vec::new();
    let mut w = ArrowWriter::try_new(&mut bytes, batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let pq = d.write("i.parquet", bytes);
    let lines: String = docs
        .iter()
        .enumerate()
        .map(|(i, (_, text))| json!({"id": 1000 - 7 * i as i64, "text": text}).to_string() + "\n")
        .collect();
    let jl = d.write("i.jsonl", lines);
    let sign = |f: &str| ok_stdout(&neardup_in(d.root(), &["sign", "--jsonl", f]));
    assert_eq!(sign(&pq), sign(&jl));
    assert!(sign(&pq).starts_with("{\"id\":1000,"));
}
