import HapticCore
import Testing

/// Localities on the manual clock: each engine routes its output to its motors, and a pad's engines
/// add up before its gain and pacer.
@Suite struct LocalityTests {
    let clock = ManualClock(0)

    func engine(_ locality: Locality) -> HapticEngine {
        let e = HapticEngine(profile: .generic, clock: clock, route: locality.route!)
        e.start()
        return e
    }

    /// A continuous event at sharpness 0.5: on both motors it splits, on one it is all that motor's.
    let half = HapticPattern(elements: [.event(.continuous(at: 0, duration: 1, intensity: 0.6, sharpness: 0.5))])

    @Test func leftAndRightHandlesDriveOneMotorEachAtFullIntensity() throws {
        for (locality, expected) in [
            (Locality.leftHandle, MotorMagnitudes(strong: 39321, weak: 0)),
            (.rightHandle, MotorMagnitudes(strong: 0, weak: 39321)),
            (.handles, MotorMagnitudes(strong: 27804, weak: 27804)),
            (.default, MotorMagnitudes(strong: 27804, weak: 27804)),
        ] {
            let e = engine(locality)
            try e.start(e.makePlayer(half))
            clock.now = 0.5
            #expect(e.render() == expected, "\(locality)")
            clock.now = 0
        }
    }

    @Test func aPadsEnginesMixAndStopIndependently() throws {
        let pipe = PadPipeline(engine: engine(.default))
        let left = engine(.leftHandle), right = engine(.rightHandle)
        pipe.add(left, for: .leftHandle)
        pipe.add(right, for: .rightHandle)
        #expect(pipe.engine(for: .leftHandle) === left && pipe.engines.count == 3)
        try left.start(left.makePlayer(HapticPattern(elements: [.event(.continuous(at: 0, duration: 2, intensity: 0.7, sharpness: 0.9))])))
        try right.start(right.makePlayer(HapticPattern(elements: [.event(.continuous(at: 0, duration: 2, intensity: 0.4, sharpness: 0))])))
        try pipe.engine.start(pipe.engine.makePlayer(HapticPattern(elements: [.event(.continuous(at: 0, duration: 2, intensity: 1, sharpness: 0))])))
        clock.now = 0.1
        // The woofer carries 0.7 and the default engine's dull event adds full scale: clamped.
        #expect(pipe.tick() == .set(MotorMagnitudes(strong: 65535, weak: 26214)))
        // Stopping one engine stops only its players.
        pipe.engine.stop()
        clock.now = 0.2
        #expect(pipe.tick() == .set(MotorMagnitudes(strong: 45875, weak: 26214)))
        left.stop()
        clock.now = 0.3
        #expect(pipe.tick() == .set(MotorMagnitudes(strong: 0, weak: 26214)))
        // The pipeline's wakeups come from every engine.
        #expect(abs((pipe.nextWakeup(now: 0.3) ?? 0) - 2) < 1e-9)
    }

    @Test func triggersHaveNoRouteOnARumblePad() {
        #expect(Locality.triggers.route == nil && Locality.leftTrigger.route == nil && Locality.rightTrigger.route == nil)
        #expect(Locality.rumblePad.map(\.rawValue) == ["default", "all", "handles", "leftHandle", "rightHandle"])
    }

    @Test func aRumbleGivesItsMagnitudesStraightToTheMotorsForItsDuration() throws {
        let e = engine(.leftHandle)  // a rumble ignores its engine's route: its magnitudes are the motors'
        let r = try e.makeRumble(strong: 0.8, weak: 0.2, duration: 0.5)
        try e.start(r, at: .at(0.1))
        clock.now = 0.05
        #expect(e.render() == .zero, "a delayed start")
        clock.now = 0.3
        #expect(e.render() == MotorMagnitudes(strong: 52428, weak: 13107))
        try e.sendParameters([(.hapticIntensityControl, 0.5)], to: r)
        #expect(e.render() == MotorMagnitudes(strong: 26214, weak: 6553), "scaled by its intensity control")
        clock.now = 0.61
        #expect(e.render() == .zero)
        #expect(e.playerIDs.isEmpty, "a one-shot: gone once it ended")
        #expect(throws: EngineError.self) { try e.makeRumble(strong: 1.5, weak: 0, duration: 1) }
        #expect(throws: EngineError.self) { try e.makeRumble(strong: 0.5, weak: 0, duration: 0) }
        #expect(throws: EngineError.self) { try e.makeRumble(strong: 0.5, weak: 0, duration: 1e9) }
    }

    /// A rumble on a trigger locality moves the trigger motors, never a handle's: left ← strong,
    /// right ← weak, as `SDL_RumbleGamepadTriggers(left, right)` (issue 24: "trigger localities move
    /// only trigger motors"; a rumble put its magnitudes on the handles).
    @Test(arguments: [(Locality.triggers, 52428, 13107), (.leftTrigger, 52428, 0), (.rightTrigger, 0, 13107)])
    func aRumbleOnATriggerLocalityMovesOnlyTriggerMotors(locality: Locality, third: Int, fourth: Int) throws {
        let route = try #require(locality.route(for: .rumbleAndTriggers))
        let e = HapticEngine(profile: .xboxBluetoothTriggers, clock: clock, route: route)
        e.start()
        try e.start(e.makeRumble(strong: 0.8, weak: 0.2, duration: 0.5))
        clock.now = 0.1
        #expect(e.render() == MotorMagnitudes(strong: 0, weak: 0, third: UInt16(third), fourth: UInt16(fourth)))
    }

    @Test func aPlayingRumbleChangesInPlaceAndRunsItsNewDurationFromNow() throws {
        let e = engine(.default)
        let r = try e.makeRumble(strong: 0.8, weak: 0.2, duration: 0.5)
        try e.start(r)
        clock.now = 0.3
        #expect(e.render() == MotorMagnitudes(strong: 52428, weak: 13107))
        #expect(try e.updateRumble(r, strong: 0.1, weak: 0.9, duration: 0.4))
        #expect(e.render() == MotorMagnitudes(strong: 6554, weak: 58982), "the new magnitudes at once")
        #expect(e.playerIDs == [r], "the same player")
        clock.now = 0.65
        #expect(e.render() == MotorMagnitudes(strong: 6554, weak: 58982), "past the old end: the new duration runs from the update")
        clock.now = 0.71
        #expect(e.render() == .zero)
        #expect(e.playerIDs.isEmpty, "still a one-shot")
        #expect(throws: EngineError.self) { try e.updateRumble(r, strong: 0.5, weak: 0.5, duration: 1) }

        // Not in place: a rumble waiting for its delay, one with an intensity control of its own, a
        // player that is not a rumble — and bad values are refused, not clamped.
        let delayed = try e.makeRumble(strong: 0.5, weak: 0.5, duration: 1)
        try e.start(delayed, at: .at(1))
        #expect(try !e.updateRumble(delayed, strong: 1, weak: 1, duration: 1))
        let scaled = try e.makeRumble(strong: 0.5, weak: 0.5, duration: 1)
        try e.start(scaled)
        try e.sendParameters([(.hapticIntensityControl, 0.5)], to: scaled)
        #expect(try !e.updateRumble(scaled, strong: 1, weak: 1, duration: 1))
        let pattern = e.makePlayer(HapticPattern(elements: [.event(.continuous(at: 0, duration: 1, intensity: 1, sharpness: 0))]))
        try e.start(pattern)
        #expect(try !e.updateRumble(pattern, strong: 1, weak: 1, duration: 1))
        #expect(throws: EngineError.self) { try e.updateRumble(scaled, strong: 1.5, weak: 0, duration: 1) }
        #expect(throws: EngineError.self) { try e.updateRumble(scaled, strong: 0.5, weak: 0, duration: 1e9) }
    }

    @Test func keepAwakeHoldsOffAutoShutdown() throws {
        let e = engine(.default)
        e.isAutoShutdownEnabled = true
        e.idleTimeout = 1
        _ = e.render()
        e.keepAwake(until: 3)
        clock.now = 2
        _ = e.render()
        #expect(e.isRunning, "prepared: still awake past the idle timeout")
        #expect(abs((e.nextWakeup ?? 0) - 3) < 1e-9)
        clock.now = 3
        _ = e.render()
        #expect(!e.isRunning)
    }
}

/// The policy in the mix: priorities duck, policy gains scale, a ceiling caps.
@Suite struct PolicyMixTests {
    let clock = ManualClock(0)

    func constant(_ i: Double, _ duration: Double, sharpness: Double = 0) -> HapticPattern {
        HapticPattern(elements: [.event(.continuous(at: 0, duration: duration, intensity: i, sharpness: sharpness))])
    }

    @Test func aHigherPriorityPlayerDucksLowerOnesOnEveryEngineOfThePad() throws {
        let main = HapticEngine(profile: .generic, clock: clock)
        main.start()
        let pipe = PadPipeline(engine: main)
        let right = HapticEngine(profile: .generic, clock: clock, route: .weakOnly)
        right.start()
        pipe.add(right, for: .rightHandle)
        pipe.duck = 0.25
        let game = main.makePlayer(constant(0.8, 5))
        try main.start(game)
        #expect(pipe.tick() == .set(MotorMagnitudes(strong: 52428, weak: 0)))
        let alert = right.makePlayer(constant(0.5, 0.5))
        try right.setPriority(alert, 10)
        try right.start(alert, at: .at(1))
        clock.now = 1.1
        #expect(pipe.tick() == .set(MotorMagnitudes(strong: 13107, weak: 32768)), "the game ducked to a quarter under the alert")
        clock.now = 1.6
        #expect(pipe.tick() == .set(MotorMagnitudes(strong: 52428, weak: 0)), "and back when the alert ended")
        #expect(abs((pipe.nextWakeup(now: 1.6) ?? 0) - 5) < 1e-9)
    }

    @Test func equalPrioritiesMixAsEverAndAMutedPlayerDucksNobody() throws {
        let e = HapticEngine(profile: .generic, clock: clock)
        e.start()
        let pipe = PadPipeline(engine: e)
        pipe.duck = 0
        let a = e.makePlayer(constant(0.3, 5)), b = e.makePlayer(constant(0.2, 5))
        try e.start(a)
        try e.start(b)
        #expect(pipe.tick() == .set(MotorMagnitudes(strong: 32768, weak: 0)), "same priority: they sum")
        try e.setPriority(b, 5)
        try e.setPolicyGain(b, 0)
        clock.now = 0.1
        #expect(pipe.tick() == .set(MotorMagnitudes(strong: 19661, weak: 0)), "silenced by policy, b ducks no one")
        try e.setPolicyGain(b, 0.5)
        clock.now = 0.2
        #expect(pipe.tick() == .set(MotorMagnitudes(strong: 6553, weak: 0)), "heard again at half: a is muted (duck 0)")
    }

    @Test func maxStrengthIsACeilingAfterGain() throws {
        let e = HapticEngine(profile: .generic, clock: clock)
        e.start()
        let pipe = PadPipeline(engine: e)
        pipe.maxStrength = 0.5
        try e.start(e.makePlayer(constant(0.9, 5, sharpness: 0.9)))
        #expect(pipe.tick() == .set(MotorMagnitudes(strong: 18652, weak: 32767)), "weak capped, strong untouched")
    }
}
