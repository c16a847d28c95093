#!/bin/sh
# PROTOTYPE scenario (issue 25 §3): an emulated USB DualSense on vhci_hcd; the kernel's own
# snd-usb-audio and hid-playstation bind; a known signal is played and recorded on the "bus".
d=/tmp/uac; mkdir -p $d
/bin/dsusbip --log $d/ds.log --record $d/stream.raw --times $d/times.txt &
pid=$!
i=0; while [ $i -lt 3000 ] && ! ls /sys/class/sound/ 2>/dev/null | grep -q pcmC.D0p; do usleep 10000; i=$((i+1)); done
sleep 2
echo "--- sysfs"
for c in /sys/class/sound/card*; do echo "$c -> $(readlink -f $c)"; done
for e in /sys/class/input/event*; do echo "$e $(cat $e/device/name) -> $(readlink -f $e)"; done
ls /dev/snd
cat /proc/asound/cards
cat /proc/asound/card0/stream0 2>&1 | head -30
dmesg | grep -i -E "usb|hid|playstation|snd|vhci|dualsense" | tail -40
pcm=$(ls /dev/snd/pcmC*D0p | head -1)
echo "--- play $pcm"
/bin/pcmplay $pcm
sleep 1
kill -TERM $pid; sleep 1
echo "--- emulator log (filtered)"
grep -v " CTRL " $d/ds.log | grep -v "^.* OUTPUT" | tail -30
grep -c OUTPUT $d/ds.log | sed 's/^/OUTPUT reports: /'
grep OUTPUT $d/ds.log | head -3
grep " CTRL " $d/ds.log | head -60
echo "--- times"; head -5 $d/times.txt; tail -3 $d/times.txt; wc -l $d/times.txt; ls -la $d/stream.raw
dmesg | tail -15
