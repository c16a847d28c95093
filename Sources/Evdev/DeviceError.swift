import SystemPackage

/// A device-layer failure. Unplugging a pad, a full effect table and a rejected effect are normal,
/// reported conditions: the daemon handles them and goes on.
public struct DeviceError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// `ENODEV`/`ENXIO`/`ENOENT`: the pad is gone (unplugged, or its uinput owner died).
        case disconnected
        /// `EACCES`/`EPERM`: the daemon may not open the device node.
        case permissionDenied
        /// `ENOSPC`: the pad's effect table is full.
        case effectTableFull
        /// `EINVAL`: the driver rejected the request (e.g. a changed effect type).
        case invalidArgument
        /// The device has no `FF_RUMBLE`.
        case notRumble
        /// The device cannot do this (e.g. no `FF_GAIN`).
        case unsupported(String)
        /// The device was already closed.
        case closed
        /// Anything else, with its errno.
        case system(Errno)
    }

    public var kind: Kind
    public var operation: Operation
    public var path: String

    public init(kind: Kind, operation: Operation, path: String) {
        self.kind = kind
        self.operation = operation
        self.path = path
    }

    public init(_ operation: Operation, _ path: String, _ errno: Errno) {
        let kind: Kind
        switch errno {
        case .operationNotSupportedByDevice, .noSuchAddressOrDevice, .noSuchFileOrDirectory: kind = .disconnected
        case .permissionDenied, .notPermitted: kind = .permissionDenied
        case .noSpace: kind = .effectTableFull
        case .invalidArgument: kind = .invalidArgument
        default: kind = .system(errno)
        }
        self.init(kind: kind, operation: operation, path: path)
    }

    public var description: String {
        switch kind {
        case .disconnected:
            "\(path): \(operation.rawValue) failed: the device is gone (unplugged)"
        case .permissionDenied:
            "\(path): \(operation.rawValue) failed: permission denied. The user needs read-write access to "
                + "/dev/input/event*, which udev's own rule (50-udev-default.rules) gives the 'input' group: run hapticd "
                + "as its systemd service (it gets the 'input' group), or add the user to the 'input' group (then log in again)"
        case .effectTableFull:
            "\(path): \(operation.rawValue) failed: the device's effect table is full (another program holds its effects)"
        case .invalidArgument:
            "\(path): \(operation.rawValue) failed: the driver rejected the request (EINVAL)"
        case .notRumble:
            "\(path): not a rumble device (no FF_RUMBLE)"
        case .unsupported(let why):
            "\(path): \(operation.rawValue) is not supported: \(why)"
        case .closed:
            "\(path): \(operation.rawValue) failed: the device is closed"
        case .system(let e):
            "\(path): \(operation.rawValue) failed: \(e.description) (errno \(e.rawValue))"
        }
    }
}
