// Runs inside the qemu VM: the real, release hapticd streams an emulated DualSense's voice coils over
// Bluetooth — output report 0x32 on its hidraw node, 32 stereo frames of signed 8-bit samples at
// 3 kHz, CRC-sealed — while the kernel's hid-playstation stays bound. The pad (uhidpad, type
// dualsense-bt) checks each report's CRC and logs its samples (`HAPTICS … seq=N crc=ok frames=32
// samples=<hex L R L R…>`); those samples are the ground truth. docs/testing.md ("46-dualsense")
// describes each check.
//
// Usage: dualsense-vmtest HAPTICD   (the pad's log and pid in /tmp/pads, from start_uhid_pads)
import Glibc
import HapticClient
import HapticCore
import VMTestSupport

let socketPath = "/tmp/hapticd-dualsense.sock"
let padType = "dualsense-bt"
let logPath = "/tmp/pads/\(padType).log"
let rate = DualSenseBluetoothHaptics.sampleRate
let reportInterval = DualSenseBluetoothHaptics.reportInterval
/// How late hapticd's timer may fire under TCG (one CPU shared with the driver and the pad).
let schedulingSlack = 0.050

/// One report 0x32 as the pad received it.
struct Report {
    var time: Double
    var sequence: Int
    var crcOK: Bool
    /// (left, right), signed 8-bit.
    var frames: [(Int, Int)]
    var silent: Bool { frames.allSatisfy { $0 == (0, 0) } }
}

final class Pad {
    let tail = LineTail(path: logPath)
    var reports: [Report] = []
    var rumble: [(time: Double, strong: Int, weak: Int)] = []
    var inputName = ""
    var hidID = ""
    var device = -1
    var hidrawNode = ""
    var eventNode = ""
    var destroyed = 0, created = 0
    private var parsed = 0

    func poll() {
        tail.poll()
        while parsed < tail.lines.count {
            let line = tail.lines[parsed]
            parsed += 1
            let words = line.split(separator: " ").map(String.init)
            guard words.count >= 2, let t = Double(words[0]) else { continue }
            var f: [String: String] = [:]
            for w in words.dropFirst(2) {
                if let eq = w.firstIndex(of: "=") { f[String(w[..<eq])] = String(w[w.index(after: eq)...]) }
            }
            switch words[1] {
            case "CREATED":
                hidID = f["hid"] ?? ""
                created += 1
            case "DESTROYED":
                destroyed += 1
            case "INPUTNAME":
                inputName = words.dropFirst(2).joined(separator: " ")
            case "HAPTICS":
                guard let hex = f["samples"], let seq = Int(f["seq"] ?? "") else { continue }
                let bytes = stride(from: 0, to: hex.count - 1, by: 2).compactMap { k -> Int? in
                    let a = hex.index(hex.startIndex, offsetBy: k)
                    return UInt8(hex[a...hex.index(after: a)], radix: 16).map { Int(Int8(bitPattern: $0)) }
                }
                let frames = stride(from: 0, to: bytes.count - 1, by: 2).map { (bytes[$0], bytes[$0 + 1]) }
                reports.append(Report(time: t, sequence: seq, crcOK: f["crc"] == "ok", frames: frames))
            case "RUMBLE":
                if let s = Int(f["strong"] ?? ""), let w = Int(f["weak"] ?? "") { rumble.append((t, s, w)) }
            default: break
            }
        }
    }

    func reports(_ from: Double, _ to: Double) -> [Report] { reports.filter { $0.time >= from && $0.time <= to } }
    var atRest: Bool { reports.last?.silent ?? true }
}

let args = CommandLine.arguments
guard args.count >= 2 else {
    print("usage: dualsense-vmtest HAPTICD")
    exit(2)
}
let hapticd = args[1]
let pad = Pad()
var daemonPID: pid_t = 0
var client: HapticClient!
let stallLog = StallLog()

@MainActor func pollAll() { pad.poll() }
@discardableResult
@MainActor func waitUntil(_ timeout: Double, _ done: () -> Bool) -> Bool { pollUntil(timeout, poll: pollAll, done) }
@MainActor func sleepFor(_ seconds: Double) { pollFor(seconds, poll: pollAll) }

func number(_ v: JSONValue?) -> Double? {
    if case .number(let x)? = v { return x }
    return nil
}

func string(_ v: JSONValue?) -> String? {
    if case .string(let s)? = v { return s }
    return nil
}

func ms(_ x: Double?) -> String {
    guard let x else { return "-" }
    return "\((x * 10000).rounded() / 10)"
}

/// Starts hapticd (`asUser`: through busybox su) with `config` if given; its log to `log`.
@MainActor func startDaemon(config: String? = nil, asUser: String? = nil, log: String) -> Bool {
    unlink(socketPath)
    let line = [hapticd, "--socket", socketPath, "--log-level", "info"] + (config.map { ["--config", $0] } ?? [])
    let words = ["/bin/sh", "-c", (asUser.map { "exec /bin/su \($0) -c \"exec " } ?? "exec ") + line.joined(separator: " ")
        + (asUser == nil ? "" : "\"") + " 2>>\(log)"]
    guard let pid = spawn(words) else { return false }
    daemonPID = pid
    guard let c = answeringClient(at: socketPath) else { return false }
    client = c
    return true
}

@MainActor func stopDaemon(_ signal: Int32 = SIGTERM) -> Int32? {
    kill(daemonPID, signal)
    return waitForExit(daemonPID, timeout: 10, poll: pollAll)
}

/// Finds the pad in `devices`; its capabilities.
@MainActor func capabilities() -> JSONObject? {
    var found: JSONObject?
    waitUntil(10) {
        guard let r = try? client.request("devices"), case .array(let list)? = r["devices"] else { return false }
        for v in list {
            guard string(v["name"]) == pad.inputName, number(v["bus"]) == 5, case .bool(true)? = v["connected"],
                  let d = number(v["device"]) else { continue }
            pad.device = Int(d)
            pad.eventNode = string(v["path"]) ?? ""
            found = try? client.request("capabilities", JSONObject(["device": .number(d)]))
            return found != nil
        }
        return false
    }
    return found
}

struct Started {
    var player: Int
    var sent: Double
}

@MainActor func play(_ pattern: HapticPattern, locality: String? = nil) -> Started? {
    var body = JSONObject(["device": .number(Double(pad.device)), "pattern": AHAPWriter.json(pattern)])
    if let locality { body.append("locality", .string(locality)) }
    let sent = monotonicNow()
    guard let r = try? client.request("play", body) else { return nil }
    return Started(player: Int(number(r["player"]) ?? -1), sent: sent)
}

func tone(_ duration: Double, intensity: Double, sharpness: Double) -> HapticPattern {
    HapticPattern(elements: [.event(.continuous(at: 0, duration: duration, intensity: intensity, sharpness: sharpness))])
}

/// Plays, and waits until the stream has gone quiet (a silent report, then none for 0.15 s): the
/// reports of this play, from the first after `sent`.
@MainActor func playThrough(_ pattern: HapticPattern, locality: String? = nil, timeout: Double = 5) -> (Started, [Report])? {
    waitUntil(2) { pad.atRest }
    let before = pad.reports.count
    guard let s = play(pattern, locality: locality) else { return nil }
    var lastCount = -1, quietSince = monotonicNow()
    waitUntil(timeout) {
        if pad.reports.count != lastCount { lastCount = pad.reports.count; quietSince = monotonicNow() }
        return pad.reports.count > before && pad.atRest && monotonicNow() - quietSince > 0.15
    }
    return (s, Array(pad.reports[before...]))
}

/// The stream's samples, one side, in report order (reports back to back: the stream has no gaps).
func samples(_ rs: [Report], right: Bool = false) -> [Int] { rs.flatMap { $0.frames.map { right ? $0.1 : $0.0 } } }

/// Zero crossings per second over `xs` (a sine at f crosses 2f times a second).
func frequency(_ xs: [Int]) -> Double {
    var crossings = 0
    var last = 0
    for x in xs where x != 0 {
        if last != 0 && (x > 0) != (last > 0) { crossings += 1 }
        last = x
    }
    return Double(crossings) / 2 / (Double(xs.count) / rate)
}

func sequenceContinuous(_ rs: [Report]) -> Bool { zip(rs, rs.dropFirst()).allSatisfy { ($0.sequence + 1) & 0x0F == $1.sequence } }

// MARK: the checks

@MainActor func checkCapabilities(_ c: JSONObject?, haptics: String, transport: String, reason: String? = nil, _ label: String) {
    guard let c else { return check(false, "\(label): capabilities") }
    let ok = string(c["haptics"]) == haptics && string(c["haptics_transport"]) == transport
        && (reason.map { string(c["haptics_reason"])?.contains($0) == true } ?? (c["haptics_reason"] == .null))
    check(ok, "\(label): capabilities say haptics \(haptics) through \(transport)\(reason.map { " (\($0))" } ?? "")",
          "haptics \(string(c["haptics"]) ?? "-") transport \(string(c["haptics_transport"]) ?? "-") reason \(string(c["haptics_reason"]) ?? "-") backend \(string(c["backend"]) ?? "-")")
}

/// Sharpness → carrier frequency (40·8^S Hz), intensity → amplitude, both sides alike.
@MainActor func toneChecks() {
    var rows: [String] = []
    var ok = true
    for (s, i) in [(0.0, 0.8), (0.5, 0.8), (1.0, 0.8), (0.5, 0.4)] {
        guard let (_, rs) = playThrough(tone(0.6, intensity: i, sharpness: s)) else { return check(false, "tone S=\(s): play") }
        let sounding = rs.filter { !$0.silent }
        // The middle of the tone: past its first and before its last report.
        let middle = Array(sounding.dropFirst(3).dropLast(3))
        let left = samples(middle), right = samples(middle, right: true)
        let f = frequency(left), want = WaveformRenderer.carrierFrequency(sharpness: s)
        let peak = left.map(abs).max() ?? 0, wantPeak = Int((i * 127).rounded())
        let good = middle.count >= 25 && abs(f / want - 1) < 0.05 && abs(peak - wantPeak) <= 3 && left == right
        ok = ok && good
        rows.append("S=\(s) I=\(i): \(Int(f.rounded())) Hz (want \(Int(want.rounded()))), peak \(peak) (want \(wantPeak)), \(middle.count) reports\(left == right ? "" : ", sides differ")")
    }
    print("TONES\n  " + rows.joined(separator: "\n  "))
    check(ok, "sharpness is the carrier's frequency (40·8^S Hz, zero crossings within 5 %) and intensity its amplitude (±3 of I·127), both sides alike", rows.joined(separator: "; "))
}

/// Transients at 0, 0.1, 0.25 and 0.4 s: in the stream, each onset lies exactly its time apart (sample
/// accurate: ±1 sample), the stream runs without gaps (sequence numbers continuous, reports ~10.67 ms
/// apart), and the first report reaches the pad one report interval after the command plus the VM's
/// scheduling.
@MainActor func rhythmChecks() {
    let times = [0.0, 0.1, 0.25, 0.4]
    let pattern = HapticPattern(elements: times.map { .event(.transient(at: $0, intensity: 1, sharpness: 1)) })
    var lastDetail = ""
    for attempt in 1...3 {
        guard let (s, rs) = playThrough(pattern) else { return check(false, "rhythm: play") }
        let xs = samples(rs)
        // Onsets: the first non-zero sample after at least 10 ms of silence.
        var onsets: [Int] = []
        var quiet = Int(rate)
        for (k, x) in xs.enumerated() {
            if x != 0 {
                if quiet >= 30 { onsets.append(k) }
                quiet = 0
            } else {
                quiet += 1
            }
        }
        let gaps = zip(onsets, onsets.dropFirst()).map { $1 - $0 }
        let want = zip(times, times.dropFirst()).map { Int((($1 - $0) * rate).rounded()) }
        let exact = gaps.count == want.count && zip(gaps, want).allSatisfy { abs($0 - $1) <= 1 }
        let continuous = sequenceContinuous(rs) && rs.allSatisfy(\.crcOK)
        let spacing = zip(rs, rs.dropFirst()).map { $1.time - $0.time }
        let mean = spacing.isEmpty ? 0 : (rs.last!.time - rs.first!.time) / Double(spacing.count)
        let firstSound = rs.first { !$0.silent }
        let latency = firstSound.map { $0.time - s.sent }
        let stall = stallLog.longest(from: s.sent, to: rs.last?.time ?? s.sent)
        lastDetail = "onsets \(onsets) gaps \(gaps) want \(want); \(rs.count) reports, seq continuous \(continuous), mean spacing \(ms(mean)) ms, p95 \(ms(percentile(of: spacing, 95))) max \(ms(spacing.max())) ms, first report \(ms(latency)) ms after the command, longest stall \(ms(stall)) ms"
        print("MEASURE rhythm: " + lastDetail)
        let paced = abs(mean / reportInterval - 1) < 0.1 && rs.count >= 38 && rs.count <= 42
        let onTime = (latency ?? 1) < reportInterval + schedulingSlack + 0.04
        // The first report's latency too (docs/testing.md): a stall between the command and it
        // delays it as much as it stood still.
        if !exact || !continuous || !paced || !onTime, attempt < 3, stall != nil {
            print("NOTE rhythm: the VM stalled: once more")
            continue
        }
        check(exact, "transients 100, 150 and 150 ms apart lie exactly that many samples apart in the stream (300, 450, 450 ±1)", lastDetail)
        check(continuous, "every report's CRC is good and the sequence numbers run on without a gap (\(rs.count) reports)", lastDetail)
        // The stream's rate: reports span the pattern (0.4 s + a transient's 6.25 ms) at ~10.67 ms each.
        check(paced,
              "reports come every \(ms(reportInterval)) ms (mean \(ms(mean)) ms, \(rs.count) reports for 0.41 s): no gaps, no pile-up", lastDetail)
        check(onTime,
              "the first report sounds \(ms(latency)) ms after the command (bound: one report + \(ms(schedulingSlack + 0.04)) ms of VM allowance)", lastDetail)
        return
    }
    check(false, "rhythm (the VM stalled three times)", lastDetail)
}

/// A 2 s tone: as many reports as its length needs (187.5 → 188 sounding, one silent), spread over
/// as long (no pile-up, no drift), none dropped while the VM ran on.
@MainActor func paceChecks() {
    var detail = ""
    for attempt in 1...3 {
        let before = counters()
        guard let (s, rs) = playThrough(tone(2, intensity: 0.6, sharpness: 0.3)) else { return check(false, "pace: play") }
        let after = counters()
        let spacing = zip(rs, rs.dropFirst()).map { $1.time - $0.time }
        let span = (rs.last?.time ?? 0) - (rs.first?.time ?? 0)
        let stall = stallLog.longest(from: s.sent, to: rs.last?.time ?? s.sent)
        let dropped = (after?.dropped ?? 0) - (before?.dropped ?? 0), caughtUp = (after?.caughtUp ?? 0) - (before?.caughtUp ?? 0)
        detail = "\(rs.count) reports (\(rs.filter { !$0.silent }.count) sounding) over \(ms(span)) ms, spacing p50 \(ms(percentile(of: spacing, 50))) p95 \(ms(percentile(of: spacing, 95))) max \(ms(spacing.max())) ms, dropped \(dropped), caught up \(caughtUp), longest stall \(ms(stall)) ms"
        print("MEASURE pace (2 s tone): " + detail)
        let ok = (188...190).contains(rs.count) && abs(span / (Double(rs.count - 1) * reportInterval) - 1) < 0.03 && dropped == 0
            && sequenceContinuous(rs)
        if !ok, attempt < 3, stall != nil {
            print("NOTE pace: the VM stalled: once more")
            continue
        }
        check(ok, "a 2 s tone is 188–190 reports spread over their own length (within 3 %), in sequence, none dropped", detail)
        return
    }
}

/// The stream's counters from `capabilities`.
@MainActor func counters() -> (dropped: Int, caughtUp: Int)? {
    guard let c = try? client.request("capabilities", JSONObject(["device": .number(Double(pad.device))])), case .object(let w)? = c["waveform"],
          let d = number(w["dropped"]), let u = number(w["caught_up"]) else { return nil }
    return (Int(d), Int(u))
}

/// leftHandle drives the left voice coil only, rightHandle the right one only.
@MainActor func localityChecks() {
    for (locality, left) in [("leftHandle", true), ("rightHandle", false)] {
        guard let (_, rs) = playThrough(tone(0.2, intensity: 0.8, sharpness: 0.5), locality: locality) else {
            return check(false, "\(locality): play")
        }
        let l = samples(rs), r = samples(rs, right: true)
        let ok = left ? (l.contains { $0 != 0 } && r.allSatisfy { $0 == 0 }) : (r.contains { $0 != 0 } && l.allSatisfy { $0 == 0 })
        check(ok, "\(locality) moves only the \(left ? "left" : "right") voice coil",
              "left peak \(l.map(abs).max() ?? 0) right peak \(r.map(abs).max() ?? 0)")
    }
}

/// A stop mid-tone: silence from the report after it, one silent report, then no more reports.
/// Sounding reports are counted from the stop's answer, when hapticd has applied it: before that,
/// how many go out is the request's latency under the VM (a 10–20 ms hold-up, below the stall
/// monitor's threshold, made it three once), which is measured, not judged. After the answer the pad
/// may still get the block the stop fell in (rendered up to the stop's sample, written at the block's
/// end) and one report already on its way to the pad's log; then the silent one, and nothing more.
@MainActor func stopChecks() {
    waitUntil(2) { pad.atRest }
    guard let s = play(tone(5, intensity: 0.8, sharpness: 0.5)) else { return check(false, "stop: play") }
    sleepFor(0.3)
    let stopAt = monotonicNow()
    let answer = try? client.request("player.stop", JSONObject(["player": .number(Double(s.player))]))
    let answeredAt = monotonicNow()
    sleepFor(0.4)
    let after = pad.reports(stopAt, monotonicNow())
    let firstSilent = after.firstIndex { $0.silent }
    let tail = firstSilent.map { Array(after[$0...]) } ?? []
    let soundingAfterAnswer = after.filter { !$0.silent && $0.time >= answeredAt }.count
    check(answer != nil && firstSilent != nil && soundingAfterAnswer <= 2 && tail.count == 1,
          "player.stop: silence within two reports of its answer (\(soundingAfterAnswer) sounding), one silent report, then none (\(tail.count) after it)",
          "\(after.map { $0.silent ? "0" : "1" }.joined()), answered after \(ms(answeredAt - stopAt)) ms")
    if let last = after.first(where: \.silent) { print("MEASURE stop → silent report \(ms(last.time - stopAt)) ms") }
    if let c = try? client.request("capabilities", JSONObject(["device": .number(Double(pad.device))])), case .object(let w)? = c["waveform"] {
        print("MEASURE stream counters: reports \(Int(number(w["reports"]) ?? -1)) dropped \(Int(number(w["dropped"]) ?? -1)) caught_up \(Int(number(w["caught_up"]) ?? -1)) streams \(Int(number(w["streams"]) ?? -1))")
        check(number(w["dropped"]) != nil, "capabilities count the stream's reports and drops")
    }
}

/// The pad vanishes mid-stream (uhid destroy): the stream ends with it; the pad comes back and streams again.
@MainActor func vanishChecks(_ uhidPID: pid_t) {
    waitUntil(2) { pad.atRest }
    guard play(tone(5, intensity: 0.8, sharpness: 0.5)) != nil else { return check(false, "vanish: play") }
    sleepFor(0.2)
    let destroyedBefore = pad.destroyed
    kill(uhidPID, SIGUSR1)
    waitUntil(3) { pad.destroyed > destroyedBefore }
    // Waited for (bounded), not slept on: how soon hapticd notices is the VM's scheduling.
    let destroyedAt = monotonicNow()
    let gone = waitUntil(3) {
        (try? client.request("devices")).flatMap { r -> Bool? in
            guard case .array(let l)? = r["devices"] else { return nil }
            return !l.contains { number($0["device"]) == Double(pad.device) && $0["connected"] == .bool(true) }
        } ?? false
    }
    check(gone, "the pad vanished mid-stream: hapticd lets it go (not connected, \(ms(monotonicNow() - destroyedAt)) ms after the pad's log said so)")
    sleepFor(max(0, destroyedAt + 0.5 - monotonicNow()))  // the re-plug no sooner than before
    let createdBefore = pad.created
    kill(uhidPID, SIGUSR2)
    waitUntil(5) { pad.created > createdBefore && !pad.inputName.isEmpty }
    let c = capabilities()
    checkCapabilities(c, haptics: "waveform", transport: "bluetooth-hidraw", "back after the unplug")
    guard let (_, rs) = playThrough(tone(0.2, intensity: 0.8, sharpness: 0.5)) else { return check(false, "after the unplug: play") }
    check(rs.filter { !$0.silent }.count >= 15 && rs.allSatisfy(\.crcOK), "and streams its voice coils again (\(rs.count) reports)")
}

// MARK: run

let pidText: String = {
    guard let f = fopen("/tmp/pads/\(padType).pid", "r") else { return "" }
    defer { fclose(f) }
    var buf = [CChar](repeating: 0, count: 32)
    guard fgets(&buf, Int32(buf.count), f) != nil else { return "" }
    return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).filter(\.isNumber)
}()
let uhidPID = pid_t(pidText) ?? 0
pad.poll()

let daemonStarted = monotonicNow()
guard startDaemon(log: "/tmp/hapticd-dualsense.log") else {
    check(false, "hapticd starts")
    finish("dualsense-vmtest")
}
let caps = capabilities()
pad.hidrawNode = hidrawNodeOf(pad.hidID) ?? "?"
checkCapabilities(caps, haptics: "waveform", transport: "bluetooth-hidraw", "default configuration")
check(string(caps?["backend"]) == "hidraw" && string(caps?["hidraw_node"]) == pad.hidrawNode
      && string(caps?["profile"]) == "dualsense-bluetooth-waveform",
      "backend hidraw on the pad's own node \(pad.hidrawNode), profile dualsense-bluetooth-waveform",
      "backend \(string(caps?["backend"]) ?? "-") node \(string(caps?["hidraw_node"]) ?? "-") profile \(string(caps?["profile"]) ?? "-")")
waitUntil(2) { !pad.reports.isEmpty }
check(pad.reports.first.map { $0.silent && $0.crcOK } == true, "opening the pad writes one silent report 0x32 with a good CRC")

toneChecks()
rhythmChecks()
paceChecks()
localityChecks()
stopChecks()
let rumbleBefore = pad.rumble.filter { $0.time >= daemonStarted && ($0.strong > 0 || $0.weak > 0) }.count
check(rumbleBefore == 0, "while streaming, hid-playstation's motors never move (no compatible vibration beside the voice coils)")
if uhidPID > 0 { vanishChecks(uhidPID) }

// SIGTERM mid-stream: the last report is silent.
waitUntil(2) { pad.atRest }
_ = play(tone(5, intensity: 0.8, sharpness: 0.5))
sleepFor(0.2)
let term = monotonicNow()
_ = stopDaemon()
// hapticd has exited: its last report is written; the pad's log has it once uhidpad has run.
waitUntil(2) { pad.reports.last.map { $0.silent && $0.time >= term } == true }
check(pad.reports.last.map { $0.silent && $0.time >= term } == true, "SIGTERM mid-stream ends with a silent report")

// Compatible vibration: by configuration, and when the node cannot be opened (then tried again at a
// play once it can).
let config = "/tmp/dualsense-rumble.toml"
if let f = fopen(config, "w") {
    fputs("[devices]\ndualsense_haptics = \"rumble\"\n", f)
    fclose(f)
}
if startDaemon(config: config, log: "/tmp/hapticd-dualsense.log") {
    let c = capabilities()
    checkCapabilities(c, haptics: "rumble", transport: "evdev", reason: "dualsense_haptics", "dualsense_haptics = \"rumble\"")
    let before = pad.reports.count, rumbles = pad.rumble.count
    _ = play(tone(0.3, intensity: 1, sharpness: 0))
    waitUntil(2) { pad.rumble.dropFirst(rumbles).contains { $0.strong > 0 } }
    check(pad.rumble.dropFirst(rumbles).contains { $0.strong > 0 } && pad.reports.count == before,
          "dualsense_haptics = \"rumble\": the pad rumbles through hid-playstation (FF_RUMBLE), no report 0x32")
    _ = stopDaemon()
}

// hapticd as a user who may open the evdev node but not the hidraw node: compatible vibration and why;
// once the node is readable, the next play after the back-off streams again.
chmod(pad.eventNode, 0o666)
chmod(pad.hidrawNode, 0)
if startDaemon(asUser: "hapticd", log: "/tmp/hapticd-user.log") {
    let c = capabilities()
    checkCapabilities(c, haptics: "rumble", transport: "evdev", reason: "permission denied", "hidraw node unreadable")
    let rumbles = pad.rumble.count
    _ = play(tone(0.3, intensity: 1, sharpness: 0))
    waitUntil(2) { pad.rumble.dropFirst(rumbles).contains { $0.strong > 0 } }
    check(pad.rumble.dropFirst(rumbles).contains { $0.strong > 0 }, "without its hidraw node the pad still rumbles through FF_RUMBLE")
    sleepFor(0.5)
    chmod(pad.hidrawNode, 0o666)
    // The first play tried the node (refused): the back-off is now 2 s.
    sleepFor(2.2)
    let before = pad.reports.count
    _ = play(tone(0.3, intensity: 1, sharpness: 0))
    waitUntil(2) { pad.reports.dropFirst(before).contains { !$0.silent } }
    let back = capabilities()
    checkCapabilities(back, haptics: "waveform", transport: "bluetooth-hidraw", "the node readable again")
    check(pad.reports.dropFirst(before).contains { !$0.silent }, "a play after the back-off streams the voice coils again")
    _ = stopDaemon()
    var text = ""
    if let f = fopen("/tmp/hapticd-user.log", "r") {
        var buf = [CChar](repeating: 0, count: 4096)
        while fgets(&buf, Int32(buf.count), f) != nil { text += String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        fclose(f)
    }
    check(text.contains("voice-coil waveforms again"), "the log says the pad streams again", String(text.suffix(600)))
} else {
    check(false, "hapticd starts as a user")
}
chmod(pad.hidrawNode, 0o600)
finish("dualsense-vmtest")
