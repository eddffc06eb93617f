#!/usr/bin/env python3
"""Planted near-duplicate corpus for `neardup scan` (bench/run-scan).

Base documents are built from real sentences (taken from the signing bench
corpus, bench/work/corpus.jsonl, i.e. the text Debian installs); a fraction of
the documents are planted copies of a base document, edited at a controlled
per-word rate (substitution by a real word, deletion, insertion).  After
generating, each planted pair's true Jaccard of distinct 5-word shingles is
computed exactly (SPEC normalization approximated by str.lower() + str.split();
these differ from SPEC v1 only for rare characters, and the run checks a sample
against `neardup compare --json`).

Output (DIR = bench/work/scan-<docs>):
  corpus.jsonl   {"id": "d0000000", "text": ...} in a seeded shuffled order
  truth.tsv      a <TAB> b <TAB> true_jaccard <TAB> edit_rate, a before b in input order,
                 one line per planted pair (every pair inside a planted group)
  info.json      parameters, counts, sizes
"""
import argparse
import json
import os
import random
import re
import sys

VERSION = 2
K = 5
SPLIT = re.compile(r"(?<=[.!?])\s+|\n\s*\n")


def shingles(text):
    w = text.lower().split()
    return set(map(" ".join, zip(w, w[1:], w[2:], w[3:], w[4:])))


def jaccard(a, b):
    sa, sb = shingles(a), shingles(b)
    u = len(sa | sb)
    return len(sa & sb) / u if u else 1.0


def sentence_pool(src, max_sentences):
    """Distinct real sentences (6..60 words, whitespace collapsed) from the bench corpus."""
    seen = {}
    with open(src, encoding="utf-8") as f:
        for line in f:
            text = json.loads(line)["text"]
            for s in SPLIT.split(text):
                w = s.split()
                if 6 <= len(w) <= 60:
                    seen.setdefault(" ".join(w), None)
            if len(seen) >= max_sentences:
                break
    return list(seen)


def edit(words, rate, rng, vocab):
    """Copy of words with about rate*len edits: 1/3 substitutions, deletions, insertions each."""
    out = []
    for w in words:
        if rng.random() >= rate:
            out.append(w)
            continue
        op = rng.randrange(3)
        if op == 0:
            out.append(rng.choice(vocab))
        elif op == 2:
            out.append(w)
            out.append(rng.choice(vocab))
        # op == 1: deleted
    return out


def generate(src, outdir, docs, plant_frac=0.1, group3_frac=0.1, exact_frac=0.05,
             max_rate=0.06, min_words=150, max_words=450, seed=5, log=print):
    os.makedirs(outdir, exist_ok=True)
    params = {"version": VERSION, "src_size": os.path.getsize(src), "docs": docs,
              "plant_frac": plant_frac, "group3_frac": group3_frac, "exact_frac": exact_frac,
              "max_rate": max_rate, "min_words": min_words, "max_words": max_words, "seed": seed}
    info_path = os.path.join(outdir, "info.json")
    if os.path.exists(info_path):
        info = json.load(open(info_path))
        if info.get("params") == params:
            return info
    rng = random.Random(seed)
    log("scan corpus: collecting sentences from %s" % src)
    pool = sentence_pool(src, 2_000_000)
    vocab = sorted({w for s in pool[:200_000] for w in s.split() if w.isalpha()})
    log("scan corpus: %d distinct sentences, %d substitution words" % (len(pool), len(vocab)))

    # Planted groups: a base plus 1 copy (or 2 copies for group3_frac of groups).
    n_copies_target = int(docs * plant_frac)
    groups = []  # (base index, [copy rates])
    n_copies = 0
    while n_copies < n_copies_target:
        if rng.random() < exact_frac:
            rates = [0.0]
        elif rng.random() < group3_frac:
            rates = [rng.uniform(0.002, max_rate), rng.uniform(0.002, max_rate)]
        else:
            rates = [rng.uniform(0.002, max_rate)]
        groups.append(rates)
        n_copies += len(rates)
    n_base = docs - n_copies
    # Documents 0..n_base-1 are bases; groups use bases 0..len(groups)-1; copies follow.
    order = list(range(docs))
    rng.shuffle(order)          # order[pos] = document index at input position pos
    pos_of = [0] * docs
    for p, d in enumerate(order):
        pos_of[d] = p

    def base_text(r):
        target = r.randint(min_words, max_words)
        out, n = [], 0
        while n < target:
            s = pool[r.randrange(len(pool))]
            out.append(s)
            n += s.count(" ") + 1
        return " ".join(out)

    log("scan corpus: %d documents (%d bases, %d planted copies in %d groups)" % (
        docs, n_base, n_copies, len(groups)))
    texts = [None] * docs
    for d in range(n_base):
        texts[d] = base_text(random.Random(seed * 1_000_003 + d))
    truth = []
    c = n_base
    for g, rates in enumerate(groups):
        members = [(g, 0.0)]
        words = texts[g].split()
        for rate in rates:
            if rate == 0.0:
                texts[c] = texts[g]
            else:
                r = random.Random(seed * 7_000_001 + c)
                new = edit(words, rate, r, vocab)
                while new == words:  # an edited copy is never identical (identical = rate 0 only)
                    new = edit(words, rate, r, vocab)
                texts[c] = " ".join(new)
            members.append((c, rate))
            c += 1
        for i in range(len(members)):
            for j in range(i + 1, len(members)):
                a, b = members[i][0], members[j][0]
                rate = max(members[i][1], members[j][1])
                if pos_of[a] > pos_of[b]:
                    a, b = b, a
                truth.append((pos_of[a], pos_of[b], jaccard(texts[a], texts[b]), rate))
    truth.sort()
    tmp = os.path.join(outdir, "corpus.jsonl.tmp")
    text_bytes = 0
    with open(tmp, "w", encoding="utf-8") as f:
        for p, d in enumerate(order):
            t = texts[d]
            text_bytes += len(t.encode("utf-8"))
            f.write(json.dumps({"id": "d%07d" % p, "text": t}, ensure_ascii=False))
            f.write("\n")
    os.replace(tmp, os.path.join(outdir, "corpus.jsonl"))
    with open(os.path.join(outdir, "truth.tsv"), "w") as f:
        for a, b, j, rate in truth:
            f.write("d%07d\td%07d\t%.6f\t%.4f\n" % (a, b, j, rate))
    info = {"params": params, "docs": docs, "bases": n_base, "copies": n_copies,
            "groups": len(groups), "planted_pairs": len(truth), "text_bytes": text_bytes,
            "jsonl_bytes": os.path.getsize(os.path.join(outdir, "corpus.jsonl")),
            "sentences": len(pool)}
    with open(info_path, "w") as f:
        json.dump(info, f, indent=1)
    return info


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "work", "corpus.jsonl"))
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=5)
    a = ap.parse_args()
    info = generate(a.src, a.out, a.docs, seed=a.seed, log=lambda m: print(m, file=sys.stderr))
    print(json.dumps(info))


if __name__ == "__main__":
    main()
