#!/usr/bin/env bash
# The main job, on a machine without a gamepad: build hapticctl, check the bundled pattern library,
# and render a pattern to motor magnitudes (CSV on the terminal, and an SVG plot).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product hapticctl
bin="$(swift build -c release --show-bin-path)/hapticctl"
"$bin" validate config/patterns/*.ahap && echo "pattern library: all $(ls config/patterns/*.ahap | wc -l) patterns load"
"$bin" info config/patterns/heartbeat.ahap
"$bin" render config/patterns/heartbeat.ahap --step 0.02 | head -20
"$bin" render config/patterns/heartbeat.ahap --format svg --output heartbeat.svg
echo "wrote heartbeat.svg (open it in a browser)"
