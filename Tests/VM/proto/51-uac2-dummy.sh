#!/bin/sh
# PROTOTYPE: f_uac2 (4 playback channels, 48 kHz) + f_hid in one configfs gadget on dummy_hcd.
mount -t configfs none /sys/kernel/config 2>/dev/null
g=/sys/kernel/config/usb_gadget/ds; mkdir -p $g; cd $g || exit 1
echo 0x054c > idVendor; echo 0x0ce6 > idProduct
mkdir -p configs/c.1 functions/uac2.0 functions/hid.0
echo 0x33 > functions/uac2.0/p_chmask; echo 48000 > functions/uac2.0/p_srate; echo 2 > functions/uac2.0/p_ssize
echo 0 > functions/uac2.0/c_chmask 2>/dev/null || echo "c_chmask=0 refused"
echo 64 > functions/hid.0/report_length; printf '\x05\x01\x09\x05\xa1\x01\xc0' > functions/hid.0/report_desc
ln -s functions/uac2.0 configs/c.1/; ln -s functions/hid.0 configs/c.1/
echo "UDCs: $(ls /sys/class/udc)"
if echo "$(ls /sys/class/udc | head -1)" > UDC; then echo "UDC bound: uac2+hid"; else echo "UDC bind FAILED (uac2+hid)"; fi
dmesg | tail -8
# Without f_uac2: f_uac1 alone
echo "" > UDC 2>/dev/null; rm configs/c.1/uac2.0
mkdir -p functions/uac1.0; echo 0x33 > functions/uac1.0/p_chmask; echo 0 > functions/uac1.0/c_chmask 2>/dev/null
ln -s functions/uac1.0 configs/c.1/
if echo "$(ls /sys/class/udc | head -1)" > UDC; then echo "UDC bound: uac1+hid"; else echo "UDC bind FAILED (uac1+hid)"; fi
dmesg | tail -4
sleep 2; cat /proc/asound/cards
