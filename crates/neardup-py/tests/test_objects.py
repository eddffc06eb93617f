"""Pickling, repr and equality of every object, and the numpy shapes."""
import json
import pickle

import numpy as np
import pytest

import neardup

A = "We the People of the United States, in Order to form a more perfect Union"
B = "We the people of the United States, in order to form a more perfect union!"
# Script words (SPEC §11): one word under space words, 20 under script.
ZH = "这是一个没有空格的句子，用来看看脚本的词是不是一个字一个字。"
ZH2 = "这是一个没有空格的句子，用来看看脚本的词是不是一个字一个词。"


def objects():
    c = neardup.compare(A, B, k=3)
    batch = neardup.sign_batch([A, B, "too short"], k=3, n=64)
    ids = ["a", 7, "b"]
    result = neardup.scan(ids, [A, B, A.upper()], threshold="0.5", k=3)
    mismatch = c.receipt.verify(A, B + " more words")[0]
    script = neardup.compare(ZH, ZH2, k=3, words="script")
    return {"comparison": c, "receipt": c.receipt, "mismatch": mismatch,
            "fingerprint": neardup.sign(A), "no signature": neardup.sign("short"),
            "batch": batch, "scan": result,
            # Each keeps its word rule through pickling.
            "script comparison": script, "script receipt": script.receipt,
            "script fingerprint": neardup.sign(ZH, words="script"),
            "script batch": neardup.sign_batch([ZH, ZH2, "短"], words="script"),
            "script scan": neardup.scan(["a", "b"], [ZH, ZH2], threshold="0.5", k=3,
                                        words="script"),
            "script plan": neardup.ScanPlan(k=3, words="script")}


@pytest.mark.parametrize("name", list(objects()))
def test_pickle_round_trip(name):
    obj = objects()[name]
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(obj, protocol=protocol))
        assert type(back) is type(obj)
        assert repr(back) == repr(obj)
        if name.endswith("comparison"):
            assert back.to_json() == obj.to_json()
            assert back.fingerprints == obj.fingerprints
            assert back.receipt == obj.receipt and back.words == obj.words
        elif name.endswith("batch"):
            assert np.array_equal(back.signatures, obj.signatures)
            assert np.array_equal(back.has_signature, obj.has_signature)
            assert np.array_equal(back.shingles, obj.shingles)
            assert back.normalized_sha256 == obj.normalized_sha256
            assert list(back) == list(obj) and back.words == obj.words
        elif name.endswith("plan"):
            assert (back.words, back.k, back.bands) == (obj.words, obj.k, obj.bands)
        elif name.endswith("scan"):
            assert back.pairs == obj.pairs and back.clusters == obj.clusters
            assert (back.keep, back.drop) == (obj.keep, obj.drop)
            assert back.pairs_jsonl() == obj.pairs_jsonl()
            assert back.receipts == obj.receipts
        else:
            assert back == obj


def test_reprs_say_what_the_object_is():
    o = objects()
    assert repr(o["comparison"]).startswith("Comparison(verdict='NEAR-DUPLICATE', matches=")
    assert o["receipt"].sha256() in repr(o["receipt"])
    assert repr(o["mismatch"]).startswith("Mismatch(field='documents[1].normalized_sha256'")
    assert repr(o["no signature"]).endswith("shingles=0, signature=None)")
    assert repr(o["batch"]) == "SignatureBatch(len=3, k=3, n=64, with_signature=2)"
    assert repr(o["scan"]) == "ScanResult(documents=3, against=0, pairs=2, clusters=1, dropped=2)"
    assert str(o["receipt"]) == o["receipt"].canonical()
    # The script rule is shown; the default is not.
    assert "words" not in repr(o["fingerprint"]) + repr(o["batch"]) + repr(o["comparison"])
    assert repr(o["script batch"]) == (
        "SignatureBatch(len=3, k=5, n=128, words='script', with_signature=2)")
    assert repr(o["script fingerprint"]).startswith("Fingerprint(k=5, n=128, words='script', ")
    assert ", words='script', " in repr(o["script comparison"]) + repr(o["script receipt"])
    assert ", words='script', " in repr(o["script plan"])


def test_the_word_rule_is_on_every_object():
    c = neardup.compare(ZH, ZH2, k=3, words="script")
    assert c.words == c.receipt.words == "script"
    assert c.receipt.algorithm == "kar-script-shingle-minhash-v1"
    assert all(f.words == "script" for f in c.fingerprints)
    assert json.loads(c.to_json())["receipt"]["algorithm"] == "kar-script-shingle-minhash-v1"
    assert c.verdict == "NEAR-DUPLICATE"
    # Under space words each text is one word: no signature.
    space = neardup.compare(ZH, ZH2, k=3)
    assert (space.words, space.verdict) == ("space", "INSUFFICIENT-DATA")
    assert space.receipt.algorithm == neardup.ALGORITHM
    assert neardup.sign_batch([ZH], words="script")[0] == neardup.sign(ZH, words="script")
    assert neardup.sign_batch([ZH])[0] != neardup.sign(ZH, words="script")
    assert neardup.ScanPlan().words == "space"


def test_comparison_to_json_is_the_cli_object():
    c = neardup.compare(A, B, k=3)
    j = json.loads(c.to_json("a.txt", "b.txt"))
    assert sorted(j) == ["a", "b", "containment", "elapsed_ms", "jaccard", "matches", "n", "receipt",
                         "receipt_sha256", "similarity", "similarity_interval_95", "verdict"]
    assert tuple(j["containment"][x] for x in ("a_in_b", "b_in_a", "shared")) == c.containment
    assert (j["a"], j["b"]) == ("a.txt", "b.txt")
    assert json.loads(c.to_json())["a"] is None
    assert j["receipt"] == json.loads(c.receipt.canonical())
    assert j["similarity_interval_95"] == list(c.interval_95)
    # A saved --json object is a receipt too.
    assert neardup.Receipt.parse(c.to_json()) == c.receipt


def test_batch_arrays():
    texts = [A, "", B, "one two three four"]
    b = neardup.sign_batch(texts, k=5, n=32)
    assert b.signatures.shape == (4, 32) and b.signatures.dtype == np.uint32
    assert b.has_signature.dtype == np.bool_ and b.has_signature.tolist() == [True, False, True, False]
    assert b.shingles.dtype == np.uint64
    assert (b.signatures[~b.has_signature] == 0xFFFFFFFF).all()
    assert len(b) == 4 and (b.k, b.n) == (5, 32)
    for i, t in enumerate(texts):
        f = neardup.sign(t, k=5, n=32)
        assert b[i] == f and b[i - 4] == f
        assert b.shingles[i] == f.shingles and b.normalized_sha256[i] == f.normalized_sha256
        if f.signature is not None:
            assert np.array_equal(b.signatures[i], f.signature)
    with pytest.raises(IndexError):
        b[4]
    empty = neardup.sign_batch([], n=16)
    assert empty.signatures.shape == (0, 16) and len(empty) == 0


def test_fingerprint_records_round_trip():
    for text in (A, "short"):
        f = neardup.sign(text)
        line = f.to_json("doc-1")
        assert json.loads(line)["id"] == "doc-1"
        assert neardup.Fingerprint.parse(line) == f
        assert json.loads(f.to_json(12))["id"] == 12


def test_threads_give_the_same_batch():
    texts = [A * (i % 7 + 1) + str(i) for i in range(300)]
    one = neardup.sign_batch(texts, threads=1)
    two = neardup.sign_batch(texts, threads=2)
    assert np.array_equal(one.signatures, two.signatures)
    assert one.normalized_sha256 == two.normalized_sha256
