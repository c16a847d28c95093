import Foundation

/// A Unix socket at `path` that is listened on and never accepted from: the kernel completes every
/// connection and takes what fits in its buffer; nothing ever reads or answers (a hung daemon, or
/// a socket-activation start that never finishes). The caller closes it.
public func silentSocket(_ path: String, backlog: Int32 = 64) throws -> CInt {
    struct Failed: Error, CustomStringConvertible { let description: String }
    unlink(path)
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw Failed(description: "socket: \(String(cString: strerror(errno)))") }
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
        close(fd)
        throw Failed(description: "\(path) is too long for a Unix socket address")
    }
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
    let bound = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0, listen(fd, backlog) == 0 else {
        let e = String(cString: strerror(errno))
        close(fd)
        throw Failed(description: "bind/listen \(path): \(e)")
    }
    return fd
}
