"""Shared input handling and shingling for the peer scripts.

Shingling matches SPEC v1 as closely as plain Python allows:
  lowercase (str.lower: full Unicode lowercase incl. final sigma),
  whitespace collapse (str.split(): runs of Unicode whitespace),
  K=5 word shingles joined by one space.  `shingles` deduplicates into a set
(fastest for datasketch, whose per-token SHA-1 in Python dominates);
`shingle_list` keeps repeats (fastest for rensa and gaoya: their Rust side
takes a list faster than a set, and a repeat never changes a MinHash).
(str.split's whitespace set differs from SPEC v1's ECMAScript \\s only in a few
rare code points such as U+0085/U+FEFF; irrelevant for the throughput measured.)

Each peer prints one JSON line: docs, text bytes, docs without shingles,
and a checksum folded from every signature (so no work can be skipped).
"""
import argparse
import json
import sys

K = 5
NUM_PERM = 128
SEED = 1


def shingles(text):
    """The set of 5-word shingles of text (lowercased, whitespace-collapsed)."""
    w = text.lower().split()
    if len(w) < K:
        return set()
    return set(map(" ".join, zip(w, w[1:], w[2:], w[3:], w[4:])))


def shingle_list(text):
    """The 5-word shingles of text in order, repeats kept (same set as `shingles`)."""
    w = text.lower().split()
    return list(map(" ".join, zip(w, w[1:], w[2:], w[3:], w[4:])))


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jsonl", required=True, help="JSONL file with {id, text} lines")
    ap.add_argument("--batch", type=int, default=512, help="documents per bulk call")
    return ap.parse_args()


def batches(path, batch):
    """Yield lists of (id, text) from the JSONL file, `batch` at a time (streamed)."""
    cur = []
    with open(path, "r", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            cur.append((d["id"], d["text"]))
            if len(cur) >= batch:
                yield cur
                cur = []
    if cur:
        yield cur


class Tally:
    """What a peer read: documents, bytes of text, documents without shingles."""

    def __init__(self):
        self.docs = self.text_bytes = self.empty = 0


def token_batches(a, tally, tokens=shingle_list):
    """Per batch of the JSONL file, `tokens(text)` of each document that has
    any, in order; every document is counted in `tally`."""
    for batch in batches(a.jsonl, a.batch):
        out = []
        for _id, text in batch:
            tally.docs += 1
            tally.text_bytes += len(text.encode("utf-8"))
            t = tokens(text)
            if t:
                out.append(t)
            else:
                tally.empty += 1
        yield out


def fold(checksum, values):
    """Fold a signature (iterable of ints) into a running checksum."""
    for v in values:
        checksum = (checksum * 1000003 ^ int(v)) & 0xFFFFFFFFFFFFFFFF
    return checksum


def report(tool, tally, checksum, **extra):
    out = {"tool": tool, "docs": tally.docs, "text_bytes": tally.text_bytes, "empty": tally.empty,
           "checksum": "%016x" % checksum}
    out.update(extra)
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")
