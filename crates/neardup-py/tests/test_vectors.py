"""Every case of vectors/ through compare, normalize, sign and Receipt.verify:
compare.json's, and script-compare.json's with ``words="script"`` (SPEC §11)."""
import hashlib

import numpy as np
import pytest

import neardup
from conftest import COMPARE, NORMALIZE, SCRIPT

# Each case with its word rule: None (the default, space words) for
# compare.json's.
CASES = COMPARE + SCRIPT


def test_there_are_vectors():
    assert len(COMPARE) > 100 and len(NORMALIZE) > 50
    assert len(SCRIPT) >= 20 and all(c["words"] == "script" for c in SCRIPT)
    assert len({c["name"] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", NORMALIZE, ids=lambda c: c["name"])
def test_normalize(case):
    assert neardup.normalize(case["input"]) == case["normalized"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"])
def test_compare(case):
    want = case["expected"]
    words = case.get("words")
    c = neardup.compare(case["a"], case["b"], k=case["k"], n=case["n"], words=words)
    # Intermediate values first, so that a failure says where it went wrong.
    for i, (text, doc) in enumerate(zip((case["a"], case["b"]), want["documents"])):
        assert neardup.normalize(text) == doc["normalized"], "documents[%d] normalized" % i
        f = neardup.sign(text, k=case["k"], n=case["n"], words=words)
        assert f.normalized_sha256 == doc["normalized_sha256"]
        assert f.shingles == doc["shingles"], "documents[%d] shingles" % i
        if doc["signature"] is None:
            assert f.signature is None and f.signature_sha256 is None
        else:
            assert f.signature.dtype == np.uint32
            assert f.signature.tolist() == doc["signature"], "documents[%d] signature" % i
            assert f.signature_sha256 == doc["signature_sha256"]
        assert c.fingerprints[i] == f
    assert c.receipt.canonical() == want["canonical"]
    assert c.receipt_sha256 == want["receipt_sha256"] == c.receipt.sha256()
    assert c.verdict == want["verdict"] == c.receipt.verdict
    assert c.matches == want["matches"]
    assert (c.k, c.n) == (case["k"], case["n"])
    assert c.words == c.receipt.words == (words or "space")
    if c.matches is None:
        assert c.similarity is None and c.interval_95 is None
    else:
        assert c.similarity == c.matches / case["n"]
        lo, hi = c.interval_95
        assert 0 <= lo <= c.similarity <= hi <= 1


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"])
def test_receipt_verify(case):
    want = case["expected"]
    claimed = neardup.Receipt.parse(want["canonical"])
    assert claimed.canonical() == want["canonical"]
    assert claimed.verify(case["a"], case["b"]) == []
    assert claimed.verify(case["a"], case["b"], sha256=want["receipt_sha256"]) == []
    # A changed text A: its normalized_sha256 differs, and the actual value
    # is the SHA-256 of the changed text's normalized form, computed here.
    changed = case["a"] + " neardup tamper"
    actual = hashlib.sha256(neardup.normalize(changed).encode("utf-8")).hexdigest()
    found = {m.field: m for m in claimed.verify(changed, case["b"])}
    m = found["documents[0].normalized_sha256"]
    assert (m.claimed, m.actual) == (want["documents"][0]["normalized_sha256"], actual)
    assert "documents[1].normalized_sha256" not in found
    # A wrong expected hash is reported as its own field.
    wrong = claimed.verify(case["a"], case["b"], sha256="0" * 64)
    assert [(m.field, m.claimed, m.actual) for m in wrong] == [
        ("receipt_sha256", "0" * 64, want["receipt_sha256"])]


def test_script_receipts_name_their_algorithm():
    """A script case's receipt names kar-script-shingle-minhash-v1, which
    is how verify knows its words; a text with no code point of the table
    gives the same shingles and matches under both rules, and only the
    algorithm id (so the receipt hash) differs."""
    for case in SCRIPT:
        r = neardup.Receipt.parse(case["expected"]["canonical"])
        assert (r.words, r.algorithm) == ("script", "kar-script-shingle-minhash-v1")
    latin = next(c for c in SCRIPT if c["name"].startswith("latin-only"))
    script = neardup.compare(latin["a"], latin["b"], k=latin["k"], n=latin["n"], words="script")
    space = neardup.compare(latin["a"], latin["b"], k=latin["k"], n=latin["n"], words="space")
    assert space.receipt.algorithm == neardup.ALGORITHM == "kar-shingle-minhash-v1"
    assert space.matches is not None and space.matches == script.matches
    assert [f.signature_sha256 for f in space.fingerprints] == [
        f.signature_sha256 for f in script.fingerprints]
    assert space.receipt_sha256 != script.receipt_sha256
    # The space receipt does not verify as a script one, nor back.
    assert space.receipt.verify(latin["a"], latin["b"]) == []
    assert script.receipt.verify(latin["a"], latin["b"],
                                 sha256=space.receipt_sha256)[0].field == "receipt_sha256"
