// Apple's string-typed names (`CHHapticEvent.EventType`, `.ParameterID`, `CHHapticDynamicParameter.ID`)
// are NSStrings underneath: a pattern's `exportDictionary()` holds NSStrings, and code casts them
// back (`event[.eventType] as? CHHapticEvent.EventType`). Foundation on Linux bridges a type to
// NSString the same way when it conforms to `_ObjectiveCBridgeable`, which these do, through one
// declaration.
import Foundation

/// A `RawRepresentable` name whose raw value is a String: bridged to and from NSString.
protocol BridgedName: _ObjectiveCBridgeable, RawRepresentable where RawValue == String, _ObjectiveCType == NSString {
    init(rawValue: String)
}

extension BridgedName {
    public func _bridgeToObjectiveC() -> NSString { NSString(string: rawValue) }
    public static func _forceBridgeFromObjectiveC(_ source: NSString, result: inout Self?) { result = Self(rawValue: source._bridgeToSwift()) }
    public static func _conditionallyBridgeFromObjectiveC(_ source: NSString, result: inout Self?) -> Bool {
        result = Self(rawValue: source._bridgeToSwift())
        return true
    }
    public static func _unconditionallyBridgeFromObjectiveC(_ source: NSString?) -> Self { Self(rawValue: source?._bridgeToSwift() ?? "") }
}

extension CHHapticEvent.EventType: _ObjectiveCBridgeable, BridgedName {}
extension CHHapticEvent.ParameterID: _ObjectiveCBridgeable, BridgedName {}
extension CHHapticDynamicParameter.ID: _ObjectiveCBridgeable, BridgedName {}
