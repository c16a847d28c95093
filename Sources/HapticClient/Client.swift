import Glibc
import HapticCore
import HapticProtocol

/// A failed exchange with the daemon.
public enum ClientError: Error, CustomStringConvertible, Sendable {
    /// No daemon at that path (or it refused): the message says what to do.
    case notRunning(path: String, reason: String)
    /// The daemon answered with an error.
    case failed(code: String, message: String, details: [String])
    case io(String)
    case timeout

    public var description: String {
        switch self {
        case .notRunning(let path, let reason):
            "hapticd is not running at \(path) (\(reason)). Start it (systemctl start hapticd, or hapticd --simulate "
                + "for a simulated pad), or point to its socket with --socket PATH or $HAPTICD_SOCKET."
        case .failed(let code, let message, let details):
            ([message + " (" + code + ")"] + details.map { "  " + $0 }).joined(separator: "\n")
        case .io(let what): "connection to hapticd failed: \(what)"
        case .timeout: "hapticd did not answer in time"
        }
    }
}

/// A blocking client for hapticd's socket: one request at a time, events queued for `nextEvent`.
/// Not `Sendable`: one thread uses it.
public final class HapticClient {
    public let path: String
    private var fd: Int32
    private var buffer: [UInt8] = []
    private var nextID = 1
    private var events: [JSONObject] = []

    /// $HAPTICD_SOCKET, else the daemon's default for this user: /run/hapticd/hapticd.sock for root
    /// (and as the last resort), $XDG_RUNTIME_DIR/hapticd.sock otherwise.
    public static func defaultSocketPath() -> String {
        if let env = getenv("HAPTICD_SOCKET").map({ String(cString: $0) }), !env.isEmpty { return env }
        if getuid() != 0, let dir = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !dir.isEmpty {
            let user = dir + "/hapticd.sock"
            if access(user, F_OK) == 0 || access("/run/hapticd/hapticd.sock", F_OK) != 0 { return user }
        }
        return "/run/hapticd/hapticd.sock"
    }

    public init(path: String = HapticClient.defaultSocketPath()) throws(ClientError) {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .io("socket: errno \(errno)") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            close(fd)
            throw .io("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if r != 0 {
            let e = errno
            close(fd)
            let reason = switch e {
            case ENOENT: "no such socket"
            case ECONNREFUSED: "connection refused"
            case EACCES: "permission denied: the socket belongs to another user or group (see socket.group in hapticd.toml)"
            default: String(cString: strerror(e))
            }
            throw .notRunning(path: path, reason: reason)
        }
    }

    deinit { close(fd) }

    /// Sends a request and returns its result, queueing events that arrive before the reply.
    public func request(_ command: String, _ body: JSONObject = JSONObject(), timeout: Double = 10) throws(ClientError) -> JSONObject {
        let id = nextID
        nextID += 1
        var o = JSONObject(["id": .number(Double(id)), "cmd": .string(command)])
        o.members += body.members
        try sendLineOrReportRefusal(JSONWriter.write(.object(o)))
        while true {
            guard let line = try readLine(timeout: timeout) else { throw .io("the daemon closed the connection") }
            switch ReplyLine.parse(line) {
            case .ok(let rid, let result)? where rid == .number(Double(id)): return result
            case .failure(let rid, let code, let message, let details)? where rid == .number(Double(id)) || rid == .null:
                throw .failed(code: code, message: message, details: details)
            case .event(_, let body)?: events.append(body)
            default: continue
            }
        }
    }

    /// Sends one raw line (for `hapticctl request`); returns the reply line as the daemon wrote it.
    public func raw(_ line: String, timeout: Double = 10) throws(ClientError) -> String {
        try sendLineOrReportRefusal(line)
        while true {
            guard let reply = try readLine(timeout: timeout) else { throw .io("the daemon closed the connection") }
            if case .event(_, let body)? = ReplyLine.parse(reply) {
                events.append(body)
                continue
            }
            return reply
        }
    }

    /// The next reply line (events are queued), waiting up to `timeout` seconds.
    public func nextLine(timeout: Double) throws(ClientError) -> String? {
        while true {
            guard let line = try readLine(timeout: timeout) else { return nil }
            if case .event(_, let body)? = ReplyLine.parse(line) {
                events.append(body)
                continue
            }
            return line
        }
    }

    /// The next event, waiting up to `timeout` seconds (nil: none arrived).
    public func nextEvent(timeout: Double) throws(ClientError) -> JSONObject? {
        if !events.isEmpty { return events.removeFirst() }
        while true {
            guard let line = try readLine(timeout: timeout) else { return nil }
            if case .event(_, let body)? = ReplyLine.parse(line) { return body }
        }
    }

    /// Sends; if the daemon already closed the connection (it refuses clients over its limit with an
    /// error line, then closes), reports its reason rather than a broken pipe.
    private func sendLineOrReportRefusal(_ line: String) throws(ClientError) {
        do {
            try sendLine(line)
        } catch {
            if let reply = try? readLine(timeout: 1), case .failure(_, let code, let message, let details)? = ReplyLine.parse(reply) {
                throw .failed(code: code, message: message, details: details)
            }
            throw error
        }
    }

    private func sendLine(_ line: String) throws(ClientError) {
        let bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("send: \(String(cString: strerror(errno)))")
            }
            sent += n
        }
    }

    /// One line, waiting up to `timeout` seconds; nil on timeout or end of stream.
    private func readLine(timeout: Double) throws(ClientError) -> String? {
        var waited = 0.0
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let slice = min(max(timeout - waited, 0), 0.25)
            let r = poll(&p, 1, Int32(slice * 1000))
            if r < 0 {
                if errno == EINTR { continue }
                throw .io("poll: \(String(cString: strerror(errno)))")
            }
            if r == 0 {
                waited += slice
                if waited >= timeout { return nil }
                continue
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("recv: \(String(cString: strerror(errno)))")
            }
            if n == 0 { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }
}
