/// Errors of Core Haptics, with Apple's codes and domain (`com.apple.CoreHaptics`).
///
/// As on Apple platforms, catch them as `CHHapticError` and switch on `code`, or match a code
/// directly (`catch CHHapticError.engineNotRunning`); `localizedDescription` says what happened in
/// hapticd's words (the daemon's own message where it sent one).
///
/// Where hapticd's errors come from:
/// - no daemon at the socket (`CHHapticEngine()`, `start()`): `serverInitFailed`;
/// - the daemon went away, or did not answer in time: `serverInterrupted`;
/// - an AHAP file or dictionary that does not load: `invalidPatternData` / `invalidPatternDictionary`
///   (or `invalidEventType`, `invalidEventTime`, `invalidEventDuration`, `invalidParameterType` when
///   the problem is that), a missing file: `fileNotFound`;
/// - a player used after its engine was reset, or destroyed: `invalidPatternPlayer`;
/// - the engine stopped (by `stop()`, idle shutdown, pad removal, or an administrator): `engineNotRunning`;
/// - no pad connected, or a locality the pad does not have: `notSupported`;
/// - a daemon limit reached (players per connection, scheduled commands): `resourceNotAvailable`;
/// - something the daemon's policy forbids: `operationNotPermitted`.
public struct CHHapticError: CustomNSError, Hashable, @unchecked Sendable {
    // @unchecked Sendable: `userInfo` holds only the message strings this module puts there.

    /// Apple's error codes (`CHHapticErrorCode`).
    public enum Code: Int, Sendable, Hashable {
        case engineNotRunning = -4805
        case operationNotPermitted = -4806
        case engineStartTimeout = -4808
        case notSupported = -4809
        case serverInitFailed = -4810
        case serverInterrupted = -4811
        case invalidPatternPlayer = -4812
        case invalidPatternData = -4813
        case invalidPatternDictionary = -4814
        case invalidAudioSession = -4815
        case invalidEngineParameter = -4816
        case invalidParameterType = -4820
        case invalidEventType = -4821
        case invalidEventTime = -4822
        case invalidEventDuration = -4823
        case invalidAudioResource = -4824
        case resourceNotAvailable = -4825
        case badEventEntry = -4830
        case badParameterEntry = -4831
        case invalidTime = -4840
        case fileNotFound = -4851
        case insufficientPower = -4897
        case unknownError = -4898
        case memoryError = -4899
    }

    public static var errorDomain: String { "com.apple.CoreHaptics" }

    public let code: Code
    public let userInfo: [String: Any]

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.userInfo = userInfo
    }

    /// The error with hapticd's explanation as its `localizedDescription`.
    init(_ code: Code, _ message: String) {
        self.init(code, userInfo: [NSLocalizedDescriptionKey: message])
    }

    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { userInfo }

    public static func == (a: CHHapticError, b: CHHapticError) -> Bool { a.code == b.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public static var engineNotRunning: Code { .engineNotRunning }
    public static var operationNotPermitted: Code { .operationNotPermitted }
    public static var engineStartTimeout: Code { .engineStartTimeout }
    public static var notSupported: Code { .notSupported }
    public static var serverInitFailed: Code { .serverInitFailed }
    public static var serverInterrupted: Code { .serverInterrupted }
    public static var invalidPatternPlayer: Code { .invalidPatternPlayer }
    public static var invalidPatternData: Code { .invalidPatternData }
    public static var invalidPatternDictionary: Code { .invalidPatternDictionary }
    public static var invalidAudioSession: Code { .invalidAudioSession }
    public static var invalidEngineParameter: Code { .invalidEngineParameter }
    public static var invalidParameterType: Code { .invalidParameterType }
    public static var invalidEventType: Code { .invalidEventType }
    public static var invalidEventTime: Code { .invalidEventTime }
    public static var invalidEventDuration: Code { .invalidEventDuration }
    public static var invalidAudioResource: Code { .invalidAudioResource }
    public static var resourceNotAvailable: Code { .resourceNotAvailable }
    public static var badEventEntry: Code { .badEventEntry }
    public static var badParameterEntry: Code { .badParameterEntry }
    public static var invalidTime: Code { .invalidTime }
    public static var fileNotFound: Code { .fileNotFound }
    public static var insufficientPower: Code { .insufficientPower }
    public static var unknownError: Code { .unknownError }
    public static var memoryError: Code { .memoryError }
}

/// What `print(error)` shows on Apple's platforms, where the error is an `NSError`:
/// `Error Domain=com.apple.CoreHaptics Code=-4805 "…"` (`"(null)"` without a description) — the
/// line programs log and people search for.
extension CHHapticError: CustomStringConvertible {
    public var description: String {
        let message = (userInfo[NSLocalizedDescriptionKey] as? String).map { "\"\($0)\"" } ?? "\"(null)\""
        return "Error Domain=\(Self.errorDomain) Code=\(code.rawValue) \(message)"
    }
}

extension CHHapticError.Code {
    /// `catch CHHapticError.engineNotRunning { … }`, as with Apple's imported error codes.
    public static func ~= (code: CHHapticError.Code, error: any Error) -> Bool {
        (error as? CHHapticError)?.code == code
    }
}

/// `catch let error as NSError`, `error as? NSError` and `nsError as? CHHapticError`, as on Apple
/// platforms, where the Objective-C runtime bridges the two. swift-corelibs-foundation bridges a
/// Swift error to `NSError` only by the unconditional `as`; a conditional cast failed — and in a
/// function that does not throw, where the compiler takes `catch let error as NSError` as exhaustive
/// (as it is on Apple's platforms), a `CHHapticError` reached no clause and crashed the program (an
/// outside check). The runtime's casts do use `_ObjectiveCBridgeable` without Objective-C, as they
/// do for `String` and `NSString`: with it every such cast works here too. An `NSError` bridges back
/// when its domain is `CoreHapticsErrorDomain` and its code is one of Apple's.
extension CHHapticError: _ObjectiveCBridgeable {
    public typealias _ObjectiveCType = NSError

    public func _bridgeToObjectiveC() -> NSError {
        NSError(domain: Self.errorDomain, code: code.rawValue, userInfo: userInfo)
    }

    public static func _forceBridgeFromObjectiveC(_ source: NSError, result: inout CHHapticError?) {
        result = _unconditionallyBridgeFromObjectiveC(source)
    }

    public static func _conditionallyBridgeFromObjectiveC(_ source: NSError, result: inout CHHapticError?) -> Bool {
        guard source.domain == errorDomain, let code = Code(rawValue: source.code) else { return false }
        result = CHHapticError(code, userInfo: source.userInfo)
        return true
    }

    public static func _unconditionallyBridgeFromObjectiveC(_ source: NSError?) -> CHHapticError {
        var result: CHHapticError?
        if let source, _conditionallyBridgeFromObjectiveC(source, result: &result), let result { return result }
        return CHHapticError(.unknownError, userInfo: source?.userInfo ?? [:])
    }
}

/// Apple's domain constant.
public let CoreHapticsErrorDomain = "com.apple.CoreHaptics"
