import Glibc
import Logging

/// sd_notify(3) without libsystemd: one datagram to $NOTIFY_SOCKET. Does nothing when not run by
/// systemd with Type=notify.
public enum SystemdNotify {
    @discardableResult
    public static func send(_ state: String) -> Bool {
        guard let raw = getenv("NOTIFY_SOCKET") else { return false }
        var path = Array(String(cString: raw).utf8)
        guard !path.isEmpty else { return false }
        if path[0] == UInt8(ascii: "@") { path[0] = 0 }  // abstract namespace
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        guard path.count < MemoryLayout.size(ofValue: addr.sun_path) else { return false }
        withUnsafeMutableBytes(of: &addr.sun_path) { dst in for (i, b) in path.enumerated() { dst[i] = b } }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        let bytes = Array(state.utf8)
        let sent = withUnsafePointer(to: &addr) { a in
            a.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in sendto(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL), sa, length) }
        }
        return sent == bytes.count
    }

    /// The watchdog interval systemd expects pings within (WATCHDOG_USEC for this process), if any.
    public static func watchdogInterval() -> Double? {
        guard let usec = getenv("WATCHDOG_USEC").flatMap({ Double(String(cString: $0)) }), usec > 0 else { return nil }
        if let pid = getenv("WATCHDOG_PID").flatMap({ Int32(String(cString: $0)) }), pid != getpid() { return nil }
        return usec / 1e6
    }
}

/// A swift-log handler for the journal: one line per message on stderr, prefixed `<N>` with the
/// syslog priority, which journald reads as the level (SyslogLevelPrefix=yes is systemd's default).
/// On a terminal the prefix is a readable level name instead.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    let label: String
    let syslogPrefixes: Bool

    public init(label: String, level: Logger.Level) {
        self.label = label
        self.logLevel = level
        syslogPrefixes = getenv("JOURNAL_STREAM") != nil || isatty(STDERR_FILENO) == 0
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    public func log(event: LogEvent) {
        let prefix = syslogPrefixes ? "<\(Self.priority(event.level))>" : "\(event.level.rawValue.uppercased()): "
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let meta = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let line = Array("\(prefix)\(event.message)\(meta)\n".utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }  // one write: lines never interleave
    }
}
