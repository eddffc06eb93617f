//! Parquet corpora: the id and text columns read a batch of rows at a time
//! and handed on as JSONL lines, and a deduped copy written with the
//! input's own schema.

use std::fs::File;
use std::io::{self, Read, Write};

use anyhow::{anyhow, bail, Result};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, BooleanArray, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::arrow::{ArrowWriter, ProjectionMask};

use super::Columns;

/// Rows decoded at once: memory stays bounded by this many rows of the two
/// columns, whatever the row-group size.
const BATCH_ROWS: usize = 4096;

/// The JSONL lines `{"<id>": ID, "<text>": TEXT}` of a Parquet file's id
/// and text columns, in row order. A row is numbered from 1, like a line.
pub struct ParquetLines {
    batches: ParquetRecordBatchReader,
    keys: [String; 2],
    columns: [String; 2],
    buf: Vec<u8>,
    pos: usize,
    row: u64,
}

impl ParquetLines {
    /// Checks that both columns exist with usable types, then reads lazily.
    pub fn open(file: File, columns: Columns<'_>) -> Result<ParquetLines> {
        let builder = ParquetRecordBatchReaderBuilder::try_new(file)?;
        let schema = builder.schema().clone();
        let mut roots = Vec::new();
        for (name, is_text) in [(columns.id, false), (columns.text, true)] {
            let (i, field) = schema
                .column_with_name(name)
                .ok_or_else(|| anyhow!("no column '{name}' (columns: {})", names(&schema)))?;
            let ok = if is_text {
                matches!(
                    field.data_type(),
                    DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
                )
            } else {
                matches!(
                    field.data_type(),
                    DataType::Utf8
                        | DataType::LargeUtf8
                        | DataType::Utf8View
                        | DataType::Int8
                        | DataType::Int16
                        | DataType::Int32
                        | DataType::Int64
                        | DataType::UInt8
                        | DataType::UInt16
                        | DataType::UInt32
                        | DataType::UInt64
                )
            };
            if !ok {
                let want = if is_text {
                    "a string"
                } else {
                    "a string or an integer"
                };
                bail!("column '{name}' is {}, not {want}", field.data_type());
            }
            roots.push(i);
        }
        let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
        let batches = builder
            .with_projection(mask)
            .with_batch_size(BATCH_ROWS)
            .build()?;
        let json = |s: &str| neardup::scan::lines::json_string(s);
        Ok(ParquetLines {
            batches,
            keys: [json(columns.id), json(columns.text)],
            columns: [columns.id.to_owned(), columns.text.to_owned()],
            buf: Vec::new(),
            pos: 0,
            row: 0,
        })
    }

    /// Turns the next batch into lines in `buf`; `false` at the end.
    fn refill(&mut self) -> Result<bool> {
        let Some(batch) = self.batches.next() else {
            return Ok(false);
        };
        let batch = batch?;
        let id = batch
            .column_by_name(&self.columns[0])
            .ok_or_else(|| anyhow!("no column '{}'", self.columns[0]))?;
        let text = batch
            .column_by_name(&self.columns[1])
            .ok_or_else(|| anyhow!("no column '{}'", self.columns[1]))?;
        self.buf.clear();
        self.pos = 0;
        for i in 0..batch.num_rows() {
            let row = self.row + 1 + i as u64;
            for (col, name) in [(id, &self.columns[0]), (text, &self.columns[1])] {
                if col.is_null(i) {
                    bail!("column '{name}' row {row} is null");
                }
            }
            self.buf.push(b'{');
            self.buf.extend_from_slice(self.keys[0].as_bytes());
            self.buf.push(b':');
            id_json(id, i, &mut self.buf);
            self.buf.push(b',');
            self.buf.extend_from_slice(self.keys[1].as_bytes());
            self.buf.push(b':');
            let s = string_at(text, i).unwrap_or_default();
            self.buf
                .extend_from_slice(neardup::scan::lines::json_string(s).as_bytes());
            self.buf.extend_from_slice(b"}\n");
        }
        self.row += batch.num_rows() as u64;
        Ok(true)
    }
}

impl Read for ParquetLines {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.buf.len() {
            match self.refill() {
                Ok(true) => {}
                Ok(false) => return Ok(0),
                Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, format!("{e:#}"))),
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

fn names(schema: &arrow_schema::Schema) -> String {
    let all: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    all.join(", ")
}

/// Row `i` of a string column of any of Arrow's three string layouts.
fn string_at(col: &dyn Array, i: usize) -> Option<&str> {
    match col.data_type() {
        DataType::Utf8 => Some(col.as_string::<i32>().value(i)),
        DataType::LargeUtf8 => Some(col.as_string::<i64>().value(i)),
        DataType::Utf8View => Some(col.as_string_view().value(i)),
        _ => None,
    }
}

/// Row `i` of an id column, as JSON: a string quoted, an integer as digits.
fn id_json(col: &dyn Array, i: usize, out: &mut Vec<u8>) {
    let digits = match col.data_type() {
        DataType::Int8 => col.as_primitive::<Int8Type>().value(i).to_string(),
        DataType::Int16 => col.as_primitive::<Int16Type>().value(i).to_string(),
        DataType::Int32 => col.as_primitive::<Int32Type>().value(i).to_string(),
        DataType::Int64 => col.as_primitive::<Int64Type>().value(i).to_string(),
        DataType::UInt8 => col.as_primitive::<UInt8Type>().value(i).to_string(),
        DataType::UInt16 => col.as_primitive::<UInt16Type>().value(i).to_string(),
        DataType::UInt32 => col.as_primitive::<UInt32Type>().value(i).to_string(),
        DataType::UInt64 => col.as_primitive::<UInt64Type>().value(i).to_string(),
        _ => neardup::scan::lines::json_string(string_at(col, i).unwrap_or_default()),
    };
    out.extend_from_slice(digits.as_bytes());
}

/// Copies the rows of Parquet files whose entry in their `keep` mask is
/// true (one entry per row) to `out`, a batch at a time, with the inputs'
/// schema, which must be one. Each input comes with its name for messages.
pub fn write_deduped_parquet<W: Write + Send>(
    inputs: Vec<(String, File, Vec<bool>)>,
    out: W,
) -> Result<()> {
    let mut writer: Option<(ArrowWriter<W>, arrow_schema::SchemaRef)> = None;
    let mut out = Some(out);
    for (name, file, keep) in inputs {
        let builder = ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(|e| anyhow!("reading '{name}' again: {e}"))?;
        let schema = builder.schema().clone();
        let w = match (&mut writer, out.take()) {
            (Some((w, first)), _) => {
                if *first != schema {
                    bail!("'{name}' has another schema than the first Parquet input, so they cannot share one Parquet output");
                }
                w
            }
            (None, Some(out)) => {
                let w = ArrowWriter::try_new(out, schema.clone(), None)?;
                &mut writer.insert((w, schema)).0
            }
            (None, None) => bail!("no Parquet output to write to"),
        };
        let reader = builder.with_batch_size(BATCH_ROWS).build()?;
        let mut row = 0usize;
        for batch in reader {
            let batch: RecordBatch = batch?;
            let n = batch.num_rows();
            let mask = keep
                .get(row..row + n)
                .ok_or_else(|| anyhow!("'{name}' changed during the scan"))?;
            row += n;
            let kept = arrow_select::filter::filter_record_batch(
                &batch,
                &BooleanArray::from(mask.to_vec()),
            )?;
            if kept.num_rows() > 0 {
                w.write(&kept)?;
            }
        }
        if row != keep.len() {
            bail!("'{name}' changed during the scan");
        }
    }
    if let Some((w, _)) = writer {
        w.close()?;
    }
    Ok(())
}
