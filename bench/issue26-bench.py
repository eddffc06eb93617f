#!/usr/bin/env python3
"""Issue 26's before/after figures: two `neardup` binaries interleaved (the
pair swaps places every round), medians of ROUNDS rounds.

    python3 bench/issue26-bench.py BEFORE_BINARY AFTER_BINARY [ROUNDS]

Runs on bench/work/corpus.jsonl and bench/work/big_a.txt (bench/corpus.py
builds them): `sign --jsonl -j1/-j2` (wall), `scan -j1/-j2` (the sign stage
from its summary line), `sign BIG_A`, and the after binary's `sign --mmap
BIG_A`. Prints the figures; decides nothing."""
import os
import re
import statistics
import subprocess
import sys
import time

WORK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "work")
CORPUS = os.path.join(WORK, "corpus.jsonl")
BIG = os.path.join(WORK, "big_a.txt")


def wall(cmd):
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    took = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit("%s failed: %s" % (" ".join(cmd), p.stderr.decode()[-500:]))
    return took, p.stderr.decode()


def sign_stage(cmd):
    return float(re.search(r"time: sign ([0-9.]+)s", wall(cmd)[1]).group(1))


JOBS = {
    "sign --jsonl -j1": lambda b: wall([b, "sign", "--jsonl", CORPUS, "-j1", "-q"])[0],
    "sign --jsonl -j2": lambda b: wall([b, "sign", "--jsonl", CORPUS, "-j2", "-q"])[0],
    "scan -j1 (sign stage)": lambda b: sign_stage([b, "scan", CORPUS, "-j1"]),
    "scan -j2 (sign stage)": lambda b: sign_stage([b, "scan", CORPUS, "-j2"]),
    "sign BIG_A": lambda b: wall([b, "sign", BIG])[0],
}


def main():
    before, after = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    got = {k: {"before": [], "after": []} for k in JOBS}
    mmap = []
    for r in range(rounds):
        pair = [("before", before), ("after", after)]
        for job, run in JOBS.items():
            for name, binary in pair if r % 2 == 0 else pair[::-1]:
                got[job][name].append(run(binary))
        mmap.append(wall([after, "sign", "--mmap", BIG])[0])
    for job, v in got.items():
        b, a = statistics.median(v["before"]), statistics.median(v["after"])
        print("%-24s before %.3f s  after %.3f s  after/before %.3f" % (job, b, a, a / b))
    print("%-24s after %.3f s" % ("sign --mmap BIG_A", statistics.median(mmap)))
    print("load average", os.getloadavg())


if __name__ == "__main__":
    main()
