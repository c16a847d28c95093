#!/usr/bin/env bash
# PROTOTYPE boot: scripts/vm-test.sh's kernel, module resolution and boot, without the Swift build.
set -euo pipefail
cd "$(dirname "$0")/../../.."
root="$PWD"
fail() { echo "proto: FAILED: $*" >&2; exit 1; }
vm_fail() { fail "$@"; }
source scripts/vm-kernel.sh
vm_kernel
kroot="$kmoddir/kernel"
work=/tmp/uac/vm; rm -rf "$work"; mkdir -p "$work/root/bin" "$work/root/lib/modules" "$work/root/scenarios"
for f in dsusbip pcmplay; do gcc -static -O2 -Wall -o "$work/root/bin/$f" "Tests/VM/$f.c" -lm; done
cp /bin/busybox "$work/root/bin/busybox"
declare -A kopath=() loaded=()
while read -r f; do b=$(basename "$f" .ko); kopath[${b//_/-}]=$f; done < <(find "$kroot" -name '*.ko')
order=()
add_module() {
    local m=${1//_/-} f deps d; shift
    [ -n "${loaded[$m]:-}" ] && return 0; loaded[$m]=1
    f=${kopath[$m]:-}; [ -n "$f" ] || fail "module $m missing"
    deps=$(modinfo -F depends "$f"); for d in ${deps//,/ }; do add_module "$d"; done
    cp "$f" "$work/root/lib/modules/$m.ko"; order+=("$m${*:+ $*}")
}
while read -r line; do line=${line%%#*}; [ -n "${line//[[:space:]]/}" ] && add_module $line; done < Tests/VM/proto/${PROTO_MODULES:-uac-modules.txt}
printf '%s\n' "${order[@]}" > "$work/root/lib/modules/order"; cat "$work/root/lib/modules/order" | tr '\n' ' '; echo
cp Tests/VM/init.sh "$work/root/init"; chmod +x "$work/root/init"
cp Tests/VM/proto/${PROTO_SCENARIO:-50-usbaudio.sh} "$work/root/scenarios/"
( cd "$work/root" && find . | /bin/busybox cpio -o -H newc 2>/dev/null ) > "$work/initrd.cpio"
start=$(date +%s)
timeout 600 qemu-system-x86_64 -accel tcg -m 1024 -smp 1 -nographic -no-reboot \
    -kernel "$vmlinuz" -initrd "$work/initrd.cpio" -append "console=ttyS0 quiet panic=-1" > "$work/console.log" 2>&1 || true
echo "proto: VM ran $(( $(date +%s) - start )) s"
tr -d '\r' < "$work/console.log" > "$work/console.txt"
