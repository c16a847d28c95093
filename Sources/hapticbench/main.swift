// hapticbench: measures the render loop. `hapticbench --json` prints one JSON object; without it, a
// table. Build it as hapticd ships (release, the Makefile's RELEASE_SWIFTFLAGS): make bench.
import Dispatch
import Glibc
import HapticCore
import HapticClient
import HapticDaemon
import Logging
import Synchronization

let json = CommandLine.arguments.contains("--json")
let quick = CommandLine.arguments.contains("--quick")  // shorter runs, for a smoke test
let sections = ["render", "loop", "socket", "path", "library", "waveform", "event", "pulses", "pathprofile", "onset"]
if CommandLine.arguments.contains("--help") {
    print("usage: hapticbench [--json] [--quick] [--only SECTION,...] [--nice N]   (run from the repository root)")
    print("  render loop: tick lateness, render cost, CPU, idle wakeups, RSS; socket: round trip, command-to-write, requests/s;")
    print("  the request path stage by stage; event-driven loop against the fixed tick and a bare nanosleep floor:")
    print("  wakeups, writes, CPU, onset error, per pattern")
    print("  sections: \(sections.joined(separator: ", ")) (default: all but pathprofile and onset, the latter a part of event run alone)")
    print("  --nice N: the whole process at nice N, as the service runs (Nice=-5)")
    print("  --rumble: pathprofile runs only a game's clicks (a rumble from rest, then 0/0)")
    print("  --realtime N: the render loops' threads, and the nanosleep floor, under SCHED_FIFO N (the service's render thread)")
    print("  --load N: N threads spinning at nice 0 throughout, standing for a game that keeps the CPUs busy")
    exit(0)
}
/// `--only render,socket`: just those sections.
let only: Set<String>? = CommandLine.arguments.firstIndex(of: "--only").map { i in
    guard i + 1 < CommandLine.arguments.count else { fatalError("--only needs a list of sections: \(sections)") }
    let chosen = Set(CommandLine.arguments[i + 1].split(separator: ",").map(String.init))
    for name in chosen where !sections.contains(name) { fatalError("unknown section \(name); sections: \(sections)") }
    return chosen
}
/// `--nice N`: the whole benchmark (the daemon's threads and the client alike) at nice N, as the
/// service runs hapticd (`Nice=-5` in systemd/hapticd.service); needs the privilege to lower it.
if let i = CommandLine.arguments.firstIndex(of: "--nice") {
    guard i + 1 < CommandLine.arguments.count, let nice = Int32(CommandLine.arguments[i + 1]) else { fatalError("--nice needs a number") }
    guard setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice) == 0 else { fatalError("setpriority(\(nice)) failed: errno \(errno)") }
}
/// `--realtime N`: every render loop's thread under SCHED_FIFO N, as the service runs its render
/// thread (`render.realtime_priority`, `LimitRTPRIO=`), and the nanosleep floor at the same priority;
/// needs CAP_SYS_NICE or an RLIMIT_RTPRIO of N.
let benchRealtime: RealtimeRequest = CommandLine.arguments.firstIndex(of: "--realtime").map { i in
    guard i + 1 < CommandLine.arguments.count, let p = Int(CommandLine.arguments[i + 1]), (1...99).contains(p) else {
        fatalError("--realtime needs a priority 1…99")
    }
    return .exactly(p)
} ?? .none
/// `--load N`: threads that spin until the process ends, each at nice 0 (whatever `--nice` gave the
/// process), standing for a game's busy threads.
func startLoad(threads: Int) {
    for _ in 0..<threads {
        var t = pthread_t()
        _ = pthread_create(&t, nil, { _ in
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 0)
            var x: UInt64 = 1
            while true { x = x &* 6364136223846793005 &+ 1442695040888963407; if x == 0 { print(x) } }
        }, nil)
    }
}

/// `--load N`: N threads that spin at nice 0 for the whole run (a game keeping the CPUs busy).
if let i = CommandLine.arguments.firstIndex(of: "--load") {
    guard i + 1 < CommandLine.arguments.count, let n = Int(CommandLine.arguments[i + 1]), (1...64).contains(n) else {
        fatalError("--load needs a number of threads 1…64")
    }
    startLoad(threads: n)
}
func want(_ section: String) -> Bool { only?.contains(section) ?? (section != "pathprofile" && section != "onset") }

final class Samples: @unchecked Sendable {
    // @unchecked Sendable: appended only under the render loop's lock, read after the loop went quiet
    // (ordered by a round trip through the lock).
    var lateness: [Double] = []
    var cost: [Double] = []
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
        + Double(usage.ru_stime.tv_usec) / 1e6
}

func rssMB() -> Double {
    guard let f = fopen("/proc/self/status", "r") else { return 0 }
    defer { fclose(f) }
    var line: UnsafeMutablePointer<CChar>?
    var cap = 0
    defer { free(line) }
    while getline(&line, &cap, f) > 0 {
        let s = String(cString: line!)
        if s.hasPrefix("VmRSS:") {
            let kb = s.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return kb / 1024
        }
    }
    return 0
}

/// A busy, realistic pattern: transients, a continuous event with envelope and a sharpness curve.
let pattern: HapticPattern = {
    var elements: [PatternElement] = []
    for i in 0..<20 { elements.append(.event(.transient(at: Double(i) * 0.05, intensity: 0.8, sharpness: Double(i % 5) / 4))) }
    elements.append(.event(.continuous(at: 0, duration: 1, intensity: 0.6, sharpness: 0.3, extra: [.init(.attackTime, 0.3), .init(.releaseTime, 0.3)])))
    elements.append(.curve(.init(.hapticSharpnessControl, at: 0, points: [.init(0, -0.5), .init(0.5, 0.5), .init(1, -0.5)])))
    elements.append(.curve(.init(.hapticIntensityControl, at: 0, points: [.init(0, 0.3), .init(1, 1)])))
    return HapticPattern(elements: elements)
}()

func startLooping(_ loop: RenderLoop, players: Int) {
    _ = loop.withPad(0) { engine, _ in
        for _ in 0..<players {
            let p = engine.makePlayer(pattern, advanced: true)
            try? engine.setLoopEnabled(p, true)
            try? engine.start(p)
        }
    }
}

func stopAll(_ loop: RenderLoop) {
    _ = loop.withPad(0) { engine, _ in
        for id in engine.playerIDs { try? engine.destroyPlayer(id) }
    }
}

/// render + mix + pace cost of one tick with N players, on a manual clock (no timer in the way).
func renderCost(players: Int, ticks: Int) -> (p50: Double, p99: Double) {
    let clock = ManualClock(0)
    let engine = HapticEngine(profile: .generic, clock: clock)
    let pipeline = PadPipeline(engine: engine)
    engine.start()
    for i in 0..<players {
        let p = engine.makePlayer(pattern, advanced: true)
        try? engine.setLoopEnabled(p, true)
        clock.now = Double(i) * 0.013  // spread the players over the pattern
        try? engine.start(p)
    }
    var costs: [Double] = []
    costs.reserveCapacity(ticks)
    for _ in 0..<ticks {
        clock.now += 0.004
        let t0 = DispatchTime.now().uptimeNanoseconds
        _ = pipeline.tick()
        costs.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e3)
    }
    return (percentile(costs, 0.5), percentile(costs, 0.99))
}

func measureCPU(_ loop: RenderLoop, players: Int, seconds: Double) -> Double {
    startLooping(loop, players: players)
    let c0 = cpuSeconds()
    let w0 = DispatchTime.now().uptimeNanoseconds
    usleep(UInt32(seconds * 1e6))
    let c1 = cpuSeconds()
    let wall = Double(DispatchTime.now().uptimeNanoseconds - w0) / 1e9
    stopAll(loop)
    return (c1 - c0) / wall * 100
}

let latenessSeconds = quick ? 2.0 : 10.0
let cpuSecondsEach = quick ? 1.0 : 5.0
let idleSeconds = quick ? 1.0 : 3.0

// Render cost per tick.
let ticks = quick ? 500 : 5000
var r1 = (p50: 0.0, p99: 0.0), r8 = r1, r64 = r1
if want("render") {
    r1 = renderCost(players: 1, ticks: ticks)
    r8 = renderCost(players: 8, ticks: ticks)
    r64 = renderCost(players: 64, ticks: ticks)
}

// Tick lateness on the real loop in fixed mode, 8 players, at 4 ms.
let loop = RenderLoop(mode: .fixed, period: 0.004, realtime: benchRealtime)
loop.addPad(0, sink: SimulatedPad(index: 0), profile: .generic)
let samples = Samples()
var cpu8 = 0.0, cpu64 = 0.0, rss = 0.0, idleWakeups = 0.0
var lateUs: [Double] = []
if want("loop") {
loop.tickObserver = { lateness, cost in
    samples.lateness.append(lateness)
    samples.cost.append(cost)
}
startLooping(loop, players: 8)
usleep(UInt32(latenessSeconds * 1e6))
stopAll(loop)
loop.tickObserver = nil
_ = loop.isArmed  // round trip: the observer has stopped
lateUs = samples.lateness.map { $0 * 1e6 }

// CPU at 8 and 64 players.
cpu8 = measureCPU(loop, players: 8, seconds: cpuSecondsEach)
cpu64 = measureCPU(loop, players: 64, seconds: cpuSecondsEach)
rss = rssMB()

// Idle wakeups, counted by the timer handler itself, after the last output has gone out.
var settle = 0
while loop.isArmed && settle < 1000 {
    usleep(1000)
    settle += 1
}
let w0 = loop.wakeups
usleep(UInt32(idleSeconds * 1e6))
idleWakeups = Double(loop.wakeups - w0) / idleSeconds
}
loop.shutdown()

// The socket: hapticd's own server and core in this process, a real Unix socket, one client.
final class WriteClock: Sendable {
    /// The pad's last writes (at most `kept`), their time and value, and how many there were.
    private let log = Mutex<(count: Int, recent: [(time: Double, value: MotorMagnitudes)])>((0, []))
    private static let kept = 64
    func note(_ time: Double, _ value: MotorMagnitudes) {
        log.withLock { l in
            l.count += 1
            if l.recent.count == Self.kept { l.recent.removeFirst() }
            l.recent.append((time, value))
        }
    }
    var lastWrite: Double { log.withLock { $0.recent.last?.time ?? 0 } }
    var count: Int { log.withLock { $0.count } }
    /// The first write after the `count`-th one for which `matching` holds, waiting for it up to
    /// `timeout` s.
    func write(after count: Int, timeout: Double = 1, matching: (MotorMagnitudes) -> Bool = { _ in true }) -> (time: Double, value: MotorMagnitudes)? {
        let end = MonotonicClock().now + timeout
        while MonotonicClock().now < end {
            let found = log.withLock { l -> (time: Double, value: MotorMagnitudes)? in
                let new = l.recent.suffix(max(0, min(l.count - count, l.recent.count)))
                return new.first { matching($0.value) }
            }
            if let found { return found }
            sched_yield()
        }
        return nil
    }
}
let writes = WriteClock()
let socketLoop = RenderLoop(mode: .event, realtime: benchRealtime)
var socketConfig = DaemonConfig()
socketConfig.patternDirectories = []
let core = DaemonCore(config: socketConfig, loop: socketLoop, logger: Logger(label: "bench"))
let pad = SimulatedPad(index: 0)
core.addPad(info: pad.info, sink: pad, simulated: true)
core.observeWrites { _, time, value in writes.note(time, value) }
let server = SocketServer(core: core, logger: Logger(label: "bench"))
let socketPath = "/tmp/hapticbench-\(getpid()).sock"
try server.start(path: socketPath, mode: 0o600, groupName: nil)
let client = try HapticClient(path: socketPath)
let clock = MonotonicClock()

var rtts: [Double] = []
let pings = quick ? 2000 : 20000
var sequentialRate = 0.0, pipelinedRate = 0.0
var commandToWrite: [Double] = []
if want("socket") {
for _ in 0..<pings {
    let t0 = clock.now
    _ = try client.raw(#"{"id":1,"cmd":"ping"}"#)
    rtts.append((clock.now - t0) * 1e6)
}
sequentialRate = Double(pings) / (rtts.reduce(0, +) / 1e6)

// Pipelined: 100 requests per write, then their 100 replies.
let batch = (1...100).map { #"{"id":\#($0),"cmd":"ping"}"# }.joined(separator: "\n")
let batches = quick ? 20 : 200
let p0 = clock.now
for _ in 0..<batches {
    _ = try client.raw(batch)
    for _ in 1..<100 { _ = try client.nextLine(timeout: 5) }
}
pipelinedRate = Double(batches * 100) / (clock.now - p0)

// Command to device write: a play whose first frame is written inside the command. Between
// iterations the pad is stopped and two of the pacer's 10 ms intervals are let pass (the previous play's
// closing zero is itself paced), so that every play
// starts from silence and may write at once.
let click = #"{"id":2,"cmd":"play","pattern":{"Pattern":[{"Event":{"EventType":"HapticContinuous","EventDuration":0.002}}]}}"#
for _ in 0..<(quick ? 50 : 300) {
    _ = try client.raw(#"{"id":3,"cmd":"stop_all"}"#)
    usleep(25_000)
    let t0 = clock.now
    let reply = try client.raw(click)
    guard reply.contains(#""ok":true"#) else { fatalError("play failed during the benchmark: \(reply)") }
    commandToWrite.append((writes.lastWrite - t0) * 1e6)
}
}
// The request path, stage by stage.
let path: [StageTimes] = want("path") ? try RequestPath.run(RequestPath.socket(client), iterations: quick ? 50 : 300) : []
/// The same lines straight into `DaemonCore.handle` on this thread: the CPU cost without NIO.
final class NoOutlet: ClientOutlet { func event(_ line: String) {} }
let pathInProcess: [StageTimes] = try want("path") ? {
    guard case .success(let id) = core.connect(credentials: nil, outlet: NoOutlet()) else { fatalError("could not connect in-process") }
    return try RequestPath.run(RequestPath.inProcess(core, id), iterations: quick ? 50 : 300)
}() : []
if want("pathprofile") {
    guard case .success(let id) = core.connect(credentials: nil, outlet: NoOutlet()) else { fatalError("could not connect in-process") }
    let n = quick ? 2000 : 20000
    let rumbleOnly = CommandLine.arguments.contains("--rumble")
    let what = rumbleOnly ? "(rumble from rest, 0/0)" : "(play, rumble from rest, in place, 0/0, player.send_parameters)"
    print("pathprofile: \(n) × \(what) in-process, hot: \(f(RequestPath.profile(core, id, iterations: n, rumbleOnly: rumbleOnly), 2)) µs per command")
}
// player.start → write through the Swift CoreHaptics library and through the raw socket.
let startToWrite = want("library")
    ? try compareSwiftLibrary(socketPath: socketPath, client: client, iterations: quick ? 50 : 300, writes: writes) : LibraryComparison()
server.stop()
core.shutdown()

// Voice-coil waveforms: 8 players at 48 kHz.
let waveformCPU = want("waveform") ? waveformCost(players: 8, seconds: quick ? 2 : 10, patternDirectory: "config/patterns") : 0

// The event-driven loop against the fixed tick and the nanosleep floor.
let patternDirectories = ["config/patterns", "../shared/ahap/apple-unityplugins"]
let cmp = want("event") ? compareLoops(quick: quick, patternDirectories: patternDirectories)
    : want("onset") ? compareLoops(quick: quick, patternDirectories: patternDirectories, onsetsOnly: true) : LoopComparison()
let pulses = want("pulses") ? pulseLosses(quick: quick) : []
let rssAfter = rssMB()

func ratio(_ a: Int, _ b: Int) -> String { b == 0 ? "-" : f(Double(a) / Double(b), 2) }

func f(_ x: Double, _ d: Int = 1) -> String {
    var scale = 1.0
    for _ in 0..<d { scale *= 10 }
    return String((x * scale).rounded() / scale)
}

if json {
    print("""
        {"tick_lateness_us": {"p50": \(f(percentile(lateUs, 0.5))), "p99": \(f(percentile(lateUs, 0.99))), "max": \(f(lateUs.max() ?? 0))}, \
        "render_us": {"players_1": {"p50": \(f(r1.p50, 2)), "p99": \(f(r1.p99, 2))}, "players_8": {"p50": \(f(r8.p50, 2)), "p99": \(f(r8.p99, 2))}, \
        "players_64": {"p50": \(f(r64.p50, 2)), "p99": \(f(r64.p99, 2))}}, \
        "cpu_percent": {"players_8": \(f(cpu8, 2)), "players_64": \(f(cpu64, 2))}, \
        "idle_wakeups_per_s": \(f(idleWakeups, 2)), "rss_mb": \(f(rss, 1)), "ticks_measured": \(lateUs.count), \
        "socket": {"round_trip_us": {"p50": \(f(percentile(rtts, 0.5))), "p99": \(f(percentile(rtts, 0.99)))}, \
        "command_to_write_us": {"p50": \(f(percentile(commandToWrite, 0.5))), "p99": \(f(percentile(commandToWrite, 0.99)))}, \
        "requests_per_s": {"sequential": \(f(sequentialRate, 0)), "pipelined": \(f(pipelinedRate, 0))}, \
        "player_start_to_write_us": {"raw_socket": {"p50": \(f(percentile(startToWrite.raw, 0.5))), "p99": \(f(percentile(startToWrite.raw, 0.99)))}, \
        "swift_corehaptics": {"p50": \(f(percentile(startToWrite.library, 0.5))), "p99": \(f(percentile(startToWrite.library, 0.99)))}, \
        "start_then_parameters": {"first_write_with_parameters": \(startToWrite.withParameters), "starts": \(startToWrite.starts), \
        "parameters_after_start_us": {"p50": \(f(percentile(startToWrite.correctedAfter, 0.5))), "p99": \(f(percentile(startToWrite.correctedAfter, 0.99)))}, \
        "pipelined_first_write_with_parameters": \(startToWrite.pipelined), "pipelined_starts": \(startToWrite.pipelinedStarts), \
        "pipelined_parameters_after_start_us": {"p50": \(f(percentile(startToWrite.pipelinedAfter, 0.5))), "p99": \(f(percentile(startToWrite.pipelinedAfter, 0.99)))}}}}, \
        "event_loop": {"constant_rumble": {"event": {"wakeups": \(cmp.constantEvent.wakeups), "writes": \(cmp.constantEvent.writes), "cpu_percent": \(f(cmp.constantEvent.cpuPercent, 3))}, \
        "fixed": {"wakeups": \(cmp.constantFixed.wakeups), "writes": \(cmp.constantFixed.writes), "cpu_percent": \(f(cmp.constantFixed.cpuPercent, 3))}, \
        "clock_nanosleep_floor": {"wakeups": \(cmp.floor.wakeups), "cpu_percent": \(f(cmp.floor.cpuPercent, 3))}}, \
        "files": [\(cmp.files.map { "{\"file\": \"\($0.name)\", \"event_wakeups\": \($0.event.wakeups), \"event_writes\": \($0.event.writes), \"fixed_wakeups\": \($0.fixed.wakeups), \"fixed_writes\": \($0.fixed.writes)}" }.joined(separator: ", "))], \
        "heartbeat_8_cpu_percent": {"event": \(f(cmp.heartbeat8Event.cpuPercent, 3)), "fixed": \(f(cmp.heartbeat8Fixed.cpuPercent, 3))}, \
        "busy_64_cpu_percent": {"event": \(f(cmp.busy64Event.cpuPercent, 3)), "fixed": \(f(cmp.busy64Fixed.cpuPercent, 3))}, \
        "onset_error_us": {"event": {"p50": \(f(percentile(cmp.onsetEvent, 0.5) * 1e6)), "p99": \(f(percentile(cmp.onsetEvent, 0.99) * 1e6)), "cpu_percent": \(f(cmp.onsetCPU.lead, 3))}, \
        "event_no_onset_lead": {"p50": \(f(percentile(cmp.onsetEventNoLead, 0.5) * 1e6)), "p99": \(f(percentile(cmp.onsetEventNoLead, 0.99) * 1e6)), "cpu_percent": \(f(cmp.onsetCPU.noLead, 3))}, \
        "fixed": {"p50": \(f(percentile(cmp.onsetFixed, 0.5) * 1e6)), "p99": \(f(percentile(cmp.onsetFixed, 0.99) * 1e6))}, \
        "clock_nanosleep_floor_lateness": {"p50": \(f(percentile(cmp.floor.lateness, 0.5) * 1e6)), "p99": \(f(percentile(cmp.floor.lateness, 0.99) * 1e6))}, \
        "event_firing_lateness": {"p50": \(f(percentile(cmp.onsetFiringLateness, 0.5) * 1e6)), "p99": \(f(percentile(cmp.onsetFiringLateness, 0.99) * 1e6))}}, \
        "idle_wakeups": \(f(cmp.idleWakeups, 0)), "rss_mb": \(f(rssAfter, 1))}, \
        "pulses": [\(pulses.map { "{\"profile\": \"\($0.profile)\", \"interval_ms\": \(f($0.interval * 1000)), \"sent\": \($0.sent), \"written\": \($0.written), \"lost\": \($0.sent - $0.written), \"shortest_on_time_ms\": \($0.shortestOnTime.isFinite ? f($0.shortestOnTime * 1000) : "null")}" }.joined(separator: ", "))], \
        "request_path_in_process_us": {\(pathInProcess.map { t in "\"\(t.name)\": {\"command_to_write\": {\"p50\": \(f(percentile(t.toWrite, 0.5))), \"p99\": \(f(percentile(t.toWrite, 0.99)))}, \"stages\": [\(zip(t.stageList, t.stages).map { "{\"stage\": \"\($0.0.label)\", \"p50\": \(f(percentile($0.1, 0.5))), \"p99\": \(f(percentile($0.1, 0.99)))}" }.joined(separator: ", "))]}" }.joined(separator: ", "))}, \
        "request_path_us": {\(path.map { t in "\"\(t.name)\": {\"command_to_write\": {\"p50\": \(f(percentile(t.toWrite, 0.5))), \"p99\": \(f(percentile(t.toWrite, 0.99)))}, \"round_trip\": {\"p50\": \(f(percentile(t.roundTrip, 0.5))), \"p99\": \(f(percentile(t.roundTrip, 0.99)))}, \"stages\": [\(zip(RequestPath.stages, t.stages).map { "{\"stage\": \"\($0.0.label)\", \"p50\": \(f(percentile($0.1, 0.5))), \"p99\": \(f(percentile($0.1, 0.99)))}" }.joined(separator: ", "))]}" }.joined(separator: ", "))}, \
        "waveform_cpu_percent_8_players_48khz": \(f(waveformCPU, 3))}
        """)
} else {
    print("hapticbench (\(lateUs.count) ticks at 4 ms over \(f(latenessSeconds)) s, 8 players)")
    print("  tick lateness      p50 \(f(percentile(lateUs, 0.5))) µs   p99 \(f(percentile(lateUs, 0.99))) µs   max \(f(lateUs.max() ?? 0)) µs")
    print("  render+mix+pace    1 player p50 \(f(r1.p50, 2)) µs p99 \(f(r1.p99, 2)) µs")
    print("                     8 players p50 \(f(r8.p50, 2)) µs p99 \(f(r8.p99, 2)) µs")
    print("                    64 players p50 \(f(r64.p50, 2)) µs p99 \(f(r64.p99, 2)) µs")
    print("  CPU (one core)     8 players \(f(cpu8, 2)) %   64 players \(f(cpu64, 2)) %")
    print("  idle wakeups       \(f(idleWakeups, 2)) /s")
    print("  RSS                \(f(rss, 1)) MB")
    print("  socket round trip  p50 \(f(percentile(rtts, 0.5))) µs   p99 \(f(percentile(rtts, 0.99))) µs")
    print("  command → write    p50 \(f(percentile(commandToWrite, 0.5))) µs   p99 \(f(percentile(commandToWrite, 0.99))) µs")
    print("  player.start → write  raw socket p50 \(f(percentile(startToWrite.raw, 0.5))) µs p99 \(f(percentile(startToWrite.raw, 0.99))) µs; Swift CoreHaptics p50 \(f(percentile(startToWrite.library, 0.5))) µs p99 \(f(percentile(startToWrite.library, 0.99))) µs")
    print("  start, then sendParameters at once (Swift CoreHaptics): the first write had the parameters in \(startToWrite.withParameters) of \(startToWrite.starts); the pad had them p50 \(f(percentile(startToWrite.correctedAfter, 0.5))) µs p99 \(f(percentile(startToWrite.correctedAfter, 0.99))) µs after the start's write")
    print("  the two lines in one write (raw socket): first write with the parameters in \(startToWrite.pipelined) of \(startToWrite.pipelinedStarts); the pad had them p50 \(f(percentile(startToWrite.pipelinedAfter, 0.5))) µs p99 \(f(percentile(startToWrite.pipelinedAfter, 0.99))) µs after")
    print("  waveforms          8 players at 48 kHz in 5 ms blocks: CPU \(f(waveformCPU, 3)) % of one core")
    print("  requests/s         one client: \(f(sequentialRate, 0)) sequential, \(f(pipelinedRate, 0)) pipelined (100 per write)")
    let paths: [(String, [StageTimes])] = [("through the socket", path), ("in-process, DaemonCore.handle on the calling thread", pathInProcess)]
    for (title, path) in paths where !path.isEmpty {
        print("")
        print("request path \(title), µs p50 / p99 / min per stage (\(path.map { "\($0.name): \($0.toWrite.count) samples" }.joined(separator: ", ")))")
        print("  " + "stage".padding(toLength: 28, withPad: " ", startingAt: 0) + path.map { $0.name.padding(toLength: 24, withPad: " ", startingAt: 0) }.joined())
        for (k, stage) in path[0].stageList.enumerated() {
            print("  " + stage.label.padding(toLength: 28, withPad: " ", startingAt: 0)
                + path.map { "\(f(percentile($0.stages[k], 0.5))) / \(f(percentile($0.stages[k], 0.99))) / \(f($0.stages[k].min() ?? 0))".padding(toLength: 24, withPad: " ", startingAt: 0) }.joined())
        }
        print("  " + "command → write".padding(toLength: 28, withPad: " ", startingAt: 0)
            + path.map { "\(f(percentile($0.toWrite, 0.5))) / \(f(percentile($0.toWrite, 0.99)))".padding(toLength: 24, withPad: " ", startingAt: 0) }.joined())
        print("  " + "round trip".padding(toLength: 28, withPad: " ", startingAt: 0)
            + path.map { "\(f(percentile($0.roundTrip, 0.5))) / \(f(percentile($0.roundTrip, 0.99)))".padding(toLength: 24, withPad: " ", startingAt: 0) }.joined())
        print("  " + "minor page faults/command".padding(toLength: 28, withPad: " ", startingAt: 0)
            + path.map { f($0.pageFaults, 2).padding(toLength: 24, withPad: " ", startingAt: 0) }.joined())
    }
    print("")
    print("event-driven loop vs fixed 4 ms tick vs bare clock_nanosleep loop at 4 ms")
    let ce = cmp.constantEvent, cf = cmp.constantFixed
    print("  constant rumble    event: \(ce.wakeups) wakeups, \(ce.writes) writes, CPU \(f(ce.cpuPercent, 3)) %")
    print("                     fixed: \(cf.wakeups) wakeups, \(cf.writes) writes, CPU \(f(cf.cpuPercent, 3)) %")
    print("                     nanosleep floor: \(cmp.floor.wakeups) wakeups, CPU \(f(cmp.floor.cpuPercent, 3)) %")
    print("  8 × heartbeat      CPU event \(f(cmp.heartbeat8Event.cpuPercent, 3)) %, fixed \(f(cmp.heartbeat8Fixed.cpuPercent, 3)) % (ratio \(f(cmp.heartbeat8Event.cpuPercent / max(cmp.heartbeat8Fixed.cpuPercent, 1e-9), 2)))")
    print("  64 × busy          CPU event \(f(cmp.busy64Event.cpuPercent, 3)) %, fixed \(f(cmp.busy64Fixed.cpuPercent, 3)) %")
    print("  transient onset    event p50 \(f(percentile(cmp.onsetEvent, 0.5) * 1e6)) µs p99 \(f(percentile(cmp.onsetEvent, 0.99) * 1e6)) µs; fixed p50 \(f(percentile(cmp.onsetFixed, 0.5) * 1e6)) µs p99 \(f(percentile(cmp.onsetFixed, 0.99) * 1e6)) µs")
    print("                     event, onset lead \(f(DaemonConfig().onsetLead * 1e6)) µs: CPU \(f(cmp.onsetCPU.lead, 3)) %; without it (render.onset_lead = 0): p50 \(f(percentile(cmp.onsetEventNoLead, 0.5) * 1e6)) µs p99 \(f(percentile(cmp.onsetEventNoLead, 0.99) * 1e6)) µs, CPU \(f(cmp.onsetCPU.noLead, 3)) %")
    print("                     event loop's firings (after the lead's wait): late by p50 \(f(percentile(cmp.onsetFiringLateness, 0.5) * 1e6)) µs p99 \(f(percentile(cmp.onsetFiringLateness, 0.99) * 1e6)) µs (\(cmp.onsetFiringLateness.count))")
    print("                     nanosleep floor lateness p50 \(f(percentile(cmp.floor.lateness, 0.5) * 1e6)) µs p99 \(f(percentile(cmp.floor.lateness, 0.99) * 1e6)) µs")
    print("  idle               \(f(cmp.idleWakeups, 0)) wakeups; RSS \(f(rssAfter, 1)) MB")
    print("  per pattern        file: event wakeups/writes (ratio) | fixed wakeups/writes")
    for row in cmp.files {
        print("    \(row.name.padding(toLength: 22, withPad: " ", startingAt: 0)) \(row.event.wakeups)/\(row.event.writes) (\(ratio(row.event.wakeups, row.event.writes)))  |  \(row.fixed.wakeups)/\(row.fixed.writes)")
    }
    print("")
    print("single rumble pulses of 10, 30, 60 ms (event loop): written / sent, lost, shortest on-time (the interval)")
    for row in pulses {
        print("    \(row.profile.padding(toLength: 22, withPad: " ", startingAt: 0)) \(row.written)/\(row.sent), lost \(row.sent - row.written), on-time ≥ \(row.shortestOnTime.isFinite ? f(row.shortestOnTime * 1000) : "-") ms (\(f(row.interval * 1000)) ms)")
    }
}
