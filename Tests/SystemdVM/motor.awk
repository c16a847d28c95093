# Replays the fixture pad's log (Tests/VM/fakepad.c) and tells whether a motor was running:
#   awk -v from=N -f motor.awk pad.log   prints "rumbled=R on=O"
# R: 1 when a motor ran at some point after line N; O: 1 when a motor runs at the end of the log.
# A motor runs while an effect is playing (PLAY value>0) with a non-zero magnitude; a stop
# (PLAY value=0), an erase or the pad's destruction ends it.
function field(name,   i, kv) {
    for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] }
    return ""
}
function running(   id) { for (id in playing) if (playing[id] && magnitude[id] > 0) return 1; return 0 }
BEGIN { rumbled = 0 }
$2 == "UPLOAD" { magnitude[field("id")] = field("strong") + field("weak") }
$2 == "PLAY" { playing[field("id")] = (field("value") + 0 > 0) }
$2 == "ERASE" { id = field("id"); playing[id] = 0; magnitude[id] = 0 }
$2 == "DESTROYED" { split("", playing); split("", magnitude) }
{ if (NR > from + 0 && running()) rumbled = 1 }
END { printf "rumbled=%d on=%d\n", rumbled, running() }
