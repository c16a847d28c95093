import Glibc
import HapticCore
import VMTestSupport

// MARK: the update method (issue 26 §2, docs/devices.md "How a value reaches the driver")
//
// Per floor pad, straight on its evdev node (bareclient), a ramp of values written three ways
// (`methodVariants`):
// - update: the effect is played once and then updated in place (EVIOCSFF alone) — ff-memless defers
//   each update to its timer, the next jiffy;
// - play: every upload is followed by a play (EV_FF 1), as SDL does — ff-memless sends a play at once;
// - play-length-0: the same with an effect without a length (replay.length 0, as hapticd uploaded
//   until 2026-11-26) — ff-memless sends the play at once and once more at its next tick.
// For each method and each period: command → the first report carrying the value (p50/p90), reports
// per value, and values that never reached the pad (a newer one overtook them in ff-memless, the
// driver's work item or its queue). The periods: 16 ms (a 60 fps game: the driver is never
// saturated, so the reach time is the method's own), 8, 6 and 4 ms (what the driver takes without
// loss: the profiles' intervals come from here); hid-nintendo's queue drains one packet per 25–33
// ms, so it gets 70, 50 and 35 ms. A measurement: printed (`METHOD`, `MEASURE-METHOD`), not asserted.

@MainActor var methodRows: [(pad: Pad, period: Int, update: MethodStats?, play: MethodStats?, playNoLength: MethodStats?)] = []

@MainActor func methodPeriods(_ pad: Pad) -> [Int] { pad.driver == "nintendo" ? [70, 50, 35] : [16, 8, 6, 4] }

@MainActor func methodComparison(_ pad: Pad) {
    for period in methodPeriods(pad) {
        var result: [String: MethodStats] = [:]
        for (method, args) in methodVariants {
            waitQuiet(pad)
            // A dozen values on hid-nintendo (each takes up to two packets), half a second elsewhere.
            let duration = pad.driver == "nintendo" ? period * 12 : 500
            guard let cmds = runBare(pad, args + ["ramp", "\(period)", "\(duration)"]) else { continue }
            waitQuiet(pad)
            let ramp = cmds.filter { !$0.value.isZero }.map { (time: $0.time, level: pad.level($0.value)) }
            let start = (ramp.first?.time ?? 0) - 0.001
            let reports = pad.reports.filter { $0.time >= start }.map { (time: $0.time, level: $0.level) }
            let s = methodStats(commands: ramp, reports: reports, period: Double(period) / 1000) { a, b in stall(from: a, to: b) != nil }
            result[method] = s
            print("MEASURE-METHOD pad=\(pad.type) driver=\(pad.driver) method=\(method) period_ms=\(period)"
                  + " reach_p50_ms=\(ms(percentile(of: s.reach, 50))) reach_p90_ms=\(ms(percentile(of: s.reach, 90)))"
                  + " reports=\(s.reports) values=\(s.values) lost=\(s.lost) excused=\(s.excused)")
        }
        methodRows.append((pad, period, result["update"], result["play"], result["play-length-0"]))
    }
}

@MainActor func printMethodTable() {
    guard !methodRows.isEmpty else { return }
    print(methodHeader())
    for r in methodRows {
        print(methodRow(pad: r.pad.type, driver: r.pad.driver, period: Double(r.period) / 1000, update: r.update, play: r.play,
                        playNoLength: r.playNoLength))
    }
}
