"""neardup.spark: ``neardup scan`` on Apache Spark, giving the same bytes.

The scan's stages are Spark operations on the core's functions
(``neardup.ScanPlan``); the engine only brings rows together, and
everything that decides a reported pair, a cluster or a keeper is the core's
(see ``neardup::scan``), so that a cluster run writes, byte for byte, the
files ``neardup scan`` writes on one machine:

1. **sign**: ``mapInArrow`` over whole Arrow batches, ``sign_batch`` on each;
   every document gets its number in input order (``against`` first, then
   the documents: file order, then line or row order);
2. **exact**: documents grouped by ``normalized_sha256``; each group's first
   document stands for it (``ScanPlan.exact_pairs``);
3. **bands**: the representatives' band records (``ScanPlan.band_records``),
   grouped by ``(band, key)``; a bucket larger than ``block_size`` is cut
   into blocks of consecutive documents, and each block with itself and each
   two blocks are one unit of work, so a huge bucket never lands in one task
   and the cut never changes the result;
4. **pairs**: each unit's candidates verified on their exact slot-match
   count, counted only in the first band they share
   (``ScanPlan.verify_blocks``);
5. **clusters**: connected components by large-star / small-star rounds
   (Kiveris et al., 2014) over DataFrames, checkpointed each round, never
   collecting edges to the driver; the keeper of a cluster is its smallest
   document number (first in input order);
6. **receipts**: each pair's ``receipt_sha256`` and its ``--pairs`` line
   (``ScanPlan.receipts``).

Document numbers never come from ``monotonically_increasing_id``: a
document's number is counted from the position of its row within its file
block (or its DataFrame partition, or its ``order_col`` rank), and the
number of rows before that block, so it depends on the input alone.

Command line (``python -m neardup.spark --help``)::

    python -m neardup.spark INPUT... --pairs P --clusters C \\
        [--keep-list F] [--drop-list F] [--against REF]... [--master URL] \\
        [--threshold T] [-k K] [-n N]
"""

import os
import re
import secrets
import sys
import time

import numpy as np
import pyarrow as pa
from pyspark import StorageLevel, TaskContext
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from .. import _neardup

__all__ = ["BLOCK_SIZE", "ScanFrames", "read", "scan", "scan_files", "session"]

#: Documents of one bucket handled by one unit of work at most: a bucket of
#: ``m`` documents gives ``m²/2`` candidates, so a larger one is cut into
#: blocks of this many consecutive documents.
BLOCK_SIZE = 2048

_NO_SIGNATURE = 0xFFFFFFFF


# ---------------------------------------------------------------- arrow


def _column(batch, name):
    return batch.column(batch.schema.get_field_index(name))


def _ints(col, dtype):
    return np.asarray(col.to_numpy(zero_copy_only=False), dtype=dtype)


def _signature_column(matrix, has):
    """A (len, n) uint32 matrix as a binary column of 4·n little-endian bytes
    a row, null where ``has`` is false."""
    n = matrix.shape[1]
    lens = np.where(has, 4 * n, 0).astype(np.int32)
    offsets = np.zeros(len(has) + 1, dtype=np.int32)
    np.cumsum(lens, out=offsets[1:])
    data = np.ascontiguousarray(matrix[has], dtype="<u4").tobytes()
    validity = pa.array(has, type=pa.bool_()).buffers()[1]
    return pa.Array.from_buffers(
        pa.binary(), len(has), [validity, pa.py_buffer(offsets), pa.py_buffer(data)],
        null_count=int((~has).sum()))


def _signature_matrix(col, n):
    """A binary signature column back to a (len, n) uint32 matrix (rows of a
    null all 0xFFFFFFFF) and the has-signature mask."""
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    if pa.types.is_large_binary(col.type):
        wide = np.int64
    elif pa.types.is_binary(col.type):
        wide = np.int32
    else:
        raise TypeError("signature column must be binary, got %s" % col.type)
    size = len(col)
    has = np.asarray(col.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    out = np.full((size, n), _NO_SIGNATURE, dtype=np.uint32)
    if not has.any():
        return out, has
    bufs = col.buffers()
    offsets = np.frombuffer(bufs[1], dtype=wide)[col.offset:col.offset + size + 1]
    starts = offsets[:-1][has]
    if not np.all(offsets[1:][has] - starts == 4 * n):
        raise ValueError("a signature of another length than n = %d slots" % n)
    data = np.frombuffer(bufs[2], dtype=np.uint8)
    first = int(starts[0])
    if len(starts) == size and np.array_equal(starts, first + 4 * n * np.arange(size)):
        # Every row present and back to back: the buffer is the matrix.
        out[:] = data[first:first + 4 * n * size].view("<u4").reshape(size, n)
        return out, has
    rows = data[starts[:, None] + np.arange(4 * n)]
    out[has] = np.ascontiguousarray(rows).view("<u4").reshape(-1, n)
    return out, has


def _batch(schema, columns):
    return pa.RecordBatch.from_arrays(
        [pa.array(columns[f.name], type=f.type) if not isinstance(columns[f.name], pa.Array)
         else columns[f.name] for f in schema], schema=schema)


# ------------------------------------------------------------ the stages

#: What the sign stage gives for each document: where it sits in the input
#: (``src`` 0 for ``against``, 1 for the documents; a group ``g1, g2`` and a
#: position ``pos`` in it), its id (as given, and as the JSON text of the
#: output lines), and its fingerprint.
_SIGNED = [
    ("src", T.IntegerType()), ("g1", T.LongType()), ("g2", T.LongType()),
    ("pos", T.LongType()), ("id_json", T.StringType()), ("sha", T.StringType()),
    ("shingles", T.LongType()), ("sig", T.BinaryType()),
]


def _signed_schema(id_type):
    fields = [T.StructField(name, t, True) for name, t in _SIGNED]
    return T.StructType(fields + [T.StructField("id", id_type, True)])


def _arrow_schema(spark_schema):
    out = []
    for f in spark_schema.fields:
        t = {T.IntegerType: pa.int32(), T.LongType: pa.int64(), T.StringType: pa.string(),
             T.BinaryType: pa.binary(), T.DoubleType: pa.float64()}.get(type(f.dataType))
        if t is None:
            raise TypeError("no arrow type for %s" % f.dataType)
        out.append(pa.field(f.name, t))
    return pa.schema(out)


def _sign_fields(texts, k, n):
    """The fingerprint columns of a list (or arrow array) of texts."""
    b = _neardup.sign_batch(texts, k=k, n=n, threads=1)
    return {
        "sha": pa.array(b.normalized_sha256, type=pa.string()),
        "shingles": pa.array(np.asarray(b.shingles, dtype=np.int64)),
        "sig": _signature_column(np.asarray(b.signatures), np.asarray(b.has_signature)),
    }


def _sign_frame(df, src, id_col, text_col, k, n):
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
            cols = _sign_fields(texts.cast(pa.large_string()), k, n)
            cols.update(
                src=np.full(size, src, dtype=np.int32), g1=np.full(size, part, dtype=np.int64),
                g2=np.zeros(size, dtype=np.int64), pos=np.arange(pos, pos + size, dtype=np.int64),
                id_json=_neardup.ids_json(ids.to_pylist()),
                id=ids.cast(arrow.field("id").type))
            pos += size
            yield _batch(arrow, cols)

    return df.select(id_col, text_col).mapInArrow(sign, schema)


class _Int(str):
    """An integer as its JSON digits, exactly as written."""


class _Obj(list):
    """A JSON object's (key, value) pairs, in order."""


def _no_constant(name):
    raise ValueError("%s is not JSON" % name)


def _document(line, id_field, text_field):
    """One JSONL line's ``(id as JSON text or None for a str id, id str,
    text)``, read as ``neardup scan`` reads it."""
    import json
    try:
        obj = json.loads(line, object_pairs_hook=_Obj, parse_int=_Int,
                         parse_constant=_no_constant)
    except ValueError as e:
        raise ValueError(str(e)) from None
    if not isinstance(obj, _Obj):
        raise ValueError("expected a JSON object with '%s' and '%s'" % (id_field, text_field))
    found = {}
    for key, value in obj:
        if key in (id_field, text_field):
            if key in found:
                raise ValueError("duplicate field '%s'" % key)
            found[key] = value
    if id_field not in found:
        raise ValueError("missing field '%s'" % id_field)
    if text_field not in found:
        raise ValueError("missing field '%s'" % text_field)
    ident, text = found[id_field], found[text_field]
    if not isinstance(text, str) or isinstance(text, _Int):
        raise ValueError("field '%s' must be a string" % text_field)
    if isinstance(ident, _Int):
        return str(ident), None, text
    if isinstance(ident, str):
        return None, ident, text
    raise ValueError("field '%s' must be a string or an integer, got %s"
                     % (id_field, json.dumps(ident)[:40]))


def _sign_jsonl(spark, path, name, src, file_index, id_field, text_field, k, n):
    """Signs one JSONL file: a document's group is its file block and its
    position the count of non-blank lines before it in the block, so that
    blocks in offset order give line order."""
    schema = _signed_schema(T.StringType())
    arrow = _arrow_schema(schema)

    def sign(batches):
        group, pos, line = None, 0, 0
        for b in batches:
            values = _column(b, "value").to_pylist()
            starts = _column(b, "start").to_numpy(zero_copy_only=False)
            g2, poss, ids, strs, texts = [], [], [], [], []
            for raw, start in zip(values, starts):
                if start != group:
                    group, pos, line = start, 0, 0
                line += 1
                if not raw.strip(b" \t\n\r\x0b\x0c"):
                    continue
                where = ("'%s' line %d" % (name, line) if start == 0 else
                         "'%s' line %d of the block at byte %d" % (name, line, start))
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise ValueError("%s: invalid UTF-8 at byte %d of the line"
                                     % (where, e.start)) from None
                try:
                    id_json, id_str, body = _document(text, id_field, text_field)
                except ValueError as e:
                    raise ValueError("%s: %s" % (where, e)) from None
                g2.append(start)
                poss.append(pos)
                ids.append(id_json)
                strs.append(id_str)
                texts.append(body)
                pos += 1
            if not texts:
                continue
            need = [i for i, s in enumerate(strs) if s is not None]
            for i, j in zip(need, _neardup.ids_json([strs[i] for i in need])):
                ids[i] = j
            size = len(texts)
            cols = _sign_fields(texts, k, n)
            cols.update(
                src=np.full(size, src, dtype=np.int32),
                g1=np.full(size, file_index, dtype=np.int64),
                g2=np.asarray(g2, dtype=np.int64), pos=np.asarray(poss, dtype=np.int64),
                id_json=ids, id=ids)
            yield _batch(arrow, cols)

    lines = (spark.read.option("lineSep", "\n").text(path)
             .select(F.col("value").cast("binary").alias("value"),
                     F.col("_metadata.file_block_start").alias("start")))
    return lines.mapInArrow(sign, schema)


def _sign_parquet(spark, path, name, src, file_index, id_field, text_field, k, n):
    """Signs one Parquet file: a document's group is its file, its position
    its row index."""
    df = spark.read.parquet(path)
    fields = {f.name: f.dataType for f in df.schema.fields}
    for col, ok, want in ((id_field, (T.StringType, T.IntegerType, T.LongType, T.ShortType,
                                      T.ByteType, T.DecimalType), "a string or an integer"),
                          (text_field, (T.StringType,), "a string")):
        if col not in fields:
            raise ValueError("'%s': no column '%s' (columns: %s)"
                             % (name, col, ", ".join(fields)))
        if not isinstance(fields[col], ok) or (
                isinstance(fields[col], T.DecimalType) and fields[col].scale != 0):
            raise ValueError("'%s': column '%s' is %s, not %s"
                             % (name, col, fields[col].simpleString(), want))
    is_str = isinstance(fields[id_field], T.StringType)
    schema = _signed_schema(T.StringType())
    arrow = _arrow_schema(schema)

    def sign(batches):
        for b in batches:
            ids, texts = _column(b, "id"), _column(b, "text")
            rows = _ints(_column(b, "row"), np.int64)
            for col, label in ((ids, id_field), (texts, text_field)):
                if col.null_count:
                    at = int(rows[np.flatnonzero(~np.asarray(
                        col.is_valid().to_numpy(zero_copy_only=False)))[0]])
                    raise ValueError("'%s': column '%s' row %d is null" % (name, label, at + 1))
            values = ids.to_pylist()
            id_json = _neardup.ids_json(values) if is_str else [str(int(v)) for v in values]
            size = len(b)
            cols = _sign_fields(texts.cast(pa.large_string()), k, n)
            cols.update(
                src=np.full(size, src, dtype=np.int32),
                g1=np.full(size, file_index, dtype=np.int64), g2=np.zeros(size, dtype=np.int64),
                pos=rows, id_json=id_json, id=id_json)
            yield _batch(arrow, cols)

    return (df.select(F.col(id_field).alias("id"), F.col(text_field).alias("text"),
                      F.col("_metadata.row_index").alias("row"))
            .mapInArrow(sign, schema))


def _shuffle(df, partitions, *cols):
    """Hash-partitions ``df`` by ``cols``: into ``partitions`` when given,
    else as Spark chooses (``spark.sql.shuffle.partitions``, coalesced by
    adaptive execution)."""
    return df.repartition(partitions, *cols) if partitions else df.repartition(*cols)


def _number(spark, signed, partitions):
    """Gives every signed document its number in input order: the rows of
    all groups before its own, plus its position in its group. Returns the
    documents, partitioned by number, and how many came from ``against``."""
    signed = signed.persist(StorageLevel.MEMORY_AND_DISK)
    counts = sorted(tuple(r) for r in signed.groupBy("src", "g1", "g2").count().collect())
    bases, total, refs = [], 0, 0
    for src, g1, g2, c in counts:
        bases.append((src, g1, g2, total))
        total += c
        if src == 0:
            refs += c
    if total >= 0xFFFFFFFF:
        raise ValueError("more than 4 294 967 294 documents")
    base = spark.createDataFrame(
        bases, "src int, g1 long, g2 long, base long")
    docs = (signed.join(F.broadcast(base), ["src", "g1", "g2"])
            .select((F.col("base") + F.col("pos")).alias("doc"), "src", "id", "id_json", "sha",
                    "shingles", "sig")
            .transform(lambda d: _shuffle(d, partitions, "doc"))
            .persist(StorageLevel.MEMORY_AND_DISK))
    # This job is also the one that fills the cache of `docs`.
    dup = (docs.groupBy("id_json").agg(F.count("*").alias("c"), F.min("doc").alias("first"),
                                       F.max("doc").alias("last"))
           .filter("c > 1").orderBy("first").limit(1).collect())
    signed.unpersist()
    if dup:
        d = dup[0]
        raise ValueError("duplicate id %s (documents %d and %d in input order)"
                         % (d["id_json"], d["first"], d["last"]))
    return docs, refs, total


def _exact(docs, plan, refs, partitions):
    """The exact stage: the IDENTICAL pairs, and the representatives (the
    first document of each digest) that have a signature."""
    by_sha = Window.partitionBy("sha")
    groups = (docs.select("doc", "sha")
              .withColumn("g", F.count("*").over(by_sha))
              .withColumn("first", F.min("doc").over(by_sha))
              .persist(StorageLevel.MEMORY_AND_DISK))
    reps = groups.filter("doc = first").select("doc")
    members = (groups.filter("g > 1").select("doc")
               .join(docs.select("doc", "sha", "sig"), "doc")
               .transform(lambda d: _shuffle(d, partitions, "sha"))
               .sortWithinPartitions("sha", "doc"))
    n, args = plan.n, _plan_args(plan)
    schema = T.StructType([T.StructField("a", T.LongType()), T.StructField("b", T.LongType()),
                           T.StructField("matches", T.IntegerType())])

    def exact(batches):
        # A group pairs its first document with each other one, so a group
        # running over several batches goes on in the next batch with its
        # first row put in front: memory stays one batch, whatever the
        # group's size (a corpus can hold a million empty documents).
        p = _neardup.ScanPlan(*args)
        head, head_sha = None, None
        for b in batches:
            if len(b) == 0:
                continue
            sha = _column(b, "sha").to_pylist()
            if sha[0] == head_sha:
                b = pa.concat_tables([head, pa.Table.from_batches([b])]).combine_chunks()
                b = b.to_batches()[0]
                sha = [head_sha] + sha
            last = len(sha) - 1
            start = last
            while start > 0 and sha[start - 1] == sha[last]:
                start -= 1
            head, head_sha = pa.Table.from_batches([b.slice(start, 1)]), sha[last]
            sigs, has = _signature_matrix(_column(b, "sig"), n)
            a, bb, m, _, _ = p.exact_pairs(sha, _ints(_column(b, "doc"), np.uint32), sigs, has,
                                           refs)
            yield _pairs_batch(a, bb, m)

    pairs = members.mapInArrow(exact, schema)
    return pairs, reps, groups


def _pairs_batch(a, b, m):
    m = np.asarray(m, dtype=np.int64)
    return pa.RecordBatch.from_arrays(
        [pa.array(np.asarray(a, dtype=np.int64)), pa.array(np.asarray(b, dtype=np.int64)),
         pa.array(m.astype(np.int32), mask=m < 0)],
        names=["a", "b", "matches"])


def _groups(batches, keys):
    """Re-cuts a partition's sorted batches so that no run of equal ``keys``
    straddles two: each batch yielded ends at a run's end."""
    pending = None
    for b in batches:
        t = pa.Table.from_batches([b]) if pending is None else pa.concat_tables(
            [pending, pa.Table.from_batches([b])])
        if t.num_rows == 0:
            continue
        cols = [t.column(k).to_numpy() if not pa.types.is_string(t.column(k).type)
                else np.asarray(t.column(k).to_pylist(), dtype=object) for k in keys]
        last = t.num_rows - 1
        same = np.ones(t.num_rows, dtype=bool)
        for c in cols:
            same &= c == c[last]
        # The last run starts after the last row that differs from the end.
        differ = np.flatnonzero(~same)
        cut = int(differ[-1]) + 1 if len(differ) else 0
        if cut:
            yield t.slice(0, cut).combine_chunks().to_batches()[0]
        pending = t.slice(cut)
    if pending is not None and pending.num_rows:
        yield pending.combine_chunks().to_batches()[0]


def _plan_args(plan):
    return (plan.threshold, plan.k, plan.n, plan.bands, plan.rows)


def _near(docs, reps, plan, refs, partitions, block_size):
    """The band and pair stages: the representatives' band records grouped
    into buckets, buckets cut into blocks, each unit's candidates verified
    in the first band they share."""
    n, args = plan.n, _plan_args(plan)
    rep_docs = docs.select("doc", "sig").join(reps, "doc", "left_semi").filter("sig is not null")
    records_schema = T.StructType([T.StructField("band", T.IntegerType()),
                                   T.StructField("key", T.LongType()),
                                   T.StructField("doc", T.LongType())])

    def bands(batches):
        p = _neardup.ScanPlan(*args)
        for b in batches:
            sigs, _ = _signature_matrix(_column(b, "sig"), n)
            band, key, doc = p.band_records(_ints(_column(b, "doc"), np.uint32), sigs)
            yield pa.RecordBatch.from_arrays(
                [pa.array(band.astype(np.int32)), pa.array(key.view(np.int64)),
                 pa.array(doc.astype(np.int64))], names=["band", "key", "doc"])

    records = rep_docs.mapInArrow(bands, records_schema)
    bucket = Window.partitionBy("band", "key")
    ranked = (records
              .withColumn("m", F.count("*").over(bucket))
              .withColumn("top", F.max("doc").over(bucket))
              .filter((F.col("m") > 1) & (F.col("top") >= refs))
              .withColumn("r", F.row_number().over(bucket.orderBy("doc")) - 1))
    blocks = F.floor(F.col("r") / block_size).cast("long")
    nblocks = F.floor((F.col("m") - 1) / block_size).cast("long")
    units = (ranked.select("band", "key", "doc", blocks.alias("block"), nblocks.alias("last"))
             .withColumn("other", F.explode(F.sequence(F.lit(0).cast("long"), F.col("last"))))
             .select("band", "key", "doc", "block",
                     F.least("block", "other").alias("left"),
                     F.greatest("block", "other").alias("right")))
    with_sigs = (units.join(docs.select("doc", "sig"), "doc")
                 .transform(lambda d: _shuffle(d, partitions, "band", "key", "left", "right"))
                 .sortWithinPartitions("band", "key", "left", "right", "doc"))
    schema = T.StructType([T.StructField("a", T.LongType()), T.StructField("b", T.LongType()),
                           T.StructField("matches", T.IntegerType())])

    def verify(batches):
        p = _neardup.ScanPlan(*args)
        for b in _groups(batches, ["band", "key", "left", "right"]):
            sigs, _ = _signature_matrix(_column(b, "sig"), n)
            a, bb, m, _ = p.verify_blocks(
                _ints(_column(b, "band"), np.uint32),
                _ints(_column(b, "key"), np.int64).view(np.uint64),
                _ints(_column(b, "left"), np.uint32), _ints(_column(b, "right"), np.uint32),
                _ints(_column(b, "block"), np.uint32), _ints(_column(b, "doc"), np.uint32),
                sigs, refs)
            yield _pairs_batch(a, bb, m)

    return with_sigs.mapInArrow(verify, schema)


def _checkpoint(df):
    sc = df.sparkSession.sparkContext
    if sc.getCheckpointDir():
        return df.checkpoint(eager=True)
    return df.localCheckpoint(eager=True)


def _components(pairs):
    """Connected components of the pairs by large-star / small-star rounds:
    returns ``(doc, root)`` for every document in a pair, its root the
    smallest document of its component. Each round is checkpointed, so the
    plan stays small however many rounds the graph needs."""
    # The pairs are unique and checkpointed already.
    edges = pairs.select(F.col("b").alias("u"), F.col("a").alias("v"))
    rounds = 0
    while True:
        rounds += 1
        # Large star: every neighbour larger than u points to u's smallest
        # neighbour (or u).
        both = edges.union(edges.select(F.col("v").alias("u"), F.col("u").alias("v")))
        low = both.groupBy("u").agg(F.least(F.min("v"), F.col("u")).alias("m"))
        large = (both.join(low, "u").filter(F.col("v") > F.col("u"))
                 .select(F.col("v").alias("u"), F.col("m").alias("v")))
        # Small star: u and every neighbour smaller than u point to the
        # smallest of them.
        down = large.select(F.greatest("u", "v").alias("u"), F.least("u", "v").alias("v"))
        low = down.groupBy("u").agg(F.min("v").alias("m"))
        small = (down.join(low, "u").filter(F.col("v") != F.col("m"))
                 .select(F.col("v").alias("u"), F.col("m").alias("v"))
                 .union(low.select("u", F.col("m").alias("v"))).distinct())
        new = _checkpoint(small)
        # Converged when the edges are stars: one parent each, and no
        # parent has a parent.
        many = new.groupBy("u").count().filter("count > 1").select("u")
        deep = new.join(new.select(F.col("u").alias("v")), "v", "left_semi").select("u")
        edges = new
        if not many.union(deep).limit(1).count():
            break
    roots = edges.select(F.col("v").alias("doc")).distinct().withColumn("root", F.col("doc"))
    return edges.select(F.col("u").alias("doc"), F.col("v").alias("root")).union(roots), rounds


def _rank(spark, df, key):
    """``df`` with ``rank``: each row's place (from 0) in ``key`` order, by
    counting the rows of the range partitions before its own."""
    ordered = df.repartitionByRange(key).sortWithinPartitions(key)
    schema = T.StructType(list(df.schema.fields) + [T.StructField("part", T.IntegerType()),
                                                    T.StructField("pos", T.LongType())])
    arrow_extra = ["part", "pos"]

    def place(batches):
        part, pos = TaskContext.get().partitionId(), 0
        for b in batches:
            size = len(b)
            arrays = list(b.columns) + [pa.array(np.full(size, part, dtype=np.int32)),
                                        pa.array(np.arange(pos, pos + size, dtype=np.int64))]
            pos += size
            yield pa.RecordBatch.from_arrays(arrays, names=list(b.schema.names) + arrow_extra)

    placed = ordered.mapInArrow(place, schema).persist(StorageLevel.MEMORY_AND_DISK)
    counts = sorted(tuple(r) for r in placed.groupBy("part").count().collect())
    bases, total = [], 0
    for part, c in counts:
        bases.append((part, total))
        total += c
    base = spark.createDataFrame(bases or [(0, 0)], "part int, base long")
    return (placed.join(F.broadcast(base), "part")
            .withColumn("rank", F.col("base") + F.col("pos")).drop("part", "pos", "base"))


# ------------------------------------------------------------ the result


class ScanFrames:
    """What a scan reports, as DataFrames whose columns are those of the
    ``neardup scan`` outputs:

    - ``pairs``: ``a``, ``b`` (ids), ``matches``, ``n``, ``receipt_sha256``,
      ``similarity``, ``verdict``;
    - ``clusters``: ``cluster`` (0, 1, … by keeper), ``keep``, ``members``
      (keeper first, in input order), ``size``;
    - ``keep``, ``drop``: ``id``.

    Each has an internal order column (``_a, _b`` / ``_keeper`` / ``_doc``):
    ``write`` sorts by it. ``stats`` and ``times`` (seconds per stage) say
    what the scan did."""

    def __init__(self, pairs, clusters, keep, drop, stats, times):
        self._pairs, self._clusters, self._keep, self._drop = pairs, clusters, keep, drop
        self.stats, self.times = stats, times

    @property
    def pairs(self):
        return self._pairs.orderBy("_a", "_b").select(
            "a", "b", "matches", "n", "receipt_sha256", "similarity", "verdict")

    @property
    def clusters(self):
        return self._clusters.orderBy("_keeper").select("cluster", "keep", "members", "size")

    @property
    def keep(self):
        return self._keep.orderBy("_doc").select("id")

    @property
    def drop(self):
        return self._drop.orderBy("_doc").select("id")

    def write(self, pairs=None, clusters=None, keep_list=None, drop_list=None):
        """Writes the files ``neardup scan`` writes with ``--pairs``,
        ``--clusters``, ``--keep-list`` and ``--drop-list``, byte for byte,
        each to a temporary beside it, renamed into place once complete
        (``-`` is standard output). The rows reach the driver one partition
        at a time, in order."""
        jobs = []
        if pairs:
            jobs.append((pairs, lambda: (r[0] for r in self._pairs.orderBy("_a", "_b")
                                         .select("_line").toLocalIterator())))
        if clusters:
            def cluster_text():
                rows = self._clusters.orderBy("_keeper").select("cluster", "_members")
                chunk, first = [], None
                for r in rows.toLocalIterator():
                    if first is None:
                        first = r[0]
                    chunk.append(list(r[1]))
                    if len(chunk) >= 4096:
                        yield _neardup.cluster_lines(first, chunk)
                        chunk, first = [], None
                if chunk:
                    yield _neardup.cluster_lines(first, chunk)
            jobs.append((clusters, cluster_text))
        for path, frame in ((keep_list, self._keep), (drop_list, self._drop)):
            if path:
                def list_text(frame=frame):
                    chunk = []
                    for r in frame.orderBy("_doc").select("id_json").toLocalIterator():
                        chunk.append(r[0])
                        if len(chunk) >= 65536:
                            yield _neardup.list_lines(chunk)
                            chunk = []
                    if chunk:
                        yield _neardup.list_lines(chunk)
                jobs.append((path, list_text))
        _write_atomically(jobs)


def _temp_beside(folder, name):
    """A new temporary in ``folder``, opened for writing. Unlike
    ``tempfile.mkstemp`` (always 0600) it has the mode any new file gets,
    0666 less the umask, as ``neardup scan``'s outputs do, since it is
    renamed into the output."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        tmp = os.path.join(folder, ".%s.%s.tmp" % (name, secrets.token_hex(6)))
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue


def _write_atomically(jobs):
    """Writes each ``(path, pieces)`` to a temporary beside its path, then
    renames them all into place once every one is complete, as ``neardup
    scan`` does: a failed write leaves no output, not even a part of the
    set. ``-`` is standard output."""
    if sum(os.fspath(p) == "-" for p, _ in jobs) > 1:
        raise ValueError("only one output can go to standard output ('-')")
    temps = {}
    try:
        for path, _ in jobs:
            path = os.fspath(path)
            if path != "-":
                folder = os.path.dirname(os.path.abspath(path))
                fd, tmp = _temp_beside(folder, os.path.basename(path))
                temps[path] = (os.fdopen(fd, "w", encoding="utf-8", newline=""), tmp)
        for path, text in jobs:
            path = os.fspath(path)
            f = sys.stdout if path == "-" else temps[path][0]
            for p in text():
                f.write(p)
            f.flush()
            if f is not sys.stdout:
                os.fsync(f.fileno())
                f.close()
        for path, (_, tmp) in temps.items():
            os.replace(tmp, path)
        temps = {}
    finally:
        for f, tmp in temps.values():
            f.close()
            try:
                os.unlink(tmp)
            except OSError:
                pass


# ------------------------------------------------------------ the driver


def _run(spark, signed, plan, partitions, block_size):
    times, stats = {}, {}
    lap = time.monotonic()

    def stage(name):
        nonlocal lap
        now = time.monotonic()
        times[name] = now - lap
        lap = now

    docs, refs, total = _number(spark, signed, partitions)
    stats.update(documents=total, against=refs)
    stage("sign")

    exact_pairs, reps, groups = _exact(docs, plan, refs, partitions)
    exact_pairs = exact_pairs.persist(StorageLevel.MEMORY_AND_DISK)
    stats["identical_pairs"] = exact_pairs.count()
    stage("exact")

    near = _near(docs, reps, plan, refs, partitions, block_size).persist(
        StorageLevel.MEMORY_AND_DISK)
    stats["near_pairs"] = near.count()
    groups.unpersist()
    stage("pairs")

    pairs = _checkpoint(exact_pairs.union(near))
    exact_pairs.unpersist()
    near.unpersist()
    if stats["identical_pairs"] + stats["near_pairs"]:
        members, rounds = _components(pairs)
    else:
        members, rounds = spark.createDataFrame([], "doc long, root long"), 0
    stats["rounds"] = rounds
    stage("clusters")

    ids = docs.select("doc", "id", "id_json")
    clusters = (members.join(ids, "doc")
                .groupBy("root")
                .agg(F.sort_array(F.collect_list(F.struct("doc", "id", "id_json"))).alias("m")))
    clusters = _rank(spark, clusters, "root")
    clusters = _checkpoint(clusters.select(
        F.col("root").alias("_keeper"), F.col("rank").alias("cluster"),
        F.col("m")[0]["id"].alias("keep"),
        F.transform("m", lambda x: x["id"]).alias("members"),
        F.size("m").alias("size"),
        F.transform("m", lambda x: x["id_json"]).alias("_members")))
    dropped = members.filter((F.col("doc") != F.col("root")) & (F.col("doc") >= refs)).select("doc")
    new = docs.filter(F.col("doc") >= refs).select(F.col("doc").alias("_doc"), "doc", "id",
                                                   "id_json")
    keep = new.join(dropped, "doc", "left_anti").drop("doc")
    drop = new.join(dropped, "doc", "left_semi").drop("doc")
    counts = members.agg(F.sum(F.when(F.col("doc") == F.col("root"), 1).otherwise(0)),
                         F.sum(F.when((F.col("doc") != F.col("root")) & (F.col("doc") >= refs), 1)
                               .otherwise(0))).first()
    stats["clusters"], stats["dropped"] = int(counts[0] or 0), int(counts[1] or 0)

    fa = docs.select(*[F.col(c).alias(c + "_a") for c in ("doc", "id", "id_json", "sha",
                                                           "shingles", "sig")])
    fb = docs.select(*[F.col(c).alias(c + "_b") for c in ("doc", "id", "id_json", "sha",
                                                           "shingles", "sig")])
    both = (pairs.join(fa, F.col("a") == F.col("doc_a"))
            .join(fb, F.col("b") == F.col("doc_b")))
    id_type = docs.schema["id"].dataType
    receipt_schema = T.StructType([
        T.StructField("_a", T.LongType()), T.StructField("_b", T.LongType()),
        T.StructField("a", id_type), T.StructField("b", id_type),
        T.StructField("matches", T.IntegerType()), T.StructField("n", T.IntegerType()),
        T.StructField("receipt_sha256", T.StringType()),
        T.StructField("verdict", T.StringType()), T.StructField("_line", T.StringType())])
    n, args = plan.n, _plan_args(plan)

    def receipts(batches):
        p = _neardup.ScanPlan(*args)
        for b in batches:
            sa, ha = _signature_matrix(_column(b, "sig_a"), n)
            sb, hb = _signature_matrix(_column(b, "sig_b"), n)
            hashes, verdicts, m, lines = p.receipts(
                _column(b, "id_json_a").to_pylist(), _column(b, "id_json_b").to_pylist(),
                _column(b, "sha_a").to_pylist(), _column(b, "sha_b").to_pylist(),
                _ints(_column(b, "shingles_a"), np.uint64),
                _ints(_column(b, "shingles_b"), np.uint64), sa, sb, ha, hb)
            m = np.asarray(m, dtype=np.int64)
            yield pa.RecordBatch.from_arrays([
                _column(b, "a"), _column(b, "b"), _column(b, "id_a"), _column(b, "id_b"),
                pa.array(m.astype(np.int32), mask=m < 0),
                pa.array(np.full(len(b), n, dtype=np.int32)),
                pa.array(hashes, type=pa.string()), pa.array(verdicts, type=pa.string()),
                pa.array(lines, type=pa.string())],
                names=[f.name for f in receipt_schema.fields])

    out_pairs = both.select("a", "b", "id_a", "id_b", "id_json_a", "id_json_b", "sha_a", "sha_b",
                            "shingles_a", "shingles_b", "sig_a", "sig_b").mapInArrow(
        receipts, receipt_schema)
    out_pairs = out_pairs.withColumn(
        "similarity", F.col("matches").cast("double") / F.lit(float(n)))
    out_pairs = _checkpoint(out_pairs)
    stats["pairs"] = stats["identical_pairs"] + stats["near_pairs"]
    stage("receipts")
    return ScanFrames(out_pairs, clusters, keep, drop, stats, times), docs


def scan(df, id_col="id", text_col="text", threshold=0.75, k=5, n=128, against=None,
         order_col=None, bands=None, rows=None, partitions=None, block_size=BLOCK_SIZE):
    """Every near-duplicate pair of the documents of ``df`` (columns
    ``id_col``, unique strings or integers, and ``text_col``), as ``neardup
    scan`` reports them for the same documents in the same order: the
    result is the same whatever the partitioning, the number of executors
    or ``block_size``.

    Input order is ``order_col``'s (ties broken by id) when it is given, else
    the DataFrame's own row order (the order ``df.collect()`` returns: that
    of a local list given to ``createDataFrame``, or of ``orderBy``).
    ``against`` is an existing corpus, a DataFrame with the same columns:
    its documents come first, only pairs with a document of ``df`` are
    reported, and none of its documents is dropped. ``partitions`` is the
    number of partitions of the shuffled stages (default: Spark's
    ``spark.sql.shuffle.partitions``, which adaptive execution may
    coalesce). Returns a :class:`ScanFrames`."""
    spark = df.sparkSession
    plan = _neardup.ScanPlan(threshold, k, n, bands, rows)
    frames = []
    for src, frame in ((0, against), (1, df)):
        if frame is None:
            continue
        if order_col is not None:
            by = (partitions, order_col, id_col) if partitions else (order_col, id_col)
            frame = frame.repartitionByRange(*by).sortWithinPartitions(order_col, id_col)
        frames.append(_sign_frame(frame, src, id_col, text_col, plan.k, plan.n))
    signed = frames[0] if len(frames) == 1 else frames[0].unionByName(frames[1])
    out, _ = _run(spark, signed, plan, partitions, block_size)
    return out


# ------------------------------------------------------------ file inputs


_CORPUS_NAMES = (".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz", ".parquet")


def _files(spark, path):
    """The files of one input, in ``neardup scan``'s order: the path itself,
    or a directory's corpus files (by name, hidden ``_``/``.`` files
    skipped), recursively, in path order, component by component."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    p = jvm.org.apache.hadoop.fs.Path(path)
    fs = p.getFileSystem(conf)
    if not fs.exists(p):
        raise ValueError("reading '%s': No such file or directory" % path)
    status = fs.getFileStatus(p)
    if not status.isDirectory():
        return [(path, path)]
    root = status.getPath().toString().rstrip("/")
    found = []
    it = fs.listFiles(p, True)
    while it.hasNext():
        f = it.next().getPath().toString()
        rel = f[len(root):].lstrip("/")
        parts = rel.split("/")
        if any(x.startswith(("_", ".")) for x in parts):
            continue
        if not rel.endswith(_CORPUS_NAMES):
            raise ValueError("'%s': neardup.spark reads JSONL and Parquet corpora "
                             "(%s), not other files" % (path.rstrip("/") + "/" + rel,
                                                        ", ".join(_CORPUS_NAMES)))
        found.append(([x.encode() for x in parts], f, path.rstrip("/") + "/" + rel))
    found.sort()
    return [(f, name) for _, f, name in found]


def _is_parquet(spark, path):
    if path.endswith(".parquet"):
        return True
    local = path[7:] if path.startswith("file://") else path
    if "://" in local or not os.path.isfile(local):
        return False
    with open(local, "rb") as f:
        return f.read(4) == b"PAR1"


def read(spark, inputs, against=(), id_field="id", text_field="text", k=5, n=128):
    """Signs JSONL and Parquet corpora (paths or any URI Spark reads; a
    directory gives its corpus files in path order), numbering documents as
    ``neardup scan`` does: ``against`` first, then ``inputs``, each file in
    line (row) order; blank lines are skipped. Returns the signed
    documents, one row each, that :func:`scan_files` scans."""
    frames = []
    index = 0
    for src, paths in ((0, against), (1, inputs)):
        for path in paths:
            for f, name in _files(spark, path):
                sign = _sign_parquet if _is_parquet(spark, f) else _sign_jsonl
                frames.append(sign(spark, f, name, src, index, id_field, text_field, k, n))
                index += 1
    if not frames:
        raise ValueError("no input")
    signed = frames[0]
    for f in frames[1:]:
        signed = signed.unionByName(f)
    return signed


def scan_files(spark, inputs, against=(), id_field="id", text_field="text", threshold=0.75,
               k=5, n=128, bands=None, rows=None, partitions=None, block_size=BLOCK_SIZE):
    """:func:`scan` on JSONL / Parquet corpora read by :func:`read`: ids
    are the JSON text of the ids as the files wrote them (``"\\"a\\""``,
    ``7``), exactly as ``neardup scan`` writes them."""
    plan = _neardup.ScanPlan(threshold, k, n, bands, rows)
    signed = read(spark, inputs, against, id_field, text_field, plan.k, plan.n)
    out, _ = _run(spark, signed, plan, partitions, block_size)
    return out


def _local_cores(master):
    """The cores of a ``local[N]``, ``local[*]`` or ``local-cluster[W,C,M]``
    master, None for any other."""
    if not master:
        return None
    m = re.fullmatch(r"local(?:\[(\d+|\*)(?:,\d+)?\])?", master)
    if m:
        return (os.cpu_count() or 1) if m.group(1) in (None, "*") else int(m.group(1))
    m = re.fullmatch(r"local-cluster\[(\d+),\s*(\d+),\s*\d+\]", master)
    if m:
        return int(m.group(1)) * int(m.group(2))
    return None


def session(master=None, app="neardup", **conf):
    """A Spark session as the tests and the command line use it: the UI
    off, executors running this interpreter (so they import this very
    ``neardup``: the package must be installed where they run),
    ``SPARK_LOCAL_IP`` 127.0.0.1 unless set, and on a local master
    ``spark.sql.shuffle.partitions`` twice its cores unless given.
    ``master`` None keeps spark-submit's (else Spark's default,
    ``local[*]``)."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    cores = _local_cores(master)
    if cores and "spark.sql.shuffle.partitions" not in conf:
        # Spark's default of 200 suits a cluster; on one machine it is 200
        # tiny tasks a stage.
        conf["spark.sql.shuffle.partitions"] = str(2 * cores)
    b = SparkSession.builder
    if master:
        b = b.master(master)
    b = (b.appName(app)
         .config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false")
         .config("spark.executorEnv.PYSPARK_PYTHON", os.environ["PYSPARK_PYTHON"]))
    for key, value in conf.items():
        b = b.config(key, value)
    return b.getOrCreate()
