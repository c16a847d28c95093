# The real hapticd against the uinput pad: SIGTERM and SIGKILL mid-rumble leave the motor stopped.
/bin/fakepad --name hapticd-test-pad --log /tmp/daemon-pad.log &
pad=$!
i=0
while [ $i -lt 500 ] && ! grep -q CREATED /tmp/daemon-pad.log 2>/dev/null; do i=$((i + 1)); usleep 10000; done
/bin/daemon-vmtest /tmp/daemon-pad.log /bin/hapticd
status=$?
echo "--- pad log (last lines) ---"
tail -12 /tmp/daemon-pad.log
kill $pad
wait
exit $status
