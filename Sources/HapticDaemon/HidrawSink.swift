import Evdev
import HapticCore
import Hidraw

/// A pad driven through its own rumble reports on its hidraw node (docs/devices.md, "hidraw"): every
/// write is one report of the profile's protocol; release silences every actuator through the same
/// node, then closes it. The kernel driver stays bound (buttons, sticks, LEDs keep working).
public final class HidrawSink: MotorSink {
    public let node: HidrawNode
    private var reports: any RumbleReports
    public private(set) var writes = 0

    init(node: HidrawNode, reports: any RumbleReports) {
        self.node = node
        self.reports = reports
    }

    public func apply(_ write: Pacer.Write) throws(DeviceError) {
        switch write {
        case .set(let m), .refresh(let m): try send(reports.report(m))
        }
    }

    public func release() {
        if node.isOpen { try? send(reports.silence()) }
        node.close()
    }

    private func send(_ report: [UInt8]) throws(DeviceError) {
        do {
            try node.write(report)
            writes += 1
        } catch {
            throw error.operation == .open
                ? DeviceError(.open, error.path, error.errno) : DeviceError(.report, error.path, error.errno)
        }
    }
}

/// Chooses a pad's backend: its hidraw profile and node where both exist and work, else evdev with a
/// reason to log and to report in `capabilities`.
public enum HidrawBackend {
    public enum Choice {
        /// Drive the pad through this sink with this (hidraw) profile.
        case hidraw(HidrawSink, DeviceProfile)
        /// Drive it through evdev; `reason` says why not hidraw (nil: no hidraw profile matches).
        case evdev(reason: String?)
        /// A hidraw profile matches, but the HID device's hidraw node is not there yet, or not yet
        /// hapticd's to open: both are what a pad looks like for a moment after it is plugged in (some
        /// drivers register the input device before the hidraw one; udev gives a node its group after
        /// the kernel makes it, on its own schedule). Worth trying again (`DeviceManager` waits up to
        /// `devices.hidraw_wait` for a hot-plugged pad); for good, it is `.evdev(reason:)`.
        case notYet(reason: String)
        /// Stream its voice coils as waveforms through this node (open, checked, silenced), with this
        /// profile; the evdev device stays the pad's compatible vibration (`DualSenseWaveformSink`).
        /// No node: the one at `path` cannot be used yet (`reason`): compatible vibration, and the node
        /// is tried again at a play.
        case waveform(HidrawNode?, path: String, DeviceProfile, reason: String?)
    }

    /// The hidraw profile for a pad, if any (`hidrawBuiltIn` first, then any configured hidraw profile).
    public static func profile(for info: DeviceInfo, in profiles: [DeviceProfile]) -> DeviceProfile? {
        profiles.first { $0.reports != nil && $0.matches(bus: info.bus, vendor: info.vendor, product: info.product, name: info.name, sticks: info.sticks) }
    }

    /// Opens the hidraw node of the HID device behind the pad's event node, checks that the kernel
    /// says it is the same device, and silences its actuators (a first report: a node that does not
    /// take reports fails here, before it is used).
    ///
    /// A DualSense's waveform profile (`dualsense-haptics`) gets its node (`.waveform`) after one silent
    /// report `0x32`, unless `dualSenseRumble` (`[devices] dualsense_haptics = "rumble"`) says not to;
    /// a node that is there but cannot be used (permissions, a failed report) is `.waveform` without
    /// a node, to be tried again later.
    public static func choose(
        for info: DeviceInfo, profiles: [DeviceProfile], forceEvdev: Bool, dualSenseRumble: Bool = false,
        sysfs: String = "/sys", dev: String = "/dev"
    ) -> Choice {
        guard let profile = profile(for: info, in: profiles), let protocolName = profile.reports else { return .evdev(reason: nil) }
        if forceEvdev { return .evdev(reason: "devices.backend is \"evdev\" in the configuration") }
        if protocolName == .dualSenseHaptics && dualSenseRumble {
            return .evdev(reason: "devices.dualsense_haptics is \"rumble\" in the configuration")
        }
        guard let path = Topology.hidrawNode(forEventNode: info.path, sysfs: sysfs) else {
            let why = "no hidraw node belongs to \(info.path)"
            // A HID device without its hidraw node (yet), or no HID device at all (uinput): only the first can change.
            return Topology.isHID(eventNode: info.path, sysfs: sysfs) ? .notYet(reason: why) : .evdev(reason: why)
        }
        let nodePath = dev == "/dev" ? path : dev + "/" + path.split(separator: "/").last!
        func unusable(_ reason: String, transient: Bool = false) -> Choice {
            protocolName == .dualSenseHaptics
                ? .waveform(nil, path: nodePath, profile, reason: reason) : transient ? .notYet(reason: reason) : .evdev(reason: reason)
        }
        let node: HidrawNode
        do {
            node = try HidrawNode.open(nodePath)
            let id = try node.info()
            guard id.vendor == info.vendor, id.product == info.product else {
                node.close()
                return .evdev(reason: "\(nodePath) is another device (\(Format.hex4(id.vendor)):\(Format.hex4(id.product)))")
            }
        } catch {
            // Not there yet (devtmpfs has not made it), or not yet given to hapticd's group by udev.
            guard error.errno == .permissionDenied || error.errno == .notPermitted else {
                return unusable(error.description, transient: error.errno == .noSuchFileOrDirectory)
            }
            return unusable(error.description + " (the node needs hapticd's udev rule, installed with the package or "
                + "make install: hapticd --print-udev-rules; docs/devices.md, \"hidraw\")", transient: true)
        }
        if protocolName == .dualSenseHaptics {
            do {
                try node.write(DualSenseBluetoothHaptics.report(frames: [], sequence: 0, counter: 0))
            } catch {
                node.close()
                return unusable(error.description)
            }
            return .waveform(node, path: nodePath, profile, reason: nil)
        }
        let sink = HidrawSink(node: node, reports: reports(protocolName, actuators: profile.actuators))
        do {
            try sink.apply(.set(.zero))
        } catch {
            sink.release()
            return .evdev(reason: error.description)
        }
        return .hidraw(sink, profile)
    }

    static func reports(_ name: DeviceProfile.Reports, actuators: DeviceProfile.Actuators) -> any RumbleReports {
        switch name {
        case .switchHDRumble: SwitchHDRumbleReports(single: actuators == .hdRumbleLeft || actuators == .hdRumbleRight)
        case .xboxBluetooth: XboxTriggerReports()
        // Not a rumble report: `choose` streams it (`.waveform`); as motors, silence.
        case .dualSenseHaptics: SilentReports()
        }
    }
}

/// Reports for a protocol that carries no motor values (a waveform transport, which `choose` never
/// drives as motors): an empty report that `HidrawNode.write` is never given.
struct SilentReports: RumbleReports {
    func report(_ m: MotorMagnitudes) -> [UInt8] { [] }
    func silence() -> [UInt8] { [] }
}
