#!/usr/bin/env bash
# The clients against the command declarations (issue 23 §3). Each client — hapticctl, libhapticd (C),
# the Python package's Client and its asyncio AsyncClient — calls every one of its request-sending
# functions with every optional argument given (scripts/bindings/), against a simulated daemon that
# records what it receives (HAPTICD_RECORD_REQUESTS). scripts/bindings-check.py then checks those
# requests against `hapticd --dump-protocol`: the same argument names and types, and every declared
# command and argument sent, unless clients/bindings-exceptions.txt says why not.
# Needs the daemon built (swift build). Usage: scripts/bindings-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh gcc libc6-dev make pkg-config libjansson-dev python3
bin="$(swift build --show-bin-path)"
export HAPTICD="${HAPTICD:-$bin/hapticd}"
rec="$(mktemp -d)"; trap 'kill "$dpid" 2>/dev/null || true; rm -rf "$rec"' EXIT
dpid=""

# Starts a daemon on one simulated pad that records to $rec/$1; $sock is its socket.
start_daemon() {
  sock="$rec/$1.sock"
  printf '[patterns]\ndirectories = ["%s/config/patterns"]\n' "$PWD" > "$rec/hapticd.toml"
  HAPTICD_RECORD_REQUESTS="$rec/$1" "$HAPTICD" --simulate 1 --socket "$sock" --config "$rec/hapticd.toml" 2> "$rec/$1.log" &
  dpid=$!
  for _ in $(seq 200); do grep -q "listening on" "$rec/$1.log" 2>/dev/null && return; sleep 0.05; done
  echo "FAIL: hapticd did not start:" >&2; cat "$rec/$1.log" >&2; exit 1
}
stop_daemon() { kill -TERM "$dpid"; wait "$dpid" || true; dpid=""; }

"$HAPTICD" --dump-protocol > "$rec/protocol.json"

# The check itself fails on a wrong type, an undeclared member and a command never sent.
printf 'ok\t{"id":1,"cmd":"player.seek","player":1,"offset":"x","ofset":1}\n' > "$rec/bad"
if python3 scripts/bindings-check.py "$rec/protocol.json" /dev/null bad="$rec/bad" > "$rec/bad.out" 2>&1; then
  echo "FAIL: bindings-check.py passed a bad recording" >&2; exit 1
fi
grep -q 'bad: player.seek sent "offset" as "x", not number' "$rec/bad.out"
grep -q 'bad: player.seek sent "ofset", which player.seek does not declare' "$rec/bad.out"
grep -q 'bad: never sends ping' "$rec/bad.out"

# hapticctl: every daemon command it has, every option given. A player made by one invocation is gone
# when it exits (its connection closes): the commands on players are refused, but they were sent.
start_daemon hapticctl
ctl() { timeout -s INT 5 "$bin/hapticctl" "$@" --socket "$sock" > /dev/null 2>&1 || true; }
ctl ping; ctl version; ctl devices; ctl patterns; ctl caps --device 0
ctl play heartbeat --device 0 --locality default --rate 1.5
# Loops until killed: killed once its request is recorded (at most 10 s), not after a set time. TERM:
# a job started with & in a script ignores SIGINT.
"$bin/hapticctl" play heartbeat --loop --socket "$sock" > /dev/null 2>&1 & looper=$!
for _ in $(seq 200); do grep -q '"loop":true' "$rec/hapticctl" 2>/dev/null && break; sleep 0.05; done
kill "$looper" 2>/dev/null || true; wait "$looper" 2>/dev/null || true
ctl play config/patterns/heartbeat.ahap --device 0
# A pattern over the inline bound goes in pieces (pattern.upload) and is named by `upload`.
python3 -c 'import json; print(json.dumps({"Pattern": [{"Event": {"Time": i / 100, "EventType": "HapticTransient"}} for i in range(4000)]}))' > "$rec/long.ahap"
ctl play "$rec/long.ahap" --device 0
ctl create "$rec/long.ahap"
ctl create heartbeat --device 0 --locality default --basic
ctl create config/patterns/heartbeat.ahap
for verb in start pause resume stop; do ctl "$verb" --player 1 --at 1; ctl "$verb" --player 1 --after 0.01; done
ctl stop
ctl cancel --player 1; ctl seek --player 1 0.1
ctl set --player 1 --loop on --loop-end 0.5 --rate 1.5 --mute off
ctl param --player 1 intensity 0.5 --at 1; ctl param --player 1 intensity 0.5 --after 0.01
ctl curve --player 1 intensity 0:0.5 0.1:1 --at 1; ctl curve --player 1 intensity 0:0.5 0.1:1 --after 0.01
ctl destroy --player 1
ctl feedback impact heavy --intensity 0.5 --device 0 --locality default
ctl prepare --device 0 --locality default
ctl rumble 0.5 0.5 --for 0.2 --delay 0.1 --device 0
ctl watch --events player.finished --seconds 0.1
ctl gain 1 --device 0
for action in status start stop reset; do ctl engine "$action" --device 0 --locality default; done
stop_daemon

start_daemon c
make -s -C clients/c > /dev/null
cc scripts/bindings/exercise.c -Iclients/c/include clients/c/build/libhapticd.a $(pkg-config --libs jansson) -o "$rec/exercise"
"$rec/exercise" "$sock"
stop_daemon

for mode in sync asyncio; do
  start_daemon "python-$mode"
  PYTHONPATH=clients/python /usr/bin/python3 scripts/bindings/exercise.py "$mode" "$sock"
  stop_daemon
done

python3 scripts/bindings-check.py "$rec/protocol.json" clients/bindings-exceptions.txt \
  hapticctl="$rec/hapticctl" c="$rec/c" python="$rec/python-sync" python-asyncio="$rec/python-asyncio"
