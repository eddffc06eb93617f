"""Arrow input equal to list input, and bad input refused with the CLI's words."""
import numpy as np
import pytest

import neardup
from conftest import COMPARE, cli_error

pa = pytest.importorskip("pyarrow")

TEXTS = [c["a"] for c in COMPARE] + ["", "x", "\u00e9t\u00e9 \U0001F600 ok"]


def same_batch(x, y):
    assert np.array_equal(x.signatures, y.signatures)
    assert np.array_equal(x.has_signature, y.has_signature)
    assert np.array_equal(x.shingles, y.shingles)
    assert x.normalized_sha256 == y.normalized_sha256


@pytest.mark.parametrize("kind", ["string", "large_string", "string_view"])
def test_arrow_equals_list(kind):
    if kind == "string_view" and not hasattr(pa, "string_view"):
        pytest.skip("this pyarrow has no string_view")
    arr = pa.array(TEXTS, type=getattr(pa, kind)())
    want = neardup.sign_batch(TEXTS, k=3, n=64)
    same_batch(neardup.sign_batch(arr, k=3, n=64), want)
    # A slice has an offset into the buffers.
    same_batch(neardup.sign_batch(arr.slice(5, 20), k=3, n=64),
               neardup.sign_batch(TEXTS[5:25], k=3, n=64))
    chunked = pa.chunked_array([arr.slice(0, 7), arr.slice(7)])
    same_batch(neardup.sign_batch(chunked, k=3, n=64), want)


def test_arrow_in_scan_equals_list():
    ids = list(range(len(TEXTS)))
    assert (neardup.scan(pa.array(ids), pa.array(TEXTS)).pairs_jsonl()
            == neardup.scan(ids, TEXTS).pairs_jsonl())


def test_arrow_bad_arrays():
    with pytest.raises(TypeError, match=r"texts\[2\] must be a str, got a null"):
        neardup.sign_batch(pa.array(["a", "b", None]))
    with pytest.raises(TypeError, match="type int64"):
        neardup.sign_batch(pa.array([1, 2]))
    # A string array whose bytes are not UTF-8: the core's error, naming it.
    data = b"okay" + b"caf\xe9"
    offsets = np.array([0, 4, 8], dtype=np.int32).tobytes()
    bad = pa.Array.from_buffers(pa.string(), 2, [None, pa.py_buffer(offsets), pa.py_buffer(data)])
    with pytest.raises(ValueError, match=r"^texts\[1\]: invalid UTF-8 at byte 3$"):
        neardup.sign_batch(bad)


def test_sequences_of_any_kind():
    want = neardup.sign_batch(TEXTS)
    same_batch(neardup.sign_batch(tuple(TEXTS)), want)
    same_batch(neardup.sign_batch(t for t in TEXTS), want)
    same_batch(neardup.sign_batch(np.array(TEXTS, dtype=object)), want)


def test_range_errors_are_the_cli_messages(cli, tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("one two three")
    for k, n in [(0, 128), (65, 128), (5, 15), (5, 257)]:
        want = cli_error(cli, "sign", "-k", k, "-n", n, f)
        for call in (lambda: neardup.compare("a", "b", k=k, n=n),
                     lambda: neardup.sign("a", k=k, n=n),
                     lambda: neardup.sign_batch(["a"], k=k, n=n),
                     lambda: neardup.scan(["x"], ["a"], k=k, n=n)):
            with pytest.raises(ValueError) as e:
                call()
            assert str(e.value) == want
    # Values the CLI's parser cannot take still get its wording.
    with pytest.raises(ValueError, match=r"^shingle size k must be 1..=64, got -1$"):
        neardup.sign("a", k=-1)
    with pytest.raises(ValueError, match=r"^permutation count n must be 16..=256, got 1267650600228229401496703205376$"):
        neardup.sign("a", n=2 ** 100)


def test_words_errors_are_the_cli_messages(cli, tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("one two three")
    for bad in ["Script", "spaces", "x y"]:
        want = "words must be 'space' or 'script', got '%s'" % bad
        assert cli_error(cli, "sign", "--words", bad, f).endswith(want)
        for call in (lambda: neardup.compare("a", "b", words=bad),
                     lambda: neardup.sign("a", words=bad),
                     lambda: neardup.sign_batch(["a"], words=bad),
                     lambda: neardup.scan(["x"], ["a"], words=bad),
                     lambda: neardup.explain("a", "b", words=bad),
                     lambda: neardup.ScanPlan(words=bad),
                     lambda: neardup.Index.create(tmp_path / "idx", words=bad)):
            with pytest.raises(ValueError) as e:
                call()
            assert str(e.value) == want
    assert not (tmp_path / "idx").exists()
    with pytest.raises(TypeError, match="words must be a str, 'space' or 'script', got int"):
        neardup.sign("a", words=1)
    # None is the default, space words, as for k and n.
    assert neardup.sign("a b c d e f", words=None) == neardup.sign("a b c d e f", words="space")
    assert neardup.sign("a b c d e f").words == "space"


def test_threshold_errors_are_the_cli_messages(cli, tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": 1, "text": "a b c d e f"}\n')
    for bad in ["1.5", "0", "0.12345", "-0.5", "1e-1"]:
        p = cli("scan", "--threshold=" + bad, corpus, ok=False)
        assert p.returncode == 2
        want = p.stderr.decode().splitlines()[0].rsplit(": ", 1)[1]
        with pytest.raises(ValueError) as e:
            neardup.scan([1], ["a b c d e f"], threshold=bad)
        assert str(e.value).endswith(want), (str(e.value), want)
    with pytest.raises(ValueError, match="is not a threshold"):
        neardup.scan([1], ["x"], threshold=0.1 + 0.2)  # 0.30000000000000004
    assert neardup.scan([1], ["x"], threshold=1).pairs == []
    with pytest.raises(TypeError):
        neardup.scan([1], ["x"], threshold=[0.5])
    # None is the default, 0.75, as for k and n.
    texts = ["a b c d e f g h i j", "a b c d e f g h i x"]
    assert neardup.scan([1, 2], texts, threshold=None).pairs == neardup.scan([1, 2], texts).pairs
    with pytest.raises(ValueError, match="is not a threshold"):
        neardup.scan([1], ["x"], containment="0.12345")


def test_banding_errors_are_the_cli_messages(cli, tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": 1, "text": "a b c d e f"}\n')
    want = cli_error(cli, "scan", "-q", "--bands", 30, "--rows", 5, corpus)
    with pytest.raises(ValueError) as e:
        neardup.scan([1], ["a b c d e f"], bands=30, rows=5)
    # The CLI names its flags (--bands 30 × --rows 5); the rest is the core's.
    assert str(e.value).startswith("30 bands × 5 rows must be")
    assert str(e.value).split(" must be ")[1] == want.split(" must be ")[1]
    with pytest.raises(ValueError, match="give both or neither"):
        neardup.scan([1], ["x"], bands=30)


def test_type_errors():
    for call, what in [
        (lambda: neardup.compare(1, "b"), "a must be a str, got int"),
        (lambda: neardup.compare("a", b"b"), "b must be a str, got bytes"),
        (lambda: neardup.sign(None), "text must be a str, got NoneType"),
        (lambda: neardup.normalize(3.5), "text must be a str, got float"),
        (lambda: neardup.sign_batch(["a", 3]), r"texts\[1\] must be a str, got int"),
        (lambda: neardup.sign_batch("one str"), "not one str"),
        (lambda: neardup.sign_batch(5), "got int"),
        (lambda: neardup.sign("a", k=5.0), "expected an int, got float"),
        (lambda: neardup.sign("a", k=True), "expected an int, got bool"),
        (lambda: neardup.scan([1.5], ["a"]), r"ids\[0\] must be a str or an int, got float"),
        (lambda: neardup.scan([1], ["a"], against=[[2], ["b"]]), "against must be a tuple"),
        (lambda: neardup.Receipt.parse(5), "text must be a str"),
    ]:
        with pytest.raises(TypeError, match=what):
            call()


def test_value_errors():
    with pytest.raises(ValueError, match=r"^ids\[1\]: duplicate id \"x\" \(first seen at ids\[0\]\)$"):
        neardup.scan(["x", "x"], ["a", "b"])
    with pytest.raises(ValueError, match=r"^ids\[0\]: duplicate id 3 \(first seen at against ids\[0\]\)$"):
        neardup.scan([3], ["a"], against=([3], ["b"]))
    with pytest.raises(ValueError, match="ids has 2 items but texts has 1"):
        neardup.scan(["x", "y"], ["a"])
    with pytest.raises(ValueError, match="threads must be 1..=65535 or None, got 0"):
        neardup.sign_batch(["a"], threads=0)
    with pytest.raises(ValueError, match="sha256: expected 64 lowercase hex digits"):
        neardup.compare("a", "b").receipt.verify("a", "b", sha256="ABC")
    with pytest.raises(UnicodeEncodeError):
        neardup.sign("lone \ud800 surrogate")


@pytest.mark.parametrize("mutate, field", [
    (lambda r: r.pop("verdict"), "verdict"),
    (lambda r: r.update(extra=1), "extra"),
    (lambda r: r.update(k=5.0), "k"),
    (lambda r: r.update(n=300), "n"),
    (lambda r: r.update(verdict="SIMILAR"), "verdict"),
    (lambda r: r.update(algorithm="other"), "algorithm"),
    (lambda r: r["documents"].pop(), "documents"),
    (lambda r: r["documents"][1].update(shingles=-1), "documents[1].shingles"),
    (lambda r: r["documents"][0].update(normalized_sha256="AB"), "documents[0].normalized_sha256"),
])
def test_malformed_receipts_name_the_field(mutate, field):
    import json
    r = json.loads(neardup.compare("a b c d e f", "a b c d e g").receipt.canonical())
    mutate(r)
    with pytest.raises(neardup.MalformedReceipt) as e:
        neardup.Receipt.parse(json.dumps(r))
    assert isinstance(e.value, ValueError)
    assert e.value.field == field
    assert str(e.value).startswith("malformed receipt: field '%s'" % field)
    for text in ("", "[]", "{"):
        with pytest.raises(neardup.MalformedReceipt) as e:
            neardup.Receipt.parse(text)
        assert e.value.field == "(root)"


def test_bad_pickled_state_is_refused_not_a_crash():
    with pytest.raises(ValueError):
        neardup.Fingerprint.parse('{"id":1,"k":5,"n":128,"normalized_sha256":"00","shingles":0,'
                                  '"signature":null,"signature_sha256":null}')
    b = neardup.sign_batch(["a b c d e f"])
    with pytest.raises(ValueError):
        neardup.SignatureBatch._restore(5, 128, b.signatures, b.has_signature,
                                        np.zeros(2, np.uint64), b.normalized_sha256)
    with pytest.raises(ValueError):
        neardup.ScanResult._restore(["a"], 0, [(0, 5, "{}")], [], [])
