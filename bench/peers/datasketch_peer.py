"""datasketch: MinHash.bulk (its batch API; default affine32 scheme, sha1_hash32)."""
import numpy as np
from datasketch import MinHash
import datasketch

from common import NUM_PERM, SEED, Tally, parse_args, report, shingles, token_batches


def main():
    a = parse_args()
    tally = Tally()
    acc = np.zeros(NUM_PERM, dtype=np.uint64)
    encoded = lambda text: [x.encode("utf-8") for x in shingles(text)]
    for token_sets in token_batches(a, tally, encoded):
        for m in MinHash.bulk(token_sets, num_perm=NUM_PERM, seed=SEED):
            acc ^= m.hashvalues.astype(np.uint64)
    report("datasketch", tally, int(np.bitwise_xor.reduce(acc)),
           version=datasketch.__version__, api="MinHash.bulk")

if __name__ == "__main__":
    main()
