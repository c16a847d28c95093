import Foundation
import HapticCore
import HapticDaemon
import Testing

@Suite struct ConfigTests {
    @Test func theShippedFileIsValidAndAllDefaults() throws {
        let text = try String(contentsOfFile: repositoryRoot + "/config/hapticd.toml", encoding: .utf8)
        #expect(try DaemonConfig.parse(text) == DaemonConfig())
        // Uncommenting every key still parses: the documented keys are the real ones.
        let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            line.hasPrefix("#") && line.dropFirst().first.map({ $0.isLetter || $0 == "[" || $0 == "\"" }) == true
                ? String(line.dropFirst()) : String(line)
        }.joined(separator: "\n")
        let c = try DaemonConfig.parse(uncommented)
        #expect(c.socketPath == "/run/hapticd/hapticd.sock")
        #expect(c.gains["045e:02ea"] == 0.8)
        #expect(c.profiles.first?.name == "my-pad")
        #expect(c.profiles.first?.matches == [.init(bus: 3, vendor: 0x1234, product: 0x5678)])
    }

    @Test func readsEveryKey() throws {
        let c = try DaemonConfig.parse("""
            [socket]
            path = "/tmp/x.sock"
            mode = "0600"
            group = "input"
            [render]
            tick_period = 0.008
            [engine]
            idle_shutdown = 30
            [limits]
            max_line_bytes = 4096
            max_clients = 3
            max_players_per_client = 2
            max_pattern_bytes = 2048
            max_pattern_events = 10
            [clients]
            stop_players_on_disconnect = false
            allow_uids = [1000]
            allow_gids = [27]
            [patterns]
            directories = ["/a", "/b"]
            [devices.gain]
            default = 0.5
            "054c:0ce6" = 0.25
            [[devices.profile]]
            name = "dualsense"
            minimum_update_interval = 0.02
            refresh_interval = 1.5
            """)
        #expect(c.socketPath == "/tmp/x.sock" && c.socketMode == 0o600 && c.socketGroup == "input")
        #expect(c.tickPeriod == 0.008 && c.idleShutdown == 30)
        #expect(c.maxLineBytes == 4096 && c.maxClients == 3 && c.maxPlayersPerClient == 2)
        #expect(c.patternLimits.maximumFileBytes == 2048 && c.patternLimits.maximumEvents == 10)
        #expect(!c.stopPlayersOnDisconnect && c.allowUIDs == [1000] && c.allowGIDs == [27])
        #expect(c.allows(uid: 1000, gid: 5) && c.allows(uid: 5, gid: 27) && !c.allows(uid: 0, gid: 0) && !c.allows(uid: 5, gid: 5))
        #expect(c.patternDirectories == ["/a", "/b"])
        #expect(c.gain(for: "DualSense", usbID: "054c:0ce6") == 0.25 && c.gain(for: "x", usbID: "0000:0000") == 0.5)
        let ds = DeviceProfile.named("dualsense", in: c.profiles)!
        #expect(ds.minimumUpdateInterval == 0.02 && ds.refreshInterval == 1.5 && ds.quantization == .bits8)
        #expect(ds.matches == DeviceProfile.dualSense.matches, "overriding a built-in keeps its matches")
        #expect(c.profiles.filter { $0.name == "dualsense" }.count == 1)
    }

    @Test(arguments: [
        ("[socket]\nmoed = \"0600\"", "socket.moed: unknown key (known here: path, mode, group)"),
        ("[sockett]", "sockett: unknown key (known here: socket, render, engine, limits, clients, patterns, devices)"),
        ("[render]\ntick_period = 5", "render.tick_period: 5.0 is out of range 0.001…0.1"),
        ("[render]\ntick_period = \"fast\"", "render.tick_period: expected a number, found a string"),
        ("[socket]\nmode = \"rw\"", "socket.mode: expected an octal mode such as \"0660\", found \"rw\""),
        ("[socket]\npath = \"relative.sock\"", "socket.path: must be an absolute path"),
        ("[limits]\nmax_clients = 2.5", "limits.max_clients: expected a whole number, found 2.5"),
        ("[clients]\nallow_uids = [\"root\"]", "clients.allow_uids: expected a number, found a string"),
        ("[devices.gain]\ndefault = 2", "devices.gain.default: 2.0 is out of range 0.0…1.0"),
        ("[[devices.profile]]\nvendor = 1\nproduct = 2", "devices.profile[0].name: missing: every profile has a name"),
        ("[[devices.profile]]\nname = \"x\"\nquantization = \"bits4\"", "devices.profile[0].quantization: expected \"full\", \"bits8\" or \"percent\", found \"bits4\""),
        ("[[devices.profile]]\nname = \"x\"\nbase = \"nope\"", "devices.profile[0].base: no built-in profile named \"nope\" (known: xbox360, xbox-one-usb, xbox-bluetooth, dualshock4, dualsense, switch-pro-usb, switch-pro-bluetooth, generic)"),
        ("[[devices.profile]]\nname = \"x\"\nvendor = 1", "devices.profile[0]: vendor and product go together"),
    ])
    func badKeysAndValuesAreErrorsNamingTheKey(text: String, message: String) {
        do {
            _ = try DaemonConfig.parse(text)
            Issue.record("expected an error for \(text)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func tomlSyntaxErrorsGiveLineAndColumn() {
        do {
            _ = try DaemonConfig.parse("[socket]\npath = \n")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.hasPrefix("line 2, column"), "\(error)")
        }
    }
}
