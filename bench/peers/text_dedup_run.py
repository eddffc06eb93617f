#!/usr/bin/env python3
"""text-dedup's MinHash (python -m text_dedup.minhash) on a run-scan corpus.

    python3 bench/peers/text_dedup_run.py bench/work/scan-100000 [--no-run]

(--no-run: reuse the last run's output and timing, recompute recall only.)
Writes DIR/text-dedup.json, which `bench/run-scan` (and --reanalyse) adds
to its peers table.

Installs text-dedup into bench/work/td-venv on first use (text-dedup 0.4.1
needs Python >= 3.12, so on CPython 3.11 pip picks 0.4.0; it pulls datasets,
pyarrow, pyspark, onnxruntime...).  Runs it offline on the local JSONL
(num_perm 128, threshold 0.75, ngram 5, one process), wall and peak RSS from
/usr/bin/time, then reads its union-find (--debug writes uf.pkl) and prints
recall on the planted truth as a markdown row.

text-dedup reports clusters, not pairs: a planted pair counts as found when
both documents end in the same cluster (looser than neardup's pair recall,
since a chain through other documents also counts).  Its tokenizer splits on
\\W (punctuation is dropped), so its shingles are not neardup's.
"""
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(BENCH, "work", "td-venv")
PY = os.path.join(VENV, "bin", "python")


def main():
    d = sys.argv[1]
    if not os.path.exists(os.path.join(VENV, "bin", "python")):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    if subprocess.run([PY, "-c", "import text_dedup"]).returncode != 0:
        subprocess.run([PY, "-m", "pip", "install", "--quiet", "text-dedup<0.4.1"], check=True)
    corpus = os.path.join(d, "corpus.jsonl")
    out = os.path.join(d, "text-dedup-out")
    env = dict(os.environ, HF_DATASETS_CACHE=os.path.join(d, "td-cache"), HF_HUB_OFFLINE="1",
               HF_DATASETS_OFFLINE="1")
    rss = tempfile.mktemp()
    cmd = ["/usr/bin/time", "-f", "%M", "-o", rss, PY, "-m", "text_dedup.minhash", "--path", "json",
           "--data_files", corpus, "--split", "train", "--column", "text", "--output", out,
           "--num_perm", "128", "--threshold", "0.75", "--ngram", "5", "--num_proc", "1", "--debug"]
    timing = os.path.join(d, "text-dedup-timing.json")
    if "--no-run" in sys.argv and os.path.exists(timing):
        wall, peak = json.load(open(timing))
    else:
        t0 = time.perf_counter()
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            print(p.stderr[-3000:], file=sys.stderr)
            raise SystemExit("text-dedup failed (exit %d)" % p.returncode)
        peak = int(open(rss).read().split()[-1]) * 1024
        os.unlink(rss)
        json.dump([wall, peak], open(timing, "w"))
    sys.path.insert(0, os.path.join(VENV, "lib", "python3.11", "site-packages"))
    uf = pickle.load(open(os.path.join(out, "uf.pkl"), "rb"))
    root = lambda i: uf.find(i)  # noqa: E731
    hi = mid = nhi = nmid = edge = nedge = 0
    with open(os.path.join(d, "truth.tsv")) as f:
        for line in f:
            a, b, j, _r = line.split("\t")
            j = float(j)
            found = root(int(a[1:])) == root(int(b[1:]))
            if j >= 0.8:
                nhi += 1
                hi += found
                if j < 0.85:
                    nedge += 1
                    edge += found
            elif j >= 0.75:
                nmid += 1
                mid += found
    docs = sum(1 for _ in open(corpus, "rb"))
    version = subprocess.run([PY, "-c", "from importlib.metadata import version; print(version('text-dedup'))"],
                             capture_output=True, text=True).stdout.strip()
    json.dump({"version": version, "wall": wall, "rss": peak, "hi": [hi, nhi], "edge": [edge, nedge],
               "mid": [mid, nmid], "docs": docs}, open(os.path.join(d, "text-dedup.json"), "w"))
    print("| %s | text-dedup 0.4.0 MinHash (128, 0.75, ngram 5, num_proc 1) | %.1f | %.0f | clusters | "
          "%.2f%% (%d/%d) | %.2f%% (%d/%d) |" % ("{:,}".format(docs), wall, peak / 1e6, 100 * hi / nhi, hi, nhi,
                                                 100 * mid / nmid, mid, nmid))


if __name__ == "__main__":
    main()
