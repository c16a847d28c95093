import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Where the long parses go (`ConnectionHandler`: a turn over `offloadBytes`, or a `play` of an
/// upload — up to `limits.max_upload_bytes` of pattern, seconds of a debug build's time): a small
/// thread pool beside the socket threads, so that the event loop's other connections are answered
/// meanwhile. Fair by user as the socket threads are (`FairShare`): at most one job of a user runs
/// or waits in the pool at once, the user's others waiting here in order, so that a user with many
/// connections holds at most one of the threads, and any other user's job waits for at most one
/// job of each user ahead of it.
///
/// `@unchecked Sendable`: `running` and `waiting` are touched only under `lock`; the pool is
/// thread-safe.
final class DecoderQueue: @unchecked Sendable {
    /// Threads: at most this many parses (and the memory they take) at once.
    static let threads = 2

    private let pool = NIOThreadPool(numberOfThreads: DecoderQueue.threads)
    private let lock = NIOLock()
    private var running: Set<UInt32> = []
    private var waiting: [UInt32: [@Sendable () -> Void]] = [:]

    func start() { pool.start() }

    /// Stops the pool: waits for the running jobs (their results go to live event loops: call it
    /// before the event loops shut down); the waiting ones fail.
    func stop() {
        try? pool.syncShutdownGracefully()
        let left = lock.withLock { () -> [@Sendable () -> Void] in
            defer { waiting = [:] }
            return waiting.values.flatMap { $0 }
        }
        for job in left { job() }  // submitted to a stopped pool: each fails at once
    }

    /// Runs `work` for `user` on the pool, in order with that user's other jobs; its result on
    /// `loop` (a failure once the pool has stopped).
    func run<T: Sendable>(for user: UInt32, on loop: any EventLoop, _ work: @escaping @Sendable () -> T) -> EventLoopFuture<T> {
        let promise = loop.makePromise(of: T.self)
        let job: @Sendable () -> Void = { [self] in
            pool.submit { state in
                defer { self.next(after: user) }
                guard state == .active else { return promise.fail(ChannelError.ioOnClosedChannel) }
                promise.succeed(work())
            }
        }
        let now = lock.withLock { () -> Bool in
            if running.contains(user) {
                waiting[user, default: []].append(job)
                return false
            }
            running.insert(user)
            return true
        }
        if now { job() }
        return promise.futureResult
    }

    private func next(after user: UInt32) {
        let job = lock.withLock { () -> (@Sendable () -> Void)? in
            guard var queue = waiting[user], !queue.isEmpty else {
                running.remove(user)
                return nil
            }
            let job = queue.removeFirst()
            waiting[user] = queue.isEmpty ? nil : queue
            return job
        }
        job?()
    }
}
