import HapticCore
import Testing

/// "When can this output next change?" for every element kind, on the manual clock: the breakpoints
/// the event-driven render loop sleeps until.
@Suite struct NextChangeTests {
    func compiled(_ elements: [PatternElement]) -> CompiledPattern {
        CompiledPattern(HapticPattern(elements: elements), profile: .generic)
    }

    func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-9 }

    @Test func aTransientChangesWhenItsPulseEnds() {
        let c = compiled([.event(.transient(at: 0.2, intensity: 1, sharpness: 1))])
        let before = c.nextChange(after: 0)
        #expect(near(before.change.time, 0.2) && !before.sounding && !before.change.ramping)
        let during = c.nextChange(after: 0.21)
        #expect(near(during.change.time, 0.2 + 0.030), "generic: a sharp pulse lasts 30 ms")
        #expect(during.sounding && !during.change.ramping)
        #expect(c.nextChange(after: 0.3).change == .never)
    }

    @Test func aContinuousEventRampsThroughAttackAndReleaseAndHoldsBetween() {
        let e = HapticEvent.continuous(at: 0, duration: 1, intensity: 0.8, sharpness: 0.2,
                                       extra: [.init(.attackTime, 0.5), .init(.releaseTime, 0.5)])
        let c = compiled([.event(e)])
        let attack = EnvelopeTiming.seconds(0.5), release = EnvelopeTiming.seconds(0.5)
        let inAttack = c.nextChange(after: 0.1)
        #expect(near(inAttack.change.time, attack) && inAttack.change.ramping)
        let holding = c.nextChange(after: 0.5)
        #expect(near(holding.change.time, 1) && !holding.change.ramping && holding.sounding)
        let releasing = c.nextChange(after: 1.1)
        #expect(near(releasing.change.time, 1 + release) && releasing.change.ramping)
        #expect(c.nextChange(after: 1 + release + 0.01).change == .never)
    }

    @Test func aDecayingEventRampsUntilItsDecayEnds() {
        let e = HapticEvent.continuous(at: 0, duration: 2, intensity: 1, sharpness: 0,
                                       extra: [.init(.sustained, 0), .init(.decayTime, 0.5)])
        let c = compiled([.event(e)])
        let decaying = c.nextChange(after: 0.1)
        #expect(near(decaying.change.time, EnvelopeTiming.seconds(0.5)) && decaying.change.ramping)
        let decayed = c.nextChange(after: 1)
        #expect(near(decayed.change.time, 2) && !decayed.change.ramping, "silent until its end")
    }

    @Test func parametersAndCurvesAreBreakpointsAndSlopedSegmentsRamp() {
        let c = compiled([
            .event(.continuous(at: 0, duration: 3, intensity: 1, sharpness: 0.5)),
            .parameter(.init(.hapticSharpnessControl, 0.2, at: 0.5)),
            .curve(.init(.hapticIntensityControl, at: 1, points: [.init(0, 1), .init(0.5, 0.2), .init(1, 0.2), .init(1.5, 0.6)])),
        ])
        #expect(near(c.nextChange(after: 0.1).change.time, 0.5))
        #expect(!c.nextChange(after: 0.1).change.ramping)
        let sloped = c.nextChange(after: 1.2)
        #expect(near(sloped.change.time, 1.5) && sloped.change.ramping)
        let flat = c.nextChange(after: 1.7)
        #expect(near(flat.change.time, 2) && !flat.change.ramping, "a flat segment holds")
        let last = c.nextChange(after: 2.2)
        #expect(near(last.change.time, 2.5) && last.change.ramping)
        #expect(near(c.nextChange(after: 2.6).change.time, 3), "then the event's end")
    }

    /// A curve governs from its first control point: curves of one parameter all at time 0, each
    /// holding the next stretch of points, play piecewise (puterman/HapticTest's workaround for a
    /// curve's 16 points, "it kind of feels like it works" on an iPhone; an outside check). The
    /// last one used to govern from 0, holding its first value: the earlier stretches were lost.
    @Test func curvesAtOneTimeGovernFromTheirFirstPoints() {
        let c = compiled([
            .event(.continuous(at: 0, duration: 4, intensity: 1, sharpness: 0.5)),
            .curve(.init(.hapticIntensityControl, at: 0, points: [.init(0, 1), .init(1, 1)])),
            .curve(.init(.hapticIntensityControl, at: 0, points: [.init(2, 0.2), .init(3, 0.2)])),
        ])
        let first = c.frame(at: 0.5).intensity, second = c.frame(at: 2.5).intensity
        #expect(first > 0.9, "the first curve's stretch: \(first)")
        #expect(second > 0.1 && second < 0.3, "the second's: \(second)")
        #expect(near(c.nextChange(after: 1.5).change.time, 2), "the second starts at its first point")
        // A curve placed later still counts its points from its own time.
        let later = compiled([
            .event(.continuous(at: 0, duration: 4, intensity: 1, sharpness: 0.5)),
            .curve(.init(.hapticIntensityControl, at: 1, points: [.init(0.5, 0.5), .init(1.5, 0.5)])),
        ])
        #expect(later.frame(at: 1.2).intensity > 0.9, "not yet: the default")
        #expect(abs(later.frame(at: 2).intensity - 0.5) < 0.05)
    }

    @Test func aCurveRampsOnlyWhileSomethingSounds() {
        let c = compiled([
            .event(.continuous(at: 2, duration: 1, intensity: 1, sharpness: 0.5)),
            .curve(.init(.hapticIntensityControl, at: 0, points: [.init(0, 0), .init(4, 1)])),
        ])
        let silent = c.nextChange(after: 1)
        #expect(!silent.change.ramping && near(silent.change.time, 2))
        #expect(c.nextChange(after: 2.5).change.ramping)
    }

    // MARK: players on the engine clock

    let clock = ManualClock(10)

    func engine() -> HapticEngine {
        let e = HapticEngine(clock: clock)
        e.start()
        return e
    }

    @Test func rateScalesBreakpointsAndLoopsWrap() throws {
        let e = engine()
        let p = e.makePlayer(HapticPattern(elements: [.event(.continuous(at: 0.5, duration: 1, intensity: 1, sharpness: 0))]), advanced: true)
        try e.setRate(p, 2)
        try e.start(p)
        _ = e.render()
        #expect(near(e.nextChange(at: 10).time, 10.25), "the event at 0.5 s plays at 0.25 s at rate 2")
        try e.setRate(p, 1)
        try e.setLoopEnabled(p, true)
        try e.setLoopEnd(p, 1.2)
        clock.now = 10.6
        _ = e.render()
        // Offset 0.6 at rate 1 (re-anchored at 10): the loop wraps at 1.2, before the event's end at 1.5.
        #expect(near(e.nextChange(at: 10.6).time, 11.2))
    }

    @Test func pausedPlayersChangeNothingUntilTheirResume() throws {
        let e = engine()
        let p = e.makePlayer(HapticPattern(elements: [.event(.continuous(at: 0, duration: 5, intensity: 1, sharpness: 0,
                                                                        extra: [.init(.attackTime, 1)]))]), advanced: true)
        try e.start(p)
        clock.now = 10.5
        _ = e.render()
        #expect(e.nextChange(at: 10.5).ramping, "in its attack")
        try e.pause(p)
        try e.resume(p, at: .at(12))
        _ = e.render()
        let paused = e.nextChange(at: 10.5)
        #expect(!paused.ramping && near(paused.time, 12))
        clock.now = 12
        _ = e.render()
        #expect(e.nextChange(at: 12).ramping, "ramping again from the paused offset")
    }

    @Test func seekMovesTheBreakpoints() throws {
        let e = engine()
        let p = e.makePlayer(HapticPattern(elements: [
            .event(.transient(at: 1)), .event(.transient(at: 3)),
        ]), advanced: true)
        try e.start(p)
        _ = e.render()
        #expect(near(e.nextChange(at: 10).time, 11))
        try e.seek(p, toOffset: 2)
        _ = e.render()
        #expect(near(e.nextChange(at: 10).time, 11), "the next transient is now 1 s away: the one at 3")
    }

    @Test func scheduledCommandsAndSentControlsAreBreakpoints() throws {
        let e = engine()
        let p = e.makePlayer(HapticPattern(elements: [.event(.continuous(at: 0, duration: 10, intensity: 1, sharpness: 0))]), advanced: true)
        try e.start(p, at: .at(11))
        #expect(near(e.nextChange(at: 10).time, 11))
        clock.now = 11
        _ = e.render()
        try e.stop(p, at: .at(15))
        try e.sendParameters([(.hapticIntensityControl, 0.5)], to: p, at: .at(12))
        #expect(near(e.nextChange(at: 11).time, 12))
        #expect(!e.nextChange(at: 11).ramping)
        // A curve sent mid-play ramps, and ends at its last point.
        try e.scheduleCurve(.init(.hapticIntensityControl, at: 0, points: [.init(0, 1), .init(0.5, 0.3)]), on: p, at: .at(11.2))
        clock.now = 11.3
        _ = e.render()
        let change = e.nextChange(at: 11.3)
        #expect(change.ramping && near(change.time, 11.7))
    }

    @Test func aMutedOrStoppedEngineNeverRamps() throws {
        let e = engine()
        let p = e.makePlayer(HapticPattern(elements: [.event(.continuous(at: 0, duration: 5, intensity: 1, sharpness: 0,
                                                                        extra: [.init(.attackTime, 1)]))]))
        try e.start(p)
        _ = e.render()
        e.isMutedForHaptics = true
        #expect(!e.nextChange(at: 10).ramping)
        e.stop()
        #expect(e.nextChange(at: 10) == .never)
    }

    /// An onset (`nextWakeupIsOnset`, what `render.onset_lead` wakes early for): a breakpoint at its
    /// own time on a silent pad. A sounding pad's next change is none, nor is a wake the pacer put
    /// off (an onset within the interval after the pad's last write waits for it).
    @Test func anOnsetIsABreakpointOnASilentPad() throws {
        let e = engine()
        let pipe = PadPipeline(engine: e)
        let interval = pipe.pacer.profile.minimumUpdateInterval
        // Follows the pipeline's own wakes from a sounding pad until it writes silence: none of
        // them is an onset; the time of that write.
        func untilSilent() -> Double {
            for _ in 0..<100 {
                guard let wake = pipe.nextWakeup(now: clock.now) else { break }
                #expect(!pipe.nextWakeupIsOnset, "sounding at \(clock.now): the wake at \(wake) is no onset")
                clock.now = max(wake, clock.now + 1e-6)
                if pipe.tick() == .set(.zero) { return clock.now }
            }
            Issue.record("no silence")
            return .infinity
        }
        clock.now = 10
        let p = e.makePlayer(HapticPattern(elements: [
            .event(.transient(at: 1, intensity: 1, sharpness: 0.5)),
            .event(.transient(at: 2, intensity: 1, sharpness: 0.5)),
        ]))
        try e.start(p)
        _ = pipe.tick()
        #expect(near(pipe.nextWakeup(now: 10) ?? 0, 11) && pipe.nextWakeupIsOnset, "silent, the first transient next")
        clock.now = 11
        #expect(pipe.tick() != nil)
        let silent = untilSilent()
        #expect(silent < 12)
        #expect(near(pipe.nextWakeup(now: clock.now) ?? 0, 12) && pipe.nextWakeupIsOnset, "silent again, the second transient next")
        clock.now = 12
        #expect(pipe.tick() != nil)
        let end = untilSilent()
        // A transient within the interval after that silence waits for the pacer: no onset wake.
        let soon = e.makePlayer(HapticPattern(elements: [.event(.transient(at: interval / 2, intensity: 1, sharpness: 0.5))]))
        try e.start(soon)
        #expect(pipe.tick() == nil, "held: the silence was written less than an interval ago")
        let wake = pipe.nextWakeup(now: clock.now) ?? 0
        #expect(abs(wake - (end + interval)) < 1e-5 && !pipe.nextWakeupIsOnset, "the pacer's time, not the onset's: \(wake - end) after the silence, interval \(interval)")
    }

    /// The pipeline: a constant rumble needs no wakeup before its end; a ramp, one per pad interval.
    @Test func thePipelineWakesAtBreakpointsAndAtTheIntervalWhileRamping() throws {
        let e = engine()
        let pipe = PadPipeline(engine: e)
        let p = e.makePlayer(HapticPattern(elements: [.event(.continuous(at: 0, duration: 10, intensity: 0.6, sharpness: 0))]))
        try e.start(p)
        #expect(pipe.tick() != nil)
        #expect(near(pipe.nextWakeup(now: 10) ?? 0, 20))
        let ramp = e.makePlayer(HapticPattern(elements: [.event(.continuous(at: 0, duration: 1, intensity: 0.4, sharpness: 0,
                                                                           extra: [.init(.attackTime, 0.6)]))]))
        clock.now = 10.5
        try e.start(ramp)
        #expect(pipe.tick() == nil, "an attack starts from zero: nothing changes yet")
        let next = pipe.nextWakeup(now: 10.5) ?? 0
        #expect(next > 10.5 && next <= 10.5 + 0.010 + 1e-6, "the next write the pad can take: \(next)")
    }
}
