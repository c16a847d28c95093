import Evdev
import Foundation
import HapticCore
import SystemPackage
import Testing

func pad(_ path: String, name: String = "pad", rumble: Bool = true, product: UInt16 = 0x02EA) -> DeviceInfo {
    DeviceInfo(path: path, name: name, bus: 0x03, vendor: 0x045E, product: product, version: 1,
               effectSlots: 16, hasRumble: rumble, supportsGain: true)
}

@Suite struct DeviceTrackerTests {
    @Test func reportsNewPadsOnceAndRemovalsOfKnownOnes() {
        var tracker = DeviceTracker()
        #expect(tracker.probed("/dev/input/event3", .success(pad("/dev/input/event3"))) == [.added(pad("/dev/input/event3"))])
        #expect(tracker.probed("/dev/input/event3", .success(pad("/dev/input/event3"))) == [], "an attribute change of a known pad is not news")
        #expect(tracker.removed("/dev/input/event3") == [.removed(path: "/dev/input/event3")])
        #expect(tracker.removed("/dev/input/event3") == [], "a node we never reported is not reported gone")
    }

    @Test func ignoresDevicesWithoutRumble() {
        var tracker = DeviceTracker()
        #expect(tracker.probed("/dev/input/event1", .success(pad("/dev/input/event1", rumble: false))) == [])
        #expect(tracker.devices.isEmpty)
    }

    @Test func waitsForPermissionsThenAddsOnTheAttributeChange() {
        var tracker = DeviceTracker()
        let denied = DeviceError(kind: .permissionDenied, operation: .open, path: "/dev/input/event4")
        #expect(tracker.probed("/dev/input/event4", .failure(denied)) == [])
        #expect(tracker.probed("/dev/input/event4", .success(pad("/dev/input/event4"))) == [.added(pad("/dev/input/event4"))])
    }

    @Test func aKnownPadThatFailsAsGoneIsRemoved() {
        var tracker = DeviceTracker()
        _ = tracker.probed("/dev/input/event4", .success(pad("/dev/input/event4")))
        let gone = DeviceError(kind: .disconnected, operation: .probe, path: "/dev/input/event4")
        #expect(tracker.probed("/dev/input/event4", .failure(gone)) == [.removed(path: "/dev/input/event4")])
    }

    @Test func aDifferentPadAtTheSamePathIsARemovalAndAnAddition() {
        var tracker = DeviceTracker()
        _ = tracker.probed("/dev/input/event5", .success(pad("/dev/input/event5", name: "a")))
        let b = pad("/dev/input/event5", name: "b", product: 0x0B12)
        #expect(tracker.probed("/dev/input/event5", .success(b)) == [.removed(path: "/dev/input/event5"), .added(b)])
    }

    @Test func resyncReconcilesWithAFullScan() {
        var tracker = DeviceTracker()
        _ = tracker.probed("/dev/input/event1", .success(pad("/dev/input/event1")))
        _ = tracker.probed("/dev/input/event2", .success(pad("/dev/input/event2")))
        let events = tracker.resync([pad("/dev/input/event2"), pad("/dev/input/event7")])
        #expect(events == [.removed(path: "/dev/input/event1"), .added(pad("/dev/input/event7"))])
        #expect(tracker.devices.keys.sorted() == ["/dev/input/event2", "/dev/input/event7"])
    }
}

@Suite struct DeviceErrorTests {
    @Test func mapsErrnoToKinds() {
        #expect(DeviceError(.upload, "p", .operationNotSupportedByDevice).kind == .disconnected)
        #expect(DeviceError(.open, "p", .noSuchFileOrDirectory).kind == .disconnected)
        #expect(DeviceError(.open, "p", .permissionDenied).kind == .permissionDenied)
        #expect(DeviceError(.open, "p", .notPermitted).kind == .permissionDenied)
        #expect(DeviceError(.upload, "p", .noSpace).kind == .effectTableFull)
        #expect(DeviceError(.upload, "p", .invalidArgument).kind == .invalidArgument)
        #expect(DeviceError(.upload, "p", .ioError).kind == .system(.ioError))
    }

    @Test func permissionDeniedNamesTheFix() {
        let text = DeviceError(.open, "/dev/input/event3", .permissionDenied).description
        #expect(text.hasPrefix("/dev/input/event3: open failed: permission denied."))
        #expect(text.contains("'input' group") && text.contains("systemd service"))
        // The rule that gives event nodes to 'input' is udev's own; hapticd's (70-hapticd.rules) is for hidraw nodes.
        #expect(text.contains("50-udev-default.rules") && !text.contains("70-hapticd"))
    }

    @Test func otherMessagesAreSpecific() {
        #expect(DeviceError(.upload, "/dev/input/event3", .noSpace).description
                == "/dev/input/event3: upload effect failed: the device's effect table is full (another program holds its effects)")
        #expect(DeviceError(.play, "/dev/input/event3", .operationNotSupportedByDevice).description
                == "/dev/input/event3: play failed: the device is gone (unplugged)")
    }
}

@Suite struct DiscoveryTests {
    @Test func recognisesEventNodes() {
        #expect(DeviceDiscovery.isEventNode("event0"))
        #expect(DeviceDiscovery.isEventNode("event17"))
        #expect(!DeviceDiscovery.isEventNode("event"))
        #expect(!DeviceDiscovery.isEventNode("js0"))
        #expect(!DeviceDiscovery.isEventNode("mouse0"))
        #expect(!DeviceDiscovery.isEventNode("event1a"))
    }

    @Test func scanningADirectoryWithoutPadsFindsNone() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hapticd-scan-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // A regular file named like a node is not a device: a reported problem, not a crash.
        try Data("x".utf8).write(to: dir.appendingPathComponent("event0"))
        let scan = DeviceDiscovery.scan(directory: dir.path)
        #expect(scan.devices.isEmpty)
        #expect(scan.problems.count == 1)
        #expect(scan.problems.first?.operation == .probe)
    }

    @Test func openingAMissingNodeIsAClearError() {
        #expect(throws: DeviceError(kind: .disconnected, operation: .open, path: "/nonexistent/event9")) {
            _ = try RumbleDevice(path: "/nonexistent/event9")
        }
    }

    @Test func theWatcherReportsNodesAppearingAndDisappearing() throws {
        // inotify on an ordinary directory: the same code path as /dev/input.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hapticd-watch-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let watcher = try InputDirectoryWatcher(directory: dir.path)
        #expect(try watcher.readChanges() == [])
        FileManager.default.createFile(atPath: dir.appendingPathComponent("event4").path, contents: nil)
        FileManager.default.createFile(atPath: dir.appendingPathComponent("js0").path, contents: nil)
        try FileManager.default.removeItem(at: dir.appendingPathComponent("event4"))
        #expect(watcher.wait(timeout: 5))
        let path = dir.appendingPathComponent("event4").path
        #expect(try watcher.readChanges() == [.appeared(path), .disappeared(path)])
    }

    @Test func profilesForRealPads() {
        #expect(pad("x").profile().name == "xbox-one-usb")
        #expect(pad("x").usbID == "045e:02ea")
        #expect(pad("x", product: 0x9999).profile().name == "generic")
    }
}
