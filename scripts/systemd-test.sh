#!/usr/bin/env bash
# The install and the package, on the host: `make install` into a temporary prefix (what landed, the
# paths substituted, `systemd-analyze verify`, `hapticd --check-config`, the man page against
# `hapticd --help`), then `make deb` (contents, dependencies, maintainer scripts, version) and
# lintian on it, and on libhapticd1 and libhapticd-dev with a program built against the latter. Then
# the packages, that program and a `make install` tree go to a booted Debian with systemd:
# scripts/systemd-vm-test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh systemd make dpkg-dev debhelper lintian pkg-config libevdev-dev libasound2-dev libjansson-dev gcc libc6-dev
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
         usr/share/fish/vendor_completions.d/hapticctl.fish \
         usr/lib/hapticd/unity/libCoreHapticsWrapper.so usr/lib/hapticd/unity/libCoreHapticsWrapper.so.meta; do
  check test -e "$T/$f"
done
check test "$(ls "$T/usr/share/hapticd/patterns" | wc -l)" -ge 11
check grep -q "^ExecStart=$T/usr/bin/hapticd --config $T/etc/hapticd/hapticd.toml" "$T/units/hapticd.service"
check grep -q "^d $T/etc/hapticd/patterns " "$T/usr/lib/tmpfiles.d/hapticd.conf"
# The udev rule for the hidraw nodes of the pads with a hidraw profile: made from the profiles.
check cmp -s "$T/usr/lib/udev/rules.d/70-hapticd.rules" <("$T/usr/bin/hapticd" --print-udev-rules --config /dev/null)
check grep -qx 'SUBSYSTEM=="hidraw", KERNELS=="0003:057E:2009\.\*", GROUP="input", MODE="0660"' "$T/usr/lib/udev/rules.d/70-hapticd.rules"
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
         ./usr/share/fish/vendor_completions.d/hapticctl.fish \
         "./usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/hapticd/unity/libCoreHapticsWrapper.so" \
         "./usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/hapticd/unity/libCoreHapticsWrapper.so.meta"; do
  check grep -qx -- "$f" "$T/contents"
done
check grep -qx "./usr/lib/udev/rules.d/70-hapticd.rules" "$T/contents"
check test "$(grep -c 'udev' "$T/contents")" -eq 3   # the rule and its two directories, nothing else
check bash -c "! grep -q 'libhapticd\|/include/' '$T/contents'"     # the library is its own packages
dpkg-deb -e "$deb" "$T/control"
check grep -qx "/etc/hapticd/hapticd.toml" "$T/control/conffiles"
depends=$(dpkg-deb -f "$deb" Depends)
for dep in libc6 libevdev2 libstdc++6 libgcc-s1 procps; do
  check grep -q "\b$dep\b" <<< "$depends"
done
check bash -c "! grep -qi swift <<< '$depends'"                   # the Swift runtime is linked in
dpkg-deb -x "$deb" "$T/root"
for bin in usr/bin/hapticd usr/bin/hapticctl "usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/hapticd/unity/libCoreHapticsWrapper.so"; do
  check bash -c "! readelf -d '$T/root/$bin' | grep NEEDED | grep -qi 'swift\|Foundation\|dispatch'"
  check bash -c "! readelf -d '$T/root/$bin' | grep -q 'RPATH\|RUNPATH'"
done
check grep -q "deb-systemd-helper enable 'hapticd.socket'" "$T/control/postinst"
check grep -q "deb-systemd-invoke start 'hapticd.socket'" "$T/control/postinst"
check bash -c "! grep -q \"start 'hapticd.service'\" '$T/control/postinst'"   # socket-activated, never started at install
check grep -q "systemd-sysusers.*hapticd.conf" "$T/control/postinst"
check grep -q "systemd-tmpfiles.*--create hapticd.conf" "$T/control/postinst"
check grep -q "deb-systemd-invoke stop 'hapticd.socket'" "$T/control/prerm"
check grep -q "udevadm trigger --settle --subsystem-match=hidraw --action=change" "$T/control/postinst"   # pads already plugged in, theirs when apt returns

# 3. libhapticd: the shared library (libhapticd1, named after its SONAME) and the development files.
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
lib="dist/libhapticd1_${version}_${arch}.deb"
dev="dist/libhapticd-dev_${version}_${arch}.deb"
check test -f "$lib"
check test -f "$dev"
dpkg-deb -c "$lib" | awk '{print $6}' > "$T/lib-contents"
dpkg-deb -c "$dev" | awk '{print $6}' > "$T/dev-contents"
for f in "./usr/lib/$ma/libhapticd.so.1.0.0" "./usr/lib/$ma/libhapticd.so.1" ./usr/share/doc/libhapticd1/copyright; do
  check grep -qx -- "$f" "$T/lib-contents"
done
check bash -c "! grep -q '\.a$\|\.h$\|\.pc$\|libhapticd\.so$' '$T/lib-contents'"
for f in ./usr/include/hapticd.h "./usr/lib/$ma/libhapticd.so" "./usr/lib/$ma/libhapticd.a" "./usr/lib/$ma/pkgconfig/hapticd.pc"; do
  check grep -qx -- "$f" "$T/dev-contents"
done
check grep -q "\blibjansson4\b" <<< "$(dpkg-deb -f "$lib" Depends)"
check grep -q "libhapticd1 (= $version)" <<< "$(dpkg-deb -f "$dev" Depends)"
check grep -q "\blibjansson-dev\b" <<< "$(dpkg-deb -f "$dev" Depends)"   # hapticd.pc: Requires.private: jansson
check test "$(dpkg-deb -f "$lib" Multi-Arch)" = same
dpkg-deb -e "$lib" "$T/lib-control"
check grep -qx "libhapticd 1 libhapticd1 (>= $version)" "$T/lib-control/shlibs"
check grep -q "ldconfig" "$T/lib-control/triggers"
check grep -q "^ hapticd_connect@HAPTICD_1 " "$T/lib-control/symbols"
dpkg-deb -x "$lib" "$T/dev"; dpkg-deb -x "$dev" "$T/dev"
check bash -c "! readelf -d '$T/dev/usr/lib/$ma/libhapticd.so.1' | grep -q 'RPATH\|RUNPATH'"   # a system library has no run path
check grep -qx "libdir=/usr/lib/$ma" "$T/dev/usr/lib/$ma/pkgconfig/hapticd.pc"
# A program built against the development package alone, through its pkg-config file (with the
# unpacked tree as the sysroot); the VM runs it against libhapticd1.
check env PKG_CONFIG_SYSROOT_DIR="$T/dev" PKG_CONFIG_LIBDIR="$T/dev/usr/lib/$ma/pkgconfig:/usr/lib/$ma/pkgconfig:/usr/share/pkgconfig" \
  bash -c 'cc -O2 -Wall examples/c/play-file.c $(pkg-config --cflags --libs hapticd) -o "$0/play-file"' "$T"
check bash -c "readelf -d '$T/play-file' | grep NEEDED | grep -q 'libhapticd.so.1'"

# 4. lintian: no errors and no warnings on any of the three (informational tags: docs/packaging.md).
lintian_status=0
lintian --fail-on error,warning "$deb" "$lib" "$dev" > "$T/lintian.log" 2>&1 || lintian_status=$?
cat "$T/lintian.log"
check test "$lintian_status" -eq 0
echo "systemd: $pass passed, $fail failed"
[ "$fail" -eq 0 ] || exit 1

# 5. On a booted Debian with systemd.
make install DESTDIR="$T/make-install" > "$T/install2.log" 2>&1 || { cat "$T/install2.log"; exit 1; }
scripts/systemd-vm-test.sh "$deb" "$T/make-install" "$lib" "$T/play-file"
