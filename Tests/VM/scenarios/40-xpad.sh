# The kernel's real xpad driver (wired Xbox 360 / Xbox One pads) bound to USB gadgets on dummy_hcd
# (xpadgadget), judging the real hapticd: values, order, backlog, transients, stops, removal, timing.
/bin/xpad-vmtest /bin/hapticd /bin/xpadgadget /patterns
status=$?
for t in 360 one; do
    echo "--- xpad-$t pad log (last lines) ---"
    tail -5 "/tmp/xpad-$t.log"
done
if [ $status -ne 0 ]; then
    echo "--- kernel log (usb, xpad) ---"
    dmesg | grep -i -E "xpad|usb|gadget|dummy|input" | tail -25
fi
exit $status
