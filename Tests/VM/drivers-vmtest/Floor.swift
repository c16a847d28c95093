import Glibc
import HapticClient
import HapticCore
import VMTestSupport

// MARK: the floor: a bare evdev client against hapticd (issue 13 §2, docs/benchmarks.md "Real drivers")
//
// Per pad, the same commands twice: from `bareclient` (C: per command EVIOCSFF and an EV_FF play, as
// SDL's Linux backend does) straight on the pad's evdev node, and from this program to hapticd's socket
// (`rumble`, SDL_RumbleGamepad's equivalent). Both log when they sent each command (CLOCK_MONOTONIC, as
// the pads stamp their reports), so the pad's reports give:
// - command → first report, p50 of `floorRounds` × `floorClicks` commands (a value, 60 ms later 0/0,
//   140 ms of rest; the four ways' clicks in alternating rounds);
//   the same clicks through `bareclient relay` (the smallest daemon: one socket hop, then the bare
//   client's ioctls) give the floor under any daemon's, and the hop's own share;
// - a ramp of updates every 16 ms (a 60 fps game): each value's lag (command → the report carrying
//   it), median, and the values that never reached the pad;
// - a ramp of updates every 4 ms: reports per second at the pad.
// A measurement, not a gate — except that hapticd loses no value of the 16 ms ramp where its profile
// paces faster than 16 ms, and where it paces slower, none but to a newer value, never the last
// (values taken across a logged VM stall aside).

let floorClicks = 10
/// Rounds of clicks per way (`floorComparison`): 30 commands to each p50, where 10 in one block each
/// left a p50 to a few slow samples and to the emulator's speed in that block.
let floorRounds = 3
let floorRampMilliseconds = 500

/// The ramp's k-th magnitude of `steps`, exactly as bareclient computes it (20 % → 90 % of full scale).
func rampMagnitude(_ k: Int, _ steps: Int) -> UInt16 {
    UInt16(65535.0 * (0.2 + 0.7 * Double(k) / Double(steps > 1 ? steps - 1 : 1)))
}

struct Command {
    var time: Double
    var value: MotorMagnitudes
}

struct FloorResult {
    var latencies: [Double] = []
    /// hapticd only: command → its write (trace), and write → report.
    var toWrite: [Double] = []
    /// hapticd only: the same clicks as raw request lines (`hapticdRawClicks`): command → report, → write.
    var rawLatencies: [Double] = []
    var rawToWrite: [Double] = []
    /// The bare client only: the same clicks through `bareclient relay` (the smallest daemon: a C
    /// program that reads a line from its socket and makes the bare client's ioctls) — command →
    /// report, and the socket hop (the sender's write → the relay's read of the line).
    var relayLatencies: [Double] = []
    var relayHops: [Double] = []
    var writeToReport: [Double] = []
    var lags16: [Double] = []
    /// hapticd only: the 16 ms ramp's lags split at its write (its trace): command → write, write → report.
    var toWrite16: [Double] = []
    var writeToReport16: [Double] = []
    var lost16 = 0
    /// hapticd only: values it never wrote (its trace), as opposed to values the driver coalesced.
    var unwritten16 = 0
    var judged16 = 0
    var excused16 = 0
    /// hapticd only: values it did not write because the next one came while its pacer still held
    /// (the client's sends bunched up: its process was scheduled late) — coalesced by design.
    var paced16 = 0
    var unwrittenDetail: [String] = []
    var rate4: Double?
    /// hapticd only: its writes per second during the 4 ms ramp (its trace).
    var writes4: Double?
}

/// Runs bareclient on the pad; its commands, or nil when it failed.
@MainActor func runBare(_ pad: Pad, _ mode: [String]) -> [Command]? {
    let log = "/tmp/bare-\(pad.type).log"
    unlink(log)
    guard let pid = spawn(["/bin/bareclient", "--dev", pad.node, "--log", log] + mode) else { return nil }
    let status = waitForExit(pid, timeout: 30, poll: pollAll) ?? -1
    let tail = LineTail(path: log)
    tail.poll()
    guard status == 0 else {
        check(false, "\(pad.type): bareclient \(mode.joined(separator: " ")) runs", tail.lines.suffix(5).joined(separator: "\n"))
        return nil
    }
    return tail.lines.compactMap { line in
        let w = line.split(separator: " ")
        guard w.count == 4, w[1] == "CMD", let t = Double(w[0]),
              let s = UInt16(w[2].dropFirst("strong=".count)), let k = UInt16(w[3].dropFirst("weak=".count)) else { return nil }
        return Command(time: t, value: MotorMagnitudes(strong: s, weak: k))
    }
}

/// One `rumble` command to hapticd, stamped just before it is sent.
@MainActor func rumbleCommand(_ pad: Pad, _ m: MotorMagnitudes) -> Command? {
    var body = JSONObject([
        "device": .number(Double(pad.device)), "strong": .number(Double(m.strong) / 65535), "weak": .number(Double(m.weak) / 65535),
    ])
    if !m.isZero { body.append("duration", .number(5)) }
    let t = monotonicNow()
    guard (try? client.request("rumble", body)) != nil else { return nil }
    return Command(time: t, value: m)
}

/// Sleeps until the absolute CLOCK_MONOTONIC time `t` (seconds).
func sleepUntil(_ t: Double) {
    var ts = timespec(tv_sec: Int(t), tv_nsec: Int((t - Double(Int(t))) * 1e9))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
}

/// Round trips through hapticd's socket (the client's request → its reply), seconds: `ping`, answered
/// on the socket thread without the render loop, and the clicks' `rumble` — what of command → write is
/// the socket's and the client's, and what the command's own.
@MainActor var pingTrips: [Double] = [], rumbleTrips: [Double] = []

@MainActor func hapticdClicks(_ pad: Pad) -> [Command] {
    var out: [Command] = []
    for _ in 0..<floorClicks {
        let p = monotonicNow()
        if (try? client.request("ping")) != nil { pingTrips.append(monotonicNow() - p) }
        sleepFor(0.02)
        if let c = rumbleCommand(pad, MotorMagnitudes(strong: 0xC000, weak: 0x8000)) {
            out.append(c)
            rumbleTrips.append(monotonicNow() - c.time)
        }
        sleepFor(0.06)
        if let c = rumbleCommand(pad, .zero) { out.append(c) }
        sleepFor(0.14)
    }
    return out
}

/// One `rumble` request line as a game writes it (the raw clicks and ramps): 5 s, or 0/0 to stop.
func rumbleLine(_ pad: Pad, _ m: MotorMagnitudes, id: Int) -> [UInt8] {
    rumbleLine(id: id, device: pad.device, strong: Double(m.strong) / 65535, weak: Double(m.weak) / 65535, duration: m.isZero ? nil : 5)
}

/// The clicks again as a C game sends them through libhapticd: the request line made, stamped just
/// before it is written, its reply read before the next — without this program's Swift client
/// (`HapticClient`, its reader thread and completion hand-off) in the measurement.
@MainActor func hapticdRawClicks(_ pad: Pad) -> [Command] {
    guard let raw = RawConnection(path: socketPath) else { return [] }
    var out: [Command] = []
    func send(_ m: MotorMagnitudes, _ id: Int) -> Command? {
        guard let t = raw.send(rumbleLine(pad, m, id: id)), raw.readReplies(1) == 1 else { return nil }
        return Command(time: t, value: m)
    }
    for k in 0..<floorClicks {
        sleepFor(0.02)
        if let c = send(MotorMagnitudes(strong: 0xC000, weak: 0x8000), 2 * k + 1) { out.append(c) }
        sleepFor(0.06)
        if let c = send(.zero, 2 * k + 2) { out.append(c) }
        sleepFor(0.14)
    }
    return out
}

/// The clicks through `bareclient relay` on the pad: each line "SEQ STRONG WEAK" written to the relay's
/// socket as the raw clicks are written to hapticd's (stamped just before the write, the reply read
/// before the next), and the relay's log (each line's arrival, by its number). The commands the relay
/// ran, and their hops (write → arrival); nil when the relay did not run every command.
@MainActor func relayClicks(_ pad: Pad) -> (sent: [Command], hops: [Double])? {
    let sock = "/tmp/relay-\(pad.type).sock", log = "/tmp/relay-\(pad.type).log"
    unlink(log)
    unlink(sock)
    guard let pid = spawn(["/bin/bareclient", "--dev", pad.node, "--log", log, "relay", sock]) else { return nil }
    let tail = LineTail(path: log)
    var sent: [Int: Command] = [:]
    var answered = 0, refused = 0
    do {
        var connection: RawConnection?
        waitUntil(5) {
            connection = RawConnection(path: sock)
            return connection != nil
        }
        guard let raw = connection else {
            kill(pid, SIGTERM)
            _ = waitForExit(pid, timeout: 5, poll: pollAll)
            tail.poll()
            check(false, "\(pad.type): bareclient relay listens on \(sock)", tail.lines.suffix(5).joined(separator: "\n"))
            return nil
        }
        func send(_ m: MotorMagnitudes) {
            let seq = sent.count + 1
            guard let t = raw.send(Array("\(seq) \(m.strong) \(m.weak)\n".utf8)) else { return }
            sent[seq] = Command(time: t, value: m)
            let reply = raw.readLine()
            if reply == "ok" { answered += 1 } else { refused += 1 }
        }
        for _ in 0..<floorClicks {
            sleepFor(0.02)
            send(MotorMagnitudes(strong: 0xC000, weak: 0x8000))
            sleepFor(0.06)
            send(.zero)
            sleepFor(0.14)
        }
    }  // the connection closes here: the relay ends
    let status = waitForExit(pid, timeout: 10, poll: pollAll) ?? -1
    tail.poll()
    // Each arrival by its line's number: a late reply or a refused command cannot shift the pairs.
    var arrivals: [Int: Double] = [:]
    for line in tail.lines {
        let w = line.split(separator: " ")
        if w.count == 3, w[1] == "RECV", w[2].hasPrefix("seq="), let t = Double(w[0]), let n = Int(w[2].dropFirst(4)) { arrivals[n] = t }
    }
    let ran = status == 0 && refused == 0 && answered == 2 * floorClicks && arrivals.count == sent.count
    check(ran, "\(pad.type): bareclient relay ran every command (\(answered) answered ok of \(2 * floorClicks))",
          "status \(status), refused \(refused), arrivals \(arrivals.count) of \(sent.count): " + tail.lines.suffix(5).joined(separator: "\n"))
    guard ran else { return nil }
    let ordered = sent.keys.sorted()
    return (ordered.map { sent[$0]! }, ordered.compactMap { n in arrivals[n].map { $0 - sent[n]!.time } })
}

/// A ramp through hapticd's socket as a game loop sends it: one `rumble` line per period on absolute
/// deadlines, not waiting for the replies (read at the end), each stamped just before it is written.
@MainActor func hapticdRamp(_ pad: Pad, periodMilliseconds: Int) -> [Command] {
    guard let raw = RawConnection(path: socketPath) else { return [] }
    func send(_ m: MotorMagnitudes, _ id: Int) -> Command? {
        raw.send(rumbleLine(pad, m, id: id)).map { Command(time: $0, value: m) }
    }
    var out: [Command] = []
    let steps = floorRampMilliseconds / periodMilliseconds
    var next = monotonicNow()
    for k in 0..<steps {
        let m = rampMagnitude(k, steps)
        if let c = send(MotorMagnitudes(strong: m, weak: m), k + 1) { out.append(c) }
        next += Double(periodMilliseconds) / 1000
        sleepUntil(next)
    }
    if let c = send(.zero, steps + 1) { out.append(c) }
    // Every reply, then close (a rumble stops with its connection; the last command stopped it).
    raw.readReplies(steps + 1)
    return out
}

/// Waits until the pad is at zero and its reports have stopped for a while (hid-nintendo drains its
/// ring for a few hundred milliseconds after a fast ramp).
@MainActor func waitQuiet(_ pad: Pad) {
    waitUntil(5) { pad.current.isZero && monotonicNow() - (pad.reports.last?.time ?? 0) > 0.25 }
}

/// command → first non-zero report, per non-zero command (samples across a VM stall left out).
@MainActor func commandLatencies(_ pad: Pad, _ cmds: [Command], hapticd: Bool, into r: inout FloorResult) {
    for (i, c) in cmds.enumerated() where !c.value.isZero {
        let until = i + 1 < cmds.count ? cmds[i + 1].time : c.time + 0.2
        guard let first = pad.reports.first(where: { $0.time >= c.time && !$0.level.isZero }), first.time <= until + 0.2,
              stall(from: c.time, to: first.time) == nil else { continue }
        r.latencies.append(first.time - c.time)
        if hapticd, let w = writes[pad.device]?.first(where: { $0.time >= c.time && !$0.value.isZero }), w.time <= first.time {
            r.toWrite.append(w.time - c.time)
            r.writeToReport.append(first.time - w.time)
        }
    }
}

/// The 16 ms ramp: per command whose level differs from the one before (the pad could tell it apart),
/// the first report carrying that level; lags, and the values that never arrived. With `traced`
/// (hapticd), also the values hapticd never wrote.
@MainActor func rampLags(_ pad: Pad, _ cmds: [Command], traced: Bool = false, into r: inout FloorResult) -> [String] {
    let ramp = cmds.filter { !$0.value.isZero }
    guard let last = ramp.last else { return [] }
    var lostDetail: [String] = []
    var previous: Level?
    for (i, c) in ramp.enumerated() {
        let level = pad.level(c.value)
        defer { previous = level }
        guard level != previous else { continue }
        let next = i + 1 < ramp.count ? ramp[i + 1].time : c.time + 0.016
        if traced, !(writes[pad.device] ?? []).contains(where: { $0.time >= c.time && $0.time <= last.time + 1 && pad.level($0.value) == level }),
           stall(from: c.time, to: next + 0.05) == nil {
            // The pacer writes at most once per interval, the newest value it has. This value could
            // not be written when the next command came while the pacer was closed (less than an
            // interval after hapticd's last write) and that last write came before hapticd could
            // have handled this command (`handling`: its command → write under TCG is 2–4 ms,
            // docs/benchmarks.md) — the sender bunched two updates (its own process ran late, which
            // a stall under 20 ms does not show), or hapticd's pacing slot fell just before this
            // command was read. Otherwise hapticd lost it.
            // Likewise when the sender's own gap to the next command left hapticd less than an
            // interval plus that handling (two CI runs: the 16 ms ramp's commands went out 6.9 ms
            // apart, and the first was answered with the second).
            let handling = 0.005
            let lastWrite = (writes[pad.device] ?? []).last(where: { $0.time <= next })?.time ?? -.infinity
            if i + 1 < ramp.count,
               next - c.time < pad.profile.minimumUpdateInterval + handling
                || (next < lastWrite + pad.profile.minimumUpdateInterval && lastWrite < c.time + handling) {
                r.paced16 += 1
            } else {
                r.unwritten16 += 1
                let around = (writes[pad.device] ?? []).filter { $0.time >= c.time - 0.03 && $0.time <= next + 0.03 }
                r.unwrittenDetail.append("\(level) (sent \(c.time), the next at \(next); hapticd's writes then: \(around.map { "\($0.time) \(pad.level($0.value))" }))")
            }
        }
        if let report = pad.reports.first(where: { $0.time >= c.time && $0.level == level }), report.time <= last.time + 1 {
            r.judged16 += 1
            if stall(from: c.time, to: report.time) == nil {
                r.lags16.append(report.time - c.time)
                if traced, let w = (writes[pad.device] ?? []).first(where: { $0.time >= c.time && pad.level($0.value) == level }),
                   w.time <= report.time {
                    r.toWrite16.append(w.time - c.time)
                    r.writeToReport16.append(report.time - w.time)
                }
            }
        } else if stall(from: c.time, to: next + 0.05) != nil {
            r.excused16 += 1
        } else {
            r.judged16 += 1
            r.lost16 += 1
            lostDetail.append("\(level) (sent \(c.time); the pad's log then: \(pad.log(from: c.time - 0.01, to: next + 0.01).map { $0.split(separator: " ").prefix(4).joined(separator: " ") }))")
        }
    }
    return lostDetail
}

/// Reports per second at the pad while a ramp's commands ran.
@MainActor func reportRate(_ pad: Pad, _ cmds: [Command]) -> Double? {
    let ramp = cmds.filter { !$0.value.isZero }
    guard let a = ramp.first?.time, let b = ramp.last?.time, b > a else { return nil }
    let n = pad.reports.filter { $0.time >= a && $0.time <= b }.count
    return Double(n) / (b - a)
}

@MainActor var floorResults: [(pad: Pad, bare: FloorResult, hapticd: FloorResult)] = []

// MARK: nothing lost (issue 26 §1)

/// Single pulses through hapticd's socket: `rumble` with a duration of 10, 30 and 60 ms (hapticd ends
/// each by itself), 0.3 s apart so that each is single. Every pulse must reach the pad: hapticd writes
/// its value after the command and holds it at least one profile interval (the minimum on-time), and
/// the pad reports that value. A pulse across a logged VM stall is left out of the judgement (counted).
/// The window for the write is counted from the request's answer, when hapticd has taken the pulse
/// (the pulse starts then, not when the client sent it): how long the request took to reach hapticd
/// under the VM — a hold-up below the stall monitor's threshold, or the client's process scheduled
/// late — is not hapticd's, and was part of the 50 ms allowance before.
@MainActor func pulsesReachThePad(_ pad: Pad) {
    let interval = pad.profile.minimumUpdateInterval
    let value = MotorMagnitudes(strong: 0xC000, weak: 0x8000)
    let level = pad.level(value)
    // hapticd's write within the pulse, an interval and TCG's scheduling; the driver's latency bound
    // after it (docs/testing.md: 40 ms for the ff-memless drivers, 100 ms for hid-nintendo's two packets).
    let driverBound = pad.driver == "nintendo" ? 0.1 : 0.04
    var sent = 0, written = 0, reached = 0, excused = 0, shortHeld = 0
    var missed: [String] = []
    waitQuiet(pad)
    for d in [0.010, 0.030, 0.060] {
        for _ in 0..<5 {
            let body = JSONObject([
                "device": .number(Double(pad.device)), "strong": .number(Double(value.strong) / 65535),
                "weak": .number(Double(value.weak) / 65535), "duration": .number(d),
            ])
            let c = monotonicNow()
            guard (try? client.request("rumble", body)) != nil else { continue }
            let answered = monotonicNow()
            sent += 1
            sleepFor(0.3)
            pollAll()
            let until = answered + d + interval + 0.05
            let trace = writes[pad.device] ?? []
            let w = trace.firstIndex { $0.time >= c - 0.001 && $0.time <= until && pad.level($0.value) == level }
            let report = pad.reports.first { $0.time >= c && $0.time <= until + driverBound && $0.level == level }
            if stall(from: c, to: until + driverBound) != nil && (w == nil || report == nil) {
                excused += 1
                continue
            }
            if let w {
                written += 1
                if w + 1 < trace.count, trace[w + 1].time - trace[w].time < interval - 0.0005 { shortHeld += 1 }
            }
            if report != nil { reached += 1 }
            if w == nil || report == nil {
                missed.append("\(Int(d * 1000)) ms at \(c): hapticd \(w == nil ? "never wrote it" : "wrote it"), the pad \(report == nil ? "never reported it" : "reported it") (log: \(pad.log(from: c - 0.01, to: until + driverBound).map { $0.split(separator: " ").prefix(4).joined(separator: " ") }))")
            }
        }
    }
    let judged = sent - excused
    check(judged > 0 && written == judged && reached == judged,
          "\(pad.type): single pulses of 10, 30 and 60 ms through hapticd all reach the pad (\(reached) of \(judged) judged, \(excused) across VM stalls)",
          missed.joined(separator: "; "))
    check(shortHeld == 0, "\(pad.type): every pulse is held at least one interval (\(ms(interval)) ms) before the next write", "\(shortHeld) held less")
    print("MEASURE-PULSES pad=\(pad.type) profile=\(pad.profile.name) interval_ms=\(ms(interval)) sent=\(sent) judged=\(judged) written=\(written) reached=\(reached) excused=\(excused)")
}

@MainActor func floorComparison(_ pad: Pad) {
    var bare = FloorResult()
    var mine = FloorResult()
    waitQuiet(pad)
    pingTrips = []
    rumbleTrips = []
    // The clicks of the four ways in rounds — the bare client, the relay, hapticd through the Swift
    // client and through raw lines, then again — so that an emulator that runs faster or slower for
    // a while weighs on every way alike, and each p50 is of `floorRounds` × `floorClicks` commands.
    for _ in 0..<floorRounds {
        if let cmds = runBare(pad, ["clicks", "\(floorClicks)", "\(0xC000)", "\(0x8000)"]) {
            waitQuiet(pad)
            commandLatencies(pad, cmds, hapticd: false, into: &bare)
        }
        if let (cmds, hops) = relayClicks(pad) {
            waitQuiet(pad)
            var relay = FloorResult()
            commandLatencies(pad, cmds, hapticd: false, into: &relay)
            bare.relayLatencies += relay.latencies
            bare.relayHops += hops
        }
        let clicks = hapticdClicks(pad)
        waitQuiet(pad)
        commandLatencies(pad, clicks, hapticd: true, into: &mine)
        var raw = FloorResult()
        let rawClicks = hapticdRawClicks(pad)
        waitQuiet(pad)
        commandLatencies(pad, rawClicks, hapticd: true, into: &raw)
        mine.rawLatencies += raw.latencies
        mine.rawToWrite += raw.toWrite
    }
    if let cmds = runBare(pad, ["ramp", "16", "\(floorRampMilliseconds)"]) {
        waitQuiet(pad)
        let lost = rampLags(pad, cmds, into: &bare)
        if !lost.isEmpty { print("NOTE \(pad.type) bare client, 16 ms ramp: never reached the pad: \(lost)") }
    }
    if let cmds = runBare(pad, ["ramp", "4", "\(floorRampMilliseconds)"]) {
        waitQuiet(pad)
        bare.rate4 = reportRate(pad, cmds)
    }
    // No value lost where the profile paces faster than the updates come (retried when the VM stalled).
    let pacedFaster = pad.profile.minimumUpdateInterval < 0.016
    // One unexplained retry: hapticd, the ramp's sender, the emulator and the test share the VM's
    // one CPU, and a value is lost when hapticd is held up for a pacing interval at the wrong moment
    // (seen once in four full runs, on a different pad each time; every failed attempt is printed).
    trial(pad, "16 ms ramp through hapticd", unexplainedRetries: 1) { t in
        var r = FloorResult()
        let cmds = hapticdRamp(pad, periodMilliseconds: 16)
        waitQuiet(pad)
        let lost = rampLags(pad, cmds, traced: true, into: &r)
        mine.lags16 = r.lags16
        mine.toWrite16 = r.toWrite16
        mine.writeToReport16 = r.writeToReport16
        mine.unwritten16 = r.unwritten16
        mine.lost16 = r.lost16
        mine.judged16 = r.judged16
        mine.excused16 = r.excused16
        mine.paced16 = r.paced16
        if pacedFaster {
            // hapticd's part: it writes every value. What the driver then does with them (coalescing
            // to the newest when its work item is held up) is measured, not asserted.
            t.check(r.unwritten16 == 0 && r.judged16 > 0,
                    "\(pad.type): updates every 16 ms through hapticd: it writes every value (\(r.judged16) judged, \(r.excused16) across VM stalls, \(r.paced16) the pacer had to coalesce: sent too close to the next one or to its last slot)",
                    "\(r.unwritten16) never written: \(r.unwrittenDetail)", timing: true)
            if !lost.isEmpty { print("NOTE \(pad.type) hapticd, 16 ms ramp: written but never reported (the driver coalesced them): \(lost)") }
        } else {
            // Paced slower than the updates come: a value may go only to a newer non-zero one that
            // came before the pacer could write it — never the ramp's last to its stop (issue 26 §1).
            t.check(r.unwritten16 == 0 && r.judged16 > 0,
                    "\(pad.type): updates every 16 ms through hapticd, paced at \(ms(pad.profile.minimumUpdateInterval)) ms: every value it did not write was superseded by a newer one before its pacer could write, never the last by the stop (\(r.paced16) superseded)",
                    "\(r.unwritten16) never written: \(r.unwrittenDetail)", timing: true)
            if !lost.isEmpty {
                print("NOTE \(pad.type) hapticd, 16 ms ramp: \(lost.count) values coalesced by the profile's \(ms(pad.profile.minimumUpdateInterval)) ms pacing")
            }
        }
    }
    let ramp4 = hapticdRamp(pad, periodMilliseconds: 4)
    waitQuiet(pad)
    mine.rate4 = reportRate(pad, ramp4)
    let nonzero = ramp4.filter { !$0.value.isZero }
    if let a = nonzero.first?.time, let b = nonzero.last?.time, b > a {
        mine.writes4 = Double((writes[pad.device] ?? []).filter { $0.time >= a && $0.time <= b }.count) / (b - a)
    }
    floorResults.append((pad, bare, mine))
    pulsesReachThePad(pad)
    func p50(_ xs: [Double]) -> String { ms(percentile(of: xs, 50)) }
    print("MEASURE-FLOOR pad=\(pad.type) profile=\(pad.profile.name) interval_ms=\(ms(pad.profile.minimumUpdateInterval))"
          + " bare_cmd_to_report_p50_ms=\(p50(bare.latencies)) hapticd_cmd_to_report_p50_ms=\(p50(mine.latencies))"
          + " hapticd_cmd_to_write_p50_ms=\(p50(mine.toWrite)) hapticd_write_to_report_p50_ms=\(p50(mine.writeToReport))"
          + " bare_lag16_p50_ms=\(p50(bare.lags16)) hapticd_lag16_p50_ms=\(p50(mine.lags16))"
          + " hapticd_lag16_to_write_p50_ms=\(p50(mine.toWrite16)) hapticd_lag16_write_to_report_p50_ms=\(p50(mine.writeToReport16))"
          + " bare_lost16=\(bare.lost16)/\(bare.judged16) hapticd_lost16=\(mine.lost16)/\(mine.judged16)"
          + " bare_rate4=\(bare.rate4.map { "\(Int($0.rounded()))" } ?? "-") hapticd_rate4=\(mine.rate4.map { "\(Int($0.rounded()))" } ?? "-")"
          + " hapticd_writes4=\(mine.writes4.map { "\(Int($0.rounded()))" } ?? "-")"
          + " hapticd_ping_rtt_p50_ms=\(p50(pingTrips)) hapticd_rumble_rtt_p50_ms=\(p50(rumbleTrips))"
          + " hapticd_raw_cmd_to_report_p50_ms=\(p50(mine.rawLatencies)) hapticd_raw_cmd_to_write_p50_ms=\(p50(mine.rawToWrite))"
          + " relay_cmd_to_report_p50_ms=\(p50(bare.relayLatencies)) relay_hop_p50_ms=\(p50(bare.relayHops))")
}

/// The table, per pad (docs/benchmarks.md records it).
@MainActor func printFloorTable() {
    func cell(_ s: String, _ width: Int) -> String { s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count) }
    func p50(_ xs: [Double]) -> String { ms(percentile(of: xs, 50)) }
    func rate(_ x: Double?) -> String { x.map { "\(Int($0.rounded()))" } ?? "-" }
    print("FLOOR " + cell("pad", 16) + cell("int", 5) + cell("cmd→report p50 bare/hapticd (write+report)", 44)
          + cell("raw lines (write)", 18) + cell("C relay (hop)", 14)
          + cell("16 ms lag p50 bare/hapticd (write+report)", 42) + cell("lost bare/hapticd", 19) + "4 ms reports/s bare/hapticd (hapticd's writes/s)")
    for (pad, b, h) in floorResults {
        print("FLOOR " + cell(pad.type, 16) + cell(ms(pad.profile.minimumUpdateInterval), 5)
              + cell("\(p50(b.latencies)) / \(p50(h.latencies)) (\(p50(h.toWrite))+\(p50(h.writeToReport)))", 44)
              + cell("\(p50(h.rawLatencies)) (\(p50(h.rawToWrite)))", 18) + cell("\(p50(b.relayLatencies)) (\(p50(b.relayHops)))", 14)
              + cell("\(p50(b.lags16)) / \(p50(h.lags16)) (\(p50(h.toWrite16))+\(p50(h.writeToReport16)))", 42)
              + cell("\(b.lost16)/\(b.judged16) / \(h.lost16)/\(h.judged16)", 19)
              + "\(rate(b.rate4)) / \(rate(h.rate4)) (\(rate(h.writes4)))")
    }
}
