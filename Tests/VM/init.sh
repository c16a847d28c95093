#!/bin/busybox sh
# /init of the test VM: mount the basics, load the modules, run every scenario, power off.
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
insmod /lib/modules/evdev.ko
insmod /lib/modules/uinput.ko
# The other modules, dependencies first (written by scripts/vm-test.sh).
while read -r module parameters; do
    insmod "/lib/modules/$module.ko" $parameters || echo "VM-MODULE-FAILED $module"
done < /lib/modules/order
# Static Swift binaries have no runtime path for the backtracer helper: turn it off.
export SWIFT_BACKTRACE=enable=no
echo "VM-BOOTED kernel $(uname -r)"
for scenario in /scenarios/*.sh; do
    name=$(basename "$scenario" .sh)
    echo "VM-SCENARIO-BEGIN $name"
    sh "$scenario"
    echo "VM-SCENARIO-END $name exit=$?"
done
echo "VM-DONE"
poweroff -f
