import Glibc
import SystemPackage

/// Why a hidraw operation failed: the operation, the node and the errno.
public struct HidrawError: Error, Equatable, CustomStringConvertible {
    public enum Operation: String, Sendable {
        case open, info = "read device info", write, close
    }
    public var operation: Operation
    public var path: String
    public var errno: Errno
    /// A reply the device should not give (a short write, another device than expected).
    public var detail: String?

    public init(_ operation: Operation, _ path: String, _ errno: Errno, detail: String? = nil) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.detail = detail
    }

    public var description: String {
        "\(path): \(operation.rawValue) failed: " + (detail ?? String(describing: errno).lowercased())
    }
}

/// The identity the kernel gives a hidraw node (`HIDIOCGRAWINFO`).
public struct HidrawInfo: Equatable, Sendable {
    /// Linux `BUS_*` (0x03 USB, 0x05 Bluetooth).
    public var bus: UInt32
    public var vendor: UInt16
    public var product: UInt16

    public init(bus: UInt32, vendor: UInt16, product: UInt16) {
        self.bus = bus
        self.vendor = vendor
        self.product = product
    }
}

/// An open `/dev/hidrawN`: whole output reports written with one `write(2)` each, as the kernel's
/// hidraw driver takes them (the first byte is the report id). Opened non-blocking, so a device
/// that stops taking reports is an error (`EAGAIN`), never a stuck render loop.
///
/// Not `Sendable`: one owner (the render loop, under its lock, or a test's thread).
public final class HidrawNode {
    public let path: String
    private var descriptor: FileDescriptor?

    private init(path: String, descriptor: FileDescriptor) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Opens the node for writing reports.
    public static func open(_ path: String) throws(HidrawError) -> HidrawNode {
        do {
            let fd = try FileDescriptor.open(FilePath(path), .readWrite, options: [.closeOnExec, .nonBlocking])
            return HidrawNode(path: path, descriptor: fd)
        } catch {
            throw HidrawError(.open, path, error as? Errno ?? .ioError)
        }
    }

    /// Wraps a descriptor someone else opened (the tests' pipes and sockets); this node closes it.
    public static func adopting(_ descriptor: FileDescriptor, path: String) -> HidrawNode {
        HidrawNode(path: path, descriptor: descriptor)
    }

    static let getRawInfo = HidrawInfoRequest.value

    /// The bus and ids the kernel reports for this node (`ENOTTY` on anything that is not hidraw).
    public func info() throws(HidrawError) -> HidrawInfo {
        guard let fd = descriptor else { throw HidrawError(.info, path, .badFileDescriptor) }
        // struct hidraw_devinfo { __u32 bustype; __s16 vendor; __s16 product; }
        var raw = (UInt32(0), Int16(0), Int16(0))
        while true {
            let r = withUnsafeMutablePointer(to: &raw) { ioctl(fd.rawValue, Self.getRawInfo, UnsafeMutableRawPointer($0)) }
            if r >= 0 { break }
            let e = Errno(rawValue: errno)
            if e == .interrupted { continue }
            throw HidrawError(.info, path, e)
        }
        return HidrawInfo(bus: raw.0, vendor: UInt16(bitPattern: raw.1), product: UInt16(bitPattern: raw.2))
    }

    /// Writes one whole report. A partial write is an error: a report is all or nothing.
    public func write(_ report: [UInt8]) throws(HidrawError) {
        guard let fd = descriptor else { throw HidrawError(.write, path, .badFileDescriptor) }
        let n: Int
        do {
            n = try report.withUnsafeBytes { try fd.write($0, retryOnInterrupt: true) }
        } catch {
            throw HidrawError(.write, path, error as? Errno ?? .ioError)
        }
        guard n == report.count else {
            throw HidrawError(.write, path, .ioError, detail: "the device took \(n) of the report's \(report.count) bytes")
        }
    }

    /// Closes the node (again: nothing).
    public func close() {
        guard let fd = descriptor else { return }
        descriptor = nil
        try? fd.close()
    }

    public var isOpen: Bool { descriptor != nil }

    deinit { close() }
}

/// `HIDIOCGRAWINFO`: `_IOR('H', 0x03, struct hidraw_devinfo)`, an 8-byte struct (Swift cannot import
/// the header's macro).
public enum HidrawInfoRequest {
    public static let value = UInt(2) << 30 | UInt(8) << 16 | UInt(UInt8(ascii: "H")) << 8 | 0x03
}
