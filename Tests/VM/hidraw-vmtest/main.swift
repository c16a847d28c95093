// Runs inside the qemu VM: the real, release hapticd (default backend `auto`) drives emulated pads
// through their hidraw nodes — Switch Pro over USB and Bluetooth, the single Joy-Cons (L) and (R)
// over Bluetooth and the two Joy-Cons of a charging grip over USB (HD rumble, output report 0x10) and the Xbox Series pad over Bluetooth (report 0x03
// with the trigger motors) — while the kernel's own hid-nintendo and hid-microsoft stay bound. The pads' logs (uhidpad: every HD-rumble packet's four
// bands, every Xbox report's motors and triggers) are the ground truth, hapticd's `--trace` what it
// meant. docs/testing.md ("45-hidraw") describes each check.
//
// Usage: hidraw-vmtest HAPTICD TYPE:PROFILE...   (pad logs and pids in /tmp/pads, from start_uhid_pads)
// Then the comparison with SDL2's HIDAPI path: /bin/sdlrumble (Tests/VM/sdl/sdlrumble.c) against the
// same pads, printed as a table (a measurement, not an assertion).
import Dispatch
import GameController
import Glibc
import HapticClient
import HapticCore
import Synchronization
import VMTestSupport

let socketPath = "/tmp/hapticd-hidraw.sock"
// The GameController library finds hapticd where every client does.
setenv("HAPTICD_SOCKET", socketPath, 1)
let padDirectory = "/tmp/pads"
/// hapticd's render tick, part of every bound on when it writes.
let tick = 0.004
/// How late hapticd's timer may fire under TCG (one CPU shared with the drivers and the pads).
let schedulingSlack = 0.050
/// A hidraw write to the emulated pad's log: hidraw → uhid → uhidpad, no driver queue in between.
let transportBound = 0.040

// MARK: the pads' logs

/// One HD-rumble packet as the pad plays it: per actuator, high and low band (Hz, thousandths).
struct HDPacket {
    typealias Bands = (hf: Double, ha: Int, lf: Double, la: Int)
    var time: Double
    var id: String
    var left: Bands
    var right: Bands
    /// The half the pad plays, as uhidpad logs it: "left" (bytes 2–5: a Joy-Con (L)), "right" (6–9: a
    /// Joy-Con (R)) or "both" (the Pro Controller).
    var actuator: String
    var leftSilent: Bool { left.ha == 0 && left.la == 0 }
    var rightSilent: Bool { right.ha == 0 && right.la == 0 }
    var silent: Bool { leftSilent && rightSilent }
    var fromReport10: Bool { id == "0x10" }
    /// Whether the pad plays something: its own half on a Joy-Con, either on the Pro.
    var playing: Bool { actuator == "left" ? !leftSilent : actuator == "right" ? !rightSilent : !silent }
    /// The bands of the actuator the pad plays (the left one on the Pro, which plays both).
    var played: Bands { actuator == "right" ? right : left }
    /// Both halves encode the same bands (as SDL's HIDAPI driver writes every Switch pad's report).
    var halvesIdentical: Bool { left == right }
}

/// One Xbox report 0x03: handle motors and trigger motors, 0…100.
struct XboxReport {
    var time: Double
    var strong: Int, weak: Int, lt: Int, rt: Int
    var silent: Bool { strong == 0 && weak == 0 && lt == 0 && rt == 0 }
}

final class Pad {
    let type: String
    let expectedProfile: String
    let tail: LineTail
    var bus: UInt16 = 0
    var usbID = ""
    var hidID = ""
    var inputName = ""
    var device = -1
    var node = ""
    var hidrawNode = ""
    var interval = 0.0
    var hd: [HDPacket] = []
    /// Every RUMBLE line (Switch: what hid-nintendo's evdev path sends, decoded; Xbox: report 0x03).
    var rumble: [XboxReport] = []
    var presses: [Double] = []
    var measures: [String: String] = [:]
    private var parsed = 0

    init(spec: String) {
        let parts = spec.split(separator: ":").map(String.init)
        type = parts[0]
        expectedProfile = parts.count > 1 ? parts[1] : "?"
        tail = LineTail(path: "\(padDirectory)/\(type).log")
        poll()
    }

    /// The half a single Joy-Con plays ("left": bytes 2–5, "right": 6–9); nil on other pads.
    var joyCon: String? { type.hasPrefix("joycon-l") ? "left" : type.hasPrefix("joycon-r") ? "right" : nil }
    /// Switch HD rumble (output report 0x10): the Pro Controller and the Joy-Cons.
    var isSwitch: Bool { type.hasPrefix("switch") || joyCon != nil }

    var emulatorPID: pid_t {
        guard let f = fopen("\(padDirectory)/\(type).pid", "r") else { return 0 }
        defer { fclose(f) }
        var buf = [CChar](repeating: 0, count: 32)
        guard fgets(&buf, Int32(buf.count), f) != nil else { return 0 }
        return pid_t(String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).filter(\.isNumber)) ?? 0
    }

    static func band(_ s: String) -> (Double, Int, Double, Int)? {
        // HF:HA/LF:LA
        let halves = s.split(separator: "/")
        guard halves.count == 2 else { return nil }
        let h = halves[0].split(separator: ":"), l = halves[1].split(separator: ":")
        guard h.count == 2, l.count == 2, let hf = Double(h[0]), let ha = Int(h[1]), let lf = Double(l[0]), let la = Int(l[1]) else { return nil }
        return (hf, ha, lf, la)
    }

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
                bus = UInt16(f["bus"]?.dropFirst(2) ?? "0", radix: 16) ?? 0
                usbID = "\(f["vid"] ?? ""):\(f["pid"] ?? "")"
                hidID = f["hid"] ?? ""
            case "INPUTNAME":
                inputName = words.dropFirst(2).joined(separator: " ")
            case "HDRUMBLE":
                if let l = f["left"].flatMap(Pad.band), let r = f["right"].flatMap(Pad.band) {
                    hd.append(HDPacket(time: t, id: f["id"] ?? "", left: l, right: r, actuator: f["actuator"] ?? "both"))
                }
            case "RUMBLE":
                let trig = (f["triggers"] ?? "0,0").split(separator: ",").compactMap { Int($0) }
                if let s = f["strong"].flatMap({ Int($0) }), let w = f["weak"].flatMap({ Int($0) }) {
                    rumble.append(XboxReport(time: t, strong: s, weak: w, lt: trig.first ?? 0, rt: trig.count > 1 ? trig[1] : 0))
                }
            case "PRESS":
                presses.append(t)
            default: break
            }
        }
    }

    /// hapticd's reports in `from…to`: report 0x10 packets (Switch) or RUMBLE lines (Xbox).
    func hdPackets(_ from: Double, _ to: Double) -> [HDPacket] { hd.filter { $0.fromReport10 && $0.time >= from && $0.time <= to } }
    func xboxReports(_ from: Double, _ to: Double) -> [XboxReport] { rumble.filter { $0.time >= from && $0.time <= to } }
    /// Whether the pad's last hapticd report is silent.
    var atRest: Bool { isSwitch ? (hd.last { $0.fromReport10 }?.silent ?? true) : (rumble.last?.silent ?? true) }
    /// Times of hapticd's reports that the pad plays (a Joy-Con: its own half).
    func activeTimes(_ from: Double, _ to: Double) -> [Double] {
        isSwitch ? hdPackets(from, to).filter(\.playing).map(\.time) : xboxReports(from, to).filter { !$0.silent }.map(\.time)
    }
    /// Whether hapticd's reports keep the pad rumbling from `from` to `to`.
    func rumblingThrough(_ from: Double, _ to: Double) -> Bool {
        if isSwitch {
            let ps = hd.filter { $0.fromReport10 && $0.time <= to }
            guard let inForce = ps.last(where: { $0.time <= from }), inForce.playing else { return false }
            return ps.allSatisfy { $0.time < from || $0.playing }
        }
        let rs = rumble.filter { $0.time <= to }
        guard let inForce = rs.last(where: { $0.time <= from }), !inForce.silent else { return false }
        return rs.allSatisfy { $0.time < from || !$0.silent }
    }
    var lastReportTime: Double { isSwitch ? (hd.last { $0.fromReport10 }?.time ?? 0) : (rumble.last?.time ?? 0) }
}

// MARK: hapticd

let args = CommandLine.arguments
guard args.count >= 3 else {
    print("usage: hidraw-vmtest HAPTICD TYPE:PROFILE...")
    exit(2)
}
let hapticd = args[1]
let pads = args.dropFirst(2).map { Pad(spec: $0) }
var daemonPID: pid_t = 0
var client: HapticClient!
var tracePath = "/tmp/hidraw-trace.csv"
let stallLog = StallLog()

/// Pads started by this program (the Switch Pro as a USB gadget, for the SDL comparison).
var extraPads: [Pad] = []

@MainActor func pollAll() { for p in pads + extraPads { p.poll() } }

@discardableResult
@MainActor func waitUntil(_ timeout: Double, _ done: () -> Bool) -> Bool { pollUntil(timeout, poll: pollAll, done) }

@MainActor func sleepFor(_ seconds: Double) { pollFor(seconds, poll: pollAll) }

/// The longest VM stall (stallmon) that overlapped `from…to`.
@MainActor func stall(from: Double, to: Double) -> Double? { stallLog.longest(from: from, to: to) }

/// Starts hapticd (`asUser`: through busybox su, as an unprivileged user) with `config` if given.
@MainActor func startDaemon(config: String? = nil, asUser: String? = nil, trace: String) -> Bool {
    tracePath = trace
    unlink(socketPath)
    var line = [hapticd, "--socket", socketPath, "--trace", trace, "--log-level", asUser == nil ? "warning" : "info"]
    if let config { line += ["--config", config] }
    var words = line
    if let asUser { words = ["/bin/su", asUser, "-c", "exec " + line.joined(separator: " ") + " 2>>/tmp/hapticd-\(asUser).log"] }
    guard let pid = spawn(words) else { return false }
    daemonPID = pid
    guard let c = answeringClient(at: socketPath) else { return false }
    client = c
    return true
}

@MainActor func stopDaemon(_ signal: Int32 = SIGTERM) -> Int32? {
    kill(daemonPID, signal)
    return waitForExit(daemonPID, timeout: 10, poll: {})
}

func number(_ v: JSONValue?) -> Double? {
    if case .number(let x)? = v { return x }
    return nil
}

func string(_ v: JSONValue?) -> String? {
    if case .string(let s)? = v { return s }
    return nil
}

func strings(_ v: JSONValue?) -> [String] {
    if case .array(let a)? = v { return a.compactMap { string($0) } }
    return []
}

@MainActor func matches(_ p: Pad, _ v: JSONValue) -> Bool {
    guard let name = string(v["name"]), let id = string(v["usb_id"]), let bus = number(v["bus"]) else { return false }
    if case .bool(false)? = v["connected"] { return false }
    return name == p.inputName && id == p.usbID && UInt16(bus) == p.bus
}

/// Finds every pad in `devices`; returns each pad's capabilities.
@MainActor func mapDevices(_ pads: [Pad] = pads) -> [String: JSONObject] {
    var list: [JSONValue] = []
    waitUntil(10) {
        guard let r = try? client.request("devices"), case .array(let l)? = r["devices"] else { return false }
        list = l
        return pads.allSatisfy { p in list.contains { matches(p, $0) } }
    }
    var caps: [String: JSONObject] = [:]
    for p in pads {
        guard let entry = list.first(where: { matches(p, $0) }), let d = number(entry["device"]) else {
            check(false, "hapticd finds \(p.type)", JSONWriter.write(.array(list)))
            p.device = -1
            continue
        }
        p.device = Int(d)
        p.node = string(entry["path"]) ?? ""
        if let c = try? client.request("capabilities", JSONObject(["device": .number(d)])) { caps[p.type] = c }
    }
    return caps
}

// MARK: playing

struct Started {
    var player: Int
    var sent: Double
    var engineTime: Double
}

@MainActor func play(_ pad: Pad, _ pattern: HapticPattern, locality: String? = nil, loop: Bool = false) -> Started? {
    var body = JSONObject(["device": .number(Double(pad.device)), "loop": .bool(loop), "pattern": AHAPWriter.json(pattern)])
    if let locality { body.append("locality", .string(locality)) }
    let sent = monotonicNow()
    guard let r = try? client.request("play", body) else { return nil }
    return Started(player: Int(number(r["player"]) ?? -1), sent: sent, engineTime: patternStart(r, fallback: sent))
}

@MainActor func constant(_ duration: Double, intensity: Double = 0.8, sharpness: Double = 0.5) -> HapticPattern {
    HapticPattern(elements: [.event(.continuous(at: 0, duration: duration, intensity: intensity, sharpness: sharpness))])
}

/// Plays and waits until the pattern is over and the pad at rest; returns the start and the end.
@MainActor func playThrough(_ pad: Pad, _ pattern: HapticPattern, locality: String? = nil) -> (Started, Double)? {
    waitUntil(2) { pad.atRest }
    guard let s = play(pad, pattern, locality: locality) else { return nil }
    let end = s.engineTime + CompiledPattern(pattern, profile: DeviceProfile.named(pad.expectedProfile) ?? .generic).renderEnd
    waitUntil(end - monotonicNow() + 3) { monotonicNow() > end + 0.1 && pad.atRest }
    sleepFor(0.1)
    return (s, monotonicNow())
}

func ms(_ x: Double?) -> String {
    guard let x else { return "-" }
    return "\((x * 10000).rounded() / 10)"
}

func near(_ a: Double, _ b: Double, ratio: Double) -> Bool { a > 0 && b > 0 && max(a / b, b / a) <= ratio }

/// The table amplitude (thousandths) a band of amplitude `x` (0…1) may legitimately be logged as: the
/// nearest table level, so within half the gap to its neighbours; a tolerance of 4 % or 12.
func nearAmplitude(_ logged: Int, _ x: Double) -> Bool { abs(Double(logged) - x * 1000) <= max(12, 0.04 * x * 1000) }

// MARK: the checks

/// `capabilities`: the backend, the node, the actuators and localities.
@MainActor func checkCapabilities(_ pad: Pad, _ c: JSONObject?) {
    guard let c else { return check(false, "\(pad.type): capabilities") }
    let node = string(c["hidraw_node"]) ?? ""
    let own = hidrawNodeOf(pad.hidID, inputName: pad.inputName) ?? "?"
    pad.hidrawNode = own
    pad.interval = number(c["minimum_update_interval"]) ?? 0
    check(string(c["backend"]) == "hidraw" && node == own && string(c["profile"]) == pad.expectedProfile,
          "\(pad.type): capabilities say backend hidraw on its own node \(own), profile \(pad.expectedProfile)",
          "backend \(string(c["backend"]) ?? "-") node \(node) profile \(string(c["profile"]) ?? "-") fallback \(string(c["backend_fallback"]) ?? "-")")
    let localities = strings(c["localities"]), unsupported = strings(c["unsupported_localities"])
    if let side = pad.joyCon {
        // One actuator: the handle it is, and the pad as a whole; the other handle and the triggers not.
        let all = ["default", "all", "handles", "leftHandle", "rightHandle", "triggers", "leftTrigger", "rightTrigger"]
        let want = ["default", "all", "handles", side == "left" ? "leftHandle" : "rightHandle"]
        let motors: Int = { if case .array(let m)? = c["motors"] { return m.count } else { return -1 } }()
        check(string(c["actuators"]) == "hd-rumble-\(side)" && Set(localities) == Set(want)
              && Set(unsupported) == Set(all.filter { !want.contains($0) }) && motors == 1,
              "\(pad.type): actuators hd-rumble-\(side), localities exactly \(want) (the rest unsupported), one motor",
              "actuators \(string(c["actuators"]) ?? "-") localities \(localities) unsupported \(unsupported) motors \(motors)")
    } else if pad.isSwitch {
        check(string(c["actuators"]) == "hd-rumble" && ["leftHandle", "rightHandle"].allSatisfy(localities.contains)
              && ["triggers", "leftTrigger", "rightTrigger"].allSatisfy(unsupported.contains),
              "\(pad.type): actuators hd-rumble, localities leftHandle/rightHandle, no triggers",
              "actuators \(string(c["actuators"]) ?? "-") localities \(localities) unsupported \(unsupported)")
    } else {
        check(string(c["actuators"]) == "rumble-and-triggers"
              && ["leftHandle", "rightHandle", "triggers", "leftTrigger", "rightTrigger"].allSatisfy(localities.contains),
              "\(pad.type): actuators rumble-and-triggers, localities handles and triggers",
              "actuators \(string(c["actuators"]) ?? "-") localities \(localities)")
    }
}

/// Steps of constant intensity and rising sharpness: a rising frequency sweep, band by band as
/// docs/rendering.md §13 says (fundamental 80·4^S Hz, high band 2f, amplitudes I(1−S) and I·S). On a
/// Joy-Con the sweep is judged on the half it plays, and both halves must carry the same bands.
@MainActor func sharpnessSweep(_ pad: Pad) {
    let steps = [0.0, 0.25, 0.5, 0.75, 1.0], step = 0.3, intensity = 0.8
    let pattern = HapticPattern(elements: steps.enumerated().map { k, s in
        .event(.continuous(at: Double(k) * step, duration: step, intensity: intensity, sharpness: s))
    })
    var fundamentals: [Double] = []
    var rows: [String] = []
    var bandsOK = true
    var halves: [HDPacket] = []
    for attempt in 1...3 {
        guard let (s, end) = playThrough(pad, pattern) else { return check(false, "\(pad.type): sharpness sweep: play") }
        halves = pad.hdPackets(s.sent, end)
        fundamentals = []
        rows = []
        bandsOK = true
        var missing = false
        for (k, sharp) in steps.enumerated() {
            // The middle of each step: past one pacing interval and the transport, before the next.
            let from = s.engineTime + Double(k) * step + pad.interval + 0.06, to = s.engineTime + Double(k + 1) * step - 0.02
            let ps = pad.hdPackets(from, to).filter(\.playing)
            guard let p = ps.last else {
                bandsOK = false
                missing = true
                rows.append("S=\(sharp): no packet in \(ms(from - s.engineTime))…\(ms(to - s.engineTime)) ms")
                continue
            }
            let f = 80 * exp2(2 * sharp)
            let ok = (pad.joyCon == nil ? [p.left, p.right] : [p.played]).allSatisfy { a in
                near(a.lf, f, ratio: 1.025) && near(a.hf, 2 * f, ratio: 1.025)
                    && nearAmplitude(a.la, intensity * (1 - sharp)) && nearAmplitude(a.ha, intensity * sharp)
            }
            bandsOK = bandsOK && ok
            fundamentals.append(p.played.lf)
            rows.append("S=\(sharp): left \(p.left.lf) Hz:\(p.left.la) / \(p.left.hf) Hz:\(p.left.ha), right \(p.right.lf):\(p.right.la) / \(p.right.hf):\(p.right.ha) (want \(Int(f)):\(Int(intensity * (1 - sharp) * 1000)) / \(Int(2 * f)):\(Int(intensity * sharp * 1000)))")
        }
        // A step with no packet in its window is a timing matter: retried when the VM stalled meanwhile.
        if missing, attempt < 3, let gap = stall(from: s.sent, to: end) {
            print("NOTE \(pad.type) sharpness sweep: the VM stalled for \(ms(gap)) ms: once more")
            continue
        }
        break
    }
    print("SWEEP \(pad.type)\n  " + rows.joined(separator: "\n  "))
    let on = pad.joyCon.map { "its actuator (the \($0) half, bytes \($0 == "left" ? "2–5" : "6–9"))" } ?? "both actuators"
    check(bandsOK, "\(pad.type): each sharpness step plays at 80·4^S Hz and 2f, amplitudes I(1−S) and I·S on \(on)",
          rows.joined(separator: "; "))
    if pad.joyCon != nil {
        let differing = halves.filter { !$0.halvesIdentical }
        check(!halves.isEmpty && differing.isEmpty,
              "\(pad.type): its one actuator is encoded identically in both halves of every report 0x10 (\(halves.count) packets)",
              "\(differing.count) differ, e.g. \(differing.first.map { "left \($0.left) right \($0.right)" } ?? "-")")
    }
    check(fundamentals.count == steps.count && zip(fundamentals, fundamentals.dropFirst()).allSatisfy { $0 < $1 },
          "\(pad.type): rising sharpness is a rising frequency sweep (\(fundamentals.map { Int($0) }) Hz)")

    // Intensity → amplitude at a constant sharpness 0.5 (160 and 320 Hz at I/2 each).
    let levels = [0.25, 0.5, 0.75, 1.0]
    let ramp = HapticPattern(elements: levels.enumerated().map { k, i in
        .event(.continuous(at: Double(k) * step, duration: step, intensity: i, sharpness: 0.5))
    })
    var amps: [String] = []
    var ampOK = true
    for attempt in 1...3 {
        guard let (r, end) = playThrough(pad, ramp) else { return check(false, "\(pad.type): intensity steps: play") }
        amps = []
        ampOK = true
        var missing = false
        for (k, i) in levels.enumerated() {
            let from = r.engineTime + Double(k) * step + pad.interval + 0.06, to = r.engineTime + Double(k + 1) * step - 0.02
            guard let p = pad.hdPackets(from, to).filter(\.playing).last else {
                ampOK = false
                missing = true
                amps.append("I=\(i): none")
                continue
            }
            let a = p.played
            ampOK = ampOK && nearAmplitude(a.la, i / 2) && nearAmplitude(a.ha, i / 2) && near(a.lf, 160, ratio: 1.025)
            amps.append("I=\(i): \(a.la)/\(a.ha)")
        }
        if missing, attempt < 3, let gap = stall(from: r.sent, to: end) {
            print("NOTE \(pad.type) intensity steps: the VM stalled for \(ms(gap)) ms: once more")
            continue
        }
        break
    }
    check(ampOK, "\(pad.type): intensity maps to amplitude through the table (S 0.5: both bands I/2: \(amps.joined(separator: ", ")))")

    // A continuous event under a SharpnessControl curve 0 → 1: the low band climbs 80 → 320 Hz.
    let curve = HapticPattern(elements: [
        .event(.continuous(at: 0, duration: 1.2, intensity: 0.8, sharpness: 0)),
        .curve(.init(.hapticSharpnessControl, at: 0, points: [.init(0, 0), .init(1.0, 1)])),
    ])
    guard let (c, end) = playThrough(pad, curve) else { return check(false, "\(pad.type): sharpness curve: play") }
    let fs = pad.hdPackets(c.sent, end).filter(\.playing).map(\.played.lf)
    let monotone = zip(fs, fs.dropFirst()).allSatisfy { $1 >= $0 }
    check(monotone && (fs.first ?? 999) < 90 && (fs.last ?? 0) > 300,
          "\(pad.type): a SharpnessControl curve 0→1 sweeps the low band upward, \(Int(fs.first ?? 0))→\(Int(fs.last ?? 0)) Hz in \(fs.count) packets",
          "\(fs.map { Int($0) })")
}

/// Transients at known times: each arrives within one pacing interval plus the VM's allowance.
@MainActor func rhythm(_ pad: Pad) {
    let times = (0..<8).map { Double($0) * 0.2 }
    let pattern = HapticPattern(elements: times.map { .event(.transient(at: $0, intensity: 1, sharpness: 0.6)) })
    let bound = pad.interval + tick + schedulingSlack + transportBound
    for attempt in 1...4 {
        guard let (s, end) = playThrough(pad, pattern) else { return check(false, "\(pad.type): rhythm: play") }
        let active = pad.activeTimes(s.sent, end)
        var lateness: [Double] = []
        for t in times {
            let due = s.engineTime + t
            if let a = active.first(where: { $0 >= due - 0.002 && $0 <= due + 0.18 }) { lateness.append(a - due) }
        }
        let ok = lateness.count == times.count && lateness.allSatisfy { $0 <= bound }
        if !ok, attempt < 4, let gap = stall(from: s.sent, to: end) {
            print("NOTE \(pad.type) rhythm: the VM stalled for \(ms(gap)) ms: once more")
            continue
        }
        if pad.isSwitch {
            // A transient plays at its sharpness' frequency: 80·4^0.6 ≈ 184 Hz low band.
            let bursts = pad.hdPackets(s.sent, end).filter(\.playing)
            let f = 80 * exp2(2 * 0.6)
            check(!bursts.isEmpty && bursts.allSatisfy { near($0.played.lf, f, ratio: 1.025) && near($0.played.hf, 2 * f, ratio: 1.025) },
                  "\(pad.type): transients play at their sharpness' frequency (\(Int(f)) Hz, \(Int(2 * f)) Hz)",
                  "\(bursts.map { "\($0.played.lf)/\($0.played.hf)" })")
        }
        check(ok, "\(pad.type): \(times.count) transients 200 ms apart each reach the pad within \(ms(bound)) ms (interval \(ms(pad.interval)) + tick + slack + transport): lateness \(lateness.map { ms($0) }) ms",
              "\(lateness.count) of \(times.count) arrived")
        pad.measures["onset_mean_ms"] = ms(lateness.isEmpty ? nil : lateness.reduce(0, +) / Double(lateness.count))
        pad.measures["onset_max_ms"] = ms(lateness.max())
        return
    }
}

/// Localities: on the Switch each handle is one actuator; on the Xbox the trigger localities move only
/// the trigger bytes, the handles only their motor; a Joy-Con is one handle, and the other is refused.
@MainActor func localities(_ pad: Pad) {
    if let side = pad.joyCon {
        let own = side == "left" ? "leftHandle" : "rightHandle", other = side == "left" ? "rightHandle" : "leftHandle"
        if let (s, end) = playThrough(pad, constant(0.4), locality: own) {
            let ps = pad.hdPackets(s.sent, end)
            check(ps.contains(where: \.playing) && ps.allSatisfy(\.halvesIdentical),
                  "\(pad.type): \(own) drives its actuator (\(ps.filter(\.playing).count) packets, both halves alike in all \(ps.count))",
                  ps.map { "\($0.left.la)/\($0.left.ha) \($0.right.la)/\($0.right.ha)" }.joined(separator: ", "))
        } else {
            check(false, "\(pad.type) \(own): play")
        }
        // The other handle: refused as the daemon reports it (capabilities' unsupported_localities),
        // and nothing moves — watched for as long as the pattern would have played.
        waitUntil(2) { pad.atRest }
        let t0 = monotonicNow()
        var code = "accepted"
        let body = JSONObject(["device": .number(Double(pad.device)), "locality": .string(other),
                               "pattern": AHAPWriter.json(constant(0.4))])
        do {
            _ = try client.request("play", body)
        } catch {
            if case .failed(let c, _, _) = error { code = c } else { code = "\(error)" }
        }
        let moved = waitUntil(0.6) { pad.hdPackets(t0, monotonicNow()).contains(where: \.playing) }
        check(code == "unsupported" && !moved,
              "\(pad.type): \(other) is refused as unsupported and moves nothing", "answer \(code), moved \(moved)")
        return
    }
    if pad.isSwitch {
        for (loc, leftOn) in [("leftHandle", true), ("rightHandle", false)] {
            guard let (s, end) = playThrough(pad, constant(0.4), locality: loc) else { check(false, "\(pad.type) \(loc): play"); continue }
            let ps = pad.hdPackets(s.sent, end)
            let other = ps.filter { leftOn ? !$0.rightSilent : !$0.leftSilent }
            let own = ps.filter { leftOn ? !$0.leftSilent : !$0.rightSilent }
            check(!own.isEmpty && other.isEmpty,
                  "\(pad.type): \(loc) drives only the \(leftOn ? "left" : "right") actuator (\(own.count) packets, the other silent in all \(ps.count))",
                  "\(other.count) packets move the other one")
        }
        return
    }
    let cases: [(String, (XboxReport) -> Bool, (XboxReport) -> Bool)] = [
        ("triggers", { $0.lt > 0 && $0.rt > 0 }, { $0.strong == 0 && $0.weak == 0 }),
        ("leftTrigger", { $0.lt > 0 }, { $0.rt == 0 && $0.strong == 0 && $0.weak == 0 }),
        ("rightTrigger", { $0.rt > 0 }, { $0.lt == 0 && $0.strong == 0 && $0.weak == 0 }),
        ("leftHandle", { $0.strong > 0 }, { $0.weak == 0 && $0.lt == 0 && $0.rt == 0 }),
        ("rightHandle", { $0.weak > 0 }, { $0.strong == 0 && $0.lt == 0 && $0.rt == 0 }),
    ]
    for (loc, moves, others) in cases {
        guard let (s, end) = playThrough(pad, constant(0.4), locality: loc) else { check(false, "\(pad.type) \(loc): play"); continue }
        let rs = pad.xboxReports(s.sent, end)
        let stray = rs.filter { !others($0) }
        check(rs.contains(where: moves) && stray.isEmpty,
              "\(pad.type): \(loc) moves only its motor(s) (\(rs.filter(moves).count) reports, e.g. \(rs.first(where: moves).map { "LT \($0.lt) RT \($0.rt) L \($0.strong) R \($0.weak)" } ?? "-"))",
              "stray \(stray.map { "LT \($0.lt) RT \($0.rt) L \($0.strong) R \($0.weak)" })")
    }
}

final class Presses: Sendable { let list = Mutex<[String]>([]) }

/// The GameController library reads the pad's input as Apple's framework gives it: the south face
/// button pressed on the pad (uhidpad, SIGHUP) is `extendedGamepad.buttonA`, pressed then released,
/// its handlers on the controller's `handlerQueue` — through the kernel's own driver and evdev
/// node, in this process (GamepadInput), while hapticd drives the pad's rumble. The left Joy-Con has
/// no face buttons: its press is the d-pad's down, `dpad.down`.
@MainActor func gameControllerInput(_ pad: Pad) {
    guard let controller = GCController.controllers().first(where: { $0.pad == pad.device }), let gamepad = controller.extendedGamepad else {
        return check(false, "\(pad.type): GCController.controllers() lists the pad, with an extended gamepad profile")
    }
    let queue = DispatchQueue(label: "vmtest.input")
    let onQueue = DispatchSpecificKey<Bool>()
    queue.setSpecific(key: onQueue, value: true)
    controller.handlerQueue = queue
    let presses = Presses()
    let (button, buttonName) = pad.joyCon == "left" ? (gamepad.dpad.down, "dpad.down") : (gamepad.buttonA, "buttonA")
    // @Sendable: a closure formed in this @MainActor function is main-actor isolated otherwise, and
    // Swift 6 traps when it runs on another queue (as it would on Apple's platforms).
    // A released d-pad direction reads -0.0 (GCInput's max(0, -y)): the same value as 0, so written as 0.
    button.pressedChangedHandler = { @Sendable _, value, pressed in
        presses.list.withLock { $0.append("\(pressed) \(value == 0 ? 0 : value) \(DispatchQueue.getSpecific(key: onQueue) == true)") }
    }
    let atRest = !gamepad.allButtons.contains { $0.isPressed } && !button.isPressed
    kill(pad.emulatorPID, SIGHUP)
    _ = waitUntil(3) { presses.list.withLock { $0.count } >= 2 }
    let seen = presses.list.withLock { $0 }
    button.pressedChangedHandler = nil
    check(atRest && seen == ["true 1.0 true", "false 0.0 true"],
          "\(pad.type): GameController's extendedGamepad.\(buttonName) is pressed and released as the pad's button is, its handler on the handler queue (kernel driver → evdev → this process)",
          "at rest \(atRest), seen \(seen)")
    // The profile's class is Apple's for the pad: the Xbox pad's a GCXboxGamepad, the Switch's the plain one.
    check(pad.isSwitch ? type(of: gamepad) == GCExtendedGamepad.self : gamepad is GCXboxGamepad,
          "\(pad.type): the extended gamepad is of the class Apple gives the pad", "\(type(of: gamepad))")
    // The battery hid-nintendo registered from the pad's reports (uhidpad's battery byte 0x8E: full);
    // the Xbox pad's driver registers none in this kernel (hid-microsoft; no hid-input battery for
    // the Series descriptor), and the pad then has no battery rather than an invented one.
    let battery = controller.battery
    let beside = "/sys/class/input/\((pad.node as NSString).lastPathComponent)/device/device/power_supply"
    let supplies = (try? FileManager.default.contentsOfDirectory(atPath: beside)) ?? []
    let reading = battery.map { "level \($0.batteryLevel), state \($0.batteryState)" } ?? "nil"
    if pad.isSwitch {
        check(battery?.batteryLevel == 1 && supplies.count == 1,
              "\(pad.type): GCController.battery is the power supply hid-nintendo registered, full as the pad reports it", "\(reading); \(supplies)")
    } else {
        check(battery == nil && supplies.isEmpty, "\(pad.type): no power supply beside the pad, no battery", "\(reading); \(supplies)")
    }
}

/// The kernel driver still delivers the pad's input: a button pressed on the pad (uhidpad, SIGHUP)
/// appears on its evdev node while hapticd drives the rumble through the hidraw node.
@MainActor func inputStillDelivered(_ pad: Pad) {
    let fd = open(pad.node, O_RDONLY | O_NONBLOCK)
    guard fd >= 0 else { return check(false, "\(pad.type): open \(pad.node) for input", "errno \(errno)") }
    defer { close(fd) }
    var buf = [UInt8](repeating: 0, count: 24 * 64)
    while read(fd, &buf, buf.count) > 0 {}
    guard let s = play(pad, constant(10, intensity: 0.7), loop: true) else { return check(false, "\(pad.type): input: play") }
    waitUntil(2) { !pad.atRest }
    sleepFor(0.2)
    let pressed = monotonicNow()
    kill(pad.emulatorPID, SIGHUP)
    // A Joy-Con's key as hid-nintendo reports it: the left one's d-pad down, the right one's B
    // (BTN_SOUTH); any key on the other pads.
    let key: UInt16? = pad.joyCon == "left" ? 0x221 : pad.joyCon == "right" ? 0x130 : nil
    var down = false, up = false
    let end = monotonicNow() + 3
    while monotonicNow() < end && !(down && up) {
        let n = read(fd, &buf, buf.count)
        if n > 0 {
            for k in stride(from: 0, to: n - 23, by: 24) {
                let type = UInt16(buf[k + 16]) | UInt16(buf[k + 17]) << 8
                let code = UInt16(buf[k + 18]) | UInt16(buf[k + 19]) << 8
                if let key, code != key { continue }
                let value = Int32(bitPattern: UInt32(buf[k + 20]) | UInt32(buf[k + 21]) << 8 | UInt32(buf[k + 22]) << 16 | UInt32(buf[k + 23]) << 24)
                if type == 1 && value == 1 { down = true }
                if type == 1 && value == 0 && down { up = true }
            }
        } else {
            usleep(5000)
        }
    }
    pollAll()
    // Rumbling throughout: the report in force at the press is not silent, nor any until now (a pad
    // without refresh, the Xbox, gets no new report while the value holds).
    let rumbling = pad.rumblingThrough(pressed, monotonicNow())
    check(down && up && rumbling,
          "\(pad.type): the kernel driver still delivers input: a button press and release reach \(pad.node) while hapticd keeps the pad rumbling through its hidraw node",
          "down \(down) up \(up) rumbling \(rumbling)")
    _ = try? client.request("player.stop", JSONObject(["player": .number(Double(s.player))]))
    waitUntil(2) { pad.atRest }
}

/// `player.stop` and `stop_all` end with a silent report through the hidraw node.
@MainActor func stops(_ pad: Pad) {
    for how in ["player.stop", "stop_all"] {
        guard let s = play(pad, constant(10), loop: true) else { check(false, "\(pad.type) \(how): play"); continue }
        waitUntil(2) { !pad.atRest }
        sleepFor(0.15)
        let t0 = monotonicNow()
        if how == "player.stop" {
            _ = try? client.request("player.stop", JSONObject(["player": .number(Double(s.player))]))
        } else {
            _ = try? client.request("stop_all")
        }
        // A behaviour, not a latency (those are measured above): room for a VM stall.
        let ok = waitUntil(5) { pad.atRest && pad.lastReportTime >= t0 }
        sleepFor(0.3)
        check(ok && pad.atRest, "\(pad.type): \(how) leaves the actuators silent (last report neutral, \(ms(pad.lastReportTime - t0)) ms)")
        pad.measures[how == "stop_all" ? "stop_all_ms" : "stop_ms"] = ms(ok ? pad.lastReportTime - t0 : nil)
    }
}

// MARK: command → first report and a 16 ms ramp (the hapticd side of the SDL comparison)

struct Command {
    var time: Double
    var level: Double
}

/// The pad's response to a sequence of commands: command → first non-silent report, and per ramp
/// step the lag until a report shows a stronger value than before the step.
struct Response {
    var firstReport: [Double] = []
    var rampLags: [Double] = []
    var rampLost = 0
    var lastLag: Double?
}

/// A strength measure of one report for comparing steps of a ramp (amplitudes or 0…100 values).
func strength(_ p: HDPacket) -> Int { p.left.la + p.left.ha + p.right.la + p.right.ha }
func strength(_ r: XboxReport) -> Int { r.strong + r.weak + r.lt + r.rt }

@MainActor func reports(_ pad: Pad, _ from: Double, _ to: Double, allIDs: Bool = false) -> [(Double, Int)] {
    if pad.isSwitch {
        return pad.hd.filter { ($0.fromReport10 || allIDs) && $0.time >= from && $0.time <= to }.map { ($0.time, strength($0)) }
    }
    return pad.rumble.filter { $0.time >= from && $0.time <= to }.map { ($0.time, strength($0)) }
}

func clicksResponse(_ cmds: [Command], _ rs: [(Double, Int)]) -> [Double] {
    cmds.filter { $0.level > 0 }.compactMap { c in rs.first { $0.0 >= c.time && $0.1 > 0 }.map { $0.0 - c.time } }
}

func rampResponse(_ cmds: [Command], _ rs: [(Double, Int)]) -> Response {
    var r = Response()
    let steps = cmds.filter { $0.level > 0 }
    for (k, c) in steps.enumerated() {
        let before = rs.last { $0.0 < c.time }?.1 ?? 0
        let limit = k + 1 < steps.count ? steps[k + 1].time + 0.2 : c.time + 0.5
        if let a = rs.first(where: { $0.0 >= c.time && $0.0 <= limit && $0.1 > before }) {
            r.rampLags.append(a.0 - c.time)
            if k == steps.count - 1 { r.lastLag = a.0 - c.time }
        } else {
            r.rampLost += 1
        }
    }
    return r
}

@MainActor func rumbleCommand(_ pad: Pad, _ level: Double, triggers: Bool = false) -> Command? {
    // The trigger motors: a `rumble` on the `triggers` locality, left trigger ← strong, right ← weak,
    // as SDL's SDL_GameControllerRumbleTriggers(left, right) (0/0 stops it).
    var body = JSONObject(["device": .number(Double(pad.device)), "strong": .number(level), "weak": .number(level * 0.67)])
    if triggers { body.append("locality", .string("triggers")) }
    if level > 0 { body.append("duration", .number(5)) }
    // Stamped as sdlrumble stamps SDL's call: its arguments made, just before the call.
    let t = monotonicNow()
    guard (try? client.request("rumble", body)) != nil else { return nil }
    return Command(time: t, level: level)
}

/// The benchmark's commands, sent by the caller's own way: 15 clicks (`click(0.75)`, 60 ms later
/// `click(0)`, 300 ms apart) and a 16 ms ramp (`step(k, level)` for 30 steps of 0.02 … 0.6, then
/// `stop()`); the pad's responses, and from hapticd's trace the clicks' command → write as the pad's
/// `<measure>_p50_ms` / `_p99_ms`.
@MainActor func clicksAndRamp(
    _ pad: Pad, measure: String, click: (Double) -> Command?, prepareRamp: () -> Void = {},
    step: (Int, Double) -> Command?, stop: () -> Void
) -> (clicks: [Double], ramp: Response) {
    var cmds: [Command] = []
    let t0 = monotonicNow()
    for _ in 0..<15 {
        if let c = click(0.75) { cmds.append(c) }
        sleepFor(0.06)
        if let c = click(0) { cmds.append(c) }
        sleepFor(0.24)
    }
    waitUntil(1) { pad.atRest }
    let clicks = clicksResponse(cmds, reports(pad, t0, monotonicNow()))
    // The same from hapticd's trace: command → its write (hapticd's own share of the latency).
    let traced = clicksResponse(cmds, traceWrites(pad.device).filter { $0.0 >= t0 }.map { ($0.0, $0.1 ? 1 : 0) })
    pad.measures["\(measure)_p50_ms"] = ms(percentile(of: traced, 50))
    pad.measures["\(measure)_p99_ms"] = ms(percentile(of: traced, 99))
    sleepFor(0.2)
    prepareRamp()
    var ramp: [Command] = []
    let r0 = monotonicNow()
    var next = r0
    for k in 1...30 {
        if let c = step(k, 0.02 * Double(k)) { ramp.append(c) }
        next += 0.016
        let wait = next - monotonicNow()
        if wait > 0 { usleep(UInt32(wait * 1e6)) }
    }
    sleepFor(0.3)
    stop()
    waitUntil(1) { pad.atRest }
    return (clicks, rampResponse(ramp, reports(pad, r0, monotonicNow())))
}

/// The benchmark as a C game sends it through libhapticd: `rumble` lines written as they are on a
/// connection of their own, each stamped just before its write; a click's reply read before the next
/// command, the ramp's at the end. `triggers`: on the trigger motors (`"locality":"triggers"`, as
/// SDL_GameControllerRumbleTriggers), steps included.
@MainActor func hapticdRawBenchmark(_ pad: Pad, triggers: Bool = false) -> (clicks: [Double], ramp: Response) {
    guard let raw = RawConnection(path: socketPath) else { return ([], Response()) }
    var id = 0
    func send(_ level: Double, wait: Bool) -> Command? {
        id += 1
        let line = rumbleLine(id: id, device: pad.device, strong: level, weak: level * 0.67, duration: level > 0 ? 5 : nil,
                              locality: triggers ? "triggers" : nil)
        guard let t = raw.send(line), !wait || raw.readReplies(1) == 1 else { return nil }
        return Command(time: t, level: level)
    }
    return clicksAndRamp(
        pad, measure: triggers ? "raw_triggers_cmd_to_write" : "raw_cmd_to_write", click: { send($0, wait: true) },
        step: { send($1, wait: false) },
        stop: {
            _ = send(0, wait: false)
            raw.readReplies(31)
        })
}

/// Clicks (60 ms on, 240 ms off) and a 16 ms ramp through hapticd's socket, as sdlrumble does through SDL.
@MainActor func hapticdBenchmark(_ pad: Pad, triggers: Bool = false) -> (clicks: [Double], ramp: Response) {
    guard triggers else {
        return clicksAndRamp(
            pad, measure: "cmd_to_write", click: { rumbleCommand(pad, $0) }, step: { rumbleCommand(pad, $1) },
            stop: { _ = rumbleCommand(pad, 0) })
    }
    // The trigger ramp: one looping player on `triggers`, made beforehand at intensity 1 under an
    // intensity control, started at the first step, its control set at each step after.
    var player = -1
    return clicksAndRamp(
        pad, measure: "triggers_cmd_to_write", click: { rumbleCommand(pad, $0, triggers: true) },
        prepareRamp: {
            var body = JSONObject(["device": .number(Double(pad.device)), "locality": .string("triggers"), "loop": .bool(true),
                                   "pattern": AHAPWriter.json(constant(5, intensity: 1))])
            if let r = try? client.request("player.create", body), let p = number(r["player"]) { player = Int(p) }
            body = JSONObject(["player": .number(Double(player)), "parameters": .object(JSONObject(["intensity": .number(0.02)]))])
            _ = try? client.request("player.send_parameters", body)
            sleepFor(0.1)
        },
        step: { k, level in
            let t = monotonicNow()
            let ok = k == 1
                ? (try? client.request("player.start", JSONObject(["player": .number(Double(player))]))) != nil
                : (try? client.request("player.send_parameters", JSONObject([
                    "player": .number(Double(player)), "parameters": .object(JSONObject(["intensity": .number(level)])),
                ]))) != nil
            return ok ? Command(time: t, level: level) : nil
        },
        stop: { _ = try? client.request("stop_all") })
}

/// hapticd's traced writes to a pad (the running daemon's trace): (time, non-zero).
var traceReaders: [String: LineTail] = [:]
@MainActor func traceWrites(_ device: Int) -> [(Double, Bool)] {
    let traceReader = traceReaders[tracePath] ?? LineTail(path: tracePath)
    traceReaders[tracePath] = traceReader
    traceReader.poll()
    return traceReader.lines.compactMap { line in
        let c = line.split(separator: ",")
        guard c.count >= 4, let t = Double(c[0]), Int(c[1]) == device else { return nil }
        return (t, c.dropFirst(2).contains { $0 != "0" })
    }
}

// MARK: SDL2's HIDAPI path (sdlrumble)

var lastSDLError = ""

/// Runs /bin/sdlrumble against the pad; returns its commands and the path SDL opened, or nil.
@MainActor func sdlRun(_ pad: Pad, _ mode: String) -> (cmds: [Command], path: String, note: String)? {
    let log = "/tmp/sdl-\(pad.type)-\(mode).log"
    unlink(log)
    let vidpid = pad.usbID.split(separator: ":")
    let words = ["/bin/sdlrumble", "--vid", String(vidpid.first ?? ""), "--pid", String(vidpid.last ?? ""), "--path", pad.hidrawNode,
                 "--mode", mode, "--log", log]
    guard let pid = spawn(words) else { return nil }
    let status = waitForExit(pid, timeout: 60, poll: pollAll) ?? -1
    let tail = LineTail(path: log)
    tail.poll()
    var cmds: [Command] = []
    var path = "", note = ""
    for line in tail.lines {
        let w = line.split(separator: " ").map(String.init)
        guard w.count >= 3, let t = Double(w[0]) else { continue }
        if w[1] == "CMD", let l = Double(w[2].dropFirst("level=".count)) { cmds.append(Command(time: t, level: l)) }
        if w[1] == "OPENED" { path = w.dropFirst(2).joined(separator: " ") }
        if w[1] == "ERROR" || w[1] == "NOTE" { note += w.dropFirst(2).joined(separator: " ") + "; " }
    }
    guard status == 0 else {
        lastSDLError = tail.lines.last { $0.contains(" ERROR ") }.map { String($0.split(separator: " ").dropFirst(2).joined(separator: " ")) } ?? "exit status \(status)"
        print("NOTE sdlrumble \(pad.type) \(mode): exit status \(status): \(tail.lines.suffix(6).joined(separator: " | "))")
        return nil
    }
    return (cmds, path, note)
}

// MARK: run

_ = nice(5)
pollAll()
var uts = utsname()
uname(&uts)
let release = withUnsafeBytes(of: uts.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }

// 1. hapticd as root, backend auto: every pad through its hidraw node.
guard startDaemon(trace: "/tmp/hidraw-trace.csv") else {
    check(false, "hapticd starts and answers")
    finish("hidraw-vmtest")
}
check(true, "hapticd starts and answers (backend auto)")
let caps = mapDevices()
for pad in pads where pad.device >= 0 { checkCapabilities(pad, caps[pad.type]) }

var bench: [String: (clicks: [Double], ramp: Response)] = [:]
var benchRaw: [String: (clicks: [Double], ramp: Response)] = [:]
var benchTriggers: [String: (clicks: [Double], ramp: Response)] = [:]
var benchRawTriggers: [String: (clicks: [Double], ramp: Response)] = [:]
for pad in pads where pad.device >= 0 {
    let begin = monotonicNow()
    if pad.isSwitch { sharpnessSweep(pad) }
    rhythm(pad)
    localities(pad)
    inputStillDelivered(pad)
    gameControllerInput(pad)
    stops(pad)
    bench[pad.type] = hapticdBenchmark(pad)
    benchRaw[pad.type] = hapticdRawBenchmark(pad)
    if !pad.isSwitch {
        benchTriggers[pad.type] = hapticdBenchmark(pad, triggers: true)
        benchRawTriggers[pad.type] = hapticdRawBenchmark(pad, triggers: true)
    }
    print("pad \(pad.type): \(Int((monotonicNow() - begin) * 1000)) ms")
}

// hapticd's trace: it wrote four channels for these pads (time,device,strong,weak,third,fourth).
let traceTail = LineTail(path: "/tmp/hidraw-trace.csv")
traceTail.poll()
check(traceTail.lines.contains { $0.split(separator: ",").count == 6 }, "hapticd's trace has the four channels of the hidraw pads",
      traceTail.lines.suffix(3).joined(separator: " | "))

// 2. Shutdown mid-rumble: every actuator silent through the same node.
for pad in pads where pad.device >= 0 { _ = play(pad, constant(10), loop: true) }
waitUntil(3) { pads.allSatisfy { $0.device < 0 || !$0.atRest } }
sleepFor(0.1)
let term = monotonicNow()
let status = stopDaemon()
check(status.map { $0 == 0 } ?? false, "SIGTERM: hapticd exits 0", "status \(String(describing: status))")
waitUntil(5) { pads.allSatisfy { $0.atRest && $0.lastReportTime >= term } }
for pad in pads where pad.device >= 0 {
    // The first silent report after the signal (the motors off, hapticd's first act) and the last
    // (its release of the node).
    let firstSilent = pad.isSwitch ? pad.hd.first { $0.fromReport10 && $0.time >= term && !$0.playing }?.time
        : pad.rumble.first { $0.time >= term && $0.silent }?.time
    check(pad.atRest && pad.lastReportTime >= term,
          "\(pad.type): SIGTERM of hapticd mid-rumble ends with a silent report (the first \(ms(firstSilent.map { $0 - term })) ms after the signal, the last \(ms(pad.lastReportTime - term)) ms)")
}

// 3. Fallback: hapticd as an unprivileged user who may open the evdev nodes and every hidraw node but
// the Switch Pro USB pad's, the left Joy-Con's and the grip's right Joy-Con's: those fall back to
// evdev, with the reason, and still rumble.
/// The evdev profile each denied pad falls back to (the grip's right Joy-Con: hid-nintendo over USB).
let deniedProfiles = ["switch-pro-usb": "switch-pro-usb", "joycon-l-bt": "joycon-left-bluetooth", "joycon-r-grip": "joycon-right-usb"]
for pad in pads {
    chmod(pad.node, 0o666)
    if !pad.hidrawNode.isEmpty { chmod(pad.hidrawNode, deniedProfiles[pad.type] != nil ? 0 : 0o666) }
}
if startDaemon(asUser: "hapticd", trace: "/tmp/hidraw-trace-user.csv") {
    let c2 = mapDevices()
    for pad in pads where pad.device >= 0 {
        let c = c2[pad.type]
        if let fallback = deniedProfiles[pad.type] {
            let why = string(c?["backend_fallback"]) ?? ""
            check(string(c?["backend"]) == "evdev" && why.contains("permission") && string(c?["profile"]) == fallback,
                  "\(pad.type): its hidraw node unreadable, capabilities say evdev, profile \(fallback), because \"\(why)\"",
                  "backend \(string(c?["backend"]) ?? "-") profile \(string(c?["profile"]) ?? "-")")
            // Through evdev hid-nintendo sends the rumble (its own packets: RUMBLE strong/weak, the
            // strong magnitude in the left half): a Joy-Con must get it in the half it plays.
            let own: (XboxReport) -> Bool = pad.joyCon == "left" ? { $0.strong > 0 } : pad.joyCon == "right" ? { $0.weak > 0 } : { $0.strong > 0 || $0.weak > 0 }
            let n = pad.rumble.count
            let t0 = monotonicNow()
            guard let s = play(pad, constant(10, intensity: 0.8), loop: true) else { check(false, "fallback play"); continue }
            let moved = waitUntil(3) { pad.rumble.dropFirst(n).contains(where: own) }
            _ = try? client.request("player.stop", JSONObject(["player": .number(Double(s.player))]))
            let quiet = waitUntil(3) { (pad.rumble.last.map { $0.strong == 0 && $0.weak == 0 } ?? false) }
            sleepFor(0.3)
            let which = pad.joyCon.map { " in its own (\($0)) half" } ?? ""
            check(moved && quiet && pad.rumble.last.map { $0.strong == 0 && $0.weak == 0 } == true,
                  "\(pad.type): through the evdev fallback the pad rumbles\(which) (hid-nintendo's reports) and the stop silences it",
                  "moved \(moved) quiet \(quiet) since \(ms(monotonicNow() - t0)); \(pad.rumble.dropFirst(n).prefix(4).map { "\($0.strong)/\($0.weak)" })")
        } else {
            check(string(c?["backend"]) == "hidraw", "\(pad.type): as an unprivileged user with its node readable it keeps hidraw",
                  "backend \(string(c?["backend"]) ?? "-") fallback \(string(c?["backend_fallback"]) ?? "-")")
        }
    }
    _ = stopDaemon()
} else {
    let log = LineTail(path: "/tmp/hapticd-hapticd.log")
    log.poll()
    check(false, "hapticd starts as an unprivileged user", log.lines.suffix(5).joined(separator: " | "))
}
for pad in pads where !pad.hidrawNode.isEmpty { chmod(pad.hidrawNode, 0o600) }

// 4. Config backend = "evdev": every pad through evdev, each saying why; the Xbox rumbles through
// hid-microsoft, and its stop silences it.
if let f = fopen("/tmp/hapticd-evdev.toml", "w") {
    fputs("[devices]\nbackend = \"evdev\"\n", f)
    fclose(f)
}
if startDaemon(config: "/tmp/hapticd-evdev.toml", trace: "/tmp/hidraw-trace-evdev.csv") {
    let c3 = mapDevices()
    for pad in pads where pad.device >= 0 {
        let c = c3[pad.type]
        let why = string(c?["backend_fallback"]) ?? ""
        if let side = pad.joyCon {
            // A Joy-Con's evdev profile is its own (hid-nintendo's FF_RUMBLE, paced as the Pro on the same link).
            let profile = "joycon-\(side)-\(pad.bus == 0x03 ? "usb" : "bluetooth")"
            check(string(c?["backend"]) == "evdev" && why.contains("evdev") && string(c?["profile"]) == profile,
                  "\(pad.type): [devices] backend = \"evdev\": capabilities say evdev (\"\(why)\"), profile \(profile)",
                  "backend \(string(c?["backend"]) ?? "-") profile \(string(c?["profile"]) ?? "-") actuators \(string(c?["actuators"]) ?? "-")")
            continue
        }
        check(string(c?["backend"]) == "evdev" && why.contains("evdev") && string(c?["actuators"]) == "rumble",
              "\(pad.type): [devices] backend = \"evdev\": capabilities say evdev (\"\(why)\"), two motors",
              "backend \(string(c?["backend"]) ?? "-") actuators \(string(c?["actuators"]) ?? "-")")
    }
    if let xbox = pads.first(where: { !$0.isSwitch && $0.device >= 0 }) {
        let n = xbox.rumble.count
        if let s = play(xbox, constant(10, intensity: 0.8), loop: true) {
            let moved = waitUntil(3) { xbox.rumble.dropFirst(n).contains { $0.strong > 0 || $0.weak > 0 } }
            _ = try? client.request("player.stop", JSONObject(["player": .number(Double(s.player))]))
            waitUntil(3) { xbox.rumble.last?.silent ?? false }
            sleepFor(0.3)
            let triggersMoved = xbox.rumble.dropFirst(n).contains { $0.lt > 0 || $0.rt > 0 }
            check(moved && !triggersMoved && xbox.rumble.last?.silent == true,
                  "\(xbox.type): through evdev (hid-microsoft) the handles rumble, the triggers never move, the stop silences it")
        }
    }
    _ = stopDaemon()
} else {
    check(false, "hapticd starts with backend = \"evdev\"")
}

// 5. The Switch Pro over USB again, on a real USB stack: SDL 2.26's hidapi does not list a uhid pad on
// the USB bus (its hidraw node has no USB device parent in sysfs), so the uhid pad gives way to the
// same emulation as a USB HID gadget on dummy_hcd (uhidpad --transport hidg), which usbhid and
// hid-nintendo bind like a plugged-in pad; hapticd and SDL are both measured on it.
var gadgetPID: pid_t = 0
// The charging grip's Joy-Cons are uhid pads on the USB bus, which SDL 2.26's hidapi does not list
// (below): hapticd alone is measured on them.
var sdlPads = pads.filter { $0.device >= 0 && !$0.type.hasSuffix("-grip") }
if let usb = pads.first(where: { $0.type == "switch-pro-usb" }) {
    kill(usb.emulatorPID, SIGTERM)
    let gone = waitUntil(5) { hidrawNodeOf(usb.hidID) == nil }
    let gadget = Pad(spec: "switch-pro-usbg:switch-pro-usb-hd")
    let words = ["/bin/uhidpad", "--type", "switch-pro-usb", "--transport", "hidg", "--log", "\(padDirectory)/switch-pro-usbg.log"]
    let started = spawn(words)
    let spawned = started != nil
    if let started { gadgetPID = started }
    extraPads.append(gadget)
    var node: String?
    let up = spawned && gone && waitUntil(20) {
        node = gadget.hidID.isEmpty ? nil : hidrawNodeOf(gadget.hidID)
        return node != nil && !gadget.inputName.isEmpty && gadget.tail.lines.contains { $0.contains("subcmd=0x30") || $0.contains("subcmd=0x03") }
    }
    if up, let node {
        sleepFor(1)
        gadget.hidrawNode = node
        var link = [CChar](repeating: 0, count: 512)
        let n = readlink("/sys/class/hidraw/\(node.split(separator: "/").last!)", &link, link.count - 1)
        let sysPath = n > 0 ? String(decoding: link[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        print("NOTE the Switch Pro as a USB gadget: \(node) at \(sysPath)")
        if startDaemon(trace: "/tmp/hidraw-trace-usbg.csv") {
            let cg = mapDevices([gadget])
            if gadget.device >= 0 {
                let c = cg[gadget.type]
                check(string(c?["backend"]) == "hidraw" && string(c?["hidraw_node"]) == node,
                      "switch-pro-usb as a USB gadget (usbhid on dummy_hcd): hapticd drives it through its hidraw node \(node)",
                      "backend \(string(c?["backend"]) ?? "-") node \(string(c?["hidraw_node"]) ?? "-") fallback \(string(c?["backend_fallback"]) ?? "-")")
                gadget.interval = number(c?["minimum_update_interval"]) ?? 0
                bench[gadget.type] = hapticdBenchmark(gadget)
                benchRaw[gadget.type] = hapticdRawBenchmark(gadget)
            }
            _ = stopDaemon()
        }
        sdlPads = sdlPads.map { $0 === usb ? gadget : $0 }
    } else {
        print("NOTE the Switch Pro as a USB gadget did not come up (spawned \(spawned), uhid pad gone \(gone)): \(gadget.tail.lines.suffix(6).joined(separator: " | "))")
    }
}

// 6. SDL2's HIDAPI path on the same pads (hapticd stopped: one writer at a time).
var table: [String] = []
func cell(_ s: String, _ w: Int) -> String { s.count >= w ? s + " " : s + String(repeating: " ", count: w - s.count) }
func row(_ pad: String, _ who: String, _ clicks: [Double], _ r: Response?, _ note: String = "") -> String {
    cell(pad, 16) + cell(who, 22) + cell("\(ms(percentile(of: clicks, 50)))/\(ms(percentile(of: clicks, 99))) (n=\(clicks.count))", 22)
        + cell(r.map { "\(ms(percentile(of: $0.rampLags, 50)))/\(ms($0.rampLags.max()))" } ?? "-", 16)
        + cell(r.map { "\($0.rampLost)" } ?? "-", 6) + cell(ms(r?.lastLag), 8) + note
}
table.append(cell("pad", 16) + cell("path", 22) + cell("cmd→report p50/p99", 22) + cell("ramp lag p50/max", 16) + cell("lost", 6) + cell("last", 8))
for pad in sdlPads {
    if let h = bench[pad.type] { table.append(row(pad.type, "hapticd hidraw", h.clicks, h.ramp)) }
    if let h = benchRaw[pad.type] { table.append(row(pad.type, "hapticd hidraw, raw", h.clicks, h.ramp)) }
    if let h = benchTriggers[pad.type] { table.append(row(pad.type, "hapticd triggers", h.clicks, h.ramp)) }
    if let h = benchRawTriggers[pad.type] { table.append(row(pad.type, "hapticd triggers, raw", h.clicks, h.ramp)) }
    for mode in pad.isSwitch ? ["rumble"] : ["rumble", "triggers"] {
        let t0 = monotonicNow()
        guard let run = sdlRun(pad, mode) else {
            table.append(row(pad.type, "SDL \(mode)", [], nil, "not measured: \(lastSDLError)"))
            continue
        }
        pollAll()
        let all = reports(pad, t0, monotonicNow(), allIDs: true)
        let split = run.cmds.firstIndex { $0.level == -1 } ?? run.cmds.count
        let clickCmds = Array(run.cmds[..<split]), rampCmds = Array(run.cmds[min(split + 1, run.cmds.count)...])
        let clicks = clicksResponse(clickCmds, all)
        let ramp = rampResponse(rampCmds, all)
        table.append(row(pad.type, "SDL \(mode)", clicks, rampCmds.isEmpty ? nil : ramp, "\(run.path) \(run.note)"))
        print("MEASURE-SDL pad=\(pad.type) mode=\(mode) opened=\(run.path.isEmpty ? "-" : run.path) commands=\(run.cmds.count) clicks=\(clicks.count)")
    }
}
print("MEASURE-KERNEL \(release)")
for pad in pads + extraPads {
    print("MEASURE-HIDRAW pad=\(pad.type) interval_ms=\(ms(pad.interval)) " + pad.measures.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
}
if gadgetPID > 0 {
    kill(gadgetPID, SIGTERM)
    var st: Int32 = 0
    _ = waitpid(gadgetPID, &st, 0)
}
print("SDL-vs-hapticd (ms; switch-pro-usbg: the Switch Pro as a USB HID gadget on dummy_hcd; joycon-*: single Joy-Cons, SDL's uncombined mini-gamepads; clicks: 60 ms at 0.75 every 300 ms; ramp: 30 steps 16 ms apart, lag until a stronger report; last: the final step)")
for line in table { print("  " + line) }
finish("hidraw-vmtest")
