import DaemonTestSupport
import Foundation
import Glibc
import HapticClient
import HapticCore
import Testing

/// The policy for many apps on one pad, end to end over the socket and judged by the trace (issue 15).
@Suite(.serialized) struct PolicyTests {
    func constant(_ intensity: Double, _ seconds: Double, sharpness: Double = 0) -> JSONValue {
        AHAPWriter.json(HapticPattern(elements: [.event(.continuous(at: 0, duration: seconds, intensity: intensity, sharpness: sharpness))]))
    }

    func last(_ daemon: DaemonProcess) -> (Int, Int)? { daemon.traceRows().last.map { ($0.2, $0.3) } }

    func hello(_ c: HapticClient, _ app: String) throws -> JSONObject { try c.request("hello", JSONObject(["app": .string(app)])) }

    @Test func aHigherPriorityAppDucksAnotherAndItComesBack() throws {
        let daemon = try DaemonProcess(["--simulate", "1"], config: """
            [policy]
            duck = 0.25
            [[policy.app]]
            id = "alerts"
            priority = 10
            """)
        let game = try daemon.client(), alerts = try daemon.client()
        #expect(try hello(game, "game")["app"] == .string("game"))
        let said = try hello(alerts, "alerts")
        guard case .object(let policy)? = said["policy"], case .object(let app)? = policy["app"] else { Issue.record("\(said)"); return }
        #expect(app["priority"] == .number(10) && app["configured"] == .bool(true))
        _ = try game.request("play", JSONObject(["pattern": constant(0.8, 10)]))
        #expect(daemon.waitForTrace { _ in last(daemon).map { $0 == (52428, 0) } == true })
        // States that last a while are looked for among the rows since a mark, not as the last row:
        // a stalled test could otherwise look only after they ended.
        let mark = daemon.traceRows().count
        let alert = try alerts.request("play", JSONObject(["pattern": constant(0.5, 0.4), "locality": .string("rightHandle")]))
        #expect(alert["priority"] == .number(10))
        #expect(daemon.waitForTrace { $0.dropFirst(mark).contains { $0.2 == 13107 && $0.3 == 32768 } }, "the game ducked to a quarter while the alert plays: \(String(describing: last(daemon)))")
        #expect(daemon.waitForTrace { _ in last(daemon).map { $0 == (52428, 0) } == true }, "and back at full once it ended")
        let rows = daemon.traceRows()
        #expect(rows.contains { $0.2 == 13107 && $0.3 == 32768 })
        #expect(daemon.terminate() == 0)
    }

    @Test func aClientCannotRaiseItsPriorityAboveItsApps() throws {
        let daemon = try DaemonProcess(["--simulate", "1"])
        let c = try daemon.client()
        let played = try c.request("play", JSONObject(["pattern": constant(0.5, 0.2), "priority": .number(50)]))
        #expect(played["priority"] == .number(0), "an unconfigured app tops out at 0")
        let lowered = try c.request("play", JSONObject(["pattern": constant(0.5, 0.2), "priority": .number(-7)]))
        #expect(lowered["priority"] == .number(-7), "lowering is always allowed")
        #expect(code(c, "play", JSONObject(["pattern": constant(0.5, 0.2), "priority": .number(101)])) == "bad_request")
        #expect(code(c, "play", JSONObject(["pattern": constant(0.5, 0.2), "priority": .number(1.5)])) == "bad_request")
        #expect(daemon.terminate() == 0)
    }

    @Test func quietLetsOnlyImportantFeedbackOfAllowedAppsThrough() throws {
        let daemon = try DaemonProcess(["--simulate", "1"], config: """
            [policy]
            profile = "quiet"
            [[policy.app]]
            id = "reader"
            important_allowed = true
            """)
        let game = try daemon.client(), reader = try daemon.client()
        _ = try hello(game, "game")
        _ = try hello(reader, "reader")
        let muted = try game.request("play", JSONObject(["pattern": constant(0.8, 0.2)]))
        #expect(muted["heard_at"] == .number(0))
        let notImportant = try reader.request("feedback", JSONObject(["type": .string("impact"), "style": .string("heavy")]))
        #expect(notImportant["heard_at"] == .number(0))
        let gameImportant = try game.request("feedback", JSONObject(["type": .string("impact"), "important": .bool(true)]))
        #expect(gameImportant["heard_at"] == .number(0), "important from an app not allowed to be: still quiet")
        #expect(daemon.traceRows().allSatisfy { $0.2 == 0 && $0.3 == 0 }, "nothing reached the pad")
        let important = try reader.request("feedback", JSONObject(["type": .string("impact"), "style": .string("heavy"), "important": .bool(true)]))
        #expect(important["heard_at"] == .number(1))
        #expect(daemon.waitForTrace { $0.contains { $0.2 > 0 } }, "the reader's important feedback is felt")
        #expect(daemon.terminate() == 0)
    }

    @Test func theCeilingAndAppRulesOnlyLower() throws {
        let daemon = try DaemonProcess(["--simulate", "1"], config: """
            [policy]
            max_strength = 0.5
            [[policy.app]]
            id = "half"
            gain = 0.5
            [[policy.app]]
            id = "off"
            enabled = false
            """)
        let c = try daemon.client()
        var mark = daemon.traceRows().count
        _ = try c.request("play", JSONObject(["pattern": constant(1, 0.3)]))
        #expect(daemon.waitForTrace { $0.dropFirst(mark).contains { $0.2 == 32767 && $0.3 == 0 } }, "capped at half scale: \(String(describing: last(daemon)))")
        #expect(daemon.waitForTrace { _ in last(daemon).map { $0 == (0, 0) } == true })
        let h = try daemon.client()
        _ = try hello(h, "half")
        mark = daemon.traceRows().count
        _ = try h.request("play", JSONObject(["pattern": constant(0.6, 0.3)]))
        #expect(daemon.waitForTrace { $0.dropFirst(mark).contains { $0.2 == 19660 && $0.3 == 0 } }, "the app at half gain: \(String(describing: last(daemon)))")
        #expect(daemon.waitForTrace { _ in last(daemon).map { $0 == (0, 0) } == true })
        let off = try daemon.client()
        _ = try hello(off, "off")
        let silent = try off.request("play", JSONObject(["pattern": constant(1, 0.3)]))
        #expect(silent["heard_at"] == .number(0) && silent["state"] == .string("playing"), "a disabled app's command succeeds, silently")
        #expect(daemon.terminate() == 0)
    }

    @Test func theModeChangesByReloadOrByAnAdminAndPlayersFollow() throws {
        let daemon = try DaemonProcess(["--simulate", "1"])
        let c = try daemon.client()
        _ = try c.request("play", JSONObject(["pattern": constant(0.8, 20)]))
        #expect(daemon.waitForTrace { _ in last(daemon).map { $0 == (52428, 0) } == true })
        // An admin (root) silences everything: the playing player follows.
        let set = try c.request("policy.set", JSONObject(["mode": .string("silent")]))
        #expect(set["mode"] == .string("silent"))
        #expect(set["profile"] == .string("silent"), "the mode's old name is still answered")
        #expect(daemon.waitForTrace { _ in last(daemon).map { $0 == (0, 0) } == true })
        #expect(code(c, "policy.set", JSONObject(["mode": .string("loud")])) == "bad_request")
        #expect(code(c, "policy.set", JSONObject(["profile": .string("loud")])) == "bad_request", "and still read")
        #expect(try c.request("policy.set", JSONObject(["profile": .string("quiet")]))["mode"] == .string("quiet"))
        #expect(code(c, "policy.set", JSONObject([:])) == "bad_request")
        // A reload puts the configuration's policy back: full.
        kill(daemon.process.processIdentifier, SIGHUP)
        #expect(daemon.waitForTrace { _ in last(daemon).map { $0 == (52428, 0) } == true }, "heard again after the reload")
        #expect(try c.request("policy")["mode"] == .string("full"))
        #expect(daemon.terminate() == 0)
    }

    @Test func onlyAdminsChangeThePolicyAndReservedIdsStayReserved() throws {
        guard ForeignClient.available else {
            Issue.record("needs root, setpriv and socat (CI runs as root; scripts/test.sh installs socat)")
            return
        }
        let daemon = try DaemonProcess(["--simulate", "1"], config: """
            [socket]
            mode = "0666"
            [[policy.app]]
            id = "org.example.Reader"
            priority = 20
            uids = [4242]
            """)
        daemon.openDirectory()
        let nobody = try ForeignClient(uid: 65534, socket: daemon.socket)
        let denied = nobody.request("policy.set", "\"profile\":\"silent\"") ?? ""
        #expect(denied.contains("permission_denied"), "\(denied)")
        let claim = nobody.request("hello", "\"app\":\"org.example.Reader\"") ?? ""
        #expect(claim.contains("permission_denied") && claim.contains("reserved"), "\(claim)")
        let own = nobody.request("policy") ?? ""
        #expect(own.contains("\"profile\":\"full\"") && own.contains("\"configured\":false"), "\(own)")
        let root = try daemon.client()
        #expect(code(root, "hello", JSONObject(["app": .string("org.example.Reader")])) == "permission_denied", "root is not uid 4242 either")
        #expect(code(root, "hello", JSONObject(["app": .string("has space")])) == "bad_request")
        #expect(daemon.terminate() == 0)
    }

    @Test func withoutHelloAClientIsNamedByItsProcess() throws {
        let daemon = try DaemonProcess(["--simulate", "1"])
        let c = try daemon.client()
        guard case .object(let app)? = try c.request("policy")["app"], case .string(let id)? = app["id"] else {
            Issue.record("no app")
            return
        }
        let comm = (try? String(contentsOfFile: "/proc/self/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
        #expect(id == comm, "\(id) vs \(String(describing: comm))")
        #expect(daemon.terminate() == 0)
    }
}
