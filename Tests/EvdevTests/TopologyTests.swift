import Foundation
import Testing
@testable import Evdev

/// Finding a pad's hidraw node and USB sound card, on sysfs trees built as the kernel lays them out.
@Suite struct TopologyTests {
    /// A DualSense on USB: HID device 0003:054C:0CE6.0001 under interface 1-1:1.3, with input12/event5
    /// and hidraw/hidraw2; the audio interface 1-1:1.0 has sound/card1. A Bluetooth Switch Pro: HID
    /// device 0005:057E:2009.0002 with event7 and hidraw3, no USB parent.
    func tree() throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sysfs-\(UUID().uuidString.prefix(8))").path
        let usb = root + "/devices/pci0000:00/0000:00:14.0/usb1/1-1"
        let hid = usb + "/1-1:1.3/0003:054C:0CE6.0001"
        let bt = root + "/devices/virtual/misc/uhid/0005:057E:2009.0002"
        let fm = FileManager.default
        for dir in [hid + "/input/input12/event5", hid + "/hidraw/hidraw2", usb + "/1-1:1.0/sound/card1", usb + "/1-1:1.1",
                    bt + "/input/input20/event7", bt + "/hidraw/hidraw3", root + "/class/input", root + "/devices/virtual/input/input30/event9"] {
            try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        try fm.createSymbolicLink(atPath: root + "/class/input/event5", withDestinationPath: "../../devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.3/0003:054C:0CE6.0001/input/input12/event5")
        try fm.createSymbolicLink(atPath: root + "/class/input/event7", withDestinationPath: "../../devices/virtual/misc/uhid/0005:057E:2009.0002/input/input20/event7")
        try fm.createSymbolicLink(atPath: root + "/class/input/event9", withDestinationPath: "../../devices/virtual/input/input30/event9")
        return root
    }

    @Test func theHidrawNodeOfTheSameHIDDevice() throws {
        let sys = try tree()
        defer { try? FileManager.default.removeItem(atPath: sys) }
        #expect(Topology.hidrawNode(forEventNode: "/dev/input/event5", sysfs: sys) == "/dev/hidraw2")
        #expect(Topology.hidrawNode(forEventNode: "/dev/input/event7", sysfs: sys) == "/dev/hidraw3")
        #expect(Topology.hidrawNode(forEventNode: "/dev/input/event9", sysfs: sys) == nil, "a uinput pad has no HID device")
        #expect(Topology.hidrawNode(forEventNode: "/dev/input/event42", sysfs: sys) == nil)
        #expect(Topology.hidrawNode(forEventNode: "/dev/input/js0", sysfs: sys) == nil)
        #expect(Topology.hidrawNode(forEventNode: "../../etc/event1", sysfs: sys) == nil)
    }

    @Test func theSoundCardOfTheSameUSBDevice() throws {
        let sys = try tree()
        defer { try? FileManager.default.removeItem(atPath: sys) }
        #expect(Topology.soundCard(forEventNode: "/dev/input/event5", sysfs: sys) == 1)
        #expect(Topology.soundCard(forEventNode: "/dev/input/event7", sysfs: sys) == nil, "Bluetooth: no USB audio")
        #expect(Topology.soundCard(forEventNode: "/dev/input/event9", sysfs: sys) == nil)
    }

    @Test func hidNamesAreRecognised() {
        #expect(Topology.isHIDName("0003:054C:0CE6.0001"))
        #expect(Topology.isHIDName("0005:057E:2009.000A"))
        #expect(!Topology.isHIDName("1-1:1.3"))
        #expect(!Topology.isHIDName("input12"))
        #expect(!Topology.isHIDName("0003:054C:0CE6"))
    }
}
