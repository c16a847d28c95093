import DaemonTestSupport
import Dispatch
import Evdev
import HapticCore
import HapticDaemon
import HapticProtocol
import Logging
import Testing

final class Lines: @unchecked Sendable {
    // @unchecked Sendable: guarded by `lock`.
    private let lock = DispatchQueue(label: "lines")
    private var list: [String] = []
    func append(_ s: String) { lock.sync { list.append(s) } }
    var all: [String] { lock.sync { list } }
}

/// A client outlet for tests: every event line, kept.
struct LinesOutlet: ClientOutlet {
    let lines: Lines
    func event(_ line: String) { lines.append(line) }
}

/// Connects an in-process client whose events go to `events`.
func connect(_ core: DaemonCore, _ events: Lines = Lines(), as peer: PeerCredentials? = nil) throws -> ClientID {
    try core.connect(credentials: peer, outlet: LinesOutlet(lines: events)).get()
}

@Suite struct DaemonCoreTests {
    @Test func aPlayedPatternRunsToItsEndOnTheLoop() throws {
        let loop = RenderLoop()
        let core = DaemonCore(config: DaemonConfig(), loop: loop, logger: Logger(label: "test"))
        let sink = RecordingSink()
        core.addPad(info: SimulatedPad(index: 0).info, sink: sink, simulated: true)
        let events = Lines()
        let client = try connect(core, events)
        _ = core.handle(line: #"{"id":1,"cmd":"subscribe"}"#, from: client)
        let pattern = #"{"Pattern":[{"Event":{"EventType":"HapticContinuous","EventDuration":0.05}}]}"#
        let reply = core.handle(line: #"{"id":2,"cmd":"play","pattern":\#(pattern)}"#, from: client)
        #expect(reply.contains("\"ok\":true"), "\(reply)")
        #expect(sink.waitFor { $0.last == .set(.zero) }, "\(sink.writes)")
        #expect(events.all.contains { $0.contains("player.finished") })
    }
}

extension DaemonCoreTests {
    @Test func doubleClickPlaysBothClicks() throws {
        var config = DaemonConfig()
        config.patternDirectories = [repositoryRoot + "/config/patterns"]
        let loop = RenderLoop()
        let core = DaemonCore(config: config, loop: loop, logger: Logger(label: "test"))
        let sink = RecordingSink()
        core.addPad(info: SimulatedPad(index: 0).info, sink: sink, simulated: true)
        let client = try connect(core)
        let reply = core.handle(line: #"{"id":2,"cmd":"play","name":"double-click"}"#, from: client)
        #expect(reply.contains("\"ok\":true"), "\(reply)")
        #expect(sink.waitFor { $0.filter { $0 == .set(.zero) }.count == 2 }, "\(sink.writes)")
        let clicks = sink.writes.filter { if case .set(let m) = $0 { !m.isZero } else { false } }
        #expect(clicks.count == 2, "\(sink.writes)")
    }
}

extension DaemonCoreTests {
    @Test func finishedPlaysDoNotCountAgainstThePlayerLimit() throws {
        var config = DaemonConfig()
        config.limits.maxPlayersPerClient = 2
        let loop = RenderLoop()
        let core = DaemonCore(config: config, loop: loop, logger: Logger(label: "test"))
        let sink = RecordingSink()
        core.addPad(info: SimulatedPad(index: 0).info, sink: sink, simulated: true)
        let client = try connect(core)
        let pattern = #"{"Pattern":[{"Event":{"EventType":"HapticContinuous","EventDuration":0.01}}]}"#
        for i in 1...5 {
            let reply = core.handle(line: #"{"id":\#(i),"cmd":"play","pattern":\#(pattern)}"#, from: client)
            #expect(reply.contains("\"ok\":true"), "play \(i): \(reply)")
            #expect(sink.waitFor { $0.filter { $0 == .set(.zero) }.count >= i }, "play \(i) ends")
        }
    }
}

extension DaemonCoreTests {
    /// Inline patterns are parsed on the socket threads, against the limits a reload set; and a
    /// `policy.set` under the render loop's lock is seen by every reader of the configuration.
    @Test func aReloadsPatternLimitsApplyToInlinePatterns() throws {
        let loop = RenderLoop()
        let core = DaemonCore(config: DaemonConfig(), loop: loop, logger: Logger(label: "test"))
        core.addPad(info: SimulatedPad(index: 0).info, sink: RecordingSink(), simulated: true)
        let client = try connect(core, as: PeerCredentials(pid: 1, uid: 0, gid: 0, groups: []))  // root: policy.set
        let event = #"{"Event":{"EventType":"HapticTransient","Time":0}}"#
        let line = #"{"id":1,"cmd":"play","pattern":{"Pattern":[\#(event),\#(event),\#(event)]}}"#
        #expect(core.handle(line: line, from: client).contains("\"ok\":true"))
        var strict = DaemonConfig()
        strict.patternLimits.maximumEvents = 2
        core.reload(strict)
        #expect(core.config.patternLimits.maximumEvents == 2)
        let refused = core.handle(line: line, from: client)
        #expect(refused.contains("invalid_pattern"), "\(refused)")
        let set = core.handle(line: #"{"id":2,"cmd":"policy.set","max_strength":0.5}"#, from: client)
        #expect(set.contains("\"ok\":true"), "\(set)")
        #expect(core.config.policy.maxStrength == 0.5)
        #expect(core.config.patternLimits.maximumEvents == 2, "the reload's limits stay")
    }
}

extension DaemonCoreTests {
    /// A connection's turn of lines: answered in order, malformed and unknown lines in their place,
    /// every command's first frame written within the call, and each its own device error — a pad
    /// that failed in the turn's render pass fails only the commands that reached it.
    @Test func aTurnOfLinesIsAnsweredInOrderEachWithItsOwnDeviceError() throws {
        let core = DaemonCore(config: DaemonConfig(), loop: RenderLoop(), logger: Logger(label: "test"))
        let healthy = RecordingSink()
        let failing = RecordingSink()
        core.addPad(info: SimulatedPad(index: 0).info, sink: healthy, simulated: true)
        core.addPad(info: SimulatedPad(index: 1).info, sink: failing, simulated: true)
        let client = try connect(core)
        failing.failWith = DeviceError(kind: .system(.ioError), operation: .upload, path: "/dev/input/event9")
        let rumble = #"{"Pattern":[{"Event":{"EventType":"HapticContinuous","EventDuration":5}}]}"#
        let replies = core.handle(lines: [
            #"{"id":1,"cmd":"ping"}"#,
            #"{"id":2,"cmd":"play","device":0,"pattern":\#(rumble)}"#,
            #"{"id":3,"cmd":"#,
            #"{"id":4,"cmd":"play","device":1,"pattern":\#(rumble)}"#,
            #"{"id":5,"cmd":"no.such.command"}"#,
            #"{"id":6,"cmd":"engine.status","device":0}"#,
        ], from: client)
        #expect(replies.count == 6, "\(replies)")
        guard replies.count == 6 else { return }
        #expect(replies[0] == #"{"id":1,"ok":true,"result":{"pong":true}}"#)
        #expect(replies[1].hasPrefix(#"{"id":2,"ok":true"#), "\(replies[1])")
        #expect(replies[2].contains("\"ok\":false") && replies[2].contains("bad_json"), "\(replies[2])")
        #expect(replies[3].hasPrefix(#"{"id":4,"ok":false"#) && replies[3].contains("device_error"), "\(replies[3])")
        #expect(replies[4].hasPrefix(#"{"id":5,"ok":false"#) && replies[4].contains("unknown_command"), "\(replies[4])")
        #expect(replies[5].hasPrefix(#"{"id":6,"ok":true"#) && replies[5].contains("\"playing\":true"), "\(replies[5])")
        // The play on pad 0 wrote its first frame inside the call, as a lone command does.
        #expect(healthy.writes.first.map { if case .set(let m) = $0 { !m.isZero } else { false } } == true, "\(healthy.writes)")
    }

    /// A `player.start` and the `player.send_parameters` sent right after it, read in one turn, take
    /// effect together (as in one Core Haptics render cycle): the pad's first write has the
    /// parameters — the same value as a pattern with them written in — where read one after the
    /// other the start's own value goes first and the parameters wait for the pad's next interval.
    @Test func aStartAndTheParametersReadWithItWriteThePadOnce() throws {
        func firstWrites(_ pattern: Double, sendingIntensity: Double?, together: Bool) throws -> [MotorMagnitudes] {
            let core = DaemonCore(config: DaemonConfig(), loop: RenderLoop(), logger: Logger(label: "test"))
            let sink = RecordingSink()
            core.addPad(info: SimulatedPad(index: 0).info, sink: sink, simulated: true)
            let client = try connect(core)
            let event = #"{"Event":{"EventType":"HapticContinuous","EventDuration":5,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":\#(pattern)},{"ParameterID":"HapticSharpness","ParameterValue":0.5}]}}"#
            let created = core.handle(line: #"{"id":1,"cmd":"player.create","pattern":{"Pattern":[\#(event)]}}"#, from: client)
            guard created.contains("\"ok\":true"), let player = created.firstMatch(of: /"player":(\d+)/)?.1 else {
                Issue.record("\(created)")
                return []
            }
            var lines = [#"{"id":2,"cmd":"player.start","player":\#(player)}"#]
            if let sendingIntensity {
                lines.append(#"{"id":3,"cmd":"player.send_parameters","player":\#(player),"parameters":{"intensity":\#(sendingIntensity)}}"#)
            }
            let replies = together ? core.handle(lines: lines, from: client) : lines.map { core.handle(line: $0, from: client) }
            #expect(replies.allSatisfy { $0.contains("\"ok\":true") }, "\(replies)")
            // What the commands wrote within the calls (the render thread's later writes follow).
            let written = sink.writes.compactMap { if case .set(let m) = $0 { m } else { nil } }
            _ = core.handle(line: #"{"id":4,"cmd":"stop"}"#, from: client)
            return written
        }
        let together = try firstWrites(1, sendingIntensity: 0.3, together: true)
        let alone = try firstWrites(1, sendingIntensity: 0.3, together: false)
        let writtenIn = try firstWrites(0.3, sendingIntensity: nil, together: false)
        #expect(together.first != nil && together.first == writtenIn.first, "\(together) \(writtenIn)")
        #expect(together.count == 1, "one write for the two commands: \(together)")
        #expect(alone.first != nil && alone.first != writtenIn.first, "read apart, the start's own value first: \(alone)")
    }

    /// `ping` and `version` read nothing of the daemon's state: they are answered on the socket
    /// thread even while the render loop's lock is held, which a ping flood then never takes.
    @Test func pingIsAnsweredWithoutTheRenderLoopsLock() throws {
        let loop = RenderLoop()
        let core = DaemonCore(config: DaemonConfig(), loop: loop, logger: Logger(label: "test"))
        core.addPad(info: SimulatedPad(index: 0).info, sink: RecordingSink(), simulated: true)
        let client = try connect(core)
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            loop.perform(ticking: false) { _ in
                inside.signal()
                release.wait()
            }
            released.signal()
        }
        inside.wait()
        let pinged = DispatchSemaphore(value: 0)
        let statused = DispatchSemaphore(value: 0)
        let replies = Lines()
        DispatchQueue.global().async {
            replies.append(core.handle(lines: [#"{"id":1,"cmd":"ping"}"#, #"{"id":2,"cmd":"version"}"#], from: client).joined(separator: "\n"))
            pinged.signal()
        }
        DispatchQueue.global().async {
            replies.append(core.handle(line: #"{"id":3,"cmd":"engine.status","device":0}"#, from: client))
            statused.signal()
        }
        #expect(pinged.wait(timeout: .now() + 10) == .success, "ping waited for the render loop's lock")
        // engine.status reads the engines: it waits for the lock, and so proves the lock was held.
        #expect(statused.wait(timeout: .now() + 0.2) == .timedOut)
        release.signal()
        #expect(statused.wait(timeout: .now() + 10) == .success)
        #expect(released.wait(timeout: .now() + 10) == .success)
        let all = replies.all
        #expect(all.first?.contains(#""pong":true"#) == true && all.first?.contains(#""version":"\#(DaemonCore.version)""#) == true, "\(all)")
        #expect(all.last?.contains(#""device":0"#) == true, "\(all)")
    }
}
