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
   collecting edges to the driver; a graph of at most ``LOCAL_EDGES``
   pairs (64 MB) is collected and its components found on the driver
   instead, one job in place of about ten. Either way the keeper of a
   cluster is its smallest document number (first in input order);
6. **receipts**: each pair's ``receipt_sha256`` and its ``--pairs`` line
   (``ScanPlan.receipts``).

Document numbers never come from ``monotonically_increasing_id``: a
document's number is counted from the position of its row within its file
block (or its DataFrame partition, or its ``order_col`` rank), and the
number of rows before that block, so it depends on the input alone.

The package's modules: ``inputs`` (the sign stage's inputs, read through
``neardup-corpus``), ``arrow`` (the signed rows' columns), ``stages`` (the
stages after signing, and the driver), ``outputs`` (the result and its
files), ``index`` (the scan against a persistent index), and ``__main__``
(the command).

Command line (``python -m neardup.spark --help``)::

    python -m neardup.spark INPUT... --pairs P --clusters C \\
        [--keep-list F] [--drop-list F] [--against REF]... [--against-index DIR] \\
        [--master URL] \\
        [--threshold T] [-k K] [-n N] [--words space|script] [--lossy]
"""

import os
import re
import sys

from pyspark.sql import SparkSession

from .. import _neardup
from .inputs import _sign_frame, read
from .index import _plan as _index_plan
from .index import _run as _scan_index
from .outputs import ScanFrames, _write_atomically  # noqa: F401 (tests)
from .stages import _run

__all__ = ["BLOCK_SIZE", "ScanFrames", "read", "scan", "scan_files", "session"]

#: Documents of one bucket handled by one unit of work at most: a bucket of
#: ``m`` documents gives ``m²/2`` candidates, so a larger one is cut into
#: blocks of this many consecutive documents.
BLOCK_SIZE = 2048


def scan(df, id_col="id", text_col="text", threshold=None, k=None, n=None, against=None,
         order_col=None, bands=None, rows=None, partitions=None, block_size=BLOCK_SIZE,
         recall=None, against_index=None, words=None):
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
    coalesce). ``threshold``, ``k`` and ``n`` default to ``0.75``, ``5`` and
    ``128``, and ``words`` to ``"space"`` (``"script"``: SPEC §11's words,
    ``neardup scan --words script``). ``recall="exact"`` chooses pigeonhole bands that miss no pair
    (``neardup scan --recall exact``; the default is ``"probable"``).
    Returns a :class:`ScanFrames`.

    ``against_index`` is instead a persistent index (``neardup.Index``,
    ``neardup index``): the result is what ``neardup.Index.open(PATH).query``
    gives for the same documents, with the index's own ``K``, ``N``, word
    rule, threshold and banding. Any of ``threshold``, ``k``, ``n``,
    ``words``, ``bands``, ``rows`` and ``recall`` given must then be the
    index's (a
    ``ValueError`` otherwise, as ``neardup index query`` refuses other
    options). Each executor task opens the index
    read-only (and the driver reads its settings), so ``PATH`` must be a
    directory the driver and every executor see (any local path in
    ``local`` and ``local-cluster`` mode; a shared file system on a
    cluster); see :mod:`neardup.spark.index`."""
    spark = df.sparkSession
    if against_index is not None:
        if against is not None:
            raise ValueError("against and against_index: give one reference set, not both")
        path = os.fspath(against_index)
        length, plan = _index_plan(path, _settings(threshold, k, n, bands, rows, recall, words))
        signed = _sign_frame(_ordered(df, order_col, id_col, partitions), 1, id_col, text_col,
                             plan.k, plan.n, plan.words)
        return _scan_index(spark, signed, path, length, plan, partitions, block_size)
    plan = _scan_plan(threshold, k, n, bands, rows, recall, words)
    frames = []
    for src, frame in ((0, against), (1, df)):
        if frame is None:
            continue
        frames.append(_sign_frame(_ordered(frame, order_col, id_col, partitions), src, id_col,
                                  text_col, plan.k, plan.n, plan.words))
    signed = frames[0] if len(frames) == 1 else frames[0].unionByName(frames[1])
    out, _ = _run(spark, signed, plan, partitions, block_size)
    return out


def _settings(threshold, k, n, bands, rows, recall, words):
    """The settings a caller gave (None where not), by name."""
    return {"threshold": threshold, "k": k, "n": n, "bands": bands, "rows": rows,
            "recall": recall, "words": words}


def _scan_plan(threshold, k, n, bands, rows, recall, words):
    """The plan of a scan, with ``neardup scan``'s defaults for the settings
    not given: ``None`` is passed through, and the crate fills in the core's
    defaults."""
    return _neardup.ScanPlan(threshold, k, n, bands, rows,
                             "probable" if recall is None else recall, words)


def _ordered(frame, order_col, id_col, partitions):
    """``frame`` in ``order_col`` order (ties by id), or as it is without."""
    if order_col is None:
        return frame
    by = (partitions, order_col, id_col) if partitions else (order_col, id_col)
    return frame.repartitionByRange(*by).sortWithinPartitions(order_col, id_col)


def scan_files(spark, inputs, against=(), id_field="id", text_field="text", threshold=None,
               k=None, n=None, bands=None, rows=None, partitions=None, block_size=BLOCK_SIZE,
               recall=None, against_index=None, words=None, lossy=False):
    """:func:`scan` on JSONL / Parquet corpora read by :func:`read`: ids
    are the JSON text of the ids as the files wrote them (``"\\"a\\""``,
    ``7``), exactly as ``neardup scan`` writes them. ``lossy`` is ``neardup
    scan --lossy``: invalid UTF-8 in a text file or a JSONL line replaced by
    U+FFFD. ``against_index`` is as for :func:`scan`: then ``neardup index
    query INDEX INPUT...``."""
    if against_index is not None:
        if against:
            raise ValueError("against and against_index: give one reference set, not both")
        path = os.fspath(against_index)
        length, plan = _index_plan(path, _settings(threshold, k, n, bands, rows, recall, words))
        signed = read(spark, inputs, (), id_field, text_field, plan.k, plan.n, plan.words,
                      lossy)
        return _scan_index(spark, signed, path, length, plan, partitions, block_size)
    plan = _scan_plan(threshold, k, n, bands, rows, recall, words)
    signed = read(spark, inputs, against, id_field, text_field, plan.k, plan.n, plan.words,
                  lossy)
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
