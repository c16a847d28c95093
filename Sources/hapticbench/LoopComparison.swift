// The event-driven loop against the fixed tick and a bare timerfd floor, in one run (docs/benchmarks.md,
// "Event-driven loop").
import Dispatch
import Glibc
import HapticCore
import Evdev
import HapticDaemon
import Logging

/// A pad that counts and time-stamps every write.
final class CountingSink: MotorSink, @unchecked Sendable {
    // @unchecked Sendable: written under the render loop's lock only; read after the loop went quiet (a
    // round trip through the lock orders it).
    private(set) var writes: [(time: Double, value: MotorMagnitudes)] = []
    let clock = MonotonicClock()
    func apply(_ write: Pacer.Write) throws(DeviceError) {
        switch write {
        case .set(let m), .refresh(let m): writes.append((clock.now, m))
        }
    }
    func release() {}
}

/// Ended players, signalled under the render loop's lock.
final class Ended: @unchecked Sendable {
    // @unchecked Sendable: a semaphore, thread-safe by itself.
    let semaphore = DispatchSemaphore(value: 0)
}

struct LoopRun {
    /// How late each timer firing began after its deadline, seconds (the loop's own figure).
    var firingLateness: [Double] = []
    var wakeups = 0
    var writes = 0
    var cpuPercent = 0.0
    var onsetErrors: [Double] = []
}

/// A loop with one counting pad; `body` starts players, then the run lasts until `ends` players have
/// ended (or `seconds`, for looping players), and until the last output went out.
func run(_ mode: RenderMode, profile: DeviceProfile = .generic, ends: Int = 1, seconds: Double? = nil,
         _ body: (HapticEngine) throws -> Void) -> (LoopRun, CountingSink, Double) {
    runTimed(mode, profile: profile, ends: ends, seconds: seconds) { engine in
        let start = engine.currentTime
        try body(engine)
        return start
    }
}

/// `run`, with the start time (the third result) given by `body`: the engine's time at which it
/// started its player — after making it (compiling a pattern of 125 transients takes ~90 µs, which
/// a start time read before it would count as lateness).
/// `onsetLead`: the service's (`render.onset_lead`'s default) unless said.
func runTimed(_ mode: RenderMode, profile: DeviceProfile = .generic, ends: Int = 1, seconds: Double? = nil,
              onsetLead: Double = DaemonConfig().onsetLead,
              _ body: (HapticEngine) throws -> Double) -> (LoopRun, CountingSink, Double) {
    let loop = RenderLoop(mode: mode, period: 0.004, realtime: benchRealtime, onsetLead: onsetLead)
    let firings = Samples()
    loop.tickObserver = { lateness, _ in firings.lateness.append(lateness) }
    let sink = CountingSink()
    let ended = Ended()
    loop.setEventHandler { event in
        if case .playerEnded = event { ended.semaphore.signal() }
    }
    loop.addPad(0, sink: sink, profile: profile)
    let c0 = cpuSeconds()
    let t0 = DispatchTime.now().uptimeNanoseconds
    let w0 = loop.wakeups
    var start = 0.0
    _ = loop.withPad(0) { engine, _ in
        start = (try? body(engine)) ?? engine.currentTime
    }
    if let seconds {
        usleep(UInt32(seconds * 1e6))
        _ = loop.withPad(0) { engine, _ in for id in engine.playerIDs { try? engine.destroyPlayer(id) } }
    } else {
        for _ in 0..<ends { _ = ended.semaphore.wait(timeout: .now() + 120) }
    }
    var settle = 0
    while loop.isArmed && settle < 2000 {
        usleep(1000)
        settle += 1
    }
    let wall = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
    var r = LoopRun()
    r.cpuPercent = (cpuSeconds() - c0) / wall * 100
    r.wakeups = loop.wakeups - w0
    r.writes = sink.writes.count
    loop.shutdown()
    r.firingLateness = firings.lateness
    return (r, sink, start)
}

/// The floor: a loop that does nothing but sleep until absolute 4 ms deadlines with
/// `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`, as a C program would.
func timerFloor(seconds: Double, period: Double = 0.004) -> (cpuPercent: Double, wakeups: Int, lateness: [Double]) {
    func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
    // Under `--realtime`, the floor sleeps at the render thread's priority too (this thread, then back).
    if benchRealtime != .none {
        let got = RealtimeScheduling.take(benchRealtime)
        guard case .fifo = got else { fatalError("the floor's thread: \(got.description)") }
    }
    defer {
        var param = sched_param(sched_priority: 0)
        _ = sched_setscheduler(0, SCHED_OTHER, &param)
    }
    let base = now()
    var lateness: [Double] = []
    let c0 = cpuSeconds()
    var k = 1
    while Double(k) * period < seconds {
        let deadline = base + Double(k) * period
        var ts = timespec(tv_sec: Int(deadline), tv_nsec: Int((deadline - Double(Int(deadline))) * 1e9))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
        lateness.append(now() - deadline)
        k += 1
    }
    return ((cpuSeconds() - c0) / (now() - base) * 100, lateness.count, lateness)
}

/// Transients `spacing` apart: their onset error is the time from each one's scheduled start to the
/// write that starts its pulse.
func onsetErrors(_ sink: CountingSink, start: Double, times: [Double]) -> [Double] {
    var errors: [Double] = []
    var i = 0
    for t in times {
        let due = start + t
        while i < sink.writes.count && sink.writes[i].time < due - 0.0005 { i += 1 }
        guard i < sink.writes.count, !sink.writes[i].value.isZero else { continue }
        errors.append(sink.writes[i].time - due)
    }
    return errors
}

struct FileRow {
    var name: String
    var event: LoopRun
    var fixed: LoopRun
}

func loadPatterns(_ directories: [String]) -> [(String, HapticPattern)] {
    let library = PatternLibrary.load(directories: directories, limits: .default)
    return library.names.map { (URLPath.last(library[$0]!.path), library[$0]!.pattern) }
}

enum URLPath {
    static func last(_ path: String) -> String { String(path.split(separator: "/").last ?? Substring(path)) }
}

struct LoopComparison {
    var constantEvent = LoopRun(), constantFixed = LoopRun()
    var floor = (cpuPercent: 0.0, wakeups: 0, lateness: [Double]())
    var files: [FileRow] = []
    var heartbeat8Event = LoopRun(), heartbeat8Fixed = LoopRun()
    var busy64Event = LoopRun(), busy64Fixed = LoopRun()
    var onsetEvent: [Double] = [], onsetFixed: [Double] = []
    /// The onset run's timer firings: how late each began (event loop).
    var onsetFiringLateness: [Double] = []
    /// The event loop's onsets without the onset lead (`render.onset_lead = 0`), and its CPU in
    /// both runs (percent of one core).
    var onsetEventNoLead: [Double] = []
    var onsetCPU = (lead: 0.0, noLead: 0.0)
    var idleWakeups = 0.0
}

/// `onsetsOnly`: just the transient onsets and the floor (`hapticbench --only onset`).
func compareLoops(quick: Bool, patternDirectories: [String], onsetsOnly: Bool = false) -> LoopComparison {
    var c = LoopComparison()
    let constantSeconds = quick ? 2.0 : 10.0
    if onsetsOnly {
        c.floor = timerFloor(seconds: constantSeconds)
        measureOnsets(&c, quick: quick)
        return c
    }
    let constant = HapticPattern(elements: [.event(.continuous(at: 0, duration: constantSeconds, intensity: 0.7, sharpness: 0.3))])
    c.constantEvent = run(.event) { try $0.start($0.makePlayer(constant)) }.0
    c.constantFixed = run(.fixed) { try $0.start($0.makePlayer(constant)) }.0
    c.floor = timerFloor(seconds: constantSeconds)

    for (name, pattern) in loadPatterns(patternDirectories) {
        let e = run(.event) { try $0.start($0.makePlayer(pattern)) }.0
        let f = run(.fixed) { try $0.start($0.makePlayer(pattern)) }.0
        c.files.append(FileRow(name: name, event: e, fixed: f))
    }

    let each = quick ? 1.0 : 5.0
    let heartbeat = loadPatterns(patternDirectories).first { $0.0 == "heartbeat.ahap" }?.1 ?? pattern
    func looping(_ p: HapticPattern, _ n: Int) -> (HapticEngine) throws -> Void {
        { engine in
            for i in 0..<n {
                let id = engine.makePlayer(p, advanced: true)
                try engine.setLoopEnabled(id, true)
                try engine.start(id, at: .at(engine.currentTime + Double(i) * 0.013))
            }
        }
    }
    c.heartbeat8Event = run(.event, seconds: each, looping(heartbeat, 8)).0
    c.heartbeat8Fixed = run(.fixed, seconds: each, looping(heartbeat, 8)).0
    c.busy64Event = run(.event, seconds: each, looping(pattern, 64)).0
    c.busy64Fixed = run(.fixed, seconds: each, looping(pattern, 64)).0
    measureOnsets(&c, quick: quick)

    // Idle: an event-driven loop with a pad and nothing to play.
    let idle = RenderLoop(mode: .event, realtime: benchRealtime)
    idle.addPad(0, sink: CountingSink(), profile: .generic)
    let w0 = idle.wakeups
    usleep(UInt32((quick ? 1.0 : 3.0) * 1e6))
    c.idleWakeups = Double(idle.wakeups - w0)
    idle.shutdown()
    return c
}

func measureOnsets(_ c: inout LoopComparison, quick: Bool) {
    // Transients alternating sharp and dull: 125 onsets (25 when quick), so that their p99 is a
    // percentile, not the single worst one. Each is more than one interval after the previous
    // pulse's end: an onset one interval after the last write is held by the pacer until that
    // write's own time plus the interval, so that write's lateness would count again (80 ms apart,
    // the dull pulses' 70 ms ends fell one generic interval before the next onset: 6 of 125 onsets
    // held 100–200 µs, the whole of the p99).
    let profile = DeviceProfile.generic
    let spacing = ((profile.pulseLength(sharpness: 0) + 3 * profile.minimumUpdateInterval) * 1000).rounded(.up) / 1000
    let times = (0..<(quick ? 25 : 125)).map { 0.05 + Double($0) * spacing }
    let clicks = HapticPattern(elements: times.enumerated().map { .event(.transient(at: $1, intensity: 0.9, sharpness: $0 % 2 == 0 ? 1 : 0.2)) })
    func startClicks(_ engine: HapticEngine) throws -> Double {
        let player = engine.makePlayer(clicks)
        let start = engine.currentTime
        try engine.start(player)
        return start
    }
    let (onsetRun, es, estart) = runTimed(.event, startClicks)
    c.onsetEvent = onsetErrors(es, start: estart, times: times)
    c.onsetFiringLateness = onsetRun.firingLateness
    let (noLeadRun, ns, nstart) = runTimed(.event, onsetLead: 0, startClicks)
    c.onsetEventNoLead = onsetErrors(ns, start: nstart, times: times)
    c.onsetCPU = (onsetRun.cpuPercent, noLeadRun.cpuPercent)
    let (_, fs, fstart) = runTimed(.fixed, startClicks)
    c.onsetFixed = onsetErrors(fs, start: fstart, times: times)
}

/// Issue 26 §1: single `rumble` pulses of 10, 30 and 60 ms on every built-in profile, through the
/// event-driven loop in real time, at varying phases of the profile's interval.
struct PulseRow {
    var profile: String
    var interval: Double
    var sent = 0
    /// Pulses whose value was written within the pulse, one interval after it and 5 ms of scheduling.
    var written = 0
    /// The shortest time a pulse's value stayed on the pad before another value was written.
    var shortestOnTime = Double.infinity
}

func pulseLosses(quick: Bool) -> [PulseRow] {
    DeviceProfile.builtIn.map { profile in
        let i = profile.minimumUpdateInterval
        var pulses: [(at: Double, length: Double)] = []
        var t = 0.02
        for k in 0..<(quick ? 3 : 9) {
            let d = [0.010, 0.030, 0.060][k % 3]
            pulses.append((t, d))
            // Apart enough to be single, at a phase that moves through the interval.
            t += d + 2 * i + 0.02 + Double(k % 4) * i / 4
        }
        let (_, sink, start) = run(.event, profile: profile, ends: pulses.count) { engine in
            for p in pulses {
                try engine.start(engine.makeRumble(strong: 0.8, weak: 0.6, duration: p.length), at: .at(engine.currentTime + p.at))
            }
        }
        let value = profile.quantize(MotorMagnitudes(strong: UInt16((0.8 * 65535).rounded()), weak: UInt16((0.6 * 65535).rounded())))
        var row = PulseRow(profile: profile.name, interval: i)
        for p in pulses {
            row.sent += 1
            let s = start + p.at
            guard let k = sink.writes.firstIndex(where: { $0.time >= s - 0.0005 && $0.time <= s + p.length + i + 0.005 && $0.value == value }) else { continue }
            row.written += 1
            if let next = sink.writes[(k + 1)...].first(where: { $0.value != value }) {
                row.shortestOnTime = min(row.shortestOnTime, next.time - sink.writes[k].time)
            }
        }
        return row
    }
}

