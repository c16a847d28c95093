#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzzing/ and runs each for a bounded time; fails on any crash,
# trap, assertion, sanitizer report, leak or timeout (docs/robustness.md).
#
#   scripts/fuzz.sh                          every target, 10 s each (the short run of scripts/test.sh)
#   scripts/fuzz.sh --release --time 3600    every target, an hour each (`make fuzz`)
#   scripts/fuzz.sh --release --runs 10000000 json config
#   scripts/fuzz.sh --build-only
#   FUZZ_TIMEOUT=600 chrt --idle 0 scripts/fuzz.sh --release --runs 10000000 daemon
#                                            a long run on idle CPU only (a starved input is not a hang)
# The default build is a debug one (Swift's own assertions too; quickest to build); --release builds
# with -O into Fuzzing/.build-release, 5-10 times more executions per second, for long runs. Both keep
# toml++'s assertions (SwiftPM defines no NDEBUG for C++ in either; checked below on every run).
#
# Targets: json (JSONParser), ahap (AHAPLoader), request (Request.parse), daemon (request lines
# through DaemonCore.handle on simulated pads), config (DaemonConfig.parse: TOMLSyntax, toml++ with
# its assertions on, the key reader).
# Each target starts from its committed seeds (Fuzzing/corpus/NAME, the pattern library, the shipped
# config, and ../shared/ahap when it exists) and keeps what it finds in Fuzzing/.build/fuzz/corpus/NAME
# (kept between runs, never committed). Inputs that once broke something are kept in
# Fuzzing/regressions/NAME/ and replayed first. A crash leaves its input in Fuzzing/.build/fuzz/crashes/NAME/;
# reproduce it with `Fuzzing/.build/debug/fuzz-NAME FILE`. Every run's figures are appended to
# Fuzzing/.build/fuzz/results.tsv, its log is Fuzzing/.build/fuzz/NAME.debug.log (or .release.log).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

time_per_target=10
runs=""
build_only=false
config=debug
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) time_per_target=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --build-only) build_only=true; shift ;;
    --release) config=release; shift ;;
    json|ahap|request|daemon|config) targets+=("$1"); shift ;;
    *) echo "usage: scripts/fuzz.sh [--release] [--time SECONDS | --runs N] [--build-only] [json ahap request daemon config]" >&2; exit 2 ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(json ahap request daemon config)

scripts/deps.sh libevdev-dev libasound2-dev pkg-config

# Coverage (libFuzzer's inline counters) and AddressSanitizer in every Swift module and in toml++.
# `--sanitize` alone is not enough: given twice, swiftc keeps only the last `-sanitize=` (no coverage),
# so the combined flag goes to swiftc as well; `--sanitize=fuzzer` makes SwiftPM link libFuzzer's main.
build=(swift build --package-path Fuzzing -c "$config")
[ "$config" = release ] && build+=(--scratch-path Fuzzing/.build-release)
start=$(date +%s)
"${build[@]}" --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address
bin=$("${build[@]}" --show-bin-path)
echo "fuzz build ($config): $(( $(date +%s) - start )) s"
$build_only && exit 0

work=Fuzzing/.build/fuzz
mkdir -p "$work"
# libFuzzer reports crashes itself; Swift's backtracer would only hold the process up.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/Fuzzing/lsan.supp:print_suppressions=0}

# toml++'s assertions are live in this build: `[[[` given to it directly (bypassing TOMLSyntax) must
# abort with its assertion. Without this the config target would prove nothing.
printf '[[[' > "$work/raw-toml-assert"
if out=$(HAPTICD_FUZZ_RAW_TOML=1 "$bin/fuzz-config" "$work/raw-toml-assert" 2>&1); then
  echo "FAIL: toml++ did not assert on '[[[' without the syntax check: its assertions are not enabled" >&2
  exit 1
fi
grep -q "Assertion .* failed" <<<"$out" || { echo "FAIL: expected toml++'s assertion, got:" >&2; echo "$out" | tail -5 >&2; exit 1; }
echo "toml++ assertions are enabled (its own '[[[' assertion fires when the syntax check is bypassed)"

seed() {  # seed NAME: fills the working corpus from every seed source
  local name=$1 dir=$work/corpus/$1
  mkdir -p "$dir"
  cp -n Fuzzing/corpus/"$name"/* "$dir"/ 2>/dev/null || true
  cp -n Fuzzing/regressions/"$name"/* "$dir"/ 2>/dev/null || true
  case "$name" in
    json|ahap)
      cp -n config/patterns/*.ahap "$dir"/
      cp -n config/patterns/*.haptic "$dir"/ 2>/dev/null || true
      # Real files beside the project (../shared/ahap; ../../shared/ahap from a git worktree).
      for shared in ../shared/ahap ../../shared/ahap; do
        if [ -d "$shared" ]; then find "$shared" -name '*.ahap' -exec cp -n {} "$dir"/ \; ; break; fi
      done ;;
    config)
      cp -n config/hapticd.toml "$dir"/shipped.toml
      # The shipped file with every setting uncommented: every key at its default.
      sed -E 's/^#([a-z"\[])/\1/' config/hapticd.toml > "$dir"/shipped-uncommented.toml ;;
  esac
}

declare -A max_len=([json]=4096 [ahap]=16384 [request]=4096 [daemon]=8192 [config]=8192)
declare -A dict=([json]=json [ahap]=ahap [request]=request [daemon]=request [config]=toml)
# TOMLKit leaks on every parse (Fuzzing/lsan.supp): libFuzzer's per-input leak check would then run
# LeakSanitizer after every input (50 times slower). For the config target leaks are checked once, at
# exit, with TOMLKit's own suppressed — a leak of hapticd's on that path still fails the run. The
# leaked bytes (~650 per input) add up, though: after ~3 M inputs one process passes libFuzzer's
# 2 GB RSS limit. So the config target runs in processes of at most a million inputs each, one after
# another on the same corpus, until the time or the runs asked for are spent.
declare -A extra=([json]= [ahap]= [request]= [daemon]= [config]=-detect_leaks=0)
declare -A chunk=([json]= [ahap]= [request]= [daemon]= [config]=1000000)

stamp=$(mktemp "$work/.started.XXXXXX")  # crash files newer than this are this run's
trap 'rm -f "$stamp"' EXIT
status=0
summary=()
for name in "${targets[@]}"; do
  seed "$name"
  # Inputs that once broke something (Fuzzing/regressions/NAME/): each must now run clean.
  if compgen -G "Fuzzing/regressions/$name/*" > /dev/null; then
    if ! "$bin/fuzz-$name" Fuzzing/regressions/"$name"/* > "$work/$name.$config.regressions.log" 2>&1; then
      status=1
      echo "FAIL: fuzz-$name: a regression input fails again:" >&2
      grep -vE '^INFO:' "$work/$name.$config.regressions.log" | head -40 >&2
    fi
  fi
  mkdir -p "$work/crashes/$name"
  log=$work/$name.$config.log  # by build: a short debug run may go on beside a long release one
  : > "$log"
  if [ -n "$runs" ]; then echo "== fuzz-$name: $runs runs"; else echo "== fuzz-$name: $time_per_target s"; fi
  t0=$(date +%s)
  execs=0 rss=0 rc=0 processes=0
  while :; do
    if [ -n "$runs" ]; then
      n=$(( runs - execs ))
      [ $n -gt 0 ] || break
      [ -n "${chunk[$name]}" ] && [ $n -gt "${chunk[$name]}" ] && n=${chunk[$name]}
      limit=(-runs="$n")
    else
      left=$(( time_per_target - ($(date +%s) - t0) ))
      [ $left -gt 0 ] || break
      limit=(-max_total_time="$left")
      [ -n "${chunk[$name]}" ] && limit+=(-runs="${chunk[$name]}")
    fi
    set +e
    "$bin/fuzz-$name" "${limit[@]}" -max_len="${max_len[$name]}" -dict="Fuzzing/dict/${dict[$name]}.dict" \
      ${extra[$name]} -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/crashes/$name/" \
      "$work/corpus/$name" > "$log.part" 2>&1
    rc=$?
    set -e
    cat "$log.part" >> "$log"
    processes=$(( processes + 1 ))
    e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log.part" | tail -1)
    r=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log.part" | tail -1)
    execs=$(( execs + ${e:-0} ))
    [ "${r:-0}" -gt "$rss" ] && rss=$r
    # One process did the whole budget unless the target runs in chunks; an empty chunk would loop.
    [ $rc -eq 0 ] && [ -n "${chunk[$name]}" ] && [ "${e:-0}" -gt 0 ] || break
  done
  rm -f "$log.part"
  elapsed=$(( $(date +%s) - t0 ))
  speed=$(( execs / (elapsed > 0 ? elapsed : 1) ))
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
  corp=$(sed -nE 's/.* corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p' <<<"$last")
  crashes=$(find "$work/crashes/$name" -type f -newer "$stamp" | wc -l)
  if [ $rc -ne 0 ]; then
    status=1
    echo "FAIL: fuzz-$name exited $rc; its input is in $work/crashes/$name/ — the report:" >&2
    grep -vE '^#[0-9]+|^INFO:' "$log" | head -60 >&2
  fi
  line="fuzz-$name ($config)	$execs execs	$speed/s	${elapsed} s	$processes process(es)	cov ${cov:-?}	ft ${ft:-?}	corpus ${corp:-?}	peak rss $rss MB	exit $rc	new crash files $crashes"
  summary+=("$line")
  printf '%s\t%s\n' "$(date -u +%FT%TZ)" "$line" >> "$work/results.tsv"
done

echo
echo "== fuzzing summary (cov: edges covered, ft: features, corpus: inputs/bytes)"
printf '%s\n' "${summary[@]}"
exit $status
