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
    /// and every command as if alone — its own first frame written, its own device error.
    @Test func aTurnOfLinesIsAnsweredInOrderEachCommandAsAlone() throws {
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
        // An id no reply can echo (an infinity: JSON has no form for it) is refused, not run: a
        // `stop_all` under it would act with no reply its client could match.
        let stops = healthy.writes.count
        for line in [#"{"id":1e400,"cmd":"stop_all"}"#, #"{"id":-1e999,"cmd":"stop_all"}"#, #"{"id":true,"cmd":"stop_all"}"#] {
            let reply = core.handle(lines: [line], from: client)
            #expect(reply.count == 1 && reply[0].hasPrefix(#"{"id":null,"ok":false"#) && reply[0].contains("bad_request"), "\(line) → \(reply)")
        }
        #expect(healthy.writes.count == stops, "nothing stopped: \(healthy.writes)")
    }

    /// A `player.start` and the `player.send_parameters` sent right after it (Core Haptics renders
    /// the two in one cycle): the start's own value goes first, and the parameters — the value of a
    /// pattern with them written in — follow at once, correcting the onset (`Pacer`), rather than
    /// at the pad's next interval; read in one turn or one after the other.
    @Test func theParametersSentRightAfterAStartCorrectItAtOnce() throws {
        var span = 0.0
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
            let t0 = MonotonicClock().now
            let replies = together ? core.handle(lines: lines, from: client) : lines.map { core.handle(line: $0, from: client) }
            span = MonotonicClock().now - t0
            #expect(replies.allSatisfy { $0.contains("\"ok\":true") }, "\(replies)")
            // What the commands wrote within the calls (the render thread's later writes follow).
            let written = sink.writes.compactMap { if case .set(let m) = $0 { m } else { nil } }
            _ = core.handle(line: #"{"id":4,"cmd":"stop"}"#, from: client)
            return written
        }
        let writtenIn = try firstWrites(0.3, sendingIntensity: nil, together: false)
        let started = try firstWrites(1, sendingIntensity: nil, together: false)
        #expect(writtenIn.count == 1 && started.count == 1 && writtenIn != started, "\(writtenIn) \(started)")
        let window = SimulatedPad(index: 0).info.profile(in: DaemonConfig().profiles).onsetCorrectionWindow
        #expect(window > 0)
        for together in [true, false] {
            let sent = try firstWrites(1, sendingIntensity: 0.3, together: together)
            // Corrected at once when the two came within half the pad's interval of each other
            // (microseconds apart, unless this thread was preempted for milliseconds between them).
            guard span < window else { continue }
            #expect(sent == started + writtenIn, "the start's level, then at once the parameters': \(sent)")
        }
        // Parameters that silence the start (MeloNX sends 0 to a player it has just started): the
        // pad goes quiet at once, not an interval later.
        let silenced = try firstWrites(1, sendingIntensity: 0, together: false)
        if span < window { #expect(silenced == started + [.zero], "\(silenced)") }
    }

    /// What a later line of the same turn silences still reaches the pad (issue 26 §1), and an
    /// onset's correction never takes a motor it turned on back to zero: a `rumble` then `rumble 0`,
    /// or the strong motor's rumble handed to the weak one, in one turn (a review's cases against a
    /// version that rendered a turn once).
    @Test func whatALaterLineOfTheTurnSilencesStillReachesThePad() throws {
        func written(_ lines: [String]) throws -> [MotorMagnitudes] {
            let core = DaemonCore(config: DaemonConfig(), loop: RenderLoop(), logger: Logger(label: "test"))
            let sink = RecordingSink()
            core.addPad(info: SimulatedPad(index: 0).info, sink: sink, simulated: true)
            let client = try connect(core)
            let replies = core.handle(lines: lines, from: client)
            #expect(replies.allSatisfy { $0.contains("\"ok\":true") }, "\(replies)")
            let out = sink.writes.compactMap { if case .set(let m) = $0 { m } else { nil } }
            _ = core.handle(line: #"{"id":9,"cmd":"stop"}"#, from: client)
            return out
        }
        let pulse = try written([#"{"id":1,"cmd":"rumble","strong":0.8,"weak":0.2,"duration":1}"#, #"{"id":2,"cmd":"rumble","strong":0,"weak":0,"duration":0}"#])
        #expect(pulse.first.map { !$0.isZero } == true, "\(pulse)")
        let handed = try written([#"{"id":1,"cmd":"rumble","strong":1,"weak":0,"duration":1}"#, #"{"id":2,"cmd":"rumble","strong":0,"weak":0.3,"duration":1}"#])
        #expect(handed.first?.strong == 65535, "\(handed)")
        #expect(handed.count == 1, "the weak motor's value waits for the interval, the strong one's onset is felt: \(handed)")
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

extension DaemonCoreTests {
    /// SIGTERM silences the pads before the connections close (hapticd's stop): a command that still
    /// arrives on an open connection after `shutdown` is refused and reaches no device, a pad handed
    /// over after it (a recovery already under way) is released rather than driven, and the
    /// connection's close afterwards is harmless.
    @Test func commandsAfterShutdownReachNoDevice() throws {
        let loop = RenderLoop()
        let core = DaemonCore(config: DaemonConfig(), loop: loop, logger: Logger(label: "test"))
        let sink = RecordingSink()
        core.addPad(info: SimulatedPad(index: 0).info, sink: sink, simulated: true)
        let client = try connect(core)
        let playing = core.handle(line: #"{"id":1,"cmd":"rumble","device":0,"strong":0.8,"weak":0.4,"duration":5}"#, from: client)
        #expect(playing.contains("\"ok\":true"), "\(playing)")
        core.shutdown()
        #expect(sink.writes.last == .set(.zero), "shutdown silences the pad at once: \(sink.writes)")
        let written = sink.writes.count
        let pattern = #"{"Pattern":[{"Event":{"EventType":"HapticContinuous","EventDuration":1}}]}"#
        for line in [
            #"{"id":2,"cmd":"rumble","device":0,"strong":1,"weak":1,"duration":5}"#,
            #"{"id":3,"cmd":"play","device":0,"pattern":\#(pattern)}"#,
            #"{"id":4,"cmd":"play","pattern":\#(pattern)}"#,
            #"{"id":5,"cmd":"devices"}"#,
        ] {
            let reply = core.handle(line: line, from: client)
            #expect(reply.contains("\"ok\":false") && reply.contains("hapticd is stopping"), "\(reply)")
        }
        #expect(core.handle(line: #"{"id":6,"cmd":"ping"}"#, from: client).contains("\"ok\":true"))
        // A pad that comes back now (the same one: a re-attach) or a new one: released, never driven.
        let again = RecordingSink(), other = RecordingSink()
        #expect(core.addPad(info: SimulatedPad(index: 0).info, sink: again, simulated: true) == nil)
        #expect(core.addPad(info: SimulatedPad(index: 1).info, sink: other, simulated: true) == nil)
        #expect(again.released && other.released && again.writes.isEmpty && other.writes.isEmpty)
        #expect(core.handle(line: #"{"id":7,"cmd":"rumble","device":1,"strong":1,"weak":1,"duration":5}"#, from: client).contains("\"ok\":false"))
        core.disconnect(client)
        #expect(sink.writes.count == written, "nothing written after the shutdown's silence: \(sink.writes)")
        #expect(again.writes.isEmpty && other.writes.isEmpty)
    }
}
