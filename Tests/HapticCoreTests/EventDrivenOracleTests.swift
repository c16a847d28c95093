import Foundation
import HapticCore
import Testing

/// The event-driven loop against a brute-force oracle, for every library and shared pattern on pads of
/// every quantization.
///
/// The oracle is the render itself at 1 ms steps (and 0.1 ms between them), through the same gain
/// and quantization. What the pad holds at every instant — per motor — must be a value that render
/// took within the last two update intervals (the pacer's peak hold: see below), give or take one
/// quantum: nothing is invented, nothing is
/// missed (a transient the loop slept through fails at its end), nothing is late by more than the
/// pacer allows. The fixed tick at 1 ms through the same pacer is held to the same rule, and the
/// event-driven loop's wakeups are counted against the writes it needed.
@Suite struct EventDrivenOracleTests {
    struct Trace {
        var writes: [(time: Double, value: MotorMagnitudes)] = []
        var wakeups = 0
        /// Re-sends of the current value (a profile's settling re-send or refresh): writes too.
        var resends = 0
        /// Every instant the loop rendered at (a value seen there may be written later by peak hold).
        var renders: [Double] = []

        /// What the pad holds at `t`.
        func value(at t: Double) -> MotorMagnitudes {
            var lo = 0, hi = writes.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if writes[mid].time <= t { lo = mid + 1 } else { hi = mid }
            }
            return lo == 0 ? .zero : writes[lo - 1].value
        }
    }

    static let start = 100.0

    static func player(_ pattern: HapticPattern, _ profile: DeviceProfile) throws -> (ManualClock, HapticEngine, PadPipeline) {
        let clock = ManualClock(start)
        let engine = HapticEngine(profile: profile, clock: clock)
        engine.start()
        let pipe = PadPipeline(engine: engine)
        try engine.start(engine.makePlayer(pattern))
        return (clock, engine, pipe)
    }

    static func record(_ write: Pacer.Write?, _ t: Double, into trace: inout Trace) {
        if case .set(let m)? = write { trace.writes.append((t, m)) }
        if case .refresh? = write { trace.resends += 1 }
    }

    /// As the render loop runs it in `event` mode: tick, ask when next, sleep until then (+1 µs).
    static func eventDriven(_ pattern: HapticPattern, _ profile: DeviceProfile) throws -> Trace {
        let (clock, _, pipe) = try player(pattern, profile)
        var trace = Trace()
        record(pipe.tick(), clock.now, into: &trace)
        while let next = pipe.nextWakeup(now: clock.now), trace.wakeups < 200_000 {
            clock.now = max(next + 1e-6, clock.now)
            trace.wakeups += 1
            trace.renders += [clock.now - 1e-6, clock.now]
            record(pipe.tick(sampleBefore: true, timer: true), clock.now, into: &trace)
        }
        return trace
    }

    /// The fixed tick: every `step` through the pacer, until nothing plays and nothing is pending.
    static func fixedTick(_ pattern: HapticPattern, _ profile: DeviceProfile, step: Double = 0.001) throws -> Trace {
        let (clock, engine, pipe) = try player(pattern, profile)
        var trace = Trace()
        var k = 0
        repeat {
            clock.now = start + Double(k) * step
            record(pipe.tick(), clock.now, into: &trace)
            k += 1
        } while (engine.isPlaying || pipe.pacer.hasPendingOutput) && k < 10_000_000
        return trace
    }

    /// The render, quantized, every `step` from the start through `end` and at each of `extra`
    /// instants (where the traces wrote): no pacer, no loop.
    static func signal(
        _ pattern: HapticPattern, _ profile: DeviceProfile, until end: Double, extra: [Double], step: Double = 0.0001
    ) throws -> [(time: Double, value: MotorMagnitudes)] {
        let (clock, engine, pipe) = try player(pattern, profile)
        // Every breakpoint, and the instant before it: where the pipeline catches up on what a loop
        // slept through (`PadPipeline.tick()`), render takes those values too.
        var times = extra
        let (walkClock, walk, _) = try player(pattern, profile)
        var t = start
        while t <= end {
            var b = walk.nextChange(at: t).time
            if b <= t { b = walk.nextChange(at: t + 1e-6).time }
            guard b.isFinite, b > t else { break }
            times += [b - 1e-6, b, b + 1e-6]
            walkClock.now = min(b, end)
            walk.update()
            t = b
        }
        var k = 0
        while start + Double(k) * step <= end {
            times.append(start + Double(k) * step)
            k += 1
        }
        return times.sorted().map { t in
            clock.now = t
            return (t, pipe.pacer.quantized(engine.render()))
        }
    }

    /// Adjacent values the pad can tell apart.
    static func quantum(_ profile: DeviceProfile) -> Int {
        switch profile.quantization {
        case .full: 1
        case .bits8: 257
        case .bits7: 516
        case .percent: 656
        // hid-nintendo's widest step: amplitude 981 → 1003, 22/1003 of full scale.
        case .switchAmplitude: 1438
        case .onOff, .onOffBits8: 65535
        }
    }

    /// The first time at which what `trace` holds is, on some motor, not a value the signal took in
    /// the `window` before it (± one quantum); nil when there is none.
    static func lagsBehind(_ trace: Trace, _ signal: [(time: Double, value: MotorMagnitudes)], window: Double, quantum: Int) -> Double? {
        let span = (signal.last?.time ?? start) - start
        var t = 0.0
        var first = 0
        while t <= span {
            let v = trace.value(at: start + t)
            while first < signal.count - 1 && signal[first + 1].time < start + t - window { first += 1 }
            var lo = (s: Int.max, w: Int.max), hi = (s: Int.min, w: Int.min)
            for (time, x) in signal[first...] {
                if time > start + t { break }
                lo = (min(lo.s, Int(x.strong)), min(lo.w, Int(x.weak)))
                hi = (max(hi.s, Int(x.strong)), max(hi.w, Int(x.weak)))
            }
            let s = Int(v.strong), w = Int(v.weak)
            if s < lo.s - quantum || s > hi.s + quantum || w < lo.w - quantum || w > hi.w + quantum { return t }
            t += 0.001
        }
        return nil
    }

    /// Every transient reaches the pad: while its pulse sounds (and an interval after, for the pacer),
    /// the pad holds a value at least as strong as the weakest the render gave during the pulse.
    /// Returns the start of the first transient that did not.
    static func missedTransient(_ trace: Trace, _ signal: [(time: Double, value: MotorMagnitudes)], _ compiled: CompiledPattern, interval: Double, quantum: Int) -> Double? {
        for e in compiled.events where e.isTransient {
            let pulse = compiled.profile.pulseLength(sharpness: e.sharpness)
            let from = start + e.start, to = from + pulse
            let during = signal.filter { $0.time >= from + 1e-5 && $0.time < to - 1e-5 }.map { max(Int($0.value.strong), Int($0.value.weak)) }
            guard let weakest = during.min(), weakest > 0 else { continue }
            var strongest = 0
            var t = from
            while t <= to + interval {
                let v = trace.value(at: t)
                strongest = max(strongest, Int(v.strong), Int(v.weak))
                t += 0.0005
            }
            if strongest < weakest - quantum { return e.start }
        }
        return nil
    }

    static func patternFiles() -> [URL] {
        let library = (try? FileManager.default.contentsOfDirectory(at: repositoryRoot.appendingPathComponent("config/patterns"),
                                                                     includingPropertiesForKeys: nil)) ?? []
        return library.filter { $0.pathExtension == "ahap" }.sorted { $0.path < $1.path } + allSharedAHAPFiles()
    }

    static let profiles: [DeviceProfile] = [.generic, .dualSense, .xboxOneUSB, .switchProUSB]

    @Test(arguments: profiles)
    func everyPatternFollowsTheOracle(profile: DeviceProfile) throws {
        let files = Self.patternFiles()
        #expect(files.count >= 11)
        let q = Self.quantum(profile)
        // The pacer's peak hold writes the peak of an interval at its end and the pad then holds it for
        // the next: a value from up to two intervals back. Plus the 1 ms of the fixed tick's own grid.
        let window = 2 * profile.minimumUpdateInterval + 0.0011
        for file in files {
            let pattern = try AHAPLoader.load(bytes: [UInt8](try Data(contentsOf: file))).pattern
            let name = file.lastPathComponent
            let ed = try Self.eventDriven(pattern, profile)
            let fixed = try Self.fixedTick(pattern, profile)
            let end = max(ed.writes.last?.time ?? Self.start, fixed.writes.last?.time ?? Self.start) + 0.05
            let signal = try Self.signal(pattern, profile, until: end, extra: ed.renders + [Self.start])
            if let t = Self.lagsBehind(ed, signal, window: window, quantum: q) {
                Issue.record("\(name) on \(profile.name): the event-driven loop holds \(ed.value(at: Self.start + t)) at +\(t) s, not what the render gave in the two intervals before")
            }
            if let t = Self.lagsBehind(fixed, signal, window: window, quantum: q) {
                Issue.record("\(name) on \(profile.name): the fixed tick holds \(fixed.value(at: Self.start + t)) at +\(t) s, not what the render gave in the two intervals before")
            }
            let compiled = CompiledPattern(pattern, profile: profile)
            if let t = Self.missedTransient(ed, signal, compiled, interval: profile.minimumUpdateInterval, quantum: q) {
                Issue.record("\(name) on \(profile.name): the event-driven loop missed the transient at \(t) s")
            }
            if let t = Self.missedTransient(fixed, signal, compiled, interval: profile.minimumUpdateInterval, quantum: q) {
                Issue.record("\(name) on \(profile.name): the fixed tick missed the transient at \(t) s")
            }
            #expect(ed.writes.last?.value == .zero && fixed.writes.last?.value == .zero, "\(name): ends silent")
            // Deterministic on the manual clock: waking costs about what writing needs.
            #expect(Double(ed.wakeups) <= 1.2 * Double(ed.writes.count + ed.resends) + 2,
                    "\(name) on \(profile.name): \(ed.wakeups) wakeups for \(ed.writes.count) writes and \(ed.resends) re-sends")
        }
    }
}

extension DeviceProfile: CustomTestStringConvertible {
    public var testDescription: String { name }
}
