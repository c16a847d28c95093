#!/usr/bin/env bash
# The soak test (scripts/soak.py, docs/robustness.md §2): 1 000 good and hostile clients against
# `hapticd --simulate` for a bounded time; asserts no crash, bounded RSS, the well-behaved client's
# ping p99 under 10 ms, and every motor stopped at the end.
#   scripts/soak.sh                 45 s
#   scripts/soak.sh --duration 30 --p99-limit 50   (the short soak of scripts/test.sh)
#   scripts/soak.sh --duration 600  (`make soak`)
# It runs the release build, as installed (`make build`): a debug hapticd is several times slower
# per request, and its latency under 1 000 clients says nothing about the daemon people run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh python3
scripts/deps.sh make libevdev-dev libasound2-dev pkg-config
make build   # the binaries as installed (static Swift runtime), shared with make install and make deb
exec python3 scripts/soak.py --hapticd "$(swift build -c release --show-bin-path)/hapticd" "$@"
