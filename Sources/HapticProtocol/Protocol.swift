import HapticCore

/// The socket protocol's version (docs/PROTOCOL.md). Bumped on incompatible changes.
public let protocolVersion = 1

/// Error codes a reply can carry (`error.code`).
public enum ErrorCode: String, Sendable, CaseIterable {
    case badJSON = "bad_json"
    case badRequest = "bad_request"
    case unknownCommand = "unknown_command"
    case invalidPattern = "invalid_pattern"
    case notFound = "not_found"
    case limitExceeded = "limit_exceeded"
    case deviceError = "device_error"
    case permissionDenied = "permission_denied"
    /// The pad's engine is stopped (engine.start it, or enable idle auto-shutdown in the config).
    case engineStopped = "engine_stopped"
    /// The player belonged to an engine that was reset: create it again.
    case playerInvalidated = "player_invalidated"
    /// The pad cannot do this at all (e.g. a trigger locality: the kernel has no trigger rumble).
    case unsupported
}

/// A failed request: a code and a message for people.
public struct ProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    /// For `invalid_pattern`: every problem, with its JSON path.
    public var details: [String]

    public init(_ code: ErrorCode, _ message: String, details: [String] = []) {
        self.code = code
        self.message = message
        self.details = details
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// The event names a client can subscribe to.
public enum EventName: String, Sendable, CaseIterable {
    case playerFinished = "player.finished"
    case engineStopped = "engine.stopped"
    case engineReset = "engine.reset"
    case deviceAdded = "device.added"
    case deviceRemoved = "device.removed"
    /// What a pad's motors were just set to (for live views); at most one per write.
    case deviceOutput = "device.output"
}

/// A request as received: its id (echoed back verbatim), its command and its other members.
public struct Request: Sendable {
    public var id: JSONValue
    public var command: String
    public var body: JSONObject

    public init(id: JSONValue, command: String, body: JSONObject = JSONObject()) {
        self.id = id
        self.command = command
        self.body = body
    }

    /// Parses one line. A line that is not JSON, or not a request object, throws with the id when one
    /// could be read (so the error reply still carries it).
    public static func parse(_ line: String) throws(RequestParseError) -> Request {
        let json: JSONValue
        do {
            json = try JSONParser.parse(line)
        } catch {
            throw RequestParseError(id: .null, error: ProtocolError(.badJSON, error.description))
        }
        guard case .object(let o) = json else {
            throw RequestParseError(id: .null, error: ProtocolError(.badRequest, "a request is a JSON object, not \(json.kindName)"))
        }
        let id = o["id"] ?? .null
        switch id {
        case .number(let x) where x.isFinite: break
        case .string: break
        case .number:
            // Read as an infinity (`1e400`): no reply could echo it (JSON has no form for it), so
            // the request is refused rather than run under an id its client would never see.
            throw RequestParseError(id: .null, error: ProtocolError(.badRequest, "\"id\" must be a finite number or a string"))
        case .null: throw RequestParseError(id: .null, error: ProtocolError(.badRequest, "missing \"id\" (a number or a string)"))
        default: throw RequestParseError(id: .null, error: ProtocolError(.badRequest, "\"id\" must be a number or a string, not \(id.kindName)"))
        }
        guard let c = o["cmd"] else { throw RequestParseError(id: id, error: ProtocolError(.badRequest, "missing \"cmd\"")) }
        guard case .string(let command) = c else {
            throw RequestParseError(id: id, error: ProtocolError(.badRequest, "\"cmd\" must be a string, not \(c.kindName)"))
        }
        return Request(id: id, command: command, body: o)
    }

    // MARK: typed access to members, with errors that name the member

    public func optional(_ key: String) -> JSONValue? {
        guard let v = body[key], v != .null else { return nil }
        return v
    }

    public func number(_ key: String) throws(ProtocolError) -> Double? {
        guard let v = optional(key) else { return nil }
        guard case .number(let x) = v, x.isFinite else {
            throw ProtocolError(.badRequest, "\"\(key)\" must be a finite number, not \(v.kindName)")
        }
        return x
    }

    public func requiredNumber(_ key: String) throws(ProtocolError) -> Double {
        guard let x = try number(key) else { throw ProtocolError(.badRequest, "missing \"\(key)\"") }
        return x
    }

    public func integer(_ key: String) throws(ProtocolError) -> Int? {
        guard let x = try number(key) else { return nil }
        guard x == x.rounded(), abs(x) < 1e15 else { throw ProtocolError(.badRequest, "\"\(key)\" must be an integer, not \(x)") }
        return Int(x)
    }

    public func requiredInteger(_ key: String) throws(ProtocolError) -> Int {
        guard let x = try integer(key) else { throw ProtocolError(.badRequest, "missing \"\(key)\"") }
        return x
    }

    public func string(_ key: String) throws(ProtocolError) -> String? {
        guard let v = optional(key) else { return nil }
        guard case .string(let s) = v else { throw ProtocolError(.badRequest, "\"\(key)\" must be a string, not \(v.kindName)") }
        return s
    }

    public func bool(_ key: String) throws(ProtocolError) -> Bool? {
        guard let v = optional(key) else { return nil }
        guard case .bool(let b) = v else { throw ProtocolError(.badRequest, "\"\(key)\" must be true or false, not \(v.kindName)") }
        return b
    }
}

/// A request line that could not be parsed, with the id to answer with.
public struct RequestParseError: Error, Sendable {
    public var id: JSONValue
    public var error: ProtocolError
}

/// Building reply and event lines.
public enum Reply {
    public static func ok(_ id: JSONValue, _ result: JSONObject = JSONObject()) -> String {
        JSONWriter.write(.object(JSONObject(["id": id, "ok": .bool(true), "result": .object(result)])))
    }

    public static func error(_ id: JSONValue, _ error: ProtocolError) -> String {
        var e = JSONObject(["code": .string(error.code.rawValue), "message": .string(error.message)])
        if !error.details.isEmpty { e.append("details", .array(error.details.map { .string($0) })) }
        return JSONWriter.write(.object(JSONObject(["id": id, "ok": .bool(false), "error": .object(e)])))
    }

    public static func event(_ name: EventName, _ fields: JSONObject) -> String {
        var o = JSONObject(["event": .string(name.rawValue)])
        o.members += fields.members
        return JSONWriter.write(.object(o))
    }
}

/// A reply as a client reads it.
public enum ReplyLine: Sendable, Equatable {
    case ok(id: JSONValue, result: JSONObject)
    case failure(id: JSONValue, code: String, message: String, details: [String])
    case event(name: String, body: JSONObject)

    public static func parse(_ line: String) -> ReplyLine? {
        guard let json = try? JSONParser.parse(line), case .object(let o) = json else { return nil }
        if case .string(let name)? = o["event"] { return .event(name: name, body: o) }
        let id = o["id"] ?? .null
        if o["ok"] == .bool(true) {
            if case .object(let r)? = o["result"] { return .ok(id: id, result: r) }
            return .ok(id: id, result: JSONObject())
        }
        guard case .object(let e)? = o["error"] else { return nil }
        var code = "", message = ""
        if case .string(let c)? = e["code"] { code = c }
        if case .string(let m)? = e["message"] { message = m }
        var details: [String] = []
        if case .array(let d)? = e["details"] { details = d.compactMap { if case .string(let s) = $0 { s } else { nil } } }
        return .failure(id: id, code: code, message: message, details: details)
    }
}

/// Every command the daemon understands (docs/PROTOCOL.md documents each one's members).
public enum Command: String, Sendable, CaseIterable {
    case ping, version, devices, patterns, play
    case patternUpload = "pattern.upload"
    case playerCreate = "player.create"
    case playerStart = "player.start"
    case playerStop = "player.stop"
    case playerCancel = "player.cancel"
    case playerPause = "player.pause"
    case playerResume = "player.resume"
    case playerSeek = "player.seek"
    case playerSet = "player.set"
    case playerSendParameters = "player.send_parameters"
    case playerScheduleCurve = "player.schedule_curve"
    case playerDestroy = "player.destroy"
    case engineStart = "engine.start"
    case engineStop = "engine.stop"
    case engineReset = "engine.reset"
    case engineStatus = "engine.status"
    case stopAll = "stop_all"
    case gainSet = "gain.set"
    case subscribe
    case capabilities
    case feedback
    case prepare
    case rumble
    case hello
    case policy
    case policySet = "policy.set"
}

extension Command {
    /// The command only changes the dynamic parameters of a player it names (intensity, sharpness,
    /// envelope controls, curves): right after the player's start, it sets the level the start plays
    /// at rather than asking for a new value (`Pacer`'s onset correction may then take a motor to zero).
    public var adjustsParameters: Bool { self == .playerSendParameters || self == .playerScheduleCurve }
}
