#!/usr/bin/env bash
# Checks hapticctl as a user runs it: exit codes, output formats, error lines.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(swift build --show-bin-path)/hapticctl"
tmp="$(mktemp -d)"
# A check that fails half-way leaves no daemon or client of this script running.
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
pass=0; fail=0
check() { if "$@"; then pass=$((pass+1)); else echo "FAILED: $*" >&2; fail=$((fail+1)); fi; }
# Waits (at most 10 s) until FILE has a line matching the grep pattern PATTERN.
wait_for() { for _ in $(seq 200); do grep -q -- "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done; return 1; }

# Every shipped and sample pattern validates (the samples in ../shared when the checkout has them).
samples=(); [ -d ../shared/ahap ] && samples=(../shared/ahap)
check "$bin" validate config/patterns "${samples[@]}"

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

# A directory is searched recursively for .ahap and .haptic files, with a summary line on stdout.
mkdir -p "$tmp/corpus/deep/er"
cp config/patterns/heartbeat.ahap "$tmp/corpus/"
printf '{"Pattern": [{"Event": {"EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 2}]}}]}' > "$tmp/corpus/deep/clamped.ahap"
printf '{"Pattern": [{"Event": {"EventType": "Buzz"}}]}' > "$tmp/corpus/deep/er/bad.ahap"
clip="$tmp/corpus/deep/er/clip.haptic"
cat > "$clip" <<'CLIP'
{"version": {"major": 1, "minor": 0, "patch": 0}, "metadata": {"editor": "Meta Haptics Studio 2.1", "description": "a ramp"},
 "signals": {"continuous": {"envelopes": {
   "amplitude": [{"time": 0, "amplitude": 0}, {"time": 0.3, "amplitude": 0.9}, {"time": 0.6, "amplitude": 0.2}],
   "frequency": [{"time": 0, "frequency": 0.2}, {"time": 0.6, "frequency": 0.9}]}}}}
CLIP
echo 'not a pattern' > "$tmp/corpus/deep/notes.txt"
if "$bin" validate "$tmp/corpus" > "$tmp/out" 2> "$tmp/err"; then check false; else check true; fi
check grep -qx "3 loaded, 1 with warnings, 1 rejected" "$tmp/out"
check grep -q "clamped.ahap: Pattern\[0\].Event.EventParameters\[0\].ParameterValue: warning: 2.0 clamped to 1.0" "$tmp/err"
check grep -q "bad.ahap: Pattern\[0\].Event.EventType: unknown event type" "$tmp/err"

# .haptic clips everywhere AHAP goes: info, render, convert both ways.
check bash -c "'$bin' info '$clip' | grep -qx 'Format: .haptic (Meta Haptics Studio / Lofelt)'"
check bash -c "'$bin' render '$clip' --step 0.1 | grep -q '^0.300000,0.900000,'"
"$bin" render "$clip" --format svg --output "$tmp/clip.svg"
check rsvg-convert "$tmp/clip.svg" -o "$tmp/clip.png"
check "$bin" convert "$clip" "$tmp/clip.ahap"
check bash -c "'$bin' validate '$tmp/clip.ahap' | grep -qx '1 loaded, 0 with warnings, 0 rejected'"
check bash -c "cmp <('$bin' render '$clip' --step 0.01) <('$bin' render '$tmp/clip.ahap' --step 0.01)"
"$bin" convert config/patterns/heartbeat.ahap "$tmp/hb.haptic" 2> "$tmp/err"
check grep -q "hb.haptic: Pattern: warning: .haptic has no" "$tmp/err"
check bash -c "'$bin' info '$tmp/hb.haptic' | grep -q 'Format: .haptic'"
if "$bin" convert "$clip" "$tmp/clip.txt" 2> "$tmp/err"; then check false; else check grep -q "name it .ahap or .haptic" "$tmp/err"; fi

# Hostile times (issue 8): an event at 1e9 s is an error naming its path, not a 2 TB allocation;
# one within the horizon but far out is refused with a way out, and renders in a window.
printf '{"Pattern": [{"Event": {"EventType": "HapticTransient", "Time": 1e9}}]}' > "$tmp/far.ahap"
set +e; "$bin" render "$tmp/far.ahap" > /dev/null 2> "$tmp/err"; rc=$?; set -e
check test "$rc" -eq 1
check grep -q "Pattern\[0\].Event.Time: 1000000000.000 s is past the pattern time limit of 86400 s" "$tmp/err"
printf '{"Pattern": [{"Event": {"EventType": "HapticTransient", "Time": 86000}}]}' > "$tmp/late.ahap"
set +e; "$bin" render "$tmp/late.ahap" --output "$tmp/late.csv" 2> "$tmp/err"; rc=$?; set -e
check test "$rc" -eq 1
check grep -q "over the limit of 10000000: choose a window with --from/--to, a larger --step" "$tmp/err"
check test ! -e "$tmp/late.csv"
check bash -c "'$bin' render '$tmp/late.ahap' --from 85999.99 --to 86000.01 --step 0.005 | grep -q '^86000.000000,1.000000,'"
check bash -c "'$bin' render '$tmp/late.ahap' --format svg --from 85990 --to 86010 | grep -q 'shown 85990.000–86010.000 s'"

# HD rumble (a hidraw profile): the plot in docs/rendering.md §13 is what render draws today, the CSV
# carries each band's frequency and amplitude, and info says which frequencies the events span.
check bash -c "cd docs/images && '$bin' render hd-rumble-sweep.ahap --profile switch-pro-usb-hd --format svg | cmp -s - hd-rumble-sweep.svg"
check bash -c "'$bin' render docs/images/hd-rumble-sweep.ahap --profile switch-pro-usb-hd --from 1 --to 1.001 --step 0.001 | grep -q '^1.000000,1.000000,0.500000,.*,160.0,0.5000,320.0,0.5000$'"
check bash -c "'$bin' info docs/images/hd-rumble-sweep.ahap --profile switch-pro-usb-hd | grep -q 'HD rumble: events.* sharpness 0.00–1.00: low band 80–320 Hz, high band 160–640 Hz'"

# A file over --max-file-bytes: only a little past the limit is read, and the message gives the
# file's real size (a device, which has none, is "larger than" the limit).
{ printf '{"Pattern": []}'; head -c 200000 /dev/zero | tr '\0' ' '; } > "$tmp/big.ahap"
set +e; "$bin" info "$tmp/big.ahap" --max-file-bytes 100 2> "$tmp/err"; rc=$?; set -e
check test "$rc" -eq 1
check grep -qx "$tmp/big.ahap: \$: the file is 200015 bytes, over the pattern file limit of 100 bytes" "$tmp/err"
if "$bin" validate /dev/zero --max-file-bytes 100 > /dev/null 2> "$tmp/err"; then check false; else
  check grep -qx '/dev/zero: \$: the file is larger than the pattern file limit of 100 bytes' "$tmp/err"; fi
check bash -c "'$bin' info '$tmp/big.ahap' --max-file-bytes 200015 | grep -qx 'Format: AHAP'"

# Unknown profile: a clear error.
if "$bin" render config/patterns/click.ahap --profile nope 2> "$tmp/err"; then check false; else check grep -q "unknown profile 'nope'" "$tmp/err"; fi

"$bin" info config/patterns/sos.ahap > "$tmp/info"
check grep -qx "  HapticContinuous: 9" "$tmp/info"

# hapticctl(1), made by the Makefile's `generated` target (in a debug build), says what --help says:
# generate-manual drops non-ASCII characters, so "0…1" came out as "01" and "8000–192000" as
# "8000192000". Every non-ASCII character of the help is in the page as a roff escape, and groff
# renders the page in UTF-8 and in ASCII without a character it cannot show.
check make -s generated SWIFT_BUILD="swift build" GEN="$tmp/gen" > "$tmp/make.log" 2>&1
page="$tmp/gen/man/hapticctl.1"
check grep -qF 'Names: intensity (0\[u2026]1, multiplies), sharpness, attack, decay, release (\[u2212]1\[u2026]1, add)' "$page"
check grep -qF 'WAV sample rate in Hz (8000\[u2013]192000).' "$page"
"$bin" --experimental-dump-help | perl -CS -ne 'printf "%04X\n", ord($1) while /([^\x00-\x7F])/g' | sort -u > "$tmp/help-chars"
perl -ne 'print "$1\n" while /\\\[u([0-9A-F]+)\]/g' "$page" | sort -u > "$tmp/page-chars"
check test -s "$tmp/help-chars"
check cmp -s "$tmp/help-chars" "$tmp/page-chars"
if command -v groff > /dev/null; then
  LC_ALL=C.UTF-8 groff -mdoc -Tutf8 -P-cbou -ww "$page" > "$tmp/man.utf8" 2> "$tmp/man.err"
  check grep -q 'Names: intensity (0…1, multiplies)' "$tmp/man.utf8"
  check grep -q 'WAV sample rate in Hz (8000–192000)\.' "$tmp/man.utf8"
  LC_ALL=C groff -mdoc -Tascii -P-cbou -ww "$page" > "$tmp/man.ascii" 2>> "$tmp/man.err"
  check grep -q 'Names: intensity (0\.\.\.1, multiplies)' "$tmp/man.ascii"
  check grep -q 'WAV sample rate in Hz (8000-192000)\.' "$tmp/man.ascii"
  check test ! -s "$tmp/man.err"
fi

# Daemon commands: a clear message (and exit 2) when no daemon runs.
if HAPTICD_SOCKET="$tmp/none.sock" "$bin" ping 2> "$tmp/err"; then check false; else check grep -q "hapticd is not running at $tmp/none.sock" "$tmp/err"; fi

# Against a real daemon on a simulated pad.
daemon="$(dirname "$bin")/hapticd"
mkdir -p "$tmp/library"
cp "$clip" "$tmp/library/ramp.haptic"
printf '[patterns]\ndirectories = ["%s/config/patterns", "%s/library"]\n' "$PWD" "$tmp" > "$tmp/hapticd.toml"
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
# A .haptic clip in the library, and one played from a file (sent inline as the AHAP that holds it
# exactly): both play to their end.
check bash -c "'$bin' patterns | grep -q '^ramp.*a ramp'"
check bash -c "'$bin' play ramp --wait | grep -q 'finished (finished)'"
check bash -c "'$bin' play '$clip' --wait | grep -q 'finished (finished)'"
if "$bin" play nope 2> "$tmp/err"; then check false; else check grep -q 'no pattern named "nope"' "$tmp/err"; fi
# A number JSON cannot carry is refused before anything is sent (it was sent as null, which the
# daemon read as "not given": --rate nan played at the default rate), as a usage error (64, as
# ArgumentParser's; 2 is "not running").
for args in "play click --rate nan" "feedback impact heavy --intensity inf" "gain nan" "rumble 0.5 inf"; do
  set +e; "$bin" $args > "$tmp/out" 2> "$tmp/err"; rc=$?; set -e
  check test "$rc" -eq 64
  check grep -Eq '^hapticctl: (rate|intensity|gain|weak) \((nan|inf|-inf)\) is not a finite number: nothing was sent$' "$tmp/err"
  check test ! -s "$tmp/out"
done
# Found before connecting: without a daemon too, the value's fault, not "not running".
set +e; HAPTICD_SOCKET="$tmp/none.sock" "$bin" play click --rate nan 2> "$tmp/err"; rc=$?; set -e
check test "$rc" -eq 64
check grep -q "rate (nan) is not a finite number" "$tmp/err"
set +e; "$bin" watch --seconds -1 2> "$tmp/err"; rc=$?; set -e
check test "$rc" -eq 64
check grep -q -- "--seconds must be a number of seconds > 0" "$tmp/err"
# A negative number after an option is its value, not an option: the daemon's own message for it.
set +e; "$bin" rumble 0.5 0.5 --for -1 2> "$tmp/err"; rc=$?; set -e
check test "$rc" -eq 1
check grep -q '"duration" must be > 0' "$tmp/err"
# A song-length export (1.9 MB as written, 8 000 transients: over the daemon's 1 MiB request line)
# plays whole: hapticctl sends it in pieces (pattern.upload). Its duration says every event arrived.
python3 -c 'import json; print(json.dumps({"Version": 1, "Pattern": [{"Event": {"Time": i / 100, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8}]}} for i in range(8000)]}, indent=2))' > "$tmp/song.ahap"
check test "$(stat -c %s "$tmp/song.ahap")" -gt 1900000
check bash -c "'$bin' play '$tmp/song.ahap' --device 1 --json | grep -q '\"duration\":79.99'"
# A path that is not there is a file that cannot be read, not a library name that is not found.
for missing in "$tmp/missing.ahap" missing/x.haptic gone.json; do
  set +e; "$bin" play "$missing" 2> "$tmp/err"; rc=$?; set -e
  check test "$rc" -eq 1
  check grep -qx "$missing: \$: cannot read the file: no such file" "$tmp/err"
done
if "$bin" create "$tmp/missing.ahap" 2> "$tmp/err"; then check false; else check grep -q "cannot read the file: no such file" "$tmp/err"; fi
if "$bin" param --player 999 intensity 0.5 2> "$tmp/err"; then check false; else check grep -q "no player 999" "$tmp/err"; fi
check bash -c "'$bin' engine status | grep -q 'engine running'"
check bash -c "'$bin' stop | grep -q 'stopped'"
check bash -c "'$bin' --generate-completion-script bash | grep -q 'hapticctl'"
check bash -c "'$bin' --generate-completion-script zsh | grep -q 'hapticctl'"
check bash -c "grep -q '^time,device,strong,weak' '$tmp/trace.csv'"
# A Meta Haptics Studio clip with emphasis, played through the daemon (sent as the clip itself with
# "format": "haptic", since AHAP cannot hold it exactly): its emphasis reaches the pad at full scale.
cat > "$tmp/clip.haptic" <<'CLIP'
{"version": {"major": 1, "minor": 0, "patch": 0},
 "signals": {"continuous": {"envelopes": {
   "amplitude": [{"time": 0, "amplitude": 0.2}, {"time": 0.1, "amplitude": 0.2, "emphasis": {"amplitude": 1.0, "frequency": 0.0}}, {"time": 0.3, "amplitude": 0.2}],
   "frequency": [{"time": 0, "frequency": 0.0}, {"time": 0.3, "frequency": 0.0}]}}}}
CLIP
check bash -c "'$bin' play '$tmp/clip.haptic' --device 1 --wait | grep -q finished"
check bash -c "awk -F, '\$2 == 1 && \$3 == 65535' '$tmp/trace.csv' | grep -q ."
# Localities, feedback, capabilities and plain rumble from the command line.
check bash -c "'$bin' caps --device 1 | grep -q 'leftHandle, rightHandle'"
check bash -c "'$bin' caps --device 1 | grep -q 'motors  *strong (left, low: leftHandle), weak (right, high: rightHandle)$'"
check bash -c "'$bin' feedback notification error --device 1 | grep -q notification-error"
check bash -c "'$bin' rumble 0.5 0.5 --for 0.1 --device 1 | grep -q finished"
# 0 0 stops this connection's rumble: a new run has none, and says so ({"stopped":false}).
check bash -c "'$bin' rumble 0 0 --device 1 | grep -qx 'nothing to stop: this connection had no rumble playing'"
check bash -c "'$bin' rumble 0 0 --device 1 --json | grep -qx '{\"stopped\":false}'"
if "$bin" play click --locality leftTrigger 2> "$tmp/err"; then check false; else check grep -q "unsupported" "$tmp/err"; fi
# Into a file or a pipe, watch prints each event as it comes (standard output is line-buffered), not
# when it ends.
"$bin" watch --events device.output > "$tmp/watch.out" 2>&1 &
wpid=$!
check wait_for "$tmp/watch.out" '^watching \["device.output"\]'
"$bin" play click --device 1 --wait > /dev/null
check wait_for "$tmp/watch.out" '"event":"device.output","device":1'
kill "$wpid"; wait "$wpid" || true
kill -TERM "$dpid"; wait "$dpid"; check test $? -eq 0
check test ! -e "$tmp/h.sock"

# A daemon that goes away under its clients (SIGKILL, then SIGTERM): each client waiting on it says
# that the connection is gone and exits 1 at once, instead of exiting 0 as if the pattern had ended
# (or, watch, spinning on the dead connection for ever, or until --seconds ran out).
# Each runs under timeout, so that a hang fails rather than blocks; slowed patterns (--rate) and long
# rumbles are still playing when their daemon goes.
start_daemon() {  # NAME [CONFIG]
  "$daemon" --simulate 1 --socket "$tmp/$1.sock" --config "${2:-$tmp/hapticd.toml}" 2> "$tmp/$1.log" &
  dpid=$!
  wait_for "$tmp/$1.log" "listening on"
}
# Starts `hapticctl ARGS...` on the daemon of SOCKET as client NAME, and waits for its line READY.
declare -A client_pid
client() {
  local name="$1" sock="$2" ready="$3"; shift 3
  HAPTICD_SOCKET="$tmp/$sock.sock" timeout 30 "$bin" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err" &
  client_pid[$name]=$!
  check wait_for "$tmp/$name.out" "$ready"
}
# Client NAME exited 1, with the lost connection named on standard error.
lost() {
  set +e; wait "${client_pid[$1]}"; local rc=$?; set -e
  check test "$rc" -eq 1
  check grep -q "^hapticctl: the connection to hapticd is gone" "$tmp/$1.err"
}

# param takes negative values as they stand, options before or after the pairs, as README and its
# help show (the parser took -0.2 for an option). A daemon that keeps a player when its hapticctl run
# ends, so that the next runs can steer it.
printf '[clients]\nstop_players_on_disconnect = false\n' | cat "$tmp/hapticd.toml" - > "$tmp/keep.toml"
check start_daemon keep "$tmp/keep.toml"
export HAPTICD_SOCKET="$tmp/keep.sock"
player="$("$bin" create rumble-long | sed -n 's/^player \([0-9]*\) .*/\1/p')"
check test -n "$player"
check bash -c "'$bin' param --player '$player' intensity 0.5 sharpness -0.2 | grep -q '^player $player on device 0'"
check bash -c "'$bin' param intensity 0.5 sharpness -0.2 --player '$player' --after 0.01 | grep -q '^player $player '"
check bash -c "'$bin' param --player '$player' -- attack -1 release -.5 | grep -q '^player $player '"
check bash -c "'$bin' curve --player '$player' sharpness 0:-0.5 0.1:0.5 | grep -q '^player $player '"
# A negative value reaches the daemon, which says where it is out of range; a mistyped option is still one.
set +e; "$bin" param --player "$player" intensity -0.5 2> "$tmp/err"; rc=$?; set -e
check test "$rc" -eq 1
check grep -q 'parameter "intensity" must be within 0.0…1.0, not -0.5' "$tmp/err"
set +e; "$bin" param --player "$player" intensity 0.5 --plyer 4 2> "$tmp/err"; rc=$?; set -e
check test "$rc" -eq 64
check grep -q "Unknown option '--plyer'" "$tmp/err"
kill -TERM "$dpid"; wait "$dpid" || true

for signal in KILL TERM; do
  check start_daemon "gone-$signal"
  client "wait-$signal" "gone-$signal" "^playing rumble-long" play rumble-long --wait --rate 0.05
  client "bars-$signal" "gone-$signal" "^device 0  strong" play sos --bars --rate 0.05
  client "loop-$signal" "gone-$signal" "^looping" play rumble-short --loop
  client "rumble-$signal" "gone-$signal" "^rumbling" rumble 0.5 0.5 --for 60
  client "watch-$signal" "gone-$signal" "^watching" watch
  client "watch-for-$signal" "gone-$signal" "^watching" watch --seconds 20
  kill -"$signal" "$dpid"; { wait "$dpid"; } 2> /dev/null || true   # no "Killed" line
  for name in wait bars loop rumble watch watch-for; do lost "$name-$signal"; done
  check test "$(grep -c finished "$tmp/wait-$signal.out")" -eq 0
done

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
