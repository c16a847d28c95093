import CEvdev
import Glibc
import SystemPackage

/// The one choke point every system call of the device layer goes through: it retries `EINTR` and
/// turns a failure into a typed `DeviceError` naming the operation and the device.
///
/// `body` returns the call's result; -1 means failure with `errno` set. For libevdev functions that
/// return a negative errno instead, use `libevdevCall`.
@discardableResult
func syscall<R: BinaryInteger>(_ operation: Operation, _ path: String, _ body: () -> R) throws(DeviceError) -> R {
    while true {
        let result = body()
        if result != -1 { return result }
        let e = Errno(rawValue: errno)
        if e == .interrupted { continue }
        throw DeviceError(operation, path, e)
    }
}

/// libevdev reports errors as negative errno values; same retry and mapping.
func libevdevCall(_ operation: Operation, _ path: String, _ body: () -> Int32) throws(DeviceError) {
    while true {
        let result = body()
        if result >= 0 { return }
        let e = Errno(rawValue: -result)
        if e == .interrupted { continue }
        throw DeviceError(operation, path, e)
    }
}

/// What the device layer was doing when something failed.
public enum Operation: String, Sendable {
    case open, probe, upload = "upload effect", play, stop, erase = "erase effect", gain = "set gain"
    case close, watch = "watch /dev/input", read
    /// A pad's own output report on its hidraw node (the hidraw backend).
    case report = "write report"
}
