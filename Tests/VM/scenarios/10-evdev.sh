# The device layer against a uinput pad: discovery, one effect id, exact magnitudes, stop/close,
# unplug and re-plug.
/bin/fakepad --name hapticd-test-nonrumble --no-rumble --log /tmp/other.log &
other=$!
/bin/fakepad --name hapticd-test-pad --log /tmp/pad.log &
pad=$!
# Wait (bounded) for both devices to exist.
i=0
while [ $i -lt 500 ] && ! { grep -q CREATED /tmp/pad.log 2>/dev/null && grep -q CREATED /tmp/other.log 2>/dev/null; }; do
    i=$((i + 1)); usleep 10000
done
/bin/evdev-vmtest /tmp/pad.log $pad
status=$?
echo "--- pad log ---"
cat /tmp/pad.log
kill $pad $other
wait
exit $status
