#!/usr/bin/env bash
# bench/extract-bench.sh: neardup-extract's DOCX reader against
# `pandoc -t plain`, timed by hyperfine (apt-get install hyperfine).
#
# Files: the DOCX fixtures (crates/neardup-extract/tests/fixtures/office/)
# and a long DOCX that LibreOffice makes once, in bench/work/extract/, from
# the GPL-3 text repeated 18 times (about 200 pages, 100,000 words).
# Prints hyperfine's table per file and the median ratio pandoc/neardup.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/bench/work/extract
mkdir -p "$work"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
cargo build -q --release -p neardup-extract --example extract
extract=$CARGO_TARGET_DIR/release/examples/extract

if [ ! -s "$work/long.docx" ]; then
  for _ in $(seq 18); do cat /usr/share/common-licenses/GPL-3; done >"$work/long.txt"
  (cd "$work" && soffice --headless --convert-to docx:"MS Word 2007 XML" long.txt >/dev/null 2>&1)
fi

fixtures=$root/crates/neardup-extract/tests/fixtures/office
for f in "$fixtures/pandoc.docx" "$fixtures/soffice.docx" "$work/long.docx"; do
  json=$work/$(basename "$f").json
  hyperfine -N --warmup 3 --min-runs 10 --export-json "$json" \
    -n neardup-extract "$extract $f" \
    -n pandoc "pandoc -t plain $f" >/dev/null 2>&1
  python3 - "$f" "$json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[2]))["results"]}
n, p = r["neardup-extract"]["median"], r["pandoc"]["median"]
print(f"{sys.argv[1].rsplit('/', 1)[-1]:14} neardup-extract {n*1e3:8.2f} ms  pandoc {p*1e3:8.2f} ms  (medians)  pandoc/neardup = {p/n:6.1f}x")
PY
done
