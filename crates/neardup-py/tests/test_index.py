"""neardup.Index: a persistent index whose adds and queries report what
`neardup.scan(new, against=everything_added_before)` reports, byte for
byte, and which the `neardup index` command line reads and writes too."""
import json
import pickle
import subprocess

import pytest

import neardup
from test_cli import chinese, corpus, run_cli_scan, same_as_cli, write_jsonl
from test_gil import ticks_during

OUTPUTS = ("pairs_jsonl", "clusters_jsonl", "keep_list", "drop_list")


def outputs(result):
    return {x: getattr(result, x)() for x in OUTPUTS}


def batches(seed=5, size=240, cuts=(0, 90, 150, 200)):
    """A corpus with duplicates across and within batches, cut in four."""
    ids, texts = corpus(seed, size)
    bounds = list(cuts) + [len(ids)]
    return [(ids[a:b], texts[a:b]) for a, b in zip(bounds, bounds[1:])]


@pytest.mark.parametrize("opts", [{}, {"threshold": 0.5, "recall": "exact"},
                                  {"threshold": "0.9", "k": 3, "n": 64}],
                         ids=lambda o: json.dumps(o))
def test_adds_equal_scan_against_everything_before(tmp_path, opts):
    scan_opts = dict(opts)
    idx = neardup.Index.create(tmp_path / "idx", **opts)
    before_ids, before_texts = [], []
    saw_refs = False
    for ids, texts in batches():
        want = neardup.scan(ids, texts, against=(before_ids, before_texts), **scan_opts)
        query = idx.query(texts, ids=ids)
        got = idx.add(ids, texts)
        assert outputs(got) == outputs(want) == outputs(query)
        assert got.pairs == want.pairs and got.clusters == want.clusters
        assert got.keep == want.keep and got.drop == want.drop
        assert got.receipts == want.receipts
        saw_refs |= any(p["a"] in before_ids for p in got.pairs)
        before_ids += ids
        before_texts += texts
        assert len(idx) == len(before_ids)
    assert saw_refs
    # The result pickles with the ids of the documents it names only.
    again = pickle.loads(pickle.dumps(got))
    assert outputs(again) == outputs(got)
    idx.close()


def test_only_new_adds_the_documents_kept(tmp_path):
    (ids1, texts1), (ids2, texts2) = batches()[:2]
    with neardup.Index.create(tmp_path / "idx") as idx:
        first = idx.add(ids1, texts1, only_new=True)
        assert first.drop and len(idx) == len(first.keep)
        second = idx.add(ids2, texts2, only_new=True)
        want = neardup.scan(ids2, texts2, against=(first.keep, [
            t for i, t in zip(ids1, texts1) if i in set(first.keep)]))
        assert outputs(second) == outputs(want)
        assert len(idx) == len(first.keep) + len(second.keep)


def test_signatures_equal_texts(tmp_path):
    (ids1, texts1), (ids2, texts2) = batches()[:2]
    with neardup.Index.create(tmp_path / "a") as a, neardup.Index.create(tmp_path / "b") as b:
        a.add(ids1, texts1)
        b.add_signatures(ids1, neardup.sign_batch(texts1))
        batch = neardup.sign_batch(texts2)
        assert outputs(b.query_signatures(batch, ids=ids2)) == outputs(a.query(texts2, ids=ids2))
        assert outputs(b.add_signatures(ids2, batch)) == outputs(a.add(ids2, texts2))
        with pytest.raises(ValueError, match="signed with k=3, n=128, but index '.*' uses k=5"):
            b.query_signatures(neardup.sign_batch(texts2, k=3))
        with pytest.raises(ValueError, match="ids has 1 items but the batch has"):
            b.add_signatures(["x"], batch)


def test_query_ids_default_to_positions(tmp_path):
    ids, texts = batches()[0]
    with neardup.Index.create(tmp_path / "idx") as idx:
        idx.add(["r%s" % i for i in ids], texts)
        got = idx.query(texts[:20])
        want = neardup.scan(list(range(20)), texts[:20],
                            against=(["r%s" % i for i in ids], texts))
        assert outputs(got) == outputs(want)


def test_duplicate_ids_are_refused(tmp_path):
    ids, texts = batches()[0]
    with neardup.Index.create(tmp_path / "idx") as idx:
        idx.add(ids, texts)
        with pytest.raises(ValueError, match=r'duplicate id "doc 1 \\"q\\" é": document 1 '
                                             r"of index '.*idx' has it already"):
            idx.add(["new", ids[1]], ["a", "b"])
        with pytest.raises(ValueError, match="duplicate id 3: document 3 of index"):
            idx.query(["x"], ids=[3])
        with pytest.raises(ValueError, match=r'ids\[1\]: duplicate id "n"'):
            idx.add(["n", "n"], ["a", "b"])
        with pytest.raises(TypeError, match=r"ids\[0\] must be a str or an int"):
            idx.add([1.5], ["a"])
        assert len(idx) == len(ids)  # nothing refused was added


def test_context_manager_len_info_verify_compact_close(tmp_path):
    path = tmp_path / "idx"
    with neardup.Index.create(path, threshold="0.8") as idx:
        assert len(idx) == 0 and idx.writable
        for ids, texts in batches():
            idx.add(ids, texts)
        info = idx.info()
        assert info["documents"] == len(idx) and info["threshold"] == "0.8"
        assert info["k"] == 5 and info["n"] == 128 and len(info["segments"]) == 4
        before = idx.query(["a new text about free documentation licenses for manuals"],
                           ids=["q"])
        idx.compact()
        assert len(idx.info()["segments"]) == 1 and idx.verify() == []
    with pytest.raises(ValueError, match="index '.*idx' is closed"):
        len(idx)
    idx.close()  # twice is fine
    with neardup.Index.open(path) as ro:
        assert not ro.writable and len(ro) == info["documents"]
        assert "documents=%d, read" % len(ro) in repr(ro)
        after = ro.query(["a new text about free documentation licenses for manuals"],
                         ids=["q"])
        assert outputs(after) == outputs(before)
        with pytest.raises(ValueError, match="open for reading; open it with write=True"):
            ro.add(["x"], ["y"])
        with pytest.raises(ValueError, match="open for reading"):
            ro.compact()


def test_a_second_writer_is_refused(tmp_path):
    path = tmp_path / "idx"
    w = neardup.Index.create(path)
    with pytest.raises(BlockingIOError, match="is being written by another process"):
        neardup.Index.open(path, write=True)
    reader = neardup.Index.open(path)  # readers take no lock
    assert len(reader) == 0
    w.close()
    with neardup.Index.open(path, write=True) as again:
        again.add(["a"], ["some text"])
    assert len(reader) == 0  # it sees the index as it was opened
    assert len(neardup.Index.open(path)) == 1


def test_bad_paths_name_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="'.*nowhere': no such index"):
        neardup.Index.open(tmp_path / "nowhere")
    (tmp_path / "plain").mkdir()
    with pytest.raises(FileNotFoundError, match="'.*plain' is not a neardup index"):
        neardup.Index.open(tmp_path / "plain", write=True)
    assert not (tmp_path / "plain" / "LOCK").exists()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(ValueError, match="cannot create an index in '.*full': it exists"):
        neardup.Index.create(tmp_path / "full")
    with neardup.Index.create(tmp_path / "idx"):
        pass
    with pytest.raises(ValueError, match="is an index already"):
        neardup.Index.create(tmp_path / "idx")
    file = tmp_path / "file"
    file.write_text("x")
    with pytest.raises(OSError, match="'.*file'") as e:
        neardup.Index.create(file)
    assert e.value.errno is not None and "\n" not in str(e.value)
    with pytest.raises(ValueError, match="recall: expected"):
        neardup.Index.create(tmp_path / "r", recall="maybe")
    assert not (tmp_path / "r").exists()


def test_damage_is_a_value_error_naming_the_file(tmp_path):
    path = tmp_path / "idx"
    with neardup.Index.create(path) as idx:
        idx.add(*batches()[0])
        seg = idx.info()["segments"][0]["file"]
    data = bytearray((path / seg).read_bytes())
    data[-10] ^= 0xFF
    (path / seg).write_bytes(bytes(data))
    with pytest.raises(ValueError, match="%s' is damaged" % seg):
        neardup.Index.open(path).verify()


@pytest.mark.timing
def test_add_releases_the_gil(tmp_path):
    # An add that probes what is there: 1,000 documents of 1,000 words
    # against 1,000 near-copies of them (a few seconds in CI's build).
    words = " ".join("w%d" % i for i in range(1000))
    texts = [words + " %d" % i for i in range(1000)]
    with neardup.Index.create(tmp_path / "idx") as idx:
        idx.add(["r%d" % i for i in range(1000)], texts, threads=1)
        inside, took = ticks_during(
            lambda: idx.add(list(range(1000)), texts, threads=1))
    assert took > 0.05, took
    assert len(inside) > 100, (len(inside), took)


def cli_index_available(cli):
    p = cli("index", "--help", ok=False)
    if p.returncode != 0:
        pytest.skip("this neardup binary has no `index` command (the CLI's index is not merged)")


def test_the_cli_reads_and_writes_the_same_index(cli, tmp_path):
    cli_index_available(cli)
    (ids1, texts1), (ids2, texts2), (ids3, texts3) = batches()[:3]
    path = tmp_path / "idx"
    with neardup.Index.create(path, threshold="0.7") as idx:
        idx.add(ids1, texts1)
    info = json.loads(cli("index", "info", "--json", path))
    assert info["documents"] == len(ids1) and info["threshold"] == "0.7"
    assert info == neardup.Index.open(path).info()
    # The CLI's query and add of Python's index: scan's files.
    new = tmp_path / "new.jsonl"
    write_jsonl(new, ids2, texts2)
    out = {x: tmp_path / x for x in ("pairs", "clusters", "keep", "drop")}
    flags = ["--pairs", out["pairs"], "--clusters", out["clusters"],
             "--keep-list", out["keep"], "--drop-list", out["drop"]]
    cli("index", "query", "-q", path, new, *flags)
    files = {k: v.read_text(encoding="utf-8") for k, v in out.items()}
    same_as_cli(neardup.Index.open(path).query(texts2, ids=ids2), files)
    cli("index", "add", "-q", path, new, *flags)
    assert {k: v.read_text(encoding="utf-8") for k, v in out.items()} == files
    # Python reads the CLI's add, and its query is the CLI's scan.
    more = tmp_path / "more.jsonl"
    write_jsonl(more, ids3, texts3)
    before = tmp_path / "before.jsonl"
    write_jsonl(before, ids1 + ids2, texts1 + texts2)
    (tmp_path / "s").mkdir()
    want = run_cli_scan(cli, tmp_path / "s", [more], {"threshold": "0.7"}, against=before)
    with neardup.Index.open(path, write=True) as idx:
        assert len(idx) == len(ids1) + len(ids2)
        same_as_cli(idx.add(ids3, texts3), want)
    assert cli("index", "verify", path).startswith(str(path).encode())
    # Python's lock is the CLI's.
    with neardup.Index.open(path, write=True):
        p = cli("index", "add", "-q", path, new, ok=False)
        assert p.returncode != 0 and b"being written by another process" in p.stderr


def test_an_index_keeps_its_word_rule(cli, tmp_path):
    """An index created with words="script" signs every later add and
    query with script words by itself; a words that is not its rule, or a
    batch signed with another, is refused, as `neardup index add --words`
    refuses it; and the CLI reads the rule from the index."""
    ids, texts = chinese(3, 24)
    half = 20
    path = tmp_path / "idx"
    with neardup.Index.create(path, words="script") as idx:
        assert idx.info()["words"] == "script"
        idx.add(ids[:half], texts[:half])
    new_ids, new_texts = ids[half:], texts[half:]
    want = neardup.scan(new_ids, new_texts, against=(ids[:half], texts[:half]), words="script")
    assert [(p["a"], p["b"]) for p in want.pairs] == [("zh-12", "copy")]
    with neardup.Index.open(path, write=True) as idx:
        assert outputs(idx.query(new_texts, ids=new_ids)) == outputs(want)
        batch = neardup.sign_batch(new_texts, words="script")
        assert outputs(idx.query_signatures(batch, ids=new_ids)) == outputs(want)
        said = "index '%s' was built with words='script', not words='space'" % path
        with pytest.raises(ValueError, match=said):
            idx.add(["x"], ["y"], words="space")
        with pytest.raises(ValueError, match=said):
            idx.query(["y"], words="space")
        with pytest.raises(ValueError, match="signed with k=5, n=128, but index '.*' uses "
                                             "k=5, n=128, words=script"):
            idx.query_signatures(neardup.sign_batch(new_texts))
        assert len(idx) == half
        assert outputs(idx.add(new_ids, new_texts, words="script")) == outputs(want)
    with neardup.Index.create(tmp_path / "space") as idx:
        with pytest.raises(ValueError, match="built with words='space', not words='script'"):
            idx.add(ids, texts, words="script")
        assert len(idx) == 0 and idx.info()["words"] == "space"
    cli_index_available(cli)
    info = json.loads(cli("index", "info", "--json", path))
    assert info == neardup.Index.open(path).info() and info["words"] == "script"
    more = tmp_path / "more.jsonl"
    write_jsonl(more, ["again"], [texts[-1][:-1] + "们"])
    pairs = tmp_path / "pairs.jsonl"
    cli("index", "query", "-q", path, more, "--pairs", pairs)
    query = neardup.Index.open(path).query([texts[-1][:-1] + "们"], ids=["again"])
    assert pairs.read_text(encoding="utf-8") == query.pairs_jsonl() and query.pairs
    p = cli("index", "query", "-q", "--words", "space", path, more, "--pairs", pairs, ok=False)
    assert p.returncode == 2 and b"words=script" in p.stderr


def test_a_held_lock_is_released_when_the_process_dies(tmp_path):
    path = tmp_path / "idx"
    neardup.Index.create(path).close()
    import sys
    code = ("import neardup, os; i = neardup.Index.open(%r, write=True); "
            "print('held', flush=True); os._exit(0)" % str(path))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.stdout == "held\n", p.stderr
    neardup.Index.open(path, write=True).close()
