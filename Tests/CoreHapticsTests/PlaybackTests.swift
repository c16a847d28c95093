@testable import CoreHaptics
import DaemonTestSupport
import Foundation
import GameController
import HapticCore
import Testing

/// `import CoreHaptics` against the real daemon on a simulated pad, judged by its `--trace`: every
/// write that reached the pad, with its time on the engine clock.
extension CoreHapticsSuite {
@Suite struct PlaybackTests {
    /// Waits until every player of `engine` has finished.
    func waitForPlayers(_ engine: CHHapticEngine, timeout: Double = 5) -> Bool {
        let done = Recorder<Bool>()
        engine.notifyWhenPlayersFinished { _ in
            done.record(true)
            return .leaveEngineRunning
        }
        return done.wait(timeout: timeout)
    }

    @Test func aRhythmMadeInCodeLandsWithinOnePadIntervalOfWhereItWasWritten() throws {
        let daemon = try Fixture.daemon()
        let interval = try Fixture.padInterval(daemon)
        let engine = try CHHapticEngine()
        try engine.start()
        let written: [TimeInterval] = [0, 0.15, 0.3, 0.6, 0.7]
        let pattern = try CHHapticPattern(
            events: [transient(0), transient(0.15, intensity: 0.6), continuous(0.3, 0.2, intensity: 0.8), transient(0.6), transient(0.7, sharpness: 1)],
            parameters: [])
        let player = try engine.makePlayer(with: pattern)
        let t0 = engine.currentTime + 0.3
        try player.start(atTime: t0)
        #expect(waitForPlayers(engine))
        #expect(daemon.waitForTrace { $0.last.map { $0.2 == 0 && $0.3 == 0 } == true })
        let felt = onsets(daemon.traceRows(), from: t0 - 0.05, to: t0 + 1)
        #expect(felt.count == written.count, "every event felt once: \(felt.map { $0 - t0 })")
        for (w, f) in zip(written, felt) {
            #expect(f - (t0 + w) >= -0.001 && f - (t0 + w) <= interval, "written at \(w) s, felt at \(f - t0) s (pad interval \(interval) s)")
        }
        #expect(daemon.terminate() == 0)
    }

    /// A program's engines share one connection; a game that makes its players up front, as Apple
    /// advises, makes dozens (an outside check's Unity game made 33 and lost its haptics for the rest
    /// of its session at the old limit of 32 a connection): 100 players over two engines, every one
    /// of them playable.
    @Test func aProgramMayHoldAHundredPlayersOverItsEngines() throws {
        let daemon = try Fixture.daemon()
        let first = try CHHapticEngine(), second = try CHHapticEngine()
        try first.start()
        try second.start()
        let pattern = try CHHapticPattern(events: [continuous(0, 0.05)], parameters: [])
        var players: [any CHHapticPatternPlayer] = []
        for k in 0..<100 { players.append(try (k % 2 == 0 ? first : second).makePlayer(with: pattern)) }
        try players.last!.start(atTime: 0)
        #expect(daemon.waitForTrace { $0.last.map { $0.2 > 0 || $0.3 > 0 } == true }, "the hundredth plays")
        #expect(daemon.terminate() == 0)
    }

    @Test func anAudioResourceIsAFileThatCanBeRead() throws {
        let daemon = try Fixture.daemon()
        let engine = try CHHapticEngine()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("audio-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("hit.wav")
        try Data("RIFF\0\0\0\0WAVE".utf8).write(to: wav)
        let id = try engine.registerAudioResource(wav)
        // A player needs the resources its pattern names registered with its engine.
        func audioPattern(_ resource: CHHapticAudioResourceID) throws -> CHHapticPattern {
            try CHHapticPattern(events: [
                CHHapticEvent(audioResourceID: resource, parameters: [], relativeTime: 0),
                CHHapticEvent(eventType: .hapticTransient, parameters: [], relativeTime: 0),
            ], parameters: [])
        }
        _ = try engine.makePlayer(with: audioPattern(id))
        for unknown in [id + 100, id] {
            if unknown == id { try engine.unregisterAudioResource(id) }
            do {
                _ = try engine.makeAdvancedPlayer(with: audioPattern(unknown))
                Issue.record("a player of audio resource \(unknown), not registered")
            } catch let error as CHHapticError {
                #expect(error.code == .invalidAudioResource, "\(error)")
            }
        }
        for missing in [dir.appendingPathComponent("missing.wav"), dir] {
            do {
                _ = try engine.registerAudioResource(missing)
                Issue.record("\(missing.path) registered")
            } catch let error as CHHapticError {
                #expect(error.code == .fileNotFound, "\(error)")
            }
        }
        #expect(daemon.terminate() == 0)
    }

    @Test func dynamicParametersAndCurvesChangeARunningPlayer() throws {
        let daemon = try Fixture.daemon()
        let engine = try CHHapticEngine()
        try engine.start()
        let player = try engine.makeAdvancedPlayer(with: CHHapticPattern(events: [continuous(0, 1.2)], parameters: []))
        let t0 = engine.currentTime + 0.05
        try player.start(atTime: t0)
        // From 0.3 s: a quarter of the intensity. From 0.6 s: a curve back up to full over 0.3 s
        // (its points given out of time order: taken in time order, as in a pattern).
        try player.sendParameters([CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.25, relativeTime: 0)], atTime: t0 + 0.3)
        let curve = CHHapticParameterCurve(
            parameterID: .hapticIntensityControl,
            controlPoints: [.init(relativeTime: 0.3, value: 1), .init(relativeTime: 0, value: 0.25)], relativeTime: 99)
        try player.scheduleParameterCurve(curve, atTime: t0 + 0.6)
        #expect(curve.relativeTime == t0 + 0.6, "Apple: the method overrides the curve's relativeTime, setting it to atTime")
        #expect(waitForPlayers(engine))
        let rows = daemon.traceRows()
        func strong(at t: Double) -> Int { rows.last(where: { $0.0 <= t0 + t })?.2 ?? -1 }
        let full = strong(at: 0.25), quarter = strong(at: 0.5)
        #expect(full > 30_000, "full intensity before the parameter: \(full)")
        #expect(abs(Double(quarter) / Double(full) - 0.25) < 0.05, "a quarter after it: \(quarter) of \(full)")
        let ramp = [0.65, 0.75, 0.85].map(strong(at:))
        #expect(ramp[0] < ramp[1] && ramp[1] < ramp[2], "the curve rises: \(ramp)")
        #expect(strong(at: 1.0) >= full - 1_000, "back to full at the curve's end: \(strong(at: 1.0))")
        #expect(daemon.terminate() == 0)
    }

    /// Parameters whose times are all past take effect now, and the one latest in time wins —
    /// whatever their order in the array.
    @Test func pastParametersTakeEffectInTimeOrder() throws {
        let daemon = try Fixture.daemon()
        let engine = try CHHapticEngine()
        try engine.start()
        let player = try engine.makePlayer(with: CHHapticPattern(events: [continuous(0, 3)], parameters: []))
        try player.start(atTime: 0)
        #expect(daemon.waitForTrace { $0.last.map { $0.2 > 30_000 } == true }, "playing at full")
        let full = daemon.traceRows().last?.2 ?? 0
        try player.sendParameters([
            CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.25, relativeTime: 0.3),
            CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.75, relativeTime: 0),
        ], atTime: engine.currentTime - 1)
        try player.stop(atTime: engine.currentTime + 0.3)
        #expect(waitForPlayers(engine))
        let last = daemon.traceRows().last(where: { $0.2 > 0 })?.2 ?? 0
        #expect(abs(Double(last) / Double(full) - 0.25) < 0.05, "the later value, a quarter, in effect to the end: \(last) of \(full)")
        #expect(daemon.terminate() == 0)
    }

    @Test func stopAtATimeAndCancelSilenceThePad() throws {
        let daemon = try Fixture.daemon()
        let interval = try Fixture.padInterval(daemon)
        let engine = try CHHapticEngine()
        try engine.start()
        let long = try CHHapticPattern(events: [continuous(0, 5)], parameters: [])
        let player = try engine.makeAdvancedPlayer(with: long)
        let ended = Recorder<Bool>()
        player.completionHandler = { error in ended.record(error == nil) }
        let t0 = engine.currentTime + 0.3
        try player.start(atTime: t0)
        try player.stop(atTime: t0 + 0.3)
        #expect(ended.wait(), "the completion handler ran after the stop")
        #expect(daemon.waitForTrace { $0.last.map { $0.2 == 0 } == true })
        let rows = daemon.traceRows().filter { $0.0 >= t0 - 0.01 }
        let lastMoving = rows.last { $0.2 > 0 }?.0 ?? 0
        let silence = rows.first { $0.0 > lastMoving && $0.2 == 0 }?.0 ?? 0
        #expect(silence - (t0 + 0.3) >= -0.001 && silence - (t0 + 0.3) <= interval, "stopped at \(silence - t0) s, asked for 0.3 s")

        // cancel: everything pending goes too (the scheduled stop and parameters never happen).
        let second = try engine.makeAdvancedPlayer(with: long)
        try second.start(atTime: 0)
        try second.sendParameters([CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.1, relativeTime: 0)], atTime: engine.currentTime + 3)
        #expect(daemon.waitForTrace { $0.last.map { $0.2 > 0 } == true })
        let cancelledAt = engine.currentTime
        try second.cancel()
        #expect(daemon.waitForTrace { $0.last.map { $0.0 >= cancelledAt && $0.2 == 0 } == true }, "silent at once")
        #expect(waitForPlayers(engine))
        #expect(daemon.terminate() == 0)
    }

    /// Stopping the engine drops what its players had scheduled: a start for later does not play on
    /// the stopped engine. (Judged against a second engine's click, played after it would have.)
    @Test func stoppingTheEngineDropsAStartScheduledForLater() throws {
        let daemon = try Fixture.daemon()
        let engine = try CHHapticEngine()
        try engine.start()
        let t0 = engine.currentTime
        let later = try engine.makeAdvancedPlayer(with: CHHapticPattern(events: [continuous(0, 0.2)], parameters: []))
        try later.start(atTime: t0 + 1.0)
        let stopped = Recorder<Bool>()
        engine.stop { _ in stopped.record(true) }
        #expect(stopped.wait())
        let marker = try CHHapticEngine()
        try marker.start()
        try marker.makePlayer(with: CHHapticPattern(events: [transient(0)], parameters: [])).start(atTime: t0 + 1.5)
        #expect(daemon.waitForTrace { $0.contains { $0.0 >= t0 + 1.5 && $0.2 > 0 } }, "the marker played")
        let before = daemon.traceRows().filter { $0.0 >= t0 + 0.9 && $0.0 < t0 + 1.49 && ($0.2 > 0 || $0.3 > 0) }
        #expect(before.isEmpty, "nothing played on the stopped engine: \(before)")
        #expect(daemon.terminate() == 0)
    }

    @Test func loopsAndRateRepeatThePatternFaster() throws {
        let daemon = try Fixture.daemon()
        let interval = try Fixture.padInterval(daemon)
        let engine = try CHHapticEngine()
        try engine.start()
        let player = try engine.makeAdvancedPlayer(with: CHHapticPattern(events: [transient(0), transient(0.2)], parameters: []))
        player.loopEnabled = true
        #expect(player.loopEnd == 0.2, "unset, the loop end reads as the pattern's length (as Apple's does)")
        player.loopEnd = 0.4
        player.playbackRate = 2
        #expect(player.loopEnabled && player.loopEnd == 0.4 && player.playbackRate == 2)
        player.playbackRate = -1
        #expect(player.playbackRate == 2, "a rate ≤ 0 is ignored, as Apple documents")
        let t0 = engine.currentTime + 0.3  // ahead of both requests reaching hapticd, on a loaded machine too
        try player.start(atTime: t0)
        try player.stop(atTime: t0 + 0.55)
        #expect(waitForPlayers(engine))
        let felt = onsets(daemon.traceRows(), from: t0 - 0.01, to: t0 + 0.55)
        let expected = [0, 0.1, 0.2, 0.3, 0.4, 0.5]
        #expect(felt.count == expected.count, "a transient every 0.1 s at twice the rate, looping: \(felt.map { $0 - t0 })")
        // What is checked is where the loop and the rate put each onset, 0.1 s apart; lateness is the
        // benchmarks' (docs/benchmarks.md). An onset may come up to one pad interval late, plus 25 ms
        // for a render thread held up while the whole suite runs on two cores (seen once, locally).
        for (e, f) in zip(expected, felt) {
            #expect(f - (t0 + e) >= -0.001 && f - (t0 + e) <= interval + 0.025, "expected at \(e) s, felt at \(f - t0) s")
        }
        // pause, seek, resume.
        let seeker = try engine.makeAdvancedPlayer(with: CHHapticPattern(events: [continuous(0, 0.5), transient(2)], parameters: []))
        try seeker.start(atTime: 0)
        try seeker.pause(atTime: 0)
        try seeker.seek(toOffset: 1.9)
        let resumed = engine.currentTime + 0.2  // a time of its own: the request's trip does not count
        try seeker.resume(atTime: resumed)
        #expect(waitForPlayers(engine))
        let late = onsets(daemon.traceRows(), from: resumed, to: resumed + 1)
        #expect(late.count == 1 && late[0] - resumed > 0.1 - interval && late[0] - resumed < 0.1 + 2 * interval + 0.025,
                "after seeking to 1.9 s, the transient at 2 s plays 0.1 s later: \(late.map { $0 - resumed })")
        #expect(daemon.terminate() == 0)
    }

    @Test func parameterAttributesAreApplesDocumentedRangesAndDefaults() throws {
        let caps = CHHapticEngine.capabilitiesForHardware()
        // CHHapticParameter.h: AudioBrightness "Range: 0.0 … to 1.0 (no reduction of frequency
        // content). Default: 1.0"; AudioPan "Range: -1.0 … to 1.0 … Default: 0.0 (panned center)".
        let brightness = try caps.attributes(forEventParameter: .audioBrightness, eventType: .audioContinuous)
        #expect((brightness.minValue, brightness.maxValue, brightness.defaultValue) == (0, 1, 1))
        let pan = try caps.attributes(forEventParameter: .audioPan, eventType: .audioContinuous)
        #expect((pan.minValue, pan.maxValue, pan.defaultValue) == (-1, 1, 0))
    }

    @Test func curvesMadeAsObjectsKeepTheirRelativeTimesHereAndInHapticd() throws {
        // Two curves whose first points sit at their own start: in a file that is the mark of
        // exporters writing absolute times, but objects mean what Apple documents — relative.
        let curves = [0.5, 1.0].map { t in
            CHHapticParameterCurve(
                parameterID: .hapticIntensityControl,
                controlPoints: [.init(relativeTime: t, value: 0.2), .init(relativeTime: t + 0.3, value: 1)], relativeTime: t)
        }
        let pattern = try CHHapticPattern(events: [continuous(0, 2)], parameterCurves: curves)
        #expect(abs(pattern.duration - 2.3) < 1e-9, "the second curve ends at 1.0 + 1.3 s: \(pattern.duration)")
        // And so does hapticd, which plays it (the duration its player reports).
        let daemon = try Fixture.daemon()
        let engine = try CHHapticEngine()
        try engine.start()
        let player = try engine.makeAdvancedPlayer(with: pattern)
        let id = try #require(player as? AdvancedPatternPlayer).id
        let reply = try HapticService.shared.request("player.set", JSONObject(["player": .number(Double(id)), "muted": .bool(false)]))
        #expect(abs((number(reply, "duration") ?? 0) - 2.3) < 1e-9, "hapticd reads the curves as sent: \(reply)")
        #expect(daemon.terminate() == 0)
    }

    @Test func aPatternWithCustomAudioResourcesCannotBeExported() throws {
        // CHHapticPattern.h: "Patterns containing custom audio resource IDs cannot be exported and
        // will return nil with the error code set to CHHapticErrorCodeOperationNotPermitted."
        let custom = try CHHapticPattern(events: [CHHapticEvent(audioResourceID: 7, parameters: [], relativeTime: 0), transient(0.1)], parameters: [])
        #expect(throws: CHHapticError(.operationNotPermitted)) { try custom.exportDictionary() }
        let plain = try CHHapticPattern(events: [transient(0.1, intensity: 0.5)], parameters: [])
        let exported = try plain.exportDictionary()
        #expect((exported[.pattern] as? [Any])?.count == 1)
    }

    /// Apple's exported dictionaries hold NSStrings and NSNumbers, and code casts them to the
    /// string-typed names and to any number type (swift-haptics' tests do `as! EventType`).
    @Test func anExportedPatternsValuesCastAsApplesDo() throws {
        let exported = try CHHapticPattern(events: [transient(0.25, intensity: 0.5)], parameters: []).exportDictionary()
        let element = try #require((exported[.pattern] as? [[CHHapticPattern.Key: Any]])?.first)
        let event = try #require(element[.event] as? [CHHapticPattern.Key: Any])
        #expect(event[.eventType] as? CHHapticEvent.EventType == .hapticTransient && event[.eventType] as? String == "HapticTransient")
        #expect(event[.time] as? TimeInterval == 0.25 && event[.time] as? Float == 0.25 && event[.time] as? Int == nil)
        let parameter = try #require((event[.eventParameters] as? [[CHHapticPattern.Key: Any]])?.first)
        #expect(parameter[.parameterID] as? CHHapticEvent.ParameterID == .hapticIntensity && parameter[.parameterValue] as? Float == 0.5)
        #expect((event[.eventType] as? CHHapticDynamicParameter.ID)?.rawValue == "HapticTransient", "any name bridges from any NSString, as on Apple's platforms")
        let back = try CHHapticPattern(dictionary: exported)
        #expect((try back.exportDictionary()[.pattern] as? [Any])?.count == 1, "and reads back")
    }

    /// The rate hapticd holds for `player`, read from a `player.set` reply on the library's own
    /// connection: its reply comes after those of the rates set before, handled by then.
    func rateHeldByHapticd(_ player: any CHHapticAdvancedPatternPlayer) throws -> Double? {
        let id = try #require(player as? AdvancedPatternPlayer).id
        return number(try HapticService.shared.request("player.set", JSONObject(["player": .number(Double(id)), "muted": .bool(false)])), "rate")
    }

    @Test func aRatePastHapticdsRangeIsTakenAsItsEnd() throws {
        let daemon = try Fixture.daemon()
        let engine = try CHHapticEngine()
        try engine.start()
        let player = try engine.makeAdvancedPlayer(with: CHHapticPattern(events: [transient(0)], parameters: []))
        player.playbackRate = 1e30
        #expect(player.playbackRate == 100)
        #expect(try rateHeldByHapticd(player) == 100)
        player.playbackRate = 1e-9
        #expect(try rateHeldByHapticd(player) == 0.01, "the low end is taken too (not a Float just under it)")
        #expect(player.playbackRate == Float(0.01))
        #expect(daemon.terminate() == 0)
    }

    @Test func aRateHapticdRefusesIsNotKept() throws {
        // At most 4, and a horizon of 10 s: the 0.2 s pattern at rate 0.01 would play 20 s.
        let daemon = try Fixture.daemon("[limits]\nmax_rate = 4\ntime_horizon = 10\n")
        let engine = try CHHapticEngine()
        try engine.start()
        let player = try engine.makeAdvancedPlayer(with: CHHapticPattern(events: [transient(0), transient(0.2)], parameters: []))
        player.playbackRate = 3
        #expect(try rateHeldByHapticd(player) == 3)
        player.playbackRate = 1e-9
        #expect(try rateHeldByHapticd(player) == 3, "hapticd refused 0.01 for this pattern")
        #expect(player.playbackRate == 3, "the getter says the rate the player plays at, not a refused one")
        // Two refused in a row, the second sent before the first is answered: back to the rate
        // hapticd took, not to the first refused one.
        player.playbackRate = 5
        player.playbackRate = 6
        #expect(try rateHeldByHapticd(player) == 3)
        #expect(player.playbackRate == 3)
        player.playbackRate = 0.5
        #expect(try rateHeldByHapticd(player) == 0.5)
        #expect(player.playbackRate == 0.5)
        #expect(daemon.terminate() == 0)
    }

    @Test func oneShotsFromFilesAndDataPlay() throws {
        let daemon = try Fixture.daemon()
        let engine = try CHHapticEngine()
        // playPattern starts an engine that was not (Apple: "this method will start it").
        let t0 = engine.currentTime
        try engine.playPattern(from: URL(fileURLWithPath: repositoryRoot + "/config/patterns/heartbeat.ahap"))
        #expect(daemon.waitForTrace { $0.contains { $0.0 >= t0 && $0.2 > 0 } })
        #expect(waitForPlayers(engine))
        let t1 = engine.currentTime
        // Trailing commas and a comment, as in Apple's own sample files.
        try engine.playPattern(from: Data("{\"Pattern\": [{\"Event\": {\"EventType\": \"HapticTransient\", \"Time\": 0,}},], // a comment\n}".utf8))
        #expect(daemon.waitForTrace { $0.contains { $0.0 >= t1 && ($0.2 > 0 || $0.3 > 0) } })
        #expect(throws: CHHapticError.self) { try engine.playPattern(from: URL(fileURLWithPath: "/nonexistent.ahap")) }
        do {
            try engine.playPattern(from: Data("{\"Pattern\": [{\"Event\": {\"EventType\": \"Buzz\"}}]}".utf8))
            Issue.record("a pattern with an unknown event type played")
        } catch let error as CHHapticError {
            #expect(error.code == .invalidEventType, "\(error.code)")
            #expect(error.localizedDescription.contains("Buzz"), "the message says what is wrong: \(error.localizedDescription)")
        }
        #expect(daemon.terminate() == 0)
    }

    @Test func aLeftHandleEngineMovesOnlyTheStrongMotor() throws {
        let daemon = try Fixture.daemon()
        guard let controller = GCController.controllers().first, let haptics = controller.haptics else {
            Issue.record("no controller for the simulated pad")
            return
        }
        #expect(haptics.supportedLocalities.isSuperset(of: [.default, .all, .handles, .leftHandle, .rightHandle]))
        #expect(!haptics.supportedLocalities.contains(.leftTrigger), "an evdev pad has no trigger motors")
        #expect(haptics.createEngine(withLocality: .leftTrigger) == nil)
        guard let engine = haptics.createEngine(withLocality: .leftHandle) else {
            Issue.record("no leftHandle engine")
            return
        }
        try engine.start()
        let t0 = engine.currentTime
        // Sharpness 1 would go to the weak (right) motor on the default locality.
        let player = try engine.makePlayer(with: CHHapticPattern(events: [continuous(0, 0.3, sharpness: 1), transient(0.35, sharpness: 1)], parameters: []))
        try player.start(atTime: CHHapticTimeImmediate)
        #expect(waitForPlayers(engine))
        #expect(daemon.waitForTrace { $0.last.map { $0.2 == 0 } == true })
        let rows = daemon.traceRows().filter { $0.0 >= t0 }
        #expect(rows.contains { $0.2 > 0 } && rows.allSatisfy { $0.3 == 0 }, "the strong motor only: \(rows)")
        #expect(daemon.terminate() == 0)
    }

    /// An engine on the simulated pad, as a game makes one (`GCController`'s default locality).
    func padEngine() throws -> CHHapticEngine {
        try #require(GCController.controllers().first?.haptics?.createEngine(withLocality: .default), "no engine for the simulated pad")
    }

    /// SDL's and Moonlight's rumble on Apple's controllers: one continuous event of
    /// `GCHapticDurationInfinite`, its intensity sent as parameters while the game holds a rumble. It
    /// plays past Apple's 30 s maximum of a continuous event (it was clamped to 30 s, and went silent
    /// under a rumble the game still held — an outside check): seeked to 29.8 s, a parameter sent for
    /// 0.4 s later still reaches the pad.
    @Test func anInfiniteEventPlaysPastThirtySeconds() throws {
        let daemon = try Fixture.daemon()
        let engine = try padEngine()
        try engine.start()
        let event = CHHapticEvent(eventType: .hapticContinuous, parameters: [CHHapticEventParameter(parameterID: .hapticIntensity, value: 1)],
                                  relativeTime: 0, duration: TimeInterval(GCHapticDurationInfinite))
        let player = try engine.makeAdvancedPlayer(with: CHHapticPattern(events: [event], parameters: []))
        try player.start(atTime: 0)
        try player.seek(toOffset: 29.8)
        #expect(daemon.waitForTrace { $0.last.map { $0.2 > 0 } == true }, "it plays")
        let full = daemon.traceRows().last?.2 ?? 0
        let t0 = engine.currentTime
        try player.sendParameters([CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.3, relativeTime: 0)], atTime: t0 + 0.4)
        #expect(daemon.waitForTrace { rows in rows.last.map { $0.0 >= t0 + 0.35 && $0.2 > 0 && $0.2 < full } == true },
                "the weaker level past 30 s: \(daemon.traceRows().suffix(3))")
        try player.stop(atTime: 0)
        #expect(daemon.terminate() == 0)
    }

    /// Apple's `CHHapticEvent.h`: "If unset (0.0), Continuous event types will have no fixed end".
    /// A continuous event made without a duration (the three-argument initializer, as a program
    /// writes it) sounds until stopped: its player does not finish by itself (it finished at once,
    /// and nothing played — an outside check), seeked a minute in it still sounds, and stopping it
    /// silences the pad and calls the completion handler.
    @Test func aContinuousEventWithoutADurationSoundsUntilStopped() throws {
        let daemon = try Fixture.daemon()
        let engine = try padEngine()
        try engine.start()
        let event = CHHapticEvent(eventType: .hapticContinuous, parameters: [CHHapticEventParameter(parameterID: .hapticIntensity, value: 1)],
                                  relativeTime: 0)
        #expect(event.duration == 0, "the event keeps what it was made with")
        let pattern = try CHHapticPattern(events: [event], parameters: [])
        #expect(pattern.duration > 3600, "no fixed end: \(pattern.duration)")
        let player = try engine.makeAdvancedPlayer(with: pattern)
        let finished = Recorder<Bool>()
        player.completionHandler = { error in finished.record(error == nil) }
        try player.start(atTime: 0)
        #expect(daemon.waitForTrace { $0.last.map { $0.2 > 0 } == true }, "it plays")
        try player.seek(toOffset: 60)
        let t0 = engine.currentTime
        let sounding = daemon.traceRows().last?.2 ?? 0
        #expect(sounding > 0, "still sounding a minute in")
        #expect(finished.all.isEmpty, "the player has not finished by itself")
        try player.stop(atTime: 0)
        #expect(daemon.waitForTrace { rows in rows.last.map { $0.0 >= t0 && $0.2 == 0 && $0.3 == 0 } == true }, "silent once stopped")
        #expect(finished.wait(), "the completion handler runs once stopped")
        #expect(daemon.terminate() == 0)
    }

    /// A song's worth of transients (8 000 events, 1.4 MB as compact AHAP — longer than hapticd's
    /// 1 MiB request line) plays, through a player and as a one-shot: the library sends such a
    /// pattern in pieces (`pattern.upload`). It threw `resourceNotAvailable` before. Seeked near its
    /// end, its last transients still reach the pad: every event arrived.
    @Test func aSongLengthPatternPlays() throws {
        let daemon = try Fixture.daemon()
        let engine = try padEngine()
        try engine.start()
        var events: [CHHapticEvent] = []
        for i in 0..<8_000 {
            events.append(CHHapticEvent(eventType: .hapticTransient, parameters: [
                CHHapticEventParameter(parameterID: .hapticIntensity, value: Float(0.6 + Double(i % 4) / 10)),
                CHHapticEventParameter(parameterID: .hapticSharpness, value: 0.4),
            ], relativeTime: Double(i) * 0.01))
        }
        let pattern = try CHHapticPattern(events: events, parameters: [])
        // The same as a file would hold it.
        let file = "{\"Version\":1.0,\"Pattern\":[" + (0..<8_000).map { i in
            "{\"Event\":{\"Time\":\(Double(i) * 0.01),\"EventType\":\"HapticTransient\",\"EventParameters\":[{\"ParameterID\":\"HapticIntensity\",\"ParameterValue\":\(0.6 + Double(i % 4) / 10)},{\"ParameterID\":\"HapticSharpness\",\"ParameterValue\":0.4}]}}"
        }.joined(separator: ",") + "]}"
        let exported = Data(file.utf8)
        #expect(exported.count > 1 << 20, "longer than one request line: \(exported.count) bytes")
        let player = try engine.makeAdvancedPlayer(with: pattern)
        try player.start(atTime: 0)
        let t0 = engine.currentTime
        try player.seek(toOffset: 79.5)
        // Its last half second plays, then the pad is silent: the pattern's end arrived too.
        #expect(daemon.waitForTrace { rows in
            guard let on = rows.firstIndex(where: { $0.0 >= t0 && $0.2 > 0 }) else { return false }
            return rows[on...].contains { $0.0 >= rows[on].0 + 0.4 && $0.2 == 0 && $0.3 == 0 }
        }, "the pattern's last half second plays: \(daemon.traceRows().suffix(8))")
        let t1 = engine.currentTime
        try engine.playPattern(from: exported)
        #expect(daemon.waitForTrace { $0.contains { $0.0 >= t1 && $0.2 > 0 } }, "and as a one-shot from its data")
        #expect(daemon.terminate() == 0)
    }
}
}
