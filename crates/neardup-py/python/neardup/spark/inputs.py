"""The sign stage's inputs: corpus files, read through ``neardup-corpus``
(the Rust crate ``neardup scan`` reads with, so the same files give the
same documents, ids and errors), and DataFrames.

A local input (a path, or a ``file://`` URI) is listed by the crate: a
directory's files in its order (bytewise path order; names starting with
``.`` or ``_`` left out), corpus files by their names, every other file one
text document whose id is its path. Each file is then signed:

- a plain JSONL file is split by Spark's text reader into byte ranges, and
  each range's lines are parsed and signed by ``_neardup.sign_lines``;
- a gzip or zstd JSONL file, a Parquet file and a text file are read whole
  by one task through ``_neardup.CorpusReader``, the crate's pipeline.

A file that cannot be read as a document (invalid UTF-8, an encrypted
PDF, a spreadsheet) is skipped with a warning on the task's stderr, as
``neardup scan`` skips it, so the other documents keep the CLI's numbers.
With ``lossy``, as with ``neardup scan --lossy``, invalid UTF-8 in a text
file or a JSONL line is replaced by U+FFFD (WHATWG's rule) instead: every
path below hands the flag to the crate, which decodes.

A remote input (``hdfs://``, ``s3a://``, ...) is listed with Hadoop's file
system, in the crate's order. Its JSONL files (plain, or gzip by name) are
read by Spark's text reader; every other file is read whole by Spark's
``binaryFile`` source, and its bytes handed to the crate on the executor:
a zstd JSONL or Parquet corpus to ``_neardup.CorpusReader`` (see
``_remote_corpus``), any other file, one document whose id is its path, to
``neardup.extract`` (plain text, DOCX, ODT, EPUB, HTML, PDF, RTF).
``binaryFile`` holds a file in one row, so such a file can be 2 GiB at
most (Spark's ``spark.sql.sources.binaryFile.maxLength``).
"""

import os
import sys
import tempfile

import numpy as np
import pyarrow as pa
from pyspark import TaskContext
from pyspark.sql import functions as F
from pyspark.sql import types as T

from .. import _neardup
from .arrow import (_arrow_schema, _batch, _column, _fingerprint_columns, _ints,
                    _sign_fields, _signed_schema)


def _sign_frame(df, src, id_col, text_col, k, n, words):
    """Signs a DataFrame in its row order: a document's group is its
    partition and its position the row's place in it, as ``collect()``
    would list them."""
    id_type = df.schema[id_col].dataType
    if not isinstance(id_type, (T.StringType, T.IntegerType, T.LongType, T.ShortType,
                                T.ByteType)):
        raise TypeError("column '%s' must be a string or an integer, got %s"
                        % (id_col, id_type.simpleString()))
    if not isinstance(df.schema[text_col].dataType, T.StringType):
        raise TypeError("column '%s' must be a string, got %s"
                        % (text_col, df.schema[text_col].dataType.simpleString()))
    out_id = T.StringType() if isinstance(id_type, T.StringType) else T.LongType()
    schema = _signed_schema(out_id)
    arrow = _arrow_schema(schema)

    def sign(batches):
        part = TaskContext.get().partitionId()
        pos = 0
        for b in batches:
            ids = _column(b, id_col)
            texts = _column(b, text_col)
            if ids.null_count or texts.null_count:
                bad = id_col if ids.null_count else text_col
                raise ValueError("column '%s' holds a null" % bad)
            size = len(b)
            cols = _sign_fields(texts.cast(pa.large_string()), k, n, words)
            cols.update(
                src=np.full(size, src, dtype=np.int32), g1=np.full(size, part, dtype=np.int64),
                g2=np.zeros(size, dtype=np.int64), pos=np.arange(pos, pos + size, dtype=np.int64),
                id_json=_neardup.ids_json(ids.to_pylist()),
                id=ids.cast(arrow.field("id").type))
            pos += size
            yield _batch(arrow, cols)

    return df.select(id_col, text_col).mapInArrow(sign, schema)



def _local(path):
    """The local path of ``path``, or None for a remote URI."""
    if path.startswith("file://"):
        return path[len("file://"):]
    return None if "://" in path else path


def _files(spark, path):
    """The files of one input, in ``neardup scan``'s order, as ``(path to
    open, name for ids and messages, kind)``: kind ``"jsonl"`` (plain, split
    by Spark's text reader), ``"corpus"`` or ``"text"`` (a local file read
    whole by the crate), ``"remote corpus"`` or ``"document"`` (a remote
    file read by ``binaryFile``, its bytes given to the crate), or ``"empty
    document"`` (a remote file of no bytes, which ``binaryFile`` leaves
    out)."""
    local = _local(path)
    if local is not None:
        files, skipped = _neardup.corpus_files(local)
        for problem in skipped:
            print("neardup.spark: warning: %s (skipped)" % problem, file=sys.stderr)
        out = []
        for name, is_corpus in files:
            kind = "text"
            if is_corpus:
                kind = "jsonl" if _neardup.file_format(name) == "jsonl" else "corpus"
            out.append((os.path.abspath(name), name, kind))
        return out
    return _remote_files(spark, path)


def _remote_files(spark, path):
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    p = jvm.org.apache.hadoop.fs.Path(path)
    fs = p.getFileSystem(conf)
    if not fs.exists(p):
        raise ValueError("reading '%s': no such file or directory" % path)
    status = fs.getFileStatus(p)
    if not status.isDirectory():
        # The URI as Hadoop spells it (`file:/a`, not `file:///a`), as
        # binaryFile's rows name it.
        return [(status.getPath().toString(), path, _remote_kind(path, path, status.getLen()))]
    root = status.getPath().toString().rstrip("/")
    found = {}
    it = fs.listFiles(p, True)
    while it.hasNext():
        f = it.next()
        uri = f.getPath().toString()
        rel = uri[len(root):].lstrip("/")
        if any(_neardup.is_skipped_name(x) for x in rel.split("/")):
            continue
        found[rel] = (uri, f.getLen())
    out = []
    for rel in _neardup.sort_paths(list(found)):
        name = path.rstrip("/") + "/" + rel
        uri, size = found[rel]
        out.append((uri, name, _remote_kind(rel, name, size)))
    return out


def _remote_kind(rel, name, size=None):
    # Spark's text reader splits plain JSONL and decompresses gzip by name
    # (zstd only with Hadoop's native library, which it may not have);
    # binaryFile reads the rest whole. What a name holds is the crate's one
    # table.
    kind = _neardup._corpus_kind(rel)
    if kind is None:
        # An empty file is an empty document to `neardup scan`, but Spark's
        # file sources list no file of no bytes.
        return "empty document" if size == 0 else "document"
    if kind in ("jsonl", "gzip"):
        return "jsonl"
    return "remote corpus"


def _sign_jsonl(spark, path, name, src, file_index, id_field, text_field, k, n, words, lossy):
    """Signs one plain JSONL file that Spark's text reader splits into
    blocks: a document's group is its file block and its position the count
    of documents before it in the block, so that blocks in offset order give
    line order."""
    schema = _signed_schema(T.StringType())
    arrow = _arrow_schema(schema)

    def sign(batches):
        state = (None, 0, 0)
        for b in batches:
            starts = _ints(_column(b, "start"), np.int64)
            blocks, poss, ids, sigs, state = _neardup.sign_lines(
                _column(b, "value"), starts, state, name, id_field, text_field, k, n, words,
                lossy)
            if not ids:
                continue
            size = len(ids)
            cols = _fingerprint_columns(sigs)
            cols.update(
                src=np.full(size, src, dtype=np.int32),
                g1=np.full(size, file_index, dtype=np.int64),
                g2=blocks, pos=poss, id_json=ids, id=ids)
            yield _batch(arrow, cols)

    lines = (spark.read.option("lineSep", "\n").text(path)
             .select(F.col("value").cast("binary").alias("value"),
                     F.col("_metadata.file_block_start").alias("start")))
    return lines.mapInArrow(sign, schema)


def _skip(name, error):
    print("neardup.spark: warning: reading '%s': %s (skipped)" % (name, error), file=sys.stderr)


def _reader_batches(arrow, reader, src, g1):
    """A ``CorpusReader``'s batches as signed rows: a document's group is its
    file and its position its place in the file, as ``neardup scan``
    numbers them."""
    pos = 0
    for _, ids, sigs in reader:
        size = len(ids)
        cols = _fingerprint_columns(sigs)
        cols.update(
            src=np.full(size, src, dtype=np.int32), g1=np.full(size, g1, dtype=np.int64),
            g2=np.zeros(size, dtype=np.int64), pos=np.arange(pos, pos + size, dtype=np.int64),
            id_json=ids, id=ids)
        pos += size
        yield _batch(arrow, cols)


def _remote_corpus(content, name, **reading):
    """A remote corpus file (zstd JSONL or Parquet) from the bytes
    ``binaryFile`` read: ``CorpusReader``'s batches of its documents.

    The bytes go to a temporary file on the executor, which the crate reads
    by path as it reads a local file, rather than to a reader of bytes:
    ``binaryFile`` already holds the whole file in this worker, so this is
    one local write, and the crate keeps its one way in (the format told by
    the first bytes, a Parquet file read through a seekable ``File``, its
    footer first), with no second entry per format in ``neardup-corpus``
    for Spark alone. The file is removed once read, or when the task stops
    reading; a message that names it names the file's URI instead."""
    with tempfile.TemporaryDirectory(prefix="neardup-spark-") as folder:
        path = os.path.join(folder, "corpus")
        with open(path, "wb") as f:
            f.write(content)
        try:
            yield from _neardup.CorpusReader(path, name=name, **reading)
        except ValueError as e:
            raise ValueError(str(e).replace(path, name)) from None


def _sign_documents(spark, files, id_field, text_field, k, n, words, lossy):
    """Signs remote files read by Spark's ``binaryFile`` source: ``files``
    holds ``(src, file_index, uri, name, kind)`` rows, ``uri`` as Hadoop
    lists it (binaryFile's ``path`` is the same string). A corpus file's
    documents are read by the crate (``_remote_corpus``); any other file is
    one document, extracted (an empty one, which binaryFile leaves out,
    comes from the driver). A document's group is its file."""
    schema = _signed_schema(T.StringType())
    arrow = _arrow_schema(schema)
    where = {uri: (src, g1, name, kind == "remote corpus")
             for src, g1, uri, name, kind in files}

    def sign(batches):
        for b in batches:
            contents = _column(b, "content")
            for i, uri in enumerate(_column(b, "path").to_pylist()):
                src, g1, name, corpus = where[uri]
                if corpus:
                    reader = _remote_corpus(
                        contents[i].as_buffer(), name, id_field=id_field,
                        text_field=text_field, k=k, n=n, words=words, lossy=lossy)
                    yield from _reader_batches(arrow, reader, src, g1)
                    continue
                try:
                    text = _neardup.extract(contents[i].as_py(), name=name, lossy=lossy)
                except ValueError as e:
                    _skip(name, e)
                    continue
                ids = _neardup.ids_json([name])
                cols = _sign_fields(pa.array([text], type=pa.large_string()), k, n, words)
                cols.update(
                    src=np.full(1, src, dtype=np.int32), g1=np.full(1, g1, dtype=np.int64),
                    g2=np.zeros(1, dtype=np.int64), pos=np.zeros(1, dtype=np.int64),
                    id_json=ids, id=ids)
                yield _batch(arrow, cols)

    full = [uri for _, _, uri, _, kind in files if kind != "empty document"]
    empty = [(uri, bytearray()) for _, _, uri, _, kind in files if kind == "empty document"]
    docs = None
    if full:
        docs = spark.read.format("binaryFile").load(full).select("path", "content")
    if empty:
        none = spark.createDataFrame(empty, "path string, content binary")
        docs = none if docs is None else docs.unionByName(none)
    return docs.mapInArrow(sign, schema)


def _sign_whole(spark, files, id_field, text_field, k, n, words, lossy):
    """Signs local files that are read whole, one task each at most:
    ``files`` holds ``(src, file_index, path, name, is_text)`` rows."""
    schema = _signed_schema(T.StringType())
    arrow = _arrow_schema(schema)

    def sign(batches):
        for b in batches:
            rows = zip(*(_column(b, c).to_pylist() for c in ("src", "g1", "path", "name", "text")))
            for src, g1, path, name, text in rows:
                reader = _neardup.CorpusReader(
                    path, name=name, id_field=id_field, text_field=text_field, k=k, n=n,
                    text=text, words=words, lossy=lossy)
                if text:
                    # One document: an unreadable one is skipped, as
                    # `neardup scan` skips it.
                    try:
                        reader = list(reader)
                    except ValueError as e:
                        _skip(name, str(e).removeprefix("reading '%s': " % name))
                        continue
                yield from _reader_batches(arrow, reader, src, g1)

    table = spark.createDataFrame(
        files, "src int, g1 long, path string, name string, text boolean")
    parts = max(1, min(len(files), spark.sparkContext.defaultParallelism))
    return table.repartition(parts).mapInArrow(sign, schema)


def read(spark, inputs, against=(), id_field="id", text_field="text", k=None, n=None,
         words=None, lossy=False):
    """Signs corpora (JSONL plain, gzip or zstd, Parquet) and text files (a
    directory gives its files in ``neardup scan``'s order), numbering
    documents as ``neardup scan`` does: ``against`` first, then ``inputs``,
    each file in line (row) order; blank lines are skipped. ``k``, ``n`` and
    ``words`` default (``None``) to the core's, as every call of the crate
    does. ``lossy`` replaces invalid UTF-8 in text files and JSONL lines by
    U+FFFD, as ``neardup scan --lossy`` does (else such a line is an error
    and such a file is skipped). Returns the signed documents, one row
    each, that :func:`scan_files` scans."""
    frames, whole, remote = [], [], []
    index = 0
    for src, paths in ((0, against), (1, inputs)):
        for path in paths:
            for f, name, kind in _files(spark, path):
                if kind == "jsonl":
                    frames.append(_sign_jsonl(spark, f, name, src, index, id_field, text_field,
                                              k, n, words, lossy))
                elif kind in ("document", "empty document", "remote corpus"):
                    remote.append((src, index, f, name, kind))
                else:
                    whole.append((src, index, f, name, kind == "text"))
                index += 1
    if whole:
        frames.append(_sign_whole(spark, whole, id_field, text_field, k, n, words, lossy))
    if remote:
        frames.append(_sign_documents(spark, remote, id_field, text_field, k, n, words, lossy))
    if not frames:
        raise ValueError("no input")
    signed = frames[0]
    for f in frames[1:]:
        signed = signed.unionByName(f)
    return signed
