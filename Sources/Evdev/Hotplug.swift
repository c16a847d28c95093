import BoundedIO
import CEvdev
import Glibc
import SystemPackage

/// A rumble pad appearing or disappearing.
public enum HotplugEvent: Equatable, Sendable {
    case added(DeviceInfo)
    case removed(path: String)
}

/// What happened to a node in /dev/input.
public enum NodeChange: Equatable, Sendable {
    case appeared(String)
    /// Attributes changed: udev sets permissions after the node appears, so a node that could not be
    /// opened at first may be openable now.
    case changed(String)
    case disappeared(String)
    /// The kernel dropped events: rescan everything.
    case overflow
}

/// Which rumble pads are present, from node changes and probes: pure bookkeeping, no I/O, so that
/// hot-plug logic is unit-tested without a kernel.
public struct DeviceTracker: Sendable {
    public private(set) var devices: [String: DeviceInfo] = [:]

    public init() {}

    /// A node appeared or changed and was probed. Reports a pad that is new (or replaced at the same
    /// path by a different device).
    public mutating func probed(_ path: String, _ result: Result<DeviceInfo, DeviceError>) -> [HotplugEvent] {
        switch result {
        case .success(let info) where info.hasRumble:
            if let known = devices[path] {
                if known == info { return [] }
                devices[path] = info
                return [.removed(path: path), .added(info)]
            }
            devices[path] = info
            return [.added(info)]
        case .success:
            return removed(path)
        case .failure(let error):
            // Not readable yet (udev has not set permissions) or already gone: a later change or
            // removal settles it. A pad we knew that now fails to probe is gone.
            return error.kind == .disconnected ? removed(path) : []
        }
    }

    public mutating func removed(_ path: String) -> [HotplugEvent] {
        devices.removeValue(forKey: path) == nil ? [] : [.removed(path: path)]
    }

    /// Reconciles with a full scan (at start and after an inotify overflow).
    public mutating func resync(_ scan: [DeviceInfo]) -> [HotplugEvent] {
        var events: [HotplugEvent] = []
        let present = Set(scan.map(\.path))
        for path in devices.keys.sorted() where !present.contains(path) { events += removed(path) }
        for info in scan { events += probed(info.path, .success(info)) }
        return events
    }
}

/// inotify on a directory, reporting changes to the entries whose names `matches` accepts: by default
/// the `event*` nodes of /dev/input (the daemon also watches its socket's directory with it). Not
/// `Sendable` (owns a descriptor): keep it on one queue; the daemon reads it from a `DispatchSource`
/// on `fileDescriptor`.
public final class InputDirectoryWatcher {
    public let directory: String
    public private(set) var fileDescriptor: Int32
    private let matches: (String) -> Bool

    public init(
        directory: String = DeviceDiscovery.defaultDirectory, matching matches: @escaping (String) -> Bool = DeviceDiscovery.isEventNode
    ) throws(DeviceError) {
        self.directory = directory
        self.matches = matches
        let fd = try syscall(.watch, directory) { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_TO | IN_MOVED_FROM)
        do {
            try syscall(.watch, directory) { inotify_add_watch(fd, directory, mask) }
        } catch {
            _ = Glibc.close(fd)
            throw error
        }
        self.fileDescriptor = fd
    }

    deinit { close() }

    public func close() {
        if fileDescriptor >= 0 { _ = Glibc.close(fileDescriptor) }
        fileDescriptor = -1
    }

    /// Waits up to `timeout` seconds for changes; true when there are some to read.
    public func wait(timeout: Double) -> Bool {
        var p = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        let ms = Int32(max(0, min(timeout, 3600)) * 1000)
        while true {
            let r = poll(&p, 1, ms)
            if r < 0 && errno == EINTR { continue }
            return r > 0
        }
    }

    /// The changes to `event*` nodes read so far (non-blocking; empty when none are pending).
    public func readChanges() throws(DeviceError) -> [NodeChange] {
        var changes: [NodeChange] = []
        var chunk = BoundedChunk(capacity: 16 * 1024)
        while true {
            let n: Int
            do {
                n = try chunk.read(from: FileDescriptor(rawValue: fileDescriptor))
            } catch .resourceTemporarilyUnavailable {
                return changes
            } catch {
                throw DeviceError(.read, directory, error)
            }
            if n <= 0 { return changes }
            let buffer = Array(chunk.bytes)
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= n {
                let (mask, length) = buffer.withUnsafeBytes { raw -> (UInt32, Int) in
                    let e = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (e.mask, Int(e.len))
                }
                let nameBytes = buffer[(offset + header)..<min(offset + header + length, n)]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                offset += header + length
                if mask & UInt32(IN_Q_OVERFLOW) != 0 { changes.append(.overflow); continue }
                guard matches(name) else { continue }
                let path = directory + "/" + name
                if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                    changes.append(.appeared(path))
                } else if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
                    changes.append(.disappeared(path))
                } else if mask & UInt32(IN_ATTRIB) != 0 {
                    changes.append(.changed(path))
                }
            }
        }
    }
}

/// Discovery plus hot-plug: the initial scan, then add/remove events as pads come and go.
/// Not `Sendable`; confine it to one queue.
public final class DeviceMonitor {
    public let watcher: InputDirectoryWatcher
    public private(set) var tracker = DeviceTracker()

    /// Starts watching, then scans, so that no pad slips between the two. The scan's pads are
    /// reported by the first `initialEvents`.
    public init(directory: String = DeviceDiscovery.defaultDirectory) throws(DeviceError) {
        watcher = try InputDirectoryWatcher(directory: directory)
    }

    public var devices: [DeviceInfo] { tracker.devices.values.sorted { $0.path < $1.path } }

    /// The pads present now, as `added` events.
    public func initialEvents() -> [HotplugEvent] {
        tracker.resync(DeviceDiscovery.scan(directory: watcher.directory).devices)
    }

    /// Reads pending node changes and turns them into hot-plug events.
    public func poll() throws(DeviceError) -> [HotplugEvent] {
        var events: [HotplugEvent] = []
        for change in try watcher.readChanges() {
            switch change {
            case .appeared(let path), .changed(let path):
                let result: Result<DeviceInfo, DeviceError>
                do { result = .success(try DeviceDiscovery.inspect(path)) } catch { result = .failure(error) }
                events += tracker.probed(path, result)
            case .disappeared(let path):
                events += tracker.removed(path)
            case .overflow:
                events += tracker.resync(DeviceDiscovery.scan(directory: watcher.directory).devices)
            }
        }
        return events
    }

    /// Waits up to `timeout` seconds for hot-plug events (for tools and tests; the daemon uses a
    /// DispatchSource on `watcher.fileDescriptor` instead).
    public func next(timeout: Double) throws(DeviceError) -> [HotplugEvent] {
        var remaining = timeout
        let step = 0.05
        while true {
            let events = try poll()
            if !events.isEmpty || remaining <= 0 { return events }
            _ = watcher.wait(timeout: min(step, remaining))
            remaining -= step
        }
    }
}
