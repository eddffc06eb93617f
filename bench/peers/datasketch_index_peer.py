"""datasketch MinHashLSH as a persistent index, fed neardup's own signatures.

    build --sigs BASE.sigs.jsonl --pickle OUT   insert every signature, pickle.dump the index
    query --pickle IN --sigs ADD.sigs.jsonl     pickle.load, query every signature, then insert them

The signatures are read from `neardup sign --jsonl` lines (hex `signature`
field: n big-endian u32), not made by datasketch, so what bench/index-bench
compares is the index alone, not the hashing.  Each mode prints one JSON
line: its own timings (perf_counter around each step), sizes and
ru_maxrss; bench/index-bench measures the whole process from outside too.

datasketch's index keeps only the band hashes and keys, not the
signatures: its query answers are unverified candidates (neardup's are
pairs checked on their exact slot-match count).
"""
import argparse
import json
import os
import pickle
import resource
import statistics
import sys
import time

import numpy as np
from datasketch import LeanMinHash, MinHashLSH

SEED = 1
CHUNK = 50_000  # lines parsed per numpy conversion: bounded memory for 1M signatures


def log(msg):
    print("[datasketch-index] " + msg, file=sys.stderr, flush=True)


def read_signatures(path):
    """(ids, uint32 array (docs, n)) of a `neardup sign --jsonl` file; documents
    without a signature (fewer than k words) are skipped, as neither index
    can hold them."""
    ids, hexes, parts = [], [], []
    skipped = 0

    def flush():
        if hexes:
            parts.append(np.frombuffer(bytes.fromhex("".join(hexes)), dtype=">u4").astype(np.uint32)
                         .reshape(len(hexes), -1))
            hexes.clear()

    with open(path, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            if not d.get("signature"):
                skipped += 1
                continue
            ids.append(d["id"])
            hexes.append(d["signature"])
            if len(hexes) >= CHUNK:
                flush()
                if len(ids) % (4 * CHUNK) == 0:
                    log("read %d signatures" % len(ids))
    flush()
    return ids, (np.concatenate(parts) if parts else np.empty((0, 128), np.uint32)), skipped


def minhash(row):
    # datasketch keeps hash values as uint64; the values are neardup's 32-bit slots.
    return LeanMinHash(seed=SEED, hashvalues=row.astype(np.uint64), scheme="affine32")


def rss_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def build(a):
    t0 = time.perf_counter()
    ids, sigs, skipped = read_signatures(a.sigs)
    t_read = time.perf_counter() - t0
    log("%d signatures read in %.1f s; inserting" % (len(ids), t_read))
    lsh = MinHashLSH(threshold=a.threshold, num_perm=sigs.shape[1])
    t0 = time.perf_counter()
    with lsh.insertion_session(buffer_size=a.buffer) as session:
        for i, (key, row) in enumerate(zip(ids, sigs)):
            session.insert(key, minhash(row), check_duplication=False)
            if (i + 1) % 200_000 == 0:
                log("inserted %d (%.0f s)" % (i + 1, time.perf_counter() - t0))
    t_insert = time.perf_counter() - t0
    del sigs
    log("inserted %d in %.1f s; pickling" % (len(ids), t_insert))
    t0 = time.perf_counter()
    with open(a.pickle, "wb") as f:
        pickle.dump(lsh, f, protocol=pickle.HIGHEST_PROTOCOL)
    t_dump = time.perf_counter() - t0
    return {"docs": len(ids) + skipped, "indexed": len(ids), "bands_rows": [lsh.b, lsh.r], "read_s": t_read,
            "insert_s": t_insert, "dump_s": t_dump, "pickle_bytes": os.path.getsize(a.pickle),
            "rss": rss_bytes()}


def query(a):
    t0 = time.perf_counter()
    with open(a.pickle, "rb") as f:
        lsh = pickle.load(f)
    t_load = time.perf_counter() - t0
    rss_loaded = rss_bytes()
    log("loaded in %.1f s" % t_load)
    ids, sigs, skipped = read_signatures(a.sigs)
    mhs = [minhash(row) for row in sigs]  # untimed: the query timings are of the index
    per, candidates = [], 0
    t0 = time.perf_counter()
    for m in mhs:
        q0 = time.perf_counter()
        candidates += len(lsh.query(m))
        per.append(time.perf_counter() - q0)
    t_query = time.perf_counter() - t0
    # An add also inserts: the same documents go in after being queried.
    t0 = time.perf_counter()
    with lsh.insertion_session() as session:
        for key, m in zip(ids, mhs):
            session.insert(key, m, check_duplication=False)
    t_insert = time.perf_counter() - t0
    return {"docs": len(ids) + skipped, "queried": len(ids), "load_s": t_load, "rss_loaded": rss_loaded,
            "query_s": t_query, "query_median_ms": 1000 * statistics.median(per) if per else None,
            "candidates": candidates, "insert_s": t_insert, "rss": rss_bytes()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["build", "query"])
    ap.add_argument("--sigs", required=True, help="a `neardup sign --jsonl` file")
    ap.add_argument("--pickle", required=True)
    ap.add_argument("--threshold", type=float, default=0.75)
    ap.add_argument("--buffer", type=int, default=50_000, help="insertion_session buffer size")
    a = ap.parse_args()
    out = build(a) if a.mode == "build" else query(a)
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
