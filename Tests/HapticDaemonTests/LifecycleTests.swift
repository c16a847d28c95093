import DaemonTestSupport
import Foundation
import Glibc
import HapticClient
import HapticCore
import Testing

/// hapticd's lifecycle as systemd and administrators see it.
@Suite(.serialized) struct LifecycleTests {
    @Test func socketModeAndGroupComeFromTheConfig() throws {
        let daemon = try DaemonProcess(config: "[socket]\nmode = \"0640\"\ngroup = \"nogroup\"\n")
        var st = stat()
        #expect(stat(daemon.socket, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o640)
        #expect(st.st_gid == getgrnam("nogroup").pointee.gr_gid)
        #expect(daemon.terminate() == 0)
    }

    @Test func keptPlayersOutliveTheirConnectionAndCanBeTakenOver() throws {
        let daemon = try DaemonProcess(config: "[clients]\nstop_players_on_disconnect = false\n")
        var a: HapticClient? = try daemon.client()
        let p = try a!.request("player.create", JSONObject(["name": .string("rumble-long")]))["player"]!
        _ = try a!.request("player.set", JSONObject(["player": p, "loop": .bool(true)]))
        _ = try a!.request("player.start", JSONObject(["player": p]))
        a = nil
        let b = try daemon.client()
        // Still playing after its connection left; the same user takes it over by number. The close
        // is seen on the old connection's own socket thread: until it is, the player is that
        // connection's and the takeover is refused (docs/PROTOCOL.md) — so it is retried, a bounded
        // number of times.
        let parameters = JSONObject(["player": p, "parameters": .object(JSONObject(["intensity": .number(0.5)]))])
        var status: JSONObject?
        for _ in 0..<200 where status == nil {
            do {
                status = try b.request("player.send_parameters", parameters)
            } catch {
                guard case .failed(let code, _, _) = error, code == "permission_denied" else { throw error }
                usleep(5_000)
            }
        }
        #expect(status?["state"] == .string("playing"))
        #expect(try b.request("player.stop", JSONObject(["player": p]))["state"] == .string("idle"))
        #expect(daemon.terminate() == 0)
    }

    @Test func sighupReloadsWithoutDroppingClients() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        let p = try c.request("player.create", JSONObject(["name": .string("heartbeat")]))["player"]!
        guard case .array(let before)? = try c.request("patterns")["patterns"] else { Issue.record("no patterns"); return }
        // A new library directory with one extra pattern, and a new default gain.
        let extra = daemon.dir.appendingPathComponent("extra")
        try FileManager.default.createDirectory(at: extra, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: repositoryRoot + "/config/patterns/click.ahap", toPath: extra.appendingPathComponent("my-click.ahap").path)
        try "[patterns]\ndirectories = [\"\(repositoryRoot)/config/patterns\", \"\(extra.path)\"]\n[devices.gain]\ndefault = 0.25\n"
            .write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        var after: [JSONValue] = []
        for _ in 0..<500 {
            if case .array(let list)? = try c.request("patterns")["patterns"], list.count > before.count { after = list; break }
            usleep(10_000)
        }
        #expect(after.count == before.count + 1, "the reloaded library has the new pattern")
        #expect(try c.request("engine.status")["gain"] == .number(0.25), "and the new gain")
        #expect(try c.request("player.start", JSONObject(["player": p]))["state"] == .string("playing"), "the connection and its player survived")
        // A broken config on reload is refused and the daemon keeps running as it was.
        try "[render]\nbogus = 1\n".write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        for _ in 0..<500 where !daemon.logText.contains("reload failed") { usleep(10_000) }
        #expect(daemon.logText.contains("reload failed, keeping the running configuration"), "\(daemon.logText)")
        #expect(try c.request("ping")["pong"] == .bool(true))
        #expect(daemon.terminate() == 0)
    }

    @Test func notifiesSystemdReadyWatchdogAndStopping() throws {
        // A stand-in for systemd's notify socket.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("notify-\(getpid()).sock").path
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd); unlink(path) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0)
        let daemon = try DaemonProcess(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"])
        func messages(until wanted: String) -> [String] {
            var got: [String] = []
            for _ in 0..<200 {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 50) > 0 else { continue }
                var buf = [UInt8](repeating: 0, count: 512)
                let n = recv(fd, &buf, buf.count, 0)
                if n > 0 { got.append(String(decoding: buf[..<n], as: UTF8.self)) }
                if got.contains(where: { $0.contains(wanted) }) { break }
            }
            return got
        }
        let startup = messages(until: "WATCHDOG=1")
        #expect(startup.contains { $0.hasPrefix("READY=1") }, "\(startup)")
        #expect(startup.contains("WATCHDOG=1"), "\(startup)")
        #expect(daemon.terminate() == 0)
        let shutdown = messages(until: "STOPPING=1")
        #expect(shutdown.contains("STOPPING=1"), "\(shutdown)")
    }
}
