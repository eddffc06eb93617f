"""The scan against a persistent index (``neardup.Index``, ``neardup index``):
``scan(df, against_index=PATH)`` reports what
``neardup.Index.open(PATH).query(...)`` reports for the same documents.

The index stays where it is: each executor task opens it read-only
(``PATH`` must be a path the driver and every executor see: a local
directory in ``local`` / ``local-cluster`` mode, a shared file system on a
cluster), checks that it still has the length the driver read, and
asks it about its rows, as the core's ``scan::against`` asks its
references:

1. **identical**: each new document whose text the index holds pairs with
   the first index document of that text, and takes no further part;
2. **among the new**: the other new documents go through the scan's own
   exact and band stages (:mod:`.stages`), among themselves;
3. **with the index**: each of their representatives (the first of its
   text, with a signature) is looked up in the index's band tables, and
   its candidates verified, counted in the first band they share.

The index documents that take part in a pair join the new documents
(numbered from ``len(index)``, so the order is the index's, then the
input's), and the scan's clustering and receipt stages finish as for
``against``.
"""

import json

import numpy as np
import pyarrow as pa
from pyspark import StorageLevel
from pyspark.sql import functions as F
from pyspark.sql import types as T

from .. import _neardup
from .arrow import _column, _ints, _signature_column, _signature_matrix
from .stages import _checkpoint, _clock, _exact, _finish, _near, _number, _pairs_batch

_PAIRS = T.StructType([T.StructField("a", T.LongType()), T.StructField("b", T.LongType()),
                       T.StructField("matches", T.IntegerType())])


def _plan(path, given):
    """The index's length and its plan (its own ``K``, ``N``, word rule,
    threshold and banding), read on the driver. ``given`` holds the scan's own settings,
    None where the caller gave none: each one given must be the index's, as
    ``neardup index query`` checks its options (an index answers with its
    own settings)."""
    with _neardup.Index.open(path) as index:
        info = index.info()
        plan = _neardup.ScanPlan(info["threshold"], info["k"], info["n"], info["bands"],
                                 info["rows"], words=info["words"])
        length = len(index)
    own = {"k": plan.k, "n": plan.n, "bands": plan.bands, "rows": plan.rows,
           "recall": info["recall"], "threshold": plan.threshold, "words": plan.words}
    for name, value in given.items():
        if value is None:
            continue
        if name == "threshold":
            # Compared as the core writes it: 0.6, "0.6" and "0.60" agree.
            value = _neardup.ScanPlan(value, plan.k, plan.n).threshold
        if value != own[name]:
            raise ValueError("index '%s' was built with %s=%r, not %s=%r (an index answers "
                             "with its own settings; drop the argument or create another "
                             "index)" % (path, name, own[name], name, value))
    return length, plan


def _open(path, length):
    """The index, opened read-only in a task; refused if a writer added to
    it since the driver read its length: the document numbers would
    disagree."""
    index = _neardup.Index.open(path)
    if len(index) != length:
        index.close()
        raise ValueError("index '%s' changed during the scan (%d documents, then %d)"
                         % (path, length, len(index)))
    return index


def _run(spark, signed, path, length, plan, partitions, block_size):
    """The scan of the signed documents against the index in ``path``, of
    ``length`` documents and this ``plan`` (:func:`_plan`): returns a
    ``ScanFrames``. The documents must be signed with the plan's ``K``,
    ``N`` and word rule."""
    times, stage = _clock()
    r = length
    n = plan.n
    docs, _, m = _number(spark, signed, partitions)
    stats = {"documents": r + m, "against": r}
    stage("sign")

    probe_schema = T.StructType([T.StructField("doc", T.LongType()),
                                 T.StructField("ref", T.LongType()),
                                 T.StructField("matches", T.IntegerType())])

    def identical(batches):
        with _open(path, r) as index:
            for b in batches:
                found = index._find_id(_column(b, "id_json").to_pylist())
                if found:
                    raise ValueError("duplicate id %s: document %d of index '%s' has it already"
                                     % (found[0], found[1], path))
                sigs, has = _signature_matrix(_column(b, "sig"), n)
                ref, matches = index._identical(_column(b, "sha").to_pylist(), sigs, has)
                yield pa.RecordBatch.from_arrays(
                    [_column(b, "doc"), pa.array(ref, mask=ref < 0),
                     pa.array(matches.astype(np.int32), mask=matches < 0)],
                    names=["doc", "ref", "matches"])

    probed = (docs.select("doc", "id_json", "sha", "sig").mapInArrow(identical, probe_schema)
              .persist(StorageLevel.MEMORY_AND_DISK))
    with_text = probed.filter("ref is not null").select(
        F.col("ref").alias("a"), (F.col("doc") + r).alias("b"), "matches")
    rest = docs.join(probed.filter("ref is null").select("doc"), "doc", "left_semi")
    exact_pairs, reps, groups = _exact(rest, plan, 0, partitions)
    stats["identical_pairs"] = with_text.count() + exact_pairs.count()
    stage("exact")

    def with_index(batches):
        with _open(path, r) as index:
            for b in batches:
                sigs, _ = _signature_matrix(_column(b, "sig"), n)
                doc = _ints(_column(b, "doc"), np.int64) + r
                a, bb, matches = index._with_references(doc.astype(np.uint32), sigs)
                yield _pairs_batch(a, bb, matches)

    near_index = (rest.select("doc", "sig").join(reps, "doc", "left_semi")
                  .filter("sig is not null").mapInArrow(with_index, _PAIRS))
    near_new = _near(rest, reps, plan, 0, partitions, block_size)
    shifted = [p.select((F.col("a") + r).alias("a"), (F.col("b") + r).alias("b"), "matches")
               for p in (exact_pairs, near_new)]
    near = near_index.union(shifted[1]).persist(StorageLevel.MEMORY_AND_DISK)
    stats["near_pairs"] = near.count()
    pairs = _checkpoint(with_text.union(shifted[0]).union(near).dropDuplicates(["a", "b"]))
    near.unpersist()
    groups.unpersist()
    probed.unpersist()
    stage("pairs")

    id_type = docs.schema["id"].dataType
    doc_schema = T.StructType([T.StructField(f.name, f.dataType) for f in docs.schema.fields
                               if f.name in ("doc", "id", "id_json", "sha", "shingles", "sig")])
    arrow_id = pa.string() if isinstance(id_type, T.StringType) else pa.int64()

    def index_docs(batches):
        with _open(path, r) as index:
            for b in batches:
                doc = _ints(_column(b, "doc"), np.uint32)
                ids, shas, shingles, sigs, has = index._documents(doc)
                values = [json.loads(i) for i in ids]
                if any(isinstance(v, str) != (arrow_id == pa.string()) for v in values):
                    raise TypeError("index '%s' has an id of another type than the id column "
                                    "(%s): %s" % (path, id_type.simpleString(), ids[0]))
                cols = {"doc": pa.array(doc.astype(np.int64)), "id": pa.array(values, arrow_id),
                        "id_json": pa.array(ids, pa.string()), "sha": pa.array(shas, pa.string()),
                        "shingles": pa.array(np.asarray(shingles, dtype=np.int64)),
                        "sig": _signature_column(np.asarray(sigs), np.asarray(has))}
                yield pa.RecordBatch.from_arrays([cols[f.name] for f in doc_schema.fields],
                                                 names=[f.name for f in doc_schema.fields])

    taking_part = (pairs.select(F.col("a").alias("doc")).filter(F.col("doc") < r).distinct()
                   .mapInArrow(index_docs, doc_schema))
    new_docs = docs.withColumn("doc", F.col("doc") + r).select(*doc_schema.names)
    every = taking_part.unionByName(new_docs).persist(StorageLevel.MEMORY_AND_DISK)
    return _finish(spark, every, pairs, r, plan, stats, times, stage)
