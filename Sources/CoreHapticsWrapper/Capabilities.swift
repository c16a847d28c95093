// CoreHaptics_Capabilities_*: parameter ranges (C#: CHHapticCapabilitiesInterface). The C# passes
// `int`s (Apple's Swift declares `Int`, 8 bytes): the C# is followed.
import CoreHaptics

/// The ranges hapticd plays with; for a parameter it does not know (the audio ones), Apple's own
/// figures for hardware without haptics, as Apple's wrapper falls back to.
enum Ranges {
    static func event(_ id: Int32, _ type: Int32) -> (min: Float, def: Float, max: Float) {
        if let a = try? CHHapticEngine.capabilitiesForHardware().attributes(forEventParameter: eventParameter(id), eventType: eventType(type)) {
            return (a.minValue, a.defaultValue, a.maxValue)
        }
        switch eventParameter(id) {
        case .audioPitch, .audioPan: return (-1, 0, 1)
        case .audioVolume, .audioBrightness: return (0, 1, 1)
        default: return (0, 0, 1)
        }
    }

    static func dynamic(_ id: Int32) -> (min: Float, def: Float, max: Float) {
        if let a = try? CHHapticEngine.capabilitiesForHardware().attributes(forDynamicParameter: dynamicParameter(id)) {
            return (a.minValue, a.defaultValue, a.maxValue)
        }
        switch dynamicParameter(id) {
        case .hapticIntensityControl, .audioVolumeControl: return (0, 1, 1)
        default: return (-1, 0, 1)
        }
    }
}

@_cdecl("CoreHaptics_Capabilities_MinValueForEventParameter")
public func CoreHaptics_Capabilities_MinValueForEventParameter(_ parameterId: Int32, _ eventType: Int32) -> Float {
    Ranges.event(parameterId, eventType).min
}

@_cdecl("CoreHaptics_Capabilities_DefaultValueForEventParameter")
public func CoreHaptics_Capabilities_DefaultValueForEventParameter(_ parameterId: Int32, _ eventType: Int32) -> Float {
    Ranges.event(parameterId, eventType).def
}

@_cdecl("CoreHaptics_Capabilities_MaxValueForEventParameter")
public func CoreHaptics_Capabilities_MaxValueForEventParameter(_ parameterId: Int32, _ eventType: Int32) -> Float {
    Ranges.event(parameterId, eventType).max
}

@_cdecl("CoreHaptics_Capabilities_MinValueForDynamicParameter")
public func CoreHaptics_Capabilities_MinValueForDynamicParameter(_ parameterId: Int32) -> Float {
    Ranges.dynamic(parameterId).min
}

@_cdecl("CoreHaptics_Capabilities_DefaultValueForDynamicParameter")
public func CoreHaptics_Capabilities_DefaultValueForDynamicParameter(_ parameterId: Int32) -> Float {
    Ranges.dynamic(parameterId).def
}

@_cdecl("CoreHaptics_Capabilities_MaxValueForDynamicParameter")
public func CoreHaptics_Capabilities_MaxValueForDynamicParameter(_ parameterId: Int32) -> Float {
    Ranges.dynamic(parameterId).max
}
