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
