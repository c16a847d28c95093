import DaemonTestSupport
import Foundation
import HapticClient
import HapticCore
import Testing

/// What the fuzzers (Fuzzing/) and the soak test (scripts/soak.py) found to break hapticd, end to end
/// against the real `hapticd --simulate` over its socket (docs/robustness.md). The fuzzers' inputs are
/// also kept in Fuzzing/regressions/ and replayed by every fuzzing run.
@Suite(.serialized) struct RobustnessFindingsTests {
    /// `play` of a pattern with nothing in it: the one-shot ended while it was being started, and the
    /// reply then unwrapped the player record the end had removed — one line killed the daemon.
    @Test func playingAnEmptyPatternIsAnsweredAndTheDaemonLives() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        let empty = JSONValue.object(JSONObject(["Pattern": .array([])]))
        for _ in 0..<3 {
            let r = try c.request("play", JSONObject(["pattern": empty]))
            #expect(r["state"] == .string("finished"), "\(r)")
            #expect(r["player"] != nil && r["device"] != nil, "\(r)")
        }
        // A continuous event with no duration is nothing to play either (the fuzzer's own input).
        let noDuration = try JSONParser.parse(#"{"Pattern":[{"Event":{"EventType":"HapticContinuous","EventDurgtion":0.05}}]}"#)
        #expect(code(c, "play", JSONObject(["pattern": noDuration])) == "ok")
        // Made with player.create and started, the same pattern is an ordinary player that finished.
        let p = try c.request("player.create", JSONObject(["pattern": empty]))["player"]!
        #expect(code(c, "player.start", JSONObject(["player": p])) == "ok")
        #expect(code(c, "player.destroy", JSONObject(["player": p])) == "ok")
        #expect(try c.request("ping")["pong"] == .bool(true))
        #expect(daemon.process.isRunning)
        #expect(daemon.terminate() == 0)
    }

    /// Events are written under the render loop's lock, which a request takes on its connection's
    /// own event loop thread. Written in place, an event to a subscriber that had just gone away would
    /// fail, close that channel at once, and its `channelInactive` would ask for the disconnect from
    /// inside the loop, whose lock it already holds. Subscribers come and go here while a client
    /// changes what plays (every change writes the pad and sends `device.output`): the daemon lives.
    @Test func subscribersVanishingWhileEventsAreWrittenDoNotKillTheDaemon() throws {
        let daemon = try DaemonProcess(["--simulate", "1"], config: "[limits]\nmax_clients = 200\nmax_clients_per_uid = 200\n")
        let c = try daemon.client()
        let p = try c.request("play", JSONObject(["name": .string("rumble-long"), "loop": .bool(true)]))["player"]!
        let end = Date().addingTimeInterval(8)
        let socket = daemon.socket
        let subscribers = Thread {
            DispatchQueue.concurrentPerform(iterations: 16) { _ in
                let subscribe = Array("{\"id\":1,\"cmd\":\"subscribe\",\"events\":[\"device.output\"]}\n".utf8)
                while Date() < end {
                    guard let s = try? RawSocket(socket) else { continue }
                    _ = s.send(subscribe)
                    usleep(UInt32.random(in: 0...20_000))
                }  // each RawSocket closes as the next replaces it
            }
        }
        subscribers.start()
        var changes = 0
        while Date() < end && daemon.process.isRunning {
            guard (try? c.request("player.send_parameters", JSONObject([
                "player": p, "parameters": .object(JSONObject(["intensity": .number(Double.random(in: 0.1...1))])),
            ]))) != nil else { break }
            changes += 1
        }
        while !subscribers.isFinished { usleep(10_000) }  // it ends at `end`
        #expect(daemon.process.isRunning, "hapticd died after \(changes) changes: \(daemon.logText.suffix(1500))")
        #expect(changes > 100)
        #expect(try c.request("ping")["pong"] == .bool(true))
        #expect(daemon.terminate() == 0)
    }
}
