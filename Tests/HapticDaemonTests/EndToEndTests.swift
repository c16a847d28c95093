import DaemonTestSupport
import Dispatch
import Foundation
import HapticClient
import HapticCore
import HapticProtocol
import Testing

/// hapticd as users run it: the real executable with simulated pads, over its real socket.
@Suite(.serialized) struct EndToEndTests {
    @Test func everyCommandAnswers() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        #expect(try c.request("ping")["pong"] == .bool(true))
        #expect(try c.request("version")["protocol"] == .number(1))
        guard case .array(let devices)? = try c.request("devices")["devices"] else { Issue.record("no devices"); return }
        #expect(devices.count == 2)
        guard case .array(let patterns)? = try c.request("patterns")["patterns"] else { Issue.record("no patterns"); return }
        let files = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot + "/config/patterns").filter { $0.hasSuffix(".ahap") }
        #expect(patterns.count == files.count + BuiltInPatterns.all.count && patterns.count >= 20, "the files and the built-in feedback patterns")

        let sub = try c.request("subscribe", JSONObject(["events": .array([.string("player.finished")])]))
        #expect(sub["events"] == .array([.string("player.finished")]))

        let played = try c.request("play", JSONObject(["name": .string("click"), "device": .number(1)]))
        #expect(played["device"] == .number(1) && played["state"] == .string("playing"))
        let inline = try AHAPWriter.json(AHAPLoader.load(text: #"{"Pattern":[{"Event":{"EventType":"HapticContinuous","EventDuration":0.2}}]}"#).pattern)
        let looped = try c.request("play", JSONObject(["pattern": inline, "loop": .bool(true), "rate": .number(2)]))
        #expect(looped["loop"] == .bool(true) && looped["rate"] == .number(2))

        let created = try c.request("player.create", JSONObject(["name": .string("rumble-long")]))
        #expect(created["state"] == .string("idle"))
        let p = JSONObject(["player": created["player"]!])
        func with(_ extra: KeyValuePairs<String, JSONValue>) -> JSONObject {
            var o = p
            for (k, v) in extra { o.append(k, v) }
            return o
        }
        #expect(try c.request("player.start", p)["state"] == .string("playing"))
        #expect(try c.request("player.send_parameters", with(["parameters": .object(JSONObject(["intensity": .number(0.5), "sharpness": .number(-0.2)]))]))["state"] == .string("playing"))
        #expect(try c.request("player.schedule_curve", with(["parameter": .string("intensity"), "points": .array([.array([.number(0), .number(1)]), .array([.number(0.5), .number(0.2)])]), "after": .number(0.1)]))["state"] == .string("playing"))
        #expect(try c.request("player.set", with(["rate": .number(0.5), "muted": .bool(true), "loop": .bool(true), "loop_end": .number(1.5)]))["rate"] == .number(0.5))
        #expect(try c.request("player.pause", p)["state"] == .string("paused"))
        #expect(try c.request("player.resume", p)["state"] == .string("playing"))
        let sought = try c.request("player.seek", with(["offset": .number(1.0)]))
        #expect(abs((number(sought, "offset") ?? 0) - 1.0) < 0.05)
        #expect(try c.request("player.stop", p)["state"] == .string("idle"))
        #expect(try c.request("player.start", with(["at": .string("now")]))["state"] == .string("playing"))
        #expect(try c.request("player.cancel", p)["state"] == .string("idle"))
        let status = try c.request("engine.status")
        #expect(status["running"] == .bool(true) && number(status, "current_time") != nil)
        let scheduled = try c.request("player.start", with(["at": .number(number(status, "current_time")! + 60)]))
        #expect(scheduled["state"] == .string("scheduled"))
        #expect(try c.request("player.destroy", p)["destroyed"] == .bool(true))
        #expect(try c.request("stop_all")["stopped"] != nil)
        #expect(try c.request("gain.set", JSONObject(["gain": .number(0.5)]))["gain"] == .number(0.5))
        #expect(try c.request("engine.stop")["running"] == .bool(false))
        #expect(try c.request("engine.start")["running"] == .bool(true))
        #expect(try c.request("engine.reset")["running"] == .bool(true))
        #expect(daemon.terminate() == 0)
    }

    @Test func everyErrorCode() throws {
        let daemon = try DaemonProcess(config: "[limits]\nmax_players_per_client = 2\nmax_line_bytes = 4096\n")
        let c = try daemon.client()
        // bad_json, bad_request, unknown_command: raw lines.
        #expect(try c.raw("{nope").contains(#""code":"bad_json""#))
        #expect(try c.raw(#"{"cmd":"ping"}"#).contains(#""code":"bad_request""#))
        #expect(try c.raw(#"{"id":1}"#).contains(#""code":"bad_request""#))
        #expect(try c.raw(#"{"id":[1],"cmd":"ping"}"#).contains(#""code":"bad_request""#))
        #expect(try c.raw(#"{"id":"a","cmd":"fly"}"#) .hasPrefix(#"{"id":"a","ok":false,"error":{"code":"unknown_command""#))
        #expect(code(c, "player.start") == "bad_request")
        #expect(code(c, "player.start", JSONObject(["player": .string("one")])) == "bad_request")
        #expect(code(c, "gain.set", JSONObject(["gain": .number(3)])) == "bad_request")
        // invalid_pattern, with the path of each problem.
        do {
            _ = try c.request("play", JSONObject(["pattern": .object(JSONObject(["Pattern": .array([.object(JSONObject(["Event": .object(JSONObject(["EventType": .string("Buzz")]))]))])]))]))
            Issue.record("an invalid pattern was accepted")
        } catch {
            guard case .failed(let code, _, let details) = error else { Issue.record("\(error)"); return }
            #expect(code == "invalid_pattern")
            #expect(details.first?.hasPrefix("Pattern[0].Event.EventType: unknown event type \"Buzz\"") == true, "\(details)")
        }
        // not_found.
        #expect(code(c, "play", JSONObject(["name": .string("no-such-pattern")])) == "not_found")
        #expect(code(c, "player.stop", JSONObject(["player": .number(999)])) == "not_found")
        #expect(code(c, "engine.status", JSONObject(["device": .number(7)])) == "not_found")
        // limit_exceeded: players per client, and an oversized line (the connection stays usable).
        let kept = try c.request("player.create", JSONObject(["name": .string("click")]))["player"]!
        #expect(code(c, "player.create", JSONObject(["name": .string("click")])) == "ok")
        #expect(code(c, "player.create", JSONObject(["name": .string("click")])) == "limit_exceeded")
        _ = try c.request("player.destroy", JSONObject(["player": kept]))
        let long = #"{"id":5,"cmd":"ping","pad":""# + String(repeating: "x", count: 10_000) + #""}"#
        #expect(try c.raw(long).contains(#""code":"limit_exceeded""#))
        #expect(try c.request("ping")["pong"] == .bool(true), "the daemon stays healthy after an oversized line")
        // engine_stopped and player_invalidated.
        let made = try c.request("player.create", JSONObject(["name": .string("thud"), "device": .number(1)]))
        _ = try c.request("engine.stop", JSONObject(["device": .number(1)]))
        #expect(code(c, "player.start", JSONObject(["player": made["player"]!])) == "engine_stopped")
        _ = try c.request("engine.reset", JSONObject(["device": .number(1)]))
        #expect(code(c, "player.start", JSONObject(["player": made["player"]!])) == "player_invalidated")
        #expect(daemon.terminate() == 0)
    }

    @Test func permissionDeniedForPeersNotInTheAllowList() throws {
        let daemon = try DaemonProcess(config: "[clients]\nallow_uids = [12345]\n")
        let c = try daemon.client()
        #expect(code(c, "ping") == "permission_denied")
        #expect(daemon.terminate() == 0)
    }

    @Test func aClientCannotTouchAnotherClientsPlayers() throws {
        let daemon = try DaemonProcess()
        let a = try daemon.client()
        let b = try daemon.client()
        let p = try a.request("player.create", JSONObject(["name": .string("rumble-long")]))["player"]!
        #expect(code(b, "player.start", JSONObject(["player": p])) == "permission_denied")
        #expect(code(b, "player.destroy", JSONObject(["player": p])) == "permission_denied")
        #expect(code(a, "player.start", JSONObject(["player": p])) == "ok")
        #expect(daemon.terminate() == 0)
    }

    @Test func disconnectingStopsAndDestroysTheClientsPlayers() throws {
        let daemon = try DaemonProcess()
        var a: HapticClient? = try daemon.client()
        let created = try a!.request("player.create", JSONObject(["name": .string("rumble-long")]))
        _ = try a!.request("player.set", JSONObject(["player": created["player"]!, "loop": .bool(true)]))
        _ = try a!.request("player.start", JSONObject(["player": created["player"]!]))
        #expect(daemon.waitForTrace { $0.last.map { $0.2 > 0 } ?? false }, "the pad rumbles")
        a = nil  // close the connection
        #expect(daemon.waitForTrace { $0.last.map { $0.2 == 0 && $0.3 == 0 } ?? false }, "the motor stops when its client leaves")
        let b = try daemon.client()
        let status = try b.request("engine.status")
        #expect(status["players"] == .number(0), "the player was destroyed")
        #expect(daemon.terminate() == 0)
    }

    @Test func fireAndForgetPlaysFinishAfterTheClientLeaves() throws {
        let daemon = try DaemonProcess()
        var a: HapticClient? = try daemon.client()
        _ = try a!.request("play", JSONObject(["name": .string("double-click")]))
        a = nil
        #expect(daemon.waitForTrace { rows in rows.filter { $0.2 > 0 || $0.3 > 0 }.count >= 2 && rows.last.map { $0.2 == 0 && $0.3 == 0 } == true },
                "both clicks play although the client left at once")
        #expect(daemon.terminate() == 0)
    }

    @Test func manyConcurrentClients() throws {
        let daemon = try DaemonProcess()
        let socket = daemon.socket
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 40) { i in
            do {
                let c = try HapticClient(path: socket)
                for j in 0..<10 {
                    let r = try c.request("ping")
                    if r["pong"] != .bool(true) { failures.add("client \(i) ping \(j)") }
                }
                _ = try c.request("play", JSONObject(["name": .string("tick"), "device": .number(Double(i % 2))]))
                let s = try c.request("engine.status", JSONObject(["device": .number(Double(i % 2))]))
                if s["running"] != .bool(true) { failures.add("client \(i) status") }
            } catch {
                failures.add("client \(i): \(error)")
            }
        }
        #expect(failures.list.isEmpty, "\(failures.list)")
        #expect(try daemon.client().request("ping")["pong"] == .bool(true))
        #expect(daemon.terminate() == 0)
    }

    @Test func theClientLimitIsEnforced() throws {
        // Root is an admin and may take the reserve beyond max_clients: none here.
        let daemon = try DaemonProcess(config: "[limits]\nmax_clients = 2\nadmin_reserved_clients = 0\n")
        let a = try daemon.client(), b = try daemon.client()
        #expect(code(a, "ping") == "ok" && code(b, "ping") == "ok")
        let c = try daemon.client()
        #expect(code(c, "ping") == "limit_exceeded")
        #expect(daemon.terminate() == 0)
    }

    @Test func repliesKeepRequestOrderAndEventsArrive() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        // Pipelined requests in one write: the replies come back in request order.
        let lines = (1...20).map { i in i % 2 == 0 ? #"{"id":\#(i),"cmd":"ping"}"# : #"{"id":"s\#(i)","cmd":"version"}"# }
        let first = try c.raw(lines.joined(separator: "\n"))
        var ids = [ReplyLine.parse(first)]
        for _ in 2...20 { ids.append(try c.nextLine(timeout: 5).flatMap(ReplyLine.parse)) }
        let expected: [JSONValue] = (1...20).map { i in i % 2 == 0 ? .number(Double(i)) : .string("s\(i)") }
        #expect(ids.map { if case .ok(let id, _)? = $0 { id } else { .null } } == expected)
        let d = try daemon.client()
        _ = try d.request("subscribe", JSONObject(["events": .array(["player.finished", "device.output"].map { .string($0) })]))
        let played = try d.request("play", JSONObject(["name": .string("click")]))
        var sawOutput = false, finished: JSONObject?
        while finished == nil, let e = try d.nextEvent(timeout: 5) {
            if e["event"] == .string("device.output") { sawOutput = true }
            if e["event"] == .string("player.finished") { finished = e }
        }
        #expect(sawOutput)
        #expect(finished?["player"] == played["player"] && finished?["reason"] == .string("finished"))
        #expect(daemon.terminate() == 0)
    }

    @Test func sigtermStopsEveryMotorAndRemovesTheSocket() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        _ = try c.request("play", JSONObject(["name": .string("rumble-long"), "loop": .bool(true)]))
        _ = try c.request("play", JSONObject(["name": .string("rumble-long"), "loop": .bool(true), "device": .number(1)]))
        #expect(daemon.waitForTrace { rows in Set(rows.filter { $0.2 > 0 }.map(\.1)) == [0, 1] })
        #expect(daemon.terminate() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socket), "the socket file is removed")
        for pad in [0, 1] {
            let last = daemon.traceRows().last { $0.1 == pad }
            #expect(last.map { $0.2 == 0 && $0.3 == 0 } == true, "pad \(pad) ends stopped: \(String(describing: last))")
        }
    }

    @Test func socketActivationThroughSystemd() throws {
        let daemon = try DaemonProcess(["--simulate"], activation: true)
        let c = try daemon.client()
        #expect(try c.request("ping")["pong"] == .bool(true))
        // It serves as soon as the socket is registered, which may be a moment before it says so.
        #expect(waitUntil { daemon.logText.contains("listening on the socket passed by systemd") }, "\(daemon.logText)")
        #expect(daemon.terminate() == 0)
        #expect(FileManager.default.fileExists(atPath: daemon.socket), "a socket systemd owns is left to systemd")
    }

    @Test func checkConfigReportsTheKey() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hapticd-cc-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good.toml").path, bad = dir.appendingPathComponent("bad.toml").path
        try FileManager.default.copyItem(atPath: repositoryRoot + "/config/hapticd.toml", toPath: good)
        try "[render]\ntick = 1\n".write(toFile: bad, atomically: true, encoding: .utf8)
        func run(_ path: String) throws -> (Int32, String) {
            let p = Process()
            p.executableURL = DaemonProcess.binaries.appendingPathComponent("hapticd")
            p.arguments = ["--check-config", "--config", path]
            let pipe = Pipe()
            p.standardOutput = pipe
            p.standardError = pipe
            try p.run()
            let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            return (p.terminationStatus, out)
        }
        let (okStatus, okText) = try run(good)
        #expect(okStatus == 0 && okText.contains("configuration OK"))
        let (badStatus, badText) = try run(bad)
        #expect(badStatus != 0 && badText.contains("render.tick: unknown key"), "\(badText)")
    }
}

final class Failures: @unchecked Sendable {
    // @unchecked Sendable: guarded by `lock`.
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ s: String) { lock.lock(); items.append(s); lock.unlock() }
    var list: [String] { lock.lock(); defer { lock.unlock() }; return items }
}
