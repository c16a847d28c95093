import DaemonTestSupport
import Foundation
import Glibc
import HapticCore
import Testing

/// A connection to the daemon as another user: `setpriv` drops to `uid` (group the same, no
/// supplementary groups) and runs `socat` between a pipe and the socket. Needs root (the tests run as
/// root on CI) and socat (scripts/test.sh installs it).
final class ForeignClient {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer: [UInt8] = []
    private var nextID = 1

    static var available: Bool {
        getuid() == 0 && ["/usr/bin/setpriv", "/usr/bin/socat"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    init(uid: UInt32, socket: String) throws {
        // A write to socat that has gone must be an error (EPIPE), not the signal that ends the run.
        // (Process-wide and inherited by what the tests start later: hapticd ignores it anyway —
        // swift-nio does, for every process that opens a socket with it.)
        signal(SIGPIPE, SIG_IGN)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/socat", "-", "UNIX-CONNECT:\(socket)"]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// Sends a request and returns its reply line (events skipped); nil when the connection ended or
    /// nothing came within `timeout`.
    func request(_ command: String, _ members: String = "", timeout: Double = 10) -> String? {
        let id = nextID
        nextID += 1
        let line = "{\"id\":\(id),\"cmd\":\"\(command)\"\(members.isEmpty ? "" : "," + members)}\n"
        // The throwing write: socat gone (the daemon closed the connection, or socat is missing) is a
        // broken pipe, which fails this request rather than trapping the whole test run.
        do { try input.fileHandleForWriting.write(contentsOf: Data(line.utf8)) } catch { return nil }
        while let reply = readLine(timeout: timeout) {
            if reply.hasPrefix("{\"event\"") { continue }
            return reply
        }
        return nil
    }

    /// The first line the daemon sent (e.g. a refusal), if any within `timeout`.
    func readLine(timeout: Double = 10) -> String? {
        let fd = output.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(min(left, 1) * 1000)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// Whether the daemon closed the connection (socat exits) within `timeout`.
    func closedByDaemon(timeout: Double = 5) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        return !process.isRunning
    }
}

/// A stand-in daemon's listening socket at a fresh path (closed and removed when released): what it
/// does with a connection is the test's.
final class StandInListener {
    let path: String
    let fd: Int32

    init(_ name: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8)).sock").path
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw E2EError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        guard bound == 0, listen(fd, 1) == 0 else {
            close(fd)
            throw E2EError("bind/listen \(path): errno \(errno)")
        }
    }

    deinit {
        close(fd)
        unlink(path)
    }
}

/// A raw, non-blocking connection for clients that misbehave: floods, never reads, half lines.
final class RawSocket {
    let fd: Int32

    init(_ path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard r == 0 else { throw E2EError("connect \(path): errno \(errno)") }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(fd) }

    /// Bytes sent, 0 when the socket would block, -1 when the daemon closed it.
    func send(_ bytes: [UInt8]) -> Int {
        let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n >= 0 { return n }
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1
    }

    /// Everything readable now, waiting up to `timeout` for the first bytes; nil at end of stream.
    func receive(timeout: Double) -> [UInt8]? {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, Int32(timeout * 1000)) > 0 else { return [] }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n > 0 {
                out.append(contentsOf: chunk[..<n])
                continue
            }
            if n == 0 { return out.isEmpty ? nil : out }
            return out
        }
    }

    /// Whether the daemon hung up within `timeout`, found without reading (reading would relieve the
    /// very backpressure under test).
    func hungUp(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var p = pollfd(fd: fd, events: 0x2000 /* POLLRDHUP */, revents: 0)
            if poll(&p, 1, 100) > 0, p.revents & (Int16(POLLHUP) | 0x2000) != 0 { return true }
        }
        return false
    }

    /// Reads until end of stream or `timeout`; returns the text and whether the stream ended.
    func readToEnd(timeout: Double) -> (String, Bool) {
        var all: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard let chunk = receive(timeout: 0.2) else { return (String(decoding: all, as: UTF8.self), true) }
            all += chunk
        }
        return (String(decoding: all, as: UTF8.self), false)
    }
}

extension DaemonProcess {
    /// The daemon's resident memory in KiB (VmRSS).
    func rssKB() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }

    /// Makes the socket's directory reachable for other users (tests with foreign clients).
    func openDirectory() {
        chmod(dir.path, 0o755)
    }
}

/// An inline pattern: one continuous event of `seconds` (the sharpness 0 puts it all on the strong motor).
func longPattern(_ seconds: Double) -> JSONValue {
    AHAPWriter.json(HapticPattern(elements: [.event(.continuous(at: 0, duration: seconds, intensity: 0.8, sharpness: 0))]))
}
