#!/bin/busybox sh
# /init of the test VM: mount the basics, load the modules (in the order scripts/vm-test.sh
# resolved from Tests/VM/modules.txt), run every scenario, power off.
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
# The modules, dependencies first ("name [parameters]" a line, written by scripts/vm-test.sh).
while read -r module parameters; do
    insmod "/lib/modules/$module.ko" $parameters || echo "VM-MODULE-FAILED $module"
done < /lib/modules/order
# Static Swift binaries have no runtime path for the backtracer helper: turn it off.
export SWIFT_BACKTRACE=enable=no
echo "VM-BOOTED kernel $(uname -r)"
for scenario in /scenarios/*.sh; do
    name=$(basename "$scenario" .sh)
    start=$(cut -d' ' -f1 /proc/uptime)
    echo "VM-SCENARIO-BEGIN $name"
    sh "$scenario"
    status=$?
    echo "VM-SCENARIO-END $name exit=$status seconds=$(awk -v s="$start" '{print $1 - s}' /proc/uptime)"
done
echo "VM-DONE"
poweroff -f
