//! Parquet corpora: the id and text columns read a batch of rows at a time
//! and handed on as JSONL lines, and a deduped copy written with the
//! input's own schema.

use std::fs::File;
use std::io::{self, Read, Write};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::arrow::{ArrowWriter, ProjectionMask};

use neardup::scan::lines::json_string;

use crate::jsonl::{write_line, Columns};
use crate::{Error, Result};

/// Rows decoded at once: memory stays bounded by this many rows of the two
/// columns, whatever the row-group size.
const BATCH_ROWS: usize = 4096;

/// A Parquet corpus's id and text columns, read a batch of rows at a
/// time as Arrow arrays: each document's text is borrowed from its
/// column, never written out as JSON and parsed again.
pub struct Rows {
    batches: ParquetRecordBatchReader,
    columns: [String; 2],
    /// Rows read so far: the next batch's first row is `read + 1`.
    read: u64,
}

impl Rows {
    /// Checks that both columns exist with usable types (a string or
    /// integer id, a string text), then reads lazily.
    pub fn open(file: File, columns: Columns<'_>) -> Result<Rows, String> {
        let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| e.to_string())?;
        let schema = builder.schema().clone();
        let mut roots = Vec::new();
        for (name, is_text) in [(columns.id, false), (columns.text, true)] {
            let (i, field) = schema
                .column_with_name(name)
                .ok_or_else(|| format!("no column '{name}' (columns: {})", names(&schema)))?;
            let ok = if is_text {
                is_string(field.data_type())
            } else {
                is_string(field.data_type()) || field.data_type().is_integer()
            };
            if !ok {
                let want = if is_text {
                    "a string"
                } else {
                    "a string or an integer"
                };
                return Err(format!(
                    "column '{name}' is {}, not {want}",
                    field.data_type()
                ));
            }
            roots.push(i);
        }
        let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
        let batches = builder
            .with_projection(mask)
            .with_batch_size(BATCH_ROWS)
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Rows {
            batches,
            columns: [columns.id.to_owned(), columns.text.to_owned()],
            read: 0,
        })
    }
}

impl Iterator for Rows {
    type Item = Result<RowBatch, String>;

    fn next(&mut self) -> Option<Self::Item> {
        let batch = match self.batches.next()? {
            Ok(batch) => batch,
            Err(e) => return Some(Err(e.to_string())),
        };
        let column = |name: &str| {
            batch
                .column_by_name(name)
                .cloned()
                .ok_or_else(|| format!("no column '{name}'"))
        };
        let first = self.read + 1;
        self.read += batch.num_rows() as u64;
        Some((|| {
            Ok(RowBatch {
                id: column(&self.columns[0])?,
                text: column(&self.columns[1])?,
                columns: self.columns.clone(),
                first,
            })
        })())
    }
}

/// One batch of rows of the id and text columns.
pub struct RowBatch {
    id: ArrayRef,
    text: ArrayRef,
    columns: [String; 2],
    /// The 1-based number of the batch's first row.
    first: u64,
}

/// One Parquet row: its number (from 1, like a line's), its id as JSON
/// text and its text, borrowed from the column.
pub struct Row<'b> {
    /// The 1-based row number, for messages.
    pub number: u64,
    /// The id as JSON text: a string quoted, an integer as digits.
    pub id: String,
    /// The text, where it lies in its column.
    pub text: &'b str,
}

impl RowBatch {
    /// The batch's rows, in order; a null id or text is an error naming
    /// its column and row.
    pub fn rows(&self) -> Result<Vec<Row<'_>>, String> {
        (0..self.id.len())
            .map(|i| {
                let number = self.first + i as u64;
                for (col, name) in [(&self.id, &self.columns[0]), (&self.text, &self.columns[1])] {
                    if col.is_null(i) {
                        return Err(format!("column '{name}' row {number} is null"));
                    }
                }
                Ok(Row {
                    number,
                    id: id_json(&*self.id, i),
                    text: string_at(&*self.text, i).unwrap_or_default(),
                })
            })
            .collect()
    }
}

/// The JSONL lines `{"<id>": ID, "<text>": TEXT}` of a Parquet file's id
/// and text columns, in row order: what `neardup scan --write-deduped`
/// writes for a Parquet input into a JSONL output.
pub struct ParquetLines {
    rows: Rows,
    buf: Vec<u8>,
    pos: usize,
}

impl ParquetLines {
    /// The lines of `rows`.
    pub fn new(rows: Rows) -> ParquetLines {
        ParquetLines {
            rows,
            buf: Vec::new(),
            pos: 0,
        }
    }

    /// Turns the next batch into lines in `buf`; `false` at the end.
    fn refill(&mut self) -> Result<bool, String> {
        let Some(batch) = self.rows.next() else {
            return Ok(false);
        };
        let batch = batch?;
        self.buf.clear();
        self.pos = 0;
        let [id, text] = &self.rows.columns;
        let keys = [id.as_str(), text.as_str()];
        for row in batch.rows()? {
            write_line(&mut self.buf, keys, &row.id, row.text);
        }
        Ok(true)
    }
}

impl Read for ParquetLines {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.buf.len() {
            match self.refill() {
                Ok(true) => {}
                Ok(false) => return Ok(0),
                Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, e)),
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

fn is_string(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
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
fn id_json(col: &dyn Array, i: usize) -> String {
    match col.data_type() {
        DataType::Int8 => col.as_primitive::<Int8Type>().value(i).to_string(),
        DataType::Int16 => col.as_primitive::<Int16Type>().value(i).to_string(),
        DataType::Int32 => col.as_primitive::<Int32Type>().value(i).to_string(),
        DataType::Int64 => col.as_primitive::<Int64Type>().value(i).to_string(),
        DataType::UInt8 => col.as_primitive::<UInt8Type>().value(i).to_string(),
        DataType::UInt16 => col.as_primitive::<UInt16Type>().value(i).to_string(),
        DataType::UInt32 => col.as_primitive::<UInt32Type>().value(i).to_string(),
        DataType::UInt64 => col.as_primitive::<UInt64Type>().value(i).to_string(),
        _ => json_string(string_at(col, i).unwrap_or_default()),
    }
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
            .map_err(|e| Error::Refused(format!("reading '{name}' again: {e}")))?;
        let schema = builder.schema().clone();
        let w = match (&mut writer, out.take()) {
            (Some((w, first)), _) => {
                if *first != schema {
                    return Err(Error::Refused(format!("'{name}' has another schema than the first Parquet input, so they cannot share one Parquet output")));
                }
                w
            }
            (None, Some(out)) => {
                let w = ArrowWriter::try_new(out, schema.clone(), None).map_err(writing)?;
                &mut writer.insert((w, schema)).0
            }
            (None, None) => return Err(Error::Refused("no Parquet output to write to".into())),
        };
        let reader = builder
            .with_batch_size(BATCH_ROWS)
            .build()
            .map_err(|e| Error::read(&name, e.to_string()))?;
        let mut row = 0usize;
        for batch in reader {
            let batch: RecordBatch = batch.map_err(|e| Error::read(&name, e.to_string()))?;
            let n = batch.num_rows();
            let mask = keep.get(row..row + n).ok_or_else(|| changed(&name))?;
            row += n;
            let kept = arrow_select::filter::filter_record_batch(
                &batch,
                &BooleanArray::from(mask.to_vec()),
            )
            .map_err(writing)?;
            if kept.num_rows() > 0 {
                w.write(&kept).map_err(writing)?;
            }
        }
        if row != keep.len() {
            return Err(changed(&name));
        }
    }
    if let Some((w, _)) = writer {
        w.close().map_err(writing)?;
    }
    Ok(())
}

/// An error of the Parquet writer, in words.
fn writing(e: impl std::fmt::Display) -> Error {
    Error::Refused(format!("writing the deduped Parquet corpus: {e}"))
}

/// A Parquet input that is not as the scan read it.
fn changed(name: &str) -> Error {
    Error::Refused(format!("'{name}' changed during the scan"))
}
