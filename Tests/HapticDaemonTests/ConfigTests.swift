import DaemonTestSupport
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
        #expect(c.profiles.first?.matches == [.init(bus: 3, vendor: 0x1234, product: 0x5678, name: "Left Joy-Con")])
    }

    @Test func aProfileCanNameThePadsItIsFor() throws {
        let c = try DaemonConfig.parse("""
            [[devices.profile]]
            name = "grip-left"
            base = "joycon-left-usb"
            bus = 3
            vendor = 0x057E
            product = 0x200E
            name_contains = "Left Joy-Con (Grip)"
            """)
        let p = try #require(c.profiles.first { $0.name == "grip-left" })
        #expect(p.matches(bus: 3, vendor: 0x057E, product: 0x200E, name: "Nintendo Switch Left Joy-Con (Grip)"))
        #expect(!p.matches(bus: 3, vendor: 0x057E, product: 0x200E, name: "Nintendo Switch Right Joy-Con (Grip)"))
        #expect(!p.matches(bus: 3, vendor: 0x057E, product: 0x200E), "a named match needs the device's name")
    }

    @Test func readsEveryKey() throws {
        let c = try DaemonConfig.parse("""
            [socket]
            path = "/tmp/x.sock"
            mode = "0600"
            group = "input"
            threads = 3
            [render]
            tick_period = 0.008
            realtime_priority = 3
            onset_lead = 0.0005
            write_ahead = false
            [engine]
            idle_shutdown = 30
            [limits]
            max_line_bytes = 4096
            output_buffer_bytes = 8192
            output_stall_timeout = 5
            max_clients = 3
            max_clients_per_uid = 2
            admin_reserved_clients = 1
            max_players_per_client = 2
            max_players_per_uid = 7
            max_players = 99
            max_scheduled_per_player = 11
            max_scheduled_per_client = 111
            time_horizon = 3600
            min_rate = 0.5
            max_rate = 4
            max_pattern_bytes = 2048
            max_pattern_events = 10
            [clients]
            stop_players_on_disconnect = false
            orphan_max_seconds = 12
            allow_uids = [1000]
            allow_gids = [27]
            admin_uids = [1001]
            admin_gids = [10]
            [patterns]
            directories = ["/a", "/b"]
            [devices]
            hidraw_wait = 0.5
            [devices.gain]
            default = 0.5
            "054c:0ce6" = 0.25
            [[devices.profile]]
            name = "dualsense"
            minimum_update_interval = 0.02
            refresh_interval = 1.5
            weak_quantization = "on-off"
            keeps_effect_playing = true
            settles = false
            """)
        #expect(c.socketPath == "/tmp/x.sock" && c.socketMode == 0o600 && c.socketGroup == "input" && c.socketThreads == 3)
        #expect(c.tickPeriod == 0.008 && c.realtimePriority == 3 && c.onsetLead == 0.0005 && c.idleShutdown == 30)
        #expect(!c.writeAhead && DaemonConfig().writeAhead)
        let l = c.limits
        #expect(l.maxLineBytes == 4096 && l.outputBufferBytes == 8192 && l.outputStallTimeout == 5)
        #expect(l.maxClients == 3 && l.maxClientsPerUID == 2 && l.adminReservedClients == 1)
        #expect(l.maxPlayersPerClient == 2 && l.maxPlayersPerUID == 7 && l.maxPlayers == 99)
        #expect(l.maxScheduledPerPlayer == 11 && l.maxScheduledPerClient == 111)
        #expect(l.timeHorizon == 3600 && l.minRate == 0.5 && l.maxRate == 4)
        #expect(l.engine == EngineLimits(timeHorizon: 3600, rates: 0.5...4, maximumScheduledPerPlayer: 11))
        #expect(c.patternLimits.maximumFileBytes == 2048 && c.patternLimits.maximumEvents == 10)
        #expect(!c.stopPlayersOnDisconnect && c.orphanMaxSeconds == 12 && c.allowUIDs == [1000] && c.allowGIDs == [27])
        func peer(_ uid: UInt32, _ gid: UInt32, _ groups: [UInt32] = []) -> PeerCredentials {
            PeerCredentials(pid: 1, uid: uid, gid: gid, groups: groups)
        }
        #expect(c.allows(peer(1000, 5)) && c.allows(peer(5, 27)) && c.allows(peer(5, 5, [4, 27])))
        #expect(!c.allows(peer(0, 0)) && !c.allows(peer(5, 5, [4])))
        #expect(c.isAdmin(peer(0, 0)) && c.isAdmin(peer(1001, 5)) && c.isAdmin(peer(5, 5, [10])))
        #expect(!c.isAdmin(peer(1000, 27)))
        #expect(c.patternDirectories == ["/a", "/b"])
        #expect(c.hidrawWait == 0.5 && DaemonConfig().hidrawWait == 3)
        #expect(c.gain(for: "DualSense", usbID: "054c:0ce6") == 0.25 && c.gain(for: "x", usbID: "0000:0000") == 0.5)
        let ds = DeviceProfile.named("dualsense", in: c.profiles)!
        #expect(ds.minimumUpdateInterval == 0.02 && ds.refreshInterval == 1.5 && ds.quantization == .bits8)
        #expect(ds.weakQuantization == .onOff && ds.keepsEffectPlaying && !ds.settles)
        #expect(ds.matches == DeviceProfile.dualSense.matches, "overriding a built-in keeps its matches")
        #expect(c.profiles.filter { $0.name == "dualsense" }.count == 1)
    }

    @Test(arguments: [
        ("[socket]\nmoed = \"0600\"", "socket.moed: unknown key (known here: path, mode, group, threads)"),
        ("[socket]\nthreads = 0", "socket.threads: 0 is out of range 1…16"),
        ("[sockett]", "sockett: unknown key (known here: socket, render, engine, limits, clients, patterns, devices, policy)"),
        ("[render]\ntick_period = 5", "render.tick_period: 5.0 is out of range 0.001…0.1"),
        ("[render]\ntick_period = \"fast\"", "render.tick_period: expected a number, found a string"),
        ("[render]\nrealtime_priority = 100", "render.realtime_priority: 100 is out of range 0…99"),
        ("[render]\nrealtime_priority = -1", "render.realtime_priority: -1 is out of range 0…99"),
        ("[render]\nonset_lead = 0.01", "render.onset_lead: 0.01 is out of range 0.0…0.002"),
        ("[render]\nonset_lead = -0.0001", "render.onset_lead: -0.0001 is out of range 0.0…0.002"),
        ("[devices]\nhidraw_wait = 61", "devices.hidraw_wait: 61.0 is out of range 0.0…60.0"),
        ("[devices]\nhidraw_wait = -1", "devices.hidraw_wait: -1.0 is out of range 0.0…60.0"),
        ("[socket]\nmode = \"rw\"", "socket.mode: expected an octal mode such as \"0660\", found \"rw\""),
        ("[socket]\npath = \"relative.sock\"", "socket.path: must be an absolute path"),
        ("[limits]\nmax_clients = 2.5", "limits.max_clients: expected a whole number, found 2.5"),
        ("[clients]\nallow_uids = [\"root\"]", "clients.allow_uids: expected a number, found a string"),
        ("[devices.gain]\ndefault = 2", "devices.gain.default: 2.0 is out of range 0.0…1.0"),
        ("[[devices.profile]]\nvendor = 1\nproduct = 2", "devices.profile[0].name: missing: every profile has a name"),
        ("[[devices.profile]]\nname = \"x\"\nquantization = \"bits4\"", "devices.profile[0].quantization: expected \"full\", \"bits8\", \"bits7\", \"percent\", \"switch-amplitude\", \"on-off\" or \"on-off-8bit\", found \"bits4\""),
        ("[[devices.profile]]\nname = \"x\"\nbase = \"nope\"", "devices.profile[0].base: no built-in profile named \"nope\" (known: switch-pro-usb-hd, switch-pro-bluetooth-hd, joycon-left-bluetooth-hd, joycon-right-bluetooth-hd, joycon-left-usb-hd, joycon-right-usb-hd, xbox-bluetooth-triggers, dualsense-bluetooth-waveform, xbox360, xbox-one-usb, xbox-bluetooth, dualshock4, dualshock4-bluetooth, dualshock3, dualshock3-bluetooth, dualsense, dualsense-bluetooth, bigben, switch-pro-usb, switch-pro-bluetooth, joycon-left-bluetooth, joycon-right-bluetooth, joycon-left-usb, joycon-right-usb, generic)"),
        ("[[devices.profile]]\nname = \"x\"\nupdate_method = \"sideways\"", "devices.profile[0].update_method: expected \"play\" or \"in-place\", found \"sideways\""),
        ("[devices]\nbackend = \"hid\"", "devices.backend: expected \"auto\" or \"evdev\", found \"hid\""),
        ("[devices]\ndualsense_haptics = \"audio\"", "devices.dualsense_haptics: expected \"waveform\" or \"rumble\", found \"audio\""),
        ("[[devices.profile]]\nname = \"x\"\nsettles = 1", "devices.profile[0].settles: expected true or false, found a number"),
        ("[[devices.profile]]\nname = \"x\"\nvendor = 1", "devices.profile[0]: vendor and product go together"),
        ("[[devices.profile]]\nname = \"x\"\nname_contains = \"Pad\"", "devices.profile[0].name_contains: needs vendor and product"),
        ("[[devices.profile]]\nname = \"x\"\nvendor = 1\nproduct = 2\nname_contains = \"\"",
         "devices.profile[0].name_contains: expected 1…255 bytes of a device name, found 0"),
        ("[[devices.profile]]\nname = \"x\"\nvendor = 1\nproduct = 2\nname_contains = 3", "devices.profile[0].name_contains: expected a string, found a number"),
    ])
    func badKeysAndValuesAreErrorsNamingTheKey(text: String, message: String) {
        do {
            _ = try DaemonConfig.parse(text)
            Issue.record("expected an error for \(text)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func aProfileSaysHowValuesReachTheDriver() throws {
        let c = try DaemonConfig.parse("[[devices.profile]]\nname = \"dualsense\"\nupdate_method = \"in-place\"")
        #expect(DeviceProfile.named("dualsense", in: c.profiles)?.updateMethod == .inPlace)
        #expect(DeviceProfile.dualSense.updateMethod == .play, "the built-in one plays")
    }

    @Test func theBackendIsAutoUnlessConfigForcesEvdev() throws {
        #expect(try DaemonConfig.parse("").backend == .auto)
        #expect(try DaemonConfig.parse("[devices]\nbackend = \"evdev\"").backend == .evdev)
        #expect(try DaemonConfig.parse("").dualSenseHaptics == .waveform)
        #expect(try DaemonConfig.parse("[devices]\ndualsense_haptics = \"rumble\"").dualSenseHaptics == .rumble)
        // Per pad: by USB id, then name, then "default", then the plain setting.
        let perPad = try DaemonConfig.parse("[devices.dualsense_haptics]\n\"054c:0df2\" = \"rumble\"\n\"Pad A\" = \"rumble\"\n")
        #expect(perPad.dualSenseHaptics(for: "DualSense Edge", usbID: "054c:0df2") == .rumble)
        #expect(perPad.dualSenseHaptics(for: "Pad A", usbID: "054c:0ce6") == .rumble)
        #expect(perPad.dualSenseHaptics(for: "DualSense", usbID: "054c:0ce6") == .waveform)
        let byDefault = try DaemonConfig.parse("[devices.dualsense_haptics]\ndefault = \"rumble\"\n\"054c:0ce6\" = \"waveform\"\n")
        #expect(byDefault.dualSenseHaptics(for: "DualSense", usbID: "054c:0ce6") == .waveform)
        #expect(byDefault.dualSenseHaptics(for: "DualSense Edge", usbID: "054c:0df2") == .rumble)
        #expect(throws: ConfigError.self) { try DaemonConfig.parse("[devices.dualsense_haptics]\ndefault = \"loud\"\n") }
        let profiles = try DaemonConfig.parse("").profiles
        #expect(profiles.prefix(7).map(\.name)
                == ["switch-pro-usb-hd", "switch-pro-bluetooth-hd", "joycon-left-bluetooth-hd", "joycon-right-bluetooth-hd",
                    "joycon-left-usb-hd", "joycon-right-usb-hd", "xbox-bluetooth-triggers"])
        let pro = DeviceProfile.forDevice(bus: 3, vendor: 0x057E, product: 0x2009, in: profiles)
        #expect(pro.name == "switch-pro-usb", "a pad's evdev profile is never a hidraw one")
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

extension ConfigTests {
    @Test func thePolicyModeIsReadByItsNameAndByItsOldOne() throws {
        #expect(try DaemonConfig.parse("[policy]\nmode = \"silent\"").policy.mode == .silent)
        #expect(try DaemonConfig.parse("[policy]\nprofile = \"silent\"").policy.mode == .silent)
        #expect(try DaemonConfig.parse("").policy.mode == .full)
    }

    @Test func readsThePolicy() throws {
        let c = try DaemonConfig.parse("""
            [policy]
            profile = "quiet"
            max_strength = 0.7
            duck = 0
            [[policy.app]]
            id = "org.example.Reader"
            priority = 10
            important_allowed = true
            uids = [1000]
            [[policy.app]]
            id = "noisy-game"
            enabled = false
            gain = 0.5
            priority = -5
            """)
        let p = c.policy
        #expect(p.mode == .quiet && p.maxStrength == 0.7 && p.duck == 0)
        let reader = try #require(p.rule(for: "org.example.Reader"))
        #expect(reader.priority == 10 && reader.importantAllowed && reader.uids == [1000] && reader.enabled && reader.gain == 1)
        // Rules only lower: the reader's important feedback passes quiet; nothing else does; a
        // request cannot raise its priority above its app's.
        #expect(p.gain(app: "org.example.Reader", important: true) == 1 && p.gain(app: "org.example.Reader", important: false) == 0)
        #expect(p.gain(app: "noisy-game", important: true) == 0 && p.gain(app: "anyone", important: true) == 0)
        #expect(p.priority(app: "org.example.Reader", requested: nil) == 10 && p.priority(app: "org.example.Reader", requested: 50) == 10)
        #expect(p.priority(app: "org.example.Reader", requested: -20) == -20 && p.priority(app: "anyone", requested: 99) == 0)
        var full = p
        full.mode = .full
        #expect(full.gain(app: "noisy-game", important: false) == 0, "disabled")
        full.apps[1].enabled = true
        #expect(full.gain(app: "noisy-game", important: false) == 0.5)
        full.mode = .silent
        #expect(full.gain(app: "org.example.Reader", important: true) == 0)
    }

    @Test(arguments: [
        ("[policy]\nmode = \"loud\"", "policy.mode: expected \"full\", \"quiet\" or \"silent\", found \"loud\""),
        ("[policy]\nprofile = \"loud\"", "policy.profile: expected \"full\", \"quiet\" or \"silent\", found \"loud\""),
        ("[policy]\nmode = \"quiet\"\nprofile = \"quiet\"", "policy.profile: the old name of policy.mode: give one of them"),
        ("[policy]\nmax_strength = 2", "policy.max_strength: 2.0 is out of range 0.0…1.0"),
        ("[[policy.app]]\ngain = 0.5", "policy.app[0].id: missing: every app rule names its app"),
        ("[[policy.app]]\nid = \"a\"\npriority = 500", "policy.app[0].priority: 500 is out of range -100…100"),
        ("[[policy.app]]\nid = \"a\"\n[[policy.app]]\nid = \"a\"", "policy.app[1].id: empty, or a second rule for \"a\""),
        ("[[policy.app]]\nid = \"a\"\nloud = true", "policy.app[0].loud: unknown key (known here: id, enabled, gain, priority, important_allowed, uids)"),
    ])
    func badPolicyKeysNameTheKey(text: String, message: String) {
        do {
            _ = try DaemonConfig.parse(text)
            Issue.record("expected an error for \(text)")
        } catch {
            #expect(error.description == message)
        }
    }
}
