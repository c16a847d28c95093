import DaemonTestSupport
import Foundation
import Glibc
import HapticClient
import HapticCore
import Testing

/// Every finding of the hostile-client review (issue 8), end to end against the real
/// `hapticd --simulate` over its socket: one line must never crash the daemon, grow its memory without
/// bound, starve other clients, or leave a motor on.
@Suite(.serialized) struct HostileClientTests {
    static let pingLine = Array("{\"id\":1,\"cmd\":\"ping\"}\n".utf8)

    // MARK: time

    @Test func hugeTimesAndRatesAreRefusedAndTheDaemonLives() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        let p = try c.request("player.create", JSONObject(["name": .string("rumble-long")]))["player"]!
        for (key, value) in [("after", 2e10), ("at", 1e11), ("after", 1e300)] {
            for command in ["player.start", "player.stop", "player.pause", "player.resume"] {
                #expect(code(c, command, JSONObject(["player": p, key: .number(value)])) == "bad_request", "\(command) \(key) \(value)")
            }
            #expect(code(c, "player.send_parameters", JSONObject([
                "player": p, key: .number(value), "parameters": .object(JSONObject(["intensity": .number(0.5)])),
            ])) == "bad_request")
            #expect(code(c, "player.schedule_curve", JSONObject([
                "player": p, key: .number(value), "parameter": .string("intensity"), "points": .array([.array([.number(0), .number(1)])]),
            ])) == "bad_request")
        }
        #expect(code(c, "player.seek", JSONObject(["player": p, "offset": .number(1e12)])) == "bad_request")
        #expect(code(c, "player.set", JSONObject(["player": p, "loop_end": .number(1e12)])) == "bad_request")
        #expect(code(c, "player.set", JSONObject(["player": p, "rate": .number(1e-9)])) == "bad_request")
        #expect(code(c, "player.schedule_curve", JSONObject([
            "player": p, "parameter": .string("intensity"), "points": .array([.array([.number(1e12), .number(1)])]),
        ])) == "bad_request")
        // A one-shot slowed to play for days, or with events a day away, is refused up front.
        #expect(code(c, "play", JSONObject(["name": .string("heartbeat"), "rate": .number(1e-9)])) == "bad_request")
        #expect(code(c, "play", JSONObject(["name": .string("heartbeat"), "rate": .number(1e9)])) == "bad_request")
        let far = AHAPWriter.json(HapticPattern(elements: [.event(.transient(at: 1e9))]))
        #expect(code(c, "play", JSONObject(["pattern": far])) == "invalid_pattern")
        // Within the horizon, the same commands are fine, and the daemon is alive throughout.
        #expect(code(c, "player.start", JSONObject(["player": p, "after": .number(3600)])) == "ok")
        #expect(try c.request("ping")["pong"] == .bool(true))
        #expect(daemon.process.isRunning)
        #expect(daemon.terminate() == 0)
    }

    // MARK: backpressure

    /// A client that writes requests and never reads: the daemon stops reading it once its unsent
    /// replies reach the bound, its memory stays flat, other clients are answered, and after
    /// `output_stall_timeout` the flooder is closed.
    @Test func aClientThatNeverReadsIsBoundedThenClosed() throws {
        let daemon = try DaemonProcess(config: "[limits]\noutput_buffer_bytes = 16384\noutput_stall_timeout = 2\n")
        let before = daemon.rssKB()
        let flood = try RawSocket(daemon.socket)
        let chunk = Array(repeating: Self.pingLine, count: 500).flatMap { $0 }
        var sent = 0
        var blockedSince: Date?
        let other = try daemon.client()
        var otherPings = 0
        let start = Date()
        while Date().timeIntervalSince(start) < 20 {
            let n = flood.send(chunk)
            if n > 0 {
                sent += n
                blockedSince = nil
            } else if n == 0 {
                blockedSince = blockedSince ?? Date()
                if Date().timeIntervalSince(blockedSince!) > 0.5 { break }
                usleep(1000)
            } else {
                break
            }
            if sent / chunk.count > otherPings {
                #expect(try other.request("ping")["pong"] == .bool(true))
                otherPings += 1
            }
        }
        #expect(blockedSince != nil, "the daemon stopped reading the flooder (sent \(sent) bytes)")
        #expect(sent < 20 << 20, "it read a bounded amount: \(sent) bytes")
        #expect(try other.request("ping")["pong"] == .bool(true), "another client is still answered")
        let grown = daemon.rssKB() - before
        #expect(grown < 30_000, "RSS grew by \(grown) KiB")
        // It stays over the bound: closed after the stall timeout.
        #expect(flood.hungUp(timeout: 10), "the flooder was closed")
        #expect(daemon.logText.contains("stayed over limits.output_buffer_bytes"), "\(daemon.logText.suffix(500))")
        #expect(try other.request("ping")["pong"] == .bool(true))
        #expect(daemon.terminate() == 0)
    }

    /// A `device.output` subscriber that never reads: its events are dropped and counted, and it is
    /// told how many once it reads again.
    @Test func eventsToASlowSubscriberAreDroppedAndCounted() throws {
        let daemon = try DaemonProcess(config: "[limits]\noutput_buffer_bytes = 4096\noutput_stall_timeout = 60\n")
        let sub = try RawSocket(daemon.socket)
        _ = sub.send(Array("{\"id\":1,\"cmd\":\"subscribe\",\"events\":[\"device.output\"]}\n".utf8))
        #expect(waitUntil { daemon.logText.contains("client 1 connected") })
        let c = try daemon.client()
        // A ramp: a new value every pacing interval (10 ms on the simulated pad), a ~90-byte event each.
        let ramp = AHAPWriter.json(HapticPattern(elements: [
            .event(.continuous(at: 0, duration: 20, intensity: 1, sharpness: 0)),
            .curve(.init(.hapticIntensityControl, at: 0, points: [.init(0, 0.05), .init(20, 1)])),
        ]))
        _ = try c.request("play", JSONObject(["pattern": ramp, "loop": .bool(true)]))
        // Far more than the subscriber's buffers hold (kernel ~2×4 KiB plus 4 KiB in the daemon).
        #expect(daemon.waitForTrace(timeout: 30) { $0.count > 600 })
        _ = try c.request("stop_all")
        var text = ""
        #expect(waitUntil(timeout: 10) {
            text += String(decoding: sub.receive(timeout: 0.2) ?? [], as: UTF8.self)
            return text.contains("events_dropped")
        }, "\(text.suffix(300))")
        let notice = text.split(separator: "\n").first { $0.contains("events_dropped") }.map(String.init) ?? ""
        let dropped = (try? JSONParser.parse(notice)).flatMap { v -> Double? in
            if case .object(let o) = v, case .number(let n)? = o["count"] { n } else { nil }
        } ?? 0
        #expect(dropped > 100, "\(notice)")
        #expect(daemon.terminate() == 0)
    }

    @Test func peersTheAllowListRejectsAreClosedAtOnce() throws {
        let daemon = try DaemonProcess(config: "[clients]\nallow_uids = [12345]\n")
        let s = try RawSocket(daemon.socket)
        let (text, ended) = s.readToEnd(timeout: 5)
        #expect(ended, "closed without sending anything")
        #expect(text.contains("permission_denied") && text.split(separator: "\n").count == 1, "\(text)")
        #expect(daemon.terminate() == 0)
    }

    /// A line just under the limit that grows by a byte per millisecond (the framing cost is covered
    /// exactly by LineFramerTests); over the socket it ends as one answer, and a longer one as a
    /// limit error on a connection that goes on.
    @Test func slowLinesAreAnsweredAndOverlongOnesRefused() throws {
        let daemon = try DaemonProcess(config: "[limits]\nmax_line_bytes = 4096\n")
        let s = try RawSocket(daemon.socket)
        let body = Array("{\"id\":7,\"cmd\":\"ping\",\"pad\":\"".utf8) + Array(repeating: UInt8(ascii: "x"), count: 3900)
        _ = s.send(body)
        for _ in 0..<100 {
            _ = s.send([UInt8(ascii: "y")])
            usleep(1000)
        }
        _ = s.send(Array("\"}\n".utf8))
        var text = ""
        #expect(waitUntil { text += String(decoding: s.receive(timeout: 0.2) ?? [], as: UTF8.self); return text.contains("pong") })
        _ = s.send(Array(repeating: UInt8(ascii: "z"), count: 5000) + Array("\n{\"id\":8,\"cmd\":\"ping\"}\n".utf8))
        #expect(waitUntil { text += String(decoding: s.receive(timeout: 0.2) ?? [], as: UTF8.self); return text.contains("\"id\":8") })
        #expect(text.contains("limit_exceeded") && text.contains("limits.max_line_bytes"), "\(text)")
        #expect(daemon.terminate() == 0)
    }

    // MARK: haptics outliving their owner

    /// One-shots that go on after their client left stop after `orphan_max_seconds` and count against
    /// their user meanwhile.
    @Test func orphanedOneShotsAreCappedAndCountAgainstTheirUser() throws {
        // 2 s: the disconnect, its log line, the poll and the next request fit in it on a loaded machine.
        let daemon = try DaemonProcess(config: "[clients]\norphan_max_seconds = 2\n[limits]\nmax_players_per_uid = 2\n")
        var a: HapticClient? = try daemon.client()
        _ = try a!.request("play", JSONObject(["pattern": longPattern(25)]))
        _ = try a!.request("play", JSONObject(["pattern": longPattern(25)]))
        #expect(daemon.waitForTrace { $0.last.map { $0.2 > 0 } == true })
        a = nil
        let b = try daemon.client()
        #expect(waitUntil { daemon.logText.contains("client 1 disconnected") })
        let left = Date()
        #expect(code(b, "play", JSONObject(["pattern": longPattern(1)])) == "limit_exceeded", "the orphans count against uid 0")
        // Capped: the motor stops after two seconds, not 25 s.
        #expect(daemon.waitForTrace(timeout: 8) { $0.last.map { $0.2 == 0 && $0.3 == 0 } == true })
        #expect(Date().timeIntervalSince(left) < 8)
        #expect(waitUntil { code(b, "play", JSONObject(["name": .string("click")])) == "ok" }, "once they ended they count no more")
        #expect(daemon.terminate() == 0)
    }

    @Test func scheduledCommandsAreBoundedPerPlayerAndPerClient() throws {
        let daemon = try DaemonProcess(config: "[limits]\nmax_scheduled_per_player = 8\nmax_scheduled_per_client = 12\n")
        let c = try daemon.client()
        let p = try c.request("player.create", JSONObject(["name": .string("click")]))["player"]!
        for i in 0..<8 {
            #expect(code(c, "player.start", JSONObject(["player": p, "after": .number(1000 + Double(i))])) == "ok")
        }
        #expect(code(c, "player.start", JSONObject(["player": p, "after": .number(2000)])) == "limit_exceeded")
        #expect(code(c, "player.send_parameters", JSONObject([
            "player": p, "after": .number(2000), "parameters": .object(JSONObject(["intensity": .number(0.5)])),
        ])) == "limit_exceeded")
        let q = try c.request("player.create", JSONObject(["name": .string("click")]))["player"]!
        for i in 0..<4 {
            #expect(code(c, "player.start", JSONObject(["player": q, "after": .number(1000 + Double(i))])) == "ok")
        }
        #expect(code(c, "player.start", JSONObject(["player": q, "after": .number(2000)])) == "limit_exceeded", "12 for the connection")
        // Cancelling makes room again.
        _ = try c.request("player.cancel", JSONObject(["player": p]))
        #expect(code(c, "player.start", JSONObject(["player": q, "after": .number(2000)])) == "ok")
        #expect(daemon.terminate() == 0)
    }

    // MARK: configuration

    @Test func aMalformedConfigNeverAbortsAndReloadFailsClosed() throws {
        guard ForeignClient.available else {
            Issue.record("needs root, setpriv and socat (CI runs as root; scripts/test.sh installs socat)")
            return
        }
        let daemon = try DaemonProcess(config: "[socket]\nmode = \"0666\"\n[clients]\nallow_uids = [0]\n")
        daemon.openDirectory()
        let c = try daemon.client()
        guard case .array(let before)? = try c.request("patterns")["patterns"] else { Issue.record("no patterns"); return }
        #expect(refused(uid: 65534, daemon), "nobody is refused by the allow-list")

        // `[[[` makes toml++ abort unless the TOMLSyntax check refuses it first.
        try "[[[\n".write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        #expect(waitUntil { daemon.logText.contains("reload failed") })
        #expect(daemon.logText.contains("line 1, column 3"), "\(daemon.logText.suffix(400))")
        #expect(try c.request("ping")["pong"] == .bool(true))

        // A config that vanished keeps the running one: the allow-list and the library stay.
        try FileManager.default.removeItem(atPath: daemon.configPath)
        kill(daemon.process.processIdentifier, SIGHUP)
        #expect(waitUntil { daemon.logText.components(separatedBy: "reload failed").count == 3 })
        #expect(daemon.logText.contains("no such file"))
        guard case .array(let after)? = try c.request("patterns")["patterns"] else { Issue.record("no patterns"); return }
        #expect(after.count == before.count && !after.isEmpty)
        #expect(refused(uid: 65534, daemon), "nobody is still refused")
        #expect(daemon.terminate() == 0)
    }

    @Test func checkConfigReportsMalformedTextWithoutAborting() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hapticd-bad-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for (i, text) in ["[[[\n", "a = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1", "x = \"\u{01}\"", "[a.b.c.\n"].enumerated() {
            let path = dir.appendingPathComponent("bad\(i).toml").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let p = Process()
            p.executableURL = DaemonProcess.binaries.appendingPathComponent("hapticd")
            p.arguments = ["--check-config", "--config", path]
            let pipe = Pipe()
            p.standardError = pipe
            p.standardOutput = pipe
            try p.run()
            let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            #expect(p.terminationReason == .exit && p.terminationStatus != 0, "\(text): \(p.terminationReason) \(out)")
            #expect(out.contains("\(path): line "), "\(out)")
        }
    }

    // MARK: the socket

    @Test func oneDaemonOwnsTheSocketPath() throws {
        let daemon = try DaemonProcess()
        // A second daemon on the same path refuses to start.
        let second = Process()
        second.executableURL = DaemonProcess.binaries.appendingPathComponent("hapticd")
        second.arguments = ["--simulate", "--socket", daemon.socket, "--config", daemon.configPath]
        let pipe = Pipe()
        second.standardError = pipe
        try second.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        second.waitUntilExit()
        #expect(second.terminationStatus != 0 && out.contains("in use"), "\(out)")
        #expect(try daemon.client().request("ping")["pong"] == .bool(true))

        // Deleted under it, the socket is created again.
        unlink(daemon.socket)
        #expect(waitUntil { (try? daemon.client().request("ping")) != nil }, "\(daemon.logText.suffix(300))")

        // Replaced by another program's socket: SIGTERM leaves that one alone.
        let tmp = daemon.dir.appendingPathComponent("other.sock").path
        let other = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(other) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in tmp.utf8.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(other, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0 && listen(other, 4) == 0)
        var mine = stat()
        stat(tmp, &mine)
        #expect(rename(tmp, daemon.socket) == 0)
        #expect(waitUntil { daemon.logText.contains("is now another file") })
        #expect(daemon.terminate() == 0)
        var left = stat()
        #expect(stat(daemon.socket, &left) == 0 && left.st_ino == mine.st_ino, "the other program's socket is still there")
    }

    // MARK: global controls and fairness

    @Test func globalControlsBelongToAdmins() throws {
        guard ForeignClient.available else {
            Issue.record("needs root, setpriv and socat (CI runs as root; scripts/test.sh installs socat)")
            return
        }
        let daemon = try DaemonProcess(config: "[socket]\nmode = \"0666\"\n")
        daemon.openDirectory()
        let root = try daemon.client()
        let rootPlayer = try root.request("play", JSONObject(["name": .string("rumble-long"), "loop": .bool(true)]))["player"]!
        let nobody = try ForeignClient(uid: 65534, socket: daemon.socket)
        for (command, members) in [("gain.set", "\"gain\":0"), ("engine.stop", ""), ("engine.reset", ""), ("engine.start", "")] {
            let reply = nobody.request(command, members) ?? ""
            #expect(reply.contains("permission_denied") && reply.contains("clients.admin_uids"), "\(command): \(reply)")
        }
        // A user's stop_all stops that user's players on all their connections, and nobody else's.
        let nobody2 = try ForeignClient(uid: 65534, socket: daemon.socket)
        #expect(nobody.request("play", "\"name\":\"rumble-long\",\"loop\":true")?.contains("\"ok\":true") == true)
        let stop = nobody2.request("stop_all") ?? ""
        #expect(stop.contains("\"stopped\":1") && stop.contains("\"scope\":\"user\""), "\(stop)")
        let still = try root.request("player.set", JSONObject(["player": rootPlayer, "muted": .bool(false)]))
        #expect(still["state"] == .string("playing"), "root's player plays on")
        let all = try root.request("stop_all")
        #expect(all["scope"] == .string("all") && all["stopped"] == .number(1))
        #expect(daemon.terminate() == 0)

        let withAdmin = try DaemonProcess(config: "[socket]\nmode = \"0666\"\n[clients]\nadmin_uids = [65534]\n")
        withAdmin.openDirectory()
        let admin = try ForeignClient(uid: 65534, socket: withAdmin.socket)
        #expect(admin.request("gain.set", "\"gain\":0.5")?.contains("\"ok\":true") == true)
        #expect(withAdmin.terminate() == 0)
    }

    @Test func oneUserCannotLockOthersOutAndRootAlwaysGetsIn() throws {
        guard ForeignClient.available else {
            Issue.record("needs root, setpriv and socat (CI runs as root; scripts/test.sh installs socat)")
            return
        }
        let daemon = try DaemonProcess(config: "[socket]\nmode = \"0666\"\n[limits]\nmax_clients = 3\nmax_clients_per_uid = 2\nadmin_reserved_clients = 1\n")
        daemon.openDirectory()
        let a1 = try ForeignClient(uid: 65534, socket: daemon.socket)
        let a2 = try ForeignClient(uid: 65534, socket: daemon.socket)
        #expect(a1.request("ping")?.contains("pong") == true && a2.request("ping")?.contains("pong") == true)
        let a3 = try ForeignClient(uid: 65534, socket: daemon.socket)
        let refused = a3.readLine(timeout: 5) ?? ""
        #expect(refused.contains("limits.max_clients_per_uid"), "\(refused)")
        #expect(a3.closedByDaemon())
        let b1 = try ForeignClient(uid: 65533, socket: daemon.socket)
        #expect(b1.request("ping")?.contains("pong") == true, "another user still gets in")
        let c1 = try ForeignClient(uid: 65532, socket: daemon.socket)
        #expect((c1.readLine(timeout: 5) ?? "").contains("limits.max_clients"))
        let root = try daemon.client()
        #expect(try root.request("ping")["pong"] == .bool(true), "root takes the reserve")
        #expect(daemon.terminate() == 0)
    }
}

/// Whether a connection as `uid` is refused by the daemon's allow-list: one permission_denied line,
/// then closed.
func refused(uid: UInt32, _ daemon: DaemonProcess) -> Bool {
    guard let f = try? ForeignClient(uid: uid, socket: daemon.socket) else { return false }
    return (f.readLine(timeout: 5) ?? "").contains("permission_denied") && f.closedByDaemon()
}
