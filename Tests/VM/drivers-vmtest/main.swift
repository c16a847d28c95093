// Runs inside the qemu VM: the real, unmodified hapticd against the kernel's own gamepad drivers, each
// bound to an emulated pad on /dev/uhid (Tests/VM/uhidpad.c). The pads' logs — every report the
// drivers sent, decoded into motor values — are the ground truth; hapticd's own `--trace` says what it
// meant to send. docs/testing.md describes each check; docs/devices.md records the numbers printed here.
//
// Usage: drivers-vmtest HAPTICD PAD...      PAD = TYPE:PROFILE:SUITE, SUITE full or light
//   (pad logs and pids: /tmp/pads/TYPE.log, /tmp/pads/TYPE.pid, written by start_uhid_pads)
// For tuning a profile: HAPTICD_CONFIG=FILE runs hapticd with that configuration (profile overrides),
// DRIVERS_VMTEST_INTERVAL=SECONDS tells the checks the interval that configuration sets, and
// DRIVERS_VMTEST_PADS_ONLY=1 skips the removal and signal phases.
import Evdev
import Glibc
import HapticClient
import HapticCore
import VMTestSupport

let socketPath = "/tmp/hapticd-drivers.sock"
let tracePath = "/tmp/drivers-trace.csv"
let padDirectory = "/tmp/pads"
/// hapticd's default render period: one step of its own timing, part of every bound on when it writes.
let tick = 0.004

// MARK: the drivers' arithmetic — the oracle, written from the drivers' code, not from hapticd's profiles

/// What the driver puts in its report for the magnitude `m`, by the formula the emulator names.
func driverValue(_ formula: String, _ m: UInt16) -> Int {
    switch formula {
    case "div256": return Int(m / 256)                        // hid-playstation, hid-sony, hid-bigbenff
    case "percent": return Int(UInt32(m) * 100 / 65535)        // hid-microsoft ms_play_effect
    case "nonzero": return m != 0 ? 1 : 0                      // hid-bigbenff weak motor
    case "div256nonzero": return m / 256 != 0 ? 1 : 0          // hid-sony DualShock 3 weak motor
    case "switch":
        // hid-nintendo joycon_set_rumble → joycon_find_rumble_amp, step by step as the driver loops.
        let amp = UInt32(m) * 1003 / 65535
        let table = DeviceProfile.switchAmplitudes.map(UInt32.init)
        var i = 0
        if amp > table[0] {
            i = 1
            while i < table.count - 1 {
                if amp > table[i - 1] && amp <= table[i] { break }
                i += 1
            }
        }
        return Int(table[i])
    default: return Int.min
    }
}

/// How long each driver may take from hapticd's write to the report reaching the pad, measured on this
/// kernel under TCG (docs/devices.md): the bound of the backlog check.
let driverLatencyBound: [String: Double] = [
    "playstation": 0.040, "sony": 0.040, "microsoft": 0.040, "bigben": 0.040, "nintendo": 0.100,
]

/// How late hapticd's own timer may fire under TCG (one CPU shared with the drivers and the pads):
/// part of the bound on when hapticd writes, not of the drivers'.
let schedulingSlack = 0.050

/// Drivers that may keep only the newest value: all of them sit behind ff-memless, which defers an
/// update of a playing effect to its next jiffy and then hands the driver the newest values; the
/// ff-memless drivers' work items read the motors when they run. A value superseded before they run is
/// never sent — coalescing to the newest, by design. (hid-nintendo then queues what it is handed in
/// its ring, in order.)
let coalescingDrivers: Set<String> = ["playstation", "sony", "microsoft", "bigben", "nintendo"]

// MARK: pads

struct Level: Equatable, CustomStringConvertible {
    var strong: Int
    var weak: Int
    static let zero = Level(strong: 0, weak: 0)
    var isZero: Bool { strong == 0 && weak == 0 }
    var description: String { "\(strong)/\(weak)" }
}

struct Report {
    var time: Double
    var level: Level
}

struct Write {
    var time: Double
    var value: MotorMagnitudes
}

final class Pad {
    let type: String
    let expectedProfile: String
    let full: Bool
    /// Measured against the bare evdev client too (Floor.swift).
    let floor: Bool
    let tail: LineTail
    var bus: UInt16 = 0
    var usbID = ""
    var hidID = ""
    var formula = ("", "")
    var inputName = ""
    var driver = "?"
    var device = -1
    /// The pad's evdev node, as hapticd lists it.
    var node = ""
    var profile = DeviceProfile.generic
    var reports: [Report] = []
    /// Times of CREATED lines after the first creation (the pad plugged back).
    var created: [Double] = []
    var measures: [String: String] = [:]
    /// The pad's log lines stamped within `from…to` (diagnostics).
    func log(from: Double, to: Double) -> [String] {
        tail.lines.filter { l in l.split(separator: " ").first.flatMap { Double($0) }.map { $0 >= from && $0 <= to } ?? false }
    }
    /// Values hapticd wrote in the compared playbacks, and how many the driver coalesced away.
    var values = 0
    var drops = 0
    /// Write-to-report lags of every value compared.
    var lags: [Double] = []
    private var parsed = 0

    init(spec: String) {
        let parts = spec.split(separator: ":").map(String.init)
        type = parts[0]
        expectedProfile = parts.count > 1 ? parts[1] : "?"
        full = parts.count > 2 ? parts[2] == "full" : true
        floor = parts.count > 3 && parts[3] == "floor"
        tail = LineTail(path: "\(padDirectory)/\(type).log")
        poll()
    }

    var emulatorPID: pid_t {
        guard let f = fopen("\(padDirectory)/\(type).pid", "r") else { return 0 }
        defer { fclose(f) }
        var buf = [CChar](repeating: 0, count: 32)
        guard fgets(&buf, Int32(buf.count), f) != nil else { return 0 }
        let text = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return pid_t(text.filter(\.isNumber)) ?? 0
    }

    func level(_ m: MotorMagnitudes) -> Level {
        Level(strong: driverValue(formula.0, m.strong), weak: driverValue(formula.1, m.weak))
    }

    func poll() {
        tail.poll()
        while parsed < tail.lines.count {
            let line = tail.lines[parsed]
            parsed += 1
            let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard words.count >= 2, let t = Double(words[0]) else { continue }
            var f: [String: String] = [:]
            for w in words.dropFirst(2) {
                if let eq = w.firstIndex(of: "=") { f[String(w[..<eq])] = String(w[w.index(after: eq)...]) }
            }
            switch words[1] {
            case "CREATED":
                if !usbID.isEmpty { created.append(t) }
                bus = UInt16(f["bus"]?.dropFirst(2) ?? "0", radix: 16) ?? 0
                usbID = "\(f["vid"] ?? ""):\(f["pid"] ?? "")"
                hidID = f["hid"] ?? ""
                let fs = (f["formula"] ?? ",").split(separator: ",").map(String.init)
                formula = (fs.first ?? "", fs.count > 1 ? fs[1] : "")
            case "INPUTNAME":
                inputName = words.dropFirst(2).joined(separator: " ")
            case "RUMBLE":
                if let s = f["strong"].flatMap({ Int($0) }), let w = f["weak"].flatMap({ Int($0) }) {
                    reports.append(Report(time: t, level: Level(strong: s, weak: w)))
                }
            default: break
            }
        }
    }

    /// The motor level the pad runs at `time` (the last report at or before it).
    func state(at time: Double) -> Level {
        reports.last { $0.time <= time }?.level ?? .zero
    }

    var current: Level { reports.last?.level ?? .zero }

    /// The HID driver bound to the pad (from sysfs).
    func findDriver() {
        guard let dir = opendir("/sys/bus/hid/devices") else { return }
        defer { closedir(dir) }
        while let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix(hidID + ".") else { continue }
            var buf = [CChar](repeating: 0, count: 512)
            let n = readlink("/sys/bus/hid/devices/\(name)/driver", &buf, buf.count - 1)
            if n > 0 {
                let target = String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                driver = String(target.split(separator: "/").last ?? "?")
            }
        }
    }

    var latencyBound: Double { driverLatencyBound[driver] ?? 0.012 }
    /// When hapticd sends a value again, at the latest: the settling re-send on the profiles that
    /// settle (`Pacer.settleDelay` intervals after it), else one interval.
    var resendWithin: Double { (profile.settles ? Pacer.settleDelay : 1) * profile.minimumUpdateInterval }
}

// MARK: hapticd and its trace

let args = CommandLine.arguments
guard args.count >= 3 else {
    print("usage: drivers-vmtest HAPTICD TYPE:PROFILE:SUITE...")
    exit(2)
}
let hapticd = args[1]
let pads = args.dropFirst(2).map { Pad(spec: $0) }
let trace = LineTail(path: tracePath)
var writes: [Int: [Write]] = [:]
var traceParsed = 0

/// The pad under test: only its log is read while it is set (reading all fourteen every few
/// milliseconds costs the VM's one CPU noticeably).
var focus: Pad?

@MainActor func pollAll() {
    if let focus { focus.poll() } else { for p in pads { p.poll() } }
    trace.poll()
    while traceParsed < trace.lines.count {
        let cols = trace.lines[traceParsed].split(separator: ",")
        traceParsed += 1
        guard cols.count == 4, let t = Double(cols[0]), let d = Int(cols[1]), let s = UInt16(cols[2]), let w = UInt16(cols[3]) else { continue }
        writes[d, default: []].append(Write(time: t, value: MotorMagnitudes(strong: s, weak: w)))
    }
}

/// Polls the logs until `done` holds or `timeout` passes; true if it held.
@discardableResult
@MainActor func waitUntil(_ timeout: Double, _ done: () -> Bool) -> Bool { pollUntil(timeout, poll: pollAll, done) }

@MainActor func sleepFor(_ seconds: Double) { pollFor(seconds, poll: pollAll) }

var daemonPID: pid_t = 0
var client: HapticClient!

@MainActor func startDaemon() -> Bool {
    var words = [hapticd, "--socket", socketPath, "--trace", tracePath, "--log-level", "warning"]
    // This test is the evdev path through each kernel driver: every pad through FF_RUMBLE, also
    // those a hidraw profile matches (their hidraw path is the hidraw scenario's). A configuration
    // of one's own (HAPTICD_CONFIG) says `[devices] backend = "evdev"` itself.
    if let config = getenv("HAPTICD_CONFIG") {
        words += ["--config", String(cString: config)]
    } else {
        let path = "/tmp/drivers-hapticd.toml"
        guard let f = fopen(path, "w") else { return false }
        fputs("[devices]\nbackend = \"evdev\"\n", f)
        fclose(f)
        words += ["--config", path]
    }
    guard let pid = spawn(words) else { return false }
    daemonPID = pid
    guard let c = answeringClient(at: socketPath) else { return false }
    client = c
    return true
}

@MainActor func waitExit(_ pid: pid_t, timeout: Double) -> Int32? {
    var status: Int32 = 0
    let end = monotonicNow() + timeout
    while monotonicNow() < end {
        if waitpid(pid, &status, WNOHANG) == pid { return status }
        usleep(5000)
    }
    return nil
}

func number(_ v: JSONValue?) -> Double? {
    if case .number(let x)? = v { return x }
    return nil
}

/// Finds every pad in `devices` by bus, vendor:product and the driver's name for its node; waits
/// (bounded) for pads hapticd has not seen yet.
@MainActor func mapDevices(_ label: String) {
    var list: [JSONValue] = []
    let found = waitUntil(10) {
        guard let r = try? client.request("devices"), case .array(let l)? = r["devices"] else { return false }
        list = l
        return pads.allSatisfy { p in list.contains { matches(p, $0) } }
    }
    for p in pads {
        guard let entry = list.first(where: { matches(p, $0) }), let d = number(entry["device"]) else {
            check(false, "\(label): hapticd finds \(p.type) (\(p.usbID), bus \(p.bus), \"\(p.inputName)\")", JSONWriter.write(.array(list)))
            continue
        }
        p.device = Int(d)
        if case .string(let path)? = entry["path"] { p.node = path }
        var profileName = ""
        if case .string(let s)? = entry["profile"] { profileName = s }
        if label == "start" {
            check(found && profileName == p.expectedProfile, "\(p.type): hapticd finds the pad and picks the \(p.expectedProfile) profile",
                  "got \(profileName)")
            p.profile = DeviceProfile.named(profileName) ?? .generic
            // The same overrides as HAPTICD_CONFIG, for the checks' expectations.
            if let x = getenv("DRIVERS_VMTEST_INTERVAL").flatMap({ Double(String(cString: $0)) }) {
                p.profile.minimumUpdateInterval = x
                p.profile.transientPulse.minimum = max(p.profile.transientPulse.minimum, x)
            }
        }
    }
}

@MainActor func matches(_ p: Pad, _ v: JSONValue) -> Bool {
    guard case .string(let name)? = v["name"], case .string(let id)? = v["usb_id"], let bus = number(v["bus"]) else { return false }
    if case .bool(false)? = v["connected"] { return false }
    return name == p.inputName && id == p.usbID && UInt16(bus) == p.bus
}

// MARK: patterns

@MainActor func loadPattern(_ path: String) -> HapticPattern? {
    guard let f = fopen(path, "r") else { return nil }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&buf, 1, buf.count, f)
        if n <= 0 { break }
        bytes += buf[0..<n]
    }
    return try? AHAPLoader.load(bytes: bytes).pattern
}

/// A 1 s ramp: intensity 0 → 1 under a curve, sharpness 0.4 so both motors move.
let ramp = HapticPattern(elements: [
    .event(.continuous(at: 0, duration: 1.0, intensity: 1, sharpness: 0.4)),
    .curve(.init(.hapticIntensityControl, at: 0, points: [.init(0, 0), .init(1.0, 1)])),
])

@MainActor func constant(_ duration: Double, intensity: Double = 1, sharpness: Double = 0.4) -> HapticPattern {
    HapticPattern(elements: [.event(.continuous(at: 0, duration: duration, intensity: intensity, sharpness: sharpness))])
}

struct Started {
    var player: Int
    var sent: Double
    var engineTime: Double
}

@MainActor func play(_ pad: Pad, _ pattern: HapticPattern? = nil, name: String? = nil, loop: Bool = false) throws(ClientError) -> Started {
    var body = JSONObject(["device": .number(Double(pad.device)), "loop": .bool(loop)])
    if let name { body.append("name", .string(name)) }
    if let pattern { body.append("pattern", AHAPWriter.json(pattern)) }
    let sent = monotonicNow()
    let r = try client.request("play", body)
    return Started(player: Int(number(r["player"]) ?? -1), sent: sent, engineTime: patternStart(r, fallback: sent))
}

// MARK: the checks

struct Window {
    var reports: Int
    var writes: Int
    var before: Level
}

@MainActor func mark(_ pad: Pad) -> Window {
    pollAll()
    return Window(reports: pad.reports.count, writes: writes[pad.device]?.count ?? 0, before: pad.current)
}

func collapse(_ xs: [(Double, Level)], from start: Level) -> [(Double, Level)] {
    var out: [(Double, Level)] = []
    var last = start
    for (t, l) in xs where l != last {
        out.append((t, l))
        last = l
    }
    return out
}

/// What one playback sent and what reached the pad, value for value.
struct Comparison {
    var expected: [(Double, Level)]
    var observed: [(Double, Level)]
    var redundant: Int
    var notRepresentative: Int
    /// For each expected value, the index of the report that carried it (nil: never sent), matching the
    /// reports in order; `inOrder` is false when a report carries a value that is not the next ones
    /// hapticd wrote (a foreign, stale or reordered value).
    var carriedBy: [Int?] = []
    var inOrder = true

    init(expected: [(Double, Level)], observed: [(Double, Level)], redundant: Int, notRepresentative: Int) {
        self.expected = expected
        self.observed = observed
        self.redundant = redundant
        self.notRepresentative = notRepresentative
        var j = 0
        carriedBy = Array(repeating: nil, count: expected.count)
        for (k, o) in observed.enumerated() {
            guard let i = expected[j...].firstIndex(where: { $0.1 == o.1 }) else {
                inOrder = false
                break
            }
            carriedBy[i] = k
            j = i + 1
        }
    }

    var same: Bool { expected.map(\.1) == observed.map(\.1) }
    /// Indexes of the values that never reached the pad.
    var dropped: [Int] { carriedBy.indices.filter { carriedBy[$0] == nil } }
    /// Report time minus write time, per value that arrived.
    var lags: [Double] { carriedBy.enumerated().compactMap { i, k in k.map { observed[$0].0 - expected[i].0 } } }
}

@MainActor func compare(_ pad: Pad, since w: Window) -> Comparison {
    let ws = Array((writes[pad.device] ?? []).dropFirst(w.writes))
    let rs = Array(pad.reports.dropFirst(w.reports))
    var redundant = 0
    var previous = w.before
    var notRepresentative = 0
    for x in ws {
        let l = pad.level(x.value)
        if l == previous { redundant += 1 }
        previous = l
        if pad.profile.quantize(x.value) != x.value { notRepresentative += 1 }
    }
    return Comparison(
        expected: collapse(ws.map { ($0.time, pad.level($0.value)) }, from: w.before),
        observed: collapse(rs.map { ($0.time, $0.level) }, from: w.before),
        redundant: redundant, notRepresentative: notRepresentative)
}

func ms(_ x: Double?) -> String {
    guard let x else { return "-" }
    let v = (x * 10000).rounded() / 10
    return "\(v)"
}

// MARK: trials: checks that a stall of the whole VM may excuse

/// The stall monitor's log (stallmon): times when the VM stood still.
let stallLog = StallLog()

/// The longest VM stall that overlapped `from…to`, if any.
@MainActor func stall(from: Double, to: Double) -> Double? { stallLog.longest(from: from, to: to) }

/// One attempt at a group of checks. Timing checks (bounds in milliseconds) may be retried when the VM
/// stalled during the attempt (stallmon saw it): a stall stops hapticd, the driver and the pad alike and
/// says nothing about them. Checks of values and order are never retried.
final class Trial {
    struct Outcome {
        var ok: Bool
        var name: String
        var detail: String
        var timing: Bool
    }
    var outcomes: [Outcome] = []
    var measures: [String: String] = [:]
    var lags: [Double] = []
    var values = 0
    var drops = 0

    func check(_ ok: Bool, _ name: String, _ detail: @autoclosure () -> String = "", timing: Bool = false) {
        outcomes.append(Outcome(ok: ok, name: name, detail: ok ? "" : detail(), timing: timing))
    }
}

/// Runs `body` until its checks pass or only timing checks failed across a VM stall, at most
/// `attempts` times. `unexplainedRetries`: timing failures without a VM stall that may be retried too
/// (each printed): a stall under the detector's 20 ms, or another process holding the VM's one CPU,
/// can hold hapticd up once; a fault of hapticd's fails every attempt.
@MainActor func trial(_ pad: Pad, _ label: String, attempts: Int = 5, unexplainedRetries: Int = 0, _ body: (Trial) -> Void) {
    var unexplained = 0
    for attempt in 1...attempts {
        let t = Trial()
        let from = monotonicNow()
        body(t)
        let failed = t.outcomes.filter { !$0.ok }
        if !failed.isEmpty, failed.allSatisfy(\.timing), attempt < attempts {
            if let gap = stall(from: from, to: monotonicNow()) {
                print("NOTE \(pad.type) \(label): the VM stalled for \(ms(gap)) ms during the attempt (host load): once more")
                continue
            }
            if unexplained < unexplainedRetries {
                unexplained += 1
                print("NOTE \(pad.type) \(label): failed without a VM stall over 20 ms (retry \(unexplained) of \(unexplainedRetries)): "
                      + failed.map { "\($0.name): \($0.detail)" }.joined(separator: "; "))
                continue
            }
        }
        for o in t.outcomes { check(o.ok, o.name, o.detail) }
        for (k, v) in t.measures { pad.measures[k] = v }
        pad.lags += t.lags
        pad.values += t.values
        pad.drops += t.drops
        return
    }
}

/// Plays a pattern and waits until hapticd wrote its final zero and the pad reported it; checks the
/// reports against hapticd's trace value for value, and the backlog bound.
@MainActor func playAndCompare(_ t: Trial, _ pad: Pad, _ label: String, _ pattern: HapticPattern, name: String? = nil)
    -> (Comparison, Started)?
{
    let w = mark(pad)
    let started: Started
    do {
        started = try play(pad, name == nil ? pattern : nil, name: name)
    } catch {
        t.check(false, "\(pad.type) \(label): play", "\(error)")
        return nil
    }
    let compiled = CompiledPattern(pattern, profile: pad.profile)
    let end = started.engineTime + compiled.renderEnd
    let settled = waitUntil(compiled.renderEnd + 3) {
        guard monotonicNow() > end, let ws = writes[pad.device], ws.count > w.writes, let last = ws.last,
              last.value.isZero, pad.current.isZero, let r = pad.reports.last, r.time >= last.time else { return false }
        return true
    }
    // Anything still in flight (a driver's resends, hapticd's settling re-send) lands within its latency bound.
    sleepFor(pad.latencyBound + pad.resendWithin)
    let c = compare(pad, since: w)
    // Lags measured across a VM stall say nothing about hapticd or the driver: left out.
    t.lags += zip(c.carriedBy.indices, c.carriedBy).compactMap { i, k in
        k.flatMap { stall(from: c.expected[i].0, to: c.observed[$0].0) == nil ? c.observed[$0].0 - c.expected[i].0 : nil }
    }
    t.check(settled, "\(pad.type) \(label): hapticd writes the final zero and the pad reports it",
            "writes \(c.expected.map(\.1)) reports \(c.observed.map(\.1))", timing: true)
    // Every value in order; a value may be missing only where the driver coalesces to the newest and
    // hapticd superseded it before the driver's latency bound was over.
    let unexplained = c.dropped.filter { i in
        i == c.expected.count - 1 || !coalescingDrivers.contains(pad.driver)
            || c.expected[i + 1].0 - c.expected[i].0 > pad.latencyBound
    }
    t.drops += c.dropped.count
    t.values += c.expected.count
    t.check(c.inOrder && unexplained.isEmpty,
            "\(pad.type) \(label): the reports carry hapticd's values, value for value, in order (\(c.expected.count) values"
                + (c.dropped.isEmpty ? ")" : ", \(c.dropped.count) coalesced by the driver)"),
            "expected \(c.expected.map(\.1))\n  observed \(c.observed.map(\.1))\n  missing \(unexplained.map { "\(c.expected[$0].1) (next write +\(ms($0 + 1 < c.expected.count ? c.expected[$0 + 1].0 - c.expected[$0].0 : nil)) ms)" })"
                + unexplained.prefix(2).map { i in
                    let from = c.expected[i].0 - 0.02, to = (i + 1 < c.expected.count ? c.expected[i + 1].0 : c.expected[i].0) + 0.03
                    return "\n  around the write at \(c.expected[i].0): the pad's log\n    " + pad.log(from: from, to: to).joined(separator: "\n    ")
                }.joined(),
            timing: c.inOrder)
    t.check(c.redundant == 0 && c.notRepresentative == 0,
            "\(pad.type) \(label): every write is one the pad can tell apart (profile quantization = the driver's)",
            "\(c.redundant) writes the driver turns into the previous value, \(c.notRepresentative) not quantized")
    if c.inOrder, c.carriedBy.last != nil, let finalWrite = c.expected.last, let finalReport = c.observed.last {
        // No backlog: hapticd writes the final value within two profile intervals (and a tick) of the
        // pattern's end — the pattern's last non-zero value at the first write opportunity after it,
        // where the pad did not have it yet, and the zero one interval later (issue 26: a value is not
        // lost to the stop; until then the zero replaced it, within one interval) — and it reaches the
        // pad within the settling re-send's delay plus the driver's latency of that write (where
        // ff-memless lost the first, the re-send repairs it).
        let driverLag = finalReport.0 - finalWrite.0
        let pacing = finalWrite.0 - end
        let pacingBound = 2 * pad.profile.minimumUpdateInterval + tick + schedulingSlack
        let lagBound = pad.resendWithin + pad.latencyBound
        t.check(driverLag <= lagBound && pacing <= pacingBound,
                "\(pad.type) \(label): the final value arrives \(ms(finalReport.0 - end)) ms after the pattern's end: hapticd wrote it at +\(ms(pacing)) ms (bound \(ms(pacingBound))), it reached the pad \(ms(driverLag)) ms later (bound \(ms(lagBound)): no backlog)",
                timing: true)
    }
    return (c, started)
}

/// Transients: each shows as a non-zero pulse at the pad; the onset error where the pad was silent
/// before (first non-zero report against the event's own time).
@MainActor func checkTransients(_ t: Trial, _ pad: Pad, _ label: String, _ pattern: HapticPattern, _ started: Started) -> [Double] {
    var onsets: [Double] = []
    var missing: [Double] = []
    let transients = pattern.events.filter { $0.type == .hapticTransient && $0.value(.hapticIntensity) > 0 }
    for e in transients {
        let at = started.engineTime + e.time
        let within = pad.profile.pulseLength(sharpness: e.value(.hapticSharpness)) + pad.profile.minimumUpdateInterval
            + pad.latencyBound + schedulingSlack
        let shown = !pad.state(at: at).isZero || pad.reports.contains { $0.time > at && $0.time <= at + within && !$0.level.isZero }
        if !shown { missing.append(e.time) }
        if pad.state(at: at - 0.001).isZero, let first = pad.reports.first(where: { $0.time >= at - 0.001 && !$0.level.isZero }),
           first.time < at + within, stall(from: at - 0.05, to: first.time) == nil {
            onsets.append(first.time - at)
        }
    }
    t.check(missing.isEmpty, "\(pad.type) \(label): every transient (\(transients.count)) shows as a non-zero pulse",
            "missing at \(missing)", timing: true)
    return onsets
}

/// A looping constant, then `stop`: the pad must end at zero. Returns the command-to-zero time.
@MainActor func stopTest(_ t: Trial, _ pad: Pad, _ label: String, _ stop: (Started) throws(ClientError) -> Void) -> Double? {
    do {
        let s = try play(pad, constant(10), loop: true)
        guard waitUntil(2, { !pad.current.isZero }) else {
            t.check(false, "\(pad.type) \(label): the pad rumbles first", timing: true)
            return nil
        }
        sleepFor(pad.profile.minimumUpdateInterval + pad.latencyBound)
        let t0 = monotonicNow()
        try stop(s)
        let ok = waitUntil(2) { pad.current.isZero && (pad.reports.last?.time ?? 0) >= t0 }
        let latency = pad.reports.last.map { $0.time - t0 }
        t.check(ok, "\(pad.type) \(label) ends with a zero-motor report (\(ms(latency)) ms after the command)", timing: true)
        sleepFor(pad.latencyBound)
        return ok ? latency : nil
    } catch {
        t.check(false, "\(pad.type) \(label)", "\(error)")
        return nil
    }
}

/// hid-nintendo's quirks, seen straight through evdev (hapticd's own effect stays at zero meanwhile):
/// the ring sends the previous value before a new one, and after a value it re-sends it only five
/// times. The profile's interval and refresh are built on both (docs/devices.md); if a kernel stops
/// doing either, this says so.
@MainActor func nintendoFacts(_ pad: Pad) {
    trial(pad, "driver quirks") { t in
        do {
            let device = try RumbleDevice(path: pad.node)
            defer { device.close() }
            waitUntil(1) { pad.current.isZero }
            sleepFor(0.4)  // let the driver's resends of the previous value run out
            let w = mark(pad)
            let m = MotorMagnitudes(strong: 40000, weak: 20000)
            let t0 = monotonicNow()
            try device.set(m)
            sleepFor(1.0)
            let rs = Array(pad.reports.dropFirst(w.reports))
            let value = pad.level(m)
            let first = rs.first
            let carrying = rs.filter { $0.level == value }
            t.check(first?.level == w.before && rs.dropFirst().first?.level == value,
                    "\(pad.type): hid-nintendo sends the previous value first, the new one a packet later (\(ms((rs.dropFirst().first?.time).map { $0 - t0 })) ms)",
                    "\(rs.prefix(3).map(\.level))", timing: true)
            let quiet = carrying.last.map { t0 + 1.0 - $0.time } ?? 0
            t.check(carrying.count >= 5 && carrying.count <= 8 && quiet >= 0.3,
                    "\(pad.type): hid-nintendo re-sends a value a few times (\(carrying.count) reports), then goes quiet (\(ms(quiet)) ms before the end of 1 s): hence the profile's refresh",
                    "\(rs.map { "\(ms($0.time - t0)):\($0.level)" })", timing: true)
            let w2 = mark(pad)
            try device.set(.zero)
            waitUntil(1) { pad.current.isZero && pad.reports.count > w2.reports }
            let rs2 = Array(pad.reports.dropFirst(w2.reports))
            t.check(rs2.first?.level == value && rs2.contains { $0.level.isZero },
                    "\(pad.type): and a stop too: the previous value first, then zero", "\(rs2.prefix(3).map(\.level))", timing: true)
        } catch {
            t.check(false, "\(pad.type): opening \(pad.node)", "\(error)")
        }
    }
}

@MainActor func runFullSuite(_ pad: Pad, library: HapticPattern?, apple: [(String, HapticPattern)]) {
    // A ramp: value for value, reports per second, lag of each value and of the last one.
    trial(pad, "ramp") { t in
        guard let (c, _) = playAndCompare(t, pad, "ramp", ramp) else { return }
        if let first = c.observed.first, let last = c.observed.last, last.0 > first.0 {
            t.measures["ramp_reports_per_s"] = "\(Int((Double(c.observed.count - 1) / (last.0 - first.0)).rounded()))"
        }
        t.measures["ramp_lag_p50_ms"] = ms(percentile(of: c.lags, 50))
        t.measures["ramp_lag_max_ms"] = ms(c.lags.max())
        t.measures["last_change_to_report_ms"] = ms(c.carriedBy.last.flatMap { $0 }.map { c.observed[$0].0 - c.expected.last!.0 })
    }
    var onsets: [Double] = []
    var patterns: [(String, HapticPattern, String?)] = library.map { [("library pattern heartbeat", $0, "heartbeat")] } ?? []
    patterns += apple.map { ("Apple sample \($0.0)", $0.1, nil) }
    for (label, pattern, name) in patterns {
        trial(pad, label) { t in
            guard let (_, started) = playAndCompare(t, pad, label, pattern, name: name) else { return }
            let o = checkTransients(t, pad, label, pattern, started)
            t.measures["onsets:\(label)"] = o.map { "\($0)" }.joined(separator: ",")
        }
        onsets += (pad.measures.removeValue(forKey: "onsets:\(label)") ?? "").split(separator: ",").compactMap { Double($0) }
    }
    pad.measures["onset_mean_ms"] = ms(onsets.isEmpty ? nil : onsets.reduce(0, +) / Double(onsets.count))
    pad.measures["onset_max_ms"] = ms(onsets.max())

    // Command to first report: `click` from the library, again and again. On hid-nintendo one
    // unexplained retry: twice on 2026-11-25 (full VM runs on a loaded build machine) one click of
    // ten never showed at the emulated Switch Pro (USB once, Bluetooth once) — not analysed; the
    // failed attempt is printed, and a second failure fails the check.
    let rounds = pad.profile.minimumUpdateInterval > 0.03 ? 10 : 20
    trial(pad, "latency", unexplainedRetries: pad.driver == "nintendo" ? 1 : 0) { t in
        var latencies: [Double] = []
        var lost = 0
        var lostDetail: [String] = []
        var discarded = 0
        while latencies.count + lost < rounds && discarded < rounds {
            guard waitUntil(3, { pad.current.isZero }) else {
                let ws = (writes[pad.device] ?? []).suffix(3).map { "\(ms($0.time - monotonicNow())):\(pad.level($0.value))" }
                let rs = pad.tail.lines.suffix(12).joined(separator: "\n    ")
                t.check(false, "\(pad.type): the pad is at rest before a play",
                        "now \(monotonicNow()), last writes \(ws), the pad's log:\n    \(rs)", timing: true)
                break
            }
            guard let s = try? play(pad, name: "click") else { break }
            let arrived = { pad.reports.last { $0.time >= s.sent && !$0.level.isZero } != nil }
            let ok = waitUntil(1, arrived)
            let first = pad.reports.first { $0.time >= s.sent && !$0.level.isZero }
            waitUntil(1) { pad.current.isZero }
            sleepFor(pad.latencyBound)
            // A play the VM stood still through says nothing about hapticd or the driver.
            if stall(from: s.sent, to: first?.time ?? monotonicNow()) != nil {
                discarded += 1
                continue
            }
            if ok, let first {
                latencies.append(first.time - s.sent)
            } else {
                lost += 1
                // Whether hapticd wrote it (its trace), for the record.
                let wrote = (writes[pad.device] ?? []).filter { $0.time >= s.sent - 0.001 && $0.time <= s.sent + 1 }
                lostDetail.append("sent \(s.sent): hapticd wrote \(wrote.map { "\($0.time) \(pad.level($0.value))" }); the pad's rumble reports: \(pad.log(from: s.sent - 0.2, to: s.sent + 1).filter { $0.contains(" RUMBLE ") }.prefix(24))")
            }
        }
        t.check(latencies.count == rounds, "\(pad.type): every one of \(rounds) plays reaches the pad",
                "\(latencies.count) did, \(lost) lost, \(discarded) discarded for VM stalls; \(lostDetail)", timing: true)
        t.measures["play_to_report_p50_ms"] = ms(percentile(of: latencies, 50))
        t.measures["play_to_report_p99_ms"] = ms(percentile(of: latencies, 99))
    }

    // Gain: half the mapped magnitude (truncated, as the pipeline does), quantized as the profile says.
    trial(pad, "gain") { t in
        do {
            _ = try client.request("gain.set", JSONObject(["device": .number(Double(pad.device)), "gain": .number(0.5)]))
            defer { _ = try? client.request("gain.set", JSONObject(["device": .number(Double(pad.device)), "gain": .number(1)])) }
            let full = MotorMapping.magnitudes(for: HapticSignal(intensity: 1, sharpness: 0.4), profile: pad.profile, quantized: false)
            let half = pad.profile.quantize(MotorMagnitudes(strong: UInt16(Double(full.strong) * 0.5), weak: UInt16(Double(full.weak) * 0.5)))
            let w = mark(pad)
            guard playAndCompare(t, pad, "gain 0.5", constant(0.3)) != nil else { return }
            let nonzero = (writes[pad.device] ?? []).dropFirst(w.writes).filter { !$0.value.isZero }.map(\.value)
            t.check(!nonzero.isEmpty && nonzero.allSatisfy { $0 == half },
                    "\(pad.type): gain 0.5 sends \(pad.level(half)) (half of \(pad.level(pad.profile.quantize(full))), as the profile quantizes it)",
                    "sent \(nonzero.map { pad.level($0) })")
        } catch {
            t.check(false, "\(pad.type): gain", "\(error)")
        }
    }

    // Refresh: a pad that stops on its own is re-sent its value before it would.
    if let refresh = pad.profile.refreshInterval {
        let duration = max(refresh * 1.2 + 0.1, 0.8)
        trial(pad, "refresh") { t in
            let w = mark(pad)
            guard playAndCompare(t, pad, "refresh (constant \(duration) s)", constant(duration)) != nil else { return }
            let rs = pad.reports.dropFirst(w.reports)
            let onStart = rs.first { !$0.level.isZero }?.time ?? 0
            let onEnd = rs.last { !$0.level.isZero }?.time ?? 0
            let during = rs.filter { $0.time >= onStart && $0.time <= onEnd }.map(\.time)
            let gaps = zip(during.dropFirst(), during).map { $0 - $1 }
            let limit = refresh + pad.latencyBound + tick + schedulingSlack
            // The re-send is due `refresh` after the write of the first value; the two reports each
            // come a write → report latency after their write, which varies by milliseconds under
            // TCG (a span of 1995.9 ms once, the first report the later one).
            t.check(gaps.count >= 1 && onEnd - onStart >= refresh - pad.latencyBound && (gaps.max() ?? 0) <= limit,
                    "\(pad.type): a constant value is re-sent at least every \(ms(limit)) ms (refresh \(refresh) s)",
                    "largest gap \(ms(gaps.max())) ms over \(ms(onEnd - onStart)) ms", timing: true)
            t.measures["refresh_max_gap_ms"] = ms(gaps.max())
        }
    }
}

// MARK: run

// The test watches; it must not take CPU from hapticd and the drivers it measures (one CPU here).
_ = nice(5)
pollAll()
guard startDaemon() else {
    check(false, "hapticd starts and answers")
    finish("drivers-vmtest")
}
check(true, "hapticd starts and answers")
for p in pads { p.findDriver() }
mapDevices("start")

let library = loadPattern("/usr/share/hapticd/patterns/heartbeat.ahap")
check(library != nil, "the library's heartbeat pattern loads")
var apple: [(String, HapticPattern)] = []
for name in ["Bouncing", "Jump"] {
    if let p = loadPattern("/data/ahap/\(name).ahap") { apple.append((name, p)) }
}
check(apple.count == 2, "the Apple samples load (Bouncing, Jump)")

for pad in pads where pad.device >= 0 {
    let begin = monotonicNow()
    focus = pad
    defer { focus = nil }
    if pad.driver == "nintendo" { nintendoFacts(pad) }
    // The Swift GameController library's input, touchpad and battery (GameControllerInput.swift).
    if pad.type == "dualsense-usb" { gameControllerChecks(pad) }
    if pad.full {
        runFullSuite(pad, library: library, apple: apple)
    } else {
        trial(pad, "ramp") { t in
            guard let (c, _) = playAndCompare(t, pad, "ramp", ramp) else { return }
            t.measures["ramp_lag_p50_ms"] = ms(percentile(of: c.lags, 50))
        }
    }
    trial(pad, "stop") { t in
        let stop = stopTest(t, pad, "player.stop") { s throws(ClientError) in
            _ = try client.request("player.stop", JSONObject(["player": .number(Double(s.player))]))
        }
        t.measures["stop_to_zero_ms"] = ms(stop)
        t.measures["stop_all_to_zero_ms"] = ms(stopTest(t, pad, "stop_all") { _ throws(ClientError) in _ = try client.request("stop_all") })
    }
    // The floor to beat: a bare evdev client, as SDL drives the pad, against hapticd (Floor.swift).
    if pad.floor && getenv("DRIVERS_VMTEST_NO_FLOOR") == nil { floorComparison(pad) }
    // How a value reaches the pad soonest, and what the driver takes (Method.swift).
    if pad.floor && getenv("DRIVERS_VMTEST_NO_METHOD") == nil { methodComparison(pad) }
    print("pad \(pad.type): \(Int((monotonicNow() - begin) * 1000)) ms")
}

/// Every pad rumbling at once (a looping constant each); true when all report it.
@MainActor func rumbleAll(_ label: String) -> Bool {
    for pad in pads where pad.device >= 0 {
        _ = try? play(pad, constant(10), loop: true)
    }
    let ok = waitUntil(3) { pads.allSatisfy { $0.device < 0 || !$0.current.isZero } }
    check(ok, "\(label): every pad rumbles", pads.filter { $0.current.isZero }.map(\.type).joined(separator: " "))
    sleepFor(0.1)
    return ok
}

let padsOnly = getenv("DRIVERS_VMTEST_PADS_ONLY") != nil

// Removal: every pad unplugged mid-rumble (UHID_DESTROY), then plugged back.
if !padsOnly { do {
    let events = try HapticClient(path: socketPath)
    _ = try events.request("subscribe", JSONObject(["events": .array([.string("device.removed"), .string("device.added")])]))
    if rumbleAll("removal") {
        for pad in pads { kill(pad.emulatorPID, SIGUSR1) }
        var removed = 0
        var added = 0
        let end = monotonicNow() + 10
        while removed < pads.count && monotonicNow() < end {
            if let e = try events.nextEvent(timeout: 0.2), case .string("device.removed")? = e["event"] { removed += 1 }
        }
        check(removed == pads.count, "removal: hapticd reports every pad removed (\(removed)/\(pads.count))")
        check((try? client.request("ping")) != nil, "removal: hapticd carries on")
        for pad in pads { kill(pad.emulatorPID, SIGUSR2) }
        // Every pad comes back at once, hid-nintendo's handshakes included, on the VM's one CPU: room for a stall.
        let end2 = monotonicNow() + 30
        while added < pads.count && monotonicNow() < end2 {
            if let e = try events.nextEvent(timeout: 0.2), case .string("device.added")? = e["event"] { added += 1 }
        }
        check(added == pads.count, "removal: hapticd takes every pad back when it returns (\(added)/\(pads.count))")
        sleepFor(0.3)
        for pad in pads {
            let since = pad.created.last ?? .infinity
            let after = pad.reports.filter { $0.time >= since }
            check(after.allSatisfy(\.level.isZero), "\(pad.type): after removal the returning pad is not driven by the old players",
                  "\(after.map(\.level))")
        }
        mapDevices("re-plug")
        for pad in pads where pad.device >= 0 {
            let t0 = monotonicNow()
            _ = try? play(pad, name: "click")
            check(waitUntil(5) { pad.reports.contains { $0.time >= t0 && !$0.level.isZero } }, "\(pad.type): plays again after re-plug")
        }
        waitUntil(2) { pads.allSatisfy { $0.current.isZero } }
    }
} catch {
    check(false, "removal", "\(error)")
} }

// SIGTERM and SIGKILL of hapticd mid-rumble: every pad ends at zero.
for (signal, name) in padsOnly ? [] : [(SIGTERM, "SIGTERM"), (SIGKILL, "SIGKILL")] {
    if name == "SIGKILL" {
        guard startDaemon() else {
            check(false, "hapticd starts again")
            break
        }
        mapDevices("restart")
    }
    guard rumbleAll(name) else { continue }
    let t0 = monotonicNow()
    kill(daemonPID, signal)
    let status = waitExit(daemonPID, timeout: 10)
    check(status != nil, "\(name): hapticd exits", "")
    let ok = waitUntil(3) { pads.allSatisfy { $0.current.isZero && ($0.reports.last?.time ?? 0) >= t0 } }
    for pad in pads {
        // Signal → the first report of the final run of zeros (drivers that re-send go on after it).
        let lastNonZero = pad.reports.lastIndex { !$0.level.isZero }
        let l = pad.reports[(lastNonZero.map { $0 + 1 } ?? 0)...].first { $0.time >= t0 }.map { $0.time - t0 }
        check(pad.current.isZero && (pad.reports.last?.time ?? 0) >= t0,
              "\(pad.type): \(name) of hapticd ends with a zero-motor report (\(ms(l)) ms; the last report \(ms(pad.reports.last.map { $0.time - t0 })) ms)",
              "signal at \(t0), now \(monotonicNow()); the last reports: \(pad.reports.suffix(4).map { "\($0.time) \($0.level)" }); the pad's log: \(pad.tail.lines.suffix(4))")
        print("NOTE \(pad.type) after \(name): \(pad.reports.filter { $0.time >= t0 - 0.05 }.prefix(8).map { "\(ms($0.time - t0)):\($0.level)" })")
        pad.measures[name == "SIGTERM" ? "sigterm_to_zero_ms" : "sigkill_to_zero_ms"] = ms(l)
    }
    _ = ok
}

// The numbers (docs/devices.md records them).
let columns = [
    "play_to_report_p50_ms", "play_to_report_p99_ms", "onset_mean_ms", "onset_max_ms", "ramp_reports_per_s", "ramp_lag_p50_ms",
    "ramp_lag_max_ms", "last_change_to_report_ms", "stop_to_zero_ms", "stop_all_to_zero_ms", "refresh_max_gap_ms",
    "sigterm_to_zero_ms", "sigkill_to_zero_ms", "lag_p50_ms", "lag_p99_ms", "lag_max_ms", "coalesced",
]
var uts = utsname()
uname(&uts)
let release = withUnsafeBytes(of: uts.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
print("MEASURE-KERNEL \(release)")
for pad in pads {
    pad.measures["lag_p50_ms"] = ms(percentile(of: pad.lags, 50))
    pad.measures["lag_p99_ms"] = ms(percentile(of: pad.lags, 99))
    pad.measures["lag_max_ms"] = ms(pad.lags.max())
    pad.measures["coalesced"] = "\(pad.drops)/\(pad.values)"
    let fields = ["pad=\(pad.type)", "driver=\(pad.driver)", "profile=\(pad.profile.name)", "interval_ms=\(ms(pad.profile.minimumUpdateInterval))",
                  "latency_bound_ms=\(ms(pad.latencyBound))"] + columns.map { "\($0)=\(pad.measures[$0] ?? "-")" }
    print("MEASURE " + fields.joined(separator: " "))
}
// The same as a table for the console (milliseconds).
func cell(_ s: String, _ width: Int) -> String { s.count >= width ? s : s + String(repeating: " ", count: width - s.count) }
print(cell("pad", 19) + cell("driver", 12) + cell("profile", 21) + cell("int", 6) + cell("play p50/p99", 14) + cell("onset avg/max", 15)
      + cell("rep/s", 7) + cell("lag p50/p99", 13) + cell("last", 7) + "stop/stop_all")
for pad in pads {
    let m = pad.measures
    func v(_ k: String) -> String { m[k] ?? "-" }
    print(cell(pad.type, 19) + cell(pad.driver, 12) + cell(pad.profile.name, 21) + cell(ms(pad.profile.minimumUpdateInterval), 6)
          + cell("\(v("play_to_report_p50_ms"))/\(v("play_to_report_p99_ms"))", 14) + cell("\(v("onset_mean_ms"))/\(v("onset_max_ms"))", 15)
          + cell(v("ramp_reports_per_s"), 7) + cell("\(v("lag_p50_ms"))/\(v("lag_p99_ms"))", 13) + cell(v("last_change_to_report_ms"), 7)
          + "\(v("stop_to_zero_ms"))/\(v("stop_all_to_zero_ms"))")
}
printFloorTable()
printMethodTable()
kill(daemonPID, SIGKILL)
_ = waitExit(daemonPID, timeout: 5)
finish("drivers-vmtest")
