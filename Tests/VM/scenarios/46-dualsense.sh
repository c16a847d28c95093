# The real hapticd (release) streams an emulated DualSense's voice coils over Bluetooth — report 0x32
# on its hidraw node, 3 kHz signed 8-bit stereo, CRC-sealed — with hid-playstation bound; the pad
# decodes every report (dualsense-vmtest; docs/testing.md, "46-dualsense").
. /lib/vm-lib.sh
# An unprivileged user for the fallback check (hapticd without access to the hidraw node).
mkdir -p /etc
grep -q '^hapticd:' /etc/passwd 2>/dev/null || echo 'hapticd:x:1000:1000:hapticd:/tmp:/bin/sh' >> /etc/passwd
grep -q '^hapticd:' /etc/group 2>/dev/null || echo 'hapticd:x:1000:' >> /etc/group
/bin/stallmon --log /tmp/stalls.log &
stallmon=$!
# 40-drivers logged a dualsense-bt of its own to the same file: this pad's log starts empty.
rm -f /tmp/pads/dualsense-bt.log /tmp/pads/dualsense-bt.pid
start_uhid_pads /tmp/pads dualsense-bt || { stop_pads /tmp/pads; kill $stallmon; exit 1; }
echo "kernel $(uname -r)"
/bin/dualsense-vmtest /bin/hapticd
status=$?
echo "VM stalls over 20 ms: $(grep -c STALL /tmp/stalls.log), longest $(sed -n 's/.*gap_ms=//p' /tmp/stalls.log | sort -n | tail -1) ms"
kill $stallmon
if [ $status -ne 0 ]; then
    echo "--- dualsense-bt (last lines)"; tail -8 /tmp/pads/dualsense-bt.log | cut -c1-200
    for f in /tmp/hapticd-dualsense.log /tmp/hapticd-user.log; do [ -f "$f" ] && { echo "--- $f"; tail -8 "$f"; }; done
    dmesg | grep -i -E "playstation|uhid|hidraw" | tail -10
fi
stop_pads /tmp/pads
exit $status
