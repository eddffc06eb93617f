"""The package against the `neardup` command line on the same documents:
sign and sign_batch against `sign --jsonl`, compare against `compare
--json`, scan against `scan`, byte for byte where the CLI writes bytes."""
import json
import pickle
import random

import numpy as np
import pytest

import neardup
from conftest import COMPARE, REPO, SCRIPT

pa = pytest.importorskip("pyarrow")


def write_jsonl(path, ids, texts):
    with open(path, "w", encoding="utf-8") as f:
        for i, t in zip(ids, texts):
            f.write(json.dumps({"id": i, "text": t}) + "\n")


@pytest.mark.parametrize("k, n, words", [(5, 128, None), (1, 16, None), (3, 100, None),
                                         (64, 256, None), (5, 128, "script"), (2, 64, "script")])
def test_sign_and_sign_batch_equal_sign_jsonl(cli, tmp_path, k, n, words):
    cases = COMPARE + SCRIPT
    texts = [c["a"] for c in cases] + [c["b"] for c in cases]
    ids = ["doc-%d" % i if i % 2 else i for i in range(len(texts))]
    path = tmp_path / "docs.jsonl"
    write_jsonl(path, ids, texts)
    flags = ["--words", words] if words else []
    lines = cli("sign", "-k", k, "-n", n, *flags, "--jsonl", path).decode().splitlines()
    assert len(lines) == len(texts)
    batch = neardup.sign_batch(texts, k=k, n=n, words=words)
    arrow = neardup.sign_batch(pa.array(texts, pa.large_string()), k=k, n=n, words=words)
    assert batch.words == arrow.words == (words or "space")
    for i, (line, text) in enumerate(zip(lines, texts)):
        f = neardup.sign(text, k=k, n=n, words=words)
        assert f.to_json(ids[i]) == line
        assert batch[i] == f and arrow[i] == f
        assert neardup.Fingerprint.parse(line) == f
        rec = json.loads(line)
        # A script record says so; a space one is written as before the rule.
        assert rec.get("words") == words
        assert batch.normalized_sha256[i] == rec["normalized_sha256"]
        assert batch.shingles[i] == rec["shingles"]
        assert bool(batch.has_signature[i]) == (rec["signature"] is not None)
        if rec["signature"] is not None:
            slots = [int(rec["signature"][j:j + 8], 16) for j in range(0, 8 * n, 8)]
            assert batch.signatures[i].tolist() == slots
            assert f.signature_hex == rec["signature"]
            assert f.signature_sha256 == rec["signature_sha256"]


@pytest.mark.parametrize("case", COMPARE[::9] + SCRIPT[::3], ids=lambda c: c["name"])
def test_compare_to_json_equals_compare_json(cli, tmp_path, case):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(case["a"].encode("utf-8"))
    b.write_bytes(case["b"].encode("utf-8"))
    words = case.get("words")
    flags = ["--words", words] if words else []
    want = json.loads(cli("compare", "--json", "-k", case["k"], "-n", case["n"], *flags, a, b))
    c = neardup.compare(case["a"], case["b"], k=case["k"], n=case["n"], words=words)
    got = json.loads(c.to_json(str(a), str(b)))
    assert want.pop("elapsed_ms") >= 0 and got.pop("elapsed_ms") >= 0
    assert got == want
    assert c.receipt.canonical() == case["expected"]["canonical"]
    # And the CLI verifies the package's receipt, with the words its
    # algorithm id names.
    receipt = tmp_path / "r.json"
    receipt.write_text(c.receipt.canonical())
    assert cli("verify", receipt, a, b).startswith(b"VERIFIED")


def test_containment_equals_the_cli(cli, tmp_path):
    """A short text copied into a long one: DISTINCT, yet all of A is in B."""
    words = (REPO / "examples" / "GFDL-1.3.txt").read_text().split()
    short, long = " ".join(words[100:160]), " ".join(words[:2000])
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(short)
    b.write_text(long)
    want = json.loads(cli("compare", "--json", a, b))["containment"]
    c = neardup.compare(short, long)
    assert c.verdict == "DISTINCT"
    assert c.containment == (want["a_in_b"], want["b_in_a"], want["shared"])
    assert c.containment[0] == 1.0 and 0 < c.containment[1] < 0.05
    assert pickle.loads(pickle.dumps(c)).containment == c.containment
    human = cli("compare", a, b).decode()
    assert "containment A in B 100.0%, B in A" in human
    assert f"100.0% of A ({a}) is found in B ({b})." in human


def corpus(seed, size):
    """Real prose with planted near-copies, short documents and repeats."""
    rng = random.Random(seed)
    words = (REPO / "examples" / "GFDL-1.3.txt").read_text().split()
    texts = []
    for _ in range(size):
        start = rng.randrange(len(words) - 200)
        texts.append(" ".join(words[start:start + rng.randrange(2, 150)]))
    for _ in range(size // 2):
        copy = rng.choice(texts).split()
        for _ in range(rng.randrange(3)):
            if copy:
                copy[rng.randrange(len(copy))] = "EDITED"
        texts.append(" ".join(copy))
    texts += ["", "short", "Short", "short"]
    # String ids (one needing JSON escapes, one non-ASCII) and integer ids.
    ids = [i if i % 3 == 0 else "doc %d \"q\" \u00e9" % i for i in range(len(texts))]
    return ids, texts


SCANS = [
    {},
    {"threshold": 0.5},
    {"threshold": "0.9", "k": 3, "n": 64},
    {"bands": 64, "rows": 2},
    {"threshold": 0.5, "recall": "exact"},
    {"threshold": "0.9", "recall": "exact"},
    # Script words on text without a code point of SPEC §11's table: the
    # same pairs as space words, with the script algorithm's receipts.
    {"threshold": 0.5, "words": "script"},
]


def cli_scan_args(opts):
    args = []
    for key, flag in (("threshold", "--threshold"), ("k", "-k"), ("n", "-n"),
                      ("bands", "--bands"), ("rows", "--rows"), ("recall", "--recall"),
                      ("containment", "--containment"), ("words", "--words")):
        if key in opts:
            args += [flag, opts[key]]
    return args


def run_cli_scan(cli, tmp_path, inputs, opts, against=None):
    out = {x: tmp_path / x for x in ("pairs", "clusters", "keep", "drop")}
    extra = ["--against", against] if against else []
    cli("scan", "-q", *inputs, *extra, *cli_scan_args(opts), "--pairs", out["pairs"],
        "--clusters", out["clusters"], "--keep-list", out["keep"], "--drop-list", out["drop"])
    return {k: v.read_text(encoding="utf-8") for k, v in out.items()}


def same_as_cli(result, files):
    assert result.pairs_jsonl() == files["pairs"]
    assert result.clusters_jsonl() == files["clusters"]
    assert result.keep_list() == files["keep"]
    assert result.drop_list() == files["drop"]
    assert result.pairs == [json.loads(l) for l in files["pairs"].splitlines()]
    assert result.clusters == [json.loads(l) for l in files["clusters"].splitlines()]


@pytest.mark.parametrize("opts", SCANS, ids=lambda o: json.dumps(o))
def test_scan_equals_neardup_scan(cli, tmp_path, opts):
    ids, texts = corpus(5, 300)
    path = tmp_path / "c.jsonl"
    write_jsonl(path, ids, texts)
    files = run_cli_scan(cli, tmp_path, [path], opts)
    result = neardup.scan(ids, texts, **opts)
    assert len(result.pairs) > 50 and len(result.drop) > 20  # the corpus has duplicates
    same_as_cli(result, files)
    # Keep and drop split the documents; the lists are the CLI's line for line.
    assert sorted(map(str, result.keep + result.drop)) == sorted(map(str, ids))


def chinese(seed, size):
    """The Chinese of two unrelated texts (their Han characters and Chinese
    punctuation, so no space), cut into documents of 70 to 100 characters:
    under space words each is one word, so no document has a signature. A
    near-copy of the middle one, one character changed, comes last."""
    rng = random.Random(seed)
    case = next(c for c in SCRIPT if c["name"] == "zh-unrelated-s1")
    prose = "".join(ch for ch in case["a"] + case["b"]
                    if "\u4e00" <= ch <= "\u9fff" or ch in "，。、；：？！")
    texts, at = [], 0
    for _ in range(size):
        length = rng.randrange(70, 100)
        texts.append(prose[at:at + length])
        at += length
    assert at <= len(prose)
    copy = list(texts[size // 2])
    copy[30] = "改" if copy[30] != "改" else "变"
    ids = ["zh-%d" % i for i in range(size)] + ["copy"]
    return ids, texts + ["".join(copy)]


def test_script_words_find_a_chinese_near_copy_that_space_words_miss(cli, tmp_path):
    ids, texts = chinese(3, 24)
    planted = "zh-12", "copy"
    assert neardup.compare(texts[12], texts[-1]).verdict == "INSUFFICIENT-DATA"
    assert neardup.scan(ids, texts).pairs == []
    found = neardup.scan(ids, texts, words="script")
    assert [(p["a"], p["b"], p["verdict"]) for p in found.pairs] == [
        (*planted, "NEAR-DUPLICATE")]
    assert found.drop == ["copy"]
    c = neardup.compare(texts[12], texts[-1], words="script")
    assert found.receipts == [c.receipt] and c.receipt.words == "script"
    path = tmp_path / "zh.jsonl"
    write_jsonl(path, ids, texts)
    same_as_cli(found, run_cli_scan(cli, tmp_path, [path], {"words": "script"}))


def test_scan_against_equals_neardup_scan_against(cli, tmp_path):
    ids, texts = corpus(11, 240)
    ref_ids, ref_texts = ids[:120], texts[:120]
    new_ids, new_texts = ids[120:], texts[120:]
    ref, new = tmp_path / "ref.jsonl", tmp_path / "new.jsonl"
    write_jsonl(ref, ref_ids, ref_texts)
    write_jsonl(new, new_ids, new_texts)
    files = run_cli_scan(cli, tmp_path, [new], {}, against=ref)
    result = neardup.scan(new_ids, new_texts, against=(ref_ids, ref_texts))
    assert any(p["a"] in ref_ids for p in result.pairs)
    assert not set(result.drop) & set(ref_ids)
    same_as_cli(result, files)


def partial_copies(seed, sources, essays):
    """Sources of 300 to 3,000 words; essays that copy 10% to 80% of their
    words from one or two of them, some copied again whole; strangers."""
    rng = random.Random(seed)
    words = (REPO / "examples" / "GFDL-1.3.txt").read_text().split()
    fresh = lambda n: " ".join(f"own{rng.randrange(10**6)}" for _ in range(n))
    src = [" ".join(words[(s := rng.randrange(len(words) - 3000)):s + rng.randrange(300, 3000)])
           for _ in range(sources)]
    texts = []
    for i in range(essays):
        if i % 7 == 6:
            texts.append(fresh(200))
            continue
        if i % 5 == 4 and texts:
            texts.append(texts[-1].upper())
            continue
        w = rng.choice(src).split()
        n = rng.randrange(20, 250)
        start = rng.randrange(max(1, len(w) - n))
        texts.append(" ".join([fresh(rng.randrange(10, 200)), *w[start:start + n], fresh(rng.randrange(10, 100))]))
    return [f"s{i}" for i in range(sources)], src, [f"e{i}" for i in range(essays)], texts


@pytest.mark.parametrize("t", ["0.2", 0.5, "0.8"])
def test_scan_containment_equals_neardup_scan_containment(cli, tmp_path, t):
    src_ids, src, ids, texts = partial_copies(3, 8, 60)
    path, ref = tmp_path / "c.jsonl", tmp_path / "ref.jsonl"
    write_jsonl(path, ids, texts)
    write_jsonl(ref, src_ids, src)
    files = run_cli_scan(cli, tmp_path, [path], {"containment": t}, against=ref)
    result = neardup.scan(ids, texts, against=(src_ids, src), containment=t)
    assert len(result.pairs) > 10
    same_as_cli(result, files)
    # Each pair's containment is compare's, and reaches t.
    by_id = dict(zip(src_ids + ids, src + texts))
    for p in result.pairs:
        c = neardup.compare(by_id[p["a"]], by_id[p["b"]])
        assert c.containment == tuple(p["containment"][x] for x in ("a_in_b", "b_in_a", "shared"))
        assert max(x for x in c.containment[:2] if x is not None) >= float(t)
    back = pickle.loads(pickle.dumps(result))
    assert back.pairs_jsonl() == result.pairs_jsonl() and back.pairs == result.pairs


def test_scan_containment_refuses_bands():
    with pytest.raises(ValueError, match="containment finds pairs exactly"):
        neardup.scan(["a"], ["x"], containment=0.5, threshold=0.8)
    with pytest.raises(ValueError, match="threshold"):
        neardup.scan(["a"], ["x"], containment=0)


def test_scan_receipts_are_compare_receipts():
    ids, texts = corpus(3, 80)
    result = neardup.scan(ids, texts)
    by_id = dict(zip(ids, texts))
    for p, r in list(zip(result.pairs, result.receipts))[:40]:
        c = neardup.compare(by_id[p["a"]], by_id[p["b"]])
        assert c.receipt == r and c.receipt_sha256 == p["receipt_sha256"]
        assert c.verdict == p["verdict"] and c.matches == p["matches"]


def test_scan_threads_give_the_same_result():
    ids, texts = corpus(9, 200)
    one = neardup.scan(ids, texts, threads=1)
    two = neardup.scan(ids, texts, threads=2)
    assert one.pairs_jsonl() == two.pairs_jsonl()
    assert np.array_equal(one.drop, two.drop)
