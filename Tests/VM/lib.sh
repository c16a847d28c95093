# Helpers for the VM scenarios (sourced: . /lib/vm-lib.sh). Busybox sh.

# wait_for_input NAME [TIMEOUT_S] [HID_ID]: waits (bounded) until an input device named NAME that
# has force feedback exists (and, given HID_ID such as 0005:045E:0B13, belongs to a HID device with
# that bus:vendor:product, for pads that share a name); prints its /dev/input/eventN. Returns 1 on
# time-out.
wait_for_input() {
    name=$1
    limit=$(( ${2:-10} * 100 ))
    hid=${3:-}
    i=0
    while [ $i -lt $limit ]; do
        for d in /sys/class/input/input*; do
            [ -f "$d/name" ] || continue
            [ "$(cat "$d/name")" = "$name" ] || continue
            if [ -n "$hid" ]; then
                case "$(readlink -f "$d")" in */"$hid".*) ;; *) continue ;; esac
            fi
            [ "$(cat "$d/capabilities/ff" 2>/dev/null)" != "0" ] || continue
            for e in "$d"/event*; do
                [ -e "$e" ] && { echo "/dev/input/$(basename "$e")"; return 0; }
            done
        done
        i=$((i + 1))
        usleep 10000
    done
    return 1
}

# wait_for_log FILE PATTERN [TIMEOUT_S]: waits (bounded) until FILE has a line matching PATTERN.
wait_for_log() {
    limit=$(( ${3:-10} * 100 ))
    i=0
    while [ $i -lt $limit ]; do
        grep -q "$2" "$1" 2>/dev/null && return 0
        i=$((i + 1))
        usleep 10000
    done
    return 1
}

# start_uhid_pads DIR TYPE...: starts one uhidpad per type (log DIR/TYPE.log, pid in DIR/TYPE.pid)
# and waits until the driver has made each pad's force-feedback evdev node. Prints "TYPE NODE" per
# pad; returns 1 (after naming the pad and showing its log) when one does not appear.
start_uhid_pads() {
    dir=$1
    shift
    mkdir -p "$dir"
    for t in "$@"; do
        /bin/uhidpad --type "$t" --log "$dir/$t.log" &
        echo $! > "$dir/$t.pid"
    done
    for t in "$@"; do
        wait_for_log "$dir/$t.log" INPUTNAME 5 || { echo "uhidpad $t did not start"; return 1; }
        name=$(sed -n 's/^[0-9.]* INPUTNAME //p' "$dir/$t.log" | head -1)
        hid=$(sed -n 's/.* CREATED .* hid=\([^ ]*\).*/\1/p' "$dir/$t.log" | head -1)
        node=$(wait_for_input "$name" 15 "$hid") || { echo "no evdev node for $t ($name)"; cat "$dir/$t.log"; return 1; }
        echo "$t $node"
    done
}

# stop_pads DIR: ends every uhidpad started with start_uhid_pads DIR.
stop_pads() {
    for f in "$1"/*.pid; do
        [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
    done
    wait
}
