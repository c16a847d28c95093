#!/usr/bin/env bash
# The install and the package, on the host: `make install` into a temporary prefix (what landed, the
# paths substituted, `systemd-analyze verify`, `hapticd --check-config`, the man page against
# `hapticd --help`), then `make deb` (contents, dependencies, maintainer scripts, version) and
# lintian on it. Then the same package and a `make install` tree go to a booted Debian with systemd:
# scripts/systemd-vm-test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh systemd make dpkg-dev debhelper lintian pkg-config libevdev-dev
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
pass=0; fail=0
version=$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/HapticDaemon/DaemonCore.swift)
check() { if "$@"; then pass=$((pass+1)); else echo "FAILED: $*" >&2; fail=$((fail+1)); fi; }

# 1. make install into an unusual prefix: every path in the installed files follows it.
make install PREFIX="$T/usr" SYSCONFDIR="$T/etc" UNITDIR="$T/units" > "$T/install.log" 2>&1 \
  || { cat "$T/install.log"; echo "systemd: make install failed"; exit 1; }
for f in usr/bin/hapticd usr/bin/hapticctl units/hapticd.service units/hapticd.socket \
         etc/hapticd/hapticd.toml etc/hapticd/patterns usr/share/hapticd/patterns/heartbeat.ahap \
         usr/lib/tmpfiles.d/hapticd.conf usr/lib/sysusers.d/hapticd.conf usr/share/doc/hapticd/PROTOCOL.md \
         usr/share/man/man8/hapticd.8 usr/share/man/man1/hapticctl.1 \
         usr/share/bash-completion/completions/hapticctl usr/share/zsh/site-functions/_hapticctl \
         usr/share/fish/vendor_completions.d/hapticctl.fish; do
  check test -e "$T/$f"
done
check test "$(ls "$T/usr/share/hapticd/patterns" | wc -l)" -ge 11
check grep -q "^ExecStart=$T/usr/bin/hapticd --config $T/etc/hapticd/hapticd.toml" "$T/units/hapticd.service"
check grep -q "^d $T/etc/hapticd/patterns " "$T/usr/lib/tmpfiles.d/hapticd.conf"
check systemd-analyze verify --man=no "$T/units/hapticd.socket" "$T/units/hapticd.service"
check "$T/usr/bin/hapticd" --check-config --config "$T/etc/hapticd/hapticd.toml"
check grep -q "^directories = \[\"$T/usr/share/hapticd/patterns\"" "$T/etc/hapticd/hapticd.toml"
# Completion files are sourced, not run.
check bash -c "! head -1 '$T/usr/share/bash-completion/completions/hapticctl' | grep -q '^#!'"
# The written hapticd(8) names every option hapticd's parser has; hapticctl(1) is generated from it.
for option in $("$T/usr/bin/hapticd" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
  check grep -qF -- "$(sed 's/-/\\-/g' <<< "$option")" man/hapticd.8   # roff writes --config as \-\-config
done
check grep -q "hapticctl play" "$T/usr/share/man/man1/hapticctl.1"
check grep -q "^\.TH HAPTICD 8 .*\"hapticd $version\"" "$T/usr/share/man/man8/hapticd.8"
# The units as issue 11 found them on a booted system: no RuntimeDirectory= in the service (the
# socket unit owns /run/hapticd), a syscall filter that refuses instead of killing.
check bash -c "! grep -q '^RuntimeDirectory' '$T/units/hapticd.service'"
check grep -qx "SystemCallErrorNumber=EPERM" "$T/units/hapticd.service"
check grep -qx "ListenStream=/run/hapticd/hapticd.sock" "$T/units/hapticd.socket"

# 2. The package.
make deb > "$T/deb.log" 2>&1 || { tail -30 "$T/deb.log"; echo "systemd: make deb failed"; exit 1; }
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
deb="dist/hapticd_${version}_${arch}.deb"
check test -f "$deb"
check test "$(dpkg-parsechangelog -SVersion)" = "$version"   # debian/changelog follows the daemon's version
dpkg-deb -c "$deb" | awk '{print $6}' > "$T/contents"
for f in ./usr/bin/hapticd ./usr/bin/hapticctl ./lib/systemd/system/hapticd.service ./lib/systemd/system/hapticd.socket \
         ./usr/lib/sysusers.d/hapticd.conf ./usr/lib/tmpfiles.d/hapticd.conf ./etc/hapticd/hapticd.toml \
         ./etc/hapticd/patterns/ ./usr/share/hapticd/patterns/heartbeat.ahap ./usr/share/man/man8/hapticd.8.gz \
         ./usr/share/man/man1/hapticctl.1.gz ./usr/share/doc/hapticd/copyright ./usr/share/doc/hapticd/PROTOCOL.md \
         ./usr/share/bash-completion/completions/hapticctl ./usr/share/zsh/vendor-completions/_hapticctl \
         ./usr/share/fish/vendor_completions.d/hapticctl.fish; do
  check grep -qx -- "$f" "$T/contents"
done
check bash -c "! grep -q 'udev' '$T/contents'"
dpkg-deb -e "$deb" "$T/control"
check grep -qx "/etc/hapticd/hapticd.toml" "$T/control/conffiles"
depends=$(dpkg-deb -f "$deb" Depends)
for dep in libc6 libevdev2 libstdc++6 libgcc-s1 procps; do
  check grep -q "\b$dep\b" <<< "$depends"
done
check bash -c "! grep -qi swift <<< '$depends'"                   # the Swift runtime is linked in
dpkg-deb -x "$deb" "$T/root"
for bin in hapticd hapticctl; do
  check bash -c "! readelf -d '$T/root/usr/bin/$bin' | grep NEEDED | grep -qi 'swift\|Foundation\|dispatch'"
  check bash -c "! readelf -d '$T/root/usr/bin/$bin' | grep -q 'RPATH\|RUNPATH'"
done
check grep -q "deb-systemd-helper enable 'hapticd.socket'" "$T/control/postinst"
check grep -q "deb-systemd-invoke start 'hapticd.socket'" "$T/control/postinst"
check bash -c "! grep -q \"start 'hapticd.service'\" '$T/control/postinst'"   # socket-activated, never started at install
check grep -q "systemd-sysusers.*hapticd.conf" "$T/control/postinst"
check grep -q "systemd-tmpfiles.*--create hapticd.conf" "$T/control/postinst"
check grep -q "deb-systemd-invoke stop 'hapticd.socket'" "$T/control/prerm"

# 3. lintian: no errors and no warnings (informational tags are listed in docs/packaging.md).
lintian_status=0
lintian --fail-on error,warning "$deb" > "$T/lintian.log" 2>&1 || lintian_status=$?
cat "$T/lintian.log"
check test "$lintian_status" -eq 0
echo "systemd: $pass passed, $fail failed"
[ "$fail" -eq 0 ] || exit 1

# 4. On a booted Debian with systemd.
make install DESTDIR="$T/make-install" > "$T/install2.log" 2>&1 || { cat "$T/install2.log"; exit 1; }
scripts/systemd-vm-test.sh "$deb" "$T/make-install"
