/// Event parameter IDs (`EventParameters[].ParameterID`) with their ranges and defaults.
public enum EventParameterID: String, CaseIterable, Sendable {
    case hapticIntensity = "HapticIntensity"
    case hapticSharpness = "HapticSharpness"
    case attackTime = "AttackTime"
    case decayTime = "DecayTime"
    case releaseTime = "ReleaseTime"
    case sustained = "Sustained"
    case audioVolume = "AudioVolume"
    case audioPitch = "AudioPitch"
    case audioPan = "AudioPan"
    case audioBrightness = "AudioBrightness"

    public var range: ClosedRange<Double> {
        switch self {
        case .audioPitch, .audioPan: -1...1
        default: 0...1
        }
    }

    public var defaultValue: Double {
        switch self {
        case .hapticIntensity: 1
        case .hapticSharpness: 0.5
        case .sustained: 1
        case .audioVolume: 1
        case .audioBrightness: 1
        default: 0
        }
    }

    public var isAudio: Bool { rawValue.hasPrefix("Audio") }
}

/// Dynamic parameter IDs (`Parameter` and `ParameterCurve` elements, and live player updates).
public enum DynamicParameterID: String, CaseIterable, Sendable {
    case hapticIntensityControl = "HapticIntensityControl"
    case hapticSharpnessControl = "HapticSharpnessControl"
    case hapticAttackTimeControl = "HapticAttackTimeControl"
    case hapticDecayTimeControl = "HapticDecayTimeControl"
    case hapticReleaseTimeControl = "HapticReleaseTimeControl"
    case audioVolumeControl = "AudioVolumeControl"
    case audioPanControl = "AudioPanControl"
    case audioBrightnessControl = "AudioBrightnessControl"
    case audioPitchControl = "AudioPitchControl"
    case audioAttackTimeControl = "AudioAttackTimeControl"
    case audioDecayTimeControl = "AudioDecayTimeControl"
    case audioReleaseTimeControl = "AudioReleaseTimeControl"

    public var range: ClosedRange<Double> {
        switch self {
        case .hapticIntensityControl, .audioVolumeControl: 0...1
        default: -1...1
        }
    }

    /// Intensity and volume controls multiply (neutral 1); every other control adds (neutral 0).
    public var defaultValue: Double {
        switch self {
        case .hapticIntensityControl, .audioVolumeControl: 1
        default: 0
        }
    }

    public var isAudio: Bool { rawValue.hasPrefix("Audio") }

    /// Short names used on the command line and in the socket protocol (`intensity`, `sharpness`, …).
    public static func named(_ name: String) -> DynamicParameterID? {
        if let id = DynamicParameterID(rawValue: name) { return id }
        switch name.lowercased() {
        case "intensity": return .hapticIntensityControl
        case "sharpness": return .hapticSharpnessControl
        case "attack": return .hapticAttackTimeControl
        case "decay": return .hapticDecayTimeControl
        case "release": return .hapticReleaseTimeControl
        default: return nil
        }
    }
}
