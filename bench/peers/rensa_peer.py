"""rensa: RMinHash.digest_matrix_from_token_sets (its bulk API, one call per batch)."""
from importlib.metadata import version

import numpy as np
from rensa import RMinHash

from common import NUM_PERM, SEED, batches, parse_args, report, shingle_list


def main():
    a = parse_args()
    docs = text_bytes = empty = 0
    acc = 0
    for batch in batches(a.jsonl, a.batch):
        token_sets = []
        for _id, text in batch:
            docs += 1
            text_bytes += len(text.encode("utf-8"))
            s = shingle_list(text)
            if not s:
                empty += 1
                continue
            token_sets.append(s)
        if token_sets:
            m = RMinHash.digest_matrix_from_token_sets(token_sets, NUM_PERM, SEED)
            rows = np.asarray(m.to_rows(), dtype=np.uint64)
            acc ^= int(np.bitwise_xor.reduce(rows.ravel()))
    report("rensa", docs, text_bytes, empty, acc, version=version("rensa"),
           api="RMinHash.digest_matrix_from_token_sets")


if __name__ == "__main__":
    main()
