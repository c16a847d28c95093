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
    /// A continuous event's own intensity and sharpness over time (`.haptic` clips); nil for AHAP
    /// events, whose intensity and sharpness are constant.
    public var envelope: EventEnvelope?

    public init(
        type: EventType, time: Double, duration: Double? = nil, parameters: [EventParameter] = [],
        waveformPath: String? = nil, waveformUseVolumeEnvelope: Bool? = nil, waveformLoopEnabled: Bool? = nil,
        envelope: EventEnvelope? = nil
    ) {
        self.type = type
        self.time = time
        self.duration = duration
        self.parameters = parameters
        self.waveformPath = waveformPath
        self.waveformUseVolumeEnvelope = waveformUseVolumeEnvelope
        self.waveformLoopEnabled = waveformLoopEnabled
        self.envelope = envelope
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
/// Control-point times are relative to the curve's `time`, as Apple documents (the loader converts
/// files written with absolute times, see docs/rendering.md §1), and sorted by time.
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
    @inlinable
    public func value(atOffset offset: Double) -> Double {
        PiecewiseLinear.value(controlPoints, at: offset, default: id.defaultValue)
    }
}

/// Linear interpolation through points sorted by time, by binary search: the cost of one lookup grows
/// with the logarithm of the number of points, so curves of thousands of points (Meta Haptics Studio
/// exports, `.haptic` envelopes) cost a frame no more than a few comparisons.
public enum PiecewiseLinear {
    /// The value at `t`: the first value before the first point, the last after the last, linear in
    /// between. Where several points share a time (a step), the last of them holds from that time on.
    @inlinable
    public static func value(_ points: [ParameterCurve.ControlPoint], at t: Double, default fallback: Double) -> Double {
        guard !points.isEmpty else { return fallback }
        let i = lastIndex(points, atOrBefore: t)
        if i < 0 { return points[0].value }
        if i == points.count - 1 { return points[i].value }
        let a = points[i]
        let b = points[i + 1]
        let span = b.time - a.time
        guard span > 0 else { return b.value }
        return a.value + (b.value - a.value) * ((t - a.time) / span)
    }

    /// After `t`: the next point's time (+∞ past the last), and whether the segment at `t` slopes.
    public static func nextBreakpoint(_ points: [ParameterCurve.ControlPoint], after t: Double) -> (next: Double, sloped: Bool) {
        let i = lastIndex(points, atOrBefore: t) + 1
        guard i < points.count else { return (.infinity, false) }
        return (points[i].time, i > 0 && points[i].value != points[i - 1].value)
    }

    /// The last index `i` with `points[i].time <= t`, or -1.
    @inlinable
    public static func lastIndex(_ points: [ParameterCurve.ControlPoint], atOrBefore t: Double) -> Int {
        var lo = 0
        var hi = points.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if points[mid].time <= t { lo = mid + 1 } else { hi = mid }
        }
        return lo - 1
    }

}

/// A continuous event's own intensity and sharpness over time: how a Meta Haptics Studio / Lofelt
/// `.haptic` clip's amplitude and frequency envelopes are held (docs/rendering.md §12). Unlike a
/// `ParameterCurve`, which acts on every event sounding at its time, an envelope shapes its own event
/// only, so the clip's emphasis transients keep their own intensity and sharpness.
///
/// Times are relative to the event's start and sorted. The intensity envelope replaces the event's
/// `HapticIntensity`; a non-empty sharpness envelope replaces its `HapticSharpness`. Dynamic
/// parameters still act on the result as on any event.
public struct EventEnvelope: Equatable, Sendable {
    public var intensity: [ParameterCurve.ControlPoint]
    public var sharpness: [ParameterCurve.ControlPoint]

    public init(intensity: [ParameterCurve.ControlPoint], sharpness: [ParameterCurve.ControlPoint] = []) {
        self.intensity = intensity
        self.sharpness = sharpness
    }

    @inlinable
    public func intensity(atOffset u: Double) -> Double { PiecewiseLinear.value(intensity, at: u, default: 0) }

    /// The sharpness at `u`, or `fallback` (the event's own) when the envelope has none.
    @inlinable
    public func sharpness(atOffset u: Double, fallback: Double) -> Double {
        PiecewiseLinear.value(sharpness, at: u, default: fallback)
    }
}
