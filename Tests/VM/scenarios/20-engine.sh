# An engine and the render loop drive the uinput pad; then an unplug.
/bin/fakepad --name hapticd-test-pad --log /tmp/engine-pad.log &
pad=$!
i=0
while [ $i -lt 500 ] && ! grep -q CREATED /tmp/engine-pad.log 2>/dev/null; do i=$((i + 1)); usleep 10000; done
/bin/engine-vmtest /tmp/engine-pad.log $pad
status=$?
echo "--- pad log ---"
cat /tmp/engine-pad.log
kill $pad
wait
exit $status
