// Reads a pad's evdev node for `GCExtendedGamepad`, in the program's own process, on a thread of its
// own (libevdev: capabilities, current state, and the resync after the kernel dropped events).
// hapticd is not involved: it drives the actuators; input goes from the kernel to the program, as
// it does for SDL. The node must be readable by the program's user (desktop sessions give the
// logged-in user pads' nodes: systemd-logind's `uaccess`); when it is not, the profile is there
// and never changes.
import CEvdev
import Dispatch
import Foundation
import Glibc
import Synchronization

final class GamepadInput: @unchecked Sendable {
    // @unchecked Sendable: `device` and `state` are used by the reading thread only once `start` has
    // handed them to it (before, only by `open`, on the caller's thread); the file descriptors are
    // set once and closed by the thread as it ends.
    let capabilities: InputCapabilities
    private let fd: Int32
    private let device: OpaquePointer
    private var state: GamepadState
    /// Written to stop the thread.
    private let wake: (read: Int32, write: Int32)
    private let stopped = Atomic<Bool>(false)

    /// The node's reader, its capabilities and current state read; nil when it cannot be opened or
    /// is not an evdev node.
    static func open(path: String, touchpad: Bool = false) -> GamepadInput? {
        guard let (fd, dev, wake) = EvdevNode.open(path) else { return nil }
        return GamepadInput(fd: fd, device: dev, wake: wake, touchpad: touchpad)
    }

    private init(fd: Int32, device: OpaquePointer, wake: (read: Int32, write: Int32), touchpad: Bool) {
        self.fd = fd
        self.device = device
        self.wake = wake
        var keys = Set<UInt16>()
        for code in UInt16(0x100)...UInt16(0x2ff) where libevdev_has_event_code(device, UInt32(EV_KEY), UInt32(code)) == 1 {
            keys.insert(code)
        }
        var axes: [UInt16: InputCapabilities.Axis] = [:]
        for code in UInt16(0)...UInt16(0x3f) where libevdev_has_event_code(device, UInt32(EV_ABS), UInt32(code)) == 1 {
            if let a = libevdev_get_abs_info(device, UInt32(code)) {
                axes[code] = .init(minimum: a.pointee.minimum, maximum: a.pointee.maximum, flat: a.pointee.flat)
            }
        }
        capabilities = InputCapabilities(vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(device)), keys: keys, axes: axes)
        state = GamepadState(layout: touchpad ? GamepadLayout(touchpad: capabilities) : GamepadLayout(capabilities))
        let device = device
        _ = state.resync(
            key: { libevdev_get_event_value(device, UInt32(EV_KEY), UInt32($0)) != 0 },
            axis: { code in
                libevdev_has_event_code(device, UInt32(EV_ABS), UInt32(code)) == 1
                    ? libevdev_get_event_value(device, UInt32(EV_ABS), UInt32(code)) : nil
            },
            slot: { n, code in
                var v: Int32 = 0
                return libevdev_fetch_slot_value(device, UInt32(n), UInt32(code), &v) != 0 ? v : nil
            })
    }

    /// The layout and values the profile starts with.
    var initial: (layout: GamepadLayout, values: GamepadState.Values) { (state.layout, state.committed) }

    /// Reads until `stop()`, the node goes away, or `profile` does; each frame's changes go to the
    /// profile, its handlers onto `queue()` (read at each frame: a program may change it).
    func start(profile: GCExtendedGamepad, queue: @escaping @Sendable () -> DispatchQueue) {
        let weakProfile = WeakBox(profile)
        let thread = Thread { [self] in
            run(profile: weakProfile, queue: queue)
            EvdevNode.release(fd: fd, device: device, wakeRead: wake.read)
        }
        thread.name = "GameController input"
        thread.start()
    }

    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        EvdevNode.wake(wake.write)
    }

    deinit { stop() }

    private func run(profile: WeakBox<GCExtendedGamepad>, queue: @Sendable () -> DispatchQueue) {
        EvdevNode.read(fd: fd, device: device, wake: wake.read, stopped: stopped) { ev in
            guard let changed = state.apply(type: ev.type, code: ev.code, value: ev.value) else { return true }
            guard let p = profile.object else { return false }
            p.deliver(changed, after: state.committed, at: HapticService.now(), on: queue())
            return true
        }
    }
}

/// Opening and reading an evdev node on a thread of its own: the gamepad's, its touchpad's and its
/// motion sensors' readers.
enum EvdevNode {
    /// The node opened (non-blocking), its libevdev device, and a socket pair to wake the reading
    /// thread with; nil when it cannot be opened or is not an evdev node.
    static func open(_ path: String) -> (fd: Int32, device: OpaquePointer, wake: (read: Int32, write: Int32))? {
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var dev: OpaquePointer?
        guard libevdev_new_from_fd(fd, &dev) == 0, let dev else {
            close(fd)
            return nil
        }
        var pipe = [Int32](repeating: -1, count: 2)
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pipe) == 0 else {
            libevdev_free(dev)
            close(fd)
            return nil
        }
        return (fd, dev, (pipe[0], pipe[1]))
    }

    /// Frees what `open` gave but the wake socket's writing end (`wake(_:)` closes that).
    static func release(fd: Int32, device: OpaquePointer, wakeRead: Int32) {
        libevdev_free(device)
        close(fd)
        close(wakeRead)
    }

    /// Wakes the reading thread to end (`read`) and closes `fd`, the socket's writing end. Without
    /// SIGPIPE: the thread may have ended already (its node gone) and closed the other end, and a
    /// plain write would then kill the program.
    static func wake(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = send(fd, &byte, 1, Int32(MSG_NOSIGNAL))
        close(fd)
    }

    /// Hands every event to `event` until it returns false, `stopped` is set and `wake` readable, or
    /// the node goes away. After the kernel dropped events, libevdev hands the difference to the
    /// state it last reported, ending with a SYN_REPORT; the SYN_DROPPED itself is not passed on.
    static func read(fd: Int32, device: OpaquePointer, wake: Int32, stopped: borrowing Atomic<Bool>, _ event: (input_event) -> Bool) {
        var syncing = false
        while !stopped.load(ordering: .acquiring) {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let r = poll(&fds, 2, -1)
            if r < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            if fds[0].revents & Int16(POLLIN) == 0 && fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return }
            while true {
                var ev = input_event()
                let flag = syncing ? LIBEVDEV_READ_FLAG_SYNC : LIBEVDEV_READ_FLAG_NORMAL
                let rc = libevdev_next_event(device, flag.rawValue, &ev)
                if rc == -EAGAIN {
                    if syncing { syncing = false; continue }
                    break
                }
                guard rc == LIBEVDEV_READ_STATUS_SUCCESS.rawValue || rc == LIBEVDEV_READ_STATUS_SYNC.rawValue else { return }  // gone (ENODEV)
                if rc == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                    syncing = true
                    if ev.type == UInt16(EV_SYN) && ev.code == UInt16(SYN_DROPPED) { continue }
                }
                guard event(ev) else { return }
            }
        }
    }
}

extension GamepadInput {
    /// The touchpad node beside a pad's evdev node (`eventNode`): the input device of the same HID
    /// device whose name ends in "Touchpad" (hid-playstation's and hid-sony's), as /dev/input/eventN;
    /// nil when there is none. `sysfs` and `dev` are the roots (tests give their own).
    static func touchpadNode(besides eventNode: String, sysfs: String = "/sys", dev: String = "/dev") -> String? {
        siblingNode(besides: eventNode, named: "Touchpad", sysfs: sysfs, dev: dev)
    }

    /// The motion sensors' node beside a pad's evdev node: the input device of the same HID device
    /// whose name ends in "Motion Sensors" (hid-playstation's and hid-sony's); nil when there is none.
    static func motionNode(besides eventNode: String, sysfs: String = "/sys", dev: String = "/dev") -> String? {
        siblingNode(besides: eventNode, named: "Motion Sensors", sysfs: sysfs, dev: dev)
    }

    /// The input device of the same HID device as `eventNode` whose name ends in `suffix`.
    static func siblingNode(besides eventNode: String, named suffix: String, sysfs: String, dev: String) -> String? {
        guard let name = PowerSupply.eventName(eventNode) else { return nil }
        let inputs = "\(sysfs)/class/input/\(name)/device/device/input"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: inputs) else { return nil }
        for entry in entries.sorted() where entry.hasPrefix("input") {
            let dir = inputs + "/" + entry
            guard let title = try? String(contentsOfFile: dir + "/name", encoding: .utf8),
                  title.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix(suffix),
                  let event = (try? FileManager.default.contentsOfDirectory(atPath: dir))?.sorted().first(where: { $0.hasPrefix("event") })
            else { continue }
            return "\(dev)/input/\(event)"
        }
        return nil
    }
}

/// A weak reference that crosses to the reading thread.
final class WeakBox<T: AnyObject>: @unchecked Sendable {
    // @unchecked Sendable: a weak reference is read atomically by the runtime; T's own methods are
    // what must be thread-safe (GCExtendedGamepad's are).
    weak var object: T?
    init(_ object: T) { self.object = object }
}
