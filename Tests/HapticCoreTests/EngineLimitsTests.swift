import HapticCore
import Testing

/// The engine's bounds (`EngineLimits`): no command reaches past the time horizon, no rate turns a
/// pattern into one that never ends, and no player's state grows without end.
@Suite struct EngineLimitsTests {
    let clock = ManualClock(100)
    let engine: HapticEngine

    init() {
        engine = HapticEngine(clock: clock)
        engine.limits = EngineLimits(timeHorizon: 3600, rates: 0.1...10, maximumScheduledPerPlayer: 8)
        engine.start()
    }

    func isInvalidValue(_ body: () throws(EngineError) -> Void) -> Bool {
        do {
            try body()
            return false
        } catch {
            if case .invalidValue = error { return true }
            return false
        }
    }

    func isLimit(_ body: () throws(EngineError) -> Void) -> Bool {
        do {
            try body()
            return false
        } catch {
            if case .limitExceeded = error { return true }
            return false
        }
    }

    @Test func commandsBeyondTheHorizonAreRefused() throws {
        let p = engine.makePlayer(strongPattern(duration: 2), advanced: true)
        #expect(isInvalidValue { () throws(EngineError) in try engine.start(p, at: .at(100 + 3600.5)) })
        #expect(isInvalidValue { () throws(EngineError) in try engine.stop(p, at: .at(2e10)) })
        #expect(isInvalidValue { () throws(EngineError) in try engine.pause(p, at: .at(1e300)) })
        #expect(isInvalidValue { () throws(EngineError) in try engine.seek(p, toOffset: 3601) })
        #expect(isInvalidValue { () throws(EngineError) in try engine.setLoopEnd(p, 1e11) })
        #expect(isInvalidValue { () throws(EngineError) in
            try engine.sendParameters([(.hapticIntensityControl, 0.5)], to: p, at: .at(1e12))
        })
        // At the horizon itself, and in the past (which means now), commands are fine.
        try engine.start(p, at: .at(100 + 3600))
        try engine.stop(p, at: .at(50))
        #expect(try engine.scheduledCount(p) == 1)
    }

    @Test func ratesOutsideTheRangeOrPlayingPastTheHorizonAreRefused() throws {
        let p = engine.makePlayer(strongPattern(duration: 30), advanced: true)
        #expect(isInvalidValue { () throws(EngineError) in try engine.setRate(p, 1e-9) })
        #expect(isInvalidValue { () throws(EngineError) in try engine.setRate(p, 11) })
        #expect(throws: EngineError.invalidRate(0)) { try engine.setRate(p, 0) }
        try engine.setRate(p, 0.1)  // 300 s of playing: within the hour
        engine.limits.timeHorizon = 100
        #expect(isInvalidValue { () throws(EngineError) in try engine.setRate(p, 0.2) })  // 150 s
        try engine.setRate(p, 0.5)
    }

    /// A pattern that sounds until stopped (a continuous event without a duration, kept to the
    /// horizon; here with a release tail past it) takes any rate in the range: it was refused, as if
    /// slower it would end later than the horizon (a stranger's review). It plays on at that rate.
    @Test func aPatternThatSoundsUntilStoppedTakesAnyRate() throws {
        let loaded = try AHAPLoader.load(text: #"{"Pattern": [{"Event": {"EventType": "HapticContinuous", "Time": 1, "EventParameters": [{"ParameterID": "ReleaseTime", "ParameterValue": 0.5}]}}]}"#,
                                         limits: AHAPLimits(maximumPatternTime: 3600))
        let p = engine.makePlayer(loaded.pattern, advanced: true)
        try engine.setRate(p, 0.1)
        try engine.setRate(p, 1)
        try engine.start(p, at: .immediately)
        try engine.setRate(p, 0.1)
        clock.now = 100 + 600
        #expect(engine.output(at: clock.now).strong > 0, "still sounding 600 s in, at a tenth of the speed")
        // A pattern with an end is still held to the horizon.
        let q = engine.makePlayer(strongPattern(duration: 1000), advanced: true)
        #expect(isInvalidValue { () throws(EngineError) in try engine.setRate(q, 0.1) })
    }

    @Test func scheduledCommandsPerPlayerAreBounded() throws {
        let p = engine.makePlayer(strongPattern(duration: 1), advanced: true)
        for i in 0..<6 { try engine.start(p, at: .at(200 + Double(i))) }
        // Future parameters count too; ones that are already in effect do not.
        try engine.sendParameters([(.hapticIntensityControl, 0.5), (.hapticSharpnessControl, 0.1)], to: p, at: .at(300))
        #expect(try engine.scheduledCount(p) == 8)
        #expect(isLimit { () throws(EngineError) in try engine.start(p, at: .at(400)) })
        #expect(isLimit { () throws(EngineError) in
            try engine.sendParameters([(.hapticIntensityControl, 0.5)], to: p, at: .at(400))
        })
        #expect(isLimit { () throws(EngineError) in
            try engine.scheduleCurve(.init(.hapticIntensityControl, at: 0, points: [.init(0, 1), .init(1, 0)]), on: p, at: .at(400))
        })
        try engine.sendParameters([(.hapticIntensityControl, 0.5)], to: p)  // now: no room needed
        // As time passes, what was scheduled takes effect and makes room.
        clock.now = 250
        _ = engine.render()
        #expect(try engine.scheduledCount(p) == 2)
        try engine.start(p, at: .at(400))
    }

    @Test func parameterHistoryIsPrunedOnceApplied() throws {
        let p = engine.makePlayer(strongPattern(duration: 3000), advanced: true)
        try engine.start(p)
        for i in 0..<10_000 {
            clock.now = 100 + Double(i) * 0.01
            try engine.sendParameters([(.hapticIntensityControl, Double(i % 100) / 100)], to: p)
            _ = engine.render()
        }
        // The value sent last governs; the rest is gone.
        #expect(engine.render() == strong(0.99))
        #expect(try engine.controlEntryCount(p) == 1)
        // A future value stays until it takes effect, and then replaces the one before it.
        try engine.sendParameters([(.hapticIntensityControl, 0.25)], to: p, at: .at(clock.now + 1))
        #expect(try engine.controlEntryCount(p) == 2)
        clock.now += 1
        #expect(engine.render() == strong(0.25))
        #expect(try engine.controlEntryCount(p) == 1)
    }

    @Test func aLimitedLifetimeStopsThePlayerAndDropsWhatCameAfter() throws {
        let p = engine.makePlayer(strongPattern(duration: 3000), advanced: true)
        try engine.setLoopEnabled(p, true)
        try engine.start(p)
        try engine.start(p, at: .at(200))
        try engine.limitLifetime(p, until: 110)
        clock.now = 109.9
        #expect(engine.render() == strong(1))
        clock.now = 110
        #expect(engine.render() == .zero)
        clock.now = 300
        #expect(engine.render() == .zero, "the start scheduled after the limit was dropped")
        #expect(try engine.status(p).phase == .idle)
    }

    @Test(arguments: [
        (1e300, Int64.max), (-1e300, Int64.min), (Double.nan, 0), (Double.infinity, Int64.max), (-3.7, -3),
        (9.2233720368547748e18, 9_223_372_036_854_774_784),
    ] as [(Double, Int64)])
    func conversionsSaturate(x: Double, expected: Int64) {
        #expect(Int64(saturating: x) == expected)
    }

    @Test func unsignedConversionsSaturate() {
        #expect(UInt64(saturating: 2e10 * 1e9) == UInt64.max)
        #expect(UInt64(saturating: -1) == 0)
        #expect(UInt16(saturating: 70_000) == UInt16.max)
    }
}

extension EngineLimitsTests {
    @Test func aLifetimeLimitCanBeLiftedAndReplaced() throws {
        let p = engine.makePlayer(strongPattern(duration: 3000), advanced: true)
        try engine.start(p)
        try engine.limitLifetime(p, until: 110)
        try engine.limitLifetime(p, until: 120)  // replaces the first
        clock.now = 115
        #expect(engine.render() == strong(1))
        try engine.clearLifetimeLimit(p)
        clock.now = 130
        #expect(engine.render() == strong(1), "lifted: it plays on")
        #expect(try engine.scheduledCount(p) == 0)
    }
}
