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
}
