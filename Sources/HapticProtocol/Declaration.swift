import HapticCore

/// How the protocol declares a command: its name, its arguments, whether it changes state, who may send
/// it — once, in `Requests.swift`. The daemon dispatches by these declarations, `hapticd
/// --dump-protocol` prints them, and tests check docs/PROTOCOL.md and every client against them.

/// Whether a command only reads the daemon's state or changes it (a changing command gets a render
/// pass right after it, and a device that fails then fails the command).
public enum Effect: String, Sendable, CaseIterable {
    case reads, changes
}

/// Who may send a command.
public enum Permission: Sendable, Equatable {
    /// Every connection the daemon admitted.
    case anyone
    /// The owner of the player the request names (`player`), or the same user / root for an orphan.
    case owner
    /// Root or an admin (`clients.admin_uids`/`admin_gids`); `reason` ends the refusal's first clause,
    /// after the command's name ("gain.set changes the pad for every client").
    case admin(reason: String)

    public var name: String {
        switch self {
        case .anyone: "anyone"
        case .owner: "owner"
        case .admin: "admin"
        }
    }
}

/// The JSON type of an argument, as the dump and the documentation name it.
public enum ArgumentType: String, Sendable, CaseIterable {
    case integer, number, string, boolean, object, array
    /// A time on the engine clock (a number ≥ 0) or `"now"`.
    case time
}

/// One argument of a command: a request member.
public struct ArgumentSpec: Sendable, Equatable {
    public var name: String
    public var type: ArgumentType
    public var required: Bool

    public init(_ name: String, _ type: ArgumentType, required: Bool = false) {
        self.name = name
        self.type = type
        self.required = required
    }
}

/// One command as declared.
public struct CommandDeclaration: Sendable {
    public var command: Command
    public var effect: Effect
    public var permission: Permission
    public var arguments: [ArgumentSpec]
    /// One line for the protocol's command table.
    public var summary: String

    public init(_ command: Command, _ effect: Effect, _ permission: Permission, _ arguments: [any AnyArgument], _ summary: String) {
        self.command = command
        self.effect = effect
        self.permission = permission
        self.arguments = arguments.map(\.spec)
        self.summary = summary
    }

    public var name: String { command.rawValue }
}

/// An argument without its Swift type, for listing.
public protocol AnyArgument: Sendable {
    var spec: ArgumentSpec { get }
}

/// A typed argument: its spec and how a member becomes a `Value`, with the error that names the
/// member when it cannot. Requests read members only through these (`Arguments`).
public struct CommandArgument<Value: Sendable>: AnyArgument {
    public let spec: ArgumentSpec
    /// The error's message when a required member is absent.
    let missingMessage: String
    let read: @Sendable (Request, DecodingContext) throws(ProtocolError) -> Value?

    public init(
        _ name: String, _ type: ArgumentType, required: Bool = false, missingMessage: String? = nil,
        read: @escaping @Sendable (Request, DecodingContext) throws(ProtocolError) -> Value?
    ) {
        spec = ArgumentSpec(name, type, required: required)
        self.missingMessage = missingMessage ?? "missing \"\(name)\""
        self.read = read
    }

    /// The same argument, required; `message` says what to send when it is missing.
    public func required(_ message: String? = nil) -> CommandArgument<Value> {
        CommandArgument(spec.name, spec.type, required: true, missingMessage: message, read: read)
    }

    /// The same argument with a check of its value after decoding.
    public func validated(_ check: @escaping @Sendable (Value) throws(ProtocolError) -> Void) -> CommandArgument<Value> {
        let read = self.read
        return CommandArgument(spec.name, spec.type, required: spec.required, missingMessage: missingMessage) { r, c throws(ProtocolError) in
            guard let v = try read(r, c) else { return nil }
            try check(v)
            return v
        }
    }
}

extension CommandArgument where Value == Double {
    /// A finite number.
    public static func number(_ name: String) -> Self {
        Self(name, .number) { r, _ throws(ProtocolError) in try r.number(name) }
    }

    /// A finite number within `range` ("\"gain\" must be within 0…1, not 2").
    public static func number(_ name: String, within range: ClosedRange<Double>, showing: Bool = true) -> Self {
        number(name).validated { x throws(ProtocolError) in
            guard range.contains(x) else {
                throw ProtocolError(.badRequest, "\"\(name)\" must be within \(range.lowerBound.compact)…\(range.upperBound.compact)" + (showing ? ", not \(x)" : ""))
            }
        }
    }
}

extension CommandArgument where Value == Int {
    public static func integer(_ name: String) -> Self {
        Self(name, .integer) { r, _ throws(ProtocolError) in try r.integer(name) }
    }
}

extension CommandArgument where Value == String {
    public static func string(_ name: String) -> Self {
        Self(name, .string) { r, _ throws(ProtocolError) in try r.string(name) }
    }
}

extension CommandArgument where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// A string naming one of `Value`'s cases; anything else is refused with the list
    /// ("unknown locality \"nose\" (known: default, all, …)"). `what` names the kind in the error.
    public static func oneOf(_ name: String, _ what: String) -> Self {
        Self(name, .string) { r, _ throws(ProtocolError) in
            guard let raw = try r.string(name) else { return nil }
            guard let value = Value(rawValue: raw) else {
                throw ProtocolError(.badRequest, "unknown \(what) \"\(raw)\" (known: \(Value.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return value
        }
    }
}

extension CommandArgument where Value == Bool {
    public static func bool(_ name: String) -> Self {
        Self(name, .boolean) { r, _ throws(ProtocolError) in try r.bool(name) }
    }
}

extension CommandArgument where Value == JSONValue {
    /// Any JSON value of the given type, checked by the request that reads it.
    public static func raw(_ name: String, _ type: ArgumentType) -> Self {
        Self(name, type) { r, _ throws(ProtocolError) in r.optional(name) }
    }
}

/// What decoding may depend on besides the request: the daemon's configured bounds.
public struct DecodingContext: Sendable {
    public var patternLimits: AHAPLimits
    /// `limits.time_horizon`: the latest time anything may be scheduled for (seconds).
    public var timeHorizon: Double
    /// `limits.max_curve_points`.
    public var maxCurvePoints: Int
    /// Takes the text of the sender's upload of that number (`pattern.upload`) for the `upload`
    /// member of `play` and `player.create`: its bytes, or the error naming what is wrong. Without
    /// one (a request decoded outside a connection), no upload exists.
    public var takeUpload: (@Sendable (Int) -> Result<[UInt8], ProtocolError>)?

    public init(patternLimits: AHAPLimits = .default, timeHorizon: Double = 86_400, maxCurvePoints: Int = 1024) {
        self.patternLimits = patternLimits
        self.timeHorizon = timeHorizon
        self.maxCurvePoints = maxCurvePoints
    }
}

/// A request's members, read through its command's declared arguments.
public struct Arguments: Sendable {
    public let request: Request
    public let context: DecodingContext
    let declared: [ArgumentSpec]

    public init(_ request: Request, declared: [ArgumentSpec], context: DecodingContext = DecodingContext()) {
        self.request = request
        self.declared = declared
        self.context = context
    }

    /// The argument's value, or nil when the member is absent (or null); the argument's own error when
    /// it is there but not valid, and `missing "name"` when it is required and absent.
    public func callAsFunction<V>(_ argument: CommandArgument<V>) throws(ProtocolError) -> V? {
        assert(declared.contains(argument.spec), "\(request.command) reads the undeclared argument \"\(argument.spec.name)\"")
        let value = try argument.read(request, context)
        if value == nil, argument.spec.required { throw ProtocolError(.badRequest, argument.missingMessage) }
        return value
    }

    /// A required argument's value.
    public func required<V>(_ argument: CommandArgument<V>) throws(ProtocolError) -> V {
        guard let v = try self(argument) else { throw ProtocolError(.badRequest, argument.missingMessage) }
        return v
    }

    /// Whether the member is present (and not null), whatever its value.
    public func has<V>(_ argument: CommandArgument<V>) -> Bool { request.optional(argument.spec.name) != nil }
}

/// A command's request, decoded: one type per command, declared with it.
public protocol CommandRequest: Sendable {
    static var declaration: CommandDeclaration { get }
    init(_ arguments: Arguments) throws(ProtocolError)
}

extension CommandRequest {
    /// Decodes a request of this command.
    public static func decode(_ request: Request, context: DecodingContext = DecodingContext()) throws(ProtocolError) -> Self {
        try Self(Arguments(request, declared: declaration.arguments, context: context))
    }
}

extension Double {
    /// `1` rather than `1.0` in messages.
    var compact: String { self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self) }
}
