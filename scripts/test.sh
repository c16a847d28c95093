#!/usr/bin/env bash
# Runs every test: the Swift unit and end-to-end tests, the command-line checks, the install, the
# Debian package and the service on a booted Debian with systemd (a qemu VM), and the real-kernel
# tests in a qemu VM. Installs what it needs from Debian first. Usage: scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh librsvg2-bin libevdev-dev libasound2-dev pkg-config systemd make socat mono-mcs mono-runtime binutils

swift build            # every product: the end-to-end tests run the real hapticd
swift build --build-tests
swift test --skip-build 2>&1 | tee .build/test.log
grep -q "Test run with .* passed" .build/test.log

scripts/cli-test.sh
clients/test.sh        # libhapticd and the Python package against the daemon
scripts/bindings-test.sh  # hapticctl, libhapticd and the Python clients against the command declarations
scripts/examples-test.sh  # examples/swift, iOS-style Core Haptics code, against the daemon
Tests/Unity/run.sh     # make unity; the Unity plug-in's library from C (dlopen) and Mono against the daemon
scripts/vm-test.sh
# 1 000 hostile and good clients against the release hapticd: no crash, bounded RSS, every motor
# stopped, every good request answered, and a well-behaved client's ping p99 under a regression guard
# (the issue's 10 ms is `make soak`'s bound; the figures and why: docs/robustness.md §2). Alone on
# the machine: its latency is the point.
scripts/soak.sh --duration 30 --p99-limit 50

# The package and the booted Debian (scripts/systemd-test.sh) run beside the fuzzers: the fuzzers are
# one process at a time and the booted system's timing is not judged (its VM has two emulated CPUs,
# which share the cores), so the booted-system test adds only what it outlasts them by
# (docs/packaging.md). Their Debian packages are installed first, so
# that the two never run apt at once.
scripts/deps.sh systemd make dpkg-dev debhelper lintian pkg-config libevdev-dev libasound2-dev libjansson-dev gcc libc6-dev \
  qemu-system-x86 busybox-static debootstrap e2fsprogs kmod
mkdir -p .build
start=$(date +%s)
scripts/systemd-test.sh > .build/systemd-test.log 2>&1 &
systemd_pid=$!
fuzz_status=0
scripts/fuzz.sh || fuzz_status=$?   # every fuzzer for 10 s, in a sanitizer build of its own (Fuzzing/.build)
fuzz_end=$(date +%s)
systemd_status=0
wait "$systemd_pid" || systemd_status=$?
echo
echo "== scripts/systemd-test.sh (ran beside the fuzzers; it outlasted them by $(( $(date +%s) - fuzz_end )) s of its $(( $(date +%s) - start )) s)"
cat .build/systemd-test.log
[ "$fuzz_status" -eq 0 ] || { echo "FAIL: scripts/fuzz.sh exited $fuzz_status" >&2; exit 1; }
[ "$systemd_status" -eq 0 ] || { echo "FAIL: scripts/systemd-test.sh exited $systemd_status" >&2; exit 1; }
