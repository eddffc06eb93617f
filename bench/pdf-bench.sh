#!/usr/bin/env bash
# bench/pdf-bench.sh: PDF extraction (examples/extract) against
# poppler's pdftotext, on the committed fixtures and on a 500-page PDF that
# LibreOffice makes here from a generated text (bench/work/, not committed).
#
# Prints each tool's median time (hyperfine), the ratio pdftotext / ours
# (above 1: ours is faster), and the peak RSS of both on the 500-page PDF
# (/usr/bin/time -v). Needs hyperfine, pdftotext (poppler-utils), soffice.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
work=bench/work/pdf
mkdir -p "$work"

cargo build --release -q -p neardup-extract --example extract
ours=$CARGO_TARGET_DIR/release/examples/extract

# 500 pages of text: words drawn from a fixed list by a fixed seed.
long=$work/long.pdf
if [ ! -f "$long" ]; then
  python3 - "$work/long.txt" <<'PY'
import random, sys
random.seed(1)
words = ("river bridge ferry village mill stone arch engineer water winter road "
         "market toll house wheel oak barley wheat season journey travel north "
         "west sea storm wind carpenter mason cook council report weeks coöperation "
         "café Zürich γέφυρα ποτάμι").split()
with open(sys.argv[1], "w", encoding="utf-8") as f:
    for p in range(6600):
        n = random.randint(20, 60)
        f.write(" ".join(random.choice(words) for _ in range(n)).capitalize() + ".\n\n")
PY
  soffice --headless -env:UserInstallation=file://$PWD/$work/lo --convert-to pdf \
    --outdir "$work" "$work/long.txt" >/dev/null 2>&1
fi
pages=$(pdfinfo "$long" 2>/dev/null | sed -n 's/^Pages: *//p' || echo '?')
echo "long.pdf: $pages pages, $(stat -c %s "$long") bytes"

printf '%-12s %12s %12s %8s\n' file ours_ms pdftotext_ms ratio
for f in crates/neardup-extract/tests/fixtures/pdf/report.pdf \
         crates/neardup-extract/tests/fixtures/pdf/page.pdf "$long"; do
  json=$work/$(basename "$f").json
  hyperfine -N --warmup 3 --min-runs 10 --export-json "$json" \
    "$ours $f" "pdftotext -enc UTF-8 $f /dev/null" >/dev/null 2>&1
  python3 - "$json" "$(basename "$f")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
ours, theirs = r[0]["median"] * 1000, r[1]["median"] * 1000
print(f"{sys.argv[2]:<12} {ours:12.2f} {theirs:12.2f} {theirs / ours:8.2f}")
PY
done

rss() { /usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'; }
echo "peak RSS on long.pdf: ours $(rss "$ours" "$long") KB, pdftotext $(rss pdftotext -enc UTF-8 "$long" -) KB"
