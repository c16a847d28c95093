internal import HapticCore

/// A haptic pattern: events, dynamic parameters and parameter curves. Apple's `CHHapticPattern`.
///
/// Every initializer loads the pattern the way hapticd loads an AHAP file (docs/rendering.md §1): out
/// of range values are clamped, unknown keys ignored, Apple's own samples' trailing commas and `//`
/// comments accepted; what cannot be played throws a `CHHapticError` that says where.
open class CHHapticPattern: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.

    /// The keys of a pattern dictionary (`init(dictionary:)`, `exportDictionary()`).
    ///
    /// On Apple platforms `Key` is a struct that Objective-C bridges to and from `NSString`, which is
    /// what lets `JSONSerialization.jsonObject(with:) as? [CHHapticPattern.Key: Any]` succeed there.
    /// Swift on Linux has no such bridging for a struct, so here `Key` is `String` itself: the same
    /// cast succeeds, and `.pattern`, `.event`, `Key(rawValue:)`, `.rawValue` are all spelled as Apple
    /// spells them (they are members of `String` in this module's extension).
    public typealias Key = String

    let model: HapticPattern
    /// The audio resources its events name (`CHHapticEvent(audioResourceID:…)`): a player of it needs
    /// them registered with its engine, and such a pattern cannot be exported (Apple).
    private(set) var audioResourceIDs: Set<CHHapticAudioResourceID> = []
    var usesAudioResources: Bool { !audioResourceIDs.isEmpty }

    /// Seconds: when the last event, parameter or curve point ends.
    open var duration: TimeInterval { model.duration }

    // Designated, as Apple's are (a subclass may call them).
    public init(events: [CHHapticEvent], parameters: [CHHapticDynamicParameter]) throws {
        model = try Self.model(events, parameters.map(Self.json))
        audioResourceIDs = Set(events.compactMap(\.audioResourceID))
        super.init()
    }

    public init(events: [CHHapticEvent], parameterCurves: [CHHapticParameterCurve]) throws {
        model = try Self.model(events, parameterCurves.map(Self.json))
        audioResourceIDs = Set(events.compactMap(\.audioResourceID))
        super.init()
    }

    /// A pattern made of objects: `events`, then the parameters' or curves' `elements`. Each curve's
    /// control-point times are relative to its own `relativeTime`, as Apple documents — always: the
    /// loader's reading of absolute times, for files that show that convention, is not applied to
    /// curves made as objects.
    private static func model(_ events: [CHHapticEvent], _ elements: [JSONValue]) throws -> HapticPattern {
        try load(.object(JSONObject(["Pattern": .array(events.map(json) + elements)])), as: .invalidPatternData, curveTimes: .relative)
    }

    /// A pattern from an AHAP dictionary, however it was made: a literal keyed `.pattern`, `.event`,
    /// … with Apple's typed values (`CHHapticEvent.EventType.hapticTransient`) or their raw strings,
    /// or `JSONSerialization`'s result for an AHAP file.
    public init(dictionary patternDict: [CHHapticPattern.Key: Any]) throws {
        let json = try DictionaryJSON.value(patternDict, depth: 0)
        model = try Self.load(json, as: .invalidPatternDictionary)
        super.init()
    }

    /// A pattern from an AHAP file (or a Meta Haptics Studio / Lofelt `.haptic` clip, which hapticd
    /// reads too).
    public convenience init(contentsOf ahapURL: URL) throws {
        try self.init(model: Self.load(contentsOf: ahapURL))
    }

    init(model: HapticPattern) {
        self.model = model
        super.init()
    }

    /// The pattern as an AHAP dictionary (`Version`, `Pattern`, and `Metadata` when it has some).
    /// A pattern made with custom audio resource IDs throws `operationNotPermitted`, as Apple's does
    /// ("Patterns containing custom audio resource IDs cannot be exported").
    open func exportDictionary() throws -> [CHHapticPattern.Key: Any] {
        guard !usesAudioResources else {
            throw CHHapticError(.operationNotPermitted, "a pattern with custom audio resource IDs cannot be exported")
        }
        guard case .object(let o) = AHAPWriter.json(model), let d = DictionaryJSON.any(.object(o)) as? [String: Any] else {
            throw CHHapticError(.invalidPatternData, "the pattern cannot be written as AHAP")
        }
        return d
    }

    /// The AHAP document hapticd is sent.
    var json: JSONValue { AHAPWriter.json(model) }

    // MARK: loading

    /// The most a pattern file may hold (hapticd's own default for pattern files).
    static let limits = AHAPLimits.default

    static func load(contentsOf url: URL) throws -> HapticPattern {
        guard url.isFileURL else { throw CHHapticError(.fileNotFound, "\(url): only file URLs can be read") }
        let data: Data
        do {
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            if let size = attributes?[.size] as? Int, size > limits.maximumFileBytes {
                throw CHHapticError(.invalidPatternData, "\(url.path): \(size) bytes, over the pattern file limit of \(limits.maximumFileBytes)")
            }
            data = try Data(contentsOf: url)
        } catch let e as CHHapticError {
            throw e
        } catch {
            throw CHHapticError(.fileNotFound, "\(url.path): \(error.localizedDescription)")
        }
        return try load(data: data, name: url.path)
    }

    static func load(data: Data, name: String = "the pattern data") throws -> HapticPattern {
        guard data.count <= limits.maximumFileBytes else {
            throw CHHapticError(.invalidPatternData, "\(name): \(data.count) bytes, over the pattern file limit of \(limits.maximumFileBytes)")
        }
        do {
            return try PatternLoader.load(bytes: [UInt8](data), format: .auto, limits: limits).pattern
        } catch {
            throw Self.error(error, .invalidPatternData, name)
        }
    }

    static func load(_ json: JSONValue, as fallback: CHHapticError.Code, curveTimes: AHAPLoader.CurveTimes = .decide) throws -> HapticPattern {
        do {
            return try AHAPLoader.load(json: json, limits: limits, curveTimes: curveTimes).pattern
        } catch {
            throw Self.error(error, fallback, "the pattern")
        }
    }

    /// The loader's first problem, as the code Apple would give it.
    static func error(_ e: AHAPLoadError, _ fallback: CHHapticError.Code, _ name: String) -> CHHapticError {
        guard let first = e.errors.first else { return CHHapticError(fallback, "\(name) is not valid") }
        let code: CHHapticError.Code =
            if first.path.hasSuffix(".EventType") { .invalidEventType }
            else if first.path.hasSuffix("Event.Time") { .invalidEventTime }
            else if first.path.hasSuffix(".EventDuration") { .invalidEventDuration }
            else if first.path.hasSuffix(".ParameterID") || first.message.contains("ParameterID") { .invalidParameterType }
            else { fallback }
        let all = e.errors.map(\.description).joined(separator: "; ")
        return CHHapticError(code, "\(name): \(all)")
    }

    // MARK: objects to AHAP

    static func json(_ e: CHHapticEvent) -> JSONValue {
        var o = JSONObject()
        o.append("Time", .number(e.relativeTime))
        o.append("EventType", .string(e.type.rawValue))
        if e.type != .hapticTransient || e.duration != 0 { o.append("EventDuration", .number(e.duration)) }
        if let id = e.audioResourceID { o.append("EventWaveformPath", .string(AudioResources.path(id) ?? "resource-\(id)")) }
        o.append("EventParameters", .array(e.eventParameters.map { p in
            .object(JSONObject(["ParameterID": .string(p.parameterID.rawValue), "ParameterValue": .number(Double(p.value))]))
        }))
        return .object(JSONObject(["Event": .object(o)]))
    }

    static func json(_ p: CHHapticDynamicParameter) -> JSONValue {
        .object(JSONObject(["Parameter": .object(JSONObject([
            "ParameterID": .string(p.parameterID.rawValue), "Time": .number(p.relativeTime), "ParameterValue": .number(Double(p.value)),
        ]))]))
    }

    static func json(_ c: CHHapticParameterCurve) -> JSONValue {
        .object(JSONObject(["ParameterCurve": .object(JSONObject([
            "ParameterID": .string(c.parameterID.rawValue), "Time": .number(c.relativeTime),
            "ParameterCurveControlPoints": .array(c.controlPoints.map { point in
                .object(JSONObject(["Time": .number(point.relativeTime), "ParameterValue": .number(Double(point.value))]))
            }),
        ]))]))
    }
}

/// `CHHapticPattern.Key`'s members, as Apple names them (see `CHHapticPattern.Key`).
extension String {
    public static let version: CHHapticPattern.Key = "Version"
    public static let pattern: CHHapticPattern.Key = "Pattern"
    public static let event: CHHapticPattern.Key = "Event"
    public static let eventType: CHHapticPattern.Key = "EventType"
    public static let time: CHHapticPattern.Key = "Time"
    public static let eventDuration: CHHapticPattern.Key = "EventDuration"
    public static let eventWaveformPath: CHHapticPattern.Key = "EventWaveformPath"
    public static let eventParameters: CHHapticPattern.Key = "EventParameters"
    public static let eventWaveformUseVolumeEnvelope: CHHapticPattern.Key = "EventWaveformUseVolumeEnvelope"
    public static let eventWaveformLoopEnabled: CHHapticPattern.Key = "EventWaveformLoopEnabled"
    public static let parameter: CHHapticPattern.Key = "Parameter"
    public static let parameterID: CHHapticPattern.Key = "ParameterID"
    public static let parameterValue: CHHapticPattern.Key = "ParameterValue"
    public static let parameterCurve: CHHapticPattern.Key = "ParameterCurve"
    public static let parameterCurveControlPoints: CHHapticPattern.Key = "ParameterCurveControlPoints"

    /// `CHHapticPattern.Key.RawValue` (Apple's `Key` is `RawRepresentable` over `String`): what
    /// `enum CodingKeys: CHHapticPattern.Key.RawValue, CodingKey` names (CoreHapticsUtils, found by an
    /// outside check).
    public typealias RawValue = String
    /// `CHHapticPattern.Key(rawValue:)`.
    public init(rawValue: String) { self = rawValue }
    /// `CHHapticPattern.Key.rawValue`.
    public var rawValue: String { self }
}

/// Foundation values (a dictionary literal, `JSONSerialization`'s result) to and from hapticd's JSON.
enum DictionaryJSON {
    /// Nesting deeper than any AHAP document has is refused (a bound, not a limit anyone meets).
    static let maximumDepth = 32

    static func value(_ any: Any?, depth: Int) throws -> JSONValue {
        guard depth <= maximumDepth else {
            throw CHHapticError(.invalidPatternDictionary, "the pattern dictionary is nested more than \(maximumDepth) levels deep")
        }
        guard let any else { return .null }
        switch any {
        case is NSNull: return .null
        case let s as String: return .string(s)
        case let s as Substring: return .string(String(s))
        case let n as NSNumber where type(of: any) != Bool.self && type(of: any) != Int.self && type(of: any) != Double.self:
            // JSONSerialization's numbers; its true and false are NSNumbers of a class of their own.
            return String(describing: type(of: n)).contains("Boolean") ? .bool(n.boolValue) : .number(n.doubleValue)
        case let b as Bool where type(of: any) == Bool.self: return .bool(b)
        case let x as Double: return .number(x)
        case let x as Float: return .number(Double(x))
        case let x as Int: return .number(Double(x))
        case let x as CGFloat: return .number(Double(x))
        case let s as NSString: return .string(String(describing: s))
        case let d as [String: Any]: return try object(d.map { ($0.key, $0.value) }, depth: depth)
        case let d as [AnyHashable: Any]:
            var pairs: [(String, Any)] = []
            for (k, v) in d {
                guard let key = string(k.base) else {
                    throw CHHapticError(.invalidPatternDictionary, "a pattern dictionary's keys are strings, not \(type(of: k.base))")
                }
                pairs.append((key, v))
            }
            return try object(pairs, depth: depth)
        case let a as [Any]: return .array(try a.map { try value($0, depth: depth + 1) })
        default:
            if let s = string(any) { return .string(s) }
            throw CHHapticError(.invalidPatternDictionary, "a pattern dictionary cannot hold a \(type(of: any))")
        }
    }

    /// Keys in a stable order: Apple's documents write `Version` and `Metadata` before `Pattern`, and
    /// an event's `Time` before its `EventType` (order matters only to people reading the result).
    private static func object(_ pairs: [(String, Any)], depth: Int) throws -> JSONValue {
        var o = JSONObject()
        for (k, v) in pairs.sorted(by: { $0.0 < $1.0 }) { o.append(k, try value(v, depth: depth + 1)) }
        return .object(o)
    }

    /// A string, or a value of a type that is a string underneath (`CHHapticEvent.EventType`, …).
    private static func string(_ any: Any) -> String? {
        if let s = any as? String { return s }
        if let r = any as? any RawRepresentable, let s = r.rawValue as? String { return s }
        return nil
    }

    /// As Apple's dictionaries hold them: strings as NSString and numbers as NSNumber, which cast to
    /// `String` and to the string-typed names (`as? CHHapticEvent.EventType`), and to every number
    /// type (`as? Float`, `as? TimeInterval`) alike.
    static func any(_ json: JSONValue) -> Any {
        switch json {
        case .null: NSNull()
        case .bool(let b): b
        case .number(let x): NSNumber(value: x)
        case .string(let s): NSString(string: s)
        case .array(let a): a.map(any)
        case .object(let o): Dictionary(o.members.map { ($0.key, any($0.value)) }, uniquingKeysWith: { _, last in last })
        }
    }
}
