"""neardup.spark against the `neardup scan` command line: the same files,
byte for byte, on a corpus with planted near-duplicates, exact duplicates,
short documents and a reference set (`--against`), on two partitionings
(Spark's plain case, and shuffle partitions, input splits, bucket blocks
and Arrow batches all cut small), at one of two thresholds each, on one
shared `local[2]` session; and against a persistent index. The command's
run on `local-cluster[2,1,1024]`, two executor JVMs whose Python workers
import the wheel installed in this venv, is test_spark_executor_loss's,
which also loses an executor."""
import contextlib
import gzip
import json
import os
import random
import shutil
import subprocess
import sys

import pytest

pyspark = pytest.importorskip(
    "pyspark", reason="pyspark is not installed: pip install './crates/neardup-py[spark]' "
                      "(scripts/test-python installs it)")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import neardup  # noqa: E402
from neardup import spark as ns  # noqa: E402
from conftest import SCRIPT  # noqa: E402
from test_cli import chinese, corpus, run_cli_scan, write_jsonl  # noqa: E402

OUTPUTS = ("pairs", "clusters", "keep", "drop")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The corpus as the CLI and Spark read it: a reference JSONL, and the
    new documents split over a JSONL file (with blank lines and a CRLF line)
    and a Parquet file."""
    d = tmp_path_factory.mktemp("spark-corpus")
    ids, texts = corpus(5, 300)
    refs = 90
    ref = d / "ref.jsonl"
    write_jsonl(ref, ids[:refs], texts[:refs])
    half = refs + (len(ids) - refs) // 2
    new = d / "new.jsonl"
    with open(new, "w", encoding="utf-8", newline="") as f:
        for j, (i, t) in enumerate(zip(ids[refs:half], texts[refs:half])):
            f.write(json.dumps({"id": i, "text": t}) + ("\r\n" if j == 5 else "\n"))
            if j % 40 == 3:
                f.write("\n  \t\n")
    more = d / "more.parquet"
    pq.write_table(pa.table({"id": ["p%d" % i for i in range(half, len(ids))],
                             "text": texts[half:]}), more, row_group_size=37)
    return {"dir": d, "ref": ref, "new": new, "more": more}


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """One directory holding every kind of input `neardup scan` reads in a
    directory: plain, gzip and zstd JSONL, Parquet and text files (`e-f.txt`
    sorts before `e/` bytewise), and files it leaves out (hidden ones and
    Spark's markers)."""
    d = tmp_path_factory.mktemp("mixed") / "corpus"
    d.mkdir()
    ids, texts = corpus(11, 120)
    ids = ["m%d" % i for i in range(len(ids))]
    q = len(ids) // 5
    lines = lambda a, b: "".join(json.dumps({"id": i, "text": t}) + "\n"
                                 for i, t in zip(ids[a:b], texts[a:b])).encode()
    write_jsonl(d / "a.jsonl", ids[:q], texts[:q])
    with gzip.open(d / "b.jsonl.gz", "wb") as f:
        f.write(lines(q, 2 * q))
    with pa.CompressedOutputStream(str(d / "c.jsonl.zst"), "zstd") as f:
        f.write(lines(2 * q, 3 * q))
    pq.write_table(pa.table({"id": ids[3 * q:4 * q], "text": texts[3 * q:4 * q]}),
                   d / "d.parquet", row_group_size=13)
    (d / "e").mkdir()
    for i in range(4 * q, len(ids)):
        (d / "e" / ("t%03d.txt" % i)).write_text(texts[i], encoding="utf-8")
    (d / "e-f.txt").write_text(texts[4 * q], encoding="utf-8")
    (d / "_SUCCESS").write_text("")
    (d / ".hidden.txt").write_text(texts[0], encoding="utf-8")
    return d


@contextlib.contextmanager
def settings(spark, conf):
    """The session's settings ``conf`` for the block, unset after it."""
    for key, value in conf.items():
        spark.conf.set(key, str(value))
    try:
        yield
    finally:
        for key in conf:
            spark.conf.unset(key)


def spark_files(out, tmp):
    paths = {x: tmp / ("spark-" + x) for x in OUTPUTS}
    out.write(pairs=paths["pairs"], clusters=paths["clusters"], keep_list=paths["keep"],
              drop_list=paths["drop"])
    return {x: p.read_text(encoding="utf-8") for x, p in paths.items()}


# Partitionings: shuffle partitions, input split size (bytes), bucket block
# size, Arrow batch size (rows), each with a threshold. The first is Spark's
# plain case: one partition, one split, whole buckets. The second cuts
# everything: 7 partitions, splits of 4 kB, buckets cut into blocks of 2
# (nearly every bucket), batches of 7 rows (group and bucket boundaries
# across batches), at 0.5, whose more bands and more pairs give the most
# cuts. (Six runs, then three, were a minute each in CI, for no path these
# two leave out.)
PARTITIONINGS = [(1, 1 << 27, ns.BLOCK_SIZE, 10000, "0.75"), (7, 4000, 2, 7, "0.5")]


@pytest.mark.parametrize("partitions, split, block, batch, threshold", PARTITIONINGS,
                         ids=["p%d-split%d-block%d-batch%d-%s" % p for p in PARTITIONINGS])
def test_scan_files_equal_neardup_scan(cli, spark, files, tmp_path, partitions, split, block,
                                       batch, threshold):
    want = run_cli_scan(cli, tmp_path, [files["new"], files["more"]], {"threshold": threshold},
                        against=files["ref"])
    assert want["pairs"].count("\n") > 50 and want["drop"].count("\n") > 20
    assert '"verdict":"IDENTICAL"' in want["pairs"]
    # The cut-everything run finds the clusters by rounds over DataFrames,
    # as a graph too large for the driver is; the other on the driver.
    local_edges = ns.stages.LOCAL_EDGES if partitions == 1 else 0
    with settings(spark, {"spark.sql.files.maxPartitionBytes": split,
                          "spark.sql.execution.arrow.maxRecordsPerBatch": batch,
                          "spark.neardup.localEdges": local_edges}):
        out = ns.scan_files(spark, [str(files["new"]), str(files["more"])],
                            against=[str(files["ref"])], threshold=threshold,
                            partitions=partitions, block_size=block)
        got = spark_files(out, tmp_path)
    for x in OUTPUTS:
        assert got[x] == want[x], x
    assert out.stats["against"] == 90


def test_components_on_the_driver_are_union_finds(spark):
    """The driver's components of a graph are a union-find's, whatever
    the graph's shape and its pairs' order: chains given from either end
    (the longest way for labels to travel), stars, cycles, random graphs
    with document numbers far apart."""
    from neardup.spark.stages import _components_here

    def union_find(edges):
        parent = {}

        def root(x):
            while parent.setdefault(x, x) != x:
                x = parent[x]
            return x

        for a, b in edges:
            ra, rb = root(a), root(b)
            parent[max(ra, rb)] = min(ra, rb)
        return sorted((d, root(d)) for d in parent)

    rng = random.Random(7)
    chain = [(i, i + 1) for i in range(200)]
    graphs = [chain, chain[::-1], [(0, i) for i in range(1, 50)],
              [(i, (i + 1) % 30) for i in range(30)]]
    for _ in range(4):
        nodes = rng.sample(range(1 << 40), 300)
        graphs.append([tuple(sorted(rng.sample(nodes, 2))) for _ in range(250)])
    for edges in graphs:
        edges = sorted({(min(a, b), max(a, b)) for a, b in edges})
        pairs = spark.createDataFrame(edges, "a long, b long")
        doc, root = _components_here(pairs)
        got = sorted(zip(doc.tolist(), root.tolist()))
        assert got == union_find(edges)


def test_scan_dataframe_equals_neardup_scan(spark, tmp_path):
    """The DataFrame API: input order from an order column survives any
    partitioning; the frames hold what the CLI's lines hold."""
    ids, texts = corpus(7, 160)
    ids = [str(i) for i in ids]
    refs = 40
    want = neardup.scan(ids[refs:], texts[refs:], threshold=0.6,
                        against=(ids[:refs], texts[:refs]))
    rows = [(o, i, t) for o, (i, t) in enumerate(zip(ids, texts))]
    shuffled = rows[::-1]
    df = spark.createDataFrame(shuffled[:-refs], "order long, id string, text string")
    ref = spark.createDataFrame(shuffled[-refs:], "order long, id string, text string")
    out = ns.scan(df.repartition(5), threshold=0.6, against=ref.repartition(3),
                  order_col="order", partitions=3, block_size=3)
    got = spark_files(out, tmp_path)
    assert got["pairs"] == want.pairs_jsonl()
    assert got["clusters"] == want.clusters_jsonl()
    assert got["keep"] == want.keep_list()
    assert got["drop"] == want.drop_list()
    pairs = [r.asDict() for r in out.pairs.collect()]
    assert pairs == want.pairs
    clusters = [r.asDict() for r in out.clusters.collect()]
    assert clusters == want.clusters
    assert [r.id for r in out.keep.collect()] == want.keep
    assert [r.id for r in out.drop.collect()] == want.drop


def test_exact_recall_equals_neardup_scan_and_all_pairs(spark, tmp_path):
    """recall="exact" on Spark: the pigeonhole plan travels to the
    executors, and the pairs are the in-memory scan's, which a property
    test in the core proves equal to comparing every pair."""
    ids, texts = corpus(9, 120)
    ids = [str(i) for i in ids]
    want = neardup.scan(ids, texts, threshold=0.5, recall="exact")
    probable = neardup.scan(ids, texts, threshold=0.5)
    assert set(map(str, probable.pairs)) <= set(map(str, want.pairs))
    df = spark.createDataFrame(list(zip(ids, texts)), "id string, text string")
    out = ns.scan(df, threshold=0.5, recall="exact", partitions=3)
    got = spark_files(out, tmp_path)
    assert got["pairs"] == want.pairs_jsonl()
    assert got["clusters"] == want.clusters_jsonl()


def test_every_script_vector_signs_in_spark_as_specified(spark):
    """Every case of vectors/script-compare.json signed by Spark's sign
    stage (``mapInArrow`` over the DataFrame, as ``scan`` signs): each
    document's normalized hash, shingle count and signature slots are the
    vector's, which is all its receipt is made of (the receipt hashes
    themselves are checked without Spark in test_vectors)."""
    from neardup.spark.arrow import _signature_matrix
    from neardup.spark.inputs import _sign_frame
    groups = {}
    for i, c in enumerate(SCRIPT):
        for side in (0, 1):
            groups.setdefault((c["k"], c["n"]), []).append(
                ("%d-%d" % (i, side), c["ab"[side]], c["expected"]["documents"][side]))
    seen = 0
    for (k, n), docs in groups.items():
        df = spark.createDataFrame([(i, t) for i, t, _ in docs], "id string, text string")
        rows = _sign_frame(df, 1, "id", "text", k, n, "script").toArrow()
        sigs, has = _signature_matrix(rows.column("sig"), n)
        got = {i: (sha, count, list(map(int, sig)) if h else None) for i, sha, count, sig, h in
               zip(rows.column("id").to_pylist(), rows.column("sha").to_pylist(),
                   rows.column("shingles").to_pylist(), sigs, has)}
        for i, _, want in docs:
            assert got[i] == (want["normalized_sha256"], want["shingles"], want["signature"]), i
            seen += 1
    assert seen == 2 * len(SCRIPT) == 40


def test_scan_dataframe_row_order_and_integer_ids(spark):
    """Without an order column, the DataFrame's own row order: that of the
    list it was made from. With script words (SPEC §11), which find the
    Chinese near-copy at the end."""
    ids, texts = corpus(3, 80)
    texts += chinese(3, 24)[1]
    ids = list(range(1000, 1000 + len(texts)))
    df = spark.createDataFrame(list(zip(ids, texts)), "id long, text string")
    out = ns.scan(df, threshold=0.7, words="script")
    want = neardup.scan(ids, texts, threshold=0.7, words="script")
    assert [r.asDict() for r in out.pairs.collect()] == want.pairs
    assert [r.id for r in out.drop.collect()] == want.drop
    assert want.drop[-1] == ids[-1]


FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "neardup-extract", "tests",
                        "fixtures")
DOCUMENT_ENDINGS = (".docx", ".odt", ".epub", ".html", ".pdf", ".rtf")


@pytest.fixture(scope="module")
def every_kind(tmp_path_factory, mixed):
    """One folder of every kind of file `neardup scan` reads or skips in a
    directory: `mixed`'s corpora and text files; documents made by
    LibreOffice, pandoc and Chromium (the extractor's committed fixtures),
    with a text file holding one document's extracted text (an IDENTICAL
    pair across formats); and files it skips: invalid UTF-8, a
    spreadsheet, and a decompression bomb of each container kind
    (test_bombs.py's, each inflating to 1 GiB)."""
    from test_bombs import BOMBS
    d = tmp_path_factory.mktemp("every-kind") / "folder"
    shutil.copytree(mixed, d)
    found = []
    for root, _, names in os.walk(FIXTURES):
        for name in sorted(names):
            if name.endswith(DOCUMENT_ENDINGS) and "bad" not in root:
                src = os.path.join(root, name)
                dst = d / (os.path.basename(root) + "-" + name)
                dst.write_bytes(open(src, "rb").read())
                found.append(dst)
    assert len(found) >= 5, "the extractor's fixtures are missing: %s" % FIXTURES
    docx = next(p for p in found if p.suffix == ".docx")
    (d / "copy-of-docx.txt").write_text(neardup.from_file(str(docx)), encoding="utf-8")
    (d / "latin1.txt").write_bytes(b"caf\xe9 au lait, not UTF-8")
    xlsx = next((os.path.join(r, n) for r, _, ns_ in os.walk(FIXTURES) for n in ns_
                 if n.endswith(".xlsx")), None)
    if xlsx:
        (d / "sheet.xlsx").write_bytes(open(xlsx, "rb").read())
    for name, data, _ in BOMBS:
        (d / ("bomb-" + name)).write_bytes(data)
    return d


@pytest.mark.parametrize("remote", [False, True], ids=["local", "binaryFile"])
def test_a_folder_of_every_kind_equals_neardup_scan(cli, spark, every_kind, tmp_path,
                                                    monkeypatch, remote):
    """JSONL plain, gzip and zstd, Parquet, text files and DOCX, ODT, EPUB,
    HTML, PDF and RTF documents in one folder, with files to skip: Spark
    reads them through neardup-corpus, in its order, skips what the CLI
    skips (each bomb refused in its executor, in bounded memory), and
    writes the CLI's bytes. Local, the crate reads every file. Remote
    (here Hadoop's local file system under a file:// URI), the plain and
    gzip JSONL go through Spark's text reader and the rest through
    binaryFile: the zstd JSONL and the Parquet file's bytes are read by the
    crate, numbered by file and place in it, as `neardup scan` numbers
    them, and each document's bytes extracted by the crate. (One folder,
    two Spark jobs: it was three folders and five jobs, a minute and a half
    of CI.)"""
    want = run_cli_scan(cli, tmp_path, [every_kind], {"threshold": "0.75"})
    assert want["pairs"].count("\n") > 20
    # Pairs across formats: a text file's copy of a JSONL document, and of
    # a DOCX document.
    assert '"%s"' % (every_kind / "e-f.txt") in want["pairs"]
    assert '"verdict":"IDENTICAL"' in want["pairs"]
    assert "copy-of-docx.txt" in want["pairs"]
    listed = want["keep"] + want["drop"]
    assert "hidden" not in listed and "latin1.txt" not in listed and "bomb-" not in listed
    path = str(every_kind)
    if remote:
        monkeypatch.setattr("neardup.spark.inputs._local", lambda p: None)
        path = "file://" + path
    out = ns.scan_files(spark, [path], threshold="0.75")
    got = spark_files(out, tmp_path)
    if remote:
        # Ids are the paths as given: the URI's scheme is part of them.
        got = {x: v.replace("file://" + path[7:], path[7:]) for x, v in got.items()}
    for x in OUTPUTS:
        assert got[x] == want[x], x


# Each name with what the crate's one table says it holds (None: one text
# document).
CORPUS_KINDS = [
    ("a.jsonl", "jsonl"), ("d/a.ndjson", "jsonl"), ("a.jsonl.gz", "gzip"),
    ("a.ndjson.gz", "gzip"), ("a.jsonl.zst", "zstd"), ("a.jsonl.zstd", "zstd"),
    ("a.ndjson.zst", "zstd"), ("a.parquet", "parquet"), ("a.gz", None),
    ("a.txt.gz", None), ("a.txt.zst", None), ("a.parquet.gz", None),
    ("jsonl", None), ("a.txt", None), ("a.docx", None),
]


@pytest.mark.parametrize("name,kind", CORPUS_KINDS)
def test_spark_reads_names_by_the_crates_table(name, kind):
    """A remote file is a corpus for Spark exactly when a local one is for
    ``neardup scan``: both ask the crate. Spark's text reader takes plain
    and gzip JSONL; binaryFile the rest, for the crate."""
    from neardup import _neardup
    from neardup.spark import inputs
    assert _neardup._corpus_kind(name) == kind
    assert _neardup.is_corpus_name(name) == (kind is not None)
    want = {None: "document", "jsonl": "jsonl", "gzip": "jsonl"}.get(kind, "remote corpus")
    assert inputs._remote_kind(name, name) == want


def test_a_remote_corpus_names_its_uri_in_errors(spark, tmp_path, monkeypatch):
    """A remote Parquet file without the text column: the crate's one line,
    naming the file's URI, never the temporary file the executor read."""
    pq.write_table(pa.table({"id": ["a"], "body": ["some text"]}), tmp_path / "c.parquet")
    monkeypatch.setattr("neardup.spark.inputs._local", lambda p: None)
    uri = "file://" + str(tmp_path / "c.parquet")
    with pytest.raises(Exception) as e:
        ns.scan_files(spark, [uri])
    assert "reading '%s': no column 'text' (columns: id, body)" % uri in str(e.value)
    assert "neardup-spark-" not in str(e.value)


def test_script_words_equal_neardup_scan_words_script(cli, spark, tmp_path, monkeypatch):
    """`python -m neardup.spark --words script`, run in this process on the
    suite's session: the files `neardup scan --words script` writes, from a
    JSONL file (signed through Spark's text reader) and a Parquet file
    (read whole by the crate). (A DataFrame's scan with script words is in
    test_scan_dataframe_row_order_and_integer_ids.)"""
    from neardup.spark import __main__ as command
    ids, texts = chinese(3, 24)
    jsonl, parquet = tmp_path / "zh.jsonl", tmp_path / "zh.parquet"
    write_jsonl(jsonl, ids[:20], texts[:20])
    pq.write_table(pa.table({"id": ids[20:], "text": texts[20:]}), parquet)
    want = run_cli_scan(cli, tmp_path, [jsonl, parquet], {"words": "script"})
    assert '"a":"zh-12","b":"copy"' in want["pairs"] and want["drop"] == "copy\n"
    out = {x: tmp_path / ("command-" + x) for x in OUTPUTS}
    # The command stops its session when it ends; the suite's goes on.
    monkeypatch.setattr(ns, "session", lambda *args, **conf: spark)
    monkeypatch.setattr(spark, "stop", lambda: None)
    assert command.main([str(jsonl), str(parquet), "--words", "script", "-q",
                         "--pairs", str(out["pairs"]), "--clusters", str(out["clusters"]),
                         "--keep-list", str(out["keep"]), "--drop-list", str(out["drop"])]) == 0
    for x in OUTPUTS:
        assert out[x].read_text(encoding="utf-8") == want[x], x


def test_bad_input_names_the_file_and_line(spark, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "text": "a b c"}\n\n{"id": 2}\n', encoding="utf-8")
    with pytest.raises(Exception) as e:
        ns.scan_files(spark, [str(bad)])
    assert "'%s': line 3: missing field 'text'" % bad in str(e.value)
    dup = tmp_path / "dup.jsonl"
    dup.write_text('{"id": "x", "text": "a"}\n{"id": "x", "text": "b"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match='duplicate id "x"'):
        ns.scan_files(spark, [str(dup)])


# Invalid UTF-8: a Latin-1 byte, and a sequence cut short, which WHATWG
# (and so `--lossy`) replaces by one U+FFFD, not one per byte.
BAD_BYTES = b"caf\xe9 \xe2\x82x"


@pytest.fixture(scope="module")
def lossy(tmp_path_factory):
    """Two folders, ``local`` and ``remote``, each with invalid UTF-8 in a
    plain JSONL line, in a zstd JSONL line and in a text file, each a copy
    (near or exact) of one clean document, so that the pairs and their
    receipts carry how the bytes were decoded. The folders hold the same
    texts under other ids."""
    top = tmp_path_factory.mktemp("lossy")
    ids, texts = corpus(17, 40)
    words = max(texts, key=len).split()

    def spoiled(cut):
        return " ".join(words[:cut]) + " @@ " + " ".join(words[cut:])

    def line(i, t):
        return json.dumps({"id": i, "text": t}).encode().replace(b"@@", BAD_BYTES) + b"\n"

    for side in ("local", "remote"):
        d = top / side
        d.mkdir()
        good = [line("%s%d" % (side[0], i), t) for i, t in enumerate(texts)]
        bad_a, bad_b = line(side[0] + "-bad-a", spoiled(9)), line(side[0] + "-bad-b", spoiled(30))
        (d / "a.jsonl").write_bytes(b"".join(good[:5] + [bad_a] + good[5:30]))
        with pa.CompressedOutputStream(str(d / "b.jsonl.zst"), "zstd") as f:
            f.write(b"".join(good[30:40] + [bad_b] + good[40:]))
        (d / "c.txt").write_bytes(spoiled(9).encode().replace(b"@@", BAD_BYTES))
    return top


def test_lossy_equals_neardup_scan_lossy(cli, spark, lossy, tmp_path, monkeypatch):
    """`python -m neardup.spark --lossy` (run in this process on the
    suite's session) writes `neardup scan --lossy`'s files: the same U+FFFD
    in a plain JSONL line (split by Spark's text reader), a zstd JSONL line
    and a text file, in one scan of a local folder (read by the crate) and a
    remote one (a file:// URI, through binaryFile). The JSONL line and both
    text files decode alike: IDENTICAL."""
    from neardup.spark import __main__ as command
    local, remote = lossy / "local", lossy / "remote"
    want = run_cli_scan(cli, tmp_path, [local, remote, "--lossy"], {"threshold": "0.75"})
    for c_txt in (local / "c.txt", remote / "c.txt"):
        assert '"a":"l-bad-a","b":"%s","matches":128' % c_txt in want["pairs"]
    assert '"l-bad-b"' in want["pairs"] and '"r-bad-b"' in want["pairs"]
    from neardup.spark.inputs import _local as real
    monkeypatch.setattr("neardup.spark.inputs._local",
                        lambda p: None if p.startswith("file://") else real(p))
    out = {x: tmp_path / ("command-" + x) for x in OUTPUTS}
    monkeypatch.setattr(ns, "session", lambda *args, **conf: spark)
    monkeypatch.setattr(spark, "stop", lambda: None)
    assert command.main([str(local), "file://" + str(remote), "--lossy", "--threshold", "0.75",
                         "-q", "--pairs", str(out["pairs"]), "--clusters", str(out["clusters"]),
                         "--keep-list", str(out["keep"]), "--drop-list", str(out["drop"])]) == 0
    for x in OUTPUTS:
        got = out[x].read_text(encoding="utf-8").replace("file://" + str(remote), str(remote))
        assert got == want[x], x


@pytest.mark.parametrize("name, remote", [("a.jsonl", False), ("b.jsonl.zst", True)])
def test_without_lossy_a_bad_line_is_the_clis_error(cli, spark, lossy, monkeypatch, name,
                                                    remote):
    """Without `lossy`, a JSONL line of invalid UTF-8 stops the scan with
    the CLI's message: the file, the line, the byte and the flag; from
    Spark's text reader and from binaryFile's bytes. (A text file of invalid
    UTF-8 in a folder is skipped, as the CLI skips it: see latin1.txt in
    test_a_directory_of_documents_equals_neardup_scan.)"""
    from conftest import cli_error
    path = str(lossy / "local" / name)
    want = cli_error(cli, "scan", "-q", path, "--pairs", os.devnull)
    assert "invalid UTF-8 at byte" in want and "pass --lossy" in want, want
    if remote:
        monkeypatch.setattr("neardup.spark.inputs._local", lambda p: None)
        want = want.replace(path, "file://" + path)
        path = "file://" + path
    with pytest.raises(Exception) as e:
        ns.scan_files(spark, [path])
    assert want in str(e.value)


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    """An index of two adds (string ids, threshold 0.6), and new documents
    with near and exact copies of its documents and of each other."""
    d = tmp_path_factory.mktemp("spark-index")
    ids, texts = corpus(13, 200)
    ids = [str(i) for i in ids]
    refs = 180
    new = list(zip(ids[refs:], texts[refs:])) + [
        ("copy-%d" % j, texts[i]) for j, i in enumerate((0, 7, 7, 150))] + [
        ("empty", ""), ("short", "short")]
    with neardup.Index.create(d / "idx", threshold="0.6") as idx:
        idx.add(ids[:100], texts[:100])
        idx.add(ids[100:refs], texts[100:refs])
    return {"path": d / "idx", "refs": ids[:refs], "new": new, "dir": d}


def test_scan_against_an_index_equals_index_query(spark, index, tmp_path):
    """`against_index`: the executors ask the index; the result is the
    index's own query, byte for byte, on three partitions with buckets cut
    into blocks of two (the default partitioning is
    test_scan_files_against_an_index_equals_index_query's)."""
    new_ids, new_texts = zip(*index["new"])
    want = neardup.Index.open(index["path"]).query(list(new_texts), ids=list(new_ids))
    assert '"verdict":"IDENTICAL"' in want.pairs_jsonl() and len(want.drop) > 5
    assert any(p["a"] in index["refs"] for p in want.pairs)
    assert any(p["a"] in new_ids and p["b"] in new_ids for p in want.pairs)
    rows = [(o, i, t) for o, (i, t) in enumerate(index["new"])][::-1]
    df = spark.createDataFrame(rows, "order long, id string, text string").repartition(4)
    out = ns.scan(df, order_col="order", against_index=str(index["path"]),
                  partitions=3, block_size=2, threshold="0.60")  # the index's
    got = spark_files(out, tmp_path)
    assert got["pairs"] == want.pairs_jsonl()
    assert got["clusters"] == want.clusters_jsonl()
    assert got["keep"] == want.keep_list()
    assert got["drop"] == want.drop_list()
    assert [r.asDict() for r in out.pairs.collect()] == want.pairs
    assert [r.asDict() for r in out.clusters.collect()] == want.clusters


def test_scan_against_an_index_refuses_an_id_it_holds(spark, index):
    df = spark.createDataFrame([(index["refs"][3], "some text")], "id string, text string")
    with pytest.raises(Exception, match="duplicate id .*%s.*of index" % index["refs"][3]):
        ns.scan(df, against_index=str(index["path"])).write(pairs=os.devnull)
    with pytest.raises(FileNotFoundError, match="no such index"):
        ns.scan(df, against_index=str(index["dir"] / "nowhere"))


@pytest.mark.parametrize("given, said", [
    ({"threshold": 0.9}, "threshold='0.6', not threshold='0.9'"),
    ({"k": 7}, "k=5, not k=7"),
    ({"n": 64}, "n=128, not n=64"),
    ({"recall": "exact"}, "recall='probable', not recall='exact'"),
    ({"bands": 4, "rows": 32}, "bands=.*, not bands=4"),
    ({"words": "script"}, "words='space', not words='script'"),
])
def test_scan_against_an_index_refuses_other_settings(spark, index, given, said):
    """An index answers with its own settings: one given that differs is
    refused before any work, naming the index, as `neardup index query`
    refuses `-k 7`."""
    df = spark.createDataFrame([("new", "some text")], "id string, text string")
    with pytest.raises(ValueError, match="index '%s' was built with %s" % (index["path"], said)):
        ns.scan(df, against_index=str(index["path"]), **given)
    with pytest.raises(ValueError, match="was built with %s" % said):
        ns.scan_files(spark, [str(index["dir"])], against_index=str(index["path"]), **given)


def test_an_index_plan_has_the_index_word_rule(tmp_path):
    """The driver reads the word rule from the index (the tasks sign with
    it), as it reads K and N."""
    from neardup.spark.index import _plan
    neardup.Index.create(tmp_path / "idx", words="script", k=3).close()
    length, plan = _plan(str(tmp_path / "idx"), {"words": "script", "k": None})
    assert (length, plan.words, plan.k) == (0, "script", 3)


def test_scan_files_against_an_index_equals_index_query(cli, spark, index, tmp_path):
    """`scan_files(against_index=)`, the command's `--against-index`, with
    Spark's own partitioning and input splits of 4 kB: the files `neardup
    index query` writes."""
    if cli("index", "--help", ok=False).returncode != 0:
        pytest.skip("this neardup binary has no `index` command")
    new = tmp_path / "new.jsonl"
    write_jsonl(new, *zip(*index["new"]))
    want = tmp_path / "want"
    want.mkdir()
    cli("index", "query", "-q", index["path"], new, "--pairs", want / "pairs",
        "--clusters", want / "clusters", "--keep-list", want / "keep", "--drop-list", want / "drop")
    assert (want / "pairs").read_text(encoding="utf-8").count("\n") > 10
    with settings(spark, {"spark.sql.files.maxPartitionBytes": 4000}):
        got = spark_files(ns.scan_files(spark, [str(new)], against_index=str(index["path"])),
                          tmp_path)
    for x in OUTPUTS:
        assert got[x] == (want / x).read_text(encoding="utf-8"), x


def test_outputs_get_the_mode_of_a_new_file(tmp_path):
    # neardup scan's outputs are 0666 less the umask; a mkstemp temporary
    # renamed into place would leave them 0600.
    plain = tmp_path / "plain"
    plain.write_text("x\n")
    out = tmp_path / "out.jsonl"
    ns._write_atomically([(out, lambda: iter(["a\n", "b\n"]))])
    assert out.read_text() == "a\nb\n"
    assert oct(os.stat(out).st_mode & 0o777) == oct(os.stat(plain).st_mode & 0o777)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_driver_killed_while_writing_leaves_nothing(tmp_path):
    """The outputs are unnamed files until all are complete: SIGKILL in the
    middle of writing them leaves no file, new or temporary, and an output
    that was there before keeps its old bytes."""
    old = tmp_path / "clusters.jsonl"
    old.write_text("old\n")
    script = (
        "import os, signal, sys\n"
        "from neardup.spark import _write_atomically\n"
        "def pieces():\n"
        "    yield 'x' * 100000\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "_write_atomically([(sys.argv[1], lambda: iter(['a\\n'])), (sys.argv[2], pieces)])\n")
    p = subprocess.run([sys.executable, "-c", script, str(tmp_path / "pairs.jsonl"), str(old)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == -9, p.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == ["clusters.jsonl"]
    assert old.read_text() == "old\n"
    # And whole, it replaces the old file and names the new one.
    ns._write_atomically([(tmp_path / "pairs.jsonl", lambda: iter(["p\n"])),
                          (old, lambda: iter(["new\n"]))])
    assert old.read_text() == "new\n"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["clusters.jsonl", "pairs.jsonl"]
