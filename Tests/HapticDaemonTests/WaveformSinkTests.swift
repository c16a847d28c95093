import Dispatch
import Foundation
import Glibc
import HapticCore
import Hidraw
import SystemPackage
import Testing
@testable import HapticDaemon

/// The DualSense's Bluetooth waveform stream through the real render loop (its own thread, the real
/// clock), into a pipe standing in for the hidraw node: report `0x32` every 10.67 ms while anything
/// sounds, sealed, in sequence, silence once, then nothing; a node that stops taking reports hands
/// the pad to its motors at once, and the stream is taken up again at a play after the back-off.
@Suite(.serialized) struct WaveformSinkTests {
    /// A pipe as the node: the write end (non-blocking, as hidraw nodes are opened) for the sink, the
    /// read end for the test.
    final class FakeNode: @unchecked Sendable {
        // @unchecked Sendable: `read` is used by the test's thread only; the write end belongs to the
        // node the sink owns.
        let readEnd: Int32, writeEnd: Int32
        var buffer: [UInt8] = []
        init() {
            var fds: [Int32] = [0, 0]
            precondition(pipe(&fds) == 0)
            readEnd = fds[0]
            writeEnd = fds[1]
            _ = fcntl(readEnd, F_SETFL, O_NONBLOCK)
            _ = fcntl(writeEnd, F_SETFL, O_NONBLOCK)
        }
        deinit { close(readEnd) }
        func node() -> HidrawNode { HidrawNode.adopting(FileDescriptor(rawValue: writeEnd), path: "/dev/hidraw-test") }
        /// Every whole report written since the last call, with the time it was read.
        func reports() -> [[UInt8]] {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(readEnd, &chunk, chunk.count)
                if n <= 0 { break }
                buffer += chunk[0..<n]
            }
            var out: [[UInt8]] = []
            while buffer.count >= DualSenseBluetoothHaptics.reportLength {
                out.append(Array(buffer[0..<DualSenseBluetoothHaptics.reportLength]))
                buffer.removeFirst(DualSenseBluetoothHaptics.reportLength)
            }
            return out
        }
        /// Fills the pipe: the next report cannot be written (EAGAIN, a busy pad).
        func fill() {
            let junk = [UInt8](repeating: 0, count: 4096)
            while write(writeEnd, junk, junk.count) > 0 {}
        }
        func drain() {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while read(readEnd, &chunk, chunk.count) > 0 {}
            buffer = []
        }
    }

    final class Changes: @unchecked Sendable {
        // @unchecked Sendable: behind `lock`.
        private let lock = NSLock()
        private var list: [HapticsStatus] = []
        func append(_ s: HapticsStatus) { lock.withLock { list.append(s) } }
        var all: [HapticsStatus] { lock.withLock { list } }
    }

    func tone(_ duration: Double) -> HapticPattern {
        HapticPattern(elements: [.event(.continuous(at: 0, duration: duration, intensity: 1, sharpness: 0.5))])
    }

    /// Polls `condition` for up to `timeout` seconds.
    func wait(_ timeout: Double = 5, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if condition() { return true }
            usleep(2_000)
        }
        return condition()
    }

    @Test(arguments: RenderMode.allCases)
    func aPlayStreamsReportsInSequenceThenSilenceOnceThenNothing(mode: RenderMode) throws {
        let fake = FakeNode()
        let rumble = RecordingSink()
        let sink = DualSenseWaveformSink(node: fake.node(), rumble: rumble, vendor: 0x054C, product: 0x0CE6)
        // `fixed`: the 4 ms grid drives the stream; a report goes out at the first tick after its block's end.
        let loop = RenderLoop(mode: mode, period: 0.004)
        defer { loop.shutdown() }
        loop.addPad(0, sink: sink, profile: .dualSenseBluetoothWaveform)
        try loop.withPad(0) { engine, _ in try engine.start(engine.makePlayer(tone(0.2))) }
        var reports: [(Double, [UInt8])] = []
        #expect(wait {
            let now = monotonicSeconds()
            reports += fake.reports().map { (now, $0) }
            return reports.count >= 20 && reports.last.flatMap { DualSenseBluetoothHaptics.decode($0.1) }?.frames.allSatisfy({ $0 == (0, 0) }) == true
        })
        usleep(100_000)
        #expect(fake.reports().isEmpty, "silence once, then no more reports")
        let decoded = reports.compactMap { DualSenseBluetoothHaptics.decode($0.1) }
        #expect(decoded.count == reports.count, "every report is a haptics report with a good CRC")
        #expect(zip(decoded, decoded.dropFirst()).allSatisfy { ($0.sequence &+ 1) & 0x0F == $1.sequence }, "sequence numbers run on")
        // 0.2 s is 18.75 reports: 19 sounding, one silent.
        let sounding = decoded.filter { $0.frames.contains { $0 != (0, 0) } }
        #expect(sounding.count == 19 && decoded.count == 20, "\(sounding.count) sounding of \(decoded.count)")
        // The reports come at the stream's rate: 19 intervals of 10.67 ms, give or take a loaded machine.
        let span = reports.last!.0 - reports.first!.0
        #expect(span > 0.15 && span < 0.4, "\(span) s for \(reports.count) reports")
        #expect(rumble.writes.isEmpty, "the motors are not used while the stream runs")
        let status = try #require(loop.perform(ticking: false) { $0.haptics(0) })
        #expect(status.mode == .waveform && status.transport == "bluetooth-hidraw" && status.reason == nil)
        #expect(status.reports == 20 && status.streams == 1)
        #expect(!loop.isArmed && !loop.isTicking, "the stream is over: no wakeups")
    }

    @Test func aBusyNodeFallsBackToTheMotorsAndARefusedRetryBacksOff() throws {
        let fake = FakeNode()
        let rumble = RecordingSink()
        let sink = DualSenseWaveformSink(node: fake.node(), rumble: rumble, vendor: 0x054C, product: 0x0CE6, backoff: 0.2) { _ throws(HidrawError) in
            throw HidrawError(.open, "/dev/hidraw-test", .notPermitted)
        }
        let changes = Changes()
        let loop = RenderLoop()
        defer { loop.shutdown() }
        loop.setHapticsHandler { _, status in changes.append(status) }
        loop.addPad(0, sink: sink, profile: .dualSenseBluetoothWaveform)
        fake.fill()
        try loop.withPad(0) { engine, _ in try engine.start(engine.makePlayer(tone(0.3))) }
        // The first report fails: the pad rumbles through its motors, in this same pass or the next.
        #expect(rumble.waitFor { $0.contains { if case .set(let m) = $0 { m != .zero } else { false } } })
        #expect(changes.all.first?.mode == .rumble)
        #expect(changes.all.first?.reason?.contains("write failed") == true, "\(String(describing: changes.all.first?.reason))")
        let status = try #require(loop.perform(ticking: false) { $0.haptics(0) })
        #expect(status.mode == .rumble && status.failures == 1 && status.retryAt != nil)
        // The motors stop at the pattern's end as any rumble does.
        #expect(rumble.waitFor { $0.last == .set(.zero) })
        // After the back-off, the next play tries the node again: still refused, a longer back-off.
        usleep(250_000)
        fake.drain()
        try loop.withPad(0) { engine, _ in try engine.start(engine.makePlayer(tone(0.05))) }
        let retried = try #require(loop.perform(ticking: false) { $0.haptics(0) })
        #expect(retried.mode == .rumble && retried.retries == 1)
        #expect(retried.reason?.contains("tried again") == true)
    }

    @Test func theStreamIsTakenUpAgainWhenTheNodeWorks() throws {
        let fake = FakeNode(), second = FakeNode()
        let rumble = RecordingSink()
        // The retry opens "the node" again: here the second pipe.
        let sink = DualSenseWaveformSink(node: fake.node(), rumble: rumble, vendor: 0x054C, product: 0x0CE6, backoff: 0.05) { _ throws(HidrawError) in
            second.node()
        }
        let changes = Changes()
        let loop = RenderLoop()
        defer { loop.shutdown() }
        loop.setHapticsHandler { _, status in changes.append(status) }
        loop.addPad(0, sink: sink, profile: .dualSenseBluetoothWaveform)
        fake.fill()
        try loop.withPad(0) { engine, _ in try engine.start(engine.makePlayer(tone(0.1))) }
        #expect(wait { changes.all.count == 1 })
        #expect(rumble.waitFor { $0.last == .set(.zero) })
        usleep(100_000)
        try loop.withPad(0) { engine, _ in try engine.start(engine.makePlayer(tone(0.1))) }
        #expect(changes.all.count == 2 && changes.all.last?.mode == .waveform, "the play takes the node up again")
        var reports: [[UInt8]] = []
        #expect(wait {
            reports += second.reports()
            return reports.count >= 11
        })
        let decoded = reports.compactMap { DualSenseBluetoothHaptics.decode($0) }
        #expect(decoded.count == reports.count)
        #expect(decoded.first?.frames.allSatisfy { $0 == (0, 0) } == true, "a silent report first (the retry's check)")
        #expect(zip(decoded, decoded.dropFirst()).allSatisfy { ($0.sequence &+ 1) & 0x0F == $1.sequence }, "then the stream's, in sequence")
        #expect(decoded.filter { $0.frames.contains { $0 != (0, 0) } }.count == 10, "then the tone: 0.1 s is 9.4 reports")
        let status = try #require(loop.perform(ticking: false) { $0.haptics(0) })
        #expect(status.mode == .waveform && status.reason == nil && status.failures == 1 && status.retries == 0)
        let motorWrites = rumble.writes.count
        usleep(100_000)
        #expect(rumble.writes.count == motorWrites, "the motors stay still while the stream runs")
    }

    @Test func releaseSilencesTheVoiceCoilsAndTheMotors() throws {
        let fake = FakeNode()
        let rumble = RecordingSink()
        let sink = DualSenseWaveformSink(node: fake.node(), rumble: rumble, vendor: 0x054C, product: 0x0CE6)
        let loop = RenderLoop()
        loop.addPad(0, sink: sink, profile: .dualSenseBluetoothWaveform)
        try loop.withPad(0) { engine, _ in try engine.start(engine.makePlayer(tone(5))) }
        #expect(wait { !fake.reports().isEmpty })
        loop.shutdown()
        let last = fake.reports().last.flatMap { DualSenseBluetoothHaptics.decode($0) }
        #expect(last?.frames.allSatisfy { $0 == (0, 0) } == true, "the last report is silence")
        #expect(rumble.released)
    }
}

/// CLOCK_MONOTONIC in seconds.
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
