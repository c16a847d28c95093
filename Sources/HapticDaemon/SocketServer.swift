import Dispatch
import Evdev
import Glibc
import HapticCore
import HapticProtocol
import Logging
import NIOCore
import NIOPosix

/// The Unix socket: created (mode and group from the config) or adopted from systemd.
///
/// One owner per path. Starting is refused while another daemon answers on the path. The file this
/// process created is remembered by device and inode: on stop it is removed only if it is still that
/// file (a second daemon's socket is never deleted), and if it is deleted while running (a stray `rm`,
/// a tmp cleaner) it is created again at once — inotify on its directory, no polling. A path taken
/// over by another file is left alone and logged loudly. A socket passed by systemd belongs to
/// systemd: neither watched nor removed.
public final class SocketServer: @unchecked Sendable {
    // @unchecked Sendable: `channel`, `identity`, `createdPath`, `mode`, `groupName` and `watcher` are
    // set in `start` (the daemon's lifecycle task) and then touched only on `queue`, or in `stop`
    // after the watcher was cancelled on `queue`.
    public let group: MultiThreadedEventLoopGroup
    private var channel: (any Channel)?
    private var createdPath: String?
    private var identity: (dev: UInt64, ino: UInt64)?
    private var mode: UInt32 = 0o660
    private var groupName: String?
    private var watcher: InputDirectoryWatcher?
    private var source: DispatchSourceRead?
    private var warnedTakenOver = false
    /// Each event loop's queue of next turns (`TurnQueue`), made in `start`.
    private var turns: [ObjectIdentifier: NIOLoopBound<TurnQueue>] = [:]
    private let queue = DispatchQueue(label: "hapticd.socket")
    public private(set) var path: String?
    let core: DaemonCore
    let logger: Logger

    /// Where a long turn or an uploaded pattern is decoded (`ConnectionHandler`): its parse takes
    /// milliseconds to seconds, which the event loop's other connections must not wait for.
    let decoders = DecoderQueue()

    public init(core: DaemonCore, logger: Logger, threads: Int = 1) {
        self.core = core
        self.logger = logger
        group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
    }

    /// The default socket path: /run/hapticd/hapticd.sock as root, $XDG_RUNTIME_DIR/hapticd.sock
    /// otherwise (nil when neither applies).
    public static func defaultPath() -> String? {
        if getuid() == 0 { return "/run/hapticd/hapticd.sock" }
        if let dir = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !dir.isEmpty { return dir + "/hapticd.sock" }
        return nil
    }

    /// A listening socket passed by systemd (LISTEN_PID/LISTEN_FDS), if any.
    public static func systemdSocket() -> CInt? {
        guard let pidText = getenv("LISTEN_PID").map({ String(cString: $0) }), let pid = Int32(pidText), pid == getpid(),
              let fdsText = getenv("LISTEN_FDS").map({ String(cString: $0) }), let count = Int(fdsText), count >= 1
        else { return nil }
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
        return 3  // SD_LISTEN_FDS_START
    }

    private func bootstrap() -> ServerBootstrap {
        let core = self.core
        let logger = self.logger
        let limits = core.config.limits
        let turns = self.turns
        let decoders = self.decoders
        return ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            // One read per readiness event (NIO's default is 4): a flooding client gets at most one
            // buffer (≤ 64 KiB) of requests in per turn of the event loop, like everyone else.
            .childChannelOption(.maxMessagesPerRead, value: 1)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: limits.outputBufferBytes / 2, high: limits.outputBufferBytes))
            // The kernel's own buffer for a client that does not read is bounded likewise (it doubles
            // the value), instead of the system's ~200 KiB default.
            .childChannelOption(.socketOption(.so_sndbuf), value: SocketOptionValue(limits.outputBufferBytes))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // Connection limits are read when each connection starts: a reload applies to new ones.
                    let queue = turns[ObjectIdentifier(channel.eventLoop)]?.value
                    try channel.pipeline.syncOperations.addHandler(
                        ConnectionHandler(core: core, logger: logger, limits: core.config.limits, turns: queue, decoders: decoders))
                }
            }
    }

    /// Starts listening: on the systemd socket when one was passed, else on `path` (created; a stale
    /// socket file from a dead daemon is replaced, a live one is an error).
    public func start(path requested: String?, mode: UInt32, groupName: String?) throws {
        Self.raiseFileLimit(logger)
        decoders.start()
        for loop in group.makeIterator() {
            turns[ObjectIdentifier(loop)] = try TurnQueue.start(on: loop)
        }
        if let fd = Self.systemdSocket() {
            channel = try bootstrap().withBoundSocket(fd).wait()
            path = requested
            logger.info("listening on the socket passed by systemd (fd \(fd))")
            return
        }
        guard let path = requested ?? Self.defaultPath() else {
            throw ConfigError("socket.path", "no socket path: not root and $XDG_RUNTIME_DIR is unset; pass --socket PATH")
        }
        self.path = path
        self.mode = mode
        self.groupName = groupName
        let dir = Self.directory(of: path)
        if !dir.isEmpty { mkdir(dir, 0o755) }
        if access(path, F_OK) == 0 {
            if Self.isListening(path) {
                throw ConfigError("socket.path", "\(path) is in use: another hapticd is running")
            }
            unlink(path)
        }
        try queue.sync { try bind() }
        watch(path)
        logger.info("listening on \(path) (mode \(String(mode, radix: 8)))")
    }

    /// Binds the listening socket at `path`, sets its mode and group, and remembers which file it is.
    /// On `queue` (or before the watcher runs).
    ///
    /// The socket is made here and adopted by NIO rather than bound by NIO: a socket NIO binds itself
    /// is unlinked by path when it closes, whatever file is at that path by then — another daemon's
    /// socket, or the one just recreated. This process removes only the file it made (`stop`).
    private func bind() throws {
        guard let path else { return }
        let fd = try Self.listeningSocket(path)
        let fresh: any Channel
        do {
            fresh = try bootstrap().withBoundSocket(fd).wait()
        } catch {
            close(fd)
            throw error
        }
        let old = channel
        channel = fresh
        createdPath = path
        chmod(path, mode_t(mode))
        if let groupName {
            guard let g = getgrnam(groupName) else { throw ConfigError("socket.group", "no group named \"\(groupName)\"") }
            if chown(path, uid_t.max, g.pointee.gr_gid) != 0 {
                logger.warning("cannot give \(path) to group \(groupName): errno \(errno)")
            }
        }
        identity = Self.identity(of: path)
        warnedTakenOver = false
        // The old listener's file is gone: it can take no new connection. Its clients stay.
        try? old?.close().wait()
    }

    /// inotify on the socket's directory; any change to its name is checked.
    private func watch(_ path: String) {
        let name = String(path[path.index(after: path.lastIndex(of: "/") ?? path.startIndex)...])
        let dir = Self.directory(of: path)
        do {
            let w = try InputDirectoryWatcher(directory: dir.isEmpty ? "." : dir) { $0 == name }
            let source = DispatchSource.makeReadSource(fileDescriptor: w.fileDescriptor, queue: queue)
            source.setEventHandler { [weak self] in
                guard let self, let watcher = self.watcher else { return }
                _ = try? watcher.readChanges()
                self.checkSocketFile()
            }
            queue.sync {
                watcher = w
                self.source = source
            }
            source.resume()
        } catch {
            logger.warning("cannot watch \(dir) for the socket file: \(error); a deleted socket will not be recreated")
        }
    }

    /// The socket file changed: recreate it if it is gone; if another file took its place, say so.
    private func checkSocketFile() {
        guard let path, let identity else { return }
        guard let now = Self.identity(of: path) else {
            logger.error("\(path) was deleted: creating it again")
            do {
                try bind()
                logger.notice("listening on \(path) again")
            } catch {
                logger.critical("cannot recreate \(path): \(error); hapticd is unreachable until restarted")
            }
            return
        }
        if now != identity && !warnedTakenOver {
            warnedTakenOver = true
            logger.critical("\(path) is now another file (another hapticd?): new clients reach it, not this daemon; leaving it alone")
        }
    }

    static func identity(of path: String) -> (dev: UInt64, ino: UInt64)? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return (UInt64(st.st_dev), UInt64(st.st_ino))
    }

    static func directory(of path: String) -> String {
        String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    }

    /// socket, bind, listen: a listening Unix socket at `path`.
    static func listeningSocket(_ path: String) throws -> CInt {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw ConfigError("socket.path", "cannot create a socket: \(String(cString: strerror(errno)))") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            close(fd)
            throw ConfigError("socket.path", "\(path) is longer than a Unix socket path may be (\(MemoryLayout.size(ofValue: addr.sun_path) - 1) bytes)")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 256) == 0 else {
            let e = errno
            close(fd)
            throw ConfigError("socket.path", "cannot listen on \(path): \(String(cString: strerror(e)))")
        }
        return fd
    }

    static func isListening(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { return false }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return r == 0
    }

    /// One descriptor per client: lift the soft limit on open files to the hard one (systemd starts
    /// services at 1024 soft, 524288 hard, and expects them to do this).
    static func raiseFileLimit(_ logger: Logger) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 {
            logger.debug("cannot raise the open-file limit: errno \(errno)")
        }
    }

    /// Stops listening and removes the socket file — only if it is still the one this process made.
    public func stop() {
        if let source {
            queue.sync { source.cancel() }
        }
        queue.sync {
            source = nil
            watcher?.close()
            watcher = nil
        }
        try? channel?.close().wait()
        channel = nil
        // Before the event loops: a running parse's result goes to its connection's loop.
        decoders.stop()
        if let createdPath {
            if let now = Self.identity(of: createdPath), let identity, now == identity {
                unlink(createdPath)
            } else {
                logger.warning("\(createdPath) is no longer this daemon's socket: left in place")
            }
        }
        createdPath = nil
        try? group.syncShutdownGracefully()
    }
}
