# The Debian kernel the VM tests boot, shared by scripts/vm-test.sh and scripts/systemd-vm-test.sh
# (source it; it needs bash). See ../shared/reference/real-kernel-tests.md.
#
# vm_kernel: finds the package linux-image-amd64 depends on, downloads and unpacks it (not installs)
# into the cache once, and sets:
#   vm_cache   $HAPTICD_VM_CACHE (default ~/.cache/hapticd-vm), created
#   kpkg       the kernel package, e.g. linux-image-6.1.0-56-amd64
#   kdir       where it is unpacked
#   vmlinuz    the kernel image
#   kver       its release, e.g. 6.1.0-56-amd64
#   kmoddir    its modules: $kdir/lib/modules/$kver
# vm_modules NAME...: the .ko paths of those modules and everything they depend on (modinfo's
#   depends and softdep pre:), dependencies first, each once: the order insmod needs.
# Both call vm_fail (define it before; the default prints and exits 1) when something is missing.

type vm_fail >/dev/null 2>&1 || vm_fail() { echo "vm: FAILED: $*" >&2; exit 1; }

vm_kernel() {
    vm_cache="${HAPTICD_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hapticd-vm}"
    mkdir -p "$vm_cache"
    kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
    if [ -z "$kpkg" ]; then
        apt-get update -qq || true
        kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
    fi
    [ -n "$kpkg" ] || vm_fail "cannot find the Debian kernel package (apt-cache depends linux-image-amd64 gave nothing)"
    kdir="$vm_cache/$kpkg"
    if [ ! -d "$kdir/boot" ]; then
        echo "vm: downloading $kpkg (cached in $vm_cache)"
        ( cd "$vm_cache" && rm -f "$kpkg"_*.deb && apt-get download "$kpkg" >/dev/null 2>&1 ) || vm_fail "apt-get download $kpkg failed"
        rm -rf "$kdir.tmp" && dpkg -x "$vm_cache/$kpkg"_*.deb "$kdir.tmp" && mv "$kdir.tmp" "$kdir"
        rm -f "$vm_cache/$kpkg"_*.deb
    fi
    vmlinuz=$(ls "$kdir"/boot/vmlinuz-* | head -1)
    kver=${vmlinuz##*/vmlinuz-}
    kmoddir="$kdir/lib/modules/$kver"
    [ -d "$kmoddir/kernel" ] || vm_fail "$kpkg has no modules in $kmoddir"
}

vm_modules() {
    command -v modinfo >/dev/null || vm_fail "vm_modules needs modinfo (Debian kmod)"
    local -A seen=() index=()
    local out=() f b
    while IFS= read -r f; do b=${f##*/}; b=${b%.ko}; index[${b//-/_}]=$f; done < <(find "$kmoddir/kernel" -name '*.ko')
    _vm_module() {
        local name=${1//-/_} path dep
        [ -n "${seen[$name]:-}" ] && return 0
        seen[$name]=1
        path=${index[$name]:-}
        [ -n "$path" ] || vm_fail "module $1 not in $kpkg"
        for dep in $(modinfo -F depends "$path" | tr ',' ' ') \
                   $(modinfo -F softdep "$path" | sed -n 's/.*pre: *//p' | sed 's/ post:.*//; s/crypto-//g'); do
            case "$dep" in crc32c) dep=crc32c_generic ;; esac
            _vm_module "$dep"
        done
        out+=("$path")
    }
    local m
    for m in "$@"; do _vm_module "$m"; done
    printf '%s\n' "${out[@]}"
}
