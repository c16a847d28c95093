// Where a command's time goes, stage by stage, from the client's line to the pad's write and the
// reply (docs/benchmarks.md, "Where a command's time goes"; issue 26 §2).
import Glibc
import HapticClient
import HapticDaemon

struct StageTimes {
    var name: String
    /// The stages measured (`RequestPath.stages`, or `inProcessStages`).
    var stageList: [(label: String, end: RequestProbe.Stage?)]
    /// Per stage (in `RequestPath.stages` order), microseconds, one sample per command.
    var stages: [[Double]]
    /// Client send → the sink's write returned.
    var toWrite: [Double]
    /// Client send → the reply read by the client.
    var roundTrip: [Double]
    /// Minor page faults of the whole process per command (getrusage).
    var pageFaults = 0.0
}

func minorFaults() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return usage.ru_minflt
}

enum RequestPath {
    /// The stages, each from the previous mark to its own (`RequestProbe.Stage`); the first starts
    /// at the client's send, the last ends when the client has read the reply.
    static let stages: [(label: String, end: RequestProbe.Stage?)] = [
        ("socket → NIO channelRead", .read),
        ("LineFramer, turn", .framed),
        ("JSON parse + decode", .lockRequested),
        ("lock wait", .locked),
        ("dispatch + handler", .dispatched),
        ("render + mix + pace", .rendered),
        ("sink write", .written),
        ("re-arm timer", .rearmed),
        ("unlock", .unlocked),
        ("reply encode", .encoded),
        ("reply to NIO", .queued),
        ("flush → client has reply", nil),
    ]

    /// The stages of a line handed to `DaemonCore.handle` in this thread, without the socket: the
    /// CPU cost of parsing, decoding, running and answering, without NIO's wakeups.
    static let inProcessStages = Array(stages[2...8]) + [("reply encode", nil)]

    /// How a line reaches the daemon: through the socket, or straight into `DaemonCore.handle`.
    struct Sender {
        var stages: [(label: String, end: RequestProbe.Stage?)]
        var send: (String) throws -> String
    }

    static func socket(_ client: HapticClient) -> Sender { Sender(stages: stages, send: { try client.raw($0) }) }

    static func inProcess(_ core: DaemonCore, _ id: ClientID) -> Sender {
        Sender(stages: inProcessStages, send: { core.handle(line: $0, from: id) })
    }

    /// `iterations` of `command` (with `setUp` before each, outside the timing), each from silence:
    /// `setUp` stops the output, and 25 ms (two of the generic profile's pacer intervals and more)
    /// pass before the timed line.
    static func measure(_ name: String, _ sender: Sender, iterations: Int, setUp: () throws -> Void,
                        command: (Int) -> String) throws -> StageTimes {
        let stages = sender.stages
        var r = StageTimes(name: name, stageList: stages, stages: Array(repeating: [], count: stages.count), toWrite: [], roundTrip: [])
        for i in 0..<iterations {
            try setUp()
            usleep(25_000)
            let line = command(i)
            RequestProbe.reset()
            let faults0 = minorFaults()
            let t0 = RequestProbe.now()
            let reply = try sender.send(line)
            let t1 = RequestProbe.now()
            r.pageFaults += Double(minorFaults() - faults0) / Double(iterations)
            guard reply.contains(#""ok":true"#) else { fatalError("\(name) failed during the benchmark: \(reply)") }
            let marks = RequestProbe.snapshot()
            var previous = t0
            var complete = true
            var row: [Double] = []
            for (_, end) in stages {
                let t = end.map { marks[$0] ?? 0 } ?? t1
                if t == 0 || t < previous { complete = false; break }
                row.append(Double(t - previous) / 1e3)
                previous = t
            }
            guard complete else { continue }  // no write (the pacer held it): not this measurement
            for (k, v) in row.enumerated() { r.stages[k].append(v) }
            r.toWrite.append(Double(marks[.written]! - t0) / 1e3)
            r.roundTrip.append(Double(t1 - t0) / 1e3)
        }
        return r
    }

    /// `play`, a rumble from rest, changed in place and stopped, and `player.send_parameters`, back to back in-process, `iterations` times, no pauses (most plays are then
    /// held by the pacer: the parsing, decoding, dispatch and replies are what runs) — for a profiler
    /// (`perf record`, `valgrind --tool=callgrind`): `hapticbench --only pathprofile`.
    static func profile(_ core: DaemonCore, _ id: ClientID, iterations: Int, rumbleOnly: Bool = false) -> Double {
        let click = #"{"Pattern":[{"Event":{"EventType":"HapticContinuous","EventDuration":0.002}}]}"#
        let hum = #"{"Pattern":[{"Event":{"EventType":"HapticContinuous","Time":0,"EventDuration":1000}}]}"#
        let created = core.handle(line: #"{"id":10,"cmd":"player.create","pattern":\#(hum)}"#, from: id)
        guard let range = created.range(of: #""player":"#), let player = Int(created[range.upperBound...].prefix { $0.isNumber }) else {
            fatalError("player.create failed: \(created)")
        }
        _ = core.handle(line: #"{"id":11,"cmd":"player.start","player":\#(player)}"#, from: id)
        let t0 = RequestProbe.now()
        for i in 0..<iterations {
            if rumbleOnly {
                // A game's click: a rumble from rest to the pad, then its stop; the last of each alone
                // in `lastCommand` / `lastStop` (one command's footprint: `valgrind
                // --toggle-collect='*lastCommand*'`).
                let on = #"{"id":4,"cmd":"rumble","device":0,"strong":0.75,"weak":0.5,"duration":5}"#
                let reply = i == iterations - 1 ? lastCommand { core.handle(line: on, from: id) } : core.handle(line: on, from: id)
                let stop = #"{"id":6,"cmd":"rumble","device":0,"strong":0,"weak":0}"#
                let off = i == iterations - 1 ? lastStop { core.handle(line: stop, from: id) } : core.handle(line: stop, from: id)
                guard reply.contains(#""ok":true"#), off.contains(#""stopped":true"#) else { fatalError("rumble failed: \(reply) \(off)") }
                continue
            }
            _ = core.handle(line: #"{"id":2,"cmd":"play","pattern":\#(click)}"#, from: id)
            // A game's rumble: from rest, changed in place, stopped.
            _ = core.handle(line: #"{"id":4,"cmd":"rumble","strong":0.8,"weak":0.3,"duration":0.5}"#, from: id)
            _ = core.handle(line: #"{"id":5,"cmd":"rumble","strong":0.6,"weak":0.3,"duration":0.5}"#, from: id)
            _ = core.handle(line: #"{"id":6,"cmd":"rumble","strong":0,"weak":0}"#, from: id)
            _ = core.handle(line: #"{"id":12,"cmd":"player.send_parameters","player":\#(player),"parameters":{"intensity":\#(i % 2 == 0 ? 0.5 : 0.9)}}"#, from: id)
        }
        let perCommand = Double(RequestProbe.now() - t0) / 1e3 / Double((rumbleOnly ? 2 : 5) * iterations)
        _ = core.handle(line: #"{"id":13,"cmd":"player.destroy","player":\#(player)}"#, from: id)
        _ = core.handle(line: #"{"id":3,"cmd":"stop_all"}"#, from: id)
        return perCommand
    }

    /// The profile's last command alone, for `valgrind --toggle-collect` (one command's footprint).
    @inline(never) static func lastCommand(_ body: () -> String) -> String { body() }
    /// The profile's last stop (`rumble` 0/0) alone: `valgrind --toggle-collect='*lastStop*'`. (Its
    /// body differs from `lastCommand`'s, or the optimizer merges the two into one function.)
    @inline(never) static func lastStop(_ body: () -> String) -> String { String(body()) }

    static func run(_ sender: Sender, iterations: Int) throws -> [StageTimes] {
        RequestProbe.enabled = true
        defer { RequestProbe.enabled = false }
        var results: [StageTimes] = []
        func raw(_ line: String) throws -> String { try sender.send(line) }
        let click = #"{"Pattern":[{"Event":{"EventType":"HapticContinuous","EventDuration":0.002}}]}"#
        results.append(try measure("play", sender, iterations: iterations,
                                   setUp: { _ = try raw(#"{"id":3,"cmd":"stop_all"}"#) },
                                   command: { _ in #"{"id":2,"cmd":"play","pattern":\#(click)}"# }))
        results.append(try measure("rumble", sender, iterations: iterations,
                                   setUp: { _ = try raw(#"{"id":3,"cmd":"rumble","strong":0,"weak":0}"#) },
                                   command: { i in #"{"id":4,"cmd":"rumble","strong":\#(i % 2 == 0 ? 0.8 : 0.6),"weak":0.3,"duration":0.5}"# }))
        // A playing continuous player whose intensity each command changes (0.5 ↔ 0.9): every
        // command changes the output, and the pacer's interval has passed.
        let hum = #"{"Pattern":[{"Event":{"EventType":"HapticContinuous","Time":0,"EventDuration":1000,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1}]}}]}"#
        _ = try raw(#"{"id":3,"cmd":"stop_all"}"#)
        let created = try raw(#"{"id":10,"cmd":"player.create","pattern":\#(hum)}"#)
        guard let range = created.range(of: #""player":"#),
              let id = Int(created[range.upperBound...].prefix { $0.isNumber }) else {
            fatalError("player.create failed during the benchmark: \(created)")
        }
        _ = try raw(#"{"id":11,"cmd":"player.start","player":\#(id)}"#)
        results.append(try measure("player.send_parameters", sender, iterations: iterations, setUp: {},
                                   command: { i in #"{"id":12,"cmd":"player.send_parameters","player":\#(id),"parameters":{"intensity":\#(i % 2 == 0 ? 0.5 : 0.9)}}"# }))
        _ = try raw(#"{"id":13,"cmd":"player.destroy","player":\#(id)}"#)
        return results
    }
}
