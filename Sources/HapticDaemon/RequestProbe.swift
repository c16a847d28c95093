/// Time stamps along one request's way from the socket to the pad and back, for the benchmark's
/// request-path breakdown (`hapticbench`, docs/benchmarks.md "Where a command's time goes").
///
/// Off unless a benchmark turns it on: then a stage costs one `clock_gettime`; off, one load and a
/// branch. It records one request at a time — the benchmark resets it, sends one line, reads the
/// reply, then takes the marks — and keeps each stage's first mark after a reset (a timer firing on
/// the render thread afterwards does not overwrite the command's own).
public enum RequestProbe {
    public enum Stage: Int, CaseIterable, Sendable {
        /// NIO delivered the bytes to the connection's handler (`channelRead`).
        case read
        /// The framer returned the turn's lines (`ConnectionHandler.answer`).
        case framed
        /// Parsed and decoded (a plain rumble alone in its turn: scanned, parsed under the lock after
        /// its write ahead): the daemon asks for the render loop's lock (`RenderLoop.performSteps`).
        case lockRequested
        /// The lock is held.
        case locked
        /// The command's handler returned (dispatch, permission check, engine calls).
        case dispatched
        /// The pad's frame is rendered, mixed and paced: the sink's write starts.
        case rendered
        /// The sink's write (the ioctl on a real pad) returned.
        case written
        /// The loop's timer is re-armed for what the command changed.
        case rearmed
        /// The lock is released.
        case unlocked
        /// The reply lines are encoded (`DaemonCore.handle` returned).
        case encoded
        /// The reply lines are handed to NIO; its flush (the socket write) comes next.
        case queued
    }

    /// Set once before the first request is sent (the benchmark), never while requests run.
    nonisolated(unsafe) public static var enabled = false
    // Written by whichever thread reaches a stage, read by the benchmark after the reply it waited
    // for, which is written after every stage: ordered by the socket, and benchmark-only.
    nonisolated(unsafe) private static let marks: UnsafeMutablePointer<UInt64> = {
        let p = UnsafeMutablePointer<UInt64>.allocate(capacity: Stage.allCases.count)
        p.initialize(repeating: 0, count: Stage.allCases.count)
        return p
    }()

    @inline(__always)
    static func mark(_ stage: Stage) {
        guard enabled else { return }
        if marks[stage.rawValue] == 0 { marks[stage.rawValue] = now() }
    }

    /// CLOCK_MONOTONIC in nanoseconds (the clock of `MonotonicClock` and `DispatchTime`).
    public static func now() -> UInt64 { MonotonicClock.nowNanoseconds }

    public static func reset() {
        for s in Stage.allCases { marks[s.rawValue] = 0 }
    }

    /// Each stage's mark (0: not reached since the last reset).
    public static func snapshot() -> [Stage: UInt64] {
        var r: [Stage: UInt64] = [:]
        for s in Stage.allCases { r[s] = marks[s.rawValue] }
        return r
    }
}
