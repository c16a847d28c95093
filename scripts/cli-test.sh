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

# Daemon commands: a clear message (and exit 2) when no daemon runs.
if HAPTICD_SOCKET="$tmp/none.sock" "$bin" ping 2> "$tmp/err"; then check false; else check grep -q "hapticd is not running at $tmp/none.sock" "$tmp/err"; fi

# Against a real daemon on a simulated pad.
daemon="$(dirname "$bin")/hapticd"
printf '[patterns]\ndirectories = ["%s/config/patterns"]\n' "$PWD" > "$tmp/hapticd.toml"
"$daemon" --simulate 2 --socket "$tmp/h.sock" --config "$tmp/hapticd.toml" --trace "$tmp/trace.csv" 2> "$tmp/daemon.log" &
dpid=$!
for _ in $(seq 200); do grep -q "listening on" "$tmp/daemon.log" 2>/dev/null && break; sleep 0.05; done
export HAPTICD_SOCKET="$tmp/h.sock"
check "$bin" ping
check bash -c "'$bin' devices | grep -q 'Simulated rumble pad 1'"
check bash -c "'$bin' patterns | grep -q '^heartbeat'"
check bash -c "'$bin' play click --wait | grep -q 'finished (finished)'"
check bash -c "'$bin' --help >/dev/null"
check bash -c "'$bin' play double-click --device 1 --json | grep -q '\"device\":1'"
check bash -c "'$bin' play config/patterns/thud.ahap --wait | grep -q finished"
if "$bin" play nope 2> "$tmp/err"; then check false; else check grep -q 'no pattern named "nope"' "$tmp/err"; fi
if "$bin" param --player 999 intensity 0.5 2> "$tmp/err"; then check false; else check grep -q "no player 999" "$tmp/err"; fi
check bash -c "'$bin' engine status | grep -q 'engine running'"
check bash -c "'$bin' stop | grep -q 'stopped'"
check bash -c "'$bin' --generate-completion-script bash | grep -q 'hapticctl'"
check bash -c "'$bin' --generate-completion-script zsh | grep -q 'hapticctl'"
check bash -c "grep -q '^time,device,strong,weak' '$tmp/trace.csv'"
kill -TERM "$dpid"; wait "$dpid"; check test $? -eq 0
check test ! -e "$tmp/h.sock"

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
