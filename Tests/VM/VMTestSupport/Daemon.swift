import Glibc
import HapticClient
import HapticCore

/// A client of the hapticd listening on `path`, once it answers a `ping` (nil: not within `timeout`
/// seconds). Every VM program that starts hapticd waits for it this way.
public func answeringClient(at path: String, within timeout: Double = 15) -> HapticClient? {
    firstValue(within: timeout) { () -> HapticClient? in
        guard let c = try? HapticClient(path: path), (try? c.request("ping")) != nil else { return nil }
        return c
    }
}

/// When a played pattern started, from the `play` reply: its `engine_time` less the player's
/// `offset`, both read when the reply was made — after the first write, which under TCG can be
/// milliseconds after the start (the emulated pad's process takes the one vCPU when the report
/// lands), so `engine_time` alone is late. `fallback` when the reply has no engine time.
public func patternStart(_ reply: JSONObject, fallback: Double) -> Double {
    guard case .number(let time)? = reply["engine_time"] else { return fallback }
    if case .number(let offset)? = reply["offset"] { return time - offset }
    return time
}

/// A `rumble` request line as a game writes it: both motors (0…1) for `duration` seconds, or 0/0 (no
/// duration) to stop.
public func rumbleLine(id: Int, device: Int, strong: Double, weak: Double, duration: Double?, locality: String? = nil) -> [UInt8] {
    var body = JSONObject([
        "id": .number(Double(id)), "cmd": .string("rumble"), "device": .number(Double(device)),
        "strong": .number(strong), "weak": .number(weak),
    ])
    if let locality { body.append("locality", .string(locality)) }
    if let duration { body.append("duration", .number(duration)) }
    return Array((JSONWriter.write(.object(body)) + "\n").utf8)
}

/// A connection of its own to hapticd's socket for request lines written as they are — what a C game
/// does through libhapticd: no Swift client (its encoding, reader thread and completion hand-off) in
/// a measurement. Each line is stamped just before it is written.
public final class RawConnection {
    private let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 65536)

    /// nil: could not connect.
    public init?(path: String) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { buf in
            for (i, b) in path.utf8.prefix(buf.count - 1).enumerated() { buf[i] = b }
        }
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard ok == 0 else { close(fd); return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Writes the line whole; the time (CLOCK_MONOTONIC, seconds) just before the write, nil when it
    /// was not written whole.
    public func send(_ line: [UInt8]) -> Double? {
        let t = monotonicNow()
        return line.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == line.count ? t : nil
    }

    /// Reads reply lines until `count` have come (or the connection ended, or `timeout` seconds
    /// passed); how many came.
    @discardableResult
    public func readReplies(_ count: Int, within timeout: Double = 5) -> Int {
        let end = monotonicNow() + timeout
        var replies = 0
        while replies < count, readLine(within: max(0, end - monotonicNow())) != nil { replies += 1 }
        return replies
    }

    /// Bytes read past the last line `readLine` returned.
    private var pending: [UInt8] = []

    /// The next line (without its newline), or nil when none came whole within `timeout` seconds or
    /// the connection ended.
    public func readLine(within timeout: Double = 5) -> String? {
        let end = monotonicNow() + timeout
        while true {
            if let nl = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<nl], as: UTF8.self)
                pending.removeSubrange(...nl)
                return line
            }
            guard monotonicNow() < end else { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { return nil }
            pending += buffer[0..<n]
        }
    }
}
