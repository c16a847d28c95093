import Glibc
import HapticCore
import HapticProtocol
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix


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
/// - **Long parses off the event loop.** A turn over `offloadBytes` (an inline pattern), or the rest
///   of one from a `play` of an upload (up to `limits.max_upload_bytes` to parse), is decoded on
///   `decoders` (`DecoderQueue`: two threads, fair by user) while this connection reads and answers
///   nothing else; the event loop goes on serving its other connections. The turn's commands then
///   run back on the event loop, in a turn of this user's share, as any turn's: replies stay in
///   order, and the events they cause follow them.
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let linesPerTurn = 4
    /// A turn longer than this is decoded off the event loop (with `decoders`).
    static let offloadBytes = 16 << 10

    let core: DaemonCore
    let logger: Logger
    let limits: DaemonConfig.Limits
    let turns: TurnQueue?
    let decoders: DecoderQueue?
    /// A turn is being answered on `decoders`: nothing else is read or answered meanwhile.
    private var offloaded = false
    /// The connection closed while a turn was off the loop: the daemon forgets the client once that
    /// turn is done (a piece it stored must not outlive the connection).
    private var disconnectAfterTurn: ClientID?
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
    init(core: DaemonCore, logger: Logger, limits: DaemonConfig.Limits, turns: TurnQueue? = nil, decoders: DecoderQueue? = nil) {
        self.core = core
        self.logger = logger
        self.limits = limits
        self.turns = turns
        self.decoders = decoders
        framer = LineFramer(maximum: limits.maxLineBytes)
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        let credentials = PeerCredentials.read(from: channel)
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
        RequestProbe.mark(.read)
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
        if backlog || offloaded || !context.channel.isWritable || closing {
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
        guard let client, let outlet, !closing, !draining, !offloaded else { return }
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
            // A turn left to a decoding thread goes on when it is answered (`offload`).
            if !answer(items, client, outlet, context) { return }
        }
        if inputClosed {
            // Its last line without a newline, as any (closed by the next turn, once answered).
            if let last = framer.finish(), !answer([last], client, outlet, context) { return }
            closeWhenFlushed(context)
        } else if readHeld {
            readHeld = false
            context.read()
        }
    }

    /// Answers the turn's lines now, or (false) leaves it to a decoding thread: a turn over
    /// `offloadBytes`, or the rest of one from a `play` of an upload (`DaemonCore.answer`).
    private func answer(_ items: [InboundLine], _ client: ClientID, _ outlet: ChannelOutlet, _ context: ChannelHandlerContext) -> Bool {
        RequestProbe.mark(.framed)
        var lines: [String] = []
        for case .line(let line) in items { lines.append(line) }
        guard !lines.isEmpty else {
            write(items, [], outlet)
            return true
        }
        switch core.answer(lines: lines, from: client, offloadBytes: decoders == nil ? nil : Self.offloadBytes) {
        case .answered(let replies):
            RequestProbe.mark(.encoded)
            write(items, replies, outlet)
            RequestProbe.mark(.queued)
            return true
        case .decodeElsewhere(let pending):
            offload(pending, items, client, outlet, context)
            return false
        }
    }

    /// Decodes the rest of the turn on `decoders` (this connection reads and answers nothing else
    /// meanwhile); back on the event loop, runs it — so that the events its commands cause follow
    /// its replies, as for any turn — writes the replies and goes on.
    private func offload(
        _ pending: DaemonCore.PendingTurn, _ items: [InboundLine], _ client: ClientID, _ outlet: ChannelOutlet, _ context: ChannelHandlerContext
    ) {
        guard let decoders else { return }
        offloaded = true
        let core = core
        decoders.run(for: share, on: context.eventLoop) { core.decode(pending, from: client) }
            .assumeIsolated().whenComplete { [self] result in
                guard case .success(let turn) = result else {
                    // The pool stopped: the daemon is stopping.
                    offloaded = false
                    if let gone = disconnectAfterTurn {
                        core.disconnect(gone)
                    } else if self.client != nil, !closing {
                        closing = true
                        context.close(promise: nil)
                    }
                    return
                }
                // The commands run in a turn of this user's share, as any turn's (the render
                // loop's lock, a big pattern's player made), nothing else of this connection meanwhile.
                let run = { [self] in
                    offloaded = false
                    // Run even if the connection closed meanwhile, as the lines of any turn read
                    // before its close (a one-shot plays on); then the client goes.
                    let replies = core.finish(turn, from: client)
                    if let gone = disconnectAfterTurn {
                        core.disconnect(gone)
                        return
                    }
                    guard self.client != nil, !closing else { return }
                    write(items, replies, outlet)
                    context.flush()
                    scheduleTurn(context)
                }
                if let turns { turns.enqueue(share, run) } else { run() }
            }
    }

    /// The turn's replies, in order: each line's, and the error of a line that was too long.
    private func write(_ items: [InboundLine], _ replies: [String], _ outlet: ChannelOutlet) {
        var replies = replies.makeIterator()
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
            if offloaded { disconnectAfterTurn = client } else { core.disconnect(client) }
            logger.info("client \(client) disconnected")
        }
        client = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("client \(client.map(String.init) ?? "?"): \(error)")
        context.close(promise: nil)
    }
}
