#!/usr/bin/env bash
# The client libraries against a real hapticd --simulate: libhapticd's C tests and scanner fuzzing,
# its install (headers, libraries, hapticd.pc) and an example built from the install through
# pkg-config, the self-contained build for games, and the Python package's pytest tests.
# Needs the daemon built (swift build). Usage: clients/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh gcc libc6-dev make pkg-config libjansson-dev python3 python3-pytest python3-pip python3-setuptools python3-wheel
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
# (Outputs are read whole before they are searched: `grep -q` quitting early would be a SIGPIPE.)
deps="$(ldd "$tmp/play-file-static")"
! grep -q libhapticd <<< "$deps"
# Only hapticd_* symbols are exported.
exported="$(nm -D --defined-only "$tmp/prefix/lib/libhapticd.so.1" | awk '$2 ~ /[TDB]/ {print $3}')"
test -z "$(grep -v '^hapticd_' <<< "$exported")"
test "$(grep -c '^hapticd_' <<< "$exported")" -ge 70
# What a game ships: libhapticd.so.1 and libjansson.so.4 side by side, found without the system's.
mkdir "$tmp/plugin"
cp -L "$tmp/prefix/lib/libhapticd.so.1" "$(pkg-config --variable=libdir jansson 2>/dev/null || echo /usr/lib/x86_64-linux-gnu)/libjansson.so.4" "$tmp/plugin/" 2>/dev/null \
  || cp -L "$tmp/prefix/lib/libhapticd.so.1" "$(ldconfig -p | awk '/libjansson.so.4 / {print $NF; exit}')" "$tmp/plugin/"
deps="$(ldd "$tmp/plugin/libhapticd.so.1")"
grep -q "libjansson.so.4 => $tmp/plugin/libjansson.so.4" <<< "$deps"
test -z "$(awk '/=>/ {print $1}' <<< "$deps" | grep -vE '^(libjansson|libc|libpthread|ld-linux|linux-vdso)')"
echo "libhapticd: install, pkg-config, static build and the plugin bundle checked"

# The examples, against a daemon: a file to its end; the game loop's sine reaching the pad.
printf '[patterns]\ndirectories = ["%s/config/patterns"]\n' "$root" > "$tmp/hapticd.toml"
"$HAPTICD" --simulate 1 --socket "$tmp/h.sock" --config "$tmp/hapticd.toml" --trace "$tmp/trace.csv" 2> "$tmp/daemon.log" &
dpid=$!
for _ in $(seq 300); do grep -q "listening on" "$tmp/daemon.log" 2>/dev/null && break; sleep 0.05; done
out="$(HAPTICD_SOCKET="$tmp/h.sock" clients/c/build/play-file heartbeat)"
grep -q "finished (finished)" <<< "$out"
HAPTICD_SOCKET="$tmp/h.sock" clients/c/build/game-loop --sine 1 > /dev/null
# The sine: many distinct magnitudes on the pad, rising and falling.
test "$(awk -F, 'NR > 1 && $3 > 0 {print $3}' "$tmp/trace.csv" | sort -u | wc -l)" -ge 10
out="$(HAPTICD_SOCKET="$tmp/h.sock" clients/c/build/play-file nope 2>&1 || true)"
grep -q 'no pattern named "nope"' <<< "$out"
kill -TERM "$dpid"; wait "$dpid"
echo "libhapticd: examples checked against the daemon"

# Python: `pip install ./clients/python` works offline with Debian's pip and setuptools (from a copy,
# so that the build leaves nothing in the tree), and the installed package runs.
cp -r clients/python "$tmp/python"
/usr/bin/python3 -m pip install -q --no-build-isolation --no-index --no-warn-script-location --target "$tmp/site" "$tmp/python" 2>&1 \
  | grep -v "Running pip as the 'root' user" || true
help="$(cd "$tmp" && PYTHONPATH="$tmp/site" /usr/bin/python3 -m hapticd --help)"
grep -q "python3 -m hapticd" <<< "$help"

# pytest from Debian, against the same daemon.
cd clients/python
/usr/bin/python3 -m pytest -q -p no:cacheprovider tests
