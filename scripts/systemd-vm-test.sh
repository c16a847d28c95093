#!/usr/bin/env bash
# The booted-system test: hapticd's Debian package, and the tree `make install` makes, on Debian
# bookworm booted under qemu (software emulation) with systemd as PID 1 and the kernel of the
# real-kernel test. Tests/SystemdVM/run.sh runs the checks inside the VM and prints PASS/FAIL lines on
# the serial console; this script counts them. It never skips: when it cannot build, boot or finish,
# it fails and says why, with the console's tail.
#
# Cached in $HAPTICD_VM_CACHE (default ~/.cache/hapticd-vm): the kernel (scripts/vm-kernel.sh) and the
# root file system, an ext4 image made once by Tests/SystemdVM/rootfs.sh (debootstrap from Debian's
# mirror: needs the network the first time) and never written to (qemu -snapshot).
# Usage: scripts/systemd-vm-test.sh [DEB MAKE-INSTALL-TREE LIBHAPTICD1-DEB PLAY-FILE]
#   Without arguments it runs `make deb` and `make install DESTDIR=...` and builds the C example
#   play-file against libhapticd itself; scripts/systemd-test.sh passes the ones it has just built and
#   checked (play-file built against the libhapticd-dev package).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
vm_fail() { echo "systemd-vm: FAILED: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || vm_fail "needs root (debootstrap and mkfs.ext4 -d of a root file system)"
scripts/deps.sh qemu-system-x86 busybox-static debootstrap e2fsprogs kmod gcc libc6-dev
source scripts/vm-kernel.sh
vm_kernel

work="$root/.build-vm/systemd"
rm -rf "$work" && mkdir -p "$work/payload" "$work/initramfs/bin" "$work/initramfs/modules"

# 1. What is installed: the package and the make-install tree.
deb=${1:-}
tree=${2:-}
libdeb=${3:-}
playfile=${4:-}
if [ -z "$deb" ]; then
    scripts/deps.sh dpkg-dev debhelper make pkg-config libevdev-dev libasound2-dev libjansson-dev
    make deb > "$work/deb.log" 2>&1 || { tail -20 "$work/deb.log"; vm_fail "make deb (log: $work/deb.log)"; }
    deb=$(ls -t dist/hapticd_*.deb | head -1)
    libdeb=$(ls -t dist/libhapticd1_*.deb | head -1)
    tree="$work/make-install"
    make install DESTDIR="$tree" > "$work/install.log" 2>&1 || { tail -20 "$work/install.log"; vm_fail "make install"; }
    playfile="$work/play-file"
    gcc -O2 -Wall -Iclients/c/include examples/c/play-file.c -o "$playfile" -Lclients/c/build-deb -lhapticd \
        || vm_fail "cannot build play-file"
fi
[ -f "$deb" ] && [ -d "$tree" ] || vm_fail "no package ($deb) or make-install tree ($tree)"
[ -f "$libdeb" ] && [ -x "$playfile" ] || vm_fail "no libhapticd1 package ($libdeb) or play-file program ($playfile)"

# 2. The root file system, built once per recipe and kernel.
key=$( (cat Tests/SystemdVM/rootfs.sh; echo "$kpkg") | sha256sum | cut -c1-16)
img="$vm_cache/systemd-rootfs-bookworm-$key.img"
(
    flock 9
    if [ ! -f "$img" ]; then
        echo "systemd-vm: building the root file system (debootstrap bookworm, cached as $img)"
        rm -rf "$vm_cache"/systemd-rootfs-bookworm-*
        start=$(date +%s)
        Tests/SystemdVM/rootfs.sh "$img" || exit 1
        echo "systemd-vm: root file system built in $(( $(date +%s) - start )) s"
    fi
) 9> "$vm_cache/systemd-rootfs.lock" || vm_fail "cannot build the root file system"

# 3. The payload disk: the checks, the fixture pads, the package, the make-install tree.
gcc -static -O2 -Wall -o "$work/payload/fakepad" Tests/VM/fakepad.c || vm_fail "cannot build the fixture pad"
# The emulated pads behind the kernel's HID drivers (uhid): a Switch Pro Controller, a DualShock 4.
gcc -static -O2 -Wall -pthread -o "$work/payload/uhidpad" Tests/VM/uhidpad.c -lm || vm_fail "cannot build uhidpad"
cp "$deb" "$libdeb" "$playfile" Tests/SystemdVM/run.sh Tests/SystemdVM/motor.awk "$work/payload/"
tar --owner=0 --group=0 -C "$tree" -cf "$work/payload/make-install.tar" .
size=$(( $(du -sm "$work/payload" | cut -f1) + 32 ))
mkfs.ext4 -q -F -L payload -d "$work/payload" "$work/payload.img" "${size}M" > /dev/null

# 4. The initramfs: busybox loads the virtio and ext4 modules and switches to systemd on /dev/vda.
cp /bin/busybox "$work/initramfs/bin/busybox"
vm_modules virtio_pci virtio_blk ext4 | while read -r ko; do
    cp "$ko" "$work/initramfs/modules/"
    basename "$ko" >> "$work/initramfs/modules/order"
done
cp Tests/SystemdVM/initramfs-init.sh "$work/initramfs/init" && chmod +x "$work/initramfs/init"
( cd "$work/initramfs" && find . | /bin/busybox cpio -o -H newc 2>/dev/null ) > "$work/initrd.cpio"

# 5. Boot, bounded: multi-user within $boot_limit s, the checks within $total_limit s. The root disk
# is a throwaway overlay of the cached image (snapshot=on); cache=unsafe skips its flushes, which dpkg
# and journald would otherwise pay for under emulation.
boot_limit=${HAPTICD_VM_BOOT_TIMEOUT:-180}
total_limit=${HAPTICD_VM_TIMEOUT:-900}
console="$work/console.log"
echo "systemd-vm: booting Debian bookworm with $kpkg under qemu (TCG)"
start=$(date +%s)
qemu-system-x86_64 -accel tcg -m 1536 -smp 2 -nographic -no-reboot -nic none \
    -kernel "$vmlinuz" -initrd "$work/initrd.cpio" \
    -append "console=ttyS0 panic=-1 quiet loglevel=3 systemd.show_status=false" \
    -drive "file=$img,format=raw,if=virtio,snapshot=on,cache=unsafe" \
    -drive "file=$work/payload.img,format=raw,if=virtio,readonly=on" \
    > "$console" 2>&1 &
qemu=$!
trap 'kill $qemu 2>/dev/null || true' EXIT
console_tail() { tr -d '\r' < "$console" | tail -40; }
booted=""
while kill -0 $qemu 2>/dev/null; do
    elapsed=$(( $(date +%s) - start ))
    if [ -z "$booted" ] && grep -q "VM-BOOTED" "$console"; then
        booted=$elapsed
        echo "systemd-vm: multi-user after ${booted} s"
    fi
    if [ -z "$booted" ] && [ "$elapsed" -ge "$boot_limit" ]; then
        console_tail; vm_fail "no multi-user within ${boot_limit} s"
    fi
    if [ "$elapsed" -ge "$total_limit" ]; then
        console_tail; vm_fail "the checks did not finish within ${total_limit} s"
    fi
    sleep 1
done
trap - EXIT
echo "systemd-vm: VM ran $(( $(date +%s) - start )) s"
tr -d '\r' < "$console" > "$work/console.txt"
[ -n "$booted" ] || { console_tail; vm_fail "the VM stopped before multi-user"; }
sed -n '/VM-BOOTED/,/VM-DONE/p' "$work/console.txt" | sed 's/.*VM-BOOTED/VM-BOOTED/' | grep -v -E '^\[ *[0-9.]+\] ' \
    | sed '/SECURITY-BEGIN/,/SECURITY-END/d'
sed -n '/SECURITY-BEGIN/,/SECURITY-END/p' "$work/console.txt" | sed '1d;$d' > "$work/security.txt"
grep -q "VM-DONE" "$work/console.txt" || { console_tail; vm_fail "the checks did not finish (crash or poweroff)"; }
passes=$(grep -c "^PASS " "$work/console.txt" || true)
fails=$(grep -c "^FAIL " "$work/console.txt" || true)
expected=$(grep -c "^check [a-z_]*$" Tests/SystemdVM/run.sh)
echo "systemd-vm: $passes passed, $fails failed"
[ "$fails" -eq 0 ] || vm_fail "$fails check(s) failed"
[ "$passes" -eq "$expected" ] || vm_fail "$passes checks passed of $expected"
