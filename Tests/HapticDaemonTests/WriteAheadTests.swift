import Evdev
import Glibc
@testable import HapticCore
@testable import HapticDaemon
import HapticProtocol
import Logging
import Testing

/// A rumble's first frame written ahead of its player (WriteAhead.swift): written only where the
/// command will be accepted and the pad's output will be the rumble's alone, and then exactly the
/// output the command's own render pass computes.
@Suite struct WriteAheadTests {
    static let line = #"{"id":5,"cmd":"rumble","strong":0.8,"weak":0.3,"duration":5}"#

    /// What the write ahead would write for `line` from `client`, quantized (nil: it leaves it).
    static func ahead(_ bench: StateBench, _ line: String, from client: ClientID) -> MotorMagnitudes? {
        bench.read { state, access in
            guard let (pad, m) = state.rumbleAhead(RumbleLine.scan(line)!, from: client, access), let p = access.pipeline(pad) else { return nil }
            return p.pacer.quantized(p.scaled(m))
        }
    }

    /// Pad 0's output now, as its next render pass offers it to the pacer.
    static func output(_ bench: StateBench) -> MotorMagnitudes {
        bench.read { _, access in
            let p = access.pipeline(0)!
            return p.pacer.quantized(p.scaled(p.mix(at: access.now)))
        }
    }

    /// Waits until pad 0's pacer has written zero and holds nothing (its interval after a stop).
    static func waitForRest(_ bench: StateBench) -> Bool {
        for _ in 0..<1000 {
            let (rest, wait) = bench.read { _, access in
                let pacer = access.pipeline(0)!.pacer
                return (!pacer.hasPendingOutput && pacer.written.isZero, pacer.nextWriteTime(from: access.now) - access.now)
            }
            if rest { return true }
            usleep(UInt32(min(max(wait, 0.0005), 0.01) * 1e6))
        }
        return false
    }

    /// `line` ahead, then as a command: the two outputs, or the write ahead's nil.
    static func compare(_ bench: StateBench, _ line: String = line, from client: ClientID) throws -> (ahead: MotorMagnitudes?, after: MotorMagnitudes) {
        let predicted = ahead(bench, line, from: client)
        _ = try bench.send(line, from: client)
        return (predicted, output(bench))
    }

    @Test func fromRestItIsTheOutputTheCommandMakes() throws {
        let bench = StateBench()
        let a = try bench.connect(nil)
        let (predicted, after) = try Self.compare(bench, from: a)
        #expect(predicted != nil && !(predicted?.isZero ?? true))
        #expect(predicted == after)
    }

    @Test func inPlaceItIsTheOutputTheCommandMakes() throws {
        let bench = StateBench()
        let a = try bench.connect(nil)
        _ = try bench.ok(Self.line, from: a)
        let (predicted, after) = try Self.compare(bench, #"{"id":6,"cmd":"rumble","strong":0.2,"weak":0.9,"duration":5}"#, from: a)
        #expect(predicted != nil)
        #expect(predicted == after)
    }

    @Test func theGainsAndTheCeilingApplyAsToTheCommand() throws {
        var config = DaemonConfig()
        var rule = PolicyConfig.AppRule(id: "test")
        rule.gain = 0.4
        config.policy.apps = [rule]
        config.policy.maxStrength = 0.5
        let bench = StateBench(config: config)
        let a = try bench.connect(nil)
        let root = try bench.connect(PeerCredentials(pid: 1, uid: 0, gid: 0))
        _ = try bench.ok(#"{"id":1,"cmd":"gain.set","device":0,"gain":0.7}"#, from: root)
        let (predicted, after) = try Self.compare(bench, #"{"id":5,"cmd":"rumble","device":0,"strong":1,"weak":0.6,"duration":5}"#, from: a)
        #expect(predicted != nil && predicted == after, "\(String(describing: predicted)) \(after)")
        #expect(after.strong < 65535 / 2 + 1)
        // In place too.
        let (again, then) = try Self.compare(bench, #"{"id":6,"cmd":"rumble","device":0,"strong":0.3,"weak":1,"duration":5}"#, from: a)
        #expect(again != nil && again == then)
    }

    @Test func quietPolicyWritesNothingAhead() throws {
        var config = DaemonConfig()
        config.policy.mode = .quiet
        let bench = StateBench(config: config)
        let a = try bench.connect(nil)
        let (predicted, after) = try Self.compare(bench, from: a)
        #expect(predicted == nil && after == .zero)
    }

    @Test func notWhenSomethingIsDueOnThePadSoon() throws {
        let bench = StateBench()
        let a = try bench.connect(nil), b = try bench.connect(nil)
        // Another connection's player starts 5 ms from now: the pad's output would not be the
        // rumble's alone by the command's own pass.
        let created = try bench.ok(#"{"id":1,"cmd":"player.create","pattern":\#(StateBench.long)}"#, from: b)
        guard case .number(let id)? = created["player"] else { Issue.record("\(created)"); return }
        _ = try bench.ok(#"{"id":2,"cmd":"player.start","player":\#(Int(id)),"after":0.005}"#, from: b)
        #expect(Self.ahead(bench, Self.line, from: a) == nil)
        // Nor in place.
        let bench2 = StateBench()
        let d = try bench2.connect(nil), e = try bench2.connect(nil)
        _ = try bench2.ok(Self.line, from: d)
        let made = try bench2.ok(#"{"id":1,"cmd":"player.create","pattern":\#(StateBench.long)}"#, from: e)
        guard case .number(let id2)? = made["player"] else { Issue.record("\(made)"); return }
        _ = try bench2.ok(#"{"id":2,"cmd":"player.start","player":\#(Int(id2)),"after":0.005}"#, from: e)
        #expect(Self.ahead(bench2, #"{"id":6,"cmd":"rumble","strong":0.2,"weak":0.9,"duration":5}"#, from: d) == nil)
        // A rumble about to end is not changed in place ahead either.
        let bench3 = StateBench()
        let f = try bench3.connect(nil)
        _ = try bench3.ok(#"{"id":1,"cmd":"rumble","strong":0.5,"weak":0.5,"duration":0.015}"#, from: f)
        let (aheadOfIt, stillPlaying) = bench3.read { state, access in
            let ahead = state.rumbleAhead(RumbleLine.scan(#"{"id":2,"cmd":"rumble","strong":0.6,"weak":0.5,"duration":0.015}"#)!, from: f, access)
            // (Once it has ended — this thread held up 15 ms — the next is one from rest.)
            return (ahead, state.clients[f]?.rumble.flatMap { state.players[$0] } != nil)
        }
        if stillPlaying { #expect(aheadOfIt == nil) }
    }

    /// On the pad's trigger motors (`"locality":"triggers"`, the Xbox's hidraw profile): the output the
    /// command makes — in the trigger channels only — from rest and in place, once an earlier command
    /// made the locality's engine; not before, not while the handles play, not on a locality the pad
    /// lacks, not in place from another locality.
    @Test func onTheTriggersItIsTheOutputTheCommandMakes() throws {
        let bench = StateBench(profile: .xboxBluetoothTriggers)
        let a = try bench.connect(nil)
        let triggers = #"{"id":1,"cmd":"rumble","locality":"triggers","strong":0.7,"weak":0.4,"duration":5}"#
        // The pad has no engine for the triggers until a command makes it.
        #expect(Self.ahead(bench, triggers, from: a) == nil)
        _ = try bench.ok(triggers, from: a)
        _ = try bench.ok(#"{"id":2,"cmd":"rumble","locality":"triggers","strong":0,"weak":0}"#, from: a)
        #expect(Self.output(bench) == .zero)
        // From rest: once the stop has reached the pad (after the pad's interval).
        #expect(Self.waitForRest(bench))
        let (predicted, after) = try Self.compare(bench, triggers, from: a)
        #expect(predicted != nil && predicted == after, "\(String(describing: predicted)) \(after)")
        #expect(after.strong == 0 && after.weak == 0 && after.third > 0 && after.fourth > 0, "\(after)")
        // In place.
        let next = #"{"id":3,"cmd":"rumble","device":0,"locality":"triggers","strong":0.2,"weak":0.9,"duration":5}"#
        let (again, then) = try Self.compare(bench, next, from: a)
        #expect(again != nil && again == then, "\(String(describing: again)) \(then)")
        // Not in place from another locality (the command replaces the player), nor beside the handles.
        #expect(Self.ahead(bench, Self.line, from: a) == nil)
        let b = try bench.connect(nil)
        _ = try bench.ok(#"{"id":4,"cmd":"rumble","strong":0,"weak":0,"locality":"triggers"}"#, from: a)
        _ = try bench.ok(Self.line, from: b)
        #expect(Self.ahead(bench, triggers, from: a) == nil)
        // A generic pad has no triggers: the command is refused, nothing goes ahead.
        let generic = StateBench()
        let c = try generic.connect(nil)
        #expect(Self.ahead(generic, triggers, from: c) == nil)
        #expect((try? generic.send(triggers, from: c).get()) == nil)
    }

    /// In place only on the rumble's own locality: a connection whose rumble is on the triggers
    /// (paused: no engine plays it) sends one for the default locality, where another connection's
    /// rumble — the same number on its own engine — plays. The command replaces the first and makes
    /// a player beside the other's: not the other's output alone.
    @Test func notInPlaceFromAnotherLocality() throws {
        let bench = StateBench(profile: .xboxBluetoothTriggers)
        let a = try bench.connect(nil), b = try bench.connect(nil)
        let made = try bench.ok(#"{"id":1,"cmd":"rumble","locality":"triggers","strong":0.7,"weak":0.4,"duration":5}"#, from: a)
        guard case .number(let player)? = made["player"] else { Issue.record("\(made)"); return }
        _ = try bench.ok(#"{"id":2,"cmd":"player.pause","player":\#(Int(player))}"#, from: a)
        let other = try bench.ok(Self.line, from: b)
        guard case .number(let otherPlayer)? = other["player"] else { Issue.record("\(other)"); return }
        // The two players have the same number on their engines (what makes the locality matter).
        let sameLocal = bench.read { state, _ in state.players[Int(player)]?.local == state.players[Int(otherPlayer)]?.local }
        #expect(sameLocal)
        #expect(Self.ahead(bench, #"{"id":3,"cmd":"rumble","strong":0.2,"weak":0.9,"duration":5}"#, from: a) == nil)
    }

    @Test func notWhereAnotherLocalityPlays() throws {
        let bench = StateBench()
        let a = try bench.connect(nil), b = try bench.connect(nil)
        _ = try bench.ok(#"{"id":1,"cmd":"play","locality":"leftHandle","pattern":\#(StateBench.long)}"#, from: b)
        #expect(Self.ahead(bench, Self.line, from: a) == nil)
    }

    @Test func notPastAUsersPlayerLimit() throws {
        var config = DaemonConfig()
        config.limits.maxPlayersPerUID = 1
        let bench = StateBench(config: config)
        let peer = PeerCredentials(pid: 10, uid: 1000, gid: 1000)
        let a = try bench.connect(peer), b = try bench.connect(peer)
        _ = try bench.playLong(from: b)
        #expect(Self.ahead(bench, Self.line, from: a) == nil)
        #expect((try? bench.send(Self.line, from: a).get()) == nil)
    }

    @Test func notWhereAnotherPlayerPlaysOnThePad() throws {
        let bench = StateBench()
        let a = try bench.connect(nil), b = try bench.connect(nil)
        _ = try bench.ok(Self.line, from: b)  // another connection's rumble
        #expect(Self.ahead(bench, Self.line, from: a) == nil)
        let c = try bench.connect(nil)
        let d = try bench.connect(nil)
        _ = try bench.playLong(from: d)
        _ = try bench.ok(#"{"id":1,"cmd":"rumble","strong":0.5,"weak":0.5,"duration":5}"#, from: c)
        // c's rumble plays with b's and d's pattern: not alone, even in place.
        #expect(Self.ahead(bench, #"{"id":2,"cmd":"rumble","strong":0.6,"weak":0.5,"duration":5}"#, from: c) == nil)
    }

    @Test func notForWhatTheCommandRefusesOrDoesOtherwise() throws {
        var config = DaemonConfig()
        config.limits.maxPlayersPerClient = 1
        let bench = StateBench(config: config)
        let a = try bench.connect(nil)
        // Magnitudes out of range, a pad that is not there, a stop.
        for line in [#"{"id":1,"cmd":"rumble","strong":1.5,"weak":0.5,"duration":5}"#,
                     #"{"id":1,"cmd":"rumble","device":7,"strong":0.5,"weak":0.5,"duration":5}"#,
                     #"{"id":1,"cmd":"rumble","strong":0.5,"weak":0.5,"duration":0}"#,
                     #"{"id":1,"cmd":"rumble","strong":0,"weak":0}"#,
                     #"{"id":1,"cmd":"rumble","strong":0.5,"weak":0.5}"#] {
            #expect(Self.ahead(bench, line, from: a) == nil, "\(line)")
            if line.contains("\"strong\":0,") { continue }
            #expect((try? bench.send(line, from: a).get()) == nil, "\(line)")
        }
        // A connection at its player limit: the command is refused.
        _ = try bench.playLong(from: a)
        #expect(Self.ahead(bench, Self.line, from: a) == nil)
        #expect((try? bench.send(Self.line, from: a).get()) == nil)
    }

    @Test func notWhenTheEngineIsStoppedOrOff() throws {
        var config = DaemonConfig()
        config.writeAhead = false
        let off = StateBench(config: config)
        #expect(Self.ahead(off, Self.line, from: try off.connect(nil)) == nil)
        let bench = StateBench()
        let a = try bench.connect(nil)
        bench.read { _, access in access.engine(0)!.stop() }
        #expect(Self.ahead(bench, Self.line, from: a) == nil)
    }

    /// Through the daemon: the pad gets the same writes with and without it — one write of the
    /// rumble's value from rest, one of the next in place, one zero at the stop — the first two
    /// written ahead when it is on. On the Xbox's trigger motors too, once a first rumble there
    /// (and its stop) has made the locality's engine.
    @Test(arguments: [nil, "triggers"]) func thePadGetsTheSameWritesEitherWay(locality: String?) throws {
        var results: [[Pacer.Write]] = []
        let on = locality.map { #","locality":"\#($0)""# } ?? ""
        let first = locality == nil ? [] : [#"{"id":1,"cmd":"rumble","strong":0.9,"weak":0.1,"duration":5\#(on)}"#,
                                            #"{"id":2,"cmd":"rumble","strong":0,"weak":0\#(on)}"#]
        let lines = first + [#"{"id":5,"cmd":"rumble","strong":0.8,"weak":0.3,"duration":5\#(on)}"#,
                             #"{"id":6,"cmd":"rumble","strong":0.4,"weak":0.3,"duration":5\#(on)}"#,
                             #"{"id":7,"cmd":"rumble","strong":0,"weak":0\#(on)}"#]
        for ahead in [true, false] {
            var config = DaemonConfig()
            config.writeAhead = ahead
            let loop = RenderLoop()
            let core = DaemonCore(config: config, loop: loop, logger: Logger(label: "test"))
            defer { core.shutdown() }
            let sink = RecordingSink()
            core.addPad(info: SimulatedPad(index: 0).info, sink: sink, simulated: true,
                        profile: locality == nil ? nil : .xboxBluetoothTriggers)
            let client = try connect(core)
            for (k, line) in lines.enumerated() {
                // A game's next frame: once the pad may be written again (its pacer's interval).
                let wait = loop.perform(ticking: false) { access in access.pipeline(0)!.pacer.nextWriteTime(from: access.now) - access.now }
                if wait > 0 { usleep(UInt32(wait * 1e6) + 100) }
                let reply = core.handle(line: line, from: client)
                #expect(reply.contains("\"ok\":true"), "\(reply)")
                // Each value reaches the pad (at once, or after the pad's interval) before the next.
                #expect(sink.waitFor { $0.count == k + 1 }, "\(sink.writes)")
            }
            #expect(core.writesAhead == (ahead ? 2 : 0))
            results.append(sink.writes)
        }
        #expect(results[0] == results[1])
        #expect(results[0].count == lines.count, "\(results[0])")
        // On the triggers, the trigger channels alone.
        if locality != nil {
            #expect(results[0].allSatisfy { w in
                switch w { case .set(let m), .refresh(let m): m.strong == 0 && m.weak == 0 }
            }, "\(results[0])")
        }
    }

    /// A device that fails: the command reports it alike, written ahead or not.
    @Test func aFailingDeviceIsReportedByTheCommandEitherWay() throws {
        var replies: [String] = []
        for on in [true, false] {
            var config = DaemonConfig()
            config.writeAhead = on
            let core = DaemonCore(config: config, loop: RenderLoop(), logger: Logger(label: "test"))
            defer { core.shutdown() }
            let sink = RecordingSink()
            sink.failWith = DeviceError(kind: .system(.ioError), operation: .upload, path: "/dev/input/event9")
            core.addPad(info: SimulatedPad(index: 0).info, sink: sink, simulated: true)
            let client = try connect(core)
            replies.append(core.handle(line: Self.line, from: client))
            #expect(core.writesAhead == 0)
        }
        #expect(replies[0] == replies[1])
        #expect(replies[0].contains("\"ok\":false") && replies[0].contains("device_error"), "\(replies[0])")
    }

    /// Only a line alone in its turn.
    @Test func notInATurnOfSeveralLines() throws {
        let core = DaemonCore(config: DaemonConfig(), loop: RenderLoop(), logger: Logger(label: "test"))
        defer { core.shutdown() }
        core.addPad(info: SimulatedPad(index: 0).info, sink: RecordingSink(), simulated: true)
        let client = try connect(core)
        let replies = core.handle(lines: [Self.line, #"{"id":8,"cmd":"ping"}"#], from: client)
        #expect(replies.count == 2 && replies[0].contains("\"ok\":true"))
        #expect(core.writesAhead == 0)
    }
}
