import CoreHaptics
import Glibc
import HapticClient
import HapticDaemon

/// `player.start` → first pad write, through the Swift `CoreHaptics` library and through the raw
/// socket, on the same in-process daemon (issue 27's goal: the library within 0.1 ms of the socket).
/// Each start begins from silence: the other player is stopped and two pacer intervals pass first, as
/// in the socket's command → write figure; the two alternate, so both see the same load.
func compareSwiftLibrary(socketPath: String, client: HapticClient, iterations: Int,
                         lastWrite: @escaping () -> Double) throws -> (raw: [Double], library: [Double]) {
    let clock = MonotonicClock()
    let hum = #"{"Pattern":[{"Event":{"EventType":"HapticContinuous","Time":0,"EventDuration":10}}]}"#

    // The raw socket: one line out, one reply in.
    let created = try client.raw(#"{"id":10,"cmd":"player.create","pattern":\#(hum)}"#)
    guard let range = created.range(of: #""player":"#),
          let id = Int(created[range.upperBound...].prefix { $0.isNumber }) else {
        fatalError("player.create failed during the benchmark: \(created)")
    }
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
        var t0 = clock.now
        let reply = try client.raw(#"{"id":12,"cmd":"player.start","player":\#(id)}"#)
        guard reply.contains(#""ok":true"#) else { fatalError("player.start failed during the benchmark: \(reply)") }
        raw.append((lastWrite() - t0) * 1e6)
        _ = try client.raw(#"{"id":11,"cmd":"player.stop","player":\#(id)}"#)

        usleep(25_000)
        t0 = clock.now
        try player.start(atTime: CHHapticTimeImmediate)
        library.append((lastWrite() - t0) * 1e6)
        try player.stop(atTime: CHHapticTimeImmediate)
    }
    _ = try client.raw(#"{"id":13,"cmd":"player.destroy","player":\#(id)}"#)
    engine.stop()
    return (raw, library)
}
