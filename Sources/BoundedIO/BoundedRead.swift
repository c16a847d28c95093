import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Why a file could not be read.
public struct FileReadFailure: Error, CustomStringConvertible {
    public var errno: Int32
    public var description: String

    init(_ error: Errno) {
        errno = error.rawValue
        description = error == .noSuchFileOrDirectory ? "no such file" : String(describing: error)
    }
}

/// The size of the file at `path` when it is a regular file (a device or a pipe has none to tell):
/// what an oversized file's message gives, where a bounded read saw only its first bytes.
public func regularFileSize(_ path: String) -> Int? {
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    return Int(info.st_size)
}

/// A file's bytes, at most `limit` of them: more is an error (`EFBIG`), or with `truncating` the read
/// stops there and what was read is returned (at least `limit` bytes when the file has them, for a
/// caller that reports an oversized file itself). Reads go through swift-system's `FileDescriptor`,
/// which retries `EINTR`. How hapticd reads every file: its configuration, its patterns, a peer's
/// `/proc/PID/comm`, hapticbench's patterns.
public func readFile(_ path: String, limit: Int, truncating: Bool = false) -> Result<[UInt8], FileReadFailure> {
    let fd: FileDescriptor
    do {
        fd = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec])
    } catch {
        return .failure(FileReadFailure(error as? Errno ?? .ioError))
    }
    defer { try? fd.close() }
    var bytes: [UInt8] = []
    var chunk = BoundedChunk()
    while true {
        let n: Int
        do {
            n = try chunk.read(from: fd)
        } catch {
            return .failure(FileReadFailure(error))
        }
        if n == 0 { return .success(bytes) }
        bytes.append(contentsOf: chunk.bytes)
        if truncating && bytes.count >= limit { return .success(bytes) }
        if bytes.count > limit {
            return .failure(FileReadFailure(errno: Errno.fileTooLarge.rawValue, description: "larger than \(limit) bytes"))
        }
    }
}

extension FileReadFailure {
    init(errno: Int32, description: String) {
        self.errno = errno
        self.description = description
    }
}

/// A fixed buffer for one read at a time: the one place hapticd calls `read(2)` on a file, a pipe,
/// a socket or an inotify descriptor outside the device layer's syscall choke point. `EINTR` is
/// retried (swift-system), everything else is thrown as `Errno` (`EAGAIN` included, for a
/// non-blocking descriptor).
public struct BoundedChunk {
    private var storage: [UInt8]
    private var count = 0

    /// `capacity`: the most one read returns.
    public init(capacity: Int = 65536) {
        storage = [UInt8](repeating: 0, count: max(1, capacity))
    }

    /// The bytes of the last read.
    public var bytes: ArraySlice<UInt8> { storage[..<count] }

    /// One read of at most `capacity` bytes; 0 at end of file.
    public mutating func read(from fd: FileDescriptor) throws(Errno) -> Int {
        do {
            count = try storage.withUnsafeMutableBytes { try fd.read(into: $0, retryOnInterrupt: true) }
        } catch let error as Errno {
            count = 0
            throw error
        } catch {
            count = 0
            throw Errno.ioError
        }
        return count
    }
}

/// Splits a byte stream into lines of at most `maximumLength` bytes (without the newline): a line
/// longer than that is reported once as `.overlong` and its bytes are not kept, so memory stays
/// bounded whatever the peer sends. Feed it what `BoundedChunk` read.
public struct LineSplitter {
    public enum Piece: Equatable {
        case line([UInt8])
        case overlong
    }

    public let maximumLength: Int
    private var pending: [UInt8] = []
    private var skipping = false

    public init(maximumLength: Int) {
        self.maximumLength = max(0, maximumLength)
    }

    /// The lines completed by `bytes`, in order; an unfinished line is kept for the next call.
    public mutating func feed(_ bytes: ArraySlice<UInt8>) -> [Piece] {
        var pieces: [Piece] = []
        var rest = bytes
        while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
            let part = rest[rest.startIndex..<newline]
            if skipping || pending.count + part.count > maximumLength {
                pieces.append(.overlong)
            } else {
                pending.append(contentsOf: part)
                pieces.append(.line(pending))
            }
            pending.removeAll(keepingCapacity: true)
            skipping = false
            rest = rest[rest.index(after: newline)...]
        }
        if !skipping {
            if pending.count + rest.count > maximumLength {
                skipping = true
                pending.removeAll(keepingCapacity: false)
            } else {
                pending.append(contentsOf: rest)
            }
        }
        return pieces
    }

    public mutating func feed(_ bytes: [UInt8]) -> [Piece] { feed(bytes[...]) }

    /// Bytes of the line not yet finished (0 while an overlong one is being skipped).
    public var pendingCount: Int { pending.count }
    /// True while the bytes of a line longer than the limit are being dropped.
    public var isSkippingOverlongLine: Bool { skipping }
}
