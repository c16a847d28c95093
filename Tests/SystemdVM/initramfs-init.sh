#!/bin/busybox sh
# /init of the booted-system test's initramfs: load the modules the root disk needs (the Debian kernel
# builds virtio and ext4 as modules), mount /dev/vda and hand PID 1 over to systemd.
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /newroot
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
while read -r ko; do
    insmod "/modules/$ko" || echo "initramfs: insmod $ko failed"
done < /modules/order
i=0
while [ ! -b /dev/vda ] && [ $i -lt 1000 ]; do usleep 10000; i=$((i + 1)); done
if ! mount -t ext4 -o rw /dev/vda /newroot; then
    echo "VM-FAIL initramfs: cannot mount the root disk /dev/vda"
    poweroff -f
fi
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /sbin/init
