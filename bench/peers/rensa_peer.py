"""rensa: RMinHash.digest_matrix_from_token_sets (its bulk API, one call per batch)."""
from importlib.metadata import version

import numpy as np
from rensa import RMinHash

from common import NUM_PERM, SEED, Tally, parse_args, report, token_batches


def main():
    a = parse_args()
    tally, acc = Tally(), 0
    for token_sets in token_batches(a, tally):
        if token_sets:
            m = RMinHash.digest_matrix_from_token_sets(token_sets, NUM_PERM, SEED)
            rows = np.asarray(m.to_rows(), dtype=np.uint64)
            acc ^= int(np.bitwise_xor.reduce(rows.ravel()))
    report("rensa", tally, acc, version=version("rensa"), api="RMinHash.digest_matrix_from_token_sets")

if __name__ == "__main__":
    main()
