# The real hapticd (release, default backend auto) drives emulated pads through their hidraw nodes —
# Switch Pro over USB and Bluetooth, the single Joy-Cons (L) and (R) over Bluetooth and the two of a
# charging grip over USB (HD rumble), the
# Xbox Series pad over Bluetooth (trigger motors) —
# with the kernel's hid-nintendo and hid-microsoft still bound; then SDL2's HIDAPI path on the same
# pads for comparison (hidraw-vmtest; docs/testing.md, "45-hidraw").
. /lib/vm-lib.sh
PADS="
switch-pro-usb:switch-pro-usb-hd
switch-pro-bt:switch-pro-bluetooth-hd
joycon-l-bt:joycon-left-bluetooth-hd
joycon-r-bt:joycon-right-bluetooth-hd
joycon-l-grip:joycon-left-usb-hd
joycon-r-grip:joycon-right-usb-hd
xbox-series-bt:xbox-bluetooth-triggers
"
types=""
for p in $PADS; do types="$types ${p%%:*}"; done
# An unprivileged user for the fallback check (hapticd without access to one hidraw node).
mkdir -p /etc
grep -q '^hapticd:' /etc/passwd 2>/dev/null || echo 'hapticd:x:1000:1000:hapticd:/tmp:/bin/sh' >> /etc/passwd
grep -q '^hapticd:' /etc/group 2>/dev/null || echo 'hapticd:x:1000:' >> /etc/group
/bin/stallmon --log /tmp/stalls.log &
stallmon=$!
start_uhid_pads /tmp/pads $types || { stop_pads /tmp/pads; kill $stallmon; exit 1; }
/bin/hidraw-vmtest /bin/hapticd $PADS
status=$?
echo "VM stalls over 20 ms: $(grep -c STALL /tmp/stalls.log), longest $(sed -n 's/.*gap_ms=//p' /tmp/stalls.log | sort -n | tail -1) ms"
kill $stallmon
if [ $status -ne 0 ]; then
    for t in $types; do echo "--- $t (last lines)"; tail -15 /tmp/pads/$t.log; done
    for f in /tmp/sdl-*.log; do [ -f "$f" ] && { echo "--- $f"; head -12 "$f"; }; done
    [ -f /tmp/hapticd-hapticd.log ] && { echo "--- hapticd as a user"; tail -5 /tmp/hapticd-hapticd.log; }
    dmesg | grep -i -E "nintendo|microsoft|uhid|hidraw" | tail -15
fi
stop_pads /tmp/pads
exit $status
