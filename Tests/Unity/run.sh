#!/usr/bin/env bash
# The Unity plug-in's native library (docs/clients.md, "Unity"; docs/testing.md): builds it as
# shipped (`make unity`: release, Swift runtime linked in), then checks
#   - what it needs at run time: glibc, libstdc++ and libgcc_s only, no run path;
#   - that it exports exactly the functions of CoreHapticsWrapper.exports;
#   - the Unity layout: the .meta selects Linux x86_64, the tarball holds both files;
#   - dlopen_test.c: a plain C program dlopens it and finds every function, layouts, no daemon;
#   - WrapperTests.cs under Mono (a real CLR, resolving DllImport("CoreHapticsWrapper") as a Linux
#     Unity player does): every function P/Invoked with the plug-in's signatures against a real
#     hapticd on a simulated pad, checked in the daemon's --trace.
# Usage: Tests/Unity/run.sh   (after `swift build`: the tests run the debug hapticd and hapticctl)
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/deps.sh mono-mcs mono-runtime gcc libc6-dev binutils tar

make -s unity
LIB=dist/unity/Plugins/Linux/x86_64/libCoreHapticsWrapper.so
EXPORTS=Sources/CoreHapticsWrapper/CoreHapticsWrapper.exports
BIN=$(swift build --show-bin-path)
WORK=$(mktemp -d /tmp/hapticd-unity.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# What the game's process must provide: glibc and the C++ runtime, nothing of Swift's.
needed=$(readelf -d "$LIB" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
for lib in $needed; do
  case "$lib" in
    libc.so.6|libm.so.6|libdl.so.2|libpthread.so.0|librt.so.1|ld-linux-x86-64.so.2|libstdc++.so.6|libgcc_s.so.1) ;;
    *) fail "$LIB needs $lib (only glibc, libstdc++ and libgcc_s are allowed)" ;;
  esac
done
! readelf -d "$LIB" | grep -qE '\((RPATH|RUNPATH)\)' || fail "$LIB has a run path"
ldd "$LIB" | grep -q "not found" && fail "$(ldd "$LIB")"
echo "needs only: $needed"

# Exactly the listed functions are exported (global symbols; the Swift runtime's are local).
diff <(grep -v '^#' "$EXPORTS" | sort) <(nm -D --defined-only "$LIB" | awk '$2 ~ /^[A-Z]$/ { print $3 }' | sort) \
  || fail "the exported symbols differ from $EXPORTS (< listed only, > exported only)"
echo "exports exactly the $(grep -vc '^#' "$EXPORTS") functions of $EXPORTS"

# Unity's layout: the importer settings enable the plug-in for the Linux x86_64 player and editor.
awk '/Standalone: Linux64/ { s = 1 } s && /enabled: 1/ { e = 1 } s && e && /CPU: x86_64/ { ok = 1; exit } END { exit !ok }' "$LIB.meta" \
  || fail "$LIB.meta does not enable Linux x86_64"
grep -q "Exclude Linux64: 0" "$LIB.meta" || fail "$LIB.meta excludes Linux64"
tarball=$(ls dist/hapticd-unity-*-linux-x86_64.tar.gz)
[ "$(tar -tzf "$tarball" | grep -c 'Plugins/Linux/x86_64/libCoreHapticsWrapper.so')" = 2 ] || fail "$tarball lacks the library or its .meta"

# A plain C program.
gcc -Wall -Wextra -Werror -o "$WORK/dlopen_test" Tests/Unity/dlopen_test.c -ldl
HAPTICD_SOCKET="$WORK/nothing.sock" "$WORK/dlopen_test" "$LIB" "$EXPORTS"

# Mono. The tests start their own hapticd at $HAPTICD_SOCKET.
mcs -warnaserror -out:"$WORK/WrapperTests.exe" Tests/Unity/Native.cs Tests/Unity/WrapperTests.cs
HAPTICD_SOCKET="$WORK/h.sock" UNITY_TEST_HAPTICD="$BIN/hapticd" UNITY_TEST_HAPTICTL="$BIN/hapticctl" UNITY_TEST_EXPORTS="$EXPORTS" \
  UNITY_TEST_DIR="$WORK" UNITY_TEST_PATTERNS="$PWD/config/patterns" LD_LIBRARY_PATH="$(dirname "$LIB")" \
  timeout 300 mono --debug "$WORK/WrapperTests.exe"
