#!/usr/bin/env bash
# Checks hapticctl as a user runs it: exit codes, output formats, error lines.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(swift build --show-bin-path)/hapticctl"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
check() { if "$@"; then pass=$((pass+1)); else echo "FAILED: $*" >&2; fail=$((fail+1)); fi; }

# Every shipped and sample pattern validates.
check "$bin" validate config/patterns/*.ahap ../shared/ahap/*/*.ahap

# A broken file: non-zero exit, one FILE: PATH: message line per problem.
printf '{"Pattern": [{"Event": {"EventType": "Buzz", "Time": -1}}]}' > "$tmp/bad.ahap"
if "$bin" validate "$tmp/bad.ahap" 2> "$tmp/err"; then check false; else check true; fi
check grep -qx "$tmp/bad.ahap: Pattern\[0\].Event.Time: -1.0 is negative; times and durations must be ≥ 0" "$tmp/err"
check test "$(wc -l < "$tmp/err")" -eq 2

# CSV: exact header, and numeric rows.
"$bin" render config/patterns/heartbeat.ahap --step 0.01 --output "$tmp/hb.csv"
check test "$(head -1 "$tmp/hb.csv")" = "time,intensity,sharpness,strong,weak"
check grep -q '^0.000000,1.000000,' "$tmp/hb.csv"

# SVG renders to a picture a person can read.
"$bin" render config/patterns/heartbeat.ahap --format svg --profile dualsense --output "$tmp/hb.svg"
check rsvg-convert "$tmp/hb.svg" -o "$tmp/hb.png"
check test -s "$tmp/hb.png"

# Unknown profile: a clear error.
if "$bin" render config/patterns/click.ahap --profile nope 2> "$tmp/err"; then check false; else check grep -q "unknown profile 'nope'" "$tmp/err"; fi

"$bin" info config/patterns/sos.ahap > "$tmp/info"
check grep -qx "  HapticContinuous: 9" "$tmp/info"

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
