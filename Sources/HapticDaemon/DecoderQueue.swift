import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Where the long parses go (`ConnectionHandler`: a turn over `offloadBytes`, or a `play` of an
/// upload — up to `limits.max_upload_bytes` of pattern, seconds of a debug build's time): a small
/// thread pool beside the socket threads, so that the event loop's other connections are answered
/// meanwhile.
///
/// Fair by user, as the socket threads are (`FairShare`), and work-conserving: a free thread takes
/// the oldest waiting job of a user with nothing running, else the oldest waiting job. So a user
/// with many connections holds every thread only while nobody else waits, and another user's job
/// waits for at most one job to end; on a desktop, where every program is one user, both threads
/// serve it.
///
/// `@unchecked Sendable`: `waiting`, `running` and `busy` are touched only under `lock`; the pool is
/// thread-safe. Jobs go to the pool only when a thread is free, so none waits inside it.
final class DecoderQueue: @unchecked Sendable {
    /// Threads: at most this many parses (and the memory they take) at once.
    static let threads = 2

    private typealias Job = @Sendable (NIOThreadPool.WorkItemState) -> Void

    private let pool = NIOThreadPool(numberOfThreads: DecoderQueue.threads)
    private let lock = NIOLock()
    private var waiting: [(user: UInt32, job: Job)] = []
    private var running: [UInt32: Int] = [:]
    private var busy = 0
    private var stopped = false

    func start() { pool.start() }

    /// Stops the pool: waits for the running jobs (their results go to live event loops: call it
    /// before the event loops shut down); the waiting ones fail.
    func stop() {
        let left = lock.withLock { () -> [Job] in
            stopped = true
            defer { waiting = [] }
            return waiting.map(\.job)
        }
        for job in left { job(.cancelled) }
        try? pool.syncShutdownGracefully()
    }

    /// Runs `work` for `user` on the pool (see the type's fairness); its result on `loop` (a failure
    /// once the pool has stopped).
    func run<T: Sendable>(for user: UInt32, on loop: any EventLoop, _ work: @escaping @Sendable () -> T) -> EventLoopFuture<T> {
        let promise = loop.makePromise(of: T.self)
        let job: Job = { state in
            guard state == .active else { return promise.fail(ChannelError.ioOnClosedChannel) }
            promise.succeed(work())
        }
        let refused = lock.withLock { () -> Bool in
            if stopped { return true }
            waiting.append((user, job))
            return false
        }
        if refused { job(.cancelled) } else { dispatch() }
        return promise.futureResult
    }

    /// Hands waiting jobs to free threads.
    private func dispatch() {
        while let (user, job) = lock.withLock({ () -> (UInt32, Job)? in
            guard !stopped, busy < Self.threads, !waiting.isEmpty else { return nil }
            let i = waiting.firstIndex { running[$0.user, default: 0] == 0 } ?? 0
            let next = waiting.remove(at: i)
            busy += 1
            running[next.user, default: 0] += 1
            return (next.user, next.job)
        }) {
            pool.submit { [self] state in
                job(state)
                lock.withLock {
                    busy -= 1
                    running[user, default: 1] -= 1
                    if running[user] == 0 { running[user] = nil }
                }
                dispatch()
            }
        }
    }
}
