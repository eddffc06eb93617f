"""gaoya, native tokenizer: bulk_hash_docs on the raw texts (its fastest path).

NOT the same shingling: gaoya's 'word' analyzer extracts its own word tokens
(punctuation dropped) and its lowercase flag did not change signatures in our
test, so texts are lowercased in Python first.  Shown for context only.
"""
from importlib.metadata import version

import gaoya.gaoya as g

from common import Tally, fold, parse_args, report, token_batches

BANDS, BAND_WIDTH = 32, 4


def main():
    a = parse_args()
    index = g.minhash.MinHash32StringIntIndexVec(0.5, BANDS, BAND_WIDTH, None, "word", True, (5, 5))
    tally, acc = Tally(), 0
    for texts in token_batches(a, tally, str.lower):
        for sig in index.bulk_hash_docs(texts):
            acc ^= fold(0, sig[:4])
    report("gaoya-native", tally, acc, version=version("gaoya"),
           api="MinHash32StringIntIndexVec.bulk_hash_docs (own tokenizer)")

if __name__ == "__main__":
    main()
