import CEvdev
import Glibc
import HapticCore
import SystemPackage

/// What a rumble pad says about itself. A Sendable value: it crosses freely between queues.
public struct DeviceInfo: Equatable, Sendable, Hashable {
    public var path: String
    public var name: String
    public var bus: UInt16
    public var vendor: UInt16
    public var product: UInt16
    public var version: UInt16
    public var phys: String?
    public var uniq: String?
    /// How many effects the pad holds at once (`EVIOCGEFFECTS`).
    public var effectSlots: Int
    public var hasRumble: Bool
    public var supportsGain: Bool
    /// The analog sticks it reports (`ABS_X`/`ABS_Y`, `ABS_RX`/`ABS_RY`): what tells the charging
    /// grip's two Joy-Cons apart (`DeviceProfile.Match.sticks`).
    public var sticks: DeviceProfile.Sticks

    public init(
        path: String, name: String, bus: UInt16, vendor: UInt16, product: UInt16, version: UInt16,
        phys: String? = nil, uniq: String? = nil, effectSlots: Int, hasRumble: Bool, supportsGain: Bool,
        sticks: DeviceProfile.Sticks = []
    ) {
        self.sticks = sticks
        self.path = path
        self.name = name
        self.bus = bus
        self.vendor = vendor
        self.product = product
        self.version = version
        self.phys = phys
        self.uniq = uniq
        self.effectSlots = effectSlots
        self.hasRumble = hasRumble
        self.supportsGain = supportsGain
    }

    /// `vvvv:pppp` in hex, as lsusb prints it.
    public var usbID: String { Format.hex4(vendor) + ":" + Format.hex4(product) }

    /// The built-in (or given) profile that matches this pad, or the generic one.
    public func profile(in profiles: [DeviceProfile] = DeviceProfile.builtIn) -> DeviceProfile {
        DeviceProfile.forDevice(bus: bus, vendor: vendor, product: product, name: name, sticks: sticks, in: profiles)
    }
}


/// Reads a device's identity and force-feedback capabilities from an open descriptor with libevdev.
func probe(fd: Int32, path: String) throws(DeviceError) -> DeviceInfo {
    var handle: OpaquePointer?
    try libevdevCall(.probe, path) { libevdev_new_from_fd(fd, &handle) }
    guard let dev = handle else { throw DeviceError(kind: .system(.ioError), operation: .probe, path: path) }
    defer { libevdev_free(dev) }
    var slots: Int32 = 0
    let hasFF = libevdev_has_event_type(dev, UInt32(EV_FF)) != 0
    if hasFF {
        try syscall(.probe, path) { hapticd_ioctl_ptr(fd, hapticd_eviocgeffects(), &slots) }
    }
    func string(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
    return DeviceInfo(
        path: path, name: string(libevdev_get_name(dev)) ?? "",
        bus: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(dev)),
        vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(dev)),
        product: UInt16(truncatingIfNeeded: libevdev_get_id_product(dev)),
        version: UInt16(truncatingIfNeeded: libevdev_get_id_version(dev)),
        phys: string(libevdev_get_phys(dev)), uniq: string(libevdev_get_uniq(dev)),
        effectSlots: Int(slots),
        hasRumble: hasFF && libevdev_has_event_code(dev, UInt32(EV_FF), UInt32(FF_RUMBLE)) != 0,
        supportsGain: hasFF && libevdev_has_event_code(dev, UInt32(EV_FF), UInt32(FF_GAIN)) != 0,
        sticks: sticks(dev))
}

/// The analog sticks a device reports: left for `ABS_X` and `ABS_Y`, right for `ABS_RX` and `ABS_RY`.
private func sticks(_ dev: OpaquePointer) -> DeviceProfile.Sticks {
    func has(_ code: Int32) -> Bool { libevdev_has_event_code(dev, UInt32(EV_ABS), UInt32(code)) != 0 }
    var s: DeviceProfile.Sticks = []
    if has(ABS_X) && has(ABS_Y) { s.insert(.left) }
    if has(ABS_RX) && has(ABS_RY) { s.insert(.right) }
    return s
}

/// Finding rumble pads among `/dev/input/event*`.
public enum DeviceDiscovery {
    public static let defaultDirectory = "/dev/input"

    /// Whether a file name is an evdev node (`event0`, `event17`, …).
    public static func isEventNode(_ name: String) -> Bool {
        name.hasPrefix("event") && name.count > 5 && name.dropFirst(5).allSatisfy(\.isNumber)
    }

    /// Reads one node's identity without keeping it open (read-only is enough to ask).
    public static func inspect(_ path: String) throws(DeviceError) -> DeviceInfo {
        let fd = try syscall(.open, path) { open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        defer { _ = Glibc.close(fd) }
        return try probe(fd: fd, path: path)
    }

    /// The outcome of a scan: the rumble pads, and the nodes that could not be read with why.
    public struct Scan: Sendable {
        public var devices: [DeviceInfo] = []
        public var problems: [DeviceError] = []
    }

    /// Every `event*` node under `directory` that advertises `FF_RUMBLE` (the bit, not merely effect
    /// slots), in node order.
    public static func scan(directory: String = defaultDirectory) -> Scan {
        var scan = Scan()
        guard let dir = opendir(directory) else { return scan }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if isEventNode(name) { names.append(name) }
        }
        names.sort { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }
        for name in names {
            let path = directory + "/" + name
            do {
                let info = try inspect(path)
                if info.hasRumble { scan.devices.append(info) }
            } catch {
                if error.kind != .disconnected { scan.problems.append(error) }
            }
        }
        return scan
    }
}
