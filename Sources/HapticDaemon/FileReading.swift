import Glibc

/// Why a file could not be read.
public struct FileReadFailure: Error, CustomStringConvertible {
    public var errno: Int32
    public var description: String
}

/// A file's bytes, read with plain system calls (`EINTR` retried), at most `limit` of them: more is an
/// error (`EFBIG`), or with `truncating` the read stops there and what was read is returned (at least
/// `limit` bytes when the file has them, for a caller that reports an oversized file itself). The one
/// way the daemon reads a file: its configuration, its patterns, a peer's `/proc/PID/comm` (and
/// hapticbench its patterns).
public func readFile(_ path: String, limit: Int, truncating: Bool = false) -> Result<[UInt8], FileReadFailure> {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
        let e = errno
        return .failure(FileReadFailure(errno: e, description: e == ENOENT ? "no such file" : String(cString: strerror(e))))
    }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            let e = errno
            return .failure(FileReadFailure(errno: e, description: String(cString: strerror(e))))
        }
        if n == 0 { return .success(bytes) }
        bytes.append(contentsOf: chunk[..<n])
        if truncating && bytes.count >= limit { return .success(bytes) }
        if bytes.count > limit {
            return .failure(FileReadFailure(errno: EFBIG, description: "larger than \(limit) bytes"))
        }
    }
}
