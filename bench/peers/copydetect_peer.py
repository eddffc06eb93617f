"""copydetect on a class folder: every test file against every reference file.

    python copydetect_peer.py --test-dir ESSAYS --ref-dir SOURCES [--ext txt]

copydetect 0.5.0's `CopyDetector(test_dirs, ref_dirs, extensions,
disable_filtering=True)` at its default thresholds (noise and guarantee 25
characters: every 25-character k-gram of the raw text is a fingerprint),
`run()`, then its similarity matrix: for each (test, reference)
pair the share of the test file's characters in passages found in the
reference ("% of file overlapping", what its report shows) and the share of
the reference's.  No HTML report is written.

disable_filtering (its CLI's `--disable-filtering`) is needed for prose:
0.5.0's filter tokenizes a .txt file with pygments' TextLexer and drops every
Text token, so each essay becomes the empty string and every pair scores 0.  Prints one JSON line: the
pairs with any overlap (file names without directory), the seconds of
run(), ru_maxrss.
"""
import argparse
import json
import logging
import os
import resource
import time

from copydetect import CopyDetector


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--test-dir", required=True)
    ap.add_argument("--ref-dir", required=True)
    ap.add_argument("--ext", default="txt")
    a = ap.parse_args()
    logging.disable(logging.WARNING)  # "did not tokenize plaintext file" for each file
    t0 = time.perf_counter()
    det = CopyDetector(test_dirs=[a.test_dir], ref_dirs=[a.ref_dir], extensions=[a.ext], autoopen=False,
                       silent=True, display_t=0.0, disable_filtering=True)
    det.run()
    secs = time.perf_counter() - t0
    pairs = []
    sim = det.similarity_matrix
    for i, tf in enumerate(det.test_files):
        for j, rf in enumerate(det.ref_files):
            s_test, s_ref = float(sim[i, j, 0]), float(sim[i, j, 1])
            if s_test > 0 or s_ref > 0:
                pairs.append({"test": os.path.basename(tf), "ref": os.path.basename(rf), "test_pct": s_test,
                              "ref_pct": s_ref, "overlap": int(det.token_overlap_matrix[i, j])})
    print(json.dumps({"test_files": len(det.test_files), "ref_files": len(det.ref_files), "pairs": pairs,
                      "seconds": secs,
                      "ru_maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))


if __name__ == "__main__":
    main()
