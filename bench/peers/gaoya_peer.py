"""gaoya: MinHash32 index, par_bulk_insert_tokens with our shingles.

gaoya has no call that returns signatures for caller-made tokens; its bulk API
for custom tokens computes the 128-hash MinHash (32 bands x 4) and inserts it
into its LSH index, so the index insert is included in the measured work.
"""
from importlib.metadata import version

import gaoya.gaoya as g

from common import NUM_PERM, batches, parse_args, report, shingle_list

BANDS, BAND_WIDTH = 32, 4
assert BANDS * BAND_WIDTH == NUM_PERM


def main():
    a = parse_args()
    index = g.minhash.MinHash32StringIntIndexVec(0.5, BANDS, BAND_WIDTH, None, "word", False, (1, 1))
    docs = text_bytes = empty = 0
    for batch in batches(a.jsonl, a.batch):
        ids, token_lists = [], []
        for _id, text in batch:
            docs += 1
            text_bytes += len(text.encode("utf-8"))
            s = shingle_list(text)
            if not s:
                empty += 1
                continue
            ids.append(docs)
            token_lists.append(s)
        if ids:
            index.par_bulk_insert_tokens(ids, token_lists)
    report("gaoya", docs, text_bytes, empty, index.size(), version=version("gaoya"),
           api="MinHash32StringIntIndexVec.par_bulk_insert_tokens")


if __name__ == "__main__":
    main()
