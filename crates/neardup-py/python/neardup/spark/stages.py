"""The scan's stages after signing (see the package's docstring): document
numbers, the exact stage, the bands and pairs, the clusters, and the
driver that runs them and the receipts."""

import time

import numpy as np
import pyarrow as pa
from pyspark import StorageLevel, TaskContext
from pyspark.sql import Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from .. import _neardup
from .arrow import _column, _ints, _signature_matrix
from .outputs import ScanFrames


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
    """The arguments that make ``plan`` again in a task."""
    return (plan.threshold, plan.k, plan.n, plan.bands, plan.rows, "probable", plan.words)


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


#: A graph of at most this many pairs (edges) is collected to the driver,
#: 16 bytes a pair, and its components found there (``_components_here``):
#: one job where the rounds of ``_components`` take about ten, each a
#: second or more of Spark's planning and scheduling whatever the graph's
#: size. A larger graph never leaves the executors. The Spark setting
#: ``spark.neardup.localEdges`` changes the limit (0: always the rounds).
LOCAL_EDGES = 1 << 22


def _components_here(pairs):
    """The components of a graph small enough for the driver, as
    ``_components`` gives them: every document in a pair and its root, the
    smallest document of its component (two numpy arrays). Labels, the
    positions of the documents in ascending order, go down each pair to
    the smaller of its two ends' labels, and each label is followed to
    its own until none changes: a fixed point where a component has one
    label, its smallest document's, however the pairs are ordered."""
    t = pairs.select("a", "b").toArrow()
    a, b = (t.column(c).to_numpy().astype(np.int64) for c in ("a", "b"))
    docs, ends = np.unique(np.concatenate([a, b]), return_inverse=True)
    ea, eb = ends[:len(a)], ends[len(a):]
    label = np.arange(len(docs))
    while True:
        low = np.minimum(label[ea], label[eb])
        new = label.copy()
        np.minimum.at(new, ea, low)
        np.minimum.at(new, eb, low)
        while True:
            up = new[new]
            if np.array_equal(up, new):
                break
            new = up
        if np.array_equal(new, label):
            break
        label = new
    return docs, docs[label]


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


def _clock():
    """Stage times: ``stage(name)`` records the time since the last one."""
    times, lap = {}, [time.monotonic()]

    def stage(name):
        now = time.monotonic()
        times[name] = now - lap[0]
        lap[0] = now

    return times, stage


def _run(spark, signed, plan, partitions, block_size):
    times, stage = _clock()
    stats = {}
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
    return _finish(spark, docs, pairs, refs, plan, stats, times, stage), docs


def _finish(spark, docs, pairs, refs, plan, stats, times, stage):
    """The stages after the pairs (``a < b`` document numbers, each pair
    once, checkpointed): clusters, keep and drop, receipts. ``docs`` holds
    every document a pair names, numbered as the pairs are; the first
    ``refs`` numbers are references, never dropped."""
    edges = stats["identical_pairs"] + stats["near_pairs"]
    here = edges <= int(spark.conf.get("spark.neardup.localEdges", str(LOCAL_EDGES)))
    if here:
        # The components on the driver, with what the rounds' would take
        # more jobs to count: each cluster's number (the rank of its root)
        # and the clusters and dropped documents.
        doc, root = _components_here(pairs) if edges else (np.zeros(0, np.int64),) * 2
        roots = np.unique(root)
        members = spark.createDataFrame(pa.table({
            "doc": pa.array(doc, pa.int64()), "root": pa.array(root, pa.int64()),
            "rank": pa.array(np.searchsorted(roots, root), pa.int64())}))
        stats["clusters"] = len(roots)
        stats["dropped"] = int(np.count_nonzero((doc != root) & (doc >= refs)))
        rounds = 0
    else:
        members, rounds = _components(pairs)
    stats["rounds"] = rounds
    stage("clusters")

    ids = docs.select("doc", "id", "id_json")
    clusters = (members.join(ids, "doc")
                .groupBy("root", *(["rank"] if here else []))
                .agg(F.sort_array(F.collect_list(F.struct("doc", "id", "id_json"))).alias("m")))
    if not here:
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
    if not here:
        counts = members.agg(
            F.sum(F.when(F.col("doc") == F.col("root"), 1).otherwise(0)),
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
    return ScanFrames(out_pairs, clusters, keep, drop, stats, times)
