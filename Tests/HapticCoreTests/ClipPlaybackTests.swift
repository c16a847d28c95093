import HapticCore
import Testing

/// `.haptic` clips and exporter-shaped AHAP files through the event-driven loop: the loop must wake for
/// every envelope breakpoint and follow every ramp of a clip's own envelope as it does a curve's,
/// against the same oracle as the library patterns (`EventDrivenOracleTests`).
@Suite struct ClipPlaybackTests {
    static let clips: [(String, String)] = [
        ("every field", HapticClipTests.everyField),
        // A slow rise and fall with a flat top, a step, an emphasis and a frequency sweep.
        ("ramps", HapticClipTests.clip(
            amplitude: #"{"time": 0.2, "amplitude": 0.1}, {"time": 1.2, "amplitude": 0.9}, {"time": 1.5, "amplitude": 0.9}, {"time": 1.5, "amplitude": 0.3, "emphasis": {"amplitude": 0.9, "frequency": 0.9}}, {"time": 2.5, "amplitude": 0}"#,
            frequency: #"{"time": 0, "frequency": 0.1}, {"time": 2.5, "frequency": 0.9}"#)),
        ("Meta Haptics Studio", ExporterShapeTests.metaStudio),
    ]

    static func check(_ name: String, _ pattern: HapticPattern, _ profile: DeviceProfile) throws {
        typealias Oracle = EventDrivenOracleTests
        let q = Oracle.quantum(profile)
        let window = 2 * profile.minimumUpdateInterval + 0.0011
        let ed = try Oracle.eventDriven(pattern, profile)
        let end = (ed.writes.last?.time ?? Oracle.start) + 0.05
        let signal = try Oracle.signal(pattern, profile, until: end, extra: ed.renders + [Oracle.start])
        if let t = Oracle.lagsBehind(ed, signal, window: window, quantum: q) {
            Issue.record("\(name) on \(profile.name): the event-driven loop holds \(ed.value(at: Oracle.start + t)) at +\(t) s, not what the render gave in the two intervals before")
        }
        let compiled = CompiledPattern(pattern, profile: profile)
        if let t = Oracle.missedTransient(ed, signal, compiled, interval: profile.minimumUpdateInterval, quantum: q) {
            Issue.record("\(name) on \(profile.name): the event-driven loop missed the transient at \(t) s")
        }
        #expect(ed.writes.last?.value == .zero, "\(name): ends silent")
        // Re-sends (a profile's settling re-send) are writes too.
        #expect(Double(ed.wakeups) <= 1.2 * Double(ed.writes.count + ed.resends) + 2,
                "\(name) on \(profile.name): \(ed.wakeups) wakeups for \(ed.writes.count) writes and \(ed.resends) re-sends")
    }

    @Test(arguments: EventDrivenOracleTests.profiles)
    func clipsFollowTheOracle(profile: DeviceProfile) throws {
        for (name, text) in Self.clips {
            try Self.check(name, try HapticClipLoader.load(text: text).pattern, profile)
        }
        // And an exporter-shaped AHAP file: chained curves of 16 points, absolute times.
        try Self.check("exporter AHAP", try AHAPLoader.load(text: LargeFileTests.export(seconds: 3, every: 0.25)).pattern, profile)
    }

    @Test func theNextChangeOfAClipIsItsNextBreakpoint() throws {
        let p = CompiledPattern(try HapticClipLoader.load(text: Self.clips[1].1).pattern)
        // On the rise from 0.2 s to 1.2 s: ramping, next change at 1.2 s.
        let rise = p.nextChange(after: 0.7)
        #expect(rise.change.time == 1.2 && rise.change.ramping && rise.sounding)
        // On the flat top the intensity holds, but the frequency still sweeps: ramping.
        let top = p.nextChange(after: 1.3)
        #expect(top.change.time == 1.5 && top.change.ramping)
    }
}
