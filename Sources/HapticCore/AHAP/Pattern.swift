/// An AHAP pattern: what the file says, in file order, after validation and clamping.
///
/// The model keeps everything needed to write the pattern back out (metadata, audio events, parameter
/// order); the renderer compiles it into a faster form (`CompiledPattern`).
public struct HapticPattern: Equatable, Sendable {
    public var version: Double
    /// Free-form metadata (`Project`, `Created`, `Description`, …), kept as written.
    public var metadata: JSONObject?
    public var elements: [PatternElement]

    public init(version: Double = 1.0, metadata: JSONObject? = nil, elements: [PatternElement] = []) {
        self.version = version
        self.metadata = metadata
        self.elements = elements
    }

    public var events: [HapticEvent] {
        elements.compactMap { if case .event(let e) = $0 { e } else { nil } }
    }

    public var parameters: [DynamicParameter] {
        elements.compactMap { if case .parameter(let p) = $0 { p } else { nil } }
    }

    public var curves: [ParameterCurve] {
        elements.compactMap { if case .curve(let c) = $0 { c } else { nil } }
    }

    /// Apple's pattern duration: the latest end among events (time + duration) and the times of
    /// dynamic parameters and curve control points. Release tails and transient pulses are not part of
    /// it; see `CompiledPattern.renderEnd` for the time the output falls silent.
    public var duration: Double {
        var end = 0.0
        for element in elements {
            switch element {
            case .event(let e): end = max(end, e.time + (e.duration ?? 0))
            case .parameter(let p): end = max(end, p.time)
            case .curve(let c): end = max(end, c.time + (c.controlPoints.last?.time ?? 0))
            }
        }
        return end
    }
}

public enum PatternElement: Equatable, Sendable {
    case event(HapticEvent)
    case parameter(DynamicParameter)
    case curve(ParameterCurve)
}

public enum EventType: String, CaseIterable, Sendable {
    case hapticTransient = "HapticTransient"
    case hapticContinuous = "HapticContinuous"
    case audioContinuous = "AudioContinuous"
    case audioCustom = "AudioCustom"

    public var isHaptic: Bool { self == .hapticTransient || self == .hapticContinuous }
    /// Continuous and audio-continuous events carry an `EventDuration`.
    public var hasDuration: Bool { self == .hapticContinuous || self == .audioContinuous || self == .audioCustom }
}

public struct HapticEvent: Equatable, Sendable {
    public var type: EventType
    public var time: Double
    /// `EventDuration` as written; `nil` when the file has none.
    public var duration: Double?
    public var parameters: [EventParameter]
    /// Audio-only keys, kept so that a pattern writes back unchanged. Ignored for output.
    public var waveformPath: String?
    public var waveformUseVolumeEnvelope: Bool?
    public var waveformLoopEnabled: Bool?

    public init(
        type: EventType, time: Double, duration: Double? = nil, parameters: [EventParameter] = [],
        waveformPath: String? = nil, waveformUseVolumeEnvelope: Bool? = nil, waveformLoopEnabled: Bool? = nil
    ) {
        self.type = type
        self.time = time
        self.duration = duration
        self.parameters = parameters
        self.waveformPath = waveformPath
        self.waveformUseVolumeEnvelope = waveformUseVolumeEnvelope
        self.waveformLoopEnabled = waveformLoopEnabled
    }

    /// The value of a parameter, the last one written winning, or its default.
    public func value(_ id: EventParameterID) -> Double {
        parameters.last(where: { $0.id == id })?.value ?? id.defaultValue
    }

    public static func transient(at time: Double, intensity: Double = 1, sharpness: Double = 0.5) -> HapticEvent {
        HapticEvent(
            type: .hapticTransient, time: time,
            parameters: [.init(.hapticIntensity, intensity), .init(.hapticSharpness, sharpness)])
    }

    public static func continuous(
        at time: Double, duration: Double, intensity: Double = 1, sharpness: Double = 0.5,
        extra: [EventParameter] = []
    ) -> HapticEvent {
        HapticEvent(
            type: .hapticContinuous, time: time, duration: duration,
            parameters: [.init(.hapticIntensity, intensity), .init(.hapticSharpness, sharpness)] + extra)
    }
}

public struct EventParameter: Equatable, Sendable {
    public var id: EventParameterID
    public var value: Double
    public init(_ id: EventParameterID, _ value: Double) {
        self.id = id
        self.value = value
    }
}

/// A dynamic parameter set at a time (`Parameter` element).
public struct DynamicParameter: Equatable, Sendable {
    public var id: DynamicParameterID
    public var value: Double
    public var time: Double
    public init(_ id: DynamicParameterID, _ value: Double, at time: Double) {
        self.id = id
        self.value = value
        self.time = time
    }
}

/// A dynamic parameter that changes linearly between control points (`ParameterCurve` element).
/// Control-point times are relative to the curve's `time`, as Apple documents.
public struct ParameterCurve: Equatable, Sendable {
    public struct ControlPoint: Equatable, Sendable {
        public var time: Double
        public var value: Double
        public init(_ time: Double, _ value: Double) {
            self.time = time
            self.value = value
        }
    }

    public var id: DynamicParameterID
    public var time: Double
    public var controlPoints: [ControlPoint]

    public init(_ id: DynamicParameterID, at time: Double, points: [ControlPoint]) {
        self.id = id
        self.time = time
        self.controlPoints = points
    }

    /// The curve's value at `offset` seconds after its start: linear between points, holding the first
    /// value before the first point and the last value after the last.
    public func value(atOffset offset: Double) -> Double {
        guard let first = controlPoints.first else { return id.defaultValue }
        if offset <= first.time { return first.value }
        // Few points (≤ 16): a linear scan is as fast as a binary search here.
        var previous = first
        for point in controlPoints.dropFirst() {
            if offset < point.time {
                let span = point.time - previous.time
                if span <= 0 { return point.value }
                let f = (offset - previous.time) / span
                return previous.value + (point.value - previous.value) * f
            }
            previous = point
        }
        return previous.value
    }
}
