#!/usr/bin/env bash
# Runs every test: the Swift unit and integration tests, then the command-line checks.
# Installs what it needs from Debian first. Usage: scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh librsvg2-bin

swift build --build-tests
swift test --skip-build 2>&1 | tee .build/test.log
grep -q "Test run with .* passed" .build/test.log

scripts/cli-test.sh
