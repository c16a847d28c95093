import Glibc
import HapticCore
import HapticProtocol
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The daemon's output to one connection: replies, and events that may be dropped.
///
/// The bound is NIO's write-buffer watermark (high `limits.output_buffer_bytes`, low half of it): an
/// event for a connection that is over it — not writable — is dropped and counted, and once the
/// client has caught up (under the low mark) it gets `{"event":"events_dropped","count":N}`: a
/// subscriber that does not read costs a bounded buffer, never memory without end. Replies are
/// always written: the connection reads no further requests while it is not writable, so they cannot
/// pile up. No write carries a promise: a flooder closed with thousands of replies unsent used to
/// run a callback for each of them at once (the soak test saw 100 ms stalls when a wave of flooders
/// was cut off).
final class ChannelOutlet: ClientOutlet {
    // Sendable: `channel` is Sendable and thread-safe to write to; the mutable state is behind a lock.
    let channel: any Channel
    private struct State {
        var writable = true
        var dropped = 0
    }
    private let state = NIOLockedValueBox(State())

    init(channel: any Channel) {
        self.channel = channel
    }

    var droppedEvents: Int { state.withLockedValue { $0.dropped } }

    /// An event, from under the render loop's lock — possibly taken by this channel's own event loop
    /// thread, inside `RenderLoop.perform` (a request runs its command on its socket thread). So the
    /// write is always a task of its own on the event loop, never done in place: done
    /// in place, a write that fails (the peer is gone) closes the channel, and a write that drains the
    /// output makes it writable again — and both run handler code at once (`channelInactive` →
    /// `DaemonCore.disconnect`, `channelWritabilityChanged` → the next request) that calls `perform`
    /// again on the thread that holds the render loop's lock — which trapped in libdispatch when the
    /// loop was a serial queue ("dispatch_sync called on queue already owned by current thread"),
    /// and would deadlock now. The soak test found it (docs/robustness.md).
    func event(_ line: String) {
        guard take() else { return }
        channel.eventLoop.execute { [self] in
            // It may have stopped being writable since: checked again where it is exact.
            guard channel.isWritable else {
                state.withLockedValue { $0.dropped += 1 }
                return
            }
            write(line, flush: true)
        }
    }

    /// Whether an event may be sent now; counts it as dropped otherwise.
    private func take() -> Bool {
        state.withLockedValue { s in
            guard s.writable else {
                s.dropped += 1
                return false
            }
            return true
        }
    }

    /// A reply, always sent. Called on the event loop, outside `perform`.
    /// Without `flush`, the caller flushes (a turn's replies go out in one system call).
    func reply(_ line: String, flush: Bool = true) {
        write(line, flush: flush)
    }

    /// The channel's writability changed (on its event loop): events are dropped while it is over
    /// the high mark; back under the low mark the client hears how many it missed.
    func writabilityChanged(_ writable: Bool) {
        let notice: Int? = state.withLockedValue { s in
            s.writable = writable
            guard writable, s.dropped > 0 else { return nil }
            defer { s.dropped = 0 }
            return s.dropped
        }
        if let notice { reply(Reply.eventsDropped(notice)) }
    }

    private func write(_ line: String, flush: Bool) {
        var buffer = channel.allocator.buffer(capacity: line.utf8.count + 1)
        buffer.writeString(line)
        buffer.writeInteger(UInt8(ascii: "\n"))
        if flush {
            channel.writeAndFlush(buffer, promise: nil)
        } else {
            channel.write(buffer, promise: nil)
        }
    }
}

/// The next turns of connections that are behind, taken among everyone's I/O and shared fairly
/// between users.
///
/// NIO runs an event loop's tasks until none is left before it looks at its sockets again. A
/// connection that queued its next turn as a task (`execute`) was therefore answered turn after turn
/// — and so was every other busy connection — while the requests of everyone else waited in their
/// sockets: the soak test measured the event loop running 25–70 ms at a stretch under a flood, and
/// a well-behaved client's ping p99 at 40 ms (docs/robustness.md). Here the next turns wait in a
/// `FairShare`, and one byte through a pipe watched by the same event loop brings them back as an
/// I/O event: a pass of the loop reads every socket that is ready, then spends at most `budget` on
/// turns, the rest waiting for the next pass. Which turn goes next is the user's (uid's) who has had
/// the least of the daemon's time, so that one user's hundreds of busy connections cost another
/// user's quiet one about one turn, not a round of all of them (the soak test measured rounds of
/// 3–10 ms with 1 000 clients, docs/robustness.md §2). While nothing waits a connection is answered
/// as soon as its bytes are read (`runNowIfNext`): no pipe round trip when the daemon is not busy.
/// One per event loop; used only on it.
final class TurnQueue {
    /// The longest a pass of the event loop spends on the turns of connections that are behind.
    static let budget = TimeAmount.milliseconds(1)
    private var waiting = FairShare<UInt32, () -> Void>()
    private var signalled = false
    private var running = false
    private var pipe: (any Channel)?
    private let eventLoop: any EventLoop

    /// Time spent on turns taken at once (`runNowIfNext`) since `windowStart`.
    private var windowStart = NIODeadline.uptimeNanoseconds(0)
    private var windowSpent = TimeAmount.zero

    private init(eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    /// Runs `turn` at once when it would be the next turn given anyway (its user has had no more
    /// of the daemon's time than anyone waiting), charging it to `share`; false when it must wait.
    /// Turns taken at once also spend a budget: at most `budget` of them per pass (between two runs
    /// of the queued turns, or per 4 × `budget` while nothing is queued); past it they wait, so
    /// that the reads of a pass are never held up by more than `budget` of answering.
    func runNowIfNext(_ share: UInt32, _ turn: () -> Void) -> Bool {
        guard !running, waiting.wouldGoNext(share) else { return false }
        let before = NIODeadline.now()
        if before - windowStart > Self.budget * 4 {
            windowStart = before
            windowSpent = .zero
        }
        guard windowSpent < Self.budget else { return false }
        turn()
        let spent = NIODeadline.now() - before
        windowSpent = windowSpent + spent
        waiting.charge(share, nanoseconds: UInt64(clamping: spent.nanoseconds))
        return true
    }

    /// `turn` runs at the event loop's next pass, after the I/O that is ready by then, in its
    /// user's (`share`'s) fair share.
    func enqueue(_ share: UInt32, _ turn: @escaping () -> Void) {
        waiting.enqueue(share, turn)
        signal()
    }

    private func signal() {
        guard !signalled else { return }
        signalled = true
        guard let pipe else {
            // Not started (or stopped): a plain task, as good as it gets without the pipe.
            eventLoop.assumeIsolated().execute { [self] in run() }
            return
        }
        var byte = pipe.allocator.buffer(capacity: 1)
        byte.writeInteger(UInt8(0))
        pipe.writeAndFlush(byte, promise: nil)
    }

    fileprivate func run() {
        // Turns queued while these run need no wake-up of their own: one is sent at the end if any
        // are left.
        signalled = true
        running = true
        defer {
            running = false
            signalled = false
            if !waiting.isEmpty { signal() }
        }
        let start = NIODeadline.now()
        var before = start
        windowStart = start
        windowSpent = .zero
        // Turns queued while these run (a connection's next one) wait their share like the others.
        while let (share, turn) = waiting.next() {
            turn()
            let after = NIODeadline.now()
            waiting.charge(share, nanoseconds: UInt64(clamping: (after - before).nanoseconds))
            before = after
            // Out of time: the rest after the next pass's I/O.
            if after - start > Self.budget { return }
        }
    }

    /// A queue for `eventLoop`, with its pipe registered there. Waits: call it off the event loop.
    static func start(on eventLoop: any EventLoop) throws -> NIOLoopBound<TurnQueue> {
        let queue = try eventLoop.submit { NIOLoopBound(TurnQueue(eventLoop: eventLoop), eventLoop: eventLoop) }.wait()
        var fds: [CInt] = [-1, -1]
        guard Glibc.pipe(&fds) == 0 else {
            throw ConfigError("", "cannot create a pipe for the event loop: \(String(cString: strerror(errno)))")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        let channel: any Channel
        do {
            channel = try NIOPipeBootstrap(group: eventLoop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(TurnWakeups(queue)) }
                }
                .takingOwnershipOfDescriptors(input: fds[0], output: fds[1]).wait()
        } catch {
            close(fds[0])
            close(fds[1])
            throw error
        }
        try eventLoop.submit { queue.value.pipe = channel }.wait()
        return queue
    }
}

/// The read end of a `TurnQueue`'s pipe: a byte means "take the waiting turns".
private final class TurnWakeups: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let queue: NIOLoopBound<TurnQueue>
    init(_ queue: NIOLoopBound<TurnQueue>) { self.queue = queue }
    func channelRead(context: ChannelHandlerContext, data: NIOAny) { queue.value.run() }
}

/// One connection, on its event loop: admits the client, frames its lines, answers them in order,
/// and keeps the daemon fair and bounded.
///
/// - **Backpressure.** Requests are read only while the connection's unsent output is under
///   `limits.output_buffer_bytes` (NIO's write-buffer watermark): a client that sends without reading
///   stops being read, and one that stays over the bound for `limits.output_stall_timeout` is closed
///   with a last error line.
/// - **Fairness.** At most `linesPerTurn` requests are answered per turn before the others' get
///   theirs, however many reads arrived meanwhile (bytes that arrive while a connection is behind
///   wait for its next turn); no more is read while answered lines are waiting. While any
///   connection is behind, new lines wait for a turn too, and turns go by user (`TurnQueue`,
///   `FairShare`): a user's share of the daemon does not grow with its number of connections. A
///   turn's replies are flushed together.
/// - **Framing** is linear in the bytes received (`LineFramer`).
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let linesPerTurn = 4

    let core: DaemonCore
    let logger: Logger
    let limits: DaemonConfig.Limits
    let turns: TurnQueue?
    private var framer: LineFramer
    private var client: ClientID?
    private var outlet: ChannelOutlet?
    /// Whose share of the daemon's time this connection's turns take (`FairShare`): its peer's uid.
    private var share = UInt32.max
    /// The channel asked to read while we were behind: read once caught up.
    private var readHeld = false
    /// Lines are waiting to be answered (the last turn ran out of budget or output room).
    private var backlog = false
    /// The connection's next turn is queued on the event loop (it is behind).
    private var drainScheduled = false
    /// Inside `drain`: a reply's write can make the channel writable again, which calls `drain`.
    private var draining = false
    private var inputClosed = false
    private var closing = false
    private var stall: Scheduled<Void>?

    /// `turns`: the event loop's `TurnQueue` (without one, next turns are plain tasks).
    init(core: DaemonCore, logger: Logger, limits: DaemonConfig.Limits, turns: TurnQueue? = nil) {
        self.core = core
        self.logger = logger
        self.limits = limits
        self.turns = turns
        framer = LineFramer(maximum: limits.maxLineBytes)
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        let credentials = Self.peerCredentials(channel)
        share = credentials?.uid ?? .max
        let outlet = ChannelOutlet(channel: channel)
        self.outlet = outlet
        switch core.connect(credentials: credentials, outlet: outlet) {
        case .success(let id):
            client = id
            logger.info("client \(id) connected (\(credentials.map(\.description) ?? "credentials unknown"))")
            context.fireChannelActive()
        case .failure(let error):
            // Refused (not allowed, or over a connection limit): one error line, then closed at once.
            logger.warning("refusing a client (\(credentials.map(\.description) ?? "unknown peer")): \(error.message)")
            close(context, lastLine: Reply.error(.null, error))
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard client != nil, !closing else { return }
        var bytes = unwrapInboundIn(data)
        framer.append(&bytes)
        // Behind already: the lines wait for the turn that is queued. Answered now when this
        // user's turn would be next anyway (always when nothing waits); otherwise they wait for a
        // turn in this user's share.
        guard !drainScheduled else { return }
        guard let turns else { return drain(context) }
        if !turns.runNowIfNext(share, { drain(context) }) { scheduleTurn(context) }
    }

    /// Reads are held while answered lines wait or output is over its bound: that is the backpressure.
    func read(context: ChannelHandlerContext) {
        if backlog || !context.channel.isWritable || closing {
            readHeld = true
        } else {
            context.read()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        outlet?.writabilityChanged(context.channel.isWritable)
        if context.channel.isWritable {
            stall?.cancel()
            stall = nil
            if backlog || readHeld { scheduleTurn(context) }
        } else if stall == nil {
            let timeout = limits.outputStallTimeout
            stall = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(saturating: timeout * 1e9))) { [self] in
                stall = nil
                logger.warning("client \(client.map(String.init) ?? "?"): closed, its unread output stayed over limits.output_buffer_bytes for \(timeout) s")
                close(context, lastLine: Reply.error(.null, ProtocolError(
                    .limitExceeded, "closing: this connection does not read its replies (limits.output_buffer_bytes, limits.output_stall_timeout)")))
            }
        }
        context.fireChannelWritabilityChanged()
    }

    /// The connection's next turn: at the event loop's next pass, after the I/O ready by then.
    private func scheduleTurn(_ context: ChannelHandlerContext) {
        guard !drainScheduled else { return }
        drainScheduled = true
        let turn = { [self] in
            drainScheduled = false
            drain(context)
        }
        if let turns {
            turns.enqueue(share, turn)
        } else {
            context.eventLoop.assumeIsolated().execute(turn)
        }
    }

    /// One turn: answers waiting lines, at most `linesPerTurn`, while output has room, and flushes
    /// the replies once.
    private func drain(_ context: ChannelHandlerContext) {
        guard let client, let outlet, !closing, !draining else { return }
        draining = true
        var answered = 0
        defer {
            if answered > 0 && !closing { context.flush() }
            draining = false
        }
        backlog = false
        while true {
            guard context.channel.isWritable else {
                backlog = true
                return  // resumed by channelWritabilityChanged
            }
            guard answered < Self.linesPerTurn else {
                backlog = true
                scheduleTurn(context)
                return
            }
            // The turn's lines, answered together: the render loop's lock taken once for all of them.
            var items: [InboundLine] = []
            while answered + items.count < Self.linesPerTurn, let item = framer.next() { items.append(item) }
            guard !items.isEmpty else { break }
            answered += items.count
            answer(items, client, outlet)
        }
        if inputClosed {
            if let last = framer.finish() { answer([last], client, outlet) }
            closeWhenFlushed(context)
        } else if readHeld {
            readHeld = false
            context.read()
        }
    }

    private func answer(_ items: [InboundLine], _ client: ClientID, _ outlet: ChannelOutlet) {
        var lines: [String] = []
        for case .line(let line) in items { lines.append(line) }
        var replies = (lines.isEmpty ? [] : core.handle(lines: lines, from: client)).makeIterator()
        for item in items {
            switch item {
            case .line:
                if let reply = replies.next() { outlet.reply(reply, flush: false) }
            case .tooLong:
                outlet.reply(Reply.error(.null, ProtocolError(
                    .limitExceeded, "request line longer than \(limits.maxLineBytes) bytes (limits.max_line_bytes)")), flush: false)
            }
        }
    }

    /// The client finished sending (e.g. `socat` after its input ended): answer what is pending, write
    /// it, then close. Its one-shot plays go on (see `DaemonCore.disconnect`).
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let e = event as? ChannelEvent, e == .inputClosed {
            inputClosed = true
            if !backlog { drain(context) }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func closeWhenFlushed(_ context: ChannelHandlerContext) {
        guard !closing else { return }
        closing = true
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(capacity: 0))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    private func close(_ context: ChannelHandlerContext, lastLine: String) {
        guard !closing else { return }
        closing = true
        var buffer = context.channel.allocator.buffer(capacity: lastLine.utf8.count + 1)
        buffer.writeString(lastLine)
        buffer.writeInteger(UInt8(ascii: "\n"))
        let channel = context.channel
        // Written straight to the socket: a client that is not reading must not hold the close up.
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
        channel.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stall?.cancel()
        stall = nil
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

    // MARK: credentials

    /// `struct ucred` (pid, uid, gid: three 32-bit fields), which glibc declares only under
    /// _GNU_SOURCE and so Swift does not import.
    struct UCred: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// SO_PEERCRED, and the supplementary groups from SO_PEERGROUPS (Linux ≥ 4.13), read on the
    /// channel's own event loop (so the futures are already fulfilled).
    static func peerCredentials(_ channel: any Channel) -> PeerCredentials? {
        guard let provider = channel as? SocketOptionProvider else { return nil }
        let cred: EventLoopFuture<UCred> = provider.unsafeGetSocketOption(level: .socket, name: .init(rawValue: SO_PEERCRED))
        let box = NIOLockedValueBox<UCred?>(nil)
        cred.whenSuccess { c in box.withLockedValue { $0 = c } }
        guard let c = box.withLockedValue({ $0 }) else { return nil }
        return PeerCredentials(pid: c.pid, uid: c.uid, gid: c.gid, groups: peerGroups(provider))
    }

    /// Up to 64 supplementary groups. NIO hands the option's buffer back zero-filled and without its
    /// length; the kernel keeps group lists sorted, so the groups are the non-zero prefix (with gid 0
    /// first when the peer is in it and in others). More than 64 groups (ERANGE): none are read, and
    /// only the primary group counts — the allow and admin lists then fail closed.
    static func peerGroups(_ provider: any SocketOptionProvider) -> [UInt32] {
        let future: EventLoopFuture<SIMD64<UInt32>> = provider.unsafeGetSocketOption(level: .socket, name: .init(rawValue: SO_PEERGROUPS))
        let box = NIOLockedValueBox<SIMD64<UInt32>?>(nil)
        future.whenSuccess { g in box.withLockedValue { $0 = g } }
        guard let raw = box.withLockedValue({ $0 }) else { return [] }
        var groups: [UInt32] = []
        for i in 0..<64 {
            let g = raw[i]
            if g == 0 && i > 0 { break }
            groups.append(g)
        }
        // A lone 0 is either "in group 0 only" or "no groups": read as none (fail closed).
        if groups == [0] { return [] }
        return groups
    }
}

extension Reply {
    /// The notice a client gets once it catches up after events were dropped for it.
    static func eventsDropped(_ count: Int) -> String {
        JSONWriter.write(.object(JSONObject(["event": .string("events_dropped"), "count": .number(Double(count))])))
    }
}
