"""Every case of vectors/ through compare, normalize, sign and Receipt.verify."""
import hashlib

import numpy as np
import pytest

import neardup
from conftest import COMPARE, NORMALIZE


def test_there_are_vectors():
    assert len(COMPARE) > 100 and len(NORMALIZE) > 50


@pytest.mark.parametrize("case", NORMALIZE, ids=lambda c: c["name"])
def test_normalize(case):
    assert neardup.normalize(case["input"]) == case["normalized"]


@pytest.mark.parametrize("case", COMPARE, ids=lambda c: c["name"])
def test_compare(case):
    want = case["expected"]
    c = neardup.compare(case["a"], case["b"], k=case["k"], n=case["n"])
    # Intermediate values first, so that a failure says where it went wrong.
    for i, (text, doc) in enumerate(zip((case["a"], case["b"]), want["documents"])):
        assert neardup.normalize(text) == doc["normalized"], "documents[%d] normalized" % i
        f = neardup.sign(text, k=case["k"], n=case["n"])
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
    if c.matches is None:
        assert c.similarity is None and c.interval_95 is None
    else:
        assert c.similarity == c.matches / case["n"]
        lo, hi = c.interval_95
        assert 0 <= lo <= c.similarity <= hi <= 1


@pytest.mark.parametrize("case", COMPARE, ids=lambda c: c["name"])
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
