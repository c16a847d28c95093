import Dispatch
import Evdev
import Foundation
import Glibc
import HapticCore
import HapticDaemon
import Testing

/// The name of the calling thread.
private func currentThreadName() -> String {
    ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
}

/// How many of this process's threads carry `name` (/proc/self/task/*/comm).
private func threads(named name: String) -> Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.filter { task in
        let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
        return comm.trimmingCharacters(in: .whitespacesAndNewlines) == name
    }.count
}

/// Whether no thread of that name is left, waiting up to `seconds` for the kernel to take it off
/// `/proc/self/task`: `pthread_join` returns when the thread has exited (its tid cleared), which the
/// kernel does a moment before it releases the task, so on a loaded machine the joined thread may
/// still be listed for a few microseconds to milliseconds.
private func noThreads(named name: String, within seconds: Double = 2) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while threads(named: name) > 0 {
        if Date() > end { return false }
        usleep(1000)
    }
    return true
}

/// Records, for every write, the name of the thread that made it and when.
final class ThreadRecordingSink: MotorSink, @unchecked Sendable {
    // @unchecked Sendable: the writes are behind `lock` (the render thread appends while `waitFor`
    // reads).
    private var recorded: [(thread: String, time: Double, write: Pacer.Write)] = []
    private let lock = NSLock()
    var writes: [(thread: String, time: Double, write: Pacer.Write)] { lock.withLock { recorded } }
    private let signal = DispatchSemaphore(value: 0)
    private let clock = MonotonicClock()

    func apply(_ write: Pacer.Write) throws(DeviceError) {
        let entry = (currentThreadName(), clock.now, write)
        lock.withLock { recorded.append(entry) }
        signal.signal()
    }

    func release() {}

    func waitFor(count: Int, timeout: Double = 5) -> Bool {
        let end = DispatchTime.now() + timeout
        while writes.count < count {
            if signal.wait(timeout: end) == .timedOut { return writes.count >= count }
        }
        return true
    }
}

/// The render loop's own thread (issue 26 §2: the write happens on the thread the timer woke).
@Suite struct RenderThreadTests {
    private static func uniqueName() -> String { "hr-\(UInt32.random(in: 0...999_999))" }

    @Test(arguments: RenderMode.allCases)
    func aTimedWriteIsMadeOnTheLoopsOwnThread(mode: RenderMode) throws {
        let name = Self.uniqueName()
        let loop = RenderLoop(mode: mode, period: 0.004, label: name)
        defer { loop.shutdown() }
        let sink = ThreadRecordingSink()
        loop.addPad(0, sink: sink, profile: .generic)
        let start = try loop.withPad(0) { engine, _ in
            // Far enough ahead that the check below comes before it on a loaded machine.
            try engine.start(engine.makePlayer(pattern(duration: 0.02)), at: .at(engine.currentTime + 0.3))
            return engine.currentTime
        }!
        #expect(sink.writes.isEmpty)
        #expect(sink.waitFor(count: 2))
        let writes = sink.writes
        #expect(writes.allSatisfy { $0.thread == name }, "\(writes.map(\.thread))")
        #expect(writes[0].time >= start + 0.3, "the start was written \(writes[0].time - start) s after the command, before its time")
    }

    @Test func aCommandWritesOnItsOwnThread() throws {
        let name = Self.uniqueName()
        let loop = RenderLoop(label: name)
        defer { loop.shutdown() }
        let sink = ThreadRecordingSink()
        loop.addPad(0, sink: sink, profile: .generic)
        try loop.withPad(0) { engine, _ in try engine.start(engine.makePlayer(pattern(duration: 5))) }
        #expect(sink.writes.count == 1)
        #expect(sink.writes.first?.thread == currentThreadName())
    }

    /// A deadline brought forward by a command fires at its own time, not at the one armed before.
    @Test(arguments: RenderMode.allCases, [0.0, RenderLoop.onsetLeadRange.upperBound])
    func anEarlierDeadlineFiresAtItsTime(mode: RenderMode, lead: Double) throws {
        let loop = RenderLoop(mode: mode, period: 0.004, label: Self.uniqueName(), onsetLead: lead)
        defer { loop.shutdown() }
        let sink = ThreadRecordingSink()
        loop.addPad(0, sink: sink, profile: .generic)
        let start = try loop.withPad(0) { engine, _ in
            try engine.start(engine.makePlayer(pattern(duration: 0.1)), at: .at(engine.currentTime + 30))
            return engine.currentTime
        }!
        let armedFirst = try #require(loop.armedTime)
        if mode == .event { #expect(armedFirst > start + 29) }
        try loop.withPad(0) { engine, _ in
            try engine.start(engine.makePlayer(pattern(duration: 0.02, intensity: 0.5)), at: .at(engine.currentTime + 0.02))
        }
        #expect(sink.waitFor(count: 2, timeout: 10), "the earlier player's start and end were written")
        #expect(sink.writes.last?.write == .set(.zero))
        #expect(sink.writes[0].time - start < 5, "written long before the first deadline")
    }

    /// `render.onset_lead`: the thread wakes early for an onset from silence and waits out the rest
    /// awake — so every onset's firing is an onset wakeup, and none is written before its time (the
    /// largest lead, 2 ms, so that a write made at the early wake would show); the pulses' ends and
    /// a sounding pad's changes are not onsets. Without a lead no firing is one.
    @Test(arguments: [0.0, RenderLoop.onsetLeadRange.upperBound])
    func anOnsetIsWokenForEarlyAndWrittenNoSooner(lead: Double) throws {
        let loop = RenderLoop(mode: .event, label: Self.uniqueName(), onsetLead: lead)
        defer { loop.shutdown() }
        #expect(loop.onsetLead == lead)
        let sink = ThreadRecordingSink()
        loop.addPad(0, sink: sink, profile: .generic)
        // Four single transients from silence, each past the previous pulse's end and the pacer's
        // hold of its zero (`hapticbench`'s spacing), then a continuous event whose intensity
        // steps down while it sounds (a change, not an onset).
        let profile = DeviceProfile.generic
        let spacing = profile.pulseLength(sharpness: 0.5) + 3 * profile.minimumUpdateInterval
        let times = (0..<4).map { 0.05 + Double($0) * spacing }
        let last = times.last! + spacing
        let steps = HapticPattern(elements: times.map { .event(.transient(at: $0, intensity: 1, sharpness: 0.5)) } + [
            .event(.continuous(at: last, duration: 0.06, intensity: 0.4, sharpness: 0)),
            .parameter(.init(.hapticIntensityControl, 0.5, at: last + 0.03)),
        ])
        let start = try loop.withPad(0) { engine, _ in
            let player = engine.makePlayer(steps)
            let start = engine.currentTime
            try engine.start(player)
            return start
        }!
        #expect(sink.waitFor(count: 2 * times.count + 3, timeout: 10))
        let writes = sink.writes
        // Each onset's first write: none before its time.
        for t in times + [last] {
            let due = start + t
            let first = try #require(writes.first { $0.time >= due - 0.01 && $0.write != .set(.zero) }, "an onset at \(t) s was written")
            #expect(first.time >= due, "the onset at \(t) s was written \((due - first.time) * 1e6) µs before its time")
        }
        // Which wakes are onsets is `NextChangeTests.anOnsetIsABreakpointOnASilentPad`'s (on the
        // manual clock): here a thread held up past a pulse's end may see one fewer.
        if lead > 0 {
            #expect((1...times.count + 1).contains(loop.onsetWakeups), "the onsets from silence, and nothing else (\(loop.onsetWakeups) of \(loop.wakeups) wakeups)")
        } else {
            #expect(loop.onsetWakeups == 0)
        }
    }

    /// The timerfd is set `onsetLead` before an onset from silence — the thread wakes early — and at
    /// the deadline itself for anything else, and without a lead.
    @Test(arguments: [0.0, RenderLoop.onsetLeadRange.upperBound])
    func anOnsetsTimerIsSetItsLeadEarly(lead: Double) throws {
        let loop = RenderLoop(mode: .event, label: Self.uniqueName(), onsetLead: lead)
        defer { loop.shutdown() }
        loop.addPad(0, sink: ThreadRecordingSink(), profile: .generic)
        // Far ahead (the thread must not wake for it during the test): an onset from silence.
        try loop.withPad(0) { engine, _ in
            try engine.start(engine.makePlayer(pattern(duration: 0.5, intensity: 0.5)), at: .at(engine.currentTime + 30))
        }
        func leadOfTimer() throws -> (deadline: Double, expiry: ClosedRange<Double>) {
            (try #require(loop.armedTime), try #require(loop.timerExpiry))
        }
        let (deadline, expiry) = try leadOfTimer()
        #expect(expiry.contains(deadline - lead) || abs(expiry.lowerBound - (deadline - lead)) < 2e-6,
                "set for \(deadline - expiry.lowerBound) s before the onset, lead \(lead)")
        // Sounding now (a constant rumble): the same far start is no onset, its timer is its time.
        try loop.withPad(0) { engine, _ in try engine.start(engine.makePlayer(pattern(duration: 60))) }
        let (later, sounding) = try leadOfTimer()
        #expect(sounding.contains(later) || abs(sounding.lowerBound - later) < 2e-6,
                "a sounding pad's next change: set for \(later - sounding.lowerBound) s before it")
    }

    /// A deadline moved later is not fired at the earlier one.
    /// (Also with the largest onset lead: the start is an onset from silence, woken 2 ms early.)
    @Test(arguments: [0.0, RenderLoop.onsetLeadRange.upperBound])
    func aLaterDeadlineIsNotFiredEarly(lead: Double) throws {
        let loop = RenderLoop(mode: .event, label: Self.uniqueName(), onsetLead: lead)
        defer { loop.shutdown() }
        let sink = ThreadRecordingSink()
        loop.addPad(0, sink: sink, profile: .generic)
        let start = try loop.withPad(0) { engine, _ in
            let early = engine.makePlayer(pattern(duration: 0.02))
            try engine.start(early, at: .at(engine.currentTime + 0.02))
            try engine.destroyPlayer(early)
            try engine.start(engine.makePlayer(pattern(duration: 0.02, intensity: 0.5)), at: .at(engine.currentTime + 0.06))
            return engine.currentTime
        }!
        #expect(sink.waitFor(count: 2))
        #expect(sink.writes[0].time >= start + 0.06, "written \(sink.writes[0].time - start) s after the command")
        #expect(sink.writes[0].write == .set(MotorMagnitudes(strong: 32768, weak: 0)))
    }

    @Test func shutdownEndsTheThread() {
        let name = Self.uniqueName()
        let loop = RenderLoop(label: name)
        loop.addPad(0, sink: ThreadRecordingSink(), profile: .generic)
        #expect(threads(named: name) == 1)
        loop.shutdown()
        #expect(noThreads(named: name))
        loop.shutdown()  // again: nothing left to end
    }

    @Test func aLoopNobodyHoldsEndsItsThread() throws {
        let name = Self.uniqueName()
        do {
            let loop = RenderLoop(label: name)
            let sink = ThreadRecordingSink()
            loop.addPad(0, sink: sink, profile: .generic)
            try loop.withPad(0) { engine, _ in try engine.start(engine.makePlayer(pattern(duration: 0.01))) }
            #expect(sink.waitFor(count: 2))
            #expect(threads(named: name) == 1)
        }
        #expect(noThreads(named: name))
    }
}
