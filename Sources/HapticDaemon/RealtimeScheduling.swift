// The render loop's thread's real-time priority: what it asks for and what it got (RenderLoop.swift
// starts the thread; CRenderThread has the call Swift cannot make).
import CRenderThread
import Glibc

/// The real-time priority a render loop's thread asks for (`render.realtime_priority`,
/// docs/architecture.md "The real-time path"): under SCHED_FIFO it runs as soon as its timer fires,
/// ahead of every normal thread — a game's busy ones included — so a transient's onset is late by the
/// kernel's wakeup, not by the machine's load. It only sleeps on its timerfd and renders a few µs per
/// firing; the service bounds it (`LimitRTPRIO=`, `LimitRTTIME=`), and the kernel's real-time
/// throttling keeps 5 % of every CPU for normal threads.
public enum RealtimeRequest: Equatable, Sendable {
    /// Normal scheduling (the tests, `render.realtime_priority = 0`).
    case none
    /// SCHED_FIFO at this priority, or at RLIMIT_RTPRIO's if that is lower, and none if it is 0 —
    /// even where the process could take more (root's CAP_SYS_NICE): the daemon takes what its
    /// service grants (`LimitRTPRIO=`), and a shell that grants none keeps it at normal scheduling.
    case upTo(Int)
    /// SCHED_FIFO at this priority whatever RLIMIT_RTPRIO says, if the kernel allows it (CAP_SYS_NICE):
    /// `hapticbench --realtime`, and the tests of the real-time thread.
    case exactly(Int)
}

/// What a render loop's thread got when it asked for a real-time priority.
public enum RealtimeScheduling: Equatable, Sendable {
    /// No real-time priority was asked for.
    case notAsked
    /// SCHED_FIFO at this priority.
    case fifo(priority: Int)
    /// RLIMIT_RTPRIO allows none: normal scheduling, at the nice value the thread took.
    case notAllowed
    /// The kernel refused (this errno): no CAP_SYS_NICE, `RestrictRealtime=yes`, a seccomp filter.
    case refused(errno: Int32)

    /// The priority `upTo(wanted)` takes under RLIMIT_RTPRIO `limit` (nil: unlimited), within
    /// SCHED_FIFO's 1…`maximum`; 0: none.
    public static func allowedPriority(wanted: Int, limit: UInt64?, maximum: Int) -> Int {
        let capped = min(wanted, maximum)
        guard let limit else { return max(capped, 0) }
        return max(0, min(capped, Int(clamping: limit)))
    }

    /// Puts the calling thread under the scheduling `request` asks for, and says what it got (the
    /// render loop's thread when it starts; `hapticbench`'s nanosleep floor, to compare like with like).
    public static func take(_ request: RealtimeRequest) -> RealtimeScheduling {
        let maximum = Int(sched_get_priority_max(SCHED_FIFO))
        let priority: Int
        switch request {
        case .none: return .notAsked
        case .exactly(let p): priority = min(max(p, 1), maximum)
        case .upTo(let p):
            var l = rlimit()
            guard getrlimit(__rlimit_resource_t(__RLIMIT_RTPRIO.rawValue), &l) == 0 else { return .refused(errno: errno) }
            priority = allowedPriority(wanted: p, limit: l.rlim_cur == rlim_t.max ? nil : UInt64(l.rlim_cur), maximum: maximum)
        }
        guard priority > 0 else { return .notAllowed }
        let rc = hapticd_set_realtime(Int32(priority))
        return rc == 0 ? .fifo(priority: priority) : .refused(errno: -rc)
    }

    /// One line for the log.
    public var description: String {
        switch self {
        case .notAsked: "normal scheduling (render.realtime_priority = 0)"
        case .fifo(let p): "real-time, SCHED_FIFO priority \(p)"
        case .notAllowed: "normal scheduling: RLIMIT_RTPRIO allows no real-time priority (the service sets LimitRTPRIO=)"
        case .refused(let e): "normal scheduling: the kernel refused SCHED_FIFO (\(String(cString: strerror(e))))"
        }
    }
}
