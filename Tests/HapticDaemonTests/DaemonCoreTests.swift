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

let repositoryRoot: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()

extension DaemonCoreTests {
    /// Inline patterns are parsed on the socket threads, against the limits a reload set; and a
    /// `policy.set` on the render queue is seen by every reader of the configuration.
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
