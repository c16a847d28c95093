#!/usr/bin/env bash
# The real-kernel integration test: boots a Debian kernel under qemu (software emulation), creates
# virtual FF_RUMBLE pads with uinput, runs the project's own code against them, and judges by what the
# pads received. See ../shared/reference/real-kernel-tests.md and docs/testing.md.
#
# It never skips silently: when it cannot run, it fails and says why.
# Downloads (the kernel package) are cached in $HAPTICD_VM_CACHE (default ~/.cache/hapticd-vm).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
fail() { echo "vm-test: FAILED: $*" >&2; exit 1; }

scripts/deps.sh qemu-system-x86 busybox-static libevdev-dev gcc libc6-dev pkg-config

# 1. The kernel: the package linux-image-amd64 depends on, unpacked, not installed (shared with
# scripts/systemd-vm-test.sh).
vm_fail() { fail "$@"; }
source scripts/vm-kernel.sh
vm_kernel
moddir="$kmoddir/kernel/drivers/input"
[ -f "$moddir/evdev.ko" ] && [ -f "$moddir/misc/uinput.ko" ] || fail "evdev.ko or uinput.ko missing from $kpkg"
kmods="$kdir/lib/modules/$kver/kernel"

# 2. The programs: the fixture pad (static C) and the project's test programs (static Swift).
work="$root/.build-vm/vm"
rm -rf "$work" && mkdir -p "$work/root/bin" "$work/root/lib/modules" "$work/root/scenarios"
gcc -static -O2 -Wall -o "$work/root/bin/fakepad" Tests/VM/fakepad.c || fail "cannot build the fixture pad"
gcc -static -O2 -Wall -pthread -o "$work/root/bin/xpadgadget" Tests/VM/xpadgadget.c || fail "cannot build the xpad gadget"
products=(evdev-vmtest engine-vmtest daemon-vmtest xpad-vmtest hapticd)
for p in "${products[@]}"; do
    # The linker warns that static glibc cannot dlopen/NSS: harmless here, so only failure counts.
    swift build --scratch-path .build-vm --product "$p" -Xswiftc -static-executable > "$work/build-$p.log" 2>&1 \
        || { grep -E "error" "$work/build-$p.log" | head -20; fail "building $p (log: $work/build-$p.log)"; }
    cp "$(swift build --scratch-path .build-vm --show-bin-path)/$p" "$work/root/bin/$p"
    strip "$work/root/bin/$p"
done

# 3. The initramfs: busybox as /init's shell, the modules, the scenarios, the patterns.
cp /bin/busybox "$work/root/bin/busybox"
cp "$moddir/evdev.ko" "$moddir/misc/uinput.ko" "$work/root/lib/modules/"
# More modules, each after what it depends on: the package has no modules.dep, so each .ko's own
# `depends=` string decides. /init loads lib/modules/order ("name [parameters]" a line) in order.
: > "$work/root/lib/modules/order"
add_module() {
    local name=$1 ko dep
    shift
    grep -q "^$name " "$work/root/lib/modules/order" && return 0
    ko=$(find "$kmods" \( -name "$name.ko" -o -name "${name//_/-}.ko" -o -name "${name//-/_}.ko" \) | head -1)
    [ -n "$ko" ] || fail "kernel module $name is missing from $kpkg"
    for dep in $(tr '\0' '\n' < "$ko" | sed -n 's/^depends=//p' | tr ',' ' '); do add_module "$dep"; done
    cp "$ko" "$work/root/lib/modules/$name.ko"
    echo "$name $*" >> "$work/root/lib/modules/order"
}
# xpad behind USB gadgets: dummy_hcd (host and device side in one, two controllers for two pads),
# configfs + libcomposite + FunctionFS for the gadgets, and xpad itself.
add_module dummy_hcd num=2
add_module usb_f_fs
add_module xpad
mkdir -p "$work/root/patterns"
cp config/patterns/*.ahap "$work/root/patterns/"
# An Apple sample from ../shared beside the project (../../shared from a git worktree in wt/NAME).
apple=""
for d in ../shared ../../shared; do [ -f "$d/ahap/apple-unityplugins/Bouncing.ahap" ] && { apple="$d/ahap/apple-unityplugins/Bouncing.ahap"; break; }; done
[ -n "$apple" ] || fail "../shared/ahap/apple-unityplugins/Bouncing.ahap is missing: ../shared must be beside the project"
cp "$apple" "$work/root/patterns/"
cp Tests/VM/init.sh "$work/root/init" && chmod +x "$work/root/init"
# HAPTICD_VM_ONLY=NAME runs only the scenarios whose file name contains NAME (while iterating).
for f in Tests/VM/scenarios/*.sh; do
    case "$(basename "$f")" in *"${HAPTICD_VM_ONLY:-}"*) cp "$f" "$work/root/scenarios/" ;; esac
done
[ -n "$(ls "$work/root/scenarios")" ] || fail "no scenario matches HAPTICD_VM_ONLY=${HAPTICD_VM_ONLY:-}"
( cd "$work/root" && find . | /bin/busybox cpio -o -H newc 2>/dev/null ) > "$work/initrd.cpio"

# 4. Boot. The console is the test's output.
echo "vm-test: booting $kpkg under qemu (TCG)"
start=$(date +%s)
timeout 600 qemu-system-x86_64 -accel tcg -m 1024 -smp 1 -nographic -no-reboot \
    -kernel "$vmlinuz" -initrd "$work/initrd.cpio" \
    -append "console=ttyS0 quiet panic=-1" > "$work/console.log" 2>&1 || true
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
