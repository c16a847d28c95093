import Evdev
import Foundation
import HapticCore
import Testing
@testable import HapticDaemon

/// Choosing a pad's backend: its hidraw profile and node where both exist and work, else evdev with
/// the reason (the VM test drives the real node behind hid-nintendo and hid-microsoft).
@Suite struct HidrawBackendTests {
    /// A sysfs tree with a Switch Pro over USB (event5 → hidraw2) and a pad without hidraw (event9),
    /// and a /dev of its own.
    func tree() throws -> (sys: String, dev: String) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hidraw-\(UUID().uuidString.prefix(8))").path
        let hid = root + "/sys/devices/pci0000:00/usb1/1-1/1-1:1.0/0003:057E:2009.0001"
        let fm = FileManager.default
        for dir in [hid + "/input/input12/event5", hid + "/hidraw/hidraw2", root + "/sys/class/input",
                    root + "/sys/devices/virtual/input/input30/event9", root + "/dev"] {
            try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        try fm.createSymbolicLink(atPath: root + "/sys/class/input/event5",
                                  withDestinationPath: "../../devices/pci0000:00/usb1/1-1/1-1:1.0/0003:057E:2009.0001/input/input12/event5")
        try fm.createSymbolicLink(atPath: root + "/sys/class/input/event9", withDestinationPath: "../../devices/virtual/input/input30/event9")
        return (root + "/sys", root + "/dev")
    }

    func pad(_ node: String, vendor: UInt16 = 0x057E, product: UInt16 = 0x2009) -> DeviceInfo {
        DeviceInfo(path: node, name: "Pro Controller", bus: 0x03, vendor: vendor, product: product, version: 1,
                   effectSlots: 16, hasRumble: true, supportsGain: false)
    }

    func reason(_ choice: HidrawBackend.Choice) -> String?? {
        if case .evdev(let why) = choice { return .some(why) }
        return .none
    }

    /// Why the node is not ready yet, when the choice is to wait for it.
    func notYet(_ choice: HidrawBackend.Choice) -> String? {
        if case .notYet(let why) = choice { return why }
        return nil
    }

    @Test func aPadWithoutAHidrawProfileStaysOnEvdevSilently() throws {
        let (sys, dev) = try tree()
        let choice = HidrawBackend.choose(for: pad("/dev/input/event5", vendor: 0x054C, product: 0x0CE6), profiles: DeviceProfile.allBuiltIn,
                                          forceEvdev: false, sysfs: sys, dev: dev)
        #expect(reason(choice) == .some(nil), "no hidraw profile matches a DualSense: no reason to give")
    }

    @Test func configCanForceEvdev() throws {
        let (sys, dev) = try tree()
        let choice = HidrawBackend.choose(for: pad("/dev/input/event5"), profiles: DeviceProfile.allBuiltIn, forceEvdev: true, sysfs: sys, dev: dev)
        #expect(reason(choice) == .some("devices.backend is \"evdev\" in the configuration"))
    }

    @Test func everyWayTheNodeCanFailFallsBackWithItsReason() throws {
        let (sys, dev) = try tree()
        let all = DeviceProfile.allBuiltIn
        // No HID device behind the event node (a uinput pad with a Switch's ids).
        #expect(reason(HidrawBackend.choose(for: pad("/dev/input/event9"), profiles: all, forceEvdev: false, sysfs: sys, dev: dev))
                == .some("no hidraw node belongs to /dev/input/event9"))
        // The node is not there to open: not yet made (a moment after the pad appears), worth a wait.
        #expect(notYet(HidrawBackend.choose(for: pad("/dev/input/event5"), profiles: all, forceEvdev: false, sysfs: sys, dev: dev))
                == "\(dev)/hidraw2: open failed: no such file or directory")
        // Something that is not a hidraw node: the kernel cannot say what device it is.
        #expect(FileManager.default.createFile(atPath: dev + "/hidraw2", contents: nil))
        let notHidraw = HidrawBackend.choose(for: pad("/dev/input/event5"), profiles: all, forceEvdev: false, sysfs: sys, dev: dev)
        #expect(reason(notHidraw) == .some("\(dev)/hidraw2: read device info failed: inappropriate ioctl for device"))
    }

    /// A HID device whose hidraw node is not made yet (hid_connect registers the input device first):
    /// worth a wait; no HID device at all (uinput) is evdev for good, and so is a forced evdev.
    @Test func aHIDDeviceWithoutItsHidrawNodeYetIsWorthAWait() throws {
        let (sys, dev) = try tree()
        let hidraw = try FileManager.default.contentsOfDirectory(atPath: sys + "/class/input/event5/../../../hidraw")
        #expect(hidraw == ["hidraw2"])
        try FileManager.default.removeItem(atPath: sys + "/class/input/event5/../../../hidraw/hidraw2")
        let all = DeviceProfile.allBuiltIn
        #expect(notYet(HidrawBackend.choose(for: pad("/dev/input/event5"), profiles: all, forceEvdev: false, sysfs: sys, dev: dev))
                == "no hidraw node belongs to /dev/input/event5")
        #expect(reason(HidrawBackend.choose(for: pad("/dev/input/event9"), profiles: all, forceEvdev: false, sysfs: sys, dev: dev))
                == .some("no hidraw node belongs to /dev/input/event9"))
        #expect(reason(HidrawBackend.choose(for: pad("/dev/input/event5"), profiles: all, forceEvdev: true, sysfs: sys, dev: dev))
                == .some("devices.backend is \"evdev\" in the configuration"))
    }

    @Test func theHidrawProfileIsTheFirstMatchingOneWithReports() {
        let all = DeviceProfile.allBuiltIn
        #expect(HidrawBackend.profile(for: pad("/dev/input/event5"), in: all)?.name == "switch-pro-usb-hd")
        var bt = pad("/dev/input/event5", vendor: 0x045E, product: 0x0B13)
        bt.bus = 0x05
        #expect(HidrawBackend.profile(for: bt, in: all)?.name == "xbox-bluetooth-triggers")
        #expect(HidrawBackend.profile(for: pad("/dev/input/event5", vendor: 0x045E, product: 0x0B13), in: all) == nil,
                "an Xbox pad over USB (xpad) has no hidraw profile")
        #expect(HidrawBackend.profile(for: pad("/dev/input/event5"), in: DeviceProfile.builtIn) == nil)
        for p in DeviceProfile.hidrawBuiltIn {
            #expect(p.evdevFallback.flatMap { DeviceProfile.named($0) }?.reports == nil, "\(p.name) falls back to an evdev profile")
        }
    }

    /// A Joy-Con alone has one HD actuator, written to both halves of report 0x10 (it reads only its
    /// own); the Pro's two stay two. Without `single` a Joy-Con (R) through hidraw is silent.
    @Test func aJoyConsReportsCarryItsOneActuatorInBothHalves() {
        let m = MotorMagnitudes(strong: 30000, weak: 20000)
        for p in [DeviceProfile.joyConLeftBluetoothHD, .joyConRightBluetoothHD] {
            var reports = HidrawBackend.reports(p.reports!, actuators: p.actuators)
            let r = reports.report(m)
            #expect(r.count == 10 && Array(r[2..<6]) == Array(r[6..<10]) && Array(r[6..<10]) != [0x00, 0x01, 0x40, 0x40], "\(p.name): \(r)")
        }
        var pro = HidrawBackend.reports(.switchHDRumble, actuators: DeviceProfile.switchProBluetoothHD.actuators)
        #expect(Array(pro.report(m)[6..<10]) == [0x00, 0x01, 0x40, 0x40], "the Pro's right actuator is the second pair's")
    }

    /// A DualSense over Bluetooth: its waveform profile; a node that cannot be used yet keeps the
    /// waveform sink (retried at a play) with the reason; the configuration can keep it on its motors.
    @Test func aDualSenseOverBluetoothGetsItsWaveformProfile() throws {
        let (sys, dev) = try tree()
        var ds = pad("/dev/input/event5", vendor: 0x054C, product: 0x0CE6)
        ds.bus = 0x05
        let choice = HidrawBackend.choose(for: ds, profiles: DeviceProfile.allBuiltIn, forceEvdev: false, sysfs: sys, dev: dev)
        guard case .waveform(let node, let path, let profile, let why) = choice else {
            Issue.record("not a waveform choice: \(choice)")
            return
        }
        #expect(node == nil && path == dev + "/hidraw2" && profile.name == "dualsense-bluetooth-waveform")
        #expect(why == "\(dev)/hidraw2: open failed: no such file or directory")
        let rumble = HidrawBackend.choose(for: ds, profiles: DeviceProfile.allBuiltIn, forceEvdev: false, dualSenseRumble: true, sysfs: sys, dev: dev)
        #expect(reason(rumble) == .some("devices.dualsense_haptics is \"rumble\" in the configuration"))
        #expect(reason(HidrawBackend.choose(for: ds, profiles: DeviceProfile.allBuiltIn, forceEvdev: true, sysfs: sys, dev: dev))
                == .some("devices.backend is \"evdev\" in the configuration"))
        // Over USB it has no hidraw profile: evdev, nothing to explain.
        ds.bus = 0x03
        #expect(reason(HidrawBackend.choose(for: ds, profiles: DeviceProfile.allBuiltIn, forceEvdev: false, sysfs: sys, dev: dev)) == .some(nil))
    }
}
