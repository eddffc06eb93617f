#!/usr/bin/env bash
# Builds dist/neardup.html: the core compiled to wasm, optimized, compressed
# (LZMA) and inlined as 7-bit text into one self-contained page. Two runs give
# byte-identical output. scripts/build-page copies it to the committed
# neardup.html.
#
# Needs: rustup target wasm32-unknown-unknown, wasm-opt 108 (Debian 12:
# binaryen), xz 5.4.1 (XZ Utils), node.
# Env: CARGO_TARGET_DIR (default <repo>/target/web-wasm), DIST (default <repo>/dist).
set -euo pipefail
crate="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$crate/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target/web-wasm}"
dist="${DIST:-$root/dist}"
for tool in cargo wasm-opt node xz; do
  command -v "$tool" >/dev/null || { echo "build.sh: '$tool' not found (wasm-opt: apt-get install binaryen)" >&2; exit 1; }
done
# The committed page is compared byte for byte with this build, and another
# wasm-opt or xz may give other bytes: their versions are pinned, as the
# Rust toolchain is (Debian 12's).
for pin in "wasm-opt version 108" "xz (XZ Utils) 5.4.1"; do
  got="$(${pin%% *} --version | head -1)"
  [ "$got" = "$pin" ] || { echo "build.sh: the page is built with $pin (Debian 12's), got '$got'" >&2; exit 1; }
done

# Size and determinism settings for this build only (the workspace's release
# profile stays as it is). Paths are remapped so the wasm does not depend on
# where the repository or the cargo home is.
#
# Size: everything is optimized for size ("z"), the document readers and
# their parsers (html5ever, lopdf, zip, encoding tables) being most of the
# wasm, except the crates that a Compare spends its time in: the core
# (normalize, shingle, sign) and SHA-256, kept at opt-level 3 so that a
# Compare is as fast as before (see the crate's README, Size).
# (Cargo takes a package's override from --config only, not from the
# environment.)
export CARGO_PROFILE_RELEASE_OPT_LEVEL=z
hot=(--config 'profile.release.package.neardup.opt-level=3' --config 'profile.release.package.sha2.opt-level=3')
export CARGO_PROFILE_RELEASE_LTO=fat
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
export CARGO_PROFILE_RELEASE_PANIC=abort
export CARGO_PROFILE_RELEASE_DEBUG=false
export CARGO_PROFILE_RELEASE_STRIP=true
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
# The page is rustc's build, whatever the caller's wrapper: clippy's driver
# (.ci/run's) turns MIR optimizations off, which changes the wasm.
unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
# RUSTFLAGS replaces .cargo/config.toml's target rustflags: repeat its
# getrandom backend (see there).
export RUSTFLAGS="--remap-path-prefix=$root=/neardup --remap-path-prefix=$cargo_home=/cargo --cfg getrandom_backend=\"unsupported\""
(cd "$root" && cargo build --quiet "${hot[@]}" -p neardup-web --release --target wasm32-unknown-unknown --target-dir "$target")

mkdir -p "$dist"
raw="$target/wasm32-unknown-unknown/release/neardup_web.wasm"
wasm-opt -Oz --strip-debug --strip-producers \
  --enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int \
  --enable-mutable-globals --enable-reference-types --enable-multivalue \
  "$raw" -o "$dist/neardup.wasm"
node "$crate/web/assemble.mjs" "$dist/neardup.wasm" "$dist/neardup.html"
