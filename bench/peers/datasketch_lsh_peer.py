"""datasketch MinHashLSH end to end: MinHash.bulk signatures (same shingling as
peers/common.py), insert every document, then query every document.

Prints one JSON line (docs, pairs, checksum) and writes the candidate pairs,
"i j" with i < j in input order (0-based), to --pairs-out.  datasketch does
not verify candidates: every query hit is reported, as a user of
insert + query gets it.
"""
import argparse
import json
import sys

from datasketch import MinHash, MinHashLSH

from common import K, NUM_PERM, SEED, shingles, fold


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jsonl", required=True)
    ap.add_argument("--threshold", type=float, default=0.75)
    ap.add_argument("--pairs-out", required=True)
    ap.add_argument("--batch", type=int, default=512)
    a = ap.parse_args()
    lsh = MinHashLSH(threshold=a.threshold, num_perm=NUM_PERM)
    sigs = []
    docs = 0
    checksum = 0
    batch = []

    def flush():
        nonlocal checksum
        mhs = MinHash.bulk([[x.encode("utf-8") for x in shingles(t)] for t in batch], num_perm=NUM_PERM, seed=SEED)
        for m in mhs:
            lsh.insert(len(sigs), m, check_duplication=False)
            sigs.append(m)
        batch.clear()

    with open(a.jsonl, encoding="utf-8") as f:
        for line in f:
            batch.append(json.loads(line)["text"])
            docs += 1
            if len(batch) >= a.batch:
                flush()
    if batch:
        flush()
    pairs = 0
    with open(a.pairs_out, "w") as out:
        for i, m in enumerate(sigs):
            for j in lsh.query(m):
                if j > i:
                    out.write("%d %d\n" % (i, j))
                    pairs += 1
                    checksum = fold(checksum, (i, j))
    json.dump({"tool": "datasketch-lsh", "docs": docs, "pairs": pairs, "k": K,
               "lsh_bands_rows": [lsh.b, lsh.r], "checksum": "%016x" % checksum}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
