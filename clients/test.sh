#!/usr/bin/env bash
# The client libraries against a real hapticd --simulate: libhapticd's C tests and scanner fuzzing,
# its install (headers, libraries, hapticd.pc) and an example built from the install through
# pkg-config, the self-contained build for games, and the Python package's pytest tests.
# Needs the daemon built (swift build). Usage: clients/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh gcc libc6-dev make pkg-config libjansson-dev python3 python3-pytest
root="$PWD"
export HAPTICD="${HAPTICD:-$(swift build --show-bin-path)/hapticd}"
export HAPTICD_REPO="$root"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT

# C: build, fuzz the AHAP text scanner, run the tests against the daemon.
make -s -C clients/c test

# make install, then a program built against the install alone, through pkg-config.
make -s -C clients/c install PREFIX="$tmp/prefix" >/dev/null
test -f "$tmp/prefix/include/hapticd.h" -a -f "$tmp/prefix/lib/libhapticd.a" -a -L "$tmp/prefix/lib/libhapticd.so.1"
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
cc examples/c/play-file.c $(pkg-config --cflags --libs hapticd) -o "$tmp/play-file-shared"
cc examples/c/play-file.c $(pkg-config --cflags hapticd) "$tmp/prefix/lib/libhapticd.a" $(pkg-config --static --libs hapticd | sed 's/-lhapticd//') \
  -o "$tmp/play-file-static"
! ldd "$tmp/play-file-static" | grep -q libhapticd
# Only hapticd_* symbols are exported.
! nm -D --defined-only "$tmp/prefix/lib/libhapticd.so.1" | awk '$2 ~ /[TDB]/ {print $3}' | grep -v '^hapticd_' | grep -q .
# What a game ships: libhapticd.so.1 and libjansson.so.4 side by side, found without the system's.
mkdir "$tmp/plugin"
cp -L "$tmp/prefix/lib/libhapticd.so.1" "$(pkg-config --variable=libdir jansson 2>/dev/null || echo /usr/lib/x86_64-linux-gnu)/libjansson.so.4" "$tmp/plugin/" 2>/dev/null \
  || cp -L "$tmp/prefix/lib/libhapticd.so.1" "$(ldconfig -p | awk '/libjansson.so.4 / {print $NF; exit}')" "$tmp/plugin/"
ldd "$tmp/plugin/libhapticd.so.1" | grep -q "libjansson.so.4 => $tmp/plugin/libjansson.so.4"
ldd "$tmp/plugin/libhapticd.so.1" | awk '/=>/ {print $1}' | grep -vqE '^(libjansson|libc|libpthread|ld-linux|linux-vdso)' && exit 1
echo "libhapticd: install, pkg-config, static build and the plugin bundle checked"

# Python: pytest from Debian, against the same daemon.
cd clients/python
/usr/bin/python3 -m pytest -q -p no:cacheprovider tests
