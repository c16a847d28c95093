import HapticCore
import Testing

/// A continuous event on the strong motor only (sharpness 0): its output is `intensity × 65535`.
func strongPattern(at time: Double = 0, duration: Double = 1, intensity: Double = 1) -> HapticPattern {
    HapticPattern(elements: [.event(.continuous(at: time, duration: duration, intensity: intensity, sharpness: 0))])
}

func strong(_ i: Double) -> MotorMagnitudes { MotorMagnitudes(strong: UInt16(i * 65535 + 0.5), weak: 0) }

final class Recorder {
    var stopped: [HapticEngine.StoppedReason] = []
    var resets = 0
    var ended: [(PlayerID, PlayerEnd)] = []
}

@Suite struct EngineTests {
    let clock = ManualClock()
    let engine: HapticEngine
    let record = Recorder()

    init() {
        engine = HapticEngine(clock: clock)
        let r = record
        engine.stoppedHandler = { r.stopped.append($0) }
        engine.resetHandler = { r.resets += 1 }
        engine.playerEnded = { r.ended.append(($0, $1)) }
    }

    func at(_ t: Double) -> MotorMagnitudes {
        clock.now = t
        return engine.render()
    }

    // MARK: engine

    @Test func playersNeedARunningEngine() throws {
        let p = engine.makePlayer(strongPattern())
        #expect(throws: EngineError.notRunning) { try engine.start(p) }
        engine.start()
        try engine.start(p)
        #expect(at(0.5) == strong(1))
    }

    @Test func explicitStopStopsPlayersWithoutCallingTheStoppedHandler() throws {
        engine.start()
        let p = engine.makePlayer(strongPattern())
        try engine.start(p)
        #expect(at(0.2) == strong(1))
        engine.stop()
        #expect(!engine.isRunning)
        #expect(at(0.3) == .zero)
        #expect(record.stopped.isEmpty)
        #expect(record.ended.map(\.1) == [.stopped])
    }

    @Test(arguments: [
        (HapticEngine.StoppedReason.gameControllerDisconnect, 0), (.systemError, 1), (.engineDestroyed, 2),
    ])
    func stoppingByItselfCallsTheStoppedHandlerWithTheReason(reason: HapticEngine.StoppedReason, how: Int) throws {
        engine.start()
        try engine.start(engine.makePlayer(strongPattern()))
        _ = at(0.1)
        switch how {
        case 0: engine.deviceDisconnected()
        case 1: engine.systemError()
        default: engine.destroy()
        }
        #expect(record.stopped == [reason])
        #expect(at(0.2) == .zero)
        #expect(record.ended.map(\.1) == [.stopped])
    }

    @Test func autoShutdownStopsWhenIdleAndRestartsOnDemand() throws {
        engine.isAutoShutdownEnabled = true
        engine.idleTimeout = 2
        let p = engine.makePlayer(strongPattern(duration: 1))
        try engine.start(p)  // starts the engine on demand
        #expect(engine.isRunning)
        #expect(at(0.5) == strong(1))
        #expect(at(1.1) == .zero)
        #expect(record.ended.map(\.1) == [.finished])
        #expect(engine.nextWakeup == 3.1, "the loop is told when the idle timeout falls due")
        _ = at(3.0)
        #expect(engine.isRunning)
        _ = at(3.1)
        #expect(!engine.isRunning)
        #expect(record.stopped == [.idleTimeout])
        try engine.start(p)
        #expect(engine.isRunning)
        #expect(at(3.5) == strong(1))
    }

    /// What a render after a command walks from (`lastCommandTime`, `commandCount`): every command
    /// that changes the output counts, at the clock's time at its end; reads and the engine's own
    /// stops while it advances (idle shutdown) do not.
    @Test func commandsAreCountedAndStampedButReadsAndSelfStopsAreNot() throws {
        engine.isAutoShutdownEnabled = true
        engine.idleTimeout = 1
        var count = engine.commandCount
        /// `body` counted as a command (at least once), stamped with the clock's time.
        func counts(_ what: String, _ body: () throws -> Void) rethrows {
            clock.now += 0.1
            try body()
            #expect(engine.commandCount > count && engine.lastCommandTime == clock.now, "\(what) is a command")
            count = engine.commandCount
        }
        var p = 0
        counts("making a player") { p = engine.makePlayer(strongPattern(duration: 0.5)) }
        try counts("a start") { try engine.start(p) }
        try counts("parameters") { try engine.sendParameters([(.hapticIntensityControl, 0.5)], to: p) }
        let stamped = engine.lastCommandTime
        clock.now += 0.1
        _ = try engine.status(p)
        _ = try engine.scheduledCount(p)
        _ = engine.nextChange(at: clock.now)
        #expect(engine.commandCount == count && engine.lastCommandTime == stamped, "reads are not commands")
        clock.now += 1
        engine.update()
        clock.now += 2
        engine.update()
        #expect(!engine.isRunning && record.stopped == [.idleTimeout])
        #expect(engine.commandCount == count && engine.lastCommandTime == stamped, "nor is the engine's own idle shutdown")
        counts("an explicit stop") { engine.stop() }
    }

    @Test func notifyWhenPlayersFinishedFiresAtOnceWhenNothingPlays() {
        engine.start()
        var calls = 0
        engine.notifyWhenPlayersFinished { calls += 1; return .leaveRunning }
        #expect(calls == 1)
        #expect(engine.isRunning)
    }

    @Test func notifyWhenPlayersFinishedCanStopTheEngine() throws {
        engine.start()
        try engine.start(engine.makePlayer(strongPattern(duration: 0.5)))
        try engine.start(engine.makePlayer(strongPattern(duration: 1.0)))
        var calls = 0
        engine.notifyWhenPlayersFinished { calls += 1; return .stopEngine }
        #expect(calls == 0)
        _ = at(0.6)
        #expect(calls == 0, "one player still plays")
        _ = at(1.01)
        #expect(calls == 1)
        #expect(!engine.isRunning)
        #expect(record.stopped == [.notifyWhenFinished])
    }

    @Test func resetInvalidatesPlayersButPatternsSurvive() throws {
        engine.start()
        let pattern = strongPattern()
        let p = engine.makePlayer(pattern)
        try engine.start(p)
        _ = at(0.1)
        engine.reset()
        #expect(record.resets == 1)
        #expect(throws: EngineError.playerInvalidated(p)) { try engine.start(p) }
        engine.start()
        let again = engine.makePlayer(pattern)
        try engine.start(again)
        #expect(at(0.2) == strong(1))
    }

    @Test func mutedEngineIsSilentButKeepsTime() throws {
        engine.start()
        let p = engine.makePlayer(strongPattern())
        try engine.start(p)
        engine.isMutedForHaptics = true
        #expect(at(0.3) == .zero)
        engine.isMutedForHaptics = false
        #expect(at(0.4) == strong(1))
        #expect(try engine.status(p).offset == 0.4)
    }

    @Test func playPatternPlaysAtOnceAndCleansUp() throws {
        engine.start()
        clock.now = 5
        let id = try engine.playPattern(strongPattern(duration: 0.5, intensity: 0.5))
        #expect(at(5.25) == strong(0.5))
        _ = at(5.6)
        #expect(record.ended.map(\.1) == [.finished])
        #expect(throws: EngineError.playerNotFound(id)) { try engine.status(id) }
        #expect(engine.playerIDs.isEmpty)
    }

    @Test func oneShotPlayersAreRemovedOnceTheyEnd() throws {
        engine.start()
        let p = engine.makePlayer(strongPattern(duration: 0.5), advanced: true, oneShot: true)
        try engine.setRate(p, 2)
        try engine.start(p)
        #expect(at(0.2) == strong(1))
        _ = at(0.3)
        #expect(record.ended.map(\.1) == [.finished])
        #expect(throws: EngineError.playerNotFound(p)) { try engine.status(p) }
    }

    // MARK: players

    @Test func startAndStopAtTimesOnTheEngineClock() throws {
        engine.start()
        clock.now = 10
        #expect(engine.currentTime == 10)
        let p = engine.makePlayer(strongPattern(duration: 5))
        try engine.start(p, at: .at(11))
        try engine.stop(p, at: .at(12))
        #expect(try engine.status(p).phase == .scheduled)
        #expect(!engine.isPlaying)
        #expect(engine.nextWakeup == 11, "nothing plays yet: the loop sleeps until the start")
        #expect(at(10.9) == .zero)
        #expect(at(11.5) == strong(1))
        #expect(try engine.status(p).offset == 0.5, "the start took effect at 11, not at the tick that saw it")
        #expect(at(12.1) == .zero)
        #expect(record.ended.map(\.1) == [.stopped])
    }

    /// A time already past when the command is given means now: the pattern plays from its start,
    /// not from where it would be had it started then.
    @Test func aStartAtATimeAlreadyPastPlaysFromTheBeginningNow() throws {
        engine.start()
        clock.now = 10
        let p = engine.makePlayer(HapticPattern(elements: [
            .event(.continuous(at: 0, duration: 0.2, intensity: 0.5, sharpness: 0)),
            .event(.continuous(at: 0.2, duration: 0.3, intensity: 1, sharpness: 0)),
        ]))
        try engine.start(p, at: .at(9.9))
        #expect(try engine.status(p).offset == 0, "started now, at 10")
        #expect(at(10.1) == strong(0.5), "the first event plays, not the second")
        #expect(at(10.3) == strong(1))
        try engine.cancel(p)
        let q = engine.makePlayer(strongPattern(duration: 1))
        try engine.start(q, at: .at(5))
        #expect(at(10.35) == strong(1), "a start 5 s past does not end a 1 s pattern at once")
        #expect(try engine.status(q).phase == .playing)
        // A value for a past time takes effect now, over one given before it (not under it).
        try engine.sendParameters([(.hapticIntensityControl, 0.25)], to: q)
        clock.now = 10.36
        try engine.sendParameters([(.hapticIntensityControl, 0.5)], to: q, at: .at(10.2))
        #expect(at(10.37) == strong(0.5))
    }

    @Test func cancelDropsPendingCommandsAndStops() throws {
        engine.start()
        let p = engine.makePlayer(strongPattern(duration: 5))
        try engine.start(p)
        try engine.sendParameters([(.hapticIntensityControl, 0.5)], to: p, at: .at(2))
        try engine.stop(p, at: .at(3))
        try engine.start(p, at: .at(4))
        _ = at(1)
        try engine.cancel(p)
        #expect(at(1.5) == .zero)
        #expect(record.ended.map(\.1) == [.cancelled])
        #expect(engine.nextWakeup == nil, "nothing pending remains")
        try engine.start(p)
        #expect(at(2.5) == strong(1), "the cancelled parameter never took effect")
    }

    @Test func parametersAtFutureTimes() throws {
        engine.start()
        let p = engine.makePlayer(strongPattern(duration: 2))
        try engine.start(p)
        try engine.sendParameters([(.hapticIntensityControl, 0.5)], to: p, at: .at(0.5))
        try engine.sendParameters([(.hapticSharpnessControl, 1.0)], to: p, at: .at(1.5))
        #expect(at(0.4) == strong(1))
        #expect(at(0.6) == strong(0.5))
        #expect(at(1.6) == MotorMagnitudes(strong: 0, weak: 32768))
    }

    @Test func scheduledCurvesStartAtTheGivenTimeNotTheirOwn() throws {
        engine.start()
        let p = engine.makePlayer(strongPattern(duration: 2))
        try engine.start(p)
        let curve = ParameterCurve(.hapticIntensityControl, at: 9, points: [.init(0, 1), .init(0.2, 0)])
        try engine.scheduleCurve(curve, on: p, at: .at(0.2))
        #expect(at(0.1) == strong(1))
        #expect(at(0.3) == strong(0.5))
        #expect(at(0.5) == .zero)
    }

    @Test func mutedPlayerIsSilentOthersPlay() throws {
        engine.start()
        let a = engine.makePlayer(strongPattern(intensity: 0.25))
        let b = engine.makePlayer(strongPattern(intensity: 0.5))
        try engine.start(a)
        try engine.start(b)
        try engine.setMuted(b, true)
        #expect(at(0.5) == strong(0.25))
    }

    @Test func twoPlayersMixAndClip() throws {
        engine.start()
        let a = engine.makePlayer(strongPattern(duration: 1, intensity: 0.6))
        let b = engine.makePlayer(strongPattern(at: 0.5, duration: 1, intensity: 0.6))
        try engine.start(a)
        try engine.start(b)
        #expect(at(0.25) == strong(0.6), "only a sounds before b's event at 0.5")
        #expect(at(0.75) == MotorMagnitudes(strong: 65535, weak: 0), "0.6 + 0.6 clips at full scale")
        #expect(at(1.25) == strong(0.6), "a has ended; b goes on")
        let c = engine.makePlayer(strongPattern(duration: 1, intensity: 0.3))
        try engine.start(c)
        #expect(at(1.3) == strong(0.9), "0.6 + 0.3 sum below the clip")
    }

    @Test func advancedOnlyCommandsNeedAnAdvancedPlayer() {
        let p = engine.makePlayer(strongPattern())
        #expect(throws: EngineError.notAdvanced(p)) { try engine.pause(p) }
        #expect(throws: EngineError.notAdvanced(p)) { try engine.setRate(p, 2) }
        #expect(throws: EngineError.notAdvanced(p)) { try engine.seek(p, toOffset: 0) }
        #expect(throws: EngineError.notAdvanced(p)) { try engine.setLoopEnabled(p, true) }
        #expect(throws: EngineError.playerNotFound(99)) { try engine.start(99) }
    }

    // MARK: advanced players

    /// A weak-motor transient at 0 (30 ms pulse) and a half-intensity strong continuous event 0.5–1.0.
    var twoPart: HapticPattern {
        HapticPattern(elements: [
            .event(.transient(at: 0, intensity: 1, sharpness: 1)),
            .event(.continuous(at: 0.5, duration: 0.5, intensity: 0.5, sharpness: 0)),
        ])
    }

    @Test func loopsWrapAtTheEndOfTheLastEvent() throws {
        engine.start()
        let p = engine.makePlayer(twoPart, advanced: true)
        try engine.setLoopEnabled(p, true)
        try engine.start(p)
        #expect(at(0.01) == MotorMagnitudes(strong: 0, weak: 65535))
        #expect(at(0.6) == strong(0.5))
        #expect(at(1.01) == MotorMagnitudes(strong: 0, weak: 65535), "the transient again, one loop later")
        #expect(at(1.6) == strong(0.5))
        #expect(at(5.02) == MotorMagnitudes(strong: 0, weak: 65535))
        #expect(record.ended.isEmpty, "a looping player does not finish")
        try engine.setLoopEnd(p, 0.25)
        // Re-anchored at 5.02 (offset 0.02): at 5.26 the offset is 0.26, which wraps to 0.01.
        #expect(at(5.20) == .zero)
        #expect(at(5.26) == MotorMagnitudes(strong: 0, weak: 65535))
    }

    @Test func aTransientsLogicalLengthFromAFileSetsTheLoopAndTheEnd() throws {
        engine.start()
        // A transient at 0 whose EventDuration, 0.4 s, is its logical length (Apple: "used to
        // determine pattern end and loop points").
        let padded = try AHAPLoader.load(text: #"{"Pattern": [{"Event": {"EventType": "HapticTransient", "EventDuration": 0.4, "EventParameters": [{"ParameterID": "HapticSharpness", "ParameterValue": 1}]}}]}"#).pattern
        let p = engine.makePlayer(padded, advanced: true)
        try engine.setLoopEnabled(p, true)
        try engine.start(p)
        #expect(at(0.01) == MotorMagnitudes(strong: 0, weak: 65535))
        #expect(at(0.2) == .zero)
        #expect(at(0.41) == MotorMagnitudes(strong: 0, weak: 65535), "again 0.4 s later")
        #expect(at(0.81) == MotorMagnitudes(strong: 0, weak: 65535))
        // Not looping, it ends 0.4 s after its start (0.81 s), well after its pulse.
        let q = engine.makePlayer(padded, advanced: true)
        try engine.start(q)
        _ = at(1.15)
        #expect(!record.ended.contains { $0.0 == q }, "still playing after its pulse")
        _ = at(1.3)
        #expect(record.ended.contains { $0.0 == q && $0.1 == .finished })
    }

    @Test func anUnsetLoopEndIsThePatternsDurationCurvesIncluded() throws {
        engine.start()
        // A transient at 0 and a curve that runs on to 2 s: the loop is the pattern's 2 s, and the
        // advanced player reports the same (docs/rendering.md, "Advanced players").
        let pattern = HapticPattern(elements: [
            .event(.transient(at: 0, intensity: 1, sharpness: 1)),
            .curve(.init(.hapticIntensityControl, at: 0, points: [.init(0, 1), .init(2, 1)])),
        ])
        let p = engine.makePlayer(pattern, advanced: true)
        try engine.setLoopEnabled(p, true)
        try engine.start(p)
        #expect(at(0.005) == MotorMagnitudes(strong: 0, weak: 65535))
        #expect(at(1.0) == .zero, "no pulse one second in")
        #expect(at(2.005) == MotorMagnitudes(strong: 0, weak: 65535), "again at 2 s, the curve's end")
    }

    @Test func loopEndShortensTheLoop() throws {
        engine.start()
        let p = engine.makePlayer(twoPart, advanced: true)
        try engine.setLoopEnabled(p, true)
        try engine.setLoopEnd(p, 0.25)
        try engine.start(p)
        #expect(at(0.1) == .zero)
        #expect(at(0.26) == MotorMagnitudes(strong: 0, weak: 65535), "wrapped to 0.01")
        #expect(at(0.6) == .zero, "the continuous event after the loop end never sounds")
        #expect(abs(try engine.status(p).offset - 0.1) < 1e-9)
    }

    @Test func turningLoopingOffLetsThePlayerFinish() throws {
        engine.start()
        let p = engine.makePlayer(twoPart, advanced: true)
        try engine.setLoopEnabled(p, true)
        try engine.start(p)
        _ = at(2.6)  // third loop, offset 0.6
        try engine.setLoopEnabled(p, false)
        #expect(at(2.7) == strong(0.5))
        _ = at(3.01)
        #expect(record.ended.map(\.1) == [.finished])
    }

    @Test func rateScalesTimeAndCanChangeWhilePlaying() throws {
        engine.start()
        let p = engine.makePlayer(twoPart, advanced: true)
        try engine.setRate(p, 2)
        try engine.start(p)
        #expect(at(0.3) == strong(0.5), "offset 0.6 at twice the speed")
        try engine.setRate(p, 0.5)
        #expect(at(0.5) == strong(0.5))
        #expect(abs(try engine.status(p).offset - 0.7) < 1e-12, "0.6 + 0.2 s × 0.5")
        _ = at(1.09)
        #expect(record.ended.isEmpty)
        _ = at(1.11)
        #expect(record.ended.map(\.1) == [.finished], "offset 0.6 + 0.81 × 0.5 > 1.0")
        #expect(throws: EngineError.invalidRate(0)) { try engine.setRate(p, 0) }
        #expect(throws: EngineError.invalidRate(-1)) { try engine.setRate(p, -1) }
    }

    @Test func pauseDuringATransientAndResumeFromThePausedOffset() throws {
        engine.start()
        // A 55 ms pulse (sharpness 0.5 on the generic profile).
        let p = engine.makePlayer(HapticPattern(elements: [.event(.transient(at: 0, intensity: 1, sharpness: 0.5))]), advanced: true)
        try engine.start(p)
        #expect(!at(0.01).isZero)
        try engine.pause(p, at: .at(0.02))
        #expect(at(0.03) == .zero)
        #expect(try engine.status(p).phase == .paused)
        #expect(try engine.status(p).offset == 0.02)
        clock.now = 1.0
        try engine.resume(p)
        #expect(!at(1.03).isZero, "offset 0.05: still inside the 55 ms pulse")
        #expect(at(1.04) == .zero, "offset 0.06: past it")
    }

    @Test func seekBeyondTheEndEndsUnlessLooping() throws {
        engine.start()
        let p = engine.makePlayer(twoPart, advanced: true)
        var completions: [PlayerEnd] = []
        try engine.setCompletionHandler(p) { completions.append($0) }
        try engine.start(p)
        _ = at(0.1)
        try engine.seek(p, toOffset: 0.6)
        #expect(at(0.1) == strong(0.5))
        try engine.seek(p, toOffset: 5)
        #expect(completions == [.finished])
        #expect(try engine.status(p).phase == .finished)
        #expect(at(0.2) == .zero)

        let q = engine.makePlayer(twoPart, advanced: true)
        try engine.setLoopEnabled(q, true)
        try engine.start(q)
        _ = at(0.2)
        try engine.seek(q, toOffset: 2.6)
        #expect(try engine.status(q).offset == 0, "past the pattern's end a looping player starts at the beginning of its loop (Apple), not 2.6 wrapped to 0.6")
        #expect(at(0.2) != strong(0.5) && !at(0.2).isZero, "the transient at 0 plays again")
        try engine.setLoopEnd(q, 0.4)
        try engine.seek(q, toOffset: 0.45)
        #expect(try engine.status(q).offset == 0, "at or past loopEnd too")
        try engine.seek(q, toOffset: 0.3)
        #expect(abs(try engine.status(q).offset - 0.3) < 1e-12, "inside the loop: where asked")
    }

    @Test func completionHandlerFiresOnFinishAndStop() throws {
        engine.start()
        let p = engine.makePlayer(strongPattern(duration: 0.5), advanced: true)
        var completions: [PlayerEnd] = []
        try engine.setCompletionHandler(p) { completions.append($0) }
        try engine.start(p)
        _ = at(0.51)
        try engine.start(p)
        try engine.stop(p, at: .at(0.6))
        _ = at(0.7)
        #expect(completions == [.finished, .stopped])
    }

    @Test func releaseTailsPlayOutBeforeAPlayerFinishes() throws {
        engine.start()
        let pattern = HapticPattern(elements: [.event(.continuous(at: 0, duration: 0.5, intensity: 1, sharpness: 0, extra: [.init(.releaseTime, 0.25)]))])
        let p = engine.makePlayer(pattern)
        try engine.start(p)
        #expect(!at(0.53).isZero)
        #expect(record.ended.isEmpty)
        _ = at(0.57)
        #expect(record.ended.map(\.1) == [.finished])
        _ = p
    }

    /// A one-shot started when another one-shot has run out but the engine has not yet advanced past
    /// its end (the loop had not woken for it when the command came) plays: the other's end is
    /// processed in the same pass as the new start, and only the one that ended is reaped. (It was
    /// destroyed with the ended one, unheard: a `rumble` or `play` lost.)
    @Test(arguments: ["rumble", "play"])
    func aOneShotStartedAsAnotherRunsOutPlays(kind: String) throws {
        engine.start()
        try engine.start(engine.makeRumble(strong: 0.3, weak: 0.3, duration: 0.001))
        #expect(!at(0).isZero, "the first sounds")
        clock.now = 0.004  // the first ran out at 0.001; nothing has advanced the engine since
        let second: PlayerID
        if kind == "rumble" {
            second = try engine.makeRumble(strong: 0.8, weak: 0, duration: 0.010)
            try engine.start(second)
        } else {
            second = try engine.playPattern(strongPattern(duration: 0.010, intensity: 0.8))
        }
        #expect(try engine.status(second).phase == .playing)
        #expect(engine.output(at: clock.now).strong > 0, "the second one sounds")
        #expect(record.ended.count == 1 && record.ended[0].1 == .finished, "only the first ended")
    }

    /// The same with the second one's start scheduled (a `rumble` with a delay): due at 0.004, after
    /// the first ran out at 0.001, both taken in one pass when the engine next renders.
    @Test func aScheduledOneShotStartDueAsAnotherRunsOutPlays() throws {
        engine.start()
        try engine.start(engine.makeRumble(strong: 0.3, weak: 0.3, duration: 0.001))
        let second = try engine.makeRumble(strong: 0.8, weak: 0, duration: 0.010)
        try engine.start(second, at: .at(0.004))
        #expect(!at(0).isZero)
        #expect(at(0.006).strong > 0, "the second one sounds")
        #expect(try engine.status(second).phase == .playing)
    }

    /// A one-shot made and not yet started is not reaped when another one-shot ends meanwhile.
    @Test func aOneShotNotYetStartedOutlivesAnothersEnd() throws {
        engine.start()
        try engine.start(engine.makeRumble(strong: 0.3, weak: 0.3, duration: 0.001))
        let second = try engine.makeRumble(strong: 0.8, weak: 0, duration: 0.010)
        #expect(at(0.004).isZero, "the first ended and was reaped")
        #expect(try engine.status(second).phase == .idle)
        try engine.start(second)
        #expect(at(0.005).strong > 0)
        // Stopped before it ever started, a one-shot goes as before.
        let third = try engine.makeRumble(strong: 0.8, weak: 0, duration: 0.010)
        try engine.cancel(third)
        #expect(throws: EngineError.self) { try engine.status(third) }
    }

    /// A start that a callback cancels while the pass that would apply it ends another player: the
    /// start is not applied, and the pass ends.
    @Test func aStartCancelledByAnEndCallbackIsNotApplied() throws {
        engine.start()
        let first = try engine.makeRumble(strong: 0.3, weak: 0.3, duration: 0.001)
        try engine.start(first)
        let second = try engine.makeRumble(strong: 0.8, weak: 0, duration: 0.010)
        try engine.start(second, at: .at(0.004))
        let e = engine
        engine.playerEnded = { id, _ in if id == first { try? e.cancel(second) } }
        #expect(at(0.006).isZero, "the cancelled one never sounds")
        #expect(!engine.playerIDs.contains(second))
    }
}

