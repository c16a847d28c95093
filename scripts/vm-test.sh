#!/usr/bin/env bash
# The real-kernel integration test: boots a Debian kernel under qemu (software emulation), creates
# virtual FF_RUMBLE pads (uinput, and real gamepad drivers behind /dev/uhid), runs the project's own
# code against them, and judges by what the pads received. See docs/testing.md.
#
# It never skips silently: when it cannot run, it fails and says why.
# Downloads (the kernel package) are cached in $HAPTICD_VM_CACHE (default ~/.cache/hapticd-vm).
# HAPTICD_VM_ONLY=NAME runs only the scenarios whose file name contains NAME, HAPTICD_VM_PADS=TYPE,…
# only those emulated pads in 40-drivers (for iterating; CI runs all).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
fail() { echo "vm-test: FAILED: $*" >&2; exit 1; }

scripts/deps.sh qemu-system-x86 busybox-static libevdev-dev libasound2-dev gcc libc6-dev pkg-config kmod libsdl2-dev libudev1 make

# 1. The kernel: the package linux-image-amd64 depends on, unpacked, not installed (shared with
# scripts/systemd-vm-test.sh).
vm_fail() { fail "$@"; }
source scripts/vm-kernel.sh
vm_kernel
moddir="$kmoddir/kernel/drivers/input"
[ -f "$moddir/evdev.ko" ] && [ -f "$moddir/misc/uinput.ko" ] || fail "evdev.ko or uinput.ko missing from $kpkg"
kmods="$kdir/lib/modules/$kver/kernel"
kroot="$kmods"

# 2. The programs: the fixtures (every Tests/VM/*.c, static C) and the project's test programs
#    (static Swift).
work="$root/.build-vm/vm"
rm -rf "$work" && mkdir -p "$work/root/bin" "$work/root/lib/modules" "$work/root/scenarios" "$work/root/data"
for src in Tests/VM/*.c; do
    fixture=$(basename "$src" .c)
    gcc -static -O2 -Wall -pthread -o "$work/root/bin/$fixture" "$src" -lm || fail "cannot build the fixture $fixture"
done
# SDL2's HIDAPI client for the hidraw benchmark (45-hidraw): linked against Debian's libSDL2 (its static
# archive would pull in every video and audio backend), so the loader and every shared library it
# needs go into the VM too, and libudev, which SDL loads at run time to enumerate the hidraw nodes.
gcc -O2 -Wall -o "$work/root/bin/sdlrumble" Tests/VM/sdl/sdlrumble.c $(pkg-config --cflags --libs sdl2) \
    || fail "cannot build Tests/VM/sdl/sdlrumble.c against libSDL2"
for lib in $(ldd "$work/root/bin/sdlrumble" | grep -o '/[^ ]*') $(ldconfig -p | grep -o '/[^ ]*/libudev\.so\.1$' | head -1); do
    mkdir -p "$work/root$(dirname "$lib")"
    cp -L "$lib" "$work/root$lib"
done
# hapticd is built as it ships (release, as debian/rules and `make build` build it): its timing is
# measured here, and a debug build costs several times the emulated instructions per command (under
# TCG a debug hapticd fell behind a 60 fps stream of commands, docs/benchmarks.md). So are the two
# programs that time the Swift client library (drivers-vmtest, hidraw-vmtest: their "Swift client"
# columns are a game's calls into HapticClient/CoreHaptics), with hapticd's flags, so that they share
# its build: a game ships its code optimised, and a debug HapticClient spent ~10× the instructions
# before its send(2) (12 against 1.4 µs natively, 55 against 5 with cold caches; docs/benchmarks.md).
# The other test programs stay debug builds (faster to build, Swift's assertions on).
products=(evdev-vmtest engine-vmtest daemon-vmtest xpad-vmtest drivers-vmtest hidraw-vmtest dualsense-vmtest dsusb-vmtest hapticd)
# Built as hapticd ships (above): release, the Makefile's release flags, the Swift runtime static.
as_shipped=" hapticd drivers-vmtest hidraw-vmtest "
for p in "${products[@]}"; do
    # HAPTICD_VM_ONLY: only what the chosen scenarios run (and hapticd) is built.
    if [ -n "${HAPTICD_VM_ONLY:-}" ] && [ "$p" != hapticd ] \
        && ! grep -q "/bin/$p\b" Tests/VM/scenarios/*"$HAPTICD_VM_ONLY"*.sh 2>/dev/null; then
        # (grep reads the files itself: `cat … | grep -q` under pipefail failed when grep stopped early.)
        continue
    fi
    conf=debug flags=()
    # The release flags the Makefile declares for every build that ships (exclusivity checks off).
    # (Read into a variable first: a failing make then stops the script, which a here-string would
    # not; a parent make's MAKEFLAGS, e.g. --trace, would print into them.)
    if [[ "$as_shipped" == *" $p "* ]]; then
        conf=release
        release_flags=$(env -u MAKEFLAGS -u MAKELEVEL make -s --no-print-directory release-swiftflags)
        read -ra flags <<< "$release_flags"
    fi
    # The linker warns that static glibc cannot dlopen/NSS: harmless here, so only failure counts.
    # What links HapticDaemon links alsa-lib (the DualSense's USB audio stream), which Debian ships
    # shared only: those are built as they ship (the Swift runtime static, glibc and libasound shared)
    # and the loader and their shared libraries go into the VM, as for sdlrumble above.
    link=(-Xswiftc -static-executable)
    if [[ "$as_shipped" == *" $p "* ]] || [ "$p" = engine-vmtest ]; then link=(-Xswiftc -static-stdlib); fi
    swift build -c "$conf" --scratch-path .build-vm --product "$p" "${link[@]}" "${flags[@]}" > "$work/build-$p.log" 2>&1 \
        || { grep -E "error" "$work/build-$p.log" | head -20; fail "building $p (log: $work/build-$p.log)"; }
    cp "$(swift build -c "$conf" --scratch-path .build-vm --show-bin-path)/$p" "$work/root/bin/$p"
    strip "$work/root/bin/$p"
    if [ "${link[1]}" = -static-stdlib ]; then
        for lib in $(ldd "$work/root/bin/$p" | grep -o '/[^ ]*'); do
            mkdir -p "$work/root$(dirname "$lib")"
            cp -L "$lib" "$work/root$lib"
        done
        # alsa-lib reads its configuration when it opens a device (the `hw` plugin is defined there).
        mkdir -p "$work/root/usr/share/alsa"
        cp -r /usr/share/alsa/alsa.conf /usr/share/alsa/cards /usr/share/alsa/pcm "$work/root/usr/share/alsa/"
    fi
done

# 3. The initramfs: busybox as /init's shell, the modules (Tests/VM/modules.txt plus what they depend
#    on, in load order), the scenarios and their helpers, the pattern library and test patterns.
cp /bin/busybox "$work/root/bin/busybox"
declare -A kopath=() loaded=()
while read -r f; do b=$(basename "$f" .ko); kopath[${b//_/-}]=$f; done < <(find "$kroot" -name '*.ko')
order=()
# Each module after what it depends on: the package has no modules.dep, so each .ko's own `depends=`
# decides. /init loads lib/modules/order ("name [parameters]" a line) in order.
add_module() {
    local m=${1//_/-} f deps d
    shift
    [ -n "${loaded[$m]:-}" ] && return 0
    loaded[$m]=1
    f=${kopath[$m]:-}
    [ -n "$f" ] || fail "module $m is not in $kpkg"
    deps=$(modinfo -F depends "$f") || fail "modinfo $f"
    for d in ${deps//,/ }; do add_module "$d"; done
    cp "$f" "$work/root/lib/modules/$m.ko"
    order+=("$m${*:+ $*}")
}
while read -r line; do
    line=${line%%#*}
    # shellcheck disable=SC2086 # a module's name, then its parameters
    [ -n "${line//[[:space:]]/}" ] && add_module $line
done < Tests/VM/modules.txt
printf '%s\n' "${order[@]}" > "$work/root/lib/modules/order"
cp Tests/VM/init.sh "$work/root/init" && chmod +x "$work/root/init"
cp Tests/VM/lib.sh "$work/root/lib/vm-lib.sh"
# HAPTICD_VM_ONLY=NAME runs only the scenarios whose file name contains NAME (while iterating).
for f in Tests/VM/scenarios/*.sh; do
    case "$(basename "$f")" in *"${HAPTICD_VM_ONLY:-}"*) cp "$f" "$work/root/scenarios/" ;; esac
done
[ -n "$(ls "$work/root/scenarios")" ] || fail "no scenario matches HAPTICD_VM_ONLY=${HAPTICD_VM_ONLY:-}"
# The pattern library where `make install` puts it, and Apple's samples (shipped in Tests/VM/ahap with
# their licence, so that any clone can run the test); /patterns holds both for the xpad test.
mkdir -p "$work/root/usr/share/hapticd/patterns" "$work/root/data/ahap" "$work/root/patterns"
cp config/patterns/*.ahap "$work/root/usr/share/hapticd/patterns/"
cp Tests/VM/ahap/*.ahap "$work/root/data/ahap/"
cp config/patterns/*.ahap Tests/VM/ahap/*.ahap "$work/root/patterns/"
( cd "$work/root" && find . | /bin/busybox cpio -o -H newc 2>/dev/null ) > "$work/initrd.cpio"

# 4. Boot. The console is the test's output.
echo "vm-test: booting $kpkg under qemu (TCG)"
start=$(date +%s)
# Memory: the root filesystem is the initramfs, a tmpfs of at most half the VM's memory, which holds
# the programs (~330 MB: the test programs that link Foundation, for the Swift GameController
# library, are ~65 MB each) and everything the scenarios write; at 1024 MB it filled (2026-11-26: a
# Bus error starting a program, /etc/passwd not written). The time limit: the scenarios took 610 s
# under TCG on a fresh 2-core machine (2026-11-27: 40-drivers 277 s, 45-hidraw 218 s with the Joy-Cons);
# 1500 s leaves a slower machine room and still ends well inside CI's 90 minutes.
timeout 1500 qemu-system-x86_64 -accel tcg -m 1536 -smp 1 -nographic -no-reboot \
    -kernel "$vmlinuz" -initrd "$work/initrd.cpio" \
    -append "console=ttyS0 quiet panic=-1${HAPTICD_VM_PADS:+ vmtest.pads=$HAPTICD_VM_PADS}" > "$work/console.log" 2>&1 || true
echo "vm-test: VM ran $(( $(date +%s) - start )) s"
tr -d '\r' < "$work/console.log" > "$work/console.txt"
grep -q "VM-BOOTED" "$work/console.txt" || { tail -30 "$work/console.txt"; fail "the VM did not boot"; }
sed -n '/VM-SCENARIO-BEGIN/,/VM-DONE/p' "$work/console.txt"
grep -q "VM-DONE" "$work/console.txt" || fail "the VM did not finish its scenarios (timeout or crash)"
! grep "^VM-MODULE-FAILED" "$work/console.txt" || fail "kernel modules failed to load"
bad=$(grep -c "^VM-SCENARIO-END .* exit=[^0]" "$work/console.txt" || true)
passes=$(grep -c "^PASS " "$work/console.txt" || true)
fails=$(grep -c "^FAIL " "$work/console.txt" || true)
echo "vm: $passes passed, $fails failed"
[ "$bad" -eq 0 ] && [ "$fails" -eq 0 ] && [ "$passes" -gt 0 ] || fail "$bad scenario(s) failed"
