// Apple's `GCDeviceBattery`, read from the kernel: a pad's driver registers its battery as a power
// supply under the pad's HID device (hid-playstation, hid-sony, hid-nintendo, xpad; hid-input for
// a HID battery-strength usage, as the Xbox pads over Bluetooth have), beside the pad's input
// device. So for the evdev node /dev/input/eventN the battery is
// /sys/class/input/eventN/device/device/power_supply/<name>/ with `capacity` (percent) or
// `capacity_level` (hid-nintendo: Critical … Full) and `status`. Read in the program's process, at
// each look, as Apple's values are live; a pad without one (a wired pad, the simulated pad, a node
// that is not a pad's) has no battery.
import Foundation

/// A controller's battery: Apple's `GCDeviceBattery`.
open class GCDeviceBattery: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable (the directory is read at each look).

    /// Apple's battery states.
    public enum State: Int, Sendable {
        case unknown = -1
        case discharging = 0
        case charging = 1
        case full = 2
    }

    /// The power supply's sysfs directory.
    let directory: String

    init(directory: String) {
        self.directory = directory
        super.init()
    }

    /// 0 (empty) … 1 (full): the driver's `capacity` percent, or its `capacity_level` (Critical 0.05,
    /// Low 0.25, Normal 0.5, High 0.75, Full 1) where it gives no percent; 0 when it gives neither.
    open var batteryLevel: Float {
        PowerSupply.level(capacity: read("capacity"), capacityLevel: read("capacity_level"))
    }

    /// The driver's `status`: Charging, Discharging, Full; "Not charging" (on a cable, not charging)
    /// is full when the level is, else unknown.
    open var batteryState: State {
        PowerSupply.state(status: read("status"), level: batteryLevel)
    }

    private func read(_ attribute: String) -> String? {
        try? String(contentsOfFile: directory + "/" + attribute, encoding: .utf8)
    }
}

/// Where a pad's battery is in sysfs, and what its attributes mean. The parsing is pure.
package enum PowerSupply {
    /// The battery power supply of the input device behind `eventNode` (a /dev/input/eventN path,
    /// or a link to one), under `sysfs`; nil when its driver registered none.
    package static func directory(eventNode: String, sysfs: String = "/sys") -> String? {
        guard let name = eventName(eventNode) else { return nil }
        let supplies = "\(sysfs)/class/input/\(name)/device/device/power_supply"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: supplies) else { return nil }
        return entries.sorted().lazy.map { supplies + "/" + $0 }.first { dir in
            let type = (try? String(contentsOfFile: dir + "/type", encoding: .utf8)).map(trimmed)
            return type == nil || type == "Battery"
        }
    }

    /// "eventN" for /dev/input/eventN or a link to it (udev's by-id and by-path names); nil for
    /// anything else.
    static func eventName(_ node: String) -> String? {
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: node))
            .map { $0.hasPrefix("/") ? $0 : (node as NSString).deletingLastPathComponent + "/" + $0 } ?? node
        let name = (target as NSString).lastPathComponent
        guard name.count > 5, name.hasPrefix("event"), name.dropFirst(5).allSatisfy(\.isNumber) else { return nil }
        return name
    }

    package static func level(capacity: String?, capacityLevel: String?) -> Float {
        if let c = capacity.map(trimmed), let percent = Double(c), percent.isFinite {
            return Float(min(100, max(0, percent)) / 100)
        }
        switch capacityLevel.map(trimmed) {
        case "Full": return 1
        case "High": return 0.75
        case "Normal": return 0.5
        case "Low": return 0.25
        case "Critical": return 0.05
        default: return 0
        }
    }

    package static func state(status: String?, level: Float) -> GCDeviceBattery.State {
        switch status.map(trimmed) {
        case "Charging": return .charging
        case "Discharging": return .discharging
        case "Full": return .full
        case "Not charging": return level >= 1 ? .full : .unknown
        default: return .unknown
        }
    }

    private static func trimmed(_ s: String) -> String { s.trimmingCharacters(in: .whitespacesAndNewlines) }
}
