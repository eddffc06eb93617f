"""datasketch: MinHash.bulk (its batch API; default affine32 scheme, sha1_hash32)."""
import numpy as np
from datasketch import MinHash
import datasketch

from common import NUM_PERM, SEED, batches, parse_args, report, shingles


def main():
    a = parse_args()
    docs = text_bytes = empty = 0
    acc = np.zeros(NUM_PERM, dtype=np.uint64)
    for batch in batches(a.jsonl, a.batch):
        token_sets = []
        for _id, text in batch:
            docs += 1
            text_bytes += len(text.encode("utf-8"))
            s = shingles(text)
            if not s:
                empty += 1
                continue
            token_sets.append([x.encode("utf-8") for x in s])
        for m in MinHash.bulk(token_sets, num_perm=NUM_PERM, seed=SEED):
            acc ^= m.hashvalues.astype(np.uint64)
    report("datasketch", docs, text_bytes, empty, int(np.bitwise_xor.reduce(acc)),
           version=datasketch.__version__, api="MinHash.bulk")


if __name__ == "__main__":
    main()
