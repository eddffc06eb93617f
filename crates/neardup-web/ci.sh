#!/usr/bin/env bash
# Everything CI needs for the web page, on a fresh Debian machine as root:
# installs the wasm target, Chromium, binaryen, xz-utils and playwright-core if they
# are missing, builds dist/neardup.html and checks that the committed
# neardup.html is that build, and runs the browser tests (on the committed
# page) in Debian's headless Chromium.
#
#   crates/neardup-web/ci.sh         build and check, then test
#   crates/neardup-web/ci.sh build   the tools, the page build and check
#   crates/neardup-web/ci.sh test    the browser tests
#
# Env: CARGO_TARGET_DIR (default <repo>/target), NEARDUP_BIN (a built
# `neardup` for the native-equality tests; built here, debug, when unset).
set -euo pipefail
crate="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$crate/../.." && pwd)"
cd "$crate"
what=${1:-all}
case "$what" in
  all | build | test) ;;
  *) echo "usage: ci.sh [build|test]" >&2; exit 2 ;;
esac

step() { printf '\n== %s\n' "$*"; }

step "toolchain"
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v wasm-opt >/dev/null || missing+=(binaryen)
command -v xz >/dev/null || missing+=(xz-utils)
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends "${missing[@]}" || { apt-get update && apt-get install -y --no-install-recommends "${missing[@]}"; }
fi
[ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund

if [ "$what" != test ]; then
  # The wasm-only code (ffi.rs) is linted by the workspace's native
  # `cargo clippy` (lib.rs compiles it under cfg(clippy)), not by a second
  # clippy run of every dependency for wasm32 here.
  step "build dist/neardup.html; the committed neardup.html must equal it"
  "$root/scripts/build-page" --check
fi
[ "$what" = build ] && exit 0

if [ -z "${NEARDUP_BIN:-}" ]; then
  step "native CLI for the equality tests"
  (cd "$root" && cargo build --quiet -p neardup-cli)
  export NEARDUP_BIN="${CARGO_TARGET_DIR:-$root/target}/debug/neardup"
fi

step "browser tests (Chromium $(chromium --version 2>/dev/null | grep -o '[0-9][0-9.]*' | head -1))"
node --test --test-concurrency=1 web/tests/*.test.mjs
echo "screenshots: ${WEB_ARTIFACTS:-$root/target/web-artifacts}"
