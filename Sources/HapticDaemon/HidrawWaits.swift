/// Plugged-in pads waiting for their hidraw node (`HidrawBackend.Choice.notYet`): which, and until
/// when. A pad's event node can be there before its HID device's hidraw node is, and udev gives a new
/// node to hapticd's group on its own schedule after the kernel makes it; deciding at the first look
/// drove such a pad through evdev for as long as it stayed plugged in (seen in the systemd VM test:
/// a Switch Pro plugged in again got `switch-pro-usb` on evdev, its node `root:input 660` a moment
/// later). Pure bookkeeping, the time given, no I/O; `DeviceManager` opens, watches and keeps timers.
struct HidrawWaits: Sendable {
    enum Outcome: Equatable, Sendable {
        /// Look again when the node changes, and at the latest at `until`.
        case wait(until: Double)
        /// Waited long enough (or not allowed to wait): drive the pad through evdev.
        case giveUp
    }

    /// Each waiting pad's event node, and when its wait ends.
    private(set) var deadlines: [String: Double] = [:]

    /// The pad at `path` found its node not ready at `now`: it waits until `limit` seconds after the
    /// first time (a later look does not extend it), and past that gives up.
    mutating func notReady(_ path: String, now: Double, limit: Double) -> Outcome {
        let deadline = deadlines[path] ?? now + max(0, limit)
        guard now < deadline else {
            deadlines[path] = nil
            return .giveUp
        }
        deadlines[path] = deadline
        return .wait(until: deadline)
    }

    /// The pad is decided (a backend, an error) or unplugged: no longer waiting. True if it was.
    @discardableResult
    mutating func settled(_ path: String) -> Bool { deadlines.removeValue(forKey: path) != nil }

    func isWaiting(_ path: String) -> Bool { deadlines[path] != nil }

    /// The waiting pads' event nodes, in order.
    var waiting: [String] { deadlines.keys.sorted() }
}
