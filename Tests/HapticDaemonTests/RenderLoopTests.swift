import Dispatch
import Evdev
import Foundation
import HapticCore
import HapticDaemon
import Testing

/// Records every write; lets a test wait (bounded) for a condition on them.
final class RecordingSink: MotorSink, @unchecked Sendable {
    // @unchecked Sendable: the writes are behind `lock` (the render thread appends while `waitFor`
    // reads); `released` and `failWith` are set under the render loop's lock or before the loop runs.
    private var recorded: [Pacer.Write] = []
    private let lock = NSLock()
    var writes: [Pacer.Write] { lock.withLock { recorded } }
    private(set) var released = false
    var failWith: DeviceError?
    private let signal = DispatchSemaphore(value: 0)

    func apply(_ write: Pacer.Write) throws(DeviceError) {
        if let failWith { throw failWith }
        lock.withLock { recorded.append(write) }
        signal.signal()
    }

    func release() { released = true }

    /// Waits up to `timeout` for writes until `condition` holds; true if it did.
    func waitFor(timeout: Double = 5, _ condition: ([Pacer.Write]) -> Bool) -> Bool {
        let end = DispatchTime.now() + timeout
        while true {
            if condition(writes) { return true }
            if signal.wait(timeout: end) == .timedOut { return condition(writes) }
        }
    }
}

final class EventLog: @unchecked Sendable {
    // @unchecked Sendable: guarded by `lock`.
    private let lock = DispatchQueue(label: "events")
    private var events: [LoopEvent] = []
    func append(_ e: LoopEvent) { lock.sync { events.append(e) } }
    var all: [LoopEvent] { lock.sync { events } }
}

func pattern(duration: Double, intensity: Double = 1) -> HapticPattern {
    HapticPattern(elements: [.event(.continuous(at: 0, duration: duration, intensity: intensity, sharpness: 0))])
}

@Suite struct RenderLoopTests {
    @Test func idleLoopHasNoTimerArmed() {
        let loop = RenderLoop()
        loop.addPad(0, sink: RecordingSink(), profile: .generic)
        #expect(!loop.isArmed)
        #expect(loop.wakeups == 0)
    }

    @Test(arguments: RenderMode.allCases)
    func playNowWritesTheFirstFrameBeforeTheNextTick(mode: RenderMode) throws {
        let loop = RenderLoop(mode: mode, period: 10)  // a tick period far beyond the test: only the command writes
        let sink = RecordingSink()
        loop.addPad(0, sink: sink, profile: .generic)
        let start = try loop.withPad(0) { engine, _ in
            try engine.start(engine.makePlayer(pattern(duration: 5)))
            return engine.currentTime
        }!
        #expect(sink.writes == [.set(MotorMagnitudes(strong: 65535, weak: 0))])
        #expect(loop.wakeups == 0)
        if mode == .fixed {
            #expect(loop.isTicking)
        } else {
            // A constant rumble: the next wakeup is its end, five seconds away.
            #expect(!loop.isTicking)
            #expect(abs((loop.armedTime ?? 0) - (start + 5)) < 0.001, "armed for \(String(describing: loop.armedTime)), started \(start)")
        }
    }

    /// A command whose thread is preempted before its render pass (the sleep stands for that, not
    /// for synchronisation) until the short pulse it began has ended: the pass still writes the
    /// pulse, then the zero (issue 26: nothing lost).
    @Test(arguments: RenderMode.allCases)
    func aPulseThatEndedBeforeItsCommandsPassIsStillWritten(mode: RenderMode) throws {
        let loop = RenderLoop(mode: mode, period: 0.004)
        let sink = RecordingSink()
        loop.addPad(0, sink: sink, profile: .generic)
        try loop.withPad(0) { engine, _ in
            try engine.start(engine.makeRumble(strong: 0.8, weak: 0.6, duration: 0.002))
            Thread.sleep(forTimeInterval: 0.010)
        }
        let pulse = DeviceProfile.generic.quantize(MotorMagnitudes(strong: 52428, weak: 39321))
        #expect(sink.writes.first == .set(pulse), "the command's own pass writes the pulse: \(sink.writes)")
        #expect(sink.waitFor { $0.last == .set(.zero) }, "then the zero: \(sink.writes)")
    }

    /// A command that only reads a pad (`engine.status`: no render pass) after its player ended but
    /// before the loop rendered the end — the loop's thread kept off by the lock, which the sleep
    /// stands for — then a command on another pad under the same lock, whose re-arm covers every pad:
    /// the first pad still gets its zero at once, not at the pacer's refresh 30 s on (the soak test
    /// found a motor left running that way). The other pad's command plays nothing, so that nothing
    /// else keeps a `fixed` loop ticking.
    @Test(arguments: RenderMode.allCases)
    func aReadAfterAnEndThenAnotherPadsCommandStillStopsTheMotors(mode: RenderMode) throws {
        let loop = RenderLoop(mode: mode, period: 0.004)
        let sink0 = RecordingSink(), sink1 = RecordingSink()
        loop.addPad(0, sink: sink0, profile: .generic)
        loop.addPad(1, sink: sink1, profile: .generic)
        try loop.performSteps { steps in
            try steps.perform(ticking: true) { access in
                let engine = try #require(access.engine(0))
                try engine.start(engine.makePlayer(pattern(duration: 0.02, intensity: 0.5)))
            }
            Thread.sleep(forTimeInterval: 0.03)  // the player ends while the lock is held
            let playing = steps.perform(ticking: false) { access in access.engine(0)?.isPlaying }
            #expect(playing == false, "the read's catch-up ended the player")
            steps.perform(ticking: true) { access in access.pipeline(1)?.gain = 0.5 }
        }
        #expect(sink0.writes.first == .set(MotorMagnitudes(strong: 32768, weak: 0)))
        #expect(sink0.waitFor(timeout: 2) { $0.last == .set(.zero) }, "pad 0's zero: \(sink0.writes)")
        #expect(sink1.writes.isEmpty)
    }

    /// A command that fails after it silenced a pad (a `rumble` that destroys the connection's last
    /// one, then finds its locality unsupported): the pad still gets its pass, and so its zero, at
    /// once — not at the pacer's refresh after another pad's command re-armed the loop.
    @Test(arguments: RenderMode.allCases)
    func aCommandThatFailsAfterSilencingAPadStillStopsItsMotors(mode: RenderMode) throws {
        struct Refused: Error {}
        let loop = RenderLoop(mode: mode, period: 0.004)
        let sink0 = RecordingSink(), sink1 = RecordingSink()
        loop.addPad(0, sink: sink0, profile: .generic)
        loop.addPad(1, sink: sink1, profile: .generic)
        let player = try #require(try loop.withPad(0) { engine, _ in
            let p = engine.makePlayer(pattern(duration: 5, intensity: 0.5))
            try engine.start(p)
            return p
        })
        #expect(sink0.writes == [.set(MotorMagnitudes(strong: 32768, weak: 0))])
        loop.performSteps { steps in
            #expect(throws: Refused.self) {
                try steps.perform(ticking: true) { access in
                    try access.engine(0)?.destroyPlayer(player)
                    throw Refused()
                }
            }
            steps.perform(ticking: true) { access in access.pipeline(1)?.gain = 0.5 }
        }
        #expect(sink0.waitFor(timeout: 2) { $0.last == .set(.zero) }, "pad 0's zero: \(sink0.writes)")
    }

    @Test(arguments: RenderMode.allCases)
    func playsThroughAndDisarmsWhenDone(mode: RenderMode) throws {
        let loop = RenderLoop(mode: mode, period: 0.004)
        let sink = RecordingSink()
        let events = EventLog()
        loop.setEventHandler { events.append($0) }
        loop.addPad(3, sink: sink, profile: .generic)
        let player = try loop.withPad(3) { engine, _ in
            let p = engine.makePlayer(pattern(duration: 0.05, intensity: 0.5))
            try engine.start(p)
            return p
        }!
        #expect(sink.waitFor { $0.last == .set(.zero) })
        #expect(sink.writes.first == .set(MotorMagnitudes(strong: 32768, weak: 0)))
        #expect(!loop.isArmed, "nothing plays: the timer is disarmed")
        let wakeups = loop.wakeups
        #expect(wakeups > 0)
        #expect(events.all.contains(.playerEnded(pad: 3, locality: .default, player: player, end: .finished)))
        #expect(events.all.contains { if case .wrote(pad: 3, _, _) = $0 { true } else { false } })
    }

    @Test(arguments: RenderMode.allCases)
    func aScheduledStartArmsOneWakeupNotATick(mode: RenderMode) throws {
        let loop = RenderLoop(mode: mode, period: 0.004)
        let sink = RecordingSink()
        loop.addPad(0, sink: sink, profile: .generic)
        try loop.withPad(0) { engine, _ in
            let p = engine.makePlayer(pattern(duration: 0.02))
            try engine.start(p, at: .at(engine.currentTime + 0.3))  // the checks below come first
        }
        #expect(loop.isArmed && !loop.isTicking)
        #expect(sink.writes.isEmpty)
        #expect(sink.waitFor { $0.count >= 2 && $0.last == .set(.zero) })
    }

    @Test(arguments: RenderMode.allCases)
    func anUnplugMidRumbleStopsTheEngineWithTheDisconnectReason(mode: RenderMode) throws {
        let loop = RenderLoop(mode: mode, period: 0.004)
        let sink = RecordingSink()
        let events = EventLog()
        loop.setEventHandler { events.append($0) }
        loop.addPad(1, sink: sink, profile: .generic)
        try loop.withPad(1) { engine, _ in
            try engine.start(engine.makePlayer(HapticPattern(elements: [
                .event(.continuous(at: 0, duration: 2, intensity: 1, sharpness: 0)),
                .curve(.init(.hapticIntensityControl, at: 0, points: [.init(0, 0.2), .init(2, 1)])),
            ])))
        }
        sink.failWith = DeviceError(kind: .disconnected, operation: .upload, path: "/dev/input/event9")
        let deadline = DispatchTime.now() + 5
        while !events.all.contains(.engineStopped(pad: 1, locality: .default, reason: .gameControllerDisconnect)) && DispatchTime.now() < deadline {
            _ = loop.isArmed  // a round trip through the render loop's lock
        }
        #expect(events.all.contains(.engineStopped(pad: 1, locality: .default, reason: .gameControllerDisconnect)))
        #expect(events.all.contains(.deviceError(pad: 1, message: "/dev/input/event9: upload effect failed: the device is gone (unplugged)", disconnected: true)))
        #expect(sink.released)
        #expect(!loop.isArmed)
    }

    /// A write that fails stops every engine of the pad, each locality's, not only the default one:
    /// a handle's player has no device to play on either, and its owner hears it (engine stopped,
    /// player ended).
    @Test(arguments: [DeviceError.Kind.disconnected, .invalidArgument])
    func aFailedWriteStopsTheEngineOfEveryLocality(kind: DeviceError.Kind) throws {
        let loop = RenderLoop(mode: .event)
        let sink = RecordingSink()
        let events = EventLog()
        loop.setEventHandler { events.append($0) }
        loop.addPad(1, sink: sink, profile: .generic)
        sink.failWith = DeviceError(kind: kind, operation: .upload, path: "/dev/input/event9")
        let player = try loop.perform { access in
            let left = try #require(access.engine(1, creating: .leftHandle))
            let p = try left.makePlayer(pattern(duration: 2))
            try left.start(p)
            return p
        }
        let reason: HapticEngine.StoppedReason = kind == .disconnected ? .gameControllerDisconnect : .systemError
        #expect(events.all.contains(.engineStopped(pad: 1, locality: .leftHandle, reason: reason)), "\(events.all)")
        #expect(events.all.contains(.playerEnded(pad: 1, locality: .leftHandle, player: player, end: .stopped)), "\(events.all)")
        #expect(sink.released)
    }

    /// Event-driven: a rumble that does not change costs no wakeups between its start and its end.
    @Test func aConstantRumbleWakesTheLoopOnlyAtItsEnd() throws {
        let loop = RenderLoop(mode: .event)
        let sink = RecordingSink()
        loop.addPad(0, sink: sink, profile: .generic)
        try loop.withPad(0) { engine, _ in try engine.start(engine.makePlayer(pattern(duration: 0.3, intensity: 0.7))) }
        #expect(sink.waitFor { $0.last == .set(.zero) })
        #expect(sink.writes.count == 2)
        #expect(loop.wakeups <= 2, "\(loop.wakeups) wakeups for two writes")
        #expect(!loop.isArmed)
    }

    @Test func detachAndReattachResetTheEngine() throws {
        let loop = RenderLoop()
        let events = EventLog()
        loop.setEventHandler { events.append($0) }
        loop.addPad(2, sink: RecordingSink(), profile: .generic)
        let p = try loop.withPad(2) { engine, _ in
            let p = engine.makePlayer(pattern(duration: 5))
            try engine.start(p)
            return p
        }!
        loop.detachPad(2)
        #expect(events.all.contains(.engineStopped(pad: 2, locality: .default, reason: .gameControllerDisconnect)))
        let sink = RecordingSink()
        var resetsBeforeReady = -1
        loop.reattachPad(2, sink: sink) { resetsBeforeReady = events.all.filter { $0 == .engineReset(pad: 2, locality: .default) }.count }
        #expect(events.all.contains(.engineReset(pad: 2, locality: .default)))
        #expect(resetsBeforeReady == 0, "the pad is ready (for the daemon: connected) before its engines reset")
        #expect(throws: EngineError.playerInvalidated(p)) {
            try loop.withPad(2) { engine, _ in try engine.start(p) }
        }
        try loop.withPad(2) { engine, _ in try engine.start(engine.makePlayer(pattern(duration: 5))) }
        #expect(sink.writes.count == 1, "the re-attached pad plays")
        loop.shutdown()
        #expect(sink.released)
    }
}

/// Every sink's calls, in order, across sinks.
final class CallLog: @unchecked Sendable {
    // @unchecked Sendable: appended under the render loop's lock only, read after it.
    var calls: [String] = []
    final class Sink: MotorSink {
        let name: String
        let log: CallLog
        init(_ name: String, _ log: CallLog) { self.name = name; self.log = log }
        func apply(_ write: Pacer.Write) throws(DeviceError) { log.calls.append("\(name) \(write == .set(.zero) ? "zero" : "value")") }
        func release() { log.calls.append("\(name) release") }
    }
}

extension RenderLoopTests {
    @Test func shutdownSilencesEveryPadBeforeItReleasesAny() throws {
        // A release (erase, close) is slow on some drivers: no pad's zero waits for another's release.
        let loop = RenderLoop()
        let log = CallLog()
        for id in 0..<3 { loop.addPad(id, sink: CallLog.Sink("pad\(id)", log), profile: .generic) }
        for id in 0..<3 {
            try loop.withPad(id) { engine, _ in try engine.start(engine.makePlayer(pattern(duration: 5))) }
        }
        log.calls = []
        loop.shutdown()
        #expect(log.calls == ["pad0 zero", "pad1 zero", "pad2 zero", "pad0 release", "pad1 release", "pad2 release"], "\(log.calls)")
    }

    /// A pad handed to the loop after its shutdown (a device's recovery that was under way) is
    /// released at once: nothing would render its players' ends or stop it again.
    @Test func aPadAddedAfterShutdownIsReleasedNotDriven() throws {
        let loop = RenderLoop()
        loop.addPad(0, sink: RecordingSink(), profile: .generic)
        loop.shutdown()
        let late = RecordingSink(), back = RecordingSink()
        loop.addPad(1, sink: late, profile: .generic)
        loop.reattachPad(0, sink: back)
        #expect(late.released && back.released)
        #expect(loop.padIDs.isEmpty)
        #expect(try loop.withPad(1) { engine, _ in try engine.start(engine.makePlayer(pattern(duration: 5))) } == nil)
        #expect(late.writes.isEmpty && back.writes.isEmpty)
    }
}

extension RenderLoopTests {
    /// Several commands under one taking of the lock: each step's render pass writes its pads'
    /// first frame as a lone `perform` would, and the timer is armed for what the steps left.
    @Test func stepsRenderEachCommandAndArmTheTimerForTheirResult() throws {
        let loop = RenderLoop(mode: .event)
        let sinks = [RecordingSink(), RecordingSink()]
        for (i, sink) in sinks.enumerated() { loop.addPad(i, sink: sink, profile: .generic) }
        let writesAfterFirstStep: Int = try loop.performSteps { steps in
            try steps.perform(ticking: true) { access in
                let engine = try #require(access.engine(0))
                try engine.start(engine.makePlayer(pattern(duration: 5)))
            }
            let first = sinks[0].writes.count
            try steps.perform(ticking: true) { access in
                let engine = try #require(access.engine(1))
                try engine.start(engine.makePlayer(pattern(duration: 2, intensity: 0.5)))
            }
            return first
        }
        #expect(writesAfterFirstStep == 1, "the first step wrote pad 0 before the second ran")
        #expect(sinks[0].writes == [.set(MotorMagnitudes(strong: 65535, weak: 0))])
        #expect(sinks[1].writes.count == 1 && sinks[1].writes.first != .set(.zero), "\(sinks[1].writes)")
        // Armed for the earlier end: pad 1's, two seconds away.
        let armed = try #require(loop.armedTime)
        let now = loop.clock.now
        #expect(armed > now + 1.5 && armed < now + 2.1, "armed for \(armed), now \(now)")
        #expect(loop.wakeups == 0)
    }
}
