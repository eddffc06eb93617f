#!/usr/bin/env python3
"""Build the benchmark corpus from the real text a Debian system ships.

Sources (all read-only, nothing is downloaded):
  * /usr/share/man            manual pages (gzip'd roff, all languages); the roff
                              markup is stripped to plain text
  * /usr/share/doc            READMEs, changelogs, NEWS, copyright files, manuals
                              (.gz decompressed)
  * /usr/share/info           GNU info manuals (.gz decompressed)
  * /usr/share/common-licenses  the license texts

Files that are not valid UTF-8, contain NUL bytes, are symlinks, or are roff
`.so` redirect stubs are skipped.  A file larger than SPLIT_BYTES is split at
blank-line boundaries into parts of about SPLIT_BYTES ("file#part").
Everything is walked in sorted order, so the same machine image always yields
the same corpus (its sha256 is recorded in the manifest).

Outputs in the work dir (default bench/work):
  corpus.jsonl        {"id": "...", "text": "..."} per line, the multi-document corpus
  big_a.txt           one ~100 MB document: /usr/share/doc text concatenated
  big_b.txt           big_a.txt lightly edited (about 1 line in 500 changed)
  manifest.json       sizes, doc counts, sha256s, source breakdown
"""
import argparse
import gzip
import hashlib
import json
import os
import random
import re
import sys

VERSION = 1  # bump when the selection/cleaning rules change (invalidates the cache)
SPLIT_BYTES = 64 * 1024
MIN_WORDS = 20  # documents shorter than this are skipped (stubs, empty files)

ROOTS = [
    ("man", "/usr/share/man"),
    ("doc", "/usr/share/doc"),
    ("info", "/usr/share/info"),
    ("licenses", "/usr/share/common-licenses"),
]

SKIP_EXT = (".png", ".gif", ".jpg", ".jpeg", ".svg", ".ico", ".pdf", ".js", ".css",
            ".woff", ".woff2", ".ttf", ".eot", ".bz2", ".xz", ".zip", ".deb", ".pyc")


def read_text(path):
    """Return the file's text (decompressing .gz), or None if it isn't UTF-8 text."""
    if os.path.islink(path) or not os.path.isfile(path):
        return None
    low = path.lower()
    if low.endswith(SKIP_EXT):
        return None
    try:
        with open(path, "rb") as f:
            data = f.read()
        if low.endswith(".gz"):
            data = gzip.decompress(data)
    except (OSError, EOFError, gzip.BadGzipFile, ValueError):
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


# ---------------------------------------------------------------- roff -> text
_DROP_REQ = {"de", "if", "ie", "el", "ds", "nr", "so", "ig", "tr", "ft", "ta", "in", "ti",
             "ne", "ll", "ps", "vs", "na", "ad", "hy", "nh", "mso", "cc", "ec", "eo", "rm",
             "rn", "am", "als", "do", "char", "fchar", "ev", "lf", "pl", "po", "bp", "wh",
             "ch", "it", "ls", "lt", "pc", "tm", "ab", "ex", "fp", "cs", "ss", "bd", "uf",
             "cu", "ul", "ce", "rj", "sp", "br", "fi", "nf", "PD", "UC", "TS", "TE", "EQ", "EN",
             "ns", "rs", "mk", "rt", "sy", "pso", "hw", "hla", "hlm", "hpf", "kern", "ftr"}
_ESC_NAMED = {"em": "\u2014", "en": "\u2013", "aq": "'", "dq": '"', "lq": "\u201c",
              "rq": "\u201d", "oq": "\u2018", "cq": "\u2019", "bu": "\u2022", "co": "\u00a9",
              "rg": "\u00ae", "hy": "-", "mi": "-", "pl": "+", "mu": "\u00d7", "de": "\u00b0",
              "ga": "`", "ha": "^", "ti": "~", "lh": "<", "rh": ">", "tm": "\u2122"}
_RE_ESC = re.compile(r"""\\(?:
      f(?:\[[^\]]*\]|\(..|.)          # font
    | s[-+]?(?:\d|\(\d\d|\[\d+\])      # size
    | \*(?:\[[^\]]*\]|\(..|.)          # string
    | \((?P<n2>..)                     # named char (xx
    | \[(?P<nb>[^\]]*)\]               # named char [xx]
    | [kgnz](?:\(..|\[[^\]]*\]|.)      # misc with arg
    | [hvwlLoDbxHRSXNZYVAB]'[^']*'     # functions with quoted args
    | (?P<c>.)                         # any other single-char escape
    )""", re.X)
_RE_ARGS = re.compile(r'"((?:[^"]|"")*)"|(\S+)')


def _esc(m):
    n = m.group("n2") or m.group("nb")
    if n is not None:
        return _ESC_NAMED.get(n, "")
    c = m.group("c")
    if c is None:
        return ""
    return {"-": "-", "e": "\\", " ": " ", "~": " ", "0": " ", "&": "", "|": "", "^": "",
            "c": "", "%": "", "\\": "\\", "'": "'", "`": "`", ".": ".", "t": "\t",
            "\n": ""}.get(c, "")


def roff_to_text(src):
    out = []
    for line in src.split("\n"):
        if line.startswith((".\\\"", "'\\\"", '\\"', ".\\#", "\\#")):
            continue
        if line[:1] in (".", "'"):
            body = line[1:].strip()
            if not body:
                continue
            parts = body.split(None, 1)
            req = parts[0]
            if req in _DROP_REQ or req.startswith(("\\", "[", "]")) or req == "..":
                continue
            rest = parts[1] if len(parts) > 1 else ""
            args = [m.group(1).replace('""', '"') if m.group(1) is not None else m.group(2)
                    for m in _RE_ARGS.finditer(rest)]
            line = " ".join(args)
            if not line:
                continue
        out.append(_RE_ESC.sub(_esc, line))
    return "\n".join(out)


# ----------------------------------------------------------------- walking
def walk_sorted(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            yield os.path.join(dirpath, name)


def split_parts(text, limit=SPLIT_BYTES):
    """Split text into parts of about `limit` UTF-8 bytes at blank lines."""
    if len(text.encode("utf-8")) <= limit:
        return [text]
    parts, cur, cur_len = [], [], 0
    for para in re.split(r"\n\s*\n", text):
        n = len(para.encode("utf-8")) + 2
        if cur and cur_len + n > limit:
            parts.append("\n\n".join(cur))
            cur, cur_len = [], 0
        cur.append(para)
        cur_len += n
    if cur:
        parts.append("\n\n".join(cur))
    return parts


def iter_documents():
    """Yield (source, id, text) for every usable document, in a fixed order."""
    for source, root in ROOTS:
        if not os.path.isdir(root):
            continue
        for path in walk_sorted(root):
            text = read_text(path)
            if text is None:
                continue
            if source == "man":
                if text.lstrip().startswith(".so "):
                    continue
                text = roff_to_text(text)
            parts = split_parts(text)
            for i, part in enumerate(parts):
                if len(part.split()) < MIN_WORDS:
                    continue
                doc_id = path if len(parts) == 1 else "%s#%d" % (path, i)
                yield source, doc_id, part


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def build_corpus(path, max_bytes):
    """Write the JSONL corpus.

    Every man page, info manual and license text is taken; /usr/share/doc
    documents are then added in sha256(id) order (a fixed pseudo-random order
    across packages) until the text reaches max_bytes (0 = take all).  The
    selected documents are written in a seeded shuffled order, so small and
    large documents are interleaved as in a real crawl.
    """
    fixed, pool = [], []
    for source, doc_id, text in iter_documents():
        (pool if source == "doc" else fixed).append((source, doc_id, text))
    pool.sort(key=lambda d: hashlib.sha256(d[1].encode()).digest())
    chosen = fixed
    total = sum(len(t.encode("utf-8")) for _, _, t in fixed)
    for d in pool:
        if max_bytes and total >= max_bytes:
            break
        chosen.append(d)
        total += len(d[2].encode("utf-8"))
    random.Random(5).shuffle(chosen)
    stats = {}
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        for source, doc_id, text in chosen:
            out.write(json.dumps({"id": doc_id, "text": text}, ensure_ascii=False))
            out.write("\n")
            s = stats.setdefault(source, {"docs": 0, "text_bytes": 0})
            s["docs"] += 1
            s["text_bytes"] += len(text.encode("utf-8"))
    os.replace(tmp, path)
    return {"docs": len(chosen), "text_bytes": total, "file_bytes": os.path.getsize(path),
            "sha256": sha256_file(path), "sources": stats}


def build_big(path_a, path_b, target):
    """One ~target-byte document: /usr/share/doc texts concatenated; B = A lightly edited."""
    chunks, total = [], 0
    for path in walk_sorted("/usr/share/doc"):
        text = read_text(path)
        if text is None or len(text.split()) < MIN_WORDS:
            continue
        chunks.append(text if text.endswith("\n") else text + "\n")
        total += len(chunks[-1].encode("utf-8"))
        if total >= target:
            break
    big = "".join(chunks)
    raw = big.encode("utf-8")[:target]
    big = raw.decode("utf-8", errors="ignore")
    cut = big.rfind("\n")
    if cut > 0:
        big = big[: cut + 1]
    with open(path_a, "w", encoding="utf-8") as f:
        f.write(big)
    # B: about 1 line in 500 edited (a word replaced, a line dropped or duplicated).
    rng = random.Random(20241202)
    lines = big.split("\n")
    edited = 0
    out = []
    for line in lines:
        r = rng.random()
        if r < 0.002 and line.strip():
            edited += 1
            op = rng.randrange(3)
            if op == 0:
                words = line.split(" ")
                words[rng.randrange(len(words))] = "EDITED"
                out.append(" ".join(words))
            elif op == 1:
                continue
            else:
                out.append(line)
                out.append(line)
        else:
            out.append(line)
    with open(path_b, "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    return {"bytes_a": os.path.getsize(path_a), "bytes_b": os.path.getsize(path_b),
            "lines_edited": edited, "sha256_a": sha256_file(path_a),
            "sha256_b": sha256_file(path_b)}


def ensure(workdir, max_mb, big_mb, force=False, quiet=False):
    """Build (or reuse) the corpus; return the manifest."""
    os.makedirs(workdir, exist_ok=True)
    man_path = os.path.join(workdir, "manifest.json")
    want = {"version": VERSION, "max_mb": max_mb, "big_mb": big_mb}
    files = ["corpus.jsonl", "big_a.txt", "big_b.txt"]
    if not force and os.path.exists(man_path) and all(
            os.path.exists(os.path.join(workdir, f)) for f in files):
        with open(man_path) as f:
            manifest = json.load(f)
        if manifest.get("params") == want:
            return manifest
    if not quiet:
        print("building corpus in %s (first run only) ..." % workdir, file=sys.stderr)
    corpus = build_corpus(os.path.join(workdir, "corpus.jsonl"), int(max_mb * 1e6))
    big = build_big(os.path.join(workdir, "big_a.txt"), os.path.join(workdir, "big_b.txt"),
                    int(big_mb * 1e6))
    manifest = {"params": want, "corpus": corpus, "big": big}
    with open(man_path, "w") as f:
        json.dump(manifest, f, indent=2)
    return manifest


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "work"))
    ap.add_argument("--max-mb", type=float, default=128, help="cap on corpus text MB (0 = everything)")
    ap.add_argument("--big-mb", type=float, default=100)
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args()
    print(json.dumps(ensure(a.workdir, a.max_mb, a.big_mb, a.force), indent=2))


if __name__ == "__main__":
    main()
