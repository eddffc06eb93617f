"""gaoya: MinHash32 index, par_bulk_insert_tokens with our shingles.

gaoya has no call that returns signatures for caller-made tokens; its bulk API
for custom tokens computes the 128-hash MinHash (32 bands x 4) and inserts it
into its LSH index, so the index insert is included in the measured work.
"""
from importlib.metadata import version

import gaoya.gaoya as g

from common import NUM_PERM, Tally, parse_args, report, token_batches

BANDS, BAND_WIDTH = 32, 4
assert BANDS * BAND_WIDTH == NUM_PERM


def main():
    a = parse_args()
    index = g.minhash.MinHash32StringIntIndexVec(0.5, BANDS, BAND_WIDTH, None, "word", False, (1, 1))
    tally, inserted = Tally(), 0
    for token_lists in token_batches(a, tally):
        if token_lists:
            ids = list(range(inserted, inserted + len(token_lists)))
            inserted += len(token_lists)
            index.par_bulk_insert_tokens(ids, token_lists)
    report("gaoya", tally, index.size(), version=version("gaoya"),
           api="MinHash32StringIntIndexVec.par_bulk_insert_tokens")

if __name__ == "__main__":
    main()
