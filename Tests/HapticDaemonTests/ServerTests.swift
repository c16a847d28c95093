import DaemonTestSupport
import Dispatch
import Evdev
import Foundation
import HapticClient
import HapticCore
import HapticDaemon
import HapticProtocol
import Logging
import Testing

/// The socket server in-process, over a real socket, with pads the test controls: a device that
/// fails, unplugs and comes back.
@Suite(.serialized) struct ServerTests {
    final class Harness {
        let loop = RenderLoop()
        let core: DaemonCore
        let server: SocketServer
        let path: String

        init() throws {
            var config = DaemonConfig()
            config.patternDirectories = [repositoryRoot + "/config/patterns"]
            core = DaemonCore(config: config, loop: loop, logger: Logger(label: "test"))
            server = SocketServer(core: core, logger: Logger(label: "test"))
            path = FileManager.default.temporaryDirectory.appendingPathComponent("hapticd-srv-\(UUID().uuidString.prefix(8)).sock").path
            try server.start(path: path, mode: 0o600, groupName: nil)
        }

        deinit {
            server.stop()
            core.shutdown()
        }
    }

    static func info(_ path: String) -> DeviceInfo {
        DeviceInfo(path: path, name: "Test pad", bus: 3, vendor: 0x054C, product: 0x0CE6, version: 1, uniq: "aa:bb",
                   effectSlots: 16, hasRumble: true, supportsGain: true)
    }

    @Test func aFailingDeviceGivesDeviceError() throws {
        let h = try Harness()
        let sink = RecordingSink()
        h.core.addPad(info: Self.info("/dev/input/event7"), sink: sink, simulated: false)
        let c = try HapticClient(path: h.path)
        sink.failWith = DeviceError(kind: .system(.ioError), operation: .upload, path: "/dev/input/event7")
        do {
            _ = try c.request("play", JSONObject(["name": .string("thud")]))
            Issue.record("a failing device did not fail the command")
        } catch {
            guard case .failed(let code, let message, _) = error else { Issue.record("\(error)"); return }
            #expect(code == "device_error")
            #expect(message.contains("/dev/input/event7: upload effect failed"), "\(message)")
        }
        // The pad is now without a device: naming it is a device_error too.
        #expect(code(c, "play", JSONObject(["name": .string("thud"), "device": .number(0)])) == "device_error")
    }

    @Test func unplugAndReplugAreEventsAndResetTheEngine() throws {
        let h = try Harness()
        let c = try HapticClient(path: h.path)
        _ = try c.request("subscribe")
        let first = RecordingSink()
        h.core.addPad(info: Self.info("/dev/input/event3"), sink: first, simulated: false)
        #expect(try c.nextEvent(timeout: 5)?["event"] == .string("device.added"))
        let p = try c.request("player.create", JSONObject(["name": .string("rumble-long")]))["player"]!
        _ = try c.request("player.start", JSONObject(["player": p]))
        h.core.removeDevice(path: "/dev/input/event3")
        var names: Set<String> = []
        while !names.isSuperset(of: ["engine.stopped", "device.removed", "player.finished"]), let e = try c.nextEvent(timeout: 5) {
            if case .string(let n)? = e["event"] {
                names.insert(n)
                if n == "engine.stopped" { #expect(e["reason"] == .string("gameControllerDisconnect")) }
                if n == "player.finished" { #expect(e["reason"] == .string("stopped")) }
            }
        }
        #expect(names.isSuperset(of: ["engine.stopped", "device.removed", "player.finished"]), "\(names)")
        #expect(first.released, "the unplugged device was closed")
        // The same pad comes back (same identity, new node): its engine is reset, players invalidated.
        let second = RecordingSink()
        h.core.addPad(info: Self.info("/dev/input/event9"), sink: second, simulated: false)
        // Announced first, then reset: a reset handler finds its pad listed.
        var order: [String] = []
        while !order.contains("engine.reset"), let e = try c.nextEvent(timeout: 5) {
            if case .string(let n)? = e["event"], n == "engine.reset" || n == "device.added" { order.append(n) }
        }
        #expect(order == ["device.added", "engine.reset"])
        #expect(code(c, "player.start", JSONObject(["player": p])) == "player_invalidated")
        _ = try c.request("play", JSONObject(["name": .string("click"), "device": .number(0)]))
        #expect(second.writes.count >= 1, "the re-attached pad plays")
        // Answering the reset at once, as a Core Haptics engine does (its start is `prepare`): the
        // pad is there by the time its reset is heard.
        h.core.removeDevice(path: "/dev/input/event9")
        let third = RecordingSink()
        h.core.addPad(info: Self.info("/dev/input/event5"), sink: third, simulated: false)
        while let e = try c.nextEvent(timeout: 5), e["event"] != .string("engine.reset") {}
        #expect(code(c, "prepare", JSONObject(["device": .number(0)])) == "ok", "prepare right after the reset")
    }

    @Test func destroyingAPlayingPlayerStopsTheMotor() throws {
        let h = try Harness()
        let sink = RecordingSink()
        h.core.addPad(info: Self.info("/dev/input/event4"), sink: sink, simulated: false)
        let c = try HapticClient(path: h.path)
        let p = try c.request("player.create", JSONObject(["name": .string("rumble-long")]))["player"]!
        _ = try c.request("player.start", JSONObject(["player": p]))
        _ = try c.request("player.destroy", JSONObject(["player": p]))
        #expect(sink.waitFor { $0.last == .set(.zero) }, "\(sink.writes)")
    }

    @Test func shutdownStopsTheMotorsWhileClientsAreStillConnected() throws {
        // The core shut down while a client is still connected (hapticd closes its socket first, but
        // nothing may depend on that): the motors stop, and the client gets errors, not a crash.
        let h = try Harness()
        let sink = RecordingSink()
        h.core.addPad(info: Self.info("/dev/input/event6"), sink: sink, simulated: false)
        let c = try HapticClient(path: h.path)
        let p = try c.request("player.create", JSONObject(["name": .string("rumble-long")]))["player"]!
        _ = try c.request("player.start", JSONObject(["player": p]))
        #expect(sink.waitFor { $0.last.map { $0 != .set(.zero) } ?? false }, "the motor runs: \(sink.writes)")
        h.core.shutdown()
        #expect(sink.writes.last == .set(.zero) && sink.released, "\(sink.writes)")
        #expect(code(c, "play", JSONObject(["name": .string("thud"), "device": .number(0)])) != "ok", "a command after shutdown is an error")
        #expect((try? c.request("ping")) != nil, "the connection is still answered until the socket closes")
    }
}

extension ServerTests {
    @Test func aDeviceErrorThatRecoversResetsTheEngine() throws {
        let h = try Harness()
        let c = try HapticClient(path: h.path)
        _ = try c.request("subscribe", JSONObject(["events": .array([.string("engine.reset"), .string("engine.stopped")])]))
        let failing = RecordingSink()
        h.core.addPad(info: Self.info("/dev/input/event5"), sink: failing, simulated: false)
        // What DeviceManager does: reopen the node, hand it back to the core.
        let healthy = RecordingSink()
        let core = h.core
        h.core.onDeviceFailure { path in
            DispatchQueue.global().async { core.addPad(info: ServerTests.info(path), sink: healthy, simulated: false) }
        }
        let p = try c.request("player.create", JSONObject(["name": .string("rumble-long")]))["player"]!
        failing.failWith = DeviceError(kind: .system(.ioError), operation: .upload, path: "/dev/input/event5")
        #expect(code(c, "player.start", JSONObject(["player": p])) == "device_error")
        var names: Set<String> = []
        while !names.isSuperset(of: ["engine.stopped", "engine.reset"]), let e = try c.nextEvent(timeout: 5) {
            if case .string(let n)? = e["event"] { names.insert(n) }
            if e["event"] == .string("engine.stopped") { #expect(e["reason"] == .string("systemError")) }
        }
        #expect(names.isSuperset(of: ["engine.stopped", "engine.reset"]), "\(names)")
        #expect(code(c, "player.start", JSONObject(["player": p])) == "player_invalidated")
        _ = try c.request("play", JSONObject(["name": .string("click")]))
        #expect(healthy.writes.count >= 1, "the recovered device plays")
    }
}
