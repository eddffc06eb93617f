"""datasketch MinHashLSHEnsemble (containment), fed neardup's own signatures.

    python datasketch_ensemble_peer.py --sigs SIGS.jsonl --threshold 0.5 --pairs-out PAIRS.tsv
                                       [--ids IDS.txt]

SIGS.jsonl is `neardup sign --jsonl` output: each line's hex `signature`
(n big-endian u32 slot values) becomes `datasketch.MinHash(num_perm=n,
hashvalues=..., scheme="affine32")` and its `shingles` field (the number of
distinct shingles) is the set size the ensemble partitions on.  Documents
without a signature (fewer than k words) are skipped: the ensemble refuses a
size of 0.  With --ids, only the documents named in IDS.txt (one id a line)
are indexed and queried: a subsample.

Every document is indexed (`MinHashLSHEnsemble.index`, which can be called
only once), then every document is queried at the threshold with its own
size: `query(m, size)` yields the keys X whose containment of the query
|Q ∩ X| / |Q| is estimated at or over the threshold.  A pair {a, b} is a
candidate when either query names the other (so it stands for max(a_in_b,
b_in_a) >= t, what `neardup scan --containment t` reports).  The candidates
are unverified: datasketch keeps no sets.  Writes the distinct candidate
pairs (a <TAB> b, a < b) to --pairs-out and prints one JSON line: docs,
candidate pairs, the time of each step, ru_maxrss.  One thread (pure Python).
"""
import argparse
import json
import resource
import sys
import time

import numpy as np
from datasketch import MinHash, MinHashLSHEnsemble

CHUNK = 50_000


def log(msg):
    print("[datasketch-ensemble] " + msg, file=sys.stderr, flush=True)


def read(path, keep):
    ids, sizes, hexes, parts = [], [], [], []
    skipped = 0

    def flush():
        if hexes:
            parts.append(np.frombuffer(bytes.fromhex("".join(hexes)), dtype=">u4").astype(np.uint64)
                         .reshape(len(hexes), -1))
            hexes.clear()

    with open(path, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            if keep is not None and d["id"] not in keep:
                continue
            if not d.get("signature"):
                skipped += 1
                continue
            ids.append(d["id"])
            sizes.append(int(d["shingles"]))
            hexes.append(d["signature"])
            if len(hexes) >= CHUNK:
                flush()
    flush()
    return ids, sizes, np.concatenate(parts), skipped


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sigs", required=True)
    ap.add_argument("--threshold", type=float, default=0.5)
    ap.add_argument("--num-part", type=int, default=16, help="datasketch's default 16")
    ap.add_argument("--m", type=int, default=8, help="datasketch's default 8")
    ap.add_argument("--ids", help="index and query only these documents (one id a line)")
    ap.add_argument("--pairs-out", required=True)
    a = ap.parse_args()
    keep = None
    if a.ids:
        keep = {x.strip() for x in open(a.ids) if x.strip()}
    t = {}
    t0 = time.perf_counter()
    ids, sizes, sig, skipped = read(a.sigs, keep)
    t["read"] = time.perf_counter() - t0
    log("%d signatures read (%d without one skipped) in %.1f s" % (len(ids), skipped, t["read"]))
    t0 = time.perf_counter()
    # One permutation array shared by all (MinHash would draw the same one per object from its seed;
    # a query uses the hash values only).
    perm = MinHash(num_perm=sig.shape[1], scheme="affine32").permutations
    mh = [MinHash(num_perm=sig.shape[1], hashvalues=row, permutations=perm, scheme="affine32") for row in sig]
    t["minhash"] = time.perf_counter() - t0
    ens = MinHashLSHEnsemble(threshold=a.threshold, num_perm=sig.shape[1], num_part=a.num_part, m=a.m)
    t0 = time.perf_counter()
    ens.index(list(zip(range(len(ids)), mh, sizes)))
    t["index"] = time.perf_counter() - t0
    rss_index = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    log("indexed in %.1f s (ru_maxrss %.0f MB); querying" % (t["index"], rss_index / 1e6))
    t0 = time.perf_counter()
    cand = set()
    raw = 0
    for i in range(len(ids)):
        for j in ens.query(mh[i], sizes[i]):
            raw += 1
            if j != i:
                cand.add((i, j) if i < j else (j, i))
        if (i + 1) % 20000 == 0:
            log("%d queries, %d candidate pairs, %.0f s" % (i + 1, len(cand), time.perf_counter() - t0))
    t["query"] = time.perf_counter() - t0
    with open(a.pairs_out, "w") as f:
        for i, j in sorted(cand):
            f.write("%s\t%s\n" % (ids[i], ids[j]))
    print(json.dumps({"docs": len(ids), "skipped": skipped, "candidates": len(cand), "answers": raw,
                      "seconds": t, "rss_after_index": rss_index,
                      "ru_maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                      "num_part": a.num_part, "m": a.m, "threshold": a.threshold}))


if __name__ == "__main__":
    main()
