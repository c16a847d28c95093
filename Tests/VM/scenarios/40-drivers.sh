# The real hapticd against the kernel's own gamepad drivers (hid-playstation, hid-sony, hid-nintendo,
# hid-microsoft, hid-bigbenff), each bound to an emulated pad on /dev/uhid (uhidpad).
# Each entry: uhidpad type, the profile hapticd must pick, and the suite (full: every check and
# measurement; light: profile, a ramp value for value, stop and stop_all — for pads that share a
# driver path with a fully tested one); "floor" adds the comparison with a bare evdev client (as SDL
# drives the pad) — once per driver path, to keep the VM run short.
. /lib/vm-lib.sh
PADS="
dualsense-usb:dualsense:full:floor
dualsense-bt:dualsense-bluetooth:full
dualsense-edge-usb:dualsense:light
ds4-usb:dualshock4:full:floor
ds4v2-usb:dualshock4:light
ds4-bt:dualshock4-bluetooth:full
ds3-usb:dualshock3:full:floor
ds3-bt:dualshock3-bluetooth:light
switch-pro-usb:switch-pro-usb:full:floor
switch-pro-bt:switch-pro-bluetooth:full
xbox-series-bt:xbox-bluetooth:full:floor
xbox-one-s-bt:xbox-bluetooth:light
bigben:bigben:full:floor
"
# Kernel parameter vmtest.pads=TYPE,TYPE (HAPTICD_VM_PADS=… scripts/vm-test.sh) keeps only those pads.
only=$(sed -n 's/.*vmtest\.pads=\([^ ]*\).*/\1/p' /proc/cmdline | tr ',' ' ')
if [ -n "$only" ]; then
    kept=""
    for p in $PADS; do case " $only " in *" ${p%%:*} "*) kept="$kept $p" ;; esac; done
    PADS=$kept
fi
types=""
for p in $PADS; do types="$types ${p%%:*}"; done
# The stall monitor tells a VM that stood still (host load) from a slow driver.
/bin/stallmon --log /tmp/stalls.log &
stallmon=$!
start_uhid_pads /tmp/pads $types || { stop_pads /tmp/pads; kill $stallmon; exit 1; }
/bin/drivers-vmtest /bin/hapticd $PADS
status=$?
echo "VM stalls over 20 ms: $(grep -c STALL /tmp/stalls.log), longest $(sed -n 's/.*gap_ms=//p' /tmp/stalls.log | sort -n | tail -1) ms"
kill $stallmon
if [ $status -ne 0 ]; then
    for t in $types; do echo "--- $t (last lines)"; tail -20 /tmp/pads/$t.log; done
    dmesg | grep -i -E "playstation|sony|nintendo|microsoft|bigben|uhid" | tail -20
fi
stop_pads /tmp/pads
exit $status
