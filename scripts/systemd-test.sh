#!/usr/bin/env bash
# Installs into a temporary prefix with `make install`, checks what landed, and runs
# `systemd-analyze verify` on the installed units and `hapticd --check-config` on the installed config.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh systemd make
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
make install PREFIX="$T/usr" SYSCONFDIR="$T/etc" UNITDIR="$T/units" UDEVDIR="$T/udev" > "$T/install.log" 2>&1 \
  || { cat "$T/install.log"; echo "systemd: make install failed"; exit 1; }
pass=0; fail=0
check() { if "$@"; then pass=$((pass+1)); else echo "FAILED: $*" >&2; fail=$((fail+1)); fi; }
for f in usr/bin/hapticd usr/bin/hapticctl units/hapticd.service units/hapticd.socket udev/70-hapticd.rules \
         etc/hapticd/hapticd.toml usr/share/hapticd/patterns/heartbeat.ahap usr/lib/tmpfiles.d/hapticd.conf \
         usr/lib/sysusers.d/hapticd.conf usr/share/doc/hapticd/PROTOCOL.md; do
  check test -e "$T/$f"
done
check test "$(ls "$T/usr/share/hapticd/patterns" | wc -l)" -ge 11
check grep -q "^ExecStart=$T/usr/bin/hapticd --config $T/etc/hapticd/hapticd.toml" "$T/units/hapticd.service"
check systemd-analyze verify "$T/units/hapticd.socket" "$T/units/hapticd.service"
check "$T/usr/bin/hapticd" --check-config --config "$T/etc/hapticd/hapticd.toml"
check grep -q "^directories = \[\"$T/usr/share/hapticd/patterns\"" "$T/etc/hapticd/hapticd.toml"
# The hardening the issue asks for is in the unit.
for line in "Type=notify" "DynamicUser=yes" "SupplementaryGroups=input" "DevicePolicy=closed" \
            "DeviceAllow=char-input rw" "ProtectSystem=strict"; do
  check grep -qx "$line" "$T/units/hapticd.service"
done
check bash -c "! grep -q '^PrivateDevices=yes' '$T/units/hapticd.service'"
echo "systemd: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
