import Glibc
import HapticCore
import HapticProtocol
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A line, or the news that a line was too long (the rest of it is discarded).
enum InboundLine {
    case line(String)
    case tooLong
}

/// Splits the byte stream into newline-terminated lines, never buffering more than `maximum` bytes:
/// a longer line yields `.tooLong` once and is skipped up to its newline, and the connection goes on.
final class LineDecoder: ByteToMessageDecoder {
    typealias InboundOut = InboundLine
    let maximum: Int
    private var discarding = false

    init(maximum: Int) { self.maximum = maximum }

    func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        if let newline = view.firstIndex(of: UInt8(ascii: "\n")) {
            let length = newline - view.startIndex
            if discarding {
                buffer.moveReaderIndex(forwardBy: length + 1)
                discarding = false
                return .continue
            }
            if length > maximum {
                buffer.moveReaderIndex(forwardBy: length + 1)
                context.fireChannelRead(wrapInboundOut(.tooLong))
                return .continue
            }
            var line = buffer.readString(length: length) ?? ""
            buffer.moveReaderIndex(forwardBy: 1)
            if line.hasSuffix("\r") { line.removeLast() }
            if !line.allSatisfy({ $0 == " " || $0 == "\t" }) { context.fireChannelRead(wrapInboundOut(.line(line))) }
            return .continue
        }
        if buffer.readableBytes > maximum {
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
            if !discarding {
                discarding = true
                context.fireChannelRead(wrapInboundOut(.tooLong))
            }
            return .continue
        }
        if discarding {
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        }
        return .needMoreData
    }

    func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A last line without a newline still counts.
        if !discarding, buffer.readableBytes > 0, buffer.readableBytes <= maximum, let line = buffer.readString(length: buffer.readableBytes) {
            context.fireChannelRead(wrapInboundOut(.line(line)))
        }
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        return .needMoreData
    }
}

/// One connection: registers the client, answers each line in order, cleans up on close.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = InboundLine
    typealias OutboundOut = ByteBuffer

    let core: DaemonCore
    let logger: Logger
    private var client: ClientID?

    init(core: DaemonCore, logger: Logger) {
        self.core = core
        self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        let credentials = Self.peerCredentials(channel)
        let send: @Sendable (String) -> Void = { line in
            var buffer = channel.allocator.buffer(capacity: line.utf8.count + 1)
            buffer.writeString(line)
            buffer.writeInteger(UInt8(ascii: "\n"))
            channel.writeAndFlush(buffer, promise: nil)
        }
        guard let id = core.connect(credentials: credentials, send: send) else {
            logger.warning("refusing a client (\(credentials.map(\.description) ?? "unknown peer")): limits.max_clients reached")
            send(Reply.error(.null, ProtocolError(.limitExceeded, "too many clients (limits.max_clients)")))
            context.close(promise: nil)
            return
        }
        client = id
        logger.info("client \(id) connected (\(credentials.map(\.description) ?? "credentials unknown"))")
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let client else { return }
        let reply: String
        switch unwrapInboundIn(data) {
        case .line(let line): reply = core.handle(line: line, from: client)
        case .tooLong:
            reply = Reply.error(.null, ProtocolError(.limitExceeded, "request line longer than \(core.config.maxLineBytes) bytes (limits.max_line_bytes)"))
        }
        var buffer = context.channel.allocator.buffer(capacity: reply.utf8.count + 1)
        buffer.writeString(reply)
        buffer.writeInteger(UInt8(ascii: "\n"))
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }

    /// The client finished sending (e.g. `socat` after its input ended): write what is pending, then
    /// close. Its one-shot plays go on (see `DaemonCore.disconnect`).
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let e = event as? ChannelEvent, e == .inputClosed {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(capacity: 0))).whenComplete { _ in
                channel.close(promise: nil)
            }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let client {
            core.disconnect(client)
            logger.info("client \(client) disconnected")
        }
        client = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("client \(client.map(String.init) ?? "?"): \(error)")
        context.close(promise: nil)
    }

    /// `struct ucred` (pid, uid, gid: three 32-bit fields), which glibc declares only under
    /// _GNU_SOURCE and so Swift does not import.
    struct UCred: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    static func peerCredentials(_ channel: Channel) -> PeerCredentials? {
        guard let provider = channel as? SocketOptionProvider else { return nil }
        let future: EventLoopFuture<UCred> = provider.unsafeGetSocketOption(level: .socket, name: .init(rawValue: SO_PEERCRED))
        // On the channel's own event loop the option is read at once and the future is already
        // fulfilled, so its callback runs inline (wait() is not allowed on an event loop).
        let box = NIOLockedValueBox<UCred?>(nil)
        future.whenSuccess { cred in box.withLockedValue { $0 = cred } }
        guard let cred = box.withLockedValue({ $0 }) else { return nil }
        return PeerCredentials(pid: cred.pid, uid: cred.uid, gid: cred.gid)
    }
}

/// The Unix socket: created (mode and group from the config) or adopted from systemd.
public final class SocketServer: @unchecked Sendable {
    // @unchecked Sendable: `channel` and `createdPath` are set once in `start` and read in `stop`,
    // both called from the daemon's single lifecycle task.
    public let group: MultiThreadedEventLoopGroup
    private var channel: Channel?
    private var createdPath: String?
    public private(set) var path: String?
    let core: DaemonCore
    let logger: Logger

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
        let maxLine = core.config.maxLineBytes
        return ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder(maximum: maxLine)))
                    try channel.pipeline.syncOperations.addHandler(ConnectionHandler(core: core, logger: logger))
                }
            }
    }

    /// Starts listening: on the systemd socket when one was passed, else on `path` (created; a stale
    /// socket file from a dead daemon is replaced, a live one is an error).
    public func start(path requested: String?, mode: UInt32, groupName: String?) throws {
        if let fd = Self.systemdSocket() {
            channel = try bootstrap().withBoundSocket(fd).wait()
            path = requested
            logger.info("listening on the socket passed by systemd (fd \(fd))")
            return
        }
        guard let path = requested ?? Self.defaultPath() else {
            throw ConfigError("socket.path", "no socket path: not root and $XDG_RUNTIME_DIR is unset; pass --socket PATH")
        }
        let dir = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !dir.isEmpty { mkdir(dir, 0o755) }
        if access(path, F_OK) == 0 {
            if Self.isListening(path) {
                throw ConfigError("socket.path", "\(path) is in use: another hapticd is running")
            }
            unlink(path)
        }
        channel = try bootstrap().bind(unixDomainSocketPath: path).wait()
        createdPath = path
        self.path = path
        chmod(path, mode_t(mode))
        if let groupName {
            guard let g = getgrnam(groupName) else { throw ConfigError("socket.group", "no group named \"\(groupName)\"") }
            if chown(path, uid_t.max, g.pointee.gr_gid) != 0 {
                logger.warning("cannot give \(path) to group \(groupName): errno \(errno)")
            }
        }
        logger.info("listening on \(path) (mode \(String(mode, radix: 8)))")
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

    /// Stops listening and removes the socket file it created (not one systemd owns).
    public func stop() {
        try? channel?.close().wait()
        channel = nil
        if let createdPath { unlink(createdPath) }
        createdPath = nil
        try? group.syncShutdownGracefully()
    }
}
