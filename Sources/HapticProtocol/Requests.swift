import HapticCore

/// Every command, declared once (docs/PROTOCOL.md, "Commands"): what it takes, what it does to the
/// daemon's state, who may send it, and its request decoded into a Swift value.
public enum Declarations {
    public static let requestTypes: [any CommandRequest.Type] = [
        PingRequest.self, VersionRequest.self, DevicesRequest.self, PatternsRequest.self, PatternUploadRequest.self, CapabilitiesRequest.self,
        SubscribeRequest.self,
        PlayRequest.self, PlayerCreateRequest.self,
        PlayerStartRequest.self, PlayerStopRequest.self, PlayerPauseRequest.self, PlayerResumeRequest.self,
        PlayerCancelRequest.self, PlayerSeekRequest.self, PlayerSetRequest.self, PlayerSendParametersRequest.self,
        PlayerScheduleCurveRequest.self, PlayerDestroyRequest.self,
        EngineStartRequest.self, EngineStopRequest.self, EngineResetRequest.self, EngineStatusRequest.self,
        StopAllRequest.self, GainSetRequest.self,
        FeedbackRequest.self, PrepareRequest.self, RumbleRequest.self,
        HelloRequest.self, PolicyRequest.self, PolicySetRequest.self,
    ]

    public static let all: [CommandDeclaration] = requestTypes.map { $0.declaration }

    private static let byCommand: [Command: any CommandRequest.Type] = Dictionary(
        uniqueKeysWithValues: requestTypes.map { ($0.declaration.command, $0) })

    public static func requestType(_ command: Command) -> any CommandRequest.Type { byCommand[command]! }

    public static func declaration(_ command: Command) -> CommandDeclaration { requestType(command).declaration }

    /// The declarations as JSON (`hapticd --dump-protocol`).
    public static var json: JSONValue {
        .object(JSONObject([
            "protocol": .number(Double(protocolVersion)),
            "commands": .array(all.map { d in
                .object(JSONObject([
                    "name": .string(d.name), "effect": .string(d.effect.rawValue), "permission": .string(d.permission.name),
                    "arguments": .array(d.arguments.map { a in
                        .object(JSONObject(["name": .string(a.name), "type": .string(a.type.rawValue), "required": .bool(a.required)]))
                    }),
                    "summary": .string(d.summary),
                ]))
            }),
        ]))
    }
}

// MARK: arguments several commands share

/// The arguments several commands share.
public enum Args {
    public static let player = CommandArgument<Int>.integer("player").required()
    public static let device = CommandArgument<Int>.integer("device")

    public static let locality = CommandArgument<Locality>.oneOf("locality", "locality")

    public static let priority = CommandArgument<Int>.integer("priority").validated { p throws(ProtocolError) in
        guard (-100...100).contains(p) else { throw ProtocolError(.badRequest, "\"priority\" must be within −100…100, not \(p)") }
    }

    public static let at = CommandArgument<JSONValue>.raw("at", .time)
    public static let after = CommandArgument<Double>.number("after")
    public static let advanced = CommandArgument<Bool>.bool("advanced")
}

/// A pad and one of its engines: `device` (default: the first connected pad) and `locality`.
public struct EngineTarget: Sendable, Equatable {
    public var device: Int?
    public var locality: Locality

    static let arguments: [any AnyArgument] = [Args.device, Args.locality]

    init(_ a: Arguments) throws(ProtocolError) {
        device = try a(Args.device)
        locality = try a(Args.locality) ?? .default
    }
}

/// When a scheduled command takes effect: `at` a time on the engine clock (or `"now"`), or `after`
/// seconds from now; at most one of them.
public enum When: Sendable, Equatable {
    case now
    case at(Double)
    case after(Double)

    static let arguments: [any AnyArgument] = [Args.at, Args.after]

    init(_ a: Arguments) throws(ProtocolError) {
        let after = try a(Args.after)
        if let v = try a(Args.at) {
            if after != nil { throw ProtocolError(.badRequest, "give \"at\" or \"after\", not both") }
            if case .string("now") = v {
                self = .now
                return
            }
            guard case .number(let t) = v, t.isFinite, t >= 0 else {
                throw ProtocolError(.badRequest, "\"at\" must be a time on the engine clock (seconds ≥ 0) or \"now\"")
            }
            self = .at(t)
            return
        }
        if let after {
            guard after >= 0 else { throw ProtocolError(.badRequest, "\"after\" must be ≥ 0") }
            self = after == 0 ? .now : .after(after)
            return
        }
        self = .now
    }

    /// The time on an engine clock that reads `now`.
    public func time(now: Double) -> HapticTime {
        switch self {
        case .now: .immediately
        case .at(let t): .at(t)
        case .after(let d): .at(now + d)
        }
    }
}

/// How a new player is placed: its pad and engine, its requested priority, whether it plays
/// advanced (Core Haptics' advanced player).
public struct PlayerPlacement: Sendable, Equatable {
    public var target: EngineTarget
    public var priority: Int?
    public var advanced: Bool

    static let arguments: [any AnyArgument] = EngineTarget.arguments + [Args.priority, Args.advanced]
    /// For players that play no pattern (`rumble`), to which `advanced` means nothing.
    static let argumentsWithoutPattern: [any AnyArgument] = EngineTarget.arguments + [Args.priority]

    init(_ a: Arguments, withPattern: Bool = true) throws(ProtocolError) {
        priority = try a(Args.priority)
        target = try EngineTarget(a)
        advanced = withPattern ? try a(Args.advanced) ?? true : true
    }
}

// MARK: diagnostics

public struct PingRequest: CommandRequest {
    public static let declaration = CommandDeclaration(.ping, .reads, .anyone, [], "answers `pong`; never waits for the render loop")
    public init(_ a: Arguments) {}
}

public struct VersionRequest: CommandRequest {
    public static let declaration = CommandDeclaration(.version, .reads, .anyone, [], "the daemon's and the protocol's version")
    public init(_ a: Arguments) {}
}

public struct SubscribeRequest: CommandRequest {
    static let events = CommandArgument<JSONValue>.raw("events", .array)
    public static let declaration = CommandDeclaration(
        .subscribe, .reads, .anyone, [events], "which events this connection receives (default: all but `device.output`)")

    /// nil: the default set.
    public var events: Set<EventName>?

    public init(_ a: Arguments) throws(ProtocolError) {
        guard let v = try a(Self.events) else { return }
        guard case .array(let list) = v else { throw ProtocolError(.badRequest, "\"events\" must be an array of event names") }
        guard list.count <= 64 else { throw ProtocolError(.badRequest, "\"events\" lists at most 64 names") }
        var names = Set<EventName>()
        for item in list {
            guard case .string(let s) = item, let name = EventName(rawValue: s) else {
                throw ProtocolError(.badRequest, "unknown event \(JSONWriter.write(item)) (known: \(EventName.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            names.insert(name)
        }
        events = names
    }
}

// MARK: devices

public struct DevicesRequest: CommandRequest {
    public static let declaration = CommandDeclaration(.devices, .reads, .anyone, [], "every pad the daemon knows, connected or not")
    public init(_ a: Arguments) {}
}

public struct CapabilitiesRequest: CommandRequest {
    public static let declaration = CommandDeclaration(
        .capabilities, .reads, .anyone, [Args.device], "what a pad can do (Core Haptics' capabilities, its profile)")
    public var device: Int?
    public init(_ a: Arguments) throws(ProtocolError) { device = try a(Args.device) }
}

// MARK: patterns

public struct PatternsRequest: CommandRequest {
    public static let declaration = CommandDeclaration(.patterns, .reads, .anyone, [], "the pattern library and its problems")
    public init(_ a: Arguments) {}
}

/// A piece of a pattern too long for one request line: its text, in order, under a number of the
/// sender's choosing, kept for this connection until a `play` or `player.create` takes it
/// (`"upload": n`) or the connection closes. The daemon answers it without the render loop's lock, as `ping`,
/// and bounds what a connection holds (`limits.max_upload_bytes`, `limits.max_uploads`).
public struct PatternUploadRequest: CommandRequest {
    static let upload = CommandArgument<Int>.integer("upload").required()
    static let text = CommandArgument<String>.string("text").required()
    public static let declaration = CommandDeclaration(
        .patternUpload, .reads, .anyone, [upload, text],
        "adds `text` to this connection's upload `upload`: a pattern too long for one line, sent in pieces for `play` or `player.create` to take")

    public var upload: Int
    public var text: String

    public init(_ a: Arguments) throws(ProtocolError) {
        upload = try a.required(Self.upload)
        text = try a.required(Self.text)
    }
}

/// A pattern sent inline (AHAP or `.haptic`, parsed while decoding; or its text uploaded in pieces
/// before, `pattern.upload`) or named from the library.
public enum PatternSource: Sendable {
    case inline(HapticPattern)
    case named(String)

    static let pattern = CommandArgument<JSONValue>.raw("pattern", .object)
    /// The number of an upload of this connection (`pattern.upload`) holding the pattern's text.
    static let upload = CommandArgument<Int>.integer(uploadMember)
    public static let uploadMember = "upload"
    static let name = CommandArgument<String>.string("name")
    static let format = CommandArgument<PatternFormat>.oneOf("format", "pattern format")
    /// How an inline AHAP pattern's curve control-point times are read: `decide` (the default: per
    /// pattern, relative as Apple documents unless it shows the absolute convention of some exporters)
    /// or `relative` (always: a pattern already resolved, as Core Haptics sends its own).
    static let curveTimes = CommandArgument<AHAPLoader.CurveTimes>.oneOf("curve_times", "curve_times")
    static let arguments: [any AnyArgument] = [pattern, upload, name, format, curveTimes]

    init(_ a: Arguments) throws(ProtocolError) {
        let given = [a.has(Self.pattern), a.has(Self.upload), a.has(Self.name)].filter { $0 }.count
        if given > 1 {
            // An upload named is taken whatever the outcome: none is left to count against the
            // connection's bounds.
            if let n = try? a(Self.upload) { _ = a.context.takeUpload?(n) }
            throw ProtocolError(.badRequest, "give one of \"pattern\", \"upload\" and \"name\"")
        }
        if let json = try a(Self.pattern) {
            self = .inline(try Self.load(a) { limits, format, curveTimes throws(AHAPLoadError) in
                try PatternLoader.load(json: json, format: format, limits: limits, curveTimes: curveTimes)
            })
        } else if let n = try a(Self.upload) {
            guard let take = a.context.takeUpload else { throw ProtocolError(.notFound, "no upload \(n) on this connection (pattern.upload)") }
            let bytes = try take(n).get()
            self = .inline(try Self.load(a) { limits, format, curveTimes throws(AHAPLoadError) in
                try PatternLoader.load(bytes: bytes, format: format, limits: limits, curveTimes: curveTimes)
            })
        } else if let name = try a(Self.name) {
            if a.has(Self.curveTimes) { throw ProtocolError(.badRequest, "\"curve_times\" is for an inline \"pattern\"") }
            self = .named(name)
        } else {
            throw ProtocolError(.badRequest, "give \"pattern\" (an AHAP object), \"upload\" (its text sent by pattern.upload) or \"name\" (a library pattern)")
        }
    }

    /// An inline or uploaded pattern, loaded with the request's `format` and `curve_times`.
    private static func load(
        _ a: Arguments, _ load: (AHAPLimits, PatternFormat, AHAPLoader.CurveTimes) throws(AHAPLoadError) -> LoadedPattern
    ) throws(ProtocolError) -> HapticPattern {
        let format = try a(Self.format) ?? .auto
        let curveTimes = try a(Self.curveTimes) ?? .decide
        do {
            return try load(a.context.patternLimits, format, curveTimes).pattern
        } catch {
            let first = error.errors.first.map(\.description) ?? "invalid"
            throw ProtocolError(.invalidPattern, "pattern: \(first)", details: error.errors.map(\.description))
        }
    }
}

// MARK: players

public struct PlayRequest: CommandRequest {
    static let loop = CommandArgument<Bool>.bool("loop")
    static let rate = CommandArgument<Double>.number("rate")
    public static let declaration = CommandDeclaration(
        .play, .changes, .anyone, PatternSource.arguments + PlayerPlacement.arguments + [loop, rate],
        "plays a pattern once (a one-shot player that goes when it ends)")

    public var source: PatternSource
    public var placement: PlayerPlacement
    public var loop: Bool?
    public var rate: Double?

    public init(_ a: Arguments) throws(ProtocolError) {
        source = try PatternSource(a)
        placement = try PlayerPlacement(a)
        loop = try a(Self.loop)
        rate = try a(Self.rate)
    }
}

public struct PlayerCreateRequest: CommandRequest {
    public static let declaration = CommandDeclaration(
        .playerCreate, .changes, .anyone, PatternSource.arguments + PlayerPlacement.arguments, "makes a player to control")

    public var source: PatternSource
    public var placement: PlayerPlacement

    public init(_ a: Arguments) throws(ProtocolError) {
        source = try PatternSource(a)
        placement = try PlayerPlacement(a)
    }
}

/// The commands that act on one player.
public protocol PlayerCommandRequest: CommandRequest {
    var player: Int { get }
}

/// `player.start`, `stop`, `pause`, `resume`: a transport command at a time.
public protocol PlayerTransportRequest: PlayerCommandRequest {
    var when: When { get }
}

private let transportArguments: [any AnyArgument] = [Args.player] + When.arguments

public struct PlayerStartRequest: PlayerTransportRequest {
    public static let declaration = CommandDeclaration(.playerStart, .changes, .owner, transportArguments, "starts a player (at a time)")
    public var player: Int, when: When
    public init(_ a: Arguments) throws(ProtocolError) { player = try a.required(Args.player); when = try When(a) }
}

public struct PlayerStopRequest: PlayerTransportRequest {
    public static let declaration = CommandDeclaration(.playerStop, .changes, .owner, transportArguments, "stops a player (at a time)")
    public var player: Int, when: When
    public init(_ a: Arguments) throws(ProtocolError) { player = try a.required(Args.player); when = try When(a) }
}

public struct PlayerPauseRequest: PlayerTransportRequest {
    public static let declaration = CommandDeclaration(.playerPause, .changes, .owner, transportArguments, "pauses a player (at a time)")
    public var player: Int, when: When
    public init(_ a: Arguments) throws(ProtocolError) { player = try a.required(Args.player); when = try When(a) }
}

public struct PlayerResumeRequest: PlayerTransportRequest {
    public static let declaration = CommandDeclaration(.playerResume, .changes, .owner, transportArguments, "resumes a paused player (at a time)")
    public var player: Int, when: When
    public init(_ a: Arguments) throws(ProtocolError) { player = try a.required(Args.player); when = try When(a) }
}

public struct PlayerCancelRequest: PlayerCommandRequest {
    public static let declaration = CommandDeclaration(
        .playerCancel, .changes, .owner, [Args.player], "stops a player at once and drops what it had scheduled")
    public var player: Int
    public init(_ a: Arguments) throws(ProtocolError) { player = try a.required(Args.player) }
}

public struct PlayerSeekRequest: PlayerCommandRequest {
    static let offset = CommandArgument<Double>.number("offset").required()
    public static let declaration = CommandDeclaration(
        .playerSeek, .changes, .owner, [Args.player, offset], "moves a player to an offset in its pattern")
    public var player: Int, offset: Double
    public init(_ a: Arguments) throws(ProtocolError) { player = try a.required(Args.player); offset = try a.required(Self.offset) }
}

public struct PlayerSetRequest: PlayerCommandRequest {
    static let loop = CommandArgument<Bool>.bool("loop")
    static let loopEnd = CommandArgument<Double>.number("loop_end")
    static let rate = CommandArgument<Double>.number("rate")
    static let muted = CommandArgument<Bool>.bool("muted")
    public static let declaration = CommandDeclaration(
        .playerSet, .changes, .owner, [Args.player, loop, loopEnd, rate, muted], "changes a player's loop, rate or muting")

    public var player: Int
    public var loop: Bool?, loopEnd: Double?, rate: Double?, muted: Bool?

    public init(_ a: Arguments) throws(ProtocolError) {
        player = try a.required(Args.player)
        loop = try a(Self.loop)
        loopEnd = try a(Self.loopEnd)
        rate = try a(Self.rate)
        muted = try a(Self.muted)
        guard loop != nil || loopEnd != nil || rate != nil || muted != nil else {
            throw ProtocolError(.badRequest, "player.set needs at least one of loop, loop_end, rate, muted")
        }
    }
}

public struct PlayerSendParametersRequest: PlayerCommandRequest {
    static let parameters = CommandArgument<JSONValue>.raw("parameters", .object).required("missing \"parameters\", e.g. {\"intensity\": 0.5}")
    public static let declaration = CommandDeclaration(
        .playerSendParameters, .changes, .owner, [Args.player, parameters] + When.arguments,
        "sends dynamic parameters to a player (at a time)")

    public var player: Int
    public var values: [(DynamicParameterID, Double)]
    public var when: When

    public init(_ a: Arguments) throws(ProtocolError) {
        player = try a.required(Args.player)
        guard case .object(let o) = try a.required(Self.parameters), !o.members.isEmpty else {
            throw ProtocolError(.badRequest, "\"parameters\" must be an object such as {\"intensity\": 0.5, \"sharpness\": -0.2}")
        }
        guard o.members.count <= 16 else { throw ProtocolError(.badRequest, "\"parameters\" holds at most 16 values") }
        var out: [(DynamicParameterID, Double)] = []
        for m in o.members {
            guard let id = DynamicParameterID.named(m.key) else {
                throw ProtocolError(.badRequest, "unknown parameter \"\(m.key)\" (intensity, sharpness, attack, decay, release, or an AHAP dynamic parameter ID)")
            }
            guard case .number(let x) = m.value, x.isFinite else { throw ProtocolError(.badRequest, "parameter \"\(m.key)\" must be a number") }
            guard id.range.contains(x) else {
                throw ProtocolError(.badRequest, "parameter \"\(m.key)\" must be within \(id.range.lowerBound)…\(id.range.upperBound), not \(x)")
            }
            out.append((id, x))
        }
        values = out
        when = try When(a)
    }
}

public struct PlayerScheduleCurveRequest: PlayerCommandRequest {
    static let parameter = CommandArgument<String>.string("parameter").required("missing \"parameter\" (e.g. \"intensity\")")
    static let points = CommandArgument<JSONValue>.raw("points", .array).required("\"points\" must be a non-empty array of [time, value] pairs")
    public static let declaration = CommandDeclaration(
        .playerScheduleCurve, .changes, .owner, [Args.player, parameter, points] + When.arguments,
        "sends a parameter curve to a player (at a time)")

    public var player: Int
    public var curve: ParameterCurve
    public var when: When

    public init(_ a: Arguments) throws(ProtocolError) {
        player = try a.required(Args.player)
        let name = try a.required(Self.parameter)
        guard let id = DynamicParameterID.named(name) else { throw ProtocolError(.badRequest, "unknown parameter \"\(name)\"") }
        guard case .array(let list) = try a.required(Self.points), !list.isEmpty else {
            throw ProtocolError(.badRequest, "\"points\" must be a non-empty array of [time, value] pairs")
        }
        let limits = a.context
        guard list.count <= limits.maxCurvePoints else {
            throw ProtocolError(.limitExceeded, "a curve sent to a player has at most \(limits.maxCurvePoints) points (limits.max_curve_points)")
        }
        var points: [ParameterCurve.ControlPoint] = []
        for item in list {
            var t = 0.0, v = 0.0
            switch item {
            case .array(let pair) where pair.count == 2:
                guard case .number(let x) = pair[0], case .number(let y) = pair[1] else {
                    throw ProtocolError(.badRequest, "a curve point is [time, value] with two numbers")
                }
                t = x
                v = y
            case .object(let o):
                guard case .number(let x)? = o["time"], case .number(let y)? = o["value"] else {
                    throw ProtocolError(.badRequest, "a curve point is [time, value] or {\"time\": …, \"value\": …}")
                }
                t = x
                v = y
            default:
                throw ProtocolError(.badRequest, "a curve point is [time, value] or {\"time\": …, \"value\": …}")
            }
            guard t.isFinite, v.isFinite, t >= 0 else { throw ProtocolError(.badRequest, "curve point times must be ≥ 0 and values finite") }
            guard t <= limits.timeHorizon else {
                throw ProtocolError(.badRequest, "curve point time \(t) s is beyond the \(limits.timeHorizon) s horizon (limits.time_horizon)")
            }
            if let last = points.last, t < last.time { throw ProtocolError(.badRequest, "curve points must be in time order") }
            points.append(.init(t, min(max(v, id.range.lowerBound), id.range.upperBound)))
        }
        curve = ParameterCurve(id, at: 0, points: points)
        when = try When(a)
    }
}

public struct PlayerDestroyRequest: PlayerCommandRequest {
    public static let declaration = CommandDeclaration(
        .playerDestroy, .changes, .owner, [Args.player], "stops and removes a player")
    public var player: Int
    public init(_ a: Arguments) throws(ProtocolError) { player = try a.required(Args.player) }
}

// MARK: engines

/// `engine.start`, `stop`, `reset`, `status`: one engine of a pad.
public protocol EngineRequest: CommandRequest {
    var target: EngineTarget { get }
}

private let everyPlayerOfThePad = "acts on every client's players of the pad"

public struct EngineStartRequest: EngineRequest {
    public static let declaration = CommandDeclaration(
        .engineStart, .changes, .admin(reason: everyPlayerOfThePad), EngineTarget.arguments, "starts a pad's engine")
    public var target: EngineTarget
    public init(_ a: Arguments) throws(ProtocolError) { target = try EngineTarget(a) }
}

public struct EngineStopRequest: EngineRequest {
    public static let declaration = CommandDeclaration(
        .engineStop, .changes, .admin(reason: everyPlayerOfThePad), EngineTarget.arguments,
        "stops a pad's engine (its other clients get `engine.stopped`)")
    public var target: EngineTarget
    public init(_ a: Arguments) throws(ProtocolError) { target = try EngineTarget(a) }
}

public struct EngineResetRequest: EngineRequest {
    public static let declaration = CommandDeclaration(
        .engineReset, .changes, .admin(reason: everyPlayerOfThePad), EngineTarget.arguments,
        "resets a pad's engine: its players are invalidated")
    public var target: EngineTarget
    public init(_ a: Arguments) throws(ProtocolError) { target = try EngineTarget(a) }
}

public struct EngineStatusRequest: EngineRequest {
    public static let declaration = CommandDeclaration(
        .engineStatus, .reads, .anyone, EngineTarget.arguments, "an engine's state, clock and this connection's players on it")
    public var target: EngineTarget
    public init(_ a: Arguments) throws(ProtocolError) { target = try EngineTarget(a) }
}

public struct GainSetRequest: CommandRequest {
    static let gain = CommandArgument<Double>.number("gain", within: 0...1).required()
    public static let declaration = CommandDeclaration(
        .gainSet, .changes, .admin(reason: "changes the pad for every client"), [Args.device, gain], "a pad's gain (0…1)")
    public var device: Int?
    public var gain: Double
    public init(_ a: Arguments) throws(ProtocolError) {
        device = try a(Args.device)
        gain = try a.required(Self.gain)
    }
}

public struct StopAllRequest: CommandRequest {
    public static let declaration = CommandDeclaration(
        .stopAll, .changes, .anyone, [], "stops this user's players (an admin's: everyone's)")
    public init(_ a: Arguments) {}
}

// MARK: feedback and rumble

public struct FeedbackRequest: CommandRequest {
    /// UIKit's feedback types, their styles and the style when none is given.
    public static let styles: [String: (styles: [String], fallback: String?)] = [
        "impact": (["light", "medium", "heavy", "soft", "rigid"], "medium"),
        "selection": ([], nil),
        "notification": (["success", "warning", "error"], "success"),
    ]
    static let type = CommandArgument<String>.string("type").required("missing \"type\": impact, selection or notification")
    static let style = CommandArgument<String>.string("style")
    static let intensity = CommandArgument<Double>.number("intensity", within: 0...1)
    static let important = CommandArgument<Bool>.bool("important")
    public static let declaration = CommandDeclaration(
        .feedback, .changes, .anyone, [type, style, intensity, important] + PlayerPlacement.arguments,
        "UIKit-style feedback: plays the pattern `type-style`")

    /// The feedback pattern's name (`impact-heavy`, `selection`).
    public var pattern: String
    public var intensity: Double?
    public var important: Bool
    public var placement: PlayerPlacement

    public init(_ a: Arguments) throws(ProtocolError) {
        let type = try a.required(Self.type)
        guard let known = Self.styles[type] else {
            throw ProtocolError(.badRequest, "unknown feedback type \"\(type)\" (impact, selection, notification)")
        }
        pattern = type
        if let fallback = known.fallback {
            let style = try a(Self.style) ?? fallback
            guard known.styles.contains(style) else {
                throw ProtocolError(.badRequest, "unknown \(type) style \"\(style)\" (\(known.styles.joined(separator: ", ")))")
            }
            pattern = "\(type)-\(style)"
        } else if a.has(Self.style) {
            throw ProtocolError(.badRequest, "selection feedback has no style")
        }
        intensity = try a(Self.intensity)
        important = try a(Self.important) ?? false
        placement = try PlayerPlacement(a)
    }
}

public struct PrepareRequest: CommandRequest {
    public static let declaration = CommandDeclaration(
        .prepare, .changes, .anyone, EngineTarget.arguments, "readies a pad for feedback with the least latency")
    public var target: EngineTarget
    public init(_ a: Arguments) throws(ProtocolError) { target = try EngineTarget(a) }
}

public struct RumbleRequest: CommandRequest {
    static let both = "give \"strong\" and \"weak\" (0…1) and \"duration\" (seconds)"
    static let strong = CommandArgument<Double>.number("strong").required(both)
    static let weak = CommandArgument<Double>.number("weak").required(both)
    static let duration = CommandArgument<Double>.number("duration")
    static let delay = CommandArgument<Double>.number("delay")
    public static let declaration = CommandDeclaration(
        .rumble, .changes, .anyone, [strong, weak, duration, delay] + PlayerPlacement.argumentsWithoutPattern,
        "both motors for a time (SDL, the Web Gamepad API); replaces this connection's previous rumble (a playing one is changed in place: the same player), 0/0 stops it")

    public var strong: Double, weak: Double
    /// nil when both magnitudes are 0 (a stop).
    public var duration: Double?
    public var delay: Double
    public var placement: PlayerPlacement

    public init(_ a: Arguments) throws(ProtocolError) {
        strong = try a.required(Self.strong)
        weak = try a.required(Self.weak)
        guard (0...1).contains(strong), (0...1).contains(weak) else {
            throw ProtocolError(.badRequest, "\"strong\" and \"weak\" must be within 0…1, not \(strong) and \(weak)")
        }
        delay = try a(Self.delay) ?? 0
        guard delay >= 0, delay <= a.context.timeHorizon else {
            throw ProtocolError(.badRequest, "\"delay\" must be within 0…\(a.context.timeHorizon) s (limits.time_horizon)")
        }
        if strong > 0 || weak > 0 {
            guard let duration = try a(Self.duration) else { throw ProtocolError(.badRequest, "missing \"duration\" (seconds)") }
            guard duration > 0 else { throw ProtocolError(.badRequest, "\"duration\" must be > 0 (0/0 magnitudes stop a rumble)") }
            self.duration = duration
        }
        placement = try PlayerPlacement(a, withPattern: false)
    }
}

// MARK: policy

public struct HelloRequest: CommandRequest {
    static let app = CommandArgument<String>.string("app").required("missing \"app\" (an app id such as \"org.example.Game\")")
        .validated { app throws(ProtocolError) in
            guard (1...128).contains(app.utf8.count), app.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
                throw ProtocolError(.badRequest, "\"app\" is 1…128 printable characters without spaces")
            }
        }
    public static let declaration = CommandDeclaration(.hello, .changes, .anyone, [app], "names this connection's app (policy rules)")
    public var app: String
    public init(_ a: Arguments) throws(ProtocolError) { app = try a.required(Self.app) }
}

public struct PolicyRequest: CommandRequest {
    public static let declaration = CommandDeclaration(.policy, .reads, .anyone, [], "the policy in force for this connection")
    public init(_ a: Arguments) {}
}

/// The policy's global mode: who is heard (feedbackd calls it a profile; hapticd keeps "profile" for
/// a pad's device profile).
public enum PolicyMode: String, Sendable, CaseIterable {
    /// Everything.
    case full
    /// Only `important` feedback from apps allowed to send it.
    case quiet
    /// Nothing.
    case silent
}

public struct PolicySetRequest: CommandRequest {
    /// `mode`; `profile`, its name until hapticd 0.5, is still read when `mode` is absent.
    static let mode = CommandArgument<PolicyMode>("mode", .string) { r, _ throws(ProtocolError) in
        var name = try r.string("mode")
        if name == nil { name = try r.string("profile") }
        guard let name else { return nil }
        guard let m = PolicyMode(rawValue: name) else { throw ProtocolError(.badRequest, "unknown mode \"\(name)\" (full, quiet, silent)") }
        return m
    }
    static let maxStrength = CommandArgument<Double>.number("max_strength", within: 0...1, showing: false)
    static let duck = CommandArgument<Double>.number("duck", within: 0...1, showing: false)
    public static let declaration = CommandDeclaration(
        .policySet, .changes, .admin(reason: "changes what every client is heard at"), [mode, maxStrength, duck],
        "the global mode, strength ceiling and ducking, until the next reload")

    public var mode: PolicyMode?
    public var maxStrength: Double?
    public var duck: Double?

    public init(_ a: Arguments) throws(ProtocolError) {
        mode = try a(Self.mode)
        maxStrength = try a(Self.maxStrength)
        duck = try a(Self.duck)
        guard mode != nil || maxStrength != nil || duck != nil else {
            throw ProtocolError(.badRequest, "policy.set needs at least one of mode, max_strength, duck")
        }
    }
}
