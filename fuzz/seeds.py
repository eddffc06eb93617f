#!/usr/bin/env python3
"""Writes each fuzz target's seed corpus, corpus/<target>/, from vectors/.

`seeds.py DIR` writes DIR/<target>/ instead: the stable replay test's
(crates/neardup-cli/tests/fuzz_replay.rs), in a temporary folder.

The seeds are the conformance vectors' own texts, receipts and signatures,
laid out as each target reads its input (see the target's doc comment), so
the fuzzer starts from inputs that reach deep into every parser, plus the
inputs in regressions/TARGET/ that once crashed it. Files the fuzzer found
and kept in corpus/ are left alone.
"""

import hashlib
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
VECTORS = ROOT / "vectors"
OUT = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "fuzz" / "corpus"

# Vector texts reach a few hundred KB; a seed that large only slows the
# fuzzer (libFuzzer caps inputs at -max_len anyway), so seeds keep a head.
MAX_SEED = 16 << 10


def text(case, side):
    if side + "_file" in case:
        return (VECTORS / case[side + "_file"]).read_text(encoding="utf-8")
    return case[side]


def seed(target, data, whole=False):
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if not whole:
        data = data[:MAX_SEED]
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / ("seed-" + hashlib.sha256(data).hexdigest()[:16])).write_bytes(data)


def whole_seed(target, data):
    """A seed kept whole: a PDF cut short loses its cross-reference table."""
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / ("seed-" + hashlib.sha256(data).hexdigest()[:16])).write_bytes(data)


def tiny_pdf(content):
    """A one-page PDF drawing `content` with Helvetica, its xref correct."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (i, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def record(key, name, doc, k, n):
    fields = {
        key: name,
        "k": k,
        "n": n,
        "normalized_sha256": doc["normalized_sha256"],
        "shingles": doc["shingles"],
        "signature": doc["signature"],
        "signature_sha256": doc["signature_sha256"],
    }
    return json.dumps(fields, separators=(",", ":"), ensure_ascii=False)


def main():
    compare = json.loads((VECTORS / "compare.json").read_text(encoding="utf-8"))
    normalize = json.loads((VECTORS / "normalize.json").read_text(encoding="utf-8"))

    for case in normalize:
        seed("normalize", case["input"])
        seed("backends", bytes([4, 112]) + case["input"].encode())
        seed("jsonl", json.dumps({"id": case["name"], "text": case["input"]}) + "\n")

    for i, case in enumerate(compare):
        k, n, exp = case["k"], case["n"], case["expected"]
        a, b = text(case, "a"), text(case, "b")
        canonical = exp["canonical"]
        seed("receipt", canonical)
        # The envelope `compare --json` prints, and the same receipt with
        # whitespace and its keys in another order.
        seed("receipt", json.dumps({"receipt": json.loads(canonical), "receipt_sha256": exp["receipt_sha256"]}))
        seed("receipt", json.dumps(dict(reversed(json.loads(canonical).items())), indent=2))
        seed("normalize", a[:MAX_SEED])
        seed("backends", bytes([(k - 1) % 256, (n - 16) % 256]) + a.encode()[:MAX_SEED])
        seed("explain", bytes([(k - 1) % 8]) + a.encode()[:MAX_SEED // 2] + b"\xff" + b.encode()[:MAX_SEED // 2])
        docs = [json.dumps({"id": f"{case['name']}-{s}", "text": t[:4096]}) for s, t in (("a", a), ("b", b))]
        seed("jsonl", "\n".join(docs) + "\n")
        seed("jsonl", json.dumps({"text": b[:4096], "id": i, "extra": [1, {"x": None}]}))
        for key, doc in zip(("id", "path"), exp["documents"]):
            seed("record", record(key, case["name"], doc, k, n))
        seed("record", record("id", i, exp["documents"][1], k, n))

    # The document readers start from the office fixtures, whole: a zip
    # cut at MAX_SEED is only a broken zip. (Run these targets with a
    # MAX_LEN above the largest, e.g. MAX_LEN=32768.)
    office = ROOT / "crates" / "neardup-extract" / "tests" / "fixtures" / "office"
    for path in sorted(office.iterdir()):
        target = {".docx": "extract_docx", ".odt": "extract_odt", ".epub": "extract_epub",
                  ".html": "extract_html", ".rtf": "extract_rtf"}.get(path.suffix)
        if target:
            seed(target, path.read_bytes(), whole=True)

    # PDF: the fixtures made by real tools, and small handmade files.
    for pdf in sorted((ROOT / "crates" / "neardup-extract" / "tests" / "fixtures" / "pdf").glob("*.pdf")):
        whole_seed("extract_pdf", pdf.read_bytes())
    for content in (
        b"BT /F1 12 Tf 72 720 Td (Hello world) Tj 0 -14 Td [(A)-120(B)] TJ ET",
        b"q 1 0 0 1 10 10 cm BT /F1 9 Tf 2 Tc 3 Tw 90 Tz 12 TL (a) ' 1 2 (b) \" T* (c) Tj ET Q",
    ):
        whole_seed("extract_pdf", tiny_pdf(content))

    # Inputs that once crashed a target (each also a unit test in its
    # crate) stay in its corpus.
    for crash in (ROOT / "fuzz" / "regressions").glob("*/*"):
        seed(crash.parent.name, crash.read_bytes())

    count = sum(1 for _ in OUT.rglob("seed-*"))
    print(f"fuzz/seeds.py: {count} seeds in {OUT}")


if __name__ == "__main__":
    main()
