import DaemonTestSupport
import Foundation
import Glibc
import HapticClient
import HapticCore
import Testing

/// Core Haptics for game controllers over the real socket: localities, capabilities, feedback
/// generators, prepare and plain rumble (issue 14).
@Suite(.serialized) struct ControllerTests {
    /// The trace's non-zero writes after `t0`.
    func writes(_ daemon: DaemonProcess, after t0: Double) -> [(Double, Int, Int, Int)] {
        daemon.traceRows().filter { $0.0 >= t0 }
    }

    func engineTime(_ c: HapticClient) throws -> Double { number(try c.request("engine.status"), "current_time") ?? 0 }

    @Test func localitiesRouteToTheirMotorsAndAreRefusedWhereThePadHasNone() throws {
        let daemon = try DaemonProcess(["--simulate", "1"])
        let c = try daemon.client()
        _ = try c.request("subscribe", JSONObject(["events": .array([.string("player.finished")])]))
        let t0 = try engineTime(c)
        let left = try c.request("play", JSONObject(["name": .string("rumble-short"), "locality": .string("leftHandle")]))
        #expect(left["locality"] == .string("leftHandle"))
        #expect(daemon.waitForTrace { $0.contains { $0.0 >= t0 && $0.2 > 0 } })
        let finished = try c.nextEvent(timeout: 5)
        #expect(finished?["locality"] == .string("leftHandle"), "events carry the locality")
        #expect(daemon.waitForTrace { $0.last.map { $0.2 == 0 && $0.3 == 0 } == true })
        let leftWrites = writes(daemon, after: t0)
        #expect(leftWrites.contains { $0.2 > 0 } && leftWrites.allSatisfy { $0.3 == 0 }, "leftHandle: the strong motor only: \(leftWrites)")

        let t1 = try engineTime(c)
        _ = try c.request("play", JSONObject(["name": .string("rumble-short"), "locality": .string("rightHandle")]))
        #expect(daemon.waitForTrace { $0.contains { $0.0 >= t1 && $0.3 > 0 } })
        #expect(daemon.waitForTrace { $0.last.map { $0.2 == 0 && $0.3 == 0 } == true })
        let rightWrites = writes(daemon, after: t1)
        #expect(rightWrites.allSatisfy { $0.2 == 0 }, "rightHandle: the weak motor only: \(rightWrites)")

        for trigger in ["triggers", "leftTrigger", "rightTrigger"] {
            #expect(code(c, "play", JSONObject(["name": .string("click"), "locality": .string(trigger)])) == "unsupported")
            #expect(code(c, "engine.status", JSONObject(["locality": .string(trigger)])) == "unsupported")
        }
        #expect(code(c, "play", JSONObject(["name": .string("click"), "locality": .string("elbow")])) == "bad_request")
        #expect(code(c, "play", JSONObject(["name": .string("click"), "locality": .number(1)])) == "bad_request")
        #expect(daemon.terminate() == 0)
    }

    @Test func eachLocalityHasItsOwnEngine() throws {
        let daemon = try DaemonProcess(["--simulate", "1"])
        let c = try daemon.client()
        let looping = JSONObject(["name": .string("rumble-long"), "loop": .bool(true)])
        let p = try c.request("player.create", JSONObject(["name": .string("rumble-long"), "locality": .string("leftHandle")]))["player"]!
        _ = try c.request("player.set", JSONObject(["player": p, "loop": .bool(true)]))
        _ = try c.request("player.start", JSONObject(["player": p]))
        _ = try c.request("play", looping)
        let created = try c.request("player.create", JSONObject(["name": .string("click"), "locality": .string("rightHandle")]))
        #expect(created["locality"] == .string("rightHandle"))
        let right = try c.request("engine.status", JSONObject(["locality": .string("rightHandle")]))
        #expect(right["locality"] == .string("rightHandle") && right["players"] == .number(1) && right["playing"] == .bool(false))
        // Stopping the left handle's engine stops its player only.
        let stopped = try c.request("engine.stop", JSONObject(["locality": .string("leftHandle")]))
        #expect(stopped["running"] == .bool(false))
        #expect(try c.request("engine.status")["playing"] == .bool(true), "the default engine plays on")
        #expect(code(c, "player.start", JSONObject(["player": p])) == "engine_stopped")
        _ = try c.request("engine.start", JSONObject(["locality": .string("leftHandle")]))
        #expect(try c.request("player.start", JSONObject(["player": p]))["state"] == .string("playing"))
        #expect(daemon.terminate() == 0)
    }

    @Test func capabilitiesDescribeThePad() throws {
        let daemon = try DaemonProcess(["--simulate", "2"])
        let c = try daemon.client()
        let caps = try c.request("capabilities", JSONObject(["device": .number(1)]))
        #expect(caps["localities"] == .array(["default", "all", "handles", "leftHandle", "rightHandle"].map { .string($0) }))
        #expect(caps["unsupported_localities"] == .array(["triggers", "leftTrigger", "rightTrigger"].map { .string($0) }))
        #expect(caps["effect_slots"] == .number(16) && caps["ff_gain"] == .bool(true) && caps["supports_audio"] == .bool(false))
        #expect(caps["profile"] == .string("generic") && caps["quantization"] == .string("full") && caps["minimum_update_interval"] == .number(0.01))
        #expect(caps["refresh_interval"] == .null && caps["profile_source"] == .string("built-in"))
        guard case .object(let params)? = caps["parameters"], case .object(let sharpnessControl)? = params["HapticSharpnessControl"] else {
            Issue.record("no parameter ranges: \(caps)")
            return
        }
        #expect(sharpnessControl["min"] == .number(-1) && sharpnessControl["max"] == .number(1) && sharpnessControl["default"] == .number(0))
        #expect(params["AudioVolume"] == nil, "no audio parameters on a rumble pad")
        #expect(code(c, "capabilities", JSONObject(["device": .number(7)])) == "not_found")
        #expect(daemon.terminate() == 0)
    }

    /// A Joy-Con alone through hid-nintendo (docs/devices.md, "Joy-Cons"): the simulated pad given the
    /// Joy-Con (R)'s profile by configuration. One motor, the weak one (the report's right half): its
    /// capabilities say so, the left handle and the triggers are unsupported, and a game's rumble on
    /// the strong motor alone is felt there.
    @Test func aJoyConAloneIsOneMotorOfItsOwnSide() throws {
        let daemon = try DaemonProcess(["--simulate", "1"], config: """
            [[devices.profile]]
            name = "sim-joycon-r"
            base = "joycon-right-bluetooth"
            bus = 6
            vendor = 0
            product = 0
            """)
        let c = try daemon.client()
        let caps = try c.request("capabilities", JSONObject(["device": .number(0)]))
        #expect(caps["actuators"] == .string("right-motor"))
        #expect(caps["localities"] == .array(["default", "all", "handles", "rightHandle"].map { .string($0) }))
        #expect(caps["unsupported_localities"] == .array(["leftHandle", "triggers", "leftTrigger", "rightTrigger"].map { .string($0) }))
        guard case .array(let motors)? = caps["motors"], motors.count == 1, case .object(let motor) = motors[0] else {
            Issue.record("one motor: \(caps)")
            return
        }
        #expect(motor["name"] == .string("weak") && motor["side"] == .string("right"))
        #expect(motor["localities"] == caps["localities"], "every locality the pad has drives its one motor alone")
        #expect(code(c, "engine.start", JSONObject(["locality": .string("leftHandle")])) == "unsupported")
        // strong 0.6, weak 0: on a two-motor pad only the strong motor would turn.
        _ = try c.request("rumble", JSONObject(["device": .number(0), "strong": .number(0.6), "weak": .number(0), "duration": .number(5)]))
        #expect(daemon.waitForTrace { rows in rows.contains { $0.1 == 0 && $0.2 == 0 && $0.3 > 30000 } },
                "the rumble on the Joy-Con (R)'s one motor: \(daemon.traceRows().suffix(4))")
        #expect(!daemon.traceRows().contains { $0.2 != 0 }, "nothing on the motor it does not have")
        #expect(daemon.terminate() == 0)
    }

    /// The strongest motor value a feedback wrote, once it has finished and the pad is still again.
    func peak(_ daemon: DaemonProcess, _ c: HapticClient, _ body: JSONObject) throws -> Int {
        _ = try c.request("subscribe", JSONObject(["events": .array([.string("player.finished")])]))
        // Whatever played before has reached the pad and stopped (a paced write may still deliver its
        // window's peak after a stop: the pacer's peak hold).
        #expect(daemon.waitForTrace { $0.last.map { $0.2 == 0 && $0.3 == 0 } ?? true })
        let t0 = try engineTime(c)
        let r = try c.request("feedback", body)
        #expect(r["state"] == .string("playing"))
        var finished = false
        while !finished, let e = try c.nextEvent(timeout: 5) { finished = e["player"] == r["player"] }
        #expect(finished)
        #expect(daemon.waitForTrace { $0.last.map { $0.0 >= t0 && $0.2 == 0 && $0.3 == 0 } == true })
        return writes(daemon, after: t0).map { max($0.2, $0.3) }.max() ?? 0
    }

    @Test func feedbackGeneratorsPlayTheirLibraryPatterns() throws {
        let daemon = try DaemonProcess(["--simulate", "1"])
        let c = try daemon.client()
        for (type, styles) in [("impact", ["light", "medium", "heavy", "soft", "rigid"]), ("notification", ["success", "warning", "error"])] {
            for style in styles {
                let r = try c.request("feedback", JSONObject(["type": .string(type), "style": .string(style)]))
                #expect(r["pattern"] == .string("\(type)-\(style)"))
            }
        }
        #expect(try c.request("feedback", JSONObject(["type": .string("selection")]))["pattern"] == .string("selection"))
        #expect(try c.request("feedback", JSONObject(["type": .string("impact")]))["pattern"] == .string("impact-medium"), "impact defaults to medium")
        #expect(code(c, "feedback", JSONObject(["type": .string("impact"), "style": .string("squishy")])) == "bad_request")
        #expect(code(c, "feedback", JSONObject(["type": .string("haptic")])) == "bad_request")
        #expect(code(c, "feedback", JSONObject(["type": .string("selection"), "style": .string("light")])) == "bad_request")
        #expect(code(c, "feedback", JSONObject(["type": .string("impact"), "intensity": .number(2)])) == "bad_request")
        #expect(code(c, "feedback", JSONObject([:])) == "bad_request")
        _ = try c.request("stop_all")
        // Intensity scales it (a light impact: nothing in it saturates).
        let full = try peak(daemon, c, JSONObject(["type": .string("impact"), "style": .string("light")]))
        let half = try peak(daemon, c, JSONObject(["type": .string("impact"), "style": .string("light"), "intensity": .number(0.5)]))
        #expect(full > 30_000 && abs(Double(half) - Double(full) / 2) < 2, "\(full) then \(half)")
        #expect(daemon.terminate() == 0)
    }

    @Test func anAdminsStopIsAnEventForEveryClientOfThePad() throws {
        let daemon = try DaemonProcess(["--simulate", "1"])
        let admin = try daemon.client(), other = try daemon.client()
        _ = try other.request("subscribe", JSONObject(["events": .array([.string("engine.stopped")])]))
        _ = try admin.request("engine.stop", JSONObject(["locality": .string("rightHandle")]))
        let e = try other.nextEvent(timeout: 5)
        #expect(e?["event"] == .string("engine.stopped") && e?["locality"] == .string("rightHandle"))
        #expect(e?["reason"] == .string("systemError") && e?["by"] == .string("engine.stop"), "\(String(describing: e))")
        _ = try admin.request("engine.stop", JSONObject(["locality": .string("rightHandle")]))
        _ = try admin.request("engine.stop")
        let next = try other.nextEvent(timeout: 5)
        #expect(next?["locality"] == .string("default"), "a second stop of a stopped engine says nothing: \(String(describing: next))")
        #expect(daemon.terminate() == 0)
    }

    @Test func feedbackPlaysWithNoPatternLibraryInstalled() throws {
        let daemon = try DaemonProcess(["--simulate", "1"], patternDirectories: [])
        let c = try daemon.client()
        guard case .array(let list)? = try c.request("patterns")["patterns"] else { Issue.record("no pattern list"); return }
        let builtIn = list.compactMap { item -> String? in
            guard case .object(let o) = item, o["path"] == .string("built-in"), case .string(let name)? = o["name"] else { return nil }
            return name
        }
        #expect(builtIn.sorted() == BuiltInPatterns.all.map(\.name).sorted(), "every built-in is listed, and nothing else: \(list)")
        _ = try c.request("subscribe", JSONObject(["events": .array([.string("player.finished")])]))
        for (type, styles) in [("impact", ["light", "medium", "heavy", "soft", "rigid"]), ("notification", ["success", "warning", "error"]), ("selection", [""])] {
            for style in styles {
                var body = JSONObject(["type": .string(type)])
                if !style.isEmpty { body.append("style", .string(style)) }
                let strongest = try peak(daemon, c, body)
                #expect(strongest > 10_000, "\(type) \(style) was felt: peak \(strongest)")
            }
        }
        #expect(daemon.terminate() == 0)
    }

    @Test func builtInPatternsWriteOutAndLoadBack() {
        for b in BuiltInPatterns.all {
            let loaded = try? PatternLoader.load(text: AHAPWriter.text(b.pattern), format: .ahap)
            #expect(loaded?.warnings.isEmpty == true, "\(b.name) writes out and loads back without a warning")
            #expect(loaded?.pattern.duration == b.pattern.duration)
        }
    }

    @Test func aFileOfTheSameNameOverridesAFeedbackPattern() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hapticd-override-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // A selection of the user's own: one long, dull rumble instead of a faint tick.
        let own = AHAPWriter.text(HapticPattern(elements: [.event(.continuous(at: 0, duration: 0.3, intensity: 0.9, sharpness: 0))]))
        try own.write(toFile: dir.appendingPathComponent("selection.ahap").path, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(["--simulate", "1"], config: "")
        try "[patterns]\ndirectories = [\"\(repositoryRoot)/config/patterns\", \"\(dir.path)\"]\n"
            .write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        let c = try daemon.client()
        #expect(waitUntil {
            guard case .array(let list)? = try? c.request("patterns")["patterns"] else { return false }
            return list.contains { if case .object(let o) = $0 { o["path"] == .string(dir.appendingPathComponent("selection.ahap").path) } else { false } }
        })
        let strongest = try peak(daemon, c, JSONObject(["type": .string("selection")]))
        #expect(strongest == 58982, "the user's pattern played (0.9 on the strong motor): \(strongest)")
        #expect(daemon.terminate() == 0)
    }

    @Test func prepareReadiesThePad() throws {
        let daemon = try DaemonProcess(["--simulate", "1"], config: "[engine]\nidle_shutdown = 0.2\n")
        let c = try daemon.client()
        // The idle engine shuts itself down; prepare starts it and keeps it up a few seconds.
        #expect(waitUntil { (try? c.request("engine.status")["running"]) == .bool(false) })
        let r = try c.request("prepare")
        #expect(r["engine"] == .string("started") && r["effect"] == .string("simulated"))
        #expect(abs((number(r, "prepared_until") ?? 0) - (number(r, "engine_time") ?? 0) - 5) < 0.01)
        #expect(try c.request("engine.status")["running"] == .bool(true))
        #expect(try c.request("prepare")["engine"] == .string("running"))
        #expect(daemon.terminate() == 0)
    }

    @Test func plainRumbleReplacesStopsAndEndsWithItsClient() throws {
        let daemon = try DaemonProcess(["--simulate", "1"])
        var c: HapticClient? = try daemon.client()
        let t0 = try engineTime(c!)
        let first = try c!.request("rumble", JSONObject(["strong": .number(0.8), "weak": .number(0.2), "duration": .number(10)]))
        #expect(first["state"] == .string("playing") && first["replaced"] == .bool(false))
        #expect(daemon.waitForTrace { $0.last.map { $0.0 >= t0 && $0.2 == 52428 && $0.3 == 13107 } == true })
        let second = try c!.request("rumble", JSONObject(["strong": .number(0.1), "weak": .number(0.9), "duration": .number(10)]))
        #expect(second["replaced"] == .bool(true))
        #expect(daemon.waitForTrace { $0.last.map { $0.2 == 6554 && $0.3 == 58982 } == true }, "the new one replaced it")
        #expect(try c!.request("rumble", JSONObject(["strong": .number(0), "weak": .number(0)]))["stopped"] == .bool(true))
        #expect(daemon.waitForTrace { $0.last.map { $0.2 == 0 && $0.3 == 0 } == true }, "0/0 stops it")
        // Delayed.
        let t1 = try engineTime(c!)
        _ = try c!.request("rumble", JSONObject(["strong": .number(0.5), "weak": .number(0.5), "duration": .number(10), "delay": .number(0.3)]))
        #expect(daemon.waitForTrace { $0.contains { $0.0 > t1 && $0.2 > 0 } })
        let onset = writes(daemon, after: t1).first { $0.2 > 0 }?.0 ?? 0
        #expect(onset - t1 >= 0.29, "it starts after its delay: \(onset - t1) s")
        // The client leaves: its rumble stops.
        c = nil
        #expect(daemon.waitForTrace { $0.last.map { $0.2 == 0 && $0.3 == 0 } == true })
        let d = try daemon.client()
        for bad in [
            JSONObject(["strong": .number(0.5)]), JSONObject(["strong": .number(1.5), "weak": .number(0), "duration": .number(1)]),
            JSONObject(["strong": .number(0.5), "weak": .number(0)]), JSONObject(["strong": .number(0.5), "weak": .number(0), "duration": .number(0)]),
            JSONObject(["strong": .number(0.5), "weak": .number(0), "duration": .number(1e9)]),
            JSONObject(["strong": .number(0.5), "weak": .number(0), "duration": .number(1), "delay": .number(-1)]),
        ] {
            #expect(code(d, "rumble", bad) == "bad_request", "\(bad)")
        }
        #expect(daemon.terminate() == 0)
    }
}
