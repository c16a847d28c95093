#!/usr/bin/env bash
# Builds the booted-system test's root file system: Debian bookworm (debootstrap --variant=minbase)
# with systemd as init, udev, D-Bus and what hapticd's package depends on (the VM is offline, so
# `apt install ./hapticd_*.deb` must find its dependencies installed), the VM kernel's input, HID
# and boot modules, and a unit that runs the test payload (/dev/vdb) once the system is up.
# Usage (by scripts/systemd-vm-test.sh, which caches the result keyed on this file's hash and the
# kernel package): rootfs.sh OUT.img
# Needs root (debootstrap chroots into the tree); makes the image with `mkfs.ext4 -d`, no loop mount.
set -euo pipefail
out=$1
vm_fail() { echo "rootfs: FAILED: $*" >&2; exit 1; }
source "$(dirname "$0")/../../scripts/vm-kernel.sh"
vm_kernel
mirror=${HAPTICD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# systemd-sysv: systemd as /sbin/init. dbus: systemd-analyze and systemctl show use the bus.
# libevdev2 and the C++ runtime: hapticd's run-time dependencies (see debian/control, dh_shlibdeps);
# libjansson4: libhapticd1's. libasound2: hapticd's too since it streams a USB DualSense's voice
# coils through alsa-lib.
packages=systemd,systemd-sysv,udev,dbus,kmod,procps,libevdev2,libstdc++6,libgcc-s1,libjansson4,libasound2
root="$out.d"
rm -rf "$root" "$out.tmp"
mkdir -p "$root"
debootstrap --variant=minbase --include="$packages" bookworm "$root" "$mirror" > "$out.log" 2>&1 \
    || { tail -20 "$out.log"; echo "rootfs: debootstrap failed (log: $out.log)" >&2; exit 1; }

echo hapticd-vm > "$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 hapticd-vm\n' > "$root/etc/hosts"
chroot "$root" systemd-machine-id-setup >/dev/null   # else the first boot applies presets to every unit
chroot "$root" passwd -dq root
# A quiet console: no login prompt on the serial line, no timers that start apt during the test.
for unit in serial-getty@ttyS0.service getty@tty1.service apt-daily.timer apt-daily-upgrade.timer \
            e2scrub_all.timer fstrim.timer; do
    ln -sf /dev/null "$root/etc/systemd/system/$unit"
done

# The test hook: mounts the payload disk and runs its run.sh, output on the serial console, then
# powers off whatever happened. The payload (scripts, package, fixture pad) changes every run; this
# image does not.
cat > "$root/usr/local/sbin/hapticd-vmtest" <<'HOOK'
#!/bin/sh
mkdir -p /payload
if mount -o ro /dev/vdb /payload; then
    /bin/bash /payload/run.sh
else
    echo "VM-FAIL cannot mount the payload disk /dev/vdb"
fi
echo "VM-POWEROFF"
systemctl poweroff --no-block
HOOK
chmod 0755 "$root/usr/local/sbin/hapticd-vmtest"
cat > "$root/etc/systemd/system/hapticd-vmtest.service" <<'UNIT'
[Unit]
Description=hapticd booted-system test (payload on /dev/vdb)
After=multi-user.target

[Service]
Type=simple
ExecStart=/usr/local/sbin/hapticd-vmtest
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
TTYReset=no
TTYVHangup=no

[Install]
WantedBy=multi-user.target
UNIT
ln -sf /etc/systemd/system/hapticd-vmtest.service "$root/etc/systemd/system/multi-user.target.wants/hapticd-vmtest.service"

# Kernel modules: every input and HID driver (uinput and uhid pads), what they need, and the boot
# path (virtio disk, ext4), indexed with depmod so that udev and modprobe load them on demand.
mkdir -p "$root/lib/modules/$kver"
while read -r ko; do
    rel=${ko#"$kmoddir"/}
    mkdir -p "$root/lib/modules/$kver/$(dirname "$rel")"
    cp "$ko" "$root/lib/modules/$kver/$rel"
done < <(vm_modules $(find "$kmoddir/kernel/drivers/input" "$kmoddir/kernel/drivers/hid" -name '*.ko' -printf '%f\n' | sed 's/\.ko$//') \
                    virtio_pci virtio_blk ext4)
cp "$kmoddir"/modules.order "$kmoddir"/modules.builtin* "$root/lib/modules/$kver/"
depmod -b "$root" "$kver"

rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*_Packages
mkfs.ext4 -q -F -L hapticd-root -d "$root" "$out.tmp" 2G
mv "$out.tmp" "$out"
rm -rf "$root"
