#!/usr/bin/env bash
# Builds examples/swift (iOS-style Core Haptics code, as a user copies it) and runs it against hapticd
# on a simulated pad: it must exit 0, say Done, and the pad must have moved (hapticd's --trace).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(swift build --show-bin-path)"
(cd examples/swift && swift build)
demo="$(cd examples/swift && swift build --show-bin-path)/HapticsDemo"
tmp="$(mktemp -d)"
daemon=""
cleanup() { [ -n "$daemon" ] && kill "$daemon" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
printf '[socket]\npath = "%s/hapticd.sock"\n' "$tmp" > "$tmp/hapticd.toml"
"$bin/hapticd" --config "$tmp/hapticd.toml" --simulate --trace "$tmp/trace.csv" --log-level warning &
daemon=$!
for _ in $(seq 100); do [ -S "$tmp/hapticd.sock" ] && break; sleep 0.05; done
[ -S "$tmp/hapticd.sock" ] || { echo "FAIL: hapticd did not open its socket" >&2; exit 1; }

HAPTICD_SOCKET="$tmp/hapticd.sock" timeout 60 "$demo" | tee "$tmp/out"
grep -qx "Done" "$tmp/out" || { echo "FAIL: the example did not finish" >&2; exit 1; }
moved=$(awk -F, 'NR > 1 && ($3 > 0 || $4 > 0)' "$tmp/trace.csv" | wc -l)
[ "$moved" -gt 10 ] || { echo "FAIL: the pad moved in only $moved trace rows" >&2; exit 1; }
echo "examples/swift: ran, the pad moved in $moved trace rows"
