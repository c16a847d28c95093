#!/usr/bin/env bash
# Runs every test: the Swift unit and end-to-end tests, the command-line checks, the install, the
# Debian package and the service on a booted Debian with systemd (a qemu VM), and the real-kernel
# tests in a qemu VM. Installs what it needs from Debian first. Usage: scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh librsvg2-bin libevdev-dev pkg-config systemd make socat

swift build            # every product: the end-to-end tests run the real hapticd
swift build --build-tests
swift test --skip-build 2>&1 | tee .build/test.log
grep -q "Test run with .* passed" .build/test.log

scripts/cli-test.sh
clients/test.sh        # libhapticd and the Python package against the daemon (before systemd-test: make install builds libhapticd)
scripts/systemd-test.sh
scripts/vm-test.sh
# 1 000 hostile and good clients against the release hapticd (built by make install above): no crash,
# bounded RSS, every motor stopped, every good request answered. Its latency is printed; the p99 bound is
# asserted by `make soak` on a machine that gives the daemon its CPU (docs/robustness.md §2).
scripts/soak.sh --duration 30 --no-p99-assert
scripts/fuzz.sh                 # every fuzzer for 10 s, in a sanitizer build of its own (Fuzzing/.build)
