#!/bin/bash
# The booted-system test, inside the VM: Debian bookworm with systemd as PID 1, started by the image's
# hapticd-vmtest.service once the system is up (Tests/SystemdVM/rootfs.sh), its output on the serial
# console. Each check prints "PASS name" or "FAIL name: why"; scripts/systemd-vm-test.sh counts them.
# The payload disk (/payload) holds this script, motor.awk, the fixture pad (uinput), the emulated
# pads behind the kernel's HID drivers (uhidpad), hapticd's .deb and the tree `make install` produced.
set -u
P=/payload
T=/run/hapticd-test
mkdir -p "$T"
PAD_LOG=$T/pad.log
SOCK=/run/hapticd/hapticd.sock
export SWIFT_BACKTRACE=enable=no

why=""
because() { why="$*"; return 1; }
check() {
    local name=$1 start=$SECONDS
    why=""
    if "check_$name"; then echo "PASS $name ($((SECONDS - start)) s)"; else echo "FAIL $name: ${why:-failed}"; fi
}
# wait_until SECONDS COMMAND...: polls the command (every 0.1 s) until it succeeds, at most SECONDS.
wait_until() {
    local end=$((SECONDS + $1)); shift
    until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.1; done
}
# as USER COMMAND...: runs the command as that user, with the user's groups, nothing else.
as() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --init-groups --reset-env -- "$@"; }
state() { systemctl show -P ActiveState "$1"; }
is_state() { [ "$(state "$1")" = "$2" ]; }
main_pid() { systemctl show -P MainPID hapticd.service; }
pad_lines() { wc -l < "$PAD_LOG"; }
motor() { awk -v from="$1" -f "$P/motor.awk" "$PAD_LOG"; }          # rumbled=R on=O
rumbled_since() { motor "$1" | grep -q "rumbled=1"; }
motor_off() { motor 0 | grep -q "on=0"; }
motor_on() { motor 0 | grep -q "on=1"; }
cursor() { journalctl -n0 --show-cursor -q | sed -n 's/^-- cursor: //p'; }
# journal_has CURSOR PATTERN [journalctl options]: hapticd's lines after the cursor match PATTERN.
journal_has() { local c=$1 p=$2; shift 2; journalctl -q --after-cursor="$c" "$@" -o cat | grep -q -- "$p"; }
# journal_priority CURSOR PRIORITY PATTERN: a line of hapticd's after the cursor (since boot when it is
# empty) matching PATTERN was logged at that syslog priority. (journalctl -p with --after-cursor
# misses entries in systemd 252; the JSON export has each entry's PRIORITY.)
journal_priority() {
    local since=(-b)
    [ -z "$1" ] || since=(--after-cursor="$1")
    journalctl -q "${since[@]}" -u hapticd.service -o json | grep -- "$3" 2>/dev/null | grep -q "\"PRIORITY\":\"$2\""
}
# A client that keeps a looping pattern playing (and its connection open) until killed.
start_loop() { as alice "$HAPTICCTL" play rumble-long --loop > "$T/loop.out" 2>&1 & loop_pid=$!; }
stop_loop() { kill "$loop_pid" 2>/dev/null; wait "$loop_pid" 2>/dev/null; true; }

# Time of the package manager's steps, for the report (TCG makes apt and dpkg slow).
exec 3>&1
timed() { local s=$SECONDS; "$@"; local r=$?; echo "  ($1 $2 took $((SECONDS - s)) s)" >&3; return $r; }

echo "VM-BOOTED kernel $(uname -r); PID 1 is $(readlink /proc/1/exe); $(systemctl --version | head -1)"
boot_state=$(timeout 120 systemctl is-system-running --wait)
systemd-analyze time | head -1

check_boot() {
    [ "$(readlink /proc/1/exe)" = /usr/lib/systemd/systemd ] || because "PID 1 is $(readlink /proc/1/exe)" || return 1
    [ "$boot_state" = running ] || because "system state '$boot_state'; failed: $(systemctl --failed --plain --no-legend | tr '\n' ' ')"
}
check boot

# Two users: alice may use hapticd (group input), bob may not.
useradd -m -G input alice
useradd -m bob

# The pad appears after boot, as a hot-plugged one would.
start_pad() {  # start_pad UNIT NAME: sets pad_node to its event node
    local name=$2 input=""
    systemd-run --quiet --unit="$1" "$P/fakepad" --name "$name" --log "$PAD_LOG"
    wait_until 30 grep -qs "CREATED name=$name" "$PAD_LOG" || return 1
    wait_until 30 eval 'input=$(grep -lx "$name" /sys/class/input/input*/name 2>/dev/null | head -1); [ -n "$input" ]' || return 1
    pad_node=/dev/input/$(basename "$(ls -d "$(dirname "$input")"/event* | head -1)")
    udevadm settle --timeout=30
}
pad_node=""
start_pad hapticd-test-pad "hapticd test pad" || echo "FAIL pad: the fixture pad did not appear"
PAD=$pad_node
echo "pad: $PAD"

check_udev_gives_input_group() {
    # Debian's udev (50-udev-default.rules: SUBSYSTEM=="input", GROUP="input"; 0660 when a group is
    # set) already gives the group input the event nodes: hapticd's rule is for hidraw nodes only.
    local got
    got=$(stat -c '%U:%G %a' "$PAD")
    [ "$got" = "root:input 660" ] || because "$PAD is $got" || return 1
    ! ls /etc/udev/rules.d /lib/udev/rules.d /usr/lib/udev/rules.d /usr/local/lib/udev/rules.d 2>/dev/null | grep -qi haptic \
        || because "a hapticd udev rule is installed before hapticd"
}
check udev_gives_input_group

# --- From source: the tree `make install` made (PREFIX=/usr/local), then the README's three commands.
HAPTICCTL=/usr/local/bin/hapticctl
tar -C / -xf "$P/make-install.tar"
systemctl daemon-reload && systemd-sysusers && systemctl enable --now hapticd.socket
echo "make install: README commands exit $?"

check_make_install_enabled() {
    [ "$(systemctl is-enabled hapticd.socket)" = enabled ] || because "hapticd.socket is $(systemctl is-enabled hapticd.socket)" || return 1
    is_state hapticd.socket active || because "hapticd.socket is $(state hapticd.socket)" || return 1
    is_state hapticd.service inactive || because "hapticd.service is $(state hapticd.service) before any client" || return 1
    systemctl show -P ExecStart hapticd.service | grep -q "path=/usr/local/bin/hapticd " || because "ExecStart is not /usr/local/bin/hapticd" || return 1
    # The udev rule, where udev reads local rules, made from the hidraw profiles.
    cmp -s /usr/local/lib/udev/rules.d/70-hapticd.rules <(/usr/local/bin/hapticd --print-udev-rules --config /dev/null) \
        || because "/usr/local/lib/udev/rules.d/70-hapticd.rules is missing or not what hapticd --print-udev-rules prints"
}
check make_install_enabled

check_make_install_plays() {
    local from out
    from=$(pad_lines)
    out=$(as alice "$HAPTICCTL" play heartbeat 2>&1) || because "alice: hapticctl play heartbeat: $out" || return 1
    wait_until 10 is_state hapticd.service active || because "hapticd.service is $(state hapticd.service)" || return 1
    wait_until 30 rumbled_since "$from" || because "the pad log shows no rumble"
}
check make_install_plays

# make uninstall, without make: what it removes is what `make install` put there.
systemctl disable --now hapticd.socket hapticd.service
tar -tf "$P/make-install.tar" | grep -v '/$' | sed 's|^\./|/|' | xargs rm -f
rm -rf /usr/local/share/hapticd /usr/local/share/doc/hapticd /etc/hapticd
systemctl daemon-reload
# udevd notices the removed rule by itself (it checks the rules' time stamps, at most every 3 s); now,
# so that the pads below are plugged in without it.
udevadm control --reload

check_make_install_removed() {
    is_state hapticd.service inactive || because "hapticd.service is $(state hapticd.service)" || return 1
    ! systemctl cat hapticd.socket >/dev/null 2>&1 || because "hapticd.socket still known" || return 1
    [ ! -e "$SOCK" ] || because "$SOCK still exists" || return 1
    wait_until 10 motor_off || because "a motor is still on"
}
check make_install_removed

# --- The Debian package.
HAPTICCTL=/usr/bin/hapticctl

# Two emulated pads behind the kernel's HID drivers (uhid), plugged in before the package: a Switch Pro
# Controller over USB (hid-nintendo), which a hidraw profile drives through its own reports, and a
# DualShock 4 (hid-sony), driven through evdev, whose hidraw node no rule of hapticd's names.
modprobe uhid
# start_uhid UNIT TYPE: the emulated pad, its log $T/TYPE.log
start_uhid() {
    systemd-run --quiet --unit="$1" "$P/uhidpad" --type "$2" --log "$T/$2.log"
    wait_until 60 grep -qs "INPUTNAME" "$T/$2.log" || return 1
    udevadm settle --timeout=30
}
# hidraw_of HID-PREFIX: the newest hidraw node whose HID device is BUS:VENDOR:PRODUCT.*
hidraw_of() {
    local h
    for h in /sys/class/hidraw/hidraw*; do
        [ -e "$h" ] && case "$(basename "$(readlink -f "$h/device")")" in "$1".*) echo "/dev/$(basename "$h")" ;; esac
    done | sort -V | tail -1
}
mode_of() { stat -c '%U:%G %a' "$1" 2>&1; }
SWITCH_HID=0003:057E:2009
DS4_HID=0003:054C:05C4
start_uhid hapticd-test-switch switch-pro-usb || echo "FAIL pad: the emulated Switch Pro Controller did not appear: $(tail -3 "$T/switch-pro-usb.log" 2>&1 | tr '\n' ' ')"
start_uhid hapticd-test-ds4 ds4-usb || echo "FAIL pad: the emulated DualShock 4 did not appear: $(tail -3 "$T/ds4-usb.log" 2>&1 | tr '\n' ' ')"
SWITCH_HIDRAW=$(hidraw_of $SWITCH_HID)
DS4_HIDRAW=$(hidraw_of $DS4_HID)
switch_before=$(mode_of "$SWITCH_HIDRAW")
echo "hidraw: Switch Pro $SWITCH_HIDRAW ($switch_before), DualShock 4 $DS4_HIDRAW ($(mode_of "$DS4_HIDRAW"))"
deb=$(ls "$P"/hapticd_*.deb)
cp "$deb" /tmp/
apt_log=$T/apt-install.log

check_deb_install() {
    DEBIAN_FRONTEND=noninteractive timed apt-get install -y "/tmp/$(basename "$deb")" > "$apt_log" 2>&1 \
        || because "apt-get install: $(tail -3 "$apt_log" | tr '\n' ' ')" || return 1
    [ "$(dpkg-query -W -f='${Status}' hapticd)" = "install ok installed" ] || because "dpkg: $(dpkg-query -W -f='${Status}' hapticd)" || return 1
    [ "$(systemctl is-enabled hapticd.socket)" = enabled ] || because "hapticd.socket is $(systemctl is-enabled hapticd.socket)" || return 1
    is_state hapticd.socket active || because "hapticd.socket is $(state hapticd.socket)" || return 1
    is_state hapticd.service inactive || because "installing started hapticd.service" || return 1
    [ -d /etc/hapticd/patterns ] && [ -f /etc/hapticd/hapticd.toml ] || because "no /etc/hapticd" || return 1
    getent group input >/dev/null || because "no group input"
}
check deb_install

check_units_verify() {
    local out
    out=$(systemd-analyze verify --man=no hapticd.socket hapticd.service 2>&1) || because "systemd-analyze verify: $out" || return 1
    [ -z "$out" ] || because "systemd-analyze verify says: $out"
}
check units_verify

check_socket_permissions() {
    local s d
    s=$(stat -c '%U:%G %a %F' "$SOCK" 2>&1)
    d=$(stat -c '%U:%G %a' /run/hapticd 2>&1)
    [ "$s" = "root:input 660 socket" ] || because "$SOCK is $s" || return 1
    [ "$d" = "root:root 755" ] || because "/run/hapticd is $d"
}
check socket_permissions

check_hidraw_udev_rule() {
    # The installed rule is the one made from the hidraw profiles; the package's postinst applied it to
    # the pad already plugged in (root-only before); the DualShock 4's hidraw node stays root-only.
    cmp -s /usr/lib/udev/rules.d/70-hapticd.rules <(/usr/bin/hapticd --print-udev-rules --config /dev/null) \
        || because "/usr/lib/udev/rules.d/70-hapticd.rules is missing or not what hapticd --print-udev-rules prints" || return 1
    grep -q '^SUBSYSTEM=="hidraw", KERNELS=="0003:057E:2009\.\*", GROUP="input", MODE="0660"$' /usr/lib/udev/rules.d/70-hapticd.rules \
        || because "no line for the Switch Pro Controller over USB" || return 1
    [ -n "$SWITCH_HIDRAW" ] && [ -n "$DS4_HIDRAW" ] || because "no hidraw node for the emulated pads" || return 1
    [ "$switch_before" = "root:root 600" ] || because "before the package, $SWITCH_HIDRAW was $switch_before" || return 1
    [ "$(mode_of "$SWITCH_HIDRAW")" = "root:input 660" ] || because "$SWITCH_HIDRAW (Switch Pro) is $(mode_of "$SWITCH_HIDRAW") after the package" || return 1
    [ "$(mode_of "$DS4_HIDRAW")" = "root:root 600" ] || because "$DS4_HIDRAW (DualShock 4) is $(mode_of "$DS4_HIDRAW")"
}
check hidraw_udev_rule

# pad_json NAME: the `devices` entry of the connected pad with that name.
pad_json() { as alice "$HAPTICCTL" devices --json | grep -o "{[^{}]*\"name\":\"$1\"[^{}]*}" | grep '"connected":true' | head -1; }
pad_number() { pad_json "$1" | sed -n 's/.*"device":\([0-9]*\).*/\1/p'; }
SWITCH_NAME="Nintendo Switch Pro Controller"
DS4_NAME="Sony Computer Entertainment Wireless Controller"
switch_rumbled_since() { sed -n "$(($1 + 1)),\$p" "$T/switch-pro-usb.log" | grep "RUMBLE .*via=output id=0x10" | grep -qv "strong=0 weak=0"; }
fds_of_daemon() { ls -l "/proc/$(main_pid)/fd" 2>/dev/null | sed -n 's/.* -> //p'; }

check_hidraw_backend() {
    # The service drives the Switch Pro Controller through its hidraw node (the unit lets it open it),
    # the DualShock 4 through evdev, and holds no descriptor on the DualShock 4's hidraw node.
    local n caps from
    wait_until 60 eval '[ -n "$(pad_number "$SWITCH_NAME")" ]' || because "hapticd does not list the Switch Pro: $(as alice "$HAPTICCTL" devices 2>&1 | tr '\n' ' ')" || return 1
    n=$(pad_number "$SWITCH_NAME")
    caps=$(as alice "$HAPTICCTL" caps --device "$n" --json)
    echo "$caps" | grep -q '"backend":"hidraw"' || because "Switch Pro: $(echo "$caps" | grep -o '"backend[^,]*,[^,]*,[^,]*')" || return 1
    echo "$caps" | grep -q "\"hidraw_node\":\"$SWITCH_HIDRAW\"" || because "Switch Pro: not $SWITCH_HIDRAW: $(echo "$caps" | grep -o '"hidraw_node[^,]*')" || return 1
    echo "$caps" | grep -q '"profile":"switch-pro-usb-hd"' || because "Switch Pro: profile $(echo "$caps" | grep -o '"profile":[^,]*')" || return 1
    from=$(wc -l < "$T/switch-pro-usb.log")
    as alice "$HAPTICCTL" play heartbeat --device "$n" > /dev/null || because "play on the Switch Pro failed" || return 1
    wait_until 30 switch_rumbled_since "$from" || because "the Switch Pro got no HD rumble report (0x10)" || return 1
    fds_of_daemon | grep -qx "$SWITCH_HIDRAW" || because "hapticd holds no descriptor on $SWITCH_HIDRAW" || return 1
    wait_until 30 eval '[ -n "$(pad_number "$DS4_NAME")" ]' || because "hapticd does not list the DualShock 4" || return 1
    pad_json "$DS4_NAME" | grep -q '"backend":"evdev"' || because "DualShock 4: $(pad_json "$DS4_NAME")" || return 1
    ! fds_of_daemon | grep -qx "$DS4_HIDRAW" || because "hapticd opened the DualShock 4's hidraw node $DS4_HIDRAW" || return 1
    echo "  Switch Pro: device $n, backend hidraw on $SWITCH_HIDRAW; DualShock 4: evdev"
}
check hidraw_backend

waits_logged() { journalctl -u hapticd.service -o cat --no-pager | grep -c "waiting up to .* for its hidraw node"; }
ready_logged() { journalctl -u hapticd.service -o cat --no-pager | grep -c "its hidraw node $1 is ready"; }
reloads_logged() { journalctl -u hapticd.service -o cat --no-pager | grep -c "configuration and pattern library reloaded"; }

check_hidraw_hotplug() {
    # Unplugged and plugged in again while the service runs: a new hidraw node, which the rule gives
    # to input and the service opens (no private /dev to miss it). udev gives the node its group on
    # its own schedule, after the pad's event node is there: here it is made late on purpose (the
    # rule masked while the pad comes, then applied), and the pad waits for it (devices.hidraw_wait)
    # instead of being driven through evdev for good, which a fresh CI run once saw by chance.
    local old=$SWITCH_HIDRAW node n created waits reloads ready
    cp /etc/hapticd/hapticd.toml "$T/hapticd.toml.before-wait"
    sed -i 's/^#hidraw_wait = .*/hidraw_wait = 60/' /etc/hapticd/hapticd.toml
    grep -q '^hidraw_wait = 60$' /etc/hapticd/hapticd.toml || because "no hidraw_wait key in the shipped hapticd.toml" || return 1
    reloads=$(reloads_logged)
    systemctl reload hapticd.service || because "systemctl reload failed" || return 1
    wait_until 30 eval '[ "$(reloads_logged)" -gt "$reloads" ]' || because "hapticd did not reload hidraw_wait = 60" || return 1
    : > /etc/udev/rules.d/70-hapticd.rules
    udevadm control --reload
    waits=$(waits_logged)
    created=$(grep -c CREATED "$T/switch-pro-usb.log")
    systemctl kill -s USR1 hapticd-test-switch
    wait_until 30 eval '[ -z "$(pad_number "$SWITCH_NAME")" ]' || because "the unplugged Switch Pro is still listed" || return 1
    wait_until 30 eval '[ -z "$(hidraw_of $SWITCH_HID)" ]' || because "its hidraw node did not go" || return 1
    systemctl kill -s USR2 hapticd-test-switch
    wait_until 30 eval '[ "$(grep -c CREATED "$T/switch-pro-usb.log")" -gt "$created" ] && node=$(hidraw_of $SWITCH_HID) && [ -n "$node" ]' \
        || because "no hidraw node after plugging in again" || return 1
    udevadm settle --timeout=30
    [ "$(mode_of "$node")" = "root:root 600" ] || because "with the rule masked, the new $node is $(mode_of "$node")" || return 1
    wait_until 30 eval '[ "$(waits_logged)" -gt "$waits" ]' \
        || because "hapticd does not wait for $node: $(as alice "$HAPTICCTL" devices --json)" || return 1
    [ -z "$(pad_number "$SWITCH_NAME")" ] || because "while it waits for its node the pad is listed: $(pad_json "$SWITCH_NAME")" || return 1
    ready=$(ready_logged "$node")
    rm -f /etc/udev/rules.d/70-hapticd.rules
    udevadm control --reload
    udevadm trigger --action=change "/sys/class/hidraw/${node#/dev/}"
    udevadm settle --timeout=30
    [ "$(mode_of "$node")" = "root:input 660" ] || because "the new $node is $(mode_of "$node")" || return 1
    wait_until 60 eval 'n=$(pad_number "$SWITCH_NAME"); [ -n "$n" ] && as alice "$HAPTICCTL" caps --device "$n" --json | grep -q "\"hidraw_node\":\"$node\""' \
        || because "hapticd does not drive the plugged-in-again pad through $node: $(as alice "$HAPTICCTL" devices --json)" || return 1
    # Taken when udev gave it the node (a look on the node's change), not at the 60 s wait's end.
    wait_until 10 eval '[ "$(ready_logged "$node")" -gt "$ready" ]' || because "hapticd took $node, but not on its change: $(journalctl -u hapticd.service -o cat --no-pager | grep hidraw | tail -3)" || return 1
    SWITCH_HIDRAW=$node
    echo "  $old unplugged, $node plugged in: waited for udev to give it to input (root:input 660), backend hidraw"
}
check hidraw_hotplug
# Whatever the check left: the package's rule in force (applied to the node it may have left
# root-only), the shipped configuration, the Switch's node as it is now.
if [ -e /etc/udev/rules.d/70-hapticd.rules ]; then
    rm -f /etc/udev/rules.d/70-hapticd.rules
    udevadm control --reload
    udevadm trigger --action=change --subsystem-match=hidraw
    udevadm settle --timeout=30
fi
if [ -f "$T/hapticd.toml.before-wait" ] && ! cmp -s "$T/hapticd.toml.before-wait" /etc/hapticd/hapticd.toml; then
    reloads=$(reloads_logged)
    cp "$T/hapticd.toml.before-wait" /etc/hapticd/hapticd.toml
    systemctl reload hapticd.service && wait_until 30 eval '[ "$(reloads_logged)" -gt "$reloads" ]'
fi
SWITCH_HIDRAW=$(hidraw_of $SWITCH_HID)

check_hidraw_device_policy() {
    # Controls in throwaway dynamic-user services with the unit's device settings: the Switch Pro's
    # hidraw node opens; the DualShock 4's does not (root-only: the rule did not name it); and without
    # DeviceAllow=char-hidraw the Switch Pro's does not either (the device cgroup, not the mode, refuses).
    local dev=(-p DynamicUser=yes -p SupplementaryGroups=input -p DevicePolicy=closed -p "DeviceAllow=char-input rw")
    systemd-run --quiet --wait --pipe "${dev[@]}" -p "DeviceAllow=char-hidraw rw" /bin/sh -c "exec 3<>$SWITCH_HIDRAW" 2>/dev/null \
        || because "control: the unit's settings cannot open $SWITCH_HIDRAW" || return 1
    ! systemd-run --quiet --wait --pipe "${dev[@]}" -p "DeviceAllow=char-hidraw rw" /bin/sh -c "exec 3<>$DS4_HIDRAW" 2>/dev/null \
        || because "control: the unit's settings opened the DualShock 4's $DS4_HIDRAW" || return 1
    ! systemd-run --quiet --wait --pipe "${dev[@]}" /bin/sh -c "exec 3<>$SWITCH_HIDRAW" 2>/dev/null \
        || because "control: $SWITCH_HIDRAW opened without DeviceAllow=char-hidraw"
}
check hidraw_device_policy

# The emulated pads go; what follows uses the fixture pad alone, and starts from a stopped service.
systemctl stop hapticd-test-switch hapticd-test-ds4
systemctl stop hapticd.service 2>/dev/null

check_socket_activation() {
    local from out
    is_state hapticd.service inactive || because "hapticd.service already $(state hapticd.service)" || return 1
    from=$(pad_lines)
    out=$(as alice "$HAPTICCTL" play heartbeat 2>&1) || because "alice: hapticctl play heartbeat: $out" || return 1
    wait_until 10 is_state hapticd.service active || because "hapticd.service is $(state hapticd.service)" || return 1
    wait_until 30 rumbled_since "$from" || because "the pad log shows no rumble" || return 1
    # SO_PEERCRED gives the daemon the client's real uid (clients.allow_uids, player takeover).
    journalctl -q -u hapticd.service -o cat | grep -q "client [0-9]* connected (pid [0-9]* uid $(id -u alice) " \
        || because "hapticd did not see alice's uid: $(journalctl -q -u hapticd.service -o cat | grep -m1 'connected (')" || return 1
    echo "  $out; pad: $(sed -n "$((from + 1)),\$p" "$PAD_LOG" | grep -m1 UPLOAD)"
}
check socket_activation

check_feedback_from_library() {
    # UIKit-style feedback plays its built-in pattern (impact-heavy) on the pad.
    local from out
    from=$(pad_lines)
    out=$(as alice "$HAPTICCTL" feedback impact heavy 2>&1) || because "alice: hapticctl feedback impact heavy: $out" || return 1
    wait_until 30 rumbled_since "$from" || because "the pad log shows no rumble"
}
check feedback_from_library

check_libhapticd_client() {
    # libhapticd1 from its package, and a program built against libhapticd-dev (examples/c/play-file.c),
    # run by alice: the library finds the system socket and the pattern plays.
    local from out libdeb
    libdeb=$(ls "$P"/libhapticd1_*.deb)
    cp "$libdeb" /tmp/
    DEBIAN_FRONTEND=noninteractive timed apt-get install -y "/tmp/$(basename "$libdeb")" > "$T/apt-lib.log" 2>&1 \
        || because "apt-get install libhapticd1: $(tail -3 "$T/apt-lib.log" | tr '\n' ' ')" || return 1
    ldd "$P/play-file" | grep -qE "libhapticd.so.1 => (/usr)?/lib/[a-z0-9_]+-linux-gnu/libhapticd.so.1 " \
        || because "play-file does not use the packaged library: $(ldd "$P/play-file" | tr '\n' ' ')" || return 1
    from=$(pad_lines)
    out=$(as alice "$P/play-file" heartbeat 2>&1) || because "alice: play-file heartbeat: $out" || return 1
    wait_until 30 rumbled_since "$from" || because "the pad log shows no rumble"
}
check libhapticd_client

check_dynamic_user() {
    local pid uid groups input_gid
    pid=$(main_pid)
    [ "$pid" -gt 0 ] || because "no main PID" || return 1
    uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")
    groups=$(awk '/^Groups:/ {$1=""; print}' "/proc/$pid/status")
    input_gid=$(getent group input | cut -d: -f3)
    [ "$(systemctl show -P DynamicUser hapticd.service)" = yes ] || because "DynamicUser is not yes" || return 1
    [ "$uid" -ge 61184 ] && [ "$uid" -le 65519 ] || because "uid $uid is not a dynamic one (61184-65519)" || return 1
    echo " $groups " | grep -q " $input_gid " || because "groups [$groups] lack input ($input_gid)"
    echo "  uid $uid, groups$groups"
}
check dynamic_user

check_hardening() {
    local pid want got props wants
    wants=(NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes PrivateNetwork=yes \
                ProtectKernelTunables=yes ProtectKernelModules=yes ProtectKernelLogs=yes ProtectControlGroups=yes \
                ProtectClock=yes ProtectHostname=yes ProtectProc=invisible ProcSubset=pid RestrictNamespaces=yes \
                RestrictRealtime=no RestrictSUIDSGID=yes LockPersonality=yes MemoryDenyWriteExecute=yes \
                RestrictAddressFamilies=AF_UNIX PrivateDevices=no DevicePolicy=closed ReadOnlyPaths=/dev \
                CapabilityBoundingSet= AmbientCapabilities= SystemCallErrorNumber=1 SystemCallArchitectures=native \
                Type=notify NotifyAccess=main WatchdogUSec=10s Restart=on-failure LimitRTPRIO=10 LimitRTTIME=200000)
    props=$(systemctl show hapticd.service $(printf -- '-p %s ' "${wants[@]%%=*}" DeviceAllow SystemCallFilter))
    for want in "${wants[@]}"; do
        echo "$props" | grep -qx -- "$want" || because "systemctl show: $(echo "$props" | grep "^${want%%=*}="), expected $want" || return 1
    done
    # Devices: input devices, hidraw nodes and ALSA's nodes (a USB DualSense's audio stream)
    # read-write, and the real-time clock read-only (ProtectClock=yes adds it).
    got=$(echo "$props" | sed -n 's/^DeviceAllow=//p' | sort | tr '\n' ';')
    [ "$got" = "char-alsa rw;char-hidraw rw;char-input rw;char-rtc r;" ] || because "DeviceAllow: $got" || return 1
    # The allow-list keeps setpriority (libdispatch) and sched_setscheduler (the render thread's
    # SCHED_FIFO) and nothing else of @privileged/@resources.
    got=$(echo "$props" | sed -n 's/^SystemCallFilter=//p')
    for call in setpriority sched_setscheduler ioctl epoll_wait sendmsg; do
        echo " $got " | grep -q " $call " || because "SystemCallFilter lacks $call" || return 1
    done
    # ioperm, iopl: @raw-io, which PrivateDevices=yes would remove; the allow-list does not have it.
    for call in setrlimit sched_setattr sched_setaffinity setuid chown mount sethostname ioperm iopl; do
        ! echo " $got " | grep -q " $call " || because "SystemCallFilter allows $call" || return 1
    done
    pid=$(main_pid)
    grep -q "^NoNewPrivs:[[:space:]]*1" "/proc/$pid/status" || because "NoNewPrivs is not set" || return 1
    grep -q "^Seccomp:[[:space:]]*2" "/proc/$pid/status" || because "no seccomp filter" || return 1
    grep -q "^CapEff:[[:space:]]*0000000000000000" "/proc/$pid/status" || because "effective capabilities" || return 1
    grep -q "^CapBnd:[[:space:]]*0000000000000000" "/proc/$pid/status" || because "capability bounding set not empty" || return 1
    awk '$5 == "/" {print $6}' "/proc/$pid/mountinfo" | grep -q '^ro' || because "/ is writable for hapticd" || return 1
    # The host's /dev (no private one), read-only with everything under it: /dev/shm too.
    awk '$5 == "/dev" {print $6}' "/proc/$pid/mountinfo" | grep -q '^ro' || because "/dev is writable for hapticd" || return 1
    awk '$5 == "/dev/shm" {print $6}' "/proc/$pid/mountinfo" | grep -q '^ro' || because "/dev/shm is writable for hapticd" || return 1
    # ProtectKernelLogs=yes covers /dev/kmsg in the host's /dev with an inaccessible node.
    awk '$5 == "/dev/kmsg"' "/proc/$pid/mountinfo" | grep -q . || because "/dev/kmsg is not covered for hapticd"
}
check hardening

check_realtime_render_thread() {
    # The render thread, and only it, runs under SCHED_FIFO at the priority LimitRTPRIO= grants
    # (render.realtime_priority 10); /proc/PID/task/TID/stat fields 40 and 41: rt_priority, policy.
    local pid task name fields rt=0 others=0
    pid=$(main_pid)
    for task in /proc/"$pid"/task/*; do
        name=$(cat "$task/comm")
        fields=$(sed 's/.*) //' "$task/stat" | awk '{print $38 " " $39}')
        if [ "$name" = hapticd.render ]; then
            [ "$fields" = "10 1" ] || because "the render thread's rt_priority and policy are $fields, not 10 1" || return 1
            rt=1
        elif [ "${fields#* }" != 0 ]; then
            others=$((others + 1)); echo "  $name: $fields"
        fi
    done
    [ $rt = 1 ] || because "no thread named hapticd.render in $pid" || return 1
    [ $others = 0 ] || because "$others other threads are not SCHED_OTHER" || return 1
    journal_priority "" 6 "render thread: real-time, SCHED_FIFO priority 10" \
        || because "the journal does not say (at info) that the render thread is real-time"
}
check realtime_render_thread

connected_pads() { as alice "$HAPTICCTL" devices | grep -c "(connected)$"; }
check_hotplug_in_sandbox() {
    # A pad plugged in while the daemon runs: inotify sees it, udev gives it to input, DeviceAllow lets it
    # open (in the host's /dev, which the service sees).
    local before
    before=$(connected_pads)
    start_pad hapticd-test-pad2 "hapticd second pad" || because "the second pad did not appear" || return 1
    wait_until 30 eval '[ "$(connected_pads)" -eq $((before + 1)) ]' \
        || because "hapticd did not open the hot-plugged pad: $(as alice "$HAPTICCTL" devices | tr '\n' ' ')" || return 1
    systemctl stop hapticd-test-pad2
    wait_until 30 eval '[ "$(connected_pads)" -eq $before ]' \
        || because "the unplugged pad is still listed"
}
check hotplug_in_sandbox

check_device_policy() {
    # Two nodes hapticd must not open: a copy of the pad's node that only root may open (the input
    # group is what lets hapticd open the real one), and a node anyone may open whose device is not
    # an input device (uinput, char-misc: DeviceAllow=char-input refuses it).
    local major minor c out
    major=$((0x$(stat -c %t "$PAD"))); minor=$((0x$(stat -c %T "$PAD")))
    systemctl stop hapticd.service 2>/dev/null   # (it warns that the socket can start it again: that is the point)
    mknod -m 0600 /dev/input/event200 c "$major" "$minor"
    mknod -m 0666 /dev/input/event201 c 10 223
    c=$(cursor)
    out=$(as alice "$HAPTICCTL" devices 2>&1)
    rm -f /dev/input/event200 /dev/input/event201
    [ "$(echo "$out" | grep -c "^[0-9]")" -eq 1 ] && echo "$out" | grep -q "$PAD" || because "devices: $out" || return 1
    wait_until 10 journal_has "$c" "event200: open failed: permission denied" -u hapticd.service \
        || because "no 'permission denied' for the root-only node event200" || return 1
    wait_until 10 journal_has "$c" "event201: open failed: permission denied" -u hapticd.service \
        || because "no 'permission denied' for the uinput node event201" || return 1
    # Controls: the same opens in throwaway dynamic-user services. Without the device policy the
    # world-writable uinput node opens; without the input group the pad's node does not.
    mknod -m 0666 /dev/input/event201 c 10 223
    systemd-run --quiet --wait --pipe -p DynamicUser=yes -p SupplementaryGroups=input \
        /bin/sh -c 'exec 3</dev/input/event201' 2>/dev/null || because "control: event201 does not open even without DevicePolicy" || { rm -f /dev/input/event201; return 1; }
    ! systemd-run --quiet --wait --pipe -p DynamicUser=yes -p SupplementaryGroups=input -p DevicePolicy=closed \
        -p "DeviceAllow=char-input rw" /bin/sh -c 'exec 3</dev/input/event201' 2>/dev/null || because "control: DeviceAllow=char-input let event201 open" || { rm -f /dev/input/event201; return 1; }
    rm -f /dev/input/event201
    ! systemd-run --quiet --wait --pipe -p DynamicUser=yes /bin/sh -c "exec 3<>$PAD" 2>/dev/null \
        || because "control: a dynamic user outside input opened $PAD" || return 1
    systemd-run --quiet --wait --pipe -p DynamicUser=yes -p SupplementaryGroups=input -p DevicePolicy=closed \
        -p "DeviceAllow=char-input rw" /bin/sh -c "exec 3<>$PAD" || because "control: the input group could not open $PAD"
}
check device_policy

check_outsider_refused() {
    local out
    out=$(as bob "$HAPTICCTL" ping 2>&1) && because "bob (not in input) got: $out" && return 1
    echo "$out" | grep -q "permission denied" || because "bob: $out" || return 1
    echo "  bob: $out"
}
check outsider_refused

check_reload_keeps_client() {
    local pid c
    # stdbuf: hapticctl's standard output is block-buffered when it is not a terminal.
    as alice stdbuf -oL "$HAPTICCTL" watch --seconds 120 > "$T/watch.out" 2>&1 & local watch_pid=$!
    wait_until 30 grep -q "^watching" "$T/watch.out" || because "watch did not subscribe: $(cat "$T/watch.out")" || { kill $watch_pid; return 1; }
    pid=$(main_pid)
    c=$(cursor)
    systemctl reload hapticd.service || because "systemctl reload failed" || { kill $watch_pid; return 1; }
    wait_until 30 journal_has "$c" "configuration and pattern library reloaded" -u hapticd.service \
        || because "no reload in the journal" || { kill $watch_pid; return 1; }
    [ "$(main_pid)" = "$pid" ] || because "the daemon was restarted, not reloaded" || { kill $watch_pid; return 1; }
    # An event for every subscriber: a pad plugged in after the reload.
    start_pad hapticd-test-pad3 "hapticd third pad" || because "the third pad did not appear" || { kill $watch_pid; return 1; }
    wait_until 30 grep -q '"event":"device.added"' "$T/watch.out" \
        || because "the client connected before the reload saw no event after it: $(tail -2 "$T/watch.out" | tr '\n' ' ')"
    local r=$?
    systemctl stop hapticd-test-pad3
    kill $watch_pid 2>/dev/null; wait $watch_pid 2>/dev/null
    return $r
}
check reload_keeps_client

check_bad_reload_keeps_config() {
    local c
    cp /etc/hapticd/hapticd.toml "$T/hapticd.toml.good"
    printf '[render]\ntick_period = 7\n' >> /etc/hapticd/hapticd.toml
    c=$(cursor)
    systemctl reload hapticd.service
    wait_until 30 journal_priority "$c" 3 "reload failed, keeping the running configuration"
    local r=$?
    cp "$T/hapticd.toml.good" /etc/hapticd/hapticd.toml
    [ $r -eq 0 ] || because "no error-priority 'reload failed' line in the journal ($(state hapticd.service)): $(journalctl -q --after-cursor="$c" -u hapticd.service -o cat | tail -3 | tr '\n' ' ')" || return 1
    as alice "$HAPTICCTL" ping > /dev/null || because "hapticd stopped answering after a bad reload"
}
check bad_reload_keeps_config

check_stop_stops_motor() {
    start_loop
    wait_until 30 motor_on || because "the looping pattern did not start" || { stop_loop; return 1; }
    systemctl stop hapticd.service 2>/dev/null   # (it warns that the socket can start it again: that is the point)
    wait_until 10 motor_off || because "a motor is still on after systemctl stop" || { stop_loop; return 1; }
    stop_loop
    [ -S "$SOCK" ] || because "$SOCK is gone after the service stopped" || return 1
    is_state hapticd.socket active || because "hapticd.socket is $(state hapticd.socket)" || return 1
    as alice "$HAPTICCTL" ping > /dev/null || because "the next client could not reach hapticd" || return 1
    wait_until 10 is_state hapticd.service active || because "the next client did not start hapticd.service"
}
check stop_stops_motor

check_restart_while_rumbling() {
    local pid
    start_loop
    wait_until 30 motor_on || because "the looping pattern did not start" || { stop_loop; return 1; }
    pid=$(main_pid)
    systemctl restart hapticd.service || because "systemctl restart failed" || { stop_loop; return 1; }
    stop_loop
    is_state hapticd.service active && [ "$(main_pid)" != "$pid" ] || because "hapticd.service did not restart" || return 1
    wait_until 10 motor_off || because "a motor is on after the restart"
}
check restart_while_rumbling

check_watchdog() {
    local pid c
    start_loop
    wait_until 30 motor_on || because "the looping pattern did not start" || { stop_loop; return 1; }
    pid=$(main_pid)
    c=$(cursor)
    kill -STOP "$pid"
    # WatchdogSec=10s, then SIGABRT, which a stopped process ignores, then SIGKILL after TimeoutStopSec=5s.
    wait_until 60 eval '[ "$(main_pid)" != "$pid" ] && [ "$(main_pid)" != 0 ] && is_state hapticd.service active' \
        || because "systemd did not replace the hung daemon (main PID $(main_pid), $(state hapticd.service))" || { stop_loop; return 1; }
    stop_loop
    journal_has "$c" "Watchdog timeout" -u hapticd.service || because "no watchdog timeout in the journal" || return 1
    wait_until 10 motor_off || because "a motor is on after the watchdog restart"
}
check watchdog

check_security_score() {
    local out score
    out=$(systemd-analyze security hapticd.service 2>&1)
    echo "SECURITY-BEGIN"; echo "$out"; echo "SECURITY-END"
    score=$(echo "$out" | sed -n 's/.*Overall exposure level for hapticd.service: \([0-9.]*\).*/\1/p')
    [ -n "$score" ] || because "no score: $(echo "$out" | tail -1)" || return 1
    awk -v s="$score" 'BEGIN { exit !(s <= 1.0) }' || because "exposure $score > 1.0"
    echo "  exposure $score"
}
check security_score

check_apt_remove() {
    start_loop
    wait_until 30 motor_on || because "the looping pattern did not start" || { stop_loop; return 1; }
    DEBIAN_FRONTEND=noninteractive timed apt-get remove -y hapticd > "$T/apt-remove.log" 2>&1 \
        || because "apt-get remove: $(tail -3 "$T/apt-remove.log" | tr '\n' ' ')" || { stop_loop; return 1; }
    wait_until 10 motor_off || because "a motor is on after apt remove" || { stop_loop; return 1; }
    stop_loop
    is_state hapticd.service inactive || because "hapticd.service is $(state hapticd.service)" || return 1
    is_state hapticd.socket inactive || because "hapticd.socket is $(state hapticd.socket)" || return 1
    [ ! -e "$SOCK" ] && [ ! -e /run/hapticd ] || because "/run/hapticd is left" || return 1
    [ ! -e /usr/bin/hapticd ] || because "/usr/bin/hapticd is left" || return 1
    [ -f /etc/hapticd/hapticd.toml ] || because "remove took the configuration (only purge should)"
}
# For the record (docs/packaging.md): what removing the package does to a plugged-in pad's hidraw
# node, and to one plugged in after.
start_uhid hapticd-test-switch switch-pro-usb && node_before_remove=$(hidraw_of $SWITCH_HID)
echo "hidraw before apt remove: $node_before_remove $(mode_of "$node_before_remove")"
check apt_remove
udevadm settle --timeout=30
echo "hidraw after apt remove: $node_before_remove $(mode_of "$node_before_remove")"
created=$(grep -c CREATED "$T/switch-pro-usb.log")
systemctl kill -s USR1 hapticd-test-switch; sleep 2; systemctl kill -s USR2 hapticd-test-switch
wait_until 30 eval '[ "$(grep -c CREATED "$T/switch-pro-usb.log")" -gt "$created" ] && [ -n "$(hidraw_of $SWITCH_HID)" ]'
udevadm settle --timeout=30
echo "hidraw plugged in after apt remove: $(hidraw_of $SWITCH_HID) $(mode_of "$(hidraw_of $SWITCH_HID)")"
systemctl stop hapticd-test-switch

check_apt_purge() {
    DEBIAN_FRONTEND=noninteractive timed apt-get purge -y hapticd > "$T/apt-purge.log" 2>&1 \
        || because "apt-get purge: $(tail -3 "$T/apt-purge.log" | tr '\n' ' ')" || return 1
    [ -z "$(dpkg-query -W -f='${Status}' hapticd 2>/dev/null | grep -v not-installed)" ] || because "dpkg still knows hapticd" || return 1
    [ ! -e /etc/hapticd ] || because "/etc/hapticd is left: $(find /etc/hapticd | tr '\n' ' ')" || return 1
    local left
    left=$(find /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked /etc/systemd/system \
           \( -name 'hapticd.service*' -o -name 'hapticd.socket*' \) 2>/dev/null)
    [ -z "$left" ] || because "enablement state is left: $left" || return 1
    [ -z "$(systemctl list-unit-files --no-legend 'hapticd.s*')" ] || because "systemd still has hapticd units" || return 1
    [ ! -e /var/lib/private/hapticd ] && [ ! -e /var/lib/hapticd ] || because "dynamic state is left"
}
check apt_purge

check_journal_priorities() {
    # hapticd writes <N>-prefixed lines; journald must have taken N as each line's priority.
    journal_priority "" 6 "listening on the socket passed by systemd" || because "'listening on the socket' is not at info (6)" || return 1
    journal_priority "" 4 "event200: open failed: permission denied" || because "the event200 problem is not at warning (4)" || return 1
    journal_priority "" 3 "reload failed" || because "'reload failed' is not at error (3)" || return 1
    ! journalctl -q -b -u hapticd.service -o cat | grep -q '^<[0-7]>' || because "a line kept its <N> prefix"
}
check journal_priorities

check_no_sigsys() {
    # Across the whole run: no start killed by the system call filter, and no call it refused that
    # libdispatch reports.
    ! journalctl -q -b -o cat | grep -q "status=31/SYS" || because "$(journalctl -q -b -o cat | grep -m1 'status=31/SYS')" || return 1
    ! journalctl -q -b -u hapticd.service -o cat | grep -q "Failed to set thread priority" \
        || because "libdispatch was refused setpriority"
}
check no_sigsys

echo "--- hapticd's journal (last lines) ---"
journalctl -q -b -u hapticd.service -u hapticd.socket -o short-precise --no-pager | tail -60
echo "VM-DONE"
