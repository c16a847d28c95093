import Evdev
import HapticCore

/// The pads the daemon knows, by number, connected or not: a pad that is unplugged keeps its number
/// (and its engines, in the render loop) for when it comes back. Plain state, part of `DaemonState`, kept
/// under the render loop's lock; tests build it directly.
struct PadRegistry {
    struct Record {
        var info: DeviceInfo
        var profile: DeviceProfile
        var simulated: Bool
        var connected: Bool
        var backend = PadBackend.evdev(fallback: nil)
    }

    private var byID: [PadID: Record] = [:]
    private var next = 0

    subscript(id: PadID) -> Record? { byID[id] }

    /// Every pad's number, in order: kept, not sorted per use (every command that names no device
    /// looks for the first connected pad here).
    private(set) var ids: [PadID] = []

    /// Whether the pad is connected, without a copy of its record.
    func isConnected(_ id: PadID) -> Bool { byID[id]?.connected ?? false }

    /// A pad arrives. One the registry knew (the same device, unplugged) takes up its old number
    /// (`reattached`) when it comes back with the same profile; any other gets a new one (a pad that
    /// returns through another backend, hidraw or evdev, has other actuators: new engines). The one
    /// it replaces is forgotten (`replaced`).
    /// `connected: false` keeps it out of commands until `markConnected` (its sink is in the render
    /// loop by then).
    mutating func attach(
        _ info: DeviceInfo, profile: DeviceProfile, simulated: Bool, backend: PadBackend = .evdev(fallback: nil),
        connected: Bool = true
    ) -> (id: PadID, reattached: Bool, replaced: PadID?) {
        var replaced: PadID?
        if let known = ids.first(where: { !byID[$0]!.connected && Self.sameDevice(byID[$0]!.info, info) }) {
            if byID[known]!.profile == profile {
                byID[known]!.connected = connected
                byID[known]!.info = info
                byID[known]!.backend = backend
                return (known, true, nil)
            }
            byID[known] = nil
            ids.removeAll { $0 == known }
            replaced = known
        }
        let id = next
        next += 1
        byID[id] = Record(info: info, profile: profile, simulated: simulated, connected: connected, backend: backend)
        ids.append(id)  // the largest number yet: still in order
        return (id, false, replaced)
    }

    /// A pad attached with `connected: false` is ready for commands.
    mutating func markConnected(_ id: PadID) {
        byID[id]?.connected = true
    }

    /// The pad's backend changed while it stayed attached (a waveform transport that failed or came back).
    mutating func setBackend(_ id: PadID, _ backend: PadBackend) {
        byID[id]?.backend = backend
    }

    /// The connected pad at `path` is gone: its number, or nil when no connected pad is there.
    mutating func detach(path: String) -> PadID? {
        guard let id = ids.first(where: { byID[$0]!.info.path == path && byID[$0]!.connected }) else { return nil }
        byID[id]!.connected = false
        return id
    }

    /// Writing to a pad failed while it stayed plugged in: it counts as disconnected until it is
    /// reopened (`attach`). The path to reopen, for a real pad that was connected.
    mutating func failed(_ id: PadID) -> String? {
        guard let record = byID[id], !record.simulated, record.connected else { return nil }
        byID[id]!.connected = false
        return record.info.path
    }

    /// Whether two devices are the same pad: the same identity, and the same serial when there is one.
    static func sameDevice(_ a: DeviceInfo, _ b: DeviceInfo) -> Bool {
        // The sticks too: the charging grip's two Joy-Cons share IDs and, from Linux 6.8 on, a name.
        guard a.vendor == b.vendor, a.product == b.product, a.bus == b.bus, a.name == b.name, a.sticks == b.sticks else { return false }
        if let ua = a.uniq, let ub = b.uniq, !ua.isEmpty { return ua == ub }
        return true
    }
}

/// How a pad's output reaches it (`capabilities`' `backend`).
public enum PadBackend: Equatable, Sendable {
    /// evdev's `FF_RUMBLE`; `fallback`: why not the pad's hidraw profile, when one matched it.
    case evdev(fallback: String?)
    /// The pad's own reports on this hidraw node.
    case hidraw(node: String)
    /// Voice-coil waveforms on the pad's USB audio stream, this ALSA device (a DualSense over USB).
    case usbAudio(device: String)
    /// `hapticd --simulate`.
    case simulated

    public var name: String {
        switch self {
        case .evdev: "evdev"
        case .hidraw: "hidraw"
        case .usbAudio: "usb-audio"
        case .simulated: "simulated"
        }
    }
}
