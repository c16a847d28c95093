import ArgumentParser
import Foundation
import HapticClient
import HapticCore
import HapticProtocol
import HapticTools

/// Options every daemon command shares.
struct Connection: ParsableArguments {
    @Option(help: "hapticd's socket (default: $HAPTICD_SOCKET, else the daemon's default path).") var socket: String?
    @Flag(help: "Print the daemon's JSON result instead of text.") var json = false

    func client() throws -> HapticClient {
        do {
            return try HapticClient(path: socket ?? HapticClient.defaultSocketPath())
        } catch {
            printError("hapticctl: \(error)")
            throw ExitCode(2)
        }
    }

    /// Runs a request and prints its result: JSON with --json, else `human(result)`.
    @discardableResult
    func call(_ client: HapticClient, _ command: String, _ body: JSONObject = JSONObject(), human: (JSONObject) -> String) throws -> JSONObject {
        do {
            let result = try client.request(command, body)
            print(json ? JSONWriter.write(.object(result)) : human(result))
            return result
        } catch .invalidArgument(let what) {
            throw Self.usageError(what)
        } catch {
            printError("hapticctl: \(error)")
            throw ExitCode(1)
        }
    }

    func run(_ command: String, _ body: JSONObject = JSONObject(), human: (JSONObject) -> String) throws {
        try call(try client(for: body), command, body, human: human)
    }

    /// `client()`, once `body` is known to be sendable: a value no request can carry (`--rate nan`)
    /// is found before connecting, as a usage error.
    func client(for body: JSONObject) throws -> HapticClient {
        if case .invalidArgument(let what)? = HapticClient.refusal(of: body) { throw Self.usageError(what) }
        return try client()
    }

    /// A value given on the command line that no request can carry: said, and exit status 64, as
    /// ArgumentParser's own usage errors (2 is "hapticd is not running").
    static func usageError(_ what: String) -> ExitCode {
        printError("hapticctl: \(what)")
        return ExitCode.validationFailure
    }
}

/// `--device N` and `--locality NAME`: the engine a command acts on.
struct EngineTarget: ParsableArguments {
    @Option(help: "Device number (see devices).") var device: Int?
    @Option(help: "Locality: default, all, handles, leftHandle (the strong motor only), rightHandle (the weak motor only).")
    var locality: String?

    func apply(to body: inout JSONObject) {
        if let device { body.append("device", .number(Double(device))) }
        if let locality { body.append("locality", .string(locality)) }
    }
}

/// The next event, waiting up to `timeout` seconds (nil: none came). When the connection is gone (the
/// daemon stopped, crashed or was restarted) the run ends here with a message and exit status 1;
/// `before` runs first (to end a line of bars).
func nextEvent(_ client: HapticClient, timeout: Double, before: () -> Void = {}) throws -> JSONObject? {
    do {
        return try client.nextEvent(timeout: timeout)
    } catch {
        before()
        printError("hapticctl: \(error)")
        throw ExitCode(1)
    }
}

/// Follows a started player until it ends: `player.finished`, or an error when its engine stops.
/// With `bars`, live motor bars from `device.output` meanwhile. The subscription must include
/// `player.finished` and `engine.stopped` (and `device.output` for bars).
func follow(_ client: HapticClient, player: JSONValue?, bars: Bool, json: Bool) throws {
    let tty = isatty(STDOUT_FILENO) != 0
    while true {
        guard let event = try nextEvent(client, timeout: 3600, before: { if bars && tty { print("") } }) else { continue }
        switch str(event, "event") {
        case "device.output": if bars { showBars(event, tty: tty) }
        case "player.finished" where event["player"] == player:
            // The pad's closing zero is written just after the player ends (and may wait for the
            // pad's update interval): show it.
            while bars, let late = try? client.nextEvent(timeout: 0.1), str(late, "event") == "device.output" {
                showBars(late, tty: tty)
            }
            if bars && tty { print("") }
            if !json { print("finished (\(str(event, "reason") ?? "?"))") }
            return
        case "engine.stopped":
            if bars && tty { print("") }
            printError("hapticctl: the engine stopped (\(str(event, "reason") ?? "?"))")
            throw ExitCode(1)
        default: break
        }
    }
}

func subscribeForFollowing(_ client: HapticClient, bars: Bool) {
    var events: [JSONValue] = [.string("player.finished"), .string("engine.stopped")]
    if bars { events.append(.string("device.output")) }
    _ = try? client.request("subscribe", JSONObject(["events": .array(events)]))
}

/// `--at T` (engine time) or `--after S` (seconds from now).
struct When: ParsableArguments {
    @Option(parsing: .unconditional, help: "When, on the engine's clock (seconds; see engine status).") var at: Double?
    @Option(parsing: .unconditional, help: "When, in seconds from now.") var after: Double?

    func apply(to body: inout JSONObject) {
        if let at { body.append("at", .number(at)) }
        if let after { body.append("after", .number(after)) }
    }
}

func num(_ o: JSONObject, _ key: String) -> Double? { if case .number(let x)? = o[key] { x } else { nil } }
func str(_ o: JSONObject, _ key: String) -> String? { if case .string(let s)? = o[key] { s } else { nil } }
func int(_ o: JSONObject, _ key: String) -> String { num(o, key).map { String(Int(saturating: $0)) } ?? "?" }

func playerLine(_ r: JSONObject) -> String {
    "player \(int(r, "player")) on device \(int(r, "device")): \(str(r, "state") ?? "?"), offset \(Format.fixed(num(r, "offset") ?? 0, 3)) of \(Format.fixed(num(r, "duration") ?? 0, 3)) s"
}

/// Whether `pattern` names a file rather than a library pattern: one that exists, or one written as a
/// path (library names have no '/' and no extension), as the C and Python clients tell them apart.
func isPatternFile(_ pattern: String) -> Bool {
    let lower = pattern.lowercased()
    return FileManager.default.fileExists(atPath: pattern) || pattern.contains("/")
        || [".ahap", ".haptic", ".json"].contains { lower.hasSuffix($0) }
}

/// A file path becomes an inline pattern (a path that cannot be read is an error naming it, not a
/// library name that is not found); anything else is a library name. An AHAP file goes inline as
/// AHAP. A .haptic clip goes as AHAP when AHAP holds it exactly; otherwise (emphasis the clip's envelope
/// would scale in AHAP) as the clip itself with "format": "haptic", which the daemon loads natively.
func patternMembers(_ pattern: String) throws -> JSONObject {
    if isPatternFile(pattern) {
        let loaded = load(pattern)
        switch loaded.result {
        case .success(let l):
            loaded.warnings.forEach { printError("\(pattern): \($0.path): warning: \($0.message)") }
            let (ahap, losses) = AHAPWriter.convert(l.pattern)
            if l.format == .haptic, !losses.isEmpty, let clip = try? HapticClipWriter.convert(l.pattern).json {
                return JSONObject(["pattern": clip, "format": .string("haptic")])
            }
            return JSONObject(["pattern": ahap])
        case .failure:
            Offline.validate([loaded]).errorLines.forEach(printError)
            throw ExitCode(1)
        }
    }
    return JSONObject(["name": .string(pattern)])
}

struct Ping: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check that hapticd answers.")
    @OptionGroup var connection: Connection
    func run() throws {
        let client = try connection.client()
        let start = Date()
        try connection.call(client, "ping") { _ in "pong in \(Int(Date().timeIntervalSince(start) * 1e6)) µs" }
    }
}

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "hapticd's version and protocol version.")
    @OptionGroup var connection: Connection
    func run() throws {
        try connection.run("version") { r in "hapticd \(str(r, "version") ?? "?"), protocol \(int(r, "protocol"))" }
    }
}

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the rumble pads hapticd drives.")
    @OptionGroup var connection: Connection
    func run() throws {
        try connection.run("devices") { r in
            guard case .array(let list)? = r["devices"], !list.isEmpty else { return "no rumble devices" }
            return list.compactMap { v -> String? in
                guard case .object(let d) = v else { return nil }
                let state = d["connected"] == .bool(true) ? "connected" : "disconnected"
                return "\(int(d, "device")): \(str(d, "name") ?? "") [\(str(d, "usb_id") ?? "")] profile \(str(d, "profile") ?? "") \(str(d, "path") ?? "") (\(state))"
            }.joined(separator: "\n")
        }
    }
}

struct Patterns: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the daemon's pattern library.")
    @OptionGroup var connection: Connection
    func run() throws {
        try connection.run("patterns") { r in
            var lines: [String] = []
            if case .array(let list)? = r["patterns"] {
                for case .object(let p) in list {
                    lines.append("\(str(p, "name") ?? "")\t\(Format.fixed(num(p, "duration") ?? 0, 3)) s\t\(str(p, "description") ?? "")")
                }
            }
            if case .array(let problems)? = r["problems"] {
                for case .string(let s) in problems { lines.append("problem: \(s)") }
            }
            return lines.isEmpty ? "the library is empty" : lines.joined(separator: "\n")
        }
    }
}

/// Live motor bars for `device.output` events.
func bar(_ value: Double, width: Int = 30) -> String {
    let n = Int((value / 65535 * Double(width)).rounded())
    return String(repeating: "█", count: n) + String(repeating: "·", count: width - n)
}

func showBars(_ e: JSONObject, tty: Bool) {
    let s = num(e, "strong") ?? 0, w = num(e, "weak") ?? 0
    let line = "device \(int(e, "device"))  strong \(bar(s)) \(String(Int(s)).padding(toLength: 5, withPad: " ", startingAt: 0))  weak \(bar(w)) \(Int(w))"
    // On a terminal the line is redrawn in place (carriage return, then clear to the end of the line).
    if tty { FileHandle.standardOutput.write(Data(("\r" + line + "\u{1B}[K").utf8)) } else { print(line) }
}

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a pattern: a library name (hapticctl play heartbeat), an AHAP file or a .haptic clip.",
        discussion: "Without --wait or --bars it returns at once and the pattern plays to its end. A looping pattern plays while hapticctl stays connected: until Ctrl-C.")
    @Argument(help: "A library pattern name, an .ahap file or a .haptic clip.") var pattern: String
    @OptionGroup var target: EngineTarget
    @Flag(help: "Loop until interrupted.") var loop = false
    @Option(parsing: .unconditional, help: "Playback rate (> 0).") var rate: Double?
    @Flag(help: "Wait until the pattern has finished.") var wait = false
    @Flag(help: "Show live motor bars while it plays (implies --wait).") var bars = false
    @OptionGroup var connection: Connection

    func run() throws {
        var body = try patternMembers(pattern)
        target.apply(to: &body)
        if loop { body.append("loop", .bool(true)) }
        if let rate { body.append("rate", .number(rate)) }
        let client = try connection.client(for: body)
        let waiting = wait || bars || loop
        if waiting { subscribeForFollowing(client, bars: bars) }
        let result = try connection.call(client, "play", body) { r in "playing \(pattern) on device \(int(r, "device")) as player \(int(r, "player"))" }
        guard waiting else { return }
        if loop && !connection.json { print("looping; Ctrl-C stops it") }
        try follow(client, player: result["player"], bars: bars, json: connection.json)
    }
}

struct Create: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create a player for a pattern (start it with start).")
    @Argument(help: "A library pattern name, an .ahap file or a .haptic clip.") var pattern: String
    @OptionGroup var target: EngineTarget
    @Flag(help: "A basic player (no pause, seek, loop or rate).") var basic = false
    @OptionGroup var connection: Connection
    func run() throws {
        var body = try patternMembers(pattern)
        target.apply(to: &body)
        if basic { body.append("advanced", .bool(false)) }
        try connection.run("player.create", body, human: playerLine)
    }
}

/// Commands that take `--player N` and optionally a time.
struct PlayerOption: ParsableArguments {
    @Option(help: "Player number.") var player: Int
    var body: JSONObject { JSONObject(["player": .number(Double(player))]) }

    /// Sends `command` for this player at the time `when` gives, printing the player's state.
    func send(_ command: String, at when: When, _ connection: Connection) throws {
        var body = self.body
        when.apply(to: &body)
        try connection.run(command, body, human: playerLine)
    }
}

struct Start: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start a player (now, --at or --after).")
    @OptionGroup var target: PlayerOption
    @OptionGroup var when: When
    @OptionGroup var connection: Connection
    func run() throws { try target.send("player.start", at: when, connection) }
}

struct Stop: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stop a player, or with no --player your players on all your connections (stop_all; as root or an admin: everyone's).")
    @Option(help: "Player number; omit to stop all of yours (everyone's, as root or an admin).") var player: Int?
    @OptionGroup var when: When
    @OptionGroup var connection: Connection
    func run() throws {
        guard let player else {
            try connection.run("stop_all") { r in
                "stopped \(int(r, "stopped")) player(s)" + (str(r, "scope") == "user" ? " of your user" : " of every user")
            }
            return
        }
        var body = JSONObject(["player": .number(Double(player))])
        when.apply(to: &body)
        try connection.run("player.stop", body, human: playerLine)
    }
}

struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Cancel a player: drop its pending commands and stop it.")
    @OptionGroup var target: PlayerOption
    @OptionGroup var connection: Connection
    func run() throws { try connection.run("player.cancel", target.body, human: playerLine) }
}

struct Pause: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Pause an advanced player.")
    @OptionGroup var target: PlayerOption
    @OptionGroup var when: When
    @OptionGroup var connection: Connection
    func run() throws { try target.send("player.pause", at: when, connection) }
}

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Resume a paused player from where it paused.")
    @OptionGroup var target: PlayerOption
    @OptionGroup var when: When
    @OptionGroup var connection: Connection
    func run() throws { try target.send("player.resume", at: when, connection) }
}

struct Seek: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Move a player to an offset in its pattern (seconds).")
    @OptionGroup var target: PlayerOption
    @Argument(help: "Offset in seconds.") var offset: Double
    @OptionGroup var connection: Connection
    func run() throws {
        var body = target.body
        body.append("offset", .number(offset))
        try connection.run("player.seek", body, human: playerLine)
    }
}

struct SetPlayer: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "set", abstract: "Change a player's loop, loop end, rate or mute.")
    @OptionGroup var target: PlayerOption
    @Option(help: "on or off.") var loop: String?
    @Option(parsing: .unconditional, help: "Loop end in seconds (0: the pattern's duration).") var loopEnd: Double?
    @Option(parsing: .unconditional, help: "Playback rate (> 0).") var rate: Double?
    @Option(help: "on or off.") var mute: String?
    @OptionGroup var connection: Connection

    func onOff(_ s: String, _ name: String) throws -> Bool {
        switch s.lowercased() {
        case "on", "true", "yes", "1": return true
        case "off", "false", "no", "0": return false
        default: throw ValidationError("--\(name) takes on or off")
        }
    }

    func run() throws {
        var body = target.body
        if let loop { body.append("loop", .bool(try onOff(loop, "loop"))) }
        if let loopEnd { body.append("loop_end", .number(loopEnd)) }
        if let rate { body.append("rate", .number(rate)) }
        if let mute { body.append("muted", .bool(try onOff(mute, "mute"))) }
        try connection.run("player.set", body, human: playerLine)
    }
}

struct Param: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send dynamic parameters: hapticctl param --player 3 intensity 0.5 sharpness -0.2",
        discussion: "Names: intensity (0…1, multiplies), sharpness, attack, decay, release (−1…1, add), or AHAP IDs. A value may be negative as it stands (sharpness -0.2); options go before or after the pairs.")
    @OptionGroup var target: PlayerOption
    // Every input that is not one of the options below: a negative value such as -0.2 looks like an
    // option to the parser, and the default strategy refused it ("Unknown option '-0.2'").
    @Argument(parsing: .allUnrecognized, help: "NAME VALUE pairs.") var pairs: [String]
    @OptionGroup var when: When
    @OptionGroup var connection: Connection

    /// The pairs as the request's `parameters`.
    func parameters() throws -> JSONObject {
        // `--` still ends the options (the capture keeps it): everything after it is a pair.
        var pairs = self.pairs
        if let terminator = pairs.firstIndex(of: "--") { pairs.remove(at: terminator) }
        guard !pairs.isEmpty, pairs.count % 2 == 0 else { throw ValidationError("give NAME VALUE pairs, e.g. intensity 0.5") }
        var params = JSONObject()
        for i in stride(from: 0, to: pairs.count, by: 2) {
            // A name never starts with '-': such an input is a mistyped option the capture took in.
            guard !pairs[i].hasPrefix("-") else { throw ValidationError("Unknown option '\(pairs[i])'") }
            guard let v = Double(pairs[i + 1]), v.isFinite else { throw ValidationError("\(pairs[i + 1]) is not a number") }
            params.append(pairs[i], .number(v))
        }
        return params
    }

    func validate() throws { _ = try parameters() }

    func run() throws {
        var body = target.body
        body.append("parameters", .object(try parameters()))
        when.apply(to: &body)
        try connection.run("player.send_parameters", body, human: playerLine)
    }
}

struct Curve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Schedule a parameter curve: hapticctl curve --player 3 intensity 0:1 0.5:0.2 1:0")
    @OptionGroup var target: PlayerOption
    @Argument(help: "The parameter (intensity, sharpness, …).") var parameter: String
    @Argument(help: "TIME:VALUE points, times from the curve's start.") var points: [String]
    @OptionGroup var when: When
    @OptionGroup var connection: Connection
    func run() throws {
        var list: [JSONValue] = []
        for p in points {
            let parts = p.split(separator: ":")
            guard parts.count == 2, let t = Double(parts[0]), let v = Double(parts[1]) else {
                throw ValidationError("\(p): points are TIME:VALUE, e.g. 0.5:0.8")
            }
            list.append(.array([.number(t), .number(v)]))
        }
        var body = target.body
        body.append("parameter", .string(parameter))
        body.append("points", .array(list))
        when.apply(to: &body)
        try connection.run("player.schedule_curve", body, human: playerLine)
    }
}

struct Destroy: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Destroy a player.")
    @OptionGroup var target: PlayerOption
    @OptionGroup var connection: Connection
    func run() throws { try connection.run("player.destroy", target.body) { r in "player \(int(r, "player")) destroyed" } }
}

struct Engine: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "A pad's engine: start, stop, reset or status.")
    enum Action: String, ExpressibleByArgument, CaseIterable { case start, stop, reset, status }
    @Argument(help: "start, stop, reset or status.") var action: Action = .status
    @OptionGroup var target: EngineTarget
    @OptionGroup var connection: Connection
    func run() throws {
        var body = JSONObject()
        target.apply(to: &body)
        try connection.run("engine.\(action.rawValue)", body) { r in
            "device \(int(r, "device")) (\(str(r, "locality") ?? "default")): engine \(r["running"] == .bool(true) ? "running" : "stopped"), "
                + "\(r["playing"] == .bool(true) ? "playing" : "idle"), clock \(Format.fixed(num(r, "current_time") ?? 0, 3)) s, "
                + "\(int(r, "players")) player(s), gain \(Format.fixed(num(r, "gain") ?? 1, 2))"
        }
    }
}

struct Gain: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Set a pad's gain (0…1).")
    @Argument(help: "0…1.") var gain: Double
    @Option(help: "Device number.") var device: Int?
    @OptionGroup var connection: Connection
    func run() throws {
        var body = JSONObject(["gain": .number(gain)])
        if let device { body.append("device", .number(Double(device))) }
        try connection.run("gain.set", body) { r in "device \(int(r, "device")): gain \(Format.fixed(num(r, "gain") ?? 0, 2))" }
    }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print events as they happen (Ctrl-C ends).")
    @Option(parsing: .upToNextOption, help: "Events to watch (default: all but device.output).") var events: [String] = []
    @Flag(help: "Show live motor bars (watches device.output).") var bars = false
    @Option(parsing: .unconditional, help: "Stop after this many seconds.") var seconds: Double?
    @OptionGroup var connection: Connection
    func validate() throws {
        if let seconds { guard seconds.isFinite, seconds > 0 else { throw ValidationError("--seconds must be a number of seconds > 0") } }
    }
    func run() throws {
        let client = try connection.client()
        var names = events
        if bars { names.append("device.output") }
        var body = JSONObject()
        if !names.isEmpty { body.append("events", .array(names.map { .string($0) })) }
        try connection.call(client, "subscribe", body) { r in
            "watching " + (r["events"].map { JSONWriter.write($0) } ?? "")
        }
        let tty = isatty(STDOUT_FILENO) != 0
        let end = seconds.map { Date().addingTimeInterval($0) }
        while end.map({ Date() < $0 }) ?? true {
            let wait = end.map { max(0.01, $0.timeIntervalSinceNow) } ?? 3600
            guard let event = try nextEvent(client, timeout: wait, before: { if bars && tty && !connection.json { print("") } }) else { continue }
            if bars && !connection.json && str(event, "event") == "device.output" {
                showBars(event, tty: tty)
            } else {
                print(JSONWriter.write(.object(event)))
            }
        }
    }
}

struct Request: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Send one raw JSON request line and print the reply line.")
    @Argument(help: #"E.g. '{"id":1,"cmd":"ping"}'"#) var line: String
    @OptionGroup var connection: Connection
    func run() throws {
        let client = try connection.client()
        do {
            print(try client.raw(line))
        } catch {
            printError("hapticctl: \(error)")
            throw ExitCode(1)
        }
    }
}
