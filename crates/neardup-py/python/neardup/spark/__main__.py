"""``python -m neardup.spark``: ``neardup scan`` on a Spark cluster, the same
output files byte for byte.

    python -m neardup.spark INPUT... --pairs P --clusters C [--keep-list F]
        [--drop-list F] [--against REF]... [--against-index DIR] [--master URL]
        [--threshold T]
        [-k K] [-n N] [--words space|script] [--lossy]

Exit status: 0 success, 2 any error (one line on stderr).
"""
import argparse
import os
import re
import sys
import time


def parser():
    p = argparse.ArgumentParser(
        prog="python -m neardup.spark",
        description="neardup scan on Apache Spark: every near-duplicate pair of JSONL or "
                    "Parquet corpora, verified, clustered, with receipt hashes; the files "
                    "`neardup scan` writes, byte for byte.")
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="JSONL files of {\"id\", \"text\"} lines or Parquet files with id and "
                        "text columns (local paths or any URI Spark reads; a directory gives its "
                        "corpus files in path order)")
    p.add_argument("--against", action="append", default=[], metavar="REF",
                   help="an existing corpus: only pairs with an INPUT document are reported, and "
                        "REF documents are never dropped (repeatable)")
    p.add_argument("--against-index", metavar="DIR",
                   help="a persistent index (neardup index create): the pairs and lists "
                        "`neardup index query DIR INPUT...` writes, with its own K, N, threshold "
                        "and banding (options that differ are refused). DIR must be a path "
                        "every executor can read")
    p.add_argument("--pairs", metavar="PATH", help="write the verified pairs (JSONL)")
    p.add_argument("--clusters", metavar="PATH", help="write the clusters (JSONL)")
    p.add_argument("--keep-list", metavar="PATH", help="write the ids to keep, one per line")
    p.add_argument("--drop-list", metavar="PATH", help="write the ids to drop, one per line")
    p.add_argument("--threshold", metavar="T",
                   help="report pairs whose signatures agree on at least this fraction of slots "
                        "(0 < T <= 1, up to 4 decimals; default 0.75)")
    p.add_argument("-k", type=int, help="shingle size in words (default 5)")
    p.add_argument("-n", type=int, help="permutations (default 128)")
    p.add_argument("--words", choices=("space", "script"),
                   help="script: every Han, kana, Thai, Lao, Khmer, Myanmar and Yi character is "
                        "a word (SPEC §11, kar-script-shingle-minhash-v1), as neardup scan "
                        "--words script; default space")
    p.add_argument("--bands", type=int, help="LSH bands (with --rows)")
    p.add_argument("--rows", type=int, help="LSH rows per band (with --bands)")
    p.add_argument("--recall", choices=("probable", "exact"),
                   help="exact: pigeonhole bands that miss no pair (as neardup scan --recall; "
                        "default probable)")
    p.add_argument("--lossy", action="store_true",
                   help="decode invalid UTF-8 in text files and JSONL lines by replacement "
                        "(U+FFFD, as WHATWG does) instead of failing on the line or skipping "
                        "the file, as neardup scan --lossy")
    p.add_argument("--id-field", default="id", metavar="NAME")
    p.add_argument("--text-field", default="text", metavar="NAME")
    p.add_argument("--master", default=None, metavar="URL",
                   help="Spark master (default: spark-submit's, else local[*])")
    p.add_argument("--partitions", type=int, metavar="P",
                   help="partitions of the shuffled stages (default: spark.sql.shuffle.partitions)")
    p.add_argument("--block-size", type=int, default=None, metavar="B",
                   help="a bucket of more documents is cut into blocks of B, so that no task "
                        "gets one huge bucket (the result does not change; default 2048)")
    p.add_argument("--checkpoint-dir", metavar="DIR",
                   help="reliable checkpoints of the clustering rounds (a shared file system on "
                        "a cluster); default: local checkpoints")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                   help="a Spark setting (repeatable)")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary on stderr")
    return p


def message(e):
    """The one line to print for an exception, a Python worker's own
    message when Spark wraps one."""
    text = str(e)
    found = re.findall(r"^(?:ValueError|TypeError): (.*)$", text, re.M)
    if found:
        return found[-1]
    return text.strip().splitlines()[0] if text.strip() else type(e).__name__


def main(argv=None):
    args = parser().parse_args(argv)
    start = time.monotonic()
    spark = None
    try:
        from . import BLOCK_SIZE, scan_files, session
        conf = {}
        for kv in args.conf:
            key, eq, value = kv.partition("=")
            if not eq:
                raise ValueError("--conf takes KEY=VALUE, got '%s'" % kv)
            conf[key] = value
        if (args.bands is None) != (args.rows is None):
            raise ValueError("--bands and --rows go together: give both or neither")
        # An output that cannot be written fails now, not after the scan.
        for out in (args.pairs, args.clusters, args.keep_list, args.drop_list):
            if out and out != "-":
                folder = os.path.dirname(os.path.abspath(out))
                if not os.access(folder, os.W_OK):
                    raise ValueError("writing '%s': the directory '%s' is not writable"
                                     % (out, folder))
        spark = session(args.master, **conf)
        if args.checkpoint_dir:
            spark.sparkContext.setCheckpointDir(args.checkpoint_dir)
        out = scan_files(spark, args.inputs, against=args.against, id_field=args.id_field,
                         text_field=args.text_field, threshold=args.threshold, k=args.k,
                         n=args.n, words=args.words, bands=args.bands, rows=args.rows,
                         recall=args.recall, lossy=args.lossy,
                         partitions=args.partitions,
                         block_size=args.block_size or BLOCK_SIZE,
                         against_index=args.against_index)
        lap = time.monotonic()
        out.write(pairs=args.pairs, clusters=args.clusters, keep_list=args.keep_list,
                  drop_list=args.drop_list)
        out.times["outputs"] = time.monotonic() - lap
        if not args.quiet:
            s = out.stats
            rounds = ("%d clustering rounds" % s["rounds"] if s["rounds"] or not s["pairs"]
                      else "clusters found on the driver")
            print("neardup.spark: %d documents (%d new, %d from --against), %d verified pairs "
                  "(%d identical), %d clusters, %d dropped, %s"
                  % (s["documents"], s["documents"] - s["against"], s["against"], s["pairs"],
                     s["identical_pairs"], s["clusters"], s["dropped"], rounds),
                  file=sys.stderr)
            print("  time: %s, total %.2fs" % (
                ", ".join("%s %.2fs" % kv for kv in out.times.items()),
                time.monotonic() - start), file=sys.stderr)
        return 0
    except Exception as e:  # one line, as `neardup scan` reports errors
        print("neardup.spark: error: %s" % message(e), file=sys.stderr)
        return 2
    finally:
        if spark is not None:
            spark.stop()


if __name__ == "__main__":
    sys.exit(main())
