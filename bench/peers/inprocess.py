"""In-process signing, as a Python user sees it: the texts are already in
memory (loaded from the JSONL first, untimed), and one call path from texts
to signatures is timed inside the process.

  --tool neardup         neardup.sign_batch(texts, threads=T) on a list of str
  --tool neardup-arrow   the same on a pyarrow large_string array (built untimed)
  --tool datasketch      common.shingles + MinHash.bulk, batches of 512
  --tool rensa           common.shingle_list + RMinHash.digest_matrix_from_token_sets, batches of 512

datasketch and rensa get the same shingles as the other peers (common.py: 5-word
shingles of str.lower().split()), made in Python inside the timed part, since a
user of those libraries has to make them; neardup makes SPEC v1's shingles
itself. Prints one JSON line: docs, text bytes, seconds (wall, in the call
path), cpu_seconds (process CPU in the same span), and a checksum folded
from every signature so that no work can be skipped.
"""
import argparse
import json
import time

import numpy as np

from common import NUM_PERM, SEED, fold, shingle_list, shingles


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f]


def batches(xs, size=512):
    for i in range(0, len(xs), size):
        yield xs[i:i + size]


def run_neardup(texts, threads, arrow):
    import neardup
    data = texts
    if arrow:
        import pyarrow as pa
        data = pa.array(texts, type=pa.large_string())

    def work():
        b = neardup.sign_batch(data, k=5, n=NUM_PERM, threads=threads)
        return int(np.bitwise_xor.reduce(b.signatures.astype(np.uint64).ravel()))
    return work


def run_datasketch(texts, _threads, _arrow):
    from datasketch import MinHash

    def work():
        acc = np.zeros(NUM_PERM, dtype=np.uint64)
        for batch in batches(texts):
            sets = [[s.encode("utf-8") for s in shingles(t)] for t in batch]
            for m in MinHash.bulk([s for s in sets if s], num_perm=NUM_PERM, seed=SEED):
                acc ^= m.hashvalues.astype(np.uint64)
        return int(np.bitwise_xor.reduce(acc))
    return work


def run_rensa(texts, _threads, _arrow):
    from rensa import RMinHash

    def work():
        acc = 0
        for batch in batches(texts):
            lists = [s for s in map(shingle_list, batch) if s]
            if lists:
                m = RMinHash.digest_matrix_from_token_sets(lists, NUM_PERM, SEED)
                acc ^= int(np.bitwise_xor.reduce(np.asarray(m.to_rows(), dtype=np.uint64).ravel()))
        return acc
    return work


TOOLS = {"neardup": (run_neardup, False), "neardup-arrow": (run_neardup, True),
         "datasketch": (run_datasketch, False), "rensa": (run_rensa, False)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jsonl", required=True)
    ap.add_argument("--tool", required=True, choices=sorted(TOOLS))
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    texts = load(a.jsonl)
    make, arrow = TOOLS[a.tool]
    work = make(texts, a.threads, arrow)
    c0, t0 = time.process_time(), time.perf_counter()
    checksum = work()
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(json.dumps({"tool": a.tool, "docs": len(texts),
                      "text_bytes": sum(len(t.encode("utf-8")) for t in texts),
                      "threads": a.threads, "seconds": seconds, "cpu_seconds": cpu,
                      "checksum": "%016x" % fold(0, [checksum])}))


if __name__ == "__main__":
    main()
