import HapticCore
import HapticDaemon
import HapticProtocol
import Logging

/// Whole request lines through an in-process daemon (`DaemonCore.handle(lines:)`, in turns of up to
/// 4 lines of one connection, as the socket does) on two
/// simulated pads, with the real render loop running: parsing, validation, command execution and
/// the engines. Each input is up to 64 lines; a line starting with `B ` comes from a second
/// connection of another, non-admin user (uid 1000), every other line from root. After each input
/// the connections close and an admin puts back what the input may have changed (stop_all,
/// engine.start, gain 1), so inputs
/// do not depend on one another beyond the players still finishing.
/// Every reply and event must be one readable line of JSON, and a reply carries the request's id.
/// Crashes it found: docs/robustness.md; their inputs are in Fuzzing/regressions/daemon/.
final class Harness: @unchecked Sendable {
    // @unchecked Sendable: set up once, before libFuzzer's first input; used from its thread only.
    let core: DaemonCore
    static let shared = Harness()

    init() {
        var config = DaemonConfig()
        // The repository's library, found from this file (Fuzzing/Sources/FuzzDaemon/main.swift).
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        config.patternDirectories = [parts.joined(separator: "/") + "/config/patterns"]
        config.orphanMaxSeconds = 0.05
        let logger = Logger(label: "fuzz") { _ in SwiftLogNoOpLogHandler() }
        core = DaemonCore(config: config, loop: RenderLoop(), logger: logger)
        for i in 0..<2 {
            let pad = SimulatedPad(index: i)
            core.addPad(info: pad.info, sink: pad, simulated: true)
        }
    }
}

struct CheckingOutlet: ClientOutlet {
    func event(_ line: String) {
        guard !line.utf8.contains(0x0A), case .event? = ReplyLine.parse(line) else { fatalError("unreadable event: \(line)") }
    }
}

let root = PeerCredentials(pid: 1, uid: 0, gid: 0)
let user = PeerCredentials(pid: 2, uid: 1000, gid: 1000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDaemon(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let core = Harness.shared.core
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: true).prefix(64)
    guard let a = try? core.connect(credentials: root, outlet: CheckingOutlet()).get() else { fatalError("refused: \(core.census())") }
    var b: ClientID?
    // Consecutive lines of one connection go as the socket sends them: turns of up to 4 lines,
    // one `handle(lines:)` each (the render loop's lock taken once per turn).
    var turns: [(fromB: Bool, lines: [String])] = []
    for raw in lines {
        let fromB = raw.hasPrefix("B ")
        let line = String(fromB ? raw.dropFirst(2) : raw)
        if let last = turns.last, last.fromB == fromB, last.lines.count < 4 {
            turns[turns.count - 1].lines.append(line)
        } else {
            turns.append((fromB, [line]))
        }
    }
    for turn in turns {
        if turn.fromB && b == nil {
            guard let id = try? core.connect(credentials: user, outlet: CheckingOutlet()).get() else { fatalError("refused: \(core.census())") }
            b = id
        }
        let replies = core.handle(lines: turn.lines, from: turn.fromB ? b! : a)
        guard replies.count == turn.lines.count else { fatalError("\(replies.count) replies to \(turn.lines.count) lines: \(turn.lines)") }
        for (line, reply) in zip(turn.lines, replies) {
            guard !reply.utf8.contains(0x0A), let parsed = ReplyLine.parse(reply) else { fatalError("unreadable reply: \(reply)") }
            // The request's id (a request whose id the lenient parser read as an infinity, `1e999`,
            // is refused with a null id: it has none here).
            let sentID: JSONValue? = (try? Request.parse(line)).map(\.id)
            switch parsed {
            case .ok(let id, _): if let sentID, id != sentID { fatalError("reply id \(id) for request id \(sentID)") }
            case .failure(let id, _, _, _): if let sentID, id != sentID { fatalError("reply id \(id) for request id \(sentID)") }
            case .event: fatalError("an event as a reply: \(reply)")
            }
        }
    }
    core.disconnect(a)
    if let b { core.disconnect(b) }
    // Put back what the input may have changed for everyone (only what it can have changed: this
    // runs for every input).
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var cleanup: [String] = []
    if contains(bytes, "play") || contains(bytes, "start") { cleanup.append(#"{"id":1,"cmd":"stop_all"}"#) }
    if contains(bytes, "engine") {
        cleanup += [#"{"id":2,"cmd":"engine.start","device":0}"#, #"{"id":3,"cmd":"engine.start","device":1}"#]
    }
    if contains(bytes, "gain") {
        cleanup += [#"{"id":4,"cmd":"gain.set","device":0,"gain":1}"#, #"{"id":5,"cmd":"gain.set","device":1,"gain":1}"#]
    }
    if !cleanup.isEmpty {
        guard let admin = try? core.connect(credentials: root, outlet: CheckingOutlet()).get() else { fatalError("admin refused") }
        for line in cleanup {
            let reply = core.handle(line: line, from: admin)
            guard case .ok? = ReplyLine.parse(reply) else { fatalError("cleanup failed: \(line) → \(reply)") }
        }
        core.disconnect(admin)
    }
    return 0
}

/// Whether `word` occurs in the input's bytes (a plain scan: Foundation's `contains` on the decoded
/// text cost ~5 % of every input).
func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
    let w = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
    guard bytes.count >= w.count else { return false }
    var i = 0
    while i + w.count <= bytes.count {
        if bytes[i] == w[0] {
            var j = 1
            while j < w.count && bytes[i + j] == w[j] { j += 1 }
            if j == w.count { return true }
        }
        i += 1
    }
    return false
}
