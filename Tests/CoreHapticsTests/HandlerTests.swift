@testable import CoreHaptics
import DaemonTestSupport
import Foundation
import GameController
import HapticCore
import Testing

/// The engine's handlers, on the real daemon: what stops an engine from outside, what resets it,
/// and where the handlers run.
extension CoreHapticsSuite {
@Suite struct HandlerTests {
    /// Set on the main queue once: notification handlers tell by it that they run there.
    static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Records the stopped reasons and resets of `engine`, checking each handler runs on the
    /// engine's handler queue.
    func watch(_ engine: CHHapticEngine) -> (stopped: Recorder<CHHapticEngine.StoppedReason>, reset: Recorder<Bool>) {
        let stopped = Recorder<CHHapticEngine.StoppedReason>(), reset = Recorder<Bool>()
        let queue = engine.handlerQueue
        engine.stoppedHandler = { reason in
            dispatchPrecondition(condition: .onQueue(queue))
            stopped.record(reason)
        }
        engine.resetHandler = {
            dispatchPrecondition(condition: .onQueue(queue))
            reset.record(true)
        }
        return (stopped, reset)
    }

    @Test func anAdministratorsStopAndResetReachTheEngine() throws {
        let daemon = try Fixture.daemon()
        let admin = try daemon.client()  // the tests run as root: an admin
        let engine = try CHHapticEngine()
        let (stopped, reset) = watch(engine)
        try engine.start()
        let player = try engine.makePlayer(with: CHHapticPattern(events: [transient(0)], parameters: []))
        _ = try admin.request("engine.stop")
        #expect(stopped.wait(), "stopped from outside")
        #expect(stopped.all == [.systemError])
        do {
            try player.start(atTime: 0)
            Issue.record("a player started on a stopped engine")
        } catch let e as CHHapticError {
            #expect(e.code == .engineNotRunning)
        }
        _ = try admin.request("engine.start")
        try engine.start()
        try player.start(atTime: 0)

        _ = try admin.request("engine.reset")
        #expect(reset.wait(), "the reset handler ran")
        #expect(throws: CHHapticError(.invalidPatternPlayer)) { try player.start(atTime: 0) }
        try engine.start()
        let again = try engine.makePlayer(with: CHHapticPattern(events: [transient(0)], parameters: []))
        try again.start(atTime: 0)
        #expect(stopped.all == [.systemError], "an explicit stop and a reset call no stopped handler")
        #expect(daemon.terminate() == 0)
    }

    @Test func unpluggingThePadStopsItsEnginesAndPluggingItBackResetsThem() throws {
        let daemon = try Fixture.daemon()
        let connected = Recorder<GCController>(), disconnected = Recorder<GCController>(), notices = Recorder<String>()
        // Apple posts them on the main thread: an observer with no queue runs on the main queue (here
        // drained by `swift test`'s dispatchMain(), on a thread of the pool: the queue is what counts).
        let offMain = Recorder<String>(), onMain = Recorder<Bool>()
        let mainKey = Self.mainQueueKey
        @Sendable func note(_ what: String) {
            notices.record(what)
            if DispatchQueue.getSpecific(key: mainKey) != true { offMain.record(what) }
        }
        let observers = [
            NotificationCenter.default.addObserver(forName: .GCControllerDidConnect, object: nil, queue: nil) { n in
                if let c = n.object as? GCController { connected.record(c) }
                note("connect")
            },
            NotificationCenter.default.addObserver(forName: .GCControllerDidDisconnect, object: nil, queue: nil) { n in
                if let c = n.object as? GCController { disconnected.record(c) }
                note("disconnect")
            },
            NotificationCenter.default.addObserver(forName: .GCControllerDidBecomeCurrent, object: nil, queue: nil) { n in
                if n.object is GCController { note("become current") }
            },
            NotificationCenter.default.addObserver(forName: .GCControllerDidStopBeingCurrent, object: nil, queue: nil) { n in
                if n.object is GCController { note("stop being current") }
            },
            // `queue: .main`, as most programs observe: corelibs Foundation waits for that delivery,
            // which deadlocked when the notification was posted from a main-queue block.
            NotificationCenter.default.addObserver(forName: .GCControllerDidDisconnect, object: nil, queue: .main) { _ in
                onMain.record(true)
            },
        ]
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        guard let controller = GCController.controllers().first, let engine = controller.haptics?.createEngine(withLocality: .default) else {
            Issue.record("no controller")
            return
        }
        #expect(controller.vendorName == "Simulated rumble pad 0")
        // The simulated pad has no evdev node to read: its input profile is there, at rest.
        #expect(controller.extendedGamepad.map { p in p.buttonHome != nil && !p.allButtons.contains { $0.isPressed } } == true)
        #expect(controller.physicalInputProfile.buttons[GCInputButtonA] === controller.extendedGamepad?.buttonA)
        let (stopped, reset) = watch(engine)
        try engine.start()
        // Kept for a second (Unity asks on every Play()), but the pad's going and coming drop it at
        // once: checked right after the handlers that those events cause.
        #expect(CHHapticEngine.capabilitiesForHardware().supportsHaptics)
        daemon.simulate("unplug 0")
        #expect(stopped.wait())
        #expect(stopped.all == [.gameControllerDisconnect])
        #expect(!CHHapticEngine.capabilitiesForHardware().supportsHaptics, "no pad: no haptics, at once")
        #expect(disconnected.wait() && disconnected.all.first === controller, "GCControllerDidDisconnect with the controller")
        #expect(GCController.controllers().isEmpty)
        daemon.simulate("plug 0")
        #expect(reset.wait(), "the pad came back: its engine was reset")
        #expect(CHHapticEngine.capabilitiesForHardware().supportsHaptics, "the pad back: haptics, at once")
        #expect(connected.wait() && connected.all.last?.vendorName == "Simulated rumble pad 0", "GCControllerDidConnect for it")
        // The only controller stops being current as it goes, and becomes current as it comes back.
        let expected = ["stop being current", "disconnect", "connect", "become current"]
        #expect(waitUntil(timeout: 5) { Array(notices.all.suffix(4)) == expected }, "\(notices.all)")
        #expect(offMain.all.isEmpty, "posted off the main thread: \(offMain.all)")
        #expect(waitUntil(timeout: 5) { !onMain.all.isEmpty }, "an observer on OperationQueue.main hears the disconnect")
        try engine.start()
        try engine.makePlayer(with: CHHapticPattern(events: [transient(0)], parameters: [])).start(atTime: 0)
        #expect(daemon.terminate() == 0)
    }

    /// `CHHapticEngine()` (the default pad, as Unity's plug-in makes it) as an engine made for the pad.
    @Test func aDefaultPadEngineIsResetWhenItsUnpluggedPadComesBack() throws {
        let daemon = try Fixture.daemon()
        let engine = try CHHapticEngine()
        let (stopped, _) = watch(engine)
        // A reset handler finds the pad listed again (hapticd announces it before the reset).
        let reset = Recorder<Int>()
        engine.resetHandler = { reset.record(GCController.controllers().count) }
        try engine.start()
        let player = try engine.makePlayer(with: CHHapticPattern(events: [continuous(0, 5)], parameters: []))
        try player.start(atTime: 0)
        daemon.simulate("unplug 0")
        #expect(stopped.wait())
        #expect(stopped.all == [.gameControllerDisconnect])
        daemon.simulate("plug 0")
        #expect(reset.wait(), "the pad came back: the engine was reset")
        #expect(reset.all == [1], "listed in the reset handler")
        #expect(throws: CHHapticError(.invalidPatternPlayer)) { try player.start(atTime: 0) }
        try engine.start()
        try engine.makePlayer(with: CHHapticPattern(events: [transient(0)], parameters: [])).start(atTime: 0)
        #expect(daemon.terminate() == 0)
    }

    /// A start that fails after a reset (the pad not there) leaves the engine listening to its pad:
    /// the pad's next return resets it again, so a program that retries on reset gets its pad back.
    @Test func aDefaultPadEngineWhoseStartFailedAfterAResetHearsThePadsNextReturn() throws {
        let daemon = try Fixture.daemon()
        let engine = try CHHapticEngine()
        let (stopped, reset) = watch(engine)
        try engine.start()
        daemon.simulate("unplug 0")
        #expect(stopped.wait())
        daemon.simulate("plug 0")
        #expect(reset.wait(), "the first return")
        // The reset and the pad's connect notice travel separately: wait for the pad to be listed,
        // or "listed as gone" below could be seen before this return is, with the unplug still on its way.
        #expect(waitUntil(timeout: 5) { !GCController.controllers().isEmpty }, "the pad is back")
        daemon.simulate("unplug 0")
        #expect(waitUntil(timeout: 5) { GCController.controllers().isEmpty }, "the pad is gone")
        #expect(throws: CHHapticError(.notSupported), "no pad: the start fails") { try engine.start() }
        daemon.simulate("plug 0")
        #expect(reset.wait(for: 2), "the second return reaches the engine whose start failed")
        try engine.start()
        try engine.makePlayer(with: CHHapticPattern(events: [transient(0)], parameters: [])).start(atTime: 0)
        #expect(daemon.terminate() == 0)
    }

    /// A looping player whose last reference goes stops (as the Unity plug-in's `DestroyPlayer`
    /// releases it): nothing else could stop it but stopping its engine. One that does not loop
    /// plays on to its end.
    @Test func aLoopingPlayerNobodyHoldsStops() throws {
        let daemon = try Fixture.daemon()
        let admin = try daemon.client()
        let engine = try CHHapticEngine()
        try engine.start()
        func status() -> (playing: Bool, players: Int)? {
            guard let s = try? admin.request("engine.status", JSONObject(["device": .number(0)])), case .bool(let playing)? = s["playing"],
                  case .number(let n)? = s["players"] else { return nil }
            return (playing, Int(n))
        }
        var looping: (any CHHapticAdvancedPatternPlayer)? = try engine.makeAdvancedPlayer(with: CHHapticPattern(events: [continuous(0, 0.3)], parameters: []))
        looping?.loopEnabled = true
        try looping?.start(atTime: 0)
        #expect(waitUntil(timeout: 5) { status()?.playing == true })
        // Whoever waits for the players to finish hears it: this one's end is not an event it gets.
        let finished = Recorder<Bool>()
        engine.notifyWhenPlayersFinished { _ in finished.record(true); return .leaveEngineRunning }
        #expect(finished.all.isEmpty, "one still plays")
        looping = nil
        #expect(waitUntil(timeout: 5) { status().map { !$0.playing && $0.players == 0 } == true }, "\(String(describing: status()))")
        #expect(daemon.waitForTrace { $0.last.map { $0.2 == 0 && $0.3 == 0 } == true }, "the motors are off")
        #expect(finished.wait(), "the finished handler ran")

        // A paused player has no end either until resumed: it goes too (it was kept for good).
        var paused: (any CHHapticAdvancedPatternPlayer)? = try engine.makeAdvancedPlayer(with: CHHapticPattern(events: [continuous(0, 5)], parameters: []))
        try paused?.start(atTime: 0)
        try paused?.pause(atTime: 0)
        #expect(status()?.players == 1)
        paused = nil
        #expect(waitUntil(timeout: 5) { status()?.players == 0 }, "\(String(describing: status()))")

        var once: (any CHHapticPatternPlayer)? = try engine.makePlayer(with: CHHapticPattern(events: [continuous(0, 1.5)], parameters: []))
        try once?.start(atTime: 0)
        once = nil
        #expect(status()?.playing == true, "a player that ends by itself plays on")
        #expect(waitUntil(timeout: 5) { status().map { !$0.playing && $0.players == 0 } == true }, "and is gone at its end")
        #expect(daemon.terminate() == 0)
    }

    /// An advanced player dropped while it plays plays on to its end — and its completion handler
    /// runs then, on the handler queue, as if it were held (expo-ahap's "finished" event to
    /// JavaScript, from a player it keeps no reference to, found by an outside check); one dropped
    /// while the daemon goes away hears that.
    @Test func aDroppedAdvancedPlayerStillHearsItsEnd() throws {
        let daemon = try Fixture.daemon()
        let engine = try CHHapticEngine()
        try engine.start()
        let finished = Recorder<Int>()
        let queue = engine.handlerQueue
        var player: (any CHHapticAdvancedPatternPlayer)? = try engine.makeAdvancedPlayer(with: CHHapticPattern(events: [continuous(0, 0.3)], parameters: []))
        player?.completionHandler = { error in
            dispatchPrecondition(condition: .onQueue(queue))
            finished.record((error as? CHHapticError)?.code.rawValue ?? 0)
        }
        try player?.start(atTime: 0)
        player = nil
        #expect(finished.wait(), "the dropped player's completion handler ran at its end")
        #expect(finished.all == [0])
        #expect(daemon.waitForTrace { $0.last.map { $0.2 == 0 && $0.3 == 0 } == true }, "and the pattern played to its end")

        let interrupted = Recorder<Int>()
        player = try engine.makeAdvancedPlayer(with: CHHapticPattern(events: [continuous(0, 5)], parameters: []))
        player?.completionHandler = { error in interrupted.record((error as? CHHapticError)?.code.rawValue ?? 0) }
        try player?.start(atTime: 0)
        #expect(daemon.waitForTrace { $0.last.map { $0.2 > 0 || $0.3 > 0 } == true })
        player = nil
        #expect(daemon.terminate() == 0)
        #expect(interrupted.wait(), "a dropped player that was playing hears the daemon go away")
        #expect(interrupted.all == [CHHapticError.Code.serverInterrupted.rawValue])
    }

    @Test func theDaemonGoingAwayFinishesThePlayersThatPlayed() throws {
        let daemon = try Fixture.daemon()
        let engine = try CHHapticEngine()
        try engine.start()
        let playing = try engine.makeAdvancedPlayer(with: CHHapticPattern(events: [continuous(0, 5)], parameters: []))
        let idle = try engine.makeAdvancedPlayer(with: CHHapticPattern(events: [continuous(0, 5)], parameters: []))
        let finished = Recorder<String>()
        let queue = engine.handlerQueue
        playing.completionHandler = { error in
            dispatchPrecondition(condition: .onQueue(queue))
            finished.record("playing: \((error as? CHHapticError)?.code.rawValue ?? 0)")
        }
        idle.completionHandler = { _ in finished.record("idle") }
        try playing.start(atTime: 0)
        #expect(daemon.waitForTrace { $0.last.map { $0.2 > 0 || $0.3 > 0 } == true })
        let all = Recorder<Bool>()
        engine.notifyWhenPlayersFinished { _ in
            all.record(true)
            return .leaveEngineRunning
        }
        #expect(daemon.terminate() == 0)
        #expect(finished.wait())
        #expect(all.wait(), "notifyWhenPlayersFinished's handler ran")
        #expect(finished.all == ["playing: \(CHHapticError.Code.serverInterrupted.rawValue)"], "only the playing one finished, interrupted")
    }

    @Test func anEngineResetFinishesThePlayersThatPlayed() throws {
        let daemon = try Fixture.daemon()
        let admin = try daemon.client()
        let engine = try CHHapticEngine()
        let (_, reset) = watch(engine)
        try engine.start()
        let player = try engine.makeAdvancedPlayer(with: CHHapticPattern(events: [continuous(0, 5)], parameters: []))
        let finished = Recorder<Int>()
        player.completionHandler = { error in finished.record((error as? CHHapticError)?.code.rawValue ?? 0) }
        try player.start(atTime: 0)
        #expect(daemon.waitForTrace { $0.last.map { $0.2 > 0 || $0.3 > 0 } == true })
        _ = try admin.request("engine.reset")
        #expect(reset.wait())
        #expect(finished.wait(), "the playing advanced player finished")
        #expect(finished.all == [CHHapticError.Code.invalidPatternPlayer.rawValue])
        #expect(daemon.terminate() == 0)
    }

    /// Apple's header: in response to the reset handler "the app must reload all custom audio
    /// resources": a reset (an administrator's, or hapticd coming back) forgets them, so a player of
    /// a pattern naming an old ID fails as it would on Apple's (`invalidAudioResource`) until the
    /// program registers the file again — under a new ID, never an old one.
    @Test func aResetForgetsTheEnginesAudioResources() throws {
        var daemon = try Fixture.daemon()
        let admin = try daemon.client()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reset-audio-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("hit.wav")
        try Data("RIFF\0\0\0\0WAVE".utf8).write(to: wav)
        func pattern(_ id: CHHapticAudioResourceID) throws -> CHHapticPattern {
            try CHHapticPattern(events: [CHHapticEvent(audioResourceID: id, parameters: [], relativeTime: 0), transient(0)], parameters: [])
        }
        func isGone(_ id: CHHapticAudioResourceID, _ engine: CHHapticEngine) -> Bool {
            #expect(throws: CHHapticError(.invalidAudioResource)) { _ = try engine.makePlayer(with: pattern(id)) }
            #expect(throws: CHHapticError(.invalidAudioResource)) { try engine.unregisterAudioResource(id) }
            return true
        }
        let engine = try CHHapticEngine(), other = try CHHapticEngine()
        let (_, reset) = watch(engine)
        try engine.start()
        let first = try engine.registerAudioResource(wav)
        let others = try other.registerAudioResource(wav)
        #expect(first != others, "IDs are not shared between engines")
        _ = try engine.makePlayer(with: pattern(first))

        _ = try admin.request("engine.reset")
        #expect(reset.wait(), "the reset handler ran")
        try engine.start()
        #expect(isGone(first, engine))
        let second = try engine.registerAudioResource(wav)
        #expect(second != first && second != others, "registered again: a new ID")
        try engine.makePlayer(with: pattern(second)).start(atTime: 0)

        #expect(daemon.terminate() == 0)
        daemon = try Fixture.daemon()
        #expect(reset.wait(for: 2, timeout: 10), "hapticd is back: the reset handler ran")
        try engine.start()
        #expect(isGone(second, engine))
        let third = try engine.registerAudioResource(wav)
        try engine.makePlayer(with: pattern(third)).start(atTime: 0)
        #expect(daemon.terminate() == 0)
    }

    @Test func theDaemonGoingAwayStopsEnginesAndItsReturnResetsThem() throws {
        var daemon = try Fixture.daemon()
        let engine = try CHHapticEngine()
        let (stopped, reset) = watch(engine)
        try engine.start()
        let player = try engine.makePlayer(with: CHHapticPattern(events: [continuous(0, 5)], parameters: []))
        try player.start(atTime: 0)
        #expect(daemon.terminate() == 0)
        #expect(stopped.wait())
        #expect(stopped.all == [.systemError])
        #expect(throws: CHHapticError.self) { try player.start(atTime: 0) }
        daemon = try Fixture.daemon()
        #expect(reset.wait(timeout: 10), "hapticd is back: the reset handler ran")
        try engine.start()
        try engine.makePlayer(with: CHHapticPattern(events: [transient(0)], parameters: [])).start(atTime: 0)
        #expect(daemon.waitForTrace { $0.contains { $0.2 > 0 || $0.3 > 0 } })
        #expect(daemon.terminate() == 0)
    }

    @Test func idleShutdownStopsTheEngineAndAutoShutdownRestartsIt() throws {
        let daemon = try Fixture.daemon()
        let engine = try CHHapticEngine()
        let (stopped, _) = watch(engine)
        engine.state.withLock { $0.idleDelay = 0.2 }
        engine.isAutoShutdownEnabled = true
        try engine.start()
        #expect(stopped.wait())
        #expect(stopped.all == [.idleTimeout])
        // Stopped by itself, it starts again on demand.
        let t0 = engine.currentTime
        try engine.makePlayer(with: CHHapticPattern(events: [transient(0)], parameters: [])).start(atTime: 0)
        #expect(daemon.waitForTrace { $0.contains { $0.0 >= t0 && ($0.2 > 0 || $0.3 > 0) } })
        #expect(daemon.terminate() == 0)

        // hapticd's own idle shutdown reaches the engine too.
        let idle = try Fixture.daemon("[engine]\nidle_shutdown = 0.3\n")
        let other = try CHHapticEngine()
        let (otherStopped, _) = watch(other)
        try other.start()
        // start() is the daemon's `prepare`, which holds the pad awake for its five seconds first.
        #expect(otherStopped.wait(timeout: 10))
        #expect(otherStopped.all == [.idleTimeout])
        #expect(idle.terminate() == 0)
    }

    /// Apple: "If additional players are started after this call is made, they will delay the
    /// callback." A player started after the call but before the handler ran (its queue busy, here
    /// held by a semaphore) delays it to that player's end — it ran at once, while the player played,
    /// and its `.stopEngine` stopped the engine and left the player playing (found by an outside
    /// check: CoreHapticsUtils' `HapticsPerformer`). And `.stopEngine` stops the engine as `stop()`
    /// does: a player started while the handler ran stops with it.
    @Test func aPlayerStartedAfterTheCallDelaysTheFinishedHandler() throws {
        let daemon = try Fixture.daemon()
        let engine = try CHHapticEngine()
        let (stopped, _) = watch(engine)
        try engine.start()
        let gate = DispatchSemaphore(value: 0)
        engine.handlerQueue.async { gate.wait() }
        let heard = Recorder<Double>()
        engine.notifyWhenPlayersFinished { _ in
            heard.record(Date().timeIntervalSinceReferenceDate)
            return .leaveEngineRunning
        }
        let player = try engine.makePlayer(with: CHHapticPattern(events: [continuous(0, 0.3)], parameters: []))
        let started = Date().timeIntervalSinceReferenceDate
        try player.start(atTime: 0)
        gate.signal()
        #expect(heard.wait())
        // A lower bound only: the player plays 0.3 s from its start, which came after `started`.
        #expect(heard.all.first.map { $0 - started >= 0.29 } == true, "the handler waited for the player's end: \(heard.all.map { $0 - started })")

        // `.stopEngine`, with a player the handler itself started (30 s long): it stops too.
        let before = daemon.traceRows().count
        let long = Recorder<Bool>()
        nonisolated(unsafe) var late: (any CHHapticPatternPlayer)?  // set on the handler queue, read after `long`
        engine.notifyWhenPlayersFinished { _ in
            late = try? engine.makePlayer(with: CHHapticPattern(events: [continuous(0, 30)], parameters: []))
            long.record((try? late?.start(atTime: 0)) != nil)
            return .stopEngine
        }
        #expect(long.wait())
        #expect(long.all == [true], "the handler's player started")
        #expect(stopped.wait())
        #expect(stopped.all == [.notifyWhenFinished])
        #expect(daemon.waitForTrace { rows in
            guard let on = rows.lastIndex(where: { $0.2 > 0 || $0.3 > 0 }), on >= before else { return false }
            return rows.last.map { $0.2 == 0 && $0.3 == 0 } == true
        }, "the handler's player played, and stopped with the engine")
        #expect(throws: CHHapticError(.engineNotRunning)) { try late?.start(atTime: 0) }
        #expect(daemon.terminate() == 0)
    }

    @Test func finishedHandlerStopsTheEngineWhenAsked() throws {
        let daemon = try Fixture.daemon()
        let engine = try CHHapticEngine()
        let (stopped, _) = watch(engine)
        let asked = Recorder<Bool>()
        engine.notifyWhenPlayersFinished { error in
            asked.record(error == nil)
            return .leaveEngineRunning
        }
        #expect(asked.wait(), "nothing plays: at once")
        // Not running: `.stopEngine` has nothing to stop, and no stopped handler runs for it — not
        // even when the engine was started meanwhile (here by the handler itself, a reentrant call
        // Apple's queue allows; in a program, from a reset handler queued before it).
        let idle = Recorder<Bool>()
        engine.notifyWhenPlayersFinished { _ in
            try? engine.start()
            idle.record(true)
            return .stopEngine
        }
        #expect(idle.wait())
        engine.handlerQueue.sync {}  // the handler's return has been acted on
        try engine.start()
        let player = try engine.makePlayer(with: CHHapticPattern(events: [continuous(0, 0.2)], parameters: []))
        try player.start(atTime: 0)
        let finished = Recorder<Bool>()
        engine.notifyWhenPlayersFinished { _ in
            finished.record(true)
            return .stopEngine
        }
        #expect(finished.wait())
        #expect(stopped.wait())
        #expect(stopped.all == [.notifyWhenFinished], "once: for the running engine only")
        #expect(throws: CHHapticError(.engineNotRunning)) { try player.start(atTime: 0) }
        // Players stopped by an error: the handler hears it (Apple: "If the engine detects the
        // players have stopped due to an error, this is set").
        try engine.start()
        let long = try engine.makePlayer(with: CHHapticPattern(events: [continuous(0, 10)], parameters: []))
        try long.start(atTime: 0)
        let why = Recorder<CHHapticError.Code?>()
        engine.notifyWhenPlayersFinished { error in
            why.record((error as? CHHapticError)?.code)
            return .leaveEngineRunning
        }
        _ = try daemon.client().request("engine.reset")
        #expect(why.wait())
        #expect(why.all == [.invalidPatternPlayer])
        #expect(daemon.terminate() == 0)
    }

    @Test func startAndStopCompleteOnTheHandlerQueue() async throws {
        let daemon = try Fixture.daemon()
        let engine = try CHHapticEngine()
        try await engine.start()
        let done = Recorder<Bool>()
        let queue = engine.handlerQueue
        engine.start { error in
            dispatchPrecondition(condition: .onQueue(queue))
            done.record(error == nil)
        }
        #expect(done.wait() && done.all == [true])
        let player = try engine.makePlayer(with: CHHapticPattern(events: [continuous(0, 5)], parameters: []))
        try player.start(atTime: 0)
        #expect(daemon.waitForTrace { $0.last.map { $0.2 > 0 } == true })
        try await engine.stop()
        #expect(daemon.waitForTrace { $0.last.map { $0.2 == 0 } == true }, "stopping the engine stopped its player")
        #expect(throws: CHHapticError(.engineNotRunning)) { try player.start(atTime: 0) }
        #expect(daemon.terminate() == 0)
    }

    @Test func withoutADaemonEverythingFailsWithAnErrorNeverACrash() throws {
        // No daemon at the socket. The previous test's daemon may have gone a moment ago, its
        // connection not yet seen closed: the first failed request closes it (bounded wait).
        func noServer() -> Bool {
            do { _ = try CHHapticEngine(); return false } catch { return (error as? CHHapticError)?.code == .serverInitFailed }
        }
        #expect(waitUntil(timeout: 5) { noServer() }, "no daemon: serverInitFailed")
        #expect(throws: CHHapticError(.serverInitFailed)) { try CHHapticEngine() }
        // Printed as Apple's NSError prints (it printed as a Swift struct, `userInfo: [:]`).
        #expect(String(describing: CHHapticError(.engineNotRunning)) == #"Error Domain=com.apple.CoreHaptics Code=-4805 "(null)""#)
        do { _ = try CHHapticEngine() } catch {
            #expect("\(error)".hasPrefix(#"Error Domain=com.apple.CoreHaptics Code=-4810 ""#), "\(error)")
        }
        #expect(!CHHapticEngine.capabilitiesForHardware().supportsHaptics)
        // The previous test's daemon may have gone a moment ago: GameController learns it from the
        // lost connection, on a queue of its own (bounded wait).
        #expect(waitUntil(timeout: 5) { GCController.controllers().isEmpty })
        #expect(GCController.current == nil)
        // A daemon without a pad: no haptic hardware.
        let daemon = try DaemonProcess(["--simulate", "1"], socket: Fixture.socket, control: true)
        daemon.simulate("unplug 0")
        // Asked of the daemon itself: GameController's list may still be empty from before it connected.
        let admin = try daemon.client()
        func connected() -> Int? {
            guard case .array(let list)? = (try? admin.request("devices"))?["devices"] else { return nil }
            return list.filter { if case .object(let d) = $0 { d["connected"] == .bool(true) } else { false } }.count
        }
        #expect(waitUntil { connected() == 0 }, "the daemon has no pad connected")
        #expect(throws: CHHapticError(.notSupported)) { try CHHapticEngine() }
        #expect(daemon.terminate() == 0)
    }
}
}
