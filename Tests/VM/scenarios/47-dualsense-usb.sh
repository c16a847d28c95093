# The real hapticd (release) streams a USB DualSense's voice coils as channels 3-4 of the pad's own
# USB audio stream: dsusbip emulates the pad on the kernel's USB/IP host controller (vhci_hcd), where
# snd-usb-audio and hid-playstation bind, and records the stream (dsusb-vmtest; docs/testing.md,
# "47-dualsense-usb").
. /lib/vm-lib.sh
d=/tmp/dsusb; rm -rf $d; mkdir -p $d
/bin/dsusbip --log $d/ds.log --record $d/stream.raw --times $d/times.txt &
pid=$!
i=0; while [ $i -lt 3000 ] && ! ls /dev/snd/ 2>/dev/null | grep -q 'pcmC0D0p'; do usleep 10000; i=$((i+1)); done
# hid-playstation's event node comes with the HID interface; give both drivers a moment to settle.
sleep 1
echo "kernel $(uname -r); $(cat /proc/asound/cards | head -1)"
/bin/dsusb-vmtest /bin/hapticd $d/stream.raw
status=$?
if [ $status -ne 0 ]; then
    echo "--- hapticd"; tail -12 /tmp/hapticd-dsusb.log
    grep -v " CTRL " $d/ds.log | tail -8
    dmesg | grep -i -E "usb|snd|playstation|vhci" | tail -10
fi
kill -TERM $pid 2>/dev/null
exit $status
