import Glibc

/// Shared by the programs that run inside the test VM: PASS/FAIL reporting and reading the fixture
/// pad's log (every upload, play, stop, erase and gain it received, time-stamped).
@MainActor public var passed = 0
@MainActor public var failed = 0

@MainActor public func check(_ ok: Bool, _ name: String, _ detail: @autoclosure () -> String = "") {
    if ok {
        passed += 1
        print("PASS \(name)")
    } else {
        failed += 1
        print("FAIL \(name) \(detail())")
    }
}

@MainActor public func finish(_ program: String) -> Never {
    print("\(program): \(passed) passed, \(failed) failed")
    exit(failed == 0 ? 0 : 1)
}

/// One line of the pad's log, split into its event and key=value fields.
public struct PadEntry: CustomStringConvertible, Sendable {
    public var time: Double
    public var event: String
    public var fields: [String: String]
    public var description: String { "\(event) \(fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))" }
    public func int(_ key: String) -> Int? { fields[key].flatMap { Int($0) } }
}

public struct PadLog: Sendable {
    public let path: String
    public init(path: String) { self.path = path }

    public func read() -> [PadEntry] {
        guard let f = fopen(path, "r") else { return [] }
        defer { fclose(f) }
        var entries: [PadEntry] = []
        var line: UnsafeMutablePointer<CChar>?
        var cap = 0
        while getline(&line, &cap, f) > 0 {
            let parts = String(cString: line!).split(separator: " ").map { String($0.filter { $0 != "\n" }) }
            guard parts.count >= 2, let t = Double(parts[0]) else { continue }
            var fields: [String: String] = [:]
            for p in parts.dropFirst(2) {
                if let eq = p.firstIndex(of: "=") { fields[String(p[..<eq])] = String(p[p.index(after: eq)...]) }
            }
            entries.append(PadEntry(time: t, event: parts[1], fields: fields))
        }
        free(line)
        return entries
    }

    /// Waits (bounded) until the log holds entries after `start` that satisfy `done`: plays and stops
    /// reach the pad asynchronously, so tests synchronise on the log itself, never on a fixed sleep.
    public func wait(from start: Int, timeout: Double = 5, until done: ([PadEntry]) -> Bool) -> [PadEntry] {
        var entries = Array(read().dropFirst(start))
        var waited = 0.0
        while !done(entries) && waited < timeout {
            usleep(2000)
            waited += 0.002
            entries = Array(read().dropFirst(start))
        }
        return entries
    }

    public func wait(from start: Int, count: Int, timeout: Double = 5) -> [PadEntry] {
        wait(from: start, timeout: timeout) { $0.count >= count }
    }
}

/// The motor state a log implies: running after a PLAY with value > 0, stopped after a stop, erase
/// or unplug.
public func motorRunning(_ entries: [PadEntry]) -> Bool {
    // Running: the effect plays with magnitudes that are not both zero. (An effect playing zeros is
    // how hapticd re-sends zero after a stop on profiles that settle: docs/devices.md.)
    var playing = false
    var magnitude = false
    for e in entries {
        if e.event == "UPLOAD" { magnitude = (e.int("strong") ?? 0) != 0 || (e.int("weak") ?? 0) != 0 }
        if e.event == "PLAY" { playing = e.fields["value"] != "0" }
        if e.event == "ERASE" || e.event == "DESTROYED" { playing = false }
    }
    return playing && magnitude
}

/// Whether a profile's settling zero (zeros uploaded to the stopped effect, then played) came after
/// the last stop: the pad is quiet for good (docs/devices.md, "ff-memless loses an update").
public func settledAfterStop(_ entries: [PadEntry]) -> Bool {
    guard let stop = entries.lastIndex(where: { $0.event == "PLAY" && $0.fields["value"] == "0" }) else { return false }
    let after = entries[(stop + 1)...]
    return after.contains { $0.event == "UPLOAD" && $0.int("strong") == 0 && $0.int("weak") == 0 }
        && after.contains { $0.event == "PLAY" && $0.fields["value"] == "1" }
}

/// CLOCK_MONOTONIC in seconds: the clock the fixtures stamp their logs with and hapticd's traces use.
public func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Reads a growing text file line by line, only what was appended since the last call: cheap enough to
/// poll every few milliseconds inside the VM (one CPU, shared with what is being measured).
public final class LineTail {
    public let path: String
    private var file: UnsafeMutablePointer<FILE>?
    private var partial = ""
    public private(set) var lines: [String] = []

    public init(path: String) { self.path = path }
    deinit { if let f = file { fclose(f) } }

    /// Appends the complete lines written since the last call to `lines`; returns how many came.
    @discardableResult
    public func poll() -> Int {
        if file == nil { file = fopen(path, "r") }
        guard let f = file else { return 0 }
        clearerr(f)
        var buffer = [CChar](repeating: 0, count: 4096)
        let before = lines.count
        while fgets(&buffer, Int32(buffer.count), f) != nil {
            let chunk = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if chunk.hasSuffix("\n") {
                lines.append(partial + String(chunk.dropLast()))
                partial = ""
            } else {
                partial += chunk
            }
        }
        return lines.count - before
    }
}

/// The `p`-th percentile (0…100) of the values, nearest rank; nil when empty.
public func percentile(of values: [Double], _ p: Double) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank - 1, 0), sorted.count - 1)]
}

// MARK: the update method (issue 26 §2): play after every upload, or update the playing effect in place

/// What one way of writing a ramp of values (`bareclient --method update|play`) got at the pad.
public struct MethodStats: Sendable {
    /// Command → the first report carrying its value, per value that arrived (not across a VM stall).
    public var reach: [Double] = []
    /// Reports the pad received while the ramp ran (first command … last command + one period).
    public var reports = 0
    /// Values the pad could tell apart from the one before.
    public var values = 0
    /// Values that never reached the pad (a newer one overtook them), and values left out of the
    /// judgement because the VM stood still between them and the next.
    public var lost = 0
    public var excused = 0
    public init() {}
    public var reportsPerValue: Double? { values > 0 ? Double(reports) / Double(values) : nil }
}

/// Judges a ramp of commands (their times and the levels the pad should report, in order; zero
/// commands left out) against the pad's reports. `stalled(from, to)`: the VM stood still meanwhile.
public func methodStats<L: Equatable>(
    commands: [(time: Double, level: L)], reports: [(time: Double, level: L)], period: Double,
    stalled: (Double, Double) -> Bool
) -> MethodStats {
    var s = MethodStats()
    guard let first = commands.first, let last = commands.last else { return s }
    s.reports = reports.filter { $0.time >= first.time && $0.time < last.time + period }.count
    var previous: L?
    for (i, c) in commands.enumerated() {
        defer { previous = c.level }
        guard c.level != previous else { continue }
        let next = i + 1 < commands.count ? commands[i + 1].time : c.time + period
        if let r = reports.first(where: { $0.time >= c.time && $0.level == c.level && $0.time <= last.time + 1 }) {
            s.values += 1
            if !stalled(c.time, r.time) { s.reach.append(r.time - c.time) }
        } else if stalled(c.time, next + 0.005) {
            s.excused += 1
        } else {
            s.values += 1
            s.lost += 1
        }
    }
    return s
}

/// One row of the method table: a pad, the period of the ramp, and what each method got.
public func methodRow(pad: String, driver: String, period: Double, update: MethodStats?, play: MethodStats?,
                      playNoLength: MethodStats? = nil) -> String {
    func ms(_ x: Double?) -> String { x.map { "\(($0 * 10000).rounded() / 10)" } ?? "-" }
    func cell(_ s: String, _ width: Int) -> String { s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count) }
    func half(_ m: MethodStats?) -> String {
        guard let m else { return cell("-", 33) }
        return cell("\(ms(percentile(of: m.reach, 50)))/\(ms(percentile(of: m.reach, 90)))", 12)
            + cell(m.reportsPerValue.map { "\(($0 * 100).rounded() / 100)" } ?? "-", 8)
            + cell("\(m.lost)/\(m.values)" + (m.excused > 0 ? "+\(m.excused)" : ""), 13)
    }
    return "METHOD " + cell(pad, 16) + cell(driver, 12) + cell(ms(period), 6) + half(update) + half(play) + half(playNoLength)
}

/// The ways `methodRow` compares, as `bareclient` arguments: an update in place and a play after
/// every upload, both with hapticd's `replay.length` (65535 ms, SDL's too), and a play of an effect
/// without a length (0: what hapticd uploaded until 2026-11-26 — ff-memless sends every such play
/// twice).
public let methodVariants: [(name: String, args: [String])] = [
    ("update", ["--method", "update", "--length", "65535"]),
    ("play", ["--method", "play", "--length", "65535"]),
    ("play-length-0", ["--method", "play", "--length", "0"]),
]

public func methodHeader() -> String {
    func cell(_ s: String, _ width: Int) -> String { s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count) }
    return "METHOD " + cell("pad", 16) + cell("driver", 12) + cell("every", 6)
        + cell("update: reach p50/p90", 12 + 8 + 13) + cell("play: reach p50/p90 ms, reports/value, lost/values(+excused)", 12 + 8 + 13)
        + "play, length 0"
}

/// The stall monitor's log (`stallmon`): when the whole VM stood still (host load), which excuses a
/// late timing and says nothing about hapticd, the driver or the pad. Parsed as it grows.
public final class StallLog {
    private let tail: LineTail
    /// Each stall: (stood still from, woke at), in the order logged.
    public private(set) var stalls: [(from: Double, woke: Double)] = []
    private var parsed = 0

    public init(path: String = "/tmp/stalls.log") { tail = LineTail(path: path) }

    /// The longest stall that overlapped `from…to`, if any.
    public func longest(from: Double, to: Double) -> Double? {
        tail.poll()
        while parsed < tail.lines.count {
            let words = tail.lines[parsed].split(separator: " ")
            parsed += 1
            guard words.count > 2, words[1] == "STALL", let woke = Double(words[0]),
                  let startWord = words.first(where: { $0.hasPrefix("from=") }), let start = Double(startWord.dropFirst(5)) else { continue }
            stalls.append((start, woke))
        }
        var longest: Double?
        for (start, woke) in stalls.reversed() {
            if woke < from - 1 { break }
            if woke >= from && start <= to { longest = max(longest ?? 0, woke - start) }
        }
        return longest
    }
}

/// Calls `poll` (read the logs), then checks `done`, every 5 ms until it holds or `timeout` seconds
/// pass; true if it held.
@discardableResult
public func pollUntil(_ timeout: Double, poll: () -> Void, _ done: () -> Bool) -> Bool {
    let end = monotonicNow() + timeout
    while true {
        poll()
        if done() { return true }
        if monotonicNow() > end { return false }
        usleep(5000)
    }
}

/// Tries `attempt` every 10 ms until it gives a value or `timeout` seconds pass (a daemon coming
/// up: connect and ping); the value, or nil.
public func firstValue<T>(within timeout: Double, _ attempt: () -> T?) -> T? {
    let end = monotonicNow() + timeout
    while true {
        if let value = attempt() { return value }
        if monotonicNow() > end { return nil }
        usleep(10_000)
    }
}

/// Lets `seconds` pass, then reads the logs once (`poll`).
public func pollFor(_ seconds: Double, poll: () -> Void) {
    let end = monotonicNow() + seconds
    while monotonicNow() < end { usleep(5000) }
    poll()
}

/// Starts `words[0]` (an absolute path) with the rest as its arguments and this process's
/// environment; its pid, or nil when it could not be started.
public func spawn(_ words: [String]) -> pid_t? {
    guard !words.isEmpty else { return nil }
    var pid: pid_t = 0
    var cargs: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) }
    cargs.append(nil)
    defer { for p in cargs { free(p) } }
    guard posix_spawn(&pid, words[0], nil, nil, &cargs, environ) == 0 else { return nil }
    return pid
}

/// Waits up to `timeout` seconds for `pid` to exit, reading the logs (`poll`) meanwhile; its wait
/// status, or nil when it was still running (it is then killed and reaped).
public func waitForExit(_ pid: pid_t, timeout: Double, poll: () -> Void) -> Int32? {
    var status: Int32 = 0
    let end = monotonicNow() + timeout
    while monotonicNow() < end {
        poll()
        if waitpid(pid, &status, WNOHANG) == pid { return status }
        usleep(5000)
    }
    kill(pid, SIGKILL)
    _ = waitpid(pid, &status, 0)
    return nil
}

/// The hidraw node (/dev/hidrawN) of the HID device `hidID` (BBBB:VVVV:PPPP), from sysfs.
public func hidrawNodeOf(_ hidID: String, inputName: String? = nil) -> String? {
    guard let dir = opendir("/sys/class/hidraw") else { return nil }
    defer { closedir(dir) }
    while let e = readdir(dir) {
        let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard name.hasPrefix("hidraw") else { continue }
        var buf = [CChar](repeating: 0, count: 512)
        let n = readlink("/sys/class/hidraw/\(name)/device", &buf, buf.count - 1)
        guard n > 0 else { continue }
        let target = String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard target.split(separator: "/").last?.hasPrefix(hidID + ".") == true else { continue }
        // Pads that share an ID (the charging grip's two Joy-Cons): the one whose input device has this
        // name (the VM's 6.1 hid-nintendo names the two apart; from 6.8 on both carry the grip's).
        if let inputName, !inputNames(ofHIDDevice: "/sys/class/hidraw/\(name)/device").contains(inputName) { continue }
        return "/dev/\(name)"
    }
    return nil
}

/// The names of the input devices a HID device (its sysfs directory) has made.
public func inputNames(ofHIDDevice path: String) -> [String] {
    guard let dir = opendir(path + "/input") else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let e = readdir(dir) {
        let entry = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard entry.hasPrefix("input"), let f = fopen("\(path)/input/\(entry)/name", "r") else { continue }
        var buf = [CChar](repeating: 0, count: 256)
        if fgets(&buf, Int32(buf.count), f) != nil {
            names.append(String(decoding: buf.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        fclose(f)
    }
    return names
}
