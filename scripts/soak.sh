#!/usr/bin/env bash
# The soak test (scripts/soak.py, docs/robustness.md): 1 000 good and hostile clients against
# `hapticd --simulate` for a bounded time; asserts no crash, bounded RSS, the well-behaved client's
# ping p99 under 10 ms, and every motor stopped at the end.
#   scripts/soak.sh                 45 s (the short soak of scripts/test.sh)
#   scripts/soak.sh --duration 900  (`make soak`)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh python3
swift build --product hapticd
exec python3 scripts/soak.py --hapticd "$(swift build --show-bin-path)/hapticd" "$@"
