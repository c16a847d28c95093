#!/usr/bin/env bash
# The main job, on a machine without a gamepad: build hapticd and hapticctl, start hapticd on a
# simulated rumble pad, and play library patterns through its socket with live motor bars.
# Usage: scripts/demo.sh [PATTERN...]   (default: heartbeat success sos)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh libevdev-dev libasound2-dev pkg-config

echo "== building (first time: a few minutes)"
swift build --product hapticd 2>&1 | tail -1
swift build --product hapticctl 2>&1 | tail -1
bin="$(swift build --show-bin-path)"

tmp="$(mktemp -d)"
cat > "$tmp/hapticd.toml" <<TOML
[patterns]
directories = ["$PWD/config/patterns"]
TOML
"$bin/hapticd" --simulate 1 --socket "$tmp/hapticd.sock" --config "$tmp/hapticd.toml" --log-level warning &
daemon=$!
trap 'kill "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null; rm -rf "$tmp"' EXIT
export HAPTICD_SOCKET="$tmp/hapticd.sock"
for _ in $(seq 100); do "$bin/hapticctl" ping >/dev/null 2>&1 && break; sleep 0.1; done

echo "== hapticd is running on a simulated pad (socket $HAPTICD_SOCKET)"
"$bin/hapticctl" devices
echo "== its pattern library"
"$bin/hapticctl" patterns
for pattern in "${@:-heartbeat success sos}"; do
  for p in $pattern; do
    echo "== hapticctl play $p --bars"
    "$bin/hapticctl" play "$p" --bars
  done
done
echo "== an SVG plot of heartbeat: heartbeat.svg"
"$bin/hapticctl" render config/patterns/heartbeat.ahap --format svg --output heartbeat.svg
