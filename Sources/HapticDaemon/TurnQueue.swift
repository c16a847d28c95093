import Glibc
import NIOCore
import NIOPosix

/// The next turns of connections that are behind, taken among everyone's I/O and shared fairly
/// between users.
///
/// NIO runs an event loop's tasks until none is left before it looks at its sockets again, so a
/// connection that queued its next turn as a task would be answered turn after turn — and so would
/// every other busy connection — while the requests of everyone else waited in their sockets
/// (docs/robustness.md §2). Here the next turns wait in a `FairShare`, and one byte through a pipe
/// watched by the same event loop brings them back as an I/O event: a pass of the loop reads every
/// socket that is ready, then spends at most `budget` on turns, the rest waiting for the next pass.
/// Which turn goes next is the user's (uid's) who has had the least of the daemon's time, so that one
/// user's hundreds of busy connections cost another user's quiet one about one turn, not a round of
/// all of them (docs/robustness.md §2). While nothing waits a connection is answered
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
