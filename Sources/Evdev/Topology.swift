import Glibc

/// Where a pad's other interfaces are: the hidraw node of the same HID device as its evdev node (for
/// reports evdev cannot send: Switch HD rumble, Xbox trigger motors, DualSense Bluetooth haptics) and
/// the ALSA card of the same USB device (the DualSense's actuators are channels of its USB audio
/// stream). Read from sysfs, whose root is a parameter so tests can build a tree of their own.
///
/// An evdev node's sysfs directory (`/sys/class/input/eventN`, a link into `/sys/devices`) sits
/// under its HID device (a directory named `BBBB:VVVV:PPPP.NNNN`), which holds `hidraw/hidrawM`;
/// a USB HID device sits under its USB interface (`1-1:1.3`), whose USB device (`1-1`) also holds the
/// audio interface with `sound/cardK`.
public enum Topology {
    /// `/dev/hidrawM` of the HID device behind `/dev/input/eventN`, or nil (not a HID device, no
    /// hidraw node, or not an event node).
    public static func hidrawNode(forEventNode node: String, sysfs: String = "/sys") -> String? {
        guard let hid = hidDevice(forEventNode: node, sysfs: sysfs) else { return nil }
        guard let name = entries(hid + "/hidraw").filter({ $0.hasPrefix("hidraw") }).sorted().first else { return nil }
        return "/dev/" + name
    }

    /// Whether a HID device is behind `/dev/input/eventN` (its hidraw node may not be made yet).
    public static func isHID(eventNode node: String, sysfs: String = "/sys") -> Bool {
        hidDevice(forEventNode: node, sysfs: sysfs) != nil
    }

    /// The ALSA card number of the USB device behind `/dev/input/eventN`, or nil (not USB, or no
    /// sound card on that device).
    public static func soundCard(forEventNode node: String, sysfs: String = "/sys") -> Int? {
        guard let hid = hidDevice(forEventNode: node, sysfs: sysfs) else { return nil }
        // Up from the HID device: its USB interface (`1-1:1.3`), then the USB device (`1-1`).
        let interface = parent(hid)
        guard base(interface).contains(":") else { return nil }
        let device = parent(interface)
        let deviceName = base(device)
        for entry in entries(device).sorted() where entry.hasPrefix(deviceName + ":") {
            for card in entries(device + "/" + entry + "/sound").sorted() where card.hasPrefix("card") {
                if let k = Int(card.dropFirst(4)) { return k }
            }
        }
        return nil
    }

    /// The HID device directory (resolved) above the event node's sysfs directory.
    static func hidDevice(forEventNode node: String, sysfs: String) -> String? {
        let name = base(node)
        guard name.hasPrefix("event"), Int(name.dropFirst(5)) != nil else { return nil }
        guard var dir = resolve(sysfs + "/class/input/" + name) else { return nil }
        let root = resolve(sysfs) ?? sysfs
        // At most a handful of levels separate eventN from its HID device; bounded.
        for _ in 0..<8 {
            dir = parent(dir)
            guard dir.count > root.count else { return nil }
            if isHIDName(base(dir)) { return dir }
        }
        return nil
    }

    /// `BBBB:VVVV:PPPP.NNNN` in hex.
    static func isHIDName(_ s: String) -> Bool {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 4 else { return false }
        let last = parts[2].split(separator: ".", omittingEmptySubsequences: false)
        guard last.count == 2, last[0].count == 4, !last[1].isEmpty else { return false }
        return [parts[0], parts[1], last[0], last[1]].allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }

    static func resolve(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    static func base(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// The names in a directory (none when it cannot be read); at most 4096.
    static func entries(_ dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while names.count < 4096, let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
