import Foundation
import Glibc
import HapticCore
import HapticDaemon
import Testing

/// The render thread's real-time priority (`render.realtime_priority`): the daemon takes it only as
/// far as RLIMIT_RTPRIO allows (the service's `LimitRTPRIO=`), and what the kernel then says of the
/// thread is what the loop reports. RLIMIT_RTPRIO is the process's: these tests change only its soft
/// limit, one at a time, and put it back.
@Suite(.serialized) struct RealtimeTests {
    /// Whether this process may take SCHED_FIFO 5: CAP_SYS_NICE in its effective set (root in a
    /// container may lack it), or a soft RLIMIT_RTPRIO of 5 or more.
    static let mayTakeRealtime: Bool = {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let capEff = status.split(separator: "\n").first { $0.hasPrefix("CapEff:") }
            .flatMap { UInt64($0.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16) } ?? 0
        var l = rlimit()
        let limit = getrlimit(__rlimit_resource_t(__RLIMIT_RTPRIO.rawValue), &l) == 0 ? l.rlim_cur : 0
        return capEff & (1 << 23) != 0 || limit >= 5
    }()

    /// Runs `body` with RLIMIT_RTPRIO's soft limit at `soft` (at most the hard one), then restores it.
    func withRealtimeLimit<T>(_ soft: rlim_t, _ body: () throws -> T) throws -> T {
        let resource = __rlimit_resource_t(__RLIMIT_RTPRIO.rawValue)
        var saved = rlimit()
        try #require(getrlimit(resource, &saved) == 0)
        var l = rlimit(rlim_cur: min(soft, saved.rlim_max), rlim_max: saved.rlim_max)
        try #require(setrlimit(resource, &l) == 0, "setrlimit(RLIMIT_RTPRIO, \(soft)): errno \(errno)")
        defer { _ = setrlimit(resource, &saved) }
        return try body()
    }

    /// The kernel's view of the thread named `name` in this process: its policy (0 SCHED_OTHER,
    /// 1 SCHED_FIFO) and real-time priority, from /proc/self/task/TID/stat (fields 41 and 40).
    func scheduling(ofThreadNamed name: String) throws -> (policy: Int, priority: Int) {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        for tid in tasks {
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8),
                  comm.trimmingCharacters(in: .newlines) == name,
                  let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")")
            else { continue }
            // Fields from the third (state) on, after the command name in parentheses.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return (Int(fields[41 - 3])!, Int(fields[40 - 3])!)
        }
        throw CancellationError()
    }

    @Test func theLimitCapsThePriorityAndNoLimitMeansNone() {
        #expect(RealtimeScheduling.allowedPriority(wanted: 10, limit: 5, maximum: 99) == 5)
        #expect(RealtimeScheduling.allowedPriority(wanted: 10, limit: 20, maximum: 99) == 10)
        #expect(RealtimeScheduling.allowedPriority(wanted: 10, limit: 0, maximum: 99) == 0)
        #expect(RealtimeScheduling.allowedPriority(wanted: 99, limit: nil, maximum: 99) == 99)
        #expect(RealtimeScheduling.allowedPriority(wanted: 120, limit: nil, maximum: 99) == 99)
        #expect(RealtimeScheduling.allowedPriority(wanted: 10, limit: UInt64.max - 1, maximum: 99) == 10)
    }

    @Test(.enabled(if: mayTakeRealtime))
    func theRenderThreadRunsUnderSCHEDFIFOAndStillRenders() throws {
        let loop = RenderLoop(mode: .event, label: "rt-granted", realtime: .exactly(5))
        defer { loop.shutdown() }
        #expect(loop.realtime == .fifo(priority: 5))
        let s = try scheduling(ofThreadNamed: "rt-granted")
        #expect(s.policy == 1 && s.priority == 5, "the kernel says policy \(s.policy), priority \(s.priority)")
        // A pulse's start and end still reach the pad, the end written by the real-time thread.
        let sink = RecordingSink()
        loop.addPad(0, sink: sink, profile: .generic)
        try loop.withPad(0) { engine, _ in
            try engine.start(engine.makePlayer(pattern(duration: 0.02)))
        }
        #expect(sink.waitFor { $0.count >= 2 && $0.last == .set(.zero) }, "writes: \(sink.writes)")
        #expect(loop.wakeups >= 1)
    }

    @Test func whereTheLimitAllowsNoneTheDaemonsThreadStaysNormalEvenForRoot() throws {
        try withRealtimeLimit(0) {
            let loop = RenderLoop(mode: .event, label: "rt-refused", realtime: .upTo(10))
            defer { loop.shutdown() }
            #expect(loop.realtime == .notAllowed)
            let s = try scheduling(ofThreadNamed: "rt-refused")
            #expect(s.policy == 0 && s.priority == 0)
        }
    }

    @Test func notAskedIsNotTaken() throws {
        let loop = RenderLoop(mode: .event, label: "rt-unasked")
        defer { loop.shutdown() }
        #expect(loop.realtime == .notAsked)
        #expect(try scheduling(ofThreadNamed: "rt-unasked").policy == 0)
    }
}
