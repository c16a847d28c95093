import CoreHaptics
import Glibc
import HapticClient
import HapticDaemon

struct LibraryComparison {
    /// `player.start` → first write, µs.
    var raw: [Double] = [], library: [Double] = []
    /// Start, then the intensity control at once, through the library: how many first writes had it,
    /// and how long after the start's write the pad had it (µs).
    var withParameters = 0, starts = 0, correctedAfter: [Double] = []
    /// The same two lines in one write on the raw socket.
    var pipelined = 0, pipelinedStarts = 0, pipelinedAfter: [Double] = []
}

/// `player.start` → first pad write, through the Swift `CoreHaptics` library and through the raw
/// socket, on the same in-process daemon (issue 27's goal: the library within 0.1 ms of the socket).
/// Each start begins from silence: the other player is stopped and two pacer intervals pass first, as
/// in the socket's command → write figure; the two alternate, so both see the same load. Then, as
/// often, a library player started and sent an intensity control at once (MeloNX, pleaco, Apple's
/// Unity sample): how many of those starts' first writes had it (`withParameters` of `starts`; the
/// library's start waits for its answer, which hapticd sends after the write), and how long after
/// the start's write the pad had it (`correctedAfter`, µs: the onset's correction, `Pacer`) — and the
/// same for the two requests written at once on the raw socket.
func compareSwiftLibrary(socketPath: String, client: HapticClient, iterations: Int,
                         writes: WriteClock) throws -> LibraryComparison {
    let clock = MonotonicClock()
    let hum = #"{"Pattern":[{"Event":{"EventType":"HapticContinuous","Time":0,"EventDuration":10}}]}"#

    // A raw-socket player of `pattern`: its id.
    func create(_ pattern: String) throws -> Int {
        let reply = try client.raw(#"{"id":14,"cmd":"player.create","pattern":\#(pattern)}"#)
        guard let id = Int(reply.split(separator: "\"player\":").last?.prefix { $0.isNumber } ?? "") else {
            fatalError("player.create failed during the benchmark: \(reply)")
        }
        return id
    }

    // The raw socket: one line out, one reply in.
    let id = try create(hum)
    // The library, as an app calls it.
    setenv("HAPTICD_SOCKET", socketPath, 1)
    let engine = try CHHapticEngine()
    try engine.start()
    let event = CHHapticEvent(eventType: .hapticContinuous, parameters: [], relativeTime: 0, duration: 10)
    let player = try engine.makePlayer(with: CHHapticPattern(events: [event], parameters: []))

    // Alternately, so that both see the same machine.
    var raw: [Double] = []
    var library: [Double] = []
    for _ in 0..<iterations {
        usleep(25_000)
        var n = writes.count
        var t0 = clock.now
        let reply = try client.raw(#"{"id":12,"cmd":"player.start","player":\#(id)}"#)
        guard reply.contains(#""ok":true"#) else { fatalError("player.start failed during the benchmark: \(reply)") }
        if let w = writes.write(after: n) { raw.append((w.time - t0) * 1e6) }
        _ = try client.raw(#"{"id":11,"cmd":"player.stop","player":\#(id)}"#)

        usleep(25_000)
        n = writes.count
        t0 = clock.now
        try player.start(atTime: CHHapticTimeImmediate)
        if let w = writes.write(after: n) { library.append((w.time - t0) * 1e6) }
        try player.stop(atTime: CHHapticTimeImmediate)
    }

    // The same two written at once on the raw socket (a pipelining client), each to a new player
    // (a player keeps the parameters it was sent).
    let refID = try create(#"{"Pattern":[{"Event":{"EventType":"HapticContinuous","Time":0,"EventDuration":10,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":0.3}]}}]}"#)
    usleep(25_000)
    var m = writes.count
    _ = try client.raw(#"{"id":16,"cmd":"player.start","player":\#(refID)}"#)
    guard let rawLevel = writes.write(after: m)?.value else { fatalError("no write for the reference pattern") }
    _ = try client.raw(#"{"id":17,"cmd":"player.destroy","player":\#(refID)}"#)
    var pipelined = 0, pipelinedStarts = 0
    var pipelinedAfter: [Double] = []
    for _ in 0..<iterations {
        let fullID = try create(hum)
        usleep(25_000)
        m = writes.count
        _ = try client.raw(#"{"id":18,"cmd":"player.start","player":\#(fullID)}"# + "\n" + #"{"id":19,"cmd":"player.send_parameters","player":\#(fullID),"parameters":{"intensity":0.3}}"#)
        _ = try client.nextLine(timeout: 5)
        if let w = writes.write(after: m) {
            pipelinedStarts += 1
            if w.value == rawLevel { pipelined += 1 }
            if let c = writes.write(after: m, matching: { $0 == rawLevel }) { pipelinedAfter.append((c.time - w.time) * 1e6) }
        }
        _ = try client.raw(#"{"id":20,"cmd":"player.destroy","player":\#(fullID)}"#)
    }
    _ = try client.raw(#"{"id":13,"cmd":"player.destroy","player":\#(id)}"#)

    // Start, then the intensity at once: is the first write the level of a pattern at 0.3?
    let quiet = CHHapticEventParameter(parameterID: .hapticIntensity, value: 0.3)
    let reference = try engine.makePlayer(with: CHHapticPattern(events: [CHHapticEvent(eventType: .hapticContinuous, parameters: [quiet], relativeTime: 0, duration: 10)], parameters: []))
    usleep(25_000)
    var n = writes.count
    try reference.start(atTime: CHHapticTimeImmediate)
    guard let level = writes.write(after: n)?.value else { fatalError("no write for the reference pattern") }
    try reference.stop(atTime: CHHapticTimeImmediate)
    let control = CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.3, relativeTime: 0)
    var withParameters = 0, starts = 0
    var correctedAfter: [Double] = []
    for _ in 0..<iterations {
        let fresh = try engine.makePlayer(with: CHHapticPattern(events: [event], parameters: []))
        usleep(25_000)
        n = writes.count
        try fresh.start(atTime: CHHapticTimeImmediate)
        try fresh.sendParameters([control], atTime: CHHapticTimeImmediate)
        if let w = writes.write(after: n) {
            starts += 1
            if w.value == level { withParameters += 1 }
            if let c = writes.write(after: n, matching: { $0 == level }) { correctedAfter.append((c.time - w.time) * 1e6) }
        }
        try fresh.stop(atTime: CHHapticTimeImmediate)
    }
    engine.stop()
    return LibraryComparison(
        raw: raw, library: library, withParameters: withParameters, starts: starts, correctedAfter: correctedAfter,
        pipelined: pipelined, pipelinedStarts: pipelinedStarts, pipelinedAfter: pipelinedAfter)
}
