/// One haptic (or audio) event of a pattern: Apple's `CHHapticEvent`.
///
/// Not `Sendable`, as Apple's is not (a program may subclass it): a pattern copies what it needs of
/// its events when it is made, so the event objects never cross threads inside this library.
open class CHHapticEvent: NSObject {

    /// The kind of event (`HapticTransient`, `HapticContinuous`, `AudioContinuous`, `AudioCustom`).
    public struct EventType: Hashable, Equatable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public static let hapticTransient = EventType("HapticTransient")
        public static let hapticContinuous = EventType("HapticContinuous")
        /// Accepted and skipped: a pad has no speaker (docs/clients.md).
        public static let audioContinuous = EventType("AudioContinuous")
        /// Accepted and skipped: a pad has no speaker (docs/clients.md).
        public static let audioCustom = EventType("AudioCustom")
    }

    /// An event parameter's identifier.
    public struct ParameterID: Hashable, Equatable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public static let hapticIntensity = ParameterID("HapticIntensity")
        public static let hapticSharpness = ParameterID("HapticSharpness")
        public static let attackTime = ParameterID("AttackTime")
        public static let decayTime = ParameterID("DecayTime")
        public static let releaseTime = ParameterID("ReleaseTime")
        public static let sustained = ParameterID("Sustained")
        public static let audioVolume = ParameterID("AudioVolume")
        public static let audioPitch = ParameterID("AudioPitch")
        public static let audioPan = ParameterID("AudioPan")
        public static let audioBrightness = ParameterID("AudioBrightness")
    }

    open private(set) var type: EventType
    open private(set) var eventParameters: [CHHapticEventParameter]
    /// Seconds from the start of the pattern.
    open var relativeTime: TimeInterval
    /// Seconds (continuous events; 0 for a transient).
    open var duration: TimeInterval
    /// For audio events made from a registered resource.
    var audioResourceID: CHHapticAudioResourceID?

    public init(eventType type: EventType, parameters eventParams: [CHHapticEventParameter], relativeTime time: TimeInterval) {
        self.type = type
        eventParameters = eventParams
        relativeTime = time
        duration = 0
        super.init()
    }

    public init(
        eventType type: EventType, parameters eventParams: [CHHapticEventParameter], relativeTime time: TimeInterval, duration: TimeInterval
    ) {
        self.type = type
        eventParameters = eventParams
        relativeTime = time
        self.duration = duration
        super.init()
    }

    /// An audio event: accepted, and skipped when played (a pad has no speaker).
    public init(audioResourceID resID: CHHapticAudioResourceID, parameters eventParams: [CHHapticEventParameter], relativeTime time: TimeInterval) {
        type = .audioCustom
        eventParameters = eventParams
        relativeTime = time
        duration = 0
        audioResourceID = resID
        super.init()
    }

    /// An audio event: accepted, and skipped when played (a pad has no speaker).
    public init(
        audioResourceID resID: CHHapticAudioResourceID, parameters eventParams: [CHHapticEventParameter], relativeTime time: TimeInterval,
        duration: TimeInterval
    ) {
        type = .audioCustom
        eventParameters = eventParams
        relativeTime = time
        self.duration = duration
        audioResourceID = resID
        super.init()
    }
}

/// A value of one of an event's parameters: Apple's `CHHapticEventParameter`.
open class CHHapticEventParameter: NSObject {
    open private(set) var parameterID: CHHapticEvent.ParameterID
    open var value: Float

    public init(parameterID: CHHapticEvent.ParameterID, value: Float) {
        self.parameterID = parameterID
        self.value = value
        super.init()
    }
}

/// A value that changes every sounding event of a playing pattern from its time on: Apple's
/// `CHHapticDynamicParameter`.
open class CHHapticDynamicParameter: NSObject {

    /// A dynamic parameter's identifier.
    public struct ID: Hashable, Equatable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public static let hapticIntensityControl = ID("HapticIntensityControl")
        public static let hapticSharpnessControl = ID("HapticSharpnessControl")
        public static let hapticAttackTimeControl = ID("HapticAttackTimeControl")
        public static let hapticDecayTimeControl = ID("HapticDecayTimeControl")
        public static let hapticReleaseTimeControl = ID("HapticReleaseTimeControl")
        /// The audio controls are accepted and have no effect (a pad has no speaker).
        public static let audioVolumeControl = ID("AudioVolumeControl")
        public static let audioPanControl = ID("AudioPanControl")
        public static let audioBrightnessControl = ID("AudioBrightnessControl")
        public static let audioPitchControl = ID("AudioPitchControl")
        public static let audioAttackTimeControl = ID("AudioAttackTimeControl")
        public static let audioDecayTimeControl = ID("AudioDecayTimeControl")
        public static let audioReleaseTimeControl = ID("AudioReleaseTimeControl")
    }

    open private(set) var parameterID: ID
    open var value: Float
    /// Seconds from the pattern's start (in a pattern) or from the `atTime:` it is sent with.
    open var relativeTime: TimeInterval

    public init(parameterID: ID, value: Float, relativeTime time: TimeInterval) {
        self.parameterID = parameterID
        self.value = value
        relativeTime = time
        super.init()
    }
}

/// A dynamic parameter that follows a line through control points: Apple's `CHHapticParameterCurve`.
open class CHHapticParameterCurve: NSObject {

    /// One point of a curve: Apple's `CHHapticParameterCurveControlPoint`.
    open class ControlPoint: NSObject {
        /// Seconds from the curve's own time.
        open var relativeTime: TimeInterval
        open var value: Float

        public init(relativeTime time: TimeInterval, value: Float) {
            relativeTime = time
            self.value = value
            super.init()
        }
    }

    open private(set) var parameterID: CHHapticDynamicParameter.ID
    /// Seconds from the pattern's start (in a pattern); `scheduleParameterCurve(_:atTime:)` sets it
    /// to its `atTime:`, as Apple's does.
    open var relativeTime: TimeInterval
    open private(set) var controlPoints: [ControlPoint]

    public init(parameterID: CHHapticDynamicParameter.ID, controlPoints: [ControlPoint], relativeTime: TimeInterval) {
        self.parameterID = parameterID
        self.controlPoints = controlPoints
        self.relativeTime = relativeTime
        super.init()
    }
}

/// The typealias Apple's header spells `CHHapticParameterCurveControlPoint` in Objective-C.
public typealias CHHapticParameterCurveControlPoint = CHHapticParameterCurve.ControlPoint
