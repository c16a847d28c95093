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

    /// A connection that closes while its long pattern is parsed off the socket thread: its `play`
    /// still runs, as any line read before a close (a looping one then stops with the connection,
    /// which the daemon forgets only after that turn), and the daemon goes on answering.
    @Test func aConnectionClosedWhileItsPatternIsParsedLeavesNothingPlaying() throws {
        let daemon = try DaemonProcess(config: "[socket]\nthreads = 1\n")
        let raw = try RawSocket(daemon.socket)
        let pieces = Self.pieceLines(Self.text(Self.transients(8_000)))
        _ = Self.readUntil(raw, #""id":\#(pieces.count),"ok":true"#, Self.sendAll(raw, pieces.joined()))
        _ = Self.sendAll(raw, #"{"id":999,"cmd":"play","upload":1,"loop":true,"device":0}"# + "\n")
        shutdown(raw.fd, Int32(SHUT_RDWR))
        #expect(daemon.waitForTrace(timeout: 30) { rows in
            guard let on = rows.firstIndex(where: { $0.1 == 0 && $0.2 > 0 }) else { return false }
            return rows[on...].last { $0.1 == 0 }.map { $0.2 == 0 && $0.3 == 0 } == true
        }, "it played, and stopped with its connection: \(daemon.traceRows().suffix(4))")
        #expect(try daemon.client().request("ping")["pong"] == .bool(true))
        #expect(daemon.terminate() == 0)
    }

    /// The lines of a raw upload of `text` as upload 1, in 64 KiB pieces, ids 1…n.
    static func pieceLines(_ text: String) -> [String] {
        ClientConnection.pieces(of: Array(text.utf8), at: HapticClient.uploadPieceBytes).enumerated().map { i, piece in
            #"{"id":\#(i + 1),"cmd":"pattern.upload","upload":1,"text":"# + JSONWriter.write(.string(piece)) + "}\n"
        }
    }

    /// Sends everything on a raw connection, reading what comes meanwhile; returns what was read.
    static func sendAll(_ raw: RawSocket, _ text: String) -> String {
        var bytes = Array(text.utf8)[...]
        var read: [UInt8] = []
        while !bytes.isEmpty {
            let n = raw.send(Array(bytes.prefix(1 << 16)))
            if n < 0 { break }
            bytes = bytes.dropFirst(n)
            if n == 0 { read += raw.receive(timeout: 0.05) ?? [] }
        }
        return String(decoding: read, as: UTF8.self)
    }

    /// Reads until a line holds `marker` (or 60 s); returns all that was read.
    static func readUntil(_ raw: RawSocket, _ marker: String, _ already: String = "") -> String {
        var text = already
        let deadline = Date().addingTimeInterval(60)
        while !text.contains(marker), Date() < deadline {
            guard let more = raw.receive(timeout: 1) else { break }
            text += String(decoding: more, as: UTF8.self)
        }
        return text
    }

    /// A `play` of an upload is parsed off the socket thread however it arrives: its member's name
    /// spelt with an escape (`\u0075pload`), and as the last line of a connection that shut its
    /// writing side without a newline (both were parsed on the socket thread, holding up another
    /// connection's pings for seconds).
    @Test func aPlayOfAnUploadIsParsedOffTheSocketThreadHoweverItComes() throws {
        let daemon = try DaemonProcess(config: "[socket]\nthreads = 1\n")
        let other = try daemon.client()
        let raw = try RawSocket(daemon.socket)
        let pieces = Self.pieceLines(Self.text(Self.transients(20_000)))
        _ = Self.readUntil(raw, #""id":\#(pieces.count),"ok":true"#, Self.sendAll(raw, pieces.joined()))
        _ = Self.sendAll(raw, #"{"id":999,"cmd":"play","\u0075pload":1,"device":0}"#)
        shutdown(raw.fd, Int32(SHUT_WR))
        for _ in 0..<3 { _ = try other.request("ping") }
        let early = String(decoding: raw.receive(timeout: 0) ?? [], as: UTF8.self)
        #expect(!early.contains(#""id":999"#), "another connection was answered while the pattern was parsed")
        let all = Self.readUntil(raw, #""id":999"#, early)
        #expect(all.contains(#"{"id":999,"ok":true"#), "\(all.suffix(300))")
        #expect(daemon.terminate() == 0)
    }

    /// The events a command causes follow its reply when its pattern was parsed off the socket
    /// thread too, as for any command (a `player.finished` before the reply that names the player
    /// was lost on the Core Haptics library's side).
    @Test func eventsFollowTheReplyOfAPlayOfAnUpload() throws {
        let daemon = try DaemonProcess()
        let raw = try RawSocket(daemon.socket)
        var text = Self.sendAll(raw, #"{"id":1000,"cmd":"subscribe","events":["device.output","player.finished"]}"# + "\n")
        text = Self.readUntil(raw, #""id":1000"#, text)
        let pieces = Self.pieceLines(Self.text(Self.transients(3_000)))
        text = Self.readUntil(raw, #""id":\#(pieces.count),"ok":true"#, Self.sendAll(raw, pieces.joined()))
        text = Self.readUntil(raw, #""id":999"#, Self.sendAll(raw, #"{"id":999,"cmd":"play","upload":1,"device":0}"# + "\n"))
        let lines = text.split(separator: "\n")
        let reply = lines.firstIndex { $0.hasPrefix(#"{"id":999,"ok":true"#) }
        let event = lines.firstIndex { $0.contains(#""event":"device.output""#) }
        #expect(reply != nil, "\(text.suffix(300))")
        if let reply, let event { #expect(reply < event, "the reply first: \(lines[min(reply, event)...].prefix(3))") }
        #expect(daemon.terminate() == 0)
    }

    /// SIGTERM while a pattern is parsed off the socket thread: the daemon waits for the parse,
    /// stops cleanly, and hands no result to an event loop that has gone (which NIO's strict mode
    /// makes a crash).
    @Test func stoppingWhileAPatternIsParsedIsClean() throws {
        let daemon = try DaemonProcess(environment: ["SWIFTNIO_STRICT": "1"])
        let c = try daemon.client()
        try c.send("player.create", JSONObject(["pattern": Self.transients(20_000)]), timeout: 60) { _ in }
        #expect(daemon.terminate() == 0)
        #expect(!daemon.logText.contains("Cannot schedule"), "\(daemon.logText.suffix(500))")
    }

    /// A long pattern's pieces each go under the client's write lock on their own: another thread's
    /// request on the same connection (a CoreHaptics engine shares one) goes out between two pieces
    /// — here it must be answered while the upload is held after its first piece, or the wait fails.
    @Test func anotherThreadsRequestGoesBetweenPieces() throws {
        let recording = FileManager.default.temporaryDirectory.appendingPathComponent("between-\(UUID().uuidString.prefix(8)).tsv").path
        let daemon = try DaemonProcess(environment: ["HAPTICD_RECORD_REQUESTS": recording])
        let c = try daemon.client()
        let answered = Mutex<[Int]>([])
        c.connection.afterEachPiece { n in
            guard n == 0 else { return }
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                if (try? c.request("ping", timeout: 5))?["pong"] == .bool(true) { done.signal() }
            }
            // Answered while this upload waits here, or not at all.
            if done.wait(timeout: .now() + 10) == .success { answered.withLock { $0.append(n) } }
        }
        let big = Self.transients(7_000)
        let played = try c.request("play", JSONObject(["pattern": big]))
        #expect(played["state"] == .string("playing"))
        #expect(answered.withLock { $0 } == [0], "the other thread's request was answered during the upload")
        let lines = try String(contentsOfFile: recording, encoding: .utf8).split(separator: "\n")
        let commands = lines.map { $0.contains(#""cmd":"ping""#) ? "ping" : $0.contains(#""cmd":"pattern.upload""#) ? "piece" : "other" }
        #expect(Array(commands.prefix(3)) == ["piece", "ping", "piece"], "\(commands)")
        #expect(daemon.terminate() == 0)
    }

    /// Once a piece has been refused, the rest of the pattern is not sent; the request still names
    /// the upload, so that the daemon frees it, and fails with the piece's error.
    @Test func piecesStopAfterARefusedOne() throws {
        let recording = FileManager.default.temporaryDirectory.appendingPathComponent("refused-\(UUID().uuidString.prefix(8)).tsv").path
        let daemon = try DaemonProcess(config: "[limits]\nmax_upload_bytes = 150000\nmax_uploads = 1\n", environment: ["HAPTICD_RECORD_REQUESTS": recording])
        let c = try daemon.client()
        // Each piece's reply read before the next piece is decided on: a request after it, answered
        // (replies come in order, and the client hears them in order).
        c.connection.afterEachPiece { _ in _ = try? c.request("ping", timeout: 5) }
        let big = Self.transients(7_000)  // some 19 pieces; the third goes over 150 000 bytes
        do {
            _ = try c.request("play", JSONObject(["pattern": big]))
            Issue.record("a pattern over limits.max_upload_bytes was played")
        } catch {
            guard case .failed(let code, let message, _) = error else { Issue.record("\(error)"); return }
            #expect(code == "limit_exceeded" && message.contains("limits.max_upload_bytes"), "\(message)")
        }
        let lines = try String(contentsOfFile: recording, encoding: .utf8).split(separator: "\n")
        let pieces = lines.filter { $0.contains(#""cmd":"pattern.upload""#) }
        #expect(pieces.count == 3, "\(pieces.count) pieces sent")
        #expect(lines.last { $0.contains(#""cmd":"play""#) }?.contains("limit_exceeded") == true, "the play took the failed upload")
        #expect(c.connection.heldPlaces == 0, "the skipped pieces' places are free again")
        // Freed: the connection's one upload can hold a pattern again.
        c.connection.afterEachPiece(nil)
        let fits = Self.transients(800)  // over the inline bound, under 150 000 bytes
        #expect(Self.text(fits).utf8.count > HapticClient.inlinePatternBytes / 2)
        _ = try c.request("pattern.upload", JSONObject(["upload": .number(1), "text": .string(Self.text(fits))]))
        #expect(abs((number(try c.request("player.create", JSONObject(["upload": .number(1)])), "duration") ?? 0) - 7.99) < 1e-6)
        #expect(daemon.terminate() == 0)
    }

    /// A write that cannot finish in time (a piece, or a request's own line) ends the connection;
    /// every request queued is answered once, from the reader thread, and may send again there (it
    /// is refused: the connection is over). They ran on the writing thread, under the write lock
    /// that sending again needs: a deadlock.
    @Test func aWriteThatCannotFinishIsAnsweredWhereSendingAgainIsSafe() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("silent-\(UUID().uuidString.prefix(8)).sock").path
        let listener = try silentSocket(path, backlog: 8)
        defer { close(listener); unlink(path) }
        let c = try HapticClient(path: path)
        let outcomes = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            do {
                try c.send("play", JSONObject(["pattern": Self.transients(7_000)]), timeout: 0.5) { result in
                    var again = "sent"
                    do { try c.send("ping", timeout: 0.5) { _ in } } catch { again = "refused: \(error)" }
                    outcomes.withLock { $0.append("\(result) / \(again)") }
                    done.signal()
                }
            } catch {
                outcomes.withLock { $0.append("thrown: \(error)") }
                done.signal()
            }
        }
        #expect(done.wait(timeout: .now() + 20) == .success, "the completion ran, and sending from it did not hang")
        let seen = outcomes.withLock { $0 }
        #expect(seen.count == 1 && seen[0].contains("did not take a request") && seen[0].contains("/ refused"), "\(seen)")
        #expect(!c.isConnected)

        // The same for requests whose own lines fill the buffer (inline patterns, 170 KB each):
        // the one that cannot be written ends the connection, and every request queued before it
        // is answered — from the reader thread, where sending again is refused, not a deadlock.
        let d = try HapticClient(path: path)
        let answered = Mutex(0)
        let sent = Mutex(0)
        let each = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for _ in 0..<20 {
                do {
                    try d.send("play", JSONObject(["pattern": Self.transients(1_000)]), timeout: 0.5) { _ in
                        _ = try? d.send("ping", timeout: 0.5) { _ in }
                        answered.withLock { $0 += 1 }
                        each.signal()
                    }
                    sent.withLock { $0 += 1 }
                } catch {
                    break  // the connection is over: not sent
                }
            }
            finished.signal()
        }
        #expect(finished.wait(timeout: .now() + 20) == .success, "sending did not hang")
        let count = sent.withLock { $0 }
        for _ in 0..<count { _ = each.wait(timeout: .now() + 20) }
        #expect(count >= 1 && count < 20 && answered.withLock { $0 } == count, "\(answered.withLock { $0 }) of \(count) answered")
        #expect(!d.isConnected)
    }

    /// Places for every line of a request sent in pieces are held from its start, so that other
    /// threads' requests between its pieces cannot take them past `maximumPendingRequests`; and none
    /// is left held once it is over. (Counted, not filled: the socket's buffer holds some 180 small
    /// requests, not 1 024.)
    @Test func aRequestInPiecesHoldsItsPlaces() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("silent-\(UUID().uuidString.prefix(8)).sock").path
        let listener = try silentSocket(path, backlog: 8)
        defer { close(listener); unlink(path) }
        let c = try HapticClient(path: path)
        // A pattern of five pieces.
        let size = try #require(stride(from: 1_400, through: 2_400, by: 20).first { n in
            ClientConnection.pieces(of: Array(Self.text(Self.transients(n)).utf8), at: HapticClient.uploadPieceBytes).count == 5
        })
        let held = Mutex<[Int]>([])
        c.connection.afterEachPiece { _ in held.withLock { $0.append(c.connection.heldPlaces) } }
        let done = DispatchSemaphore(value: 0)
        // Nothing answers: the pieces fill the socket's buffer and the request fails after 0.5 s.
        try c.send("play", JSONObject(["pattern": Self.transients(size)]), timeout: 0.5) { _ in done.signal() }
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(held.withLock { $0 }.first == 6, "after the first piece: it, four more and the request: \(held.withLock { $0 })")
        #expect(c.connection.heldPlaces == 0, "none left held")
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
