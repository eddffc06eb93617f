"""Single-document query latency of a neardup index once it is open, in process.

    python neardup_index_inproc.py --index IDX --texts ADD.jsonl [--count 1000]

The CLI's `neardup index query` pays for opening the index on every call;
a service opens it once.  This opens it once (timed), then times --count
queries of one document each: `Index.query([text])` (signing included),
`neardup.sign(text)` alone (what signing one text costs), and, when the
binding has it, `Index.query_signatures` on signatures made beforehand
(the index alone).  Prints one JSON line with medians in ms and the
process's ru_maxrss after the queries.  Run by bench/index-bench with the
interpreter that has the neardup wheel (target/py-venv by default).
"""
import argparse
import json
import resource
import statistics
import sys
import time

import neardup


def first_texts(path, count):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            out.append(json.loads(line)["text"])
            if len(out) >= count:
                break
    return out


def timed(fn, items):
    """Per-call seconds of fn(item) for every item."""
    per = []
    for x in items:
        t0 = time.perf_counter()
        fn(x)
        per.append(time.perf_counter() - t0)
    return per


def first_working(candidates, probe):
    """The first (label, fn) whose fn(probe) does not raise TypeError or ValueError: the
    binding's argument shapes were not settled when this was written."""
    errors = []
    for label, fn in candidates:
        try:
            fn(probe)
            return label, fn
        except (TypeError, ValueError) as e:
            errors.append("%s: %s" % (label, e))
    raise SystemExit("no call form worked:\n  " + "\n  ".join(errors))


def ms(per):
    return 1000 * statistics.median(per) if per else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index", required=True)
    ap.add_argument("--texts", required=True, help="JSONL {id, text}: the query documents")
    ap.add_argument("--count", type=int, default=1000)
    a = ap.parse_args()
    if not hasattr(neardup, "Index"):
        json.dump({"skipped": "this neardup module has no Index"}, sys.stdout)
        sys.stdout.write("\n")
        return
    texts = first_texts(a.texts, a.count)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    t0 = time.perf_counter()
    idx = neardup.Index.open(a.index)
    open_s = time.perf_counter() - t0

    label, query = first_working([("query([text])", lambda t: idx.query([t])),
                                  ("query([id], [text])", lambda t: idx.query(["q"], [t]))], texts[0])
    out = {"docs": len(texts), "open_s": open_s, "query_form": label}
    out["query_ms"] = ms(timed(query, texts))
    out["sign_ms"] = ms(timed(neardup.sign, texts))
    if hasattr(idx, "query_signatures"):
        # Signed before the clock starts: these timings are of the index only.
        batches = [neardup.sign_batch([t], threads=1) for t in texts]
        forms = {"query_signatures(SignatureBatch)": batches,
                 "query_signatures(uint32 array (1, n))": [b.signatures for b in batches],
                 "query_signatures([Fingerprint])": [[neardup.sign(t)] for t in texts]}
        label, _ = first_working([(name, lambda x, items=items: idx.query_signatures(items[0]))
                                  for name, items in forms.items()], None)
        out["query_signatures_form"] = label
        out["query_signatures_ms"] = ms(timed(idx.query_signatures, forms[label]))
    out["rss_before_open"] = rss_before
    out["rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    # What the resident memory is made of: the index's pages are mapped
    # from the page cache (RssFile: clean, shared, dropped by the kernel
    # when it needs them); RssAnon is the process's own.
    try:
        with open("/proc/self/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("RssAnon", "RssFile"):
                    out[key.lower()] = int(value.split()[0]) * 1024
    except OSError:
        pass
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
