import DaemonTestSupport
import Dispatch
import Foundation
@testable import HapticClient
import HapticCore
@testable import HapticDaemon
import HapticProtocol
import Logging
import Synchronization
import Testing

/// A pattern too long for one request line, sent in pieces (`pattern.upload`) and played from there:
/// song-length exports (1.4–2.2 MB) that `limits.max_line_bytes` (1 MiB) kept from the socket.
@Suite(.serialized) struct PatternUploadTests {
    /// `count` transients 10 ms apart, as AHAP: some 170 bytes of compact JSON each.
    static func transients(_ count: Int) -> JSONValue {
        var events: [JSONValue] = []
        for i in 0..<count {
            let parameters: [JSONValue] = [
                .object(JSONObject(["ParameterID": .string("HapticIntensity"), "ParameterValue": .number(0.5 + Double(i % 5) / 10)])),
                .object(JSONObject(["ParameterID": .string("HapticSharpness"), "ParameterValue": .number(0.3)])),
            ]
            events.append(.object(JSONObject(["Event": .object(JSONObject([
                "Time": .number(Double(i) * 0.01), "EventType": .string("HapticTransient"), "EventParameters": .array(parameters),
            ]))])))
        }
        return .object(JSONObject(["Version": .number(1), "Pattern": .array(events)]))
    }

    static func text(_ json: JSONValue) -> String { JSONWriter.write(json) }

    @Test func aPatternOverTheLineLimitPlaysThroughTheClient() throws {
        let recording = FileManager.default.temporaryDirectory.appendingPathComponent("uploads-\(UUID().uuidString.prefix(8)).tsv").path
        let daemon = try DaemonProcess(environment: ["HAPTICD_RECORD_REQUESTS": recording])
        func recordedRequests() throws -> [String] {
            try String(contentsOfFile: recording, encoding: .utf8).split(separator: "\n").map { String($0.split(separator: "\t", maxSplits: 1).last ?? "") }
        }
        let c = try daemon.client()
        let big = Self.transients(7_000)
        #expect(Self.text(big).utf8.count > 1 << 20, "longer than the daemon's line limit")
        let played = try c.request("play", JSONObject(["pattern": big, "device": .number(0)]))
        #expect(played["state"] == .string("playing"))
        #expect(abs((number(played, "duration") ?? 0) - 69.99) < 0.001, "every event arrived: \(played)")
        let made = try c.request("player.create", JSONObject(["pattern": big, "advanced": .bool(false)]))
        #expect(abs((number(made, "duration") ?? 0) - 69.99) < 0.001, "\(made)")
        #expect(made["advanced"] == .bool(false), "the request's other members go with the upload")
        // It went in pieces of at most 64 KiB of text, each a line well under the limit.
        let lines = try recordedRequests()
        let pieces = lines.filter { $0.contains(#""cmd":"pattern.upload""#) }
        #expect(pieces.count >= 2 * (Self.text(big).utf8.count / HapticClient.uploadPieceBytes), "\(pieces.count) pieces")
        #expect(pieces.allSatisfy { $0.utf8.count < 200 << 10 })
        #expect(lines.filter { $0.contains(#""cmd":"play""#) }.allSatisfy { $0.contains(#""upload":"#) && !$0.contains(#""pattern":"#) })
        // A short pattern still goes inline.
        let small = try c.request("play", JSONObject(["pattern": Self.transients(3)]))
        #expect(small["state"] == .string("playing"))
        #expect(try recordedRequests().last { $0.contains(#""cmd":"play""#) }?.contains(#""pattern":{"#) == true)
        #expect(daemon.terminate() == 0)
    }

    @Test func piecesAreKeptUntilAPlayTakesThem() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        let text = Self.text(Self.transients(40))
        let cut = text.utf8.count / 3
        let a = String(decoding: Array(text.utf8)[..<cut], as: UTF8.self), b = String(decoding: Array(text.utf8)[cut...], as: UTF8.self)
        let first = try c.request("pattern.upload", JSONObject(["upload": .number(9), "text": .string(a)]))
        #expect(first["upload"] == .number(9) && number(first, "bytes") == Double(cut))
        let second = try c.request("pattern.upload", JSONObject(["upload": .number(9), "text": .string(b)]))
        #expect(number(second, "bytes") == Double(text.utf8.count))
        // Another connection has no upload 9.
        let other = try daemon.client()
        #expect(code(other, "play", JSONObject(["upload": .number(9)])) == "not_found")
        let played = try c.request("player.create", JSONObject(["upload": .number(9), "curve_times": .string("relative")]))
        #expect(abs((number(played, "duration") ?? 0) - 0.39) < 1e-9, "\(played)")
        // Taken: a second play of it finds nothing.
        #expect(code(c, "play", JSONObject(["upload": .number(9)])) == "not_found")
        // One source at a time; a pattern that is not valid is invalid_pattern, with its paths.
        _ = try c.request("pattern.upload", JSONObject(["upload": .number(1), "text": .string(text)]))
        #expect(code(c, "play", JSONObject(["upload": .number(1), "name": .string("click")])) == "bad_request")
        #expect(code(c, "play", JSONObject(["upload": .number(1)])) == "not_found", "taken by the request that named it, refused or not")
        _ = try c.request("pattern.upload", JSONObject(["upload": .number(2), "text": .string(#"{"Pattern":[{"Event":{"EventType":"Buzz"}}]}"#)]))
        do {
            _ = try c.request("play", JSONObject(["upload": .number(2)]))
            Issue.record("an invalid uploaded pattern was played")
        } catch {
            guard case .failed(let code, _, let details) = error else { Issue.record("\(error)"); return }
            #expect(code == "invalid_pattern" && details.first?.contains("Pattern[0].Event.EventType") == true, "\(details)")
        }
        _ = try c.request("pattern.upload", JSONObject(["upload": .number(3), "text": .string("{nope")]))
        #expect(code(c, "play", JSONObject(["upload": .number(3)])) == "invalid_pattern")
        #expect(code(c, "pattern.upload", JSONObject(["upload": .number(4)])) == "bad_request", "text is required")
        #expect(code(c, "pattern.upload", JSONObject(["upload": .string("x"), "text": .string("{")])) == "bad_request")
        #expect(daemon.terminate() == 0)
    }

    @Test func whatAConnectionHoldsIsBounded() throws {
        let daemon = try DaemonProcess(config: "[limits]\nmax_upload_bytes = 2048\nmax_uploads = 2\n")
        let c = try daemon.client()
        let piece = String(repeating: " ", count: 1500)
        _ = try c.request("pattern.upload", JSONObject(["upload": .number(1), "text": .string(piece)]))
        do {
            _ = try c.request("pattern.upload", JSONObject(["upload": .number(1), "text": .string(piece)]))
            Issue.record("a connection held more than limits.max_upload_bytes")
        } catch {
            guard case .failed(let code, let message, _) = error else { Issue.record("\(error)"); return }
            #expect(code == "limit_exceeded" && message.contains("limits.max_upload_bytes"), "\(message)")
        }
        // Over the bound, that upload is failed: its text is freed, and the rest of a document
        // sent after it (here a whole pattern) must not play as if it were the whole.
        #expect(code(c, "pattern.upload", JSONObject(["upload": .number(1), "text": .string(Self.text(Self.transients(2)))])) == "limit_exceeded")
        #expect(code(c, "play", JSONObject(["upload": .number(1)])) == "limit_exceeded")
        // Taken with its error: the number and the room are free again.
        #expect(code(c, "play", JSONObject(["upload": .number(1)])) == "not_found")
        _ = try c.request("pattern.upload", JSONObject(["upload": .number(1), "text": .string(piece)]))
        _ = try c.request("pattern.upload", JSONObject(["upload": .number(2), "text": .string("{")]))
        do {
            _ = try c.request("pattern.upload", JSONObject(["upload": .number(3), "text": .string("{")]))
            Issue.record("a connection held more than limits.max_uploads")
        } catch {
            guard case .failed(let code, let message, _) = error else { Issue.record("\(error)"); return }
            #expect(code == "limit_exceeded" && message.contains("limits.max_uploads"), "\(message)")
        }
        // A pattern that does not fit fails with the piece's error, and the connection goes on.
        do {
            _ = try c.request("play", JSONObject(["pattern": Self.transients(3_000)]))
            Issue.record("a pattern over limits.max_upload_bytes was played")
        } catch {
            guard case .failed(let code, let message, _) = error else { Issue.record("\(error)"); return }
            #expect(code == "limit_exceeded", "\(message)")
        }
        #expect(try c.request("ping")["pong"] == .bool(true))
        // Another connection has its own room.
        let other = try daemon.client()
        #expect(code(other, "pattern.upload", JSONObject(["upload": .number(1), "text": .string(piece)])) == "ok")
        #expect(daemon.terminate() == 0)
    }

    /// A long pattern is parsed off the socket thread: with one socket thread for every connection,
    /// another connection's pings are answered while a 4 MiB upload is parsed for its `play`
    /// (debug build: over a second; the pings, milliseconds). Before, they waited for it.
    @Test func otherConnectionsAreAnsweredWhileALongPatternIsParsed() throws {
        let daemon = try DaemonProcess(config: "[socket]\nthreads = 1\n")
        let c = try daemon.client(), other = try daemon.client()
        _ = try other.request("ping")
        let big = Self.transients(20_000)
        let outcome = Mutex<Bool?>(nil)
        let answered = DispatchSemaphore(value: 0)
        try c.send("player.create", JSONObject(["pattern": big]), timeout: 60) { result in
            outcome.withLock { o in if case .success = result { o = true } else { o = false } }
            answered.signal()
        }
        // Each ping waits for its reply; the create's reply has not come by the third.
        for _ in 0..<3 { _ = try other.request("ping") }
        #expect(outcome.withLock { $0 } == nil, "the other connection was answered while the pattern was parsed")
        #expect(answered.wait(timeout: .now() + 60) == .success && outcome.withLock { $0 } == true, "and the pattern was made into a player")
        #expect(daemon.terminate() == 0)
    }

    /// A connection that closes while its long pattern is parsed off the socket thread: the daemon
    /// forgets it only after that turn (its looping player is made, then stopped with the
    /// connection), and goes on answering.
    @Test func aConnectionClosedWhileItsPatternIsParsedLeavesNothingPlaying() throws {
        let daemon = try DaemonProcess(config: "[socket]\nthreads = 1\n")
        let c = try daemon.client()
        try c.send("play", JSONObject(["pattern": Self.transients(8_000), "loop": .bool(true), "device": .number(0)]), timeout: 60) { _ in }
        c.close()
        #expect(daemon.waitForTrace(timeout: 30) { rows in
            guard let on = rows.firstIndex(where: { $0.1 == 0 && $0.2 > 0 }) else { return false }
            return rows[on...].last { $0.1 == 0 }.map { $0.2 == 0 && $0.3 == 0 } == true
        }, "it played, and stopped with its connection: \(daemon.traceRows().suffix(4))")
        #expect(try daemon.client().request("ping")["pong"] == .bool(true))
        #expect(daemon.terminate() == 0)
    }

    @Test func aClosedConnectionsUploadsAreFreed() throws {
        let core = DaemonCore(config: DaemonConfig(), loop: RenderLoop(), logger: Logger(label: "test"))
        let client = try connect(core)
        let reply = core.handle(line: #"{"id":1,"cmd":"pattern.upload","upload":5,"text":"{\"Pattern\":[]"}"#, from: client)
        #expect(reply.contains(#""bytes":13"#), "\(reply)")
        #expect(core.state.uploads.bytes(of: client) == 13)
        core.disconnect(client)
        #expect(core.state.uploads.bytes(of: client) == 0)
    }

    @Test func piecesAreCutBetweenCharacters() {
        let text = Array("é€😀a".utf8) + Array(repeating: UInt8(ascii: "x"), count: 3)
        for size in 1...8 {
            let pieces = ClientConnection.pieces(of: text, at: size)
            #expect(pieces.joined() == String(decoding: text, as: UTF8.self), "size \(size)")
            #expect(pieces.allSatisfy { !$0.isEmpty && ($0.utf8.count <= size || $0.unicodeScalars.count == 1) }, "size \(size): \(pieces)")
        }
    }
}
