/// How `AHAPWriter` writes a continuous event that has its own envelope (a `.haptic` clip's): AHAP has
/// no per-event envelope, only dynamic parameters that act on every event sounding at their time.
///
/// The event becomes continuous events of at most 30 s (Apple's maximum) at intensity 1, under
/// `HapticIntensityControl` curves that follow its intensity envelope and, when it has one,
/// `HapticSharpnessControl` curves that follow its sharpness envelope (on events of sharpness 0, so
/// that the control's value is the sharpness). Curves hold at most 16 points, each starting where the
/// previous one ended. After the event the controls are set back to neutral.
///
/// Other events that sound under the envelope would be scaled by its curves: a transient's intensity is
/// divided by the control's value at its time and its sharpness lowered by the sharpness control's, so
/// that it plays as before wherever that stays within 0…1; the rest is reported.
struct EnvelopeExpansion {
    let pattern: HapticPattern
    let index: Int
    let event: HapticEvent
    let envelope: EventEnvelope

    static let curvePoints = 16
    static let maximumEventDuration = 30.0

    func elements(_ warnings: inout [AHAPDiagnostic]) -> [JSONValue] {
        var out: [JSONValue] = []
        let start = event.time
        let duration = event.duration ?? 0
        let end = start + duration
        let hasSharpness = !envelope.sharpness.isEmpty

        // Continuous events of at most 30 s: intensity 1 (the curve gives the level), sharpness 0 when
        // the control gives it.
        let others = event.parameters.filter { $0.id != .hapticIntensity && $0.id != .hapticSharpness }
        let sharpness = hasSharpness ? 0 : event.value(.hapticSharpness)
        var offset = 0.0
        // Saturating: a duration beyond the loader's horizon (only a pattern built in code has one) is
        // cut there rather than trapping or writing without end.
        let limit = AHAPLimits.default.maximumPatternTime / Self.maximumEventDuration
        let pieces = (duration / Self.maximumEventDuration).rounded(.up)
        let chunks = pieces.isFinite ? Int(min(max(pieces, 1), limit)) : 1
        if !(pieces <= limit) {
            warnings.append(.init(.warning, "Pattern", "an envelope of \(duration) s is cut at the \(Format.fixed(AHAPLimits.default.maximumPatternTime, 0)) s time limit"))
        }
        for k in 0..<chunks {
            let d = k == chunks - 1 ? min(duration - offset, Self.maximumEventDuration) : Self.maximumEventDuration
            var params: [EventParameter] = [.init(.hapticIntensity, 1), .init(.hapticSharpness, sharpness)]
            for p in others {
                // Attack belongs to the first piece, release to the last: the seams stay seamless.
                if p.id == .attackTime && k > 0 { continue }
                if p.id == .releaseTime && k < chunks - 1 { continue }
                params.append(p)
            }
            out.append(AHAPWriter.element(.event(HapticEvent(type: .hapticContinuous, time: start + offset, duration: d, parameters: params))))
            offset += d
        }

        out += Self.curves(.hapticIntensityControl, envelope.intensity, start: start)
        if hasSharpness { out += Self.curves(.hapticSharpnessControl, envelope.sharpness, start: start) }
        out.append(AHAPWriter.element(.parameter(DynamicParameter(.hapticIntensityControl, 1, at: end))))
        if hasSharpness { out.append(AHAPWriter.element(.parameter(DynamicParameter(.hapticSharpnessControl, 0, at: end)))) }

        // What sounds under the envelope and cannot be compensated.
        var weaker: [Double] = []
        var duller: [Double] = []
        var continuous = 0
        var controls = 0
        for (i, element) in pattern.elements.enumerated() where i != index {
            switch element {
            case .event(let e) where e.type.isHaptic:
                if e.type == .hapticContinuous {
                    let d = e.duration ?? 0
                    if e.time < end, d == 0 || e.time + d > start { continuous += 1 }
                    continue
                }
                guard e.time >= start, e.time < end else { continue }
                let (exact, sharpExact) = Self.compensation(e, envelope: envelope, start: start)
                if !exact { weaker.append(e.time) }
                if !sharpExact { duller.append(e.time) }
            case .parameter(let p) where p.id == .hapticIntensityControl || (hasSharpness && p.id == .hapticSharpnessControl):
                if p.time >= start && p.time <= end { controls += 1 }
            case .curve(let c) where c.id == .hapticIntensityControl || (hasSharpness && c.id == .hapticSharpnessControl):
                let cEnd = c.time + (c.controlPoints.last?.time ?? 0)
                if cEnd >= start && c.time <= end { controls += 1 }
            default:
                break
            }
        }
        let span = "\(Format.fixed(start, 3))–\(Format.fixed(end, 3)) s"
        if !weaker.isEmpty {
            warnings.append(.init(.warning, "Pattern", "\(weaker.count) transient(s) under the envelope at \(span) (first at \(Format.fixed(weaker[0], 3)) s) play weaker in AHAP: HapticIntensityControl scales every event sounding, and the envelope there is below the transient's intensity"))
        }
        if !duller.isEmpty {
            warnings.append(.init(.warning, "Pattern", "\(duller.count) transient(s) under the envelope at \(span) (first at \(Format.fixed(duller[0], 3)) s) play sharper in AHAP: HapticSharpnessControl adds to every event sounding, and there it exceeds the transient's sharpness"))
        }
        if continuous > 0 {
            warnings.append(.init(.warning, "Pattern", "\(continuous) other continuous event(s) overlap the envelope at \(span): in AHAP its curves scale them too"))
        }
        if controls > 0 {
            warnings.append(.init(.warning, "Pattern", "\(controls) of the pattern's own intensity/sharpness parameters or curves overlap the envelope at \(span): in AHAP they and the envelope's curves replace each other"))
        }
        return out
    }

    /// Curves of at most 16 points through `points` (relative to `start`), chained: each curve starts
    /// at the previous one's last point. Times inside each curve are relative to its `Time`.
    static func curves(_ id: DynamicParameterID, _ points: [ParameterCurve.ControlPoint], start: Double) -> [JSONValue] {
        var absolute = points.map { ParameterCurve.ControlPoint(start + $0.time, $0.value) }
        if let first = points.first, first.time > 0 { absolute.insert(.init(start, first.value), at: 0) }
        var out: [JSONValue] = []
        var i = 0
        while i < absolute.count {
            let chunk = Array(absolute[i..<min(i + curvePoints, absolute.count)])
            let t0 = chunk[0].time
            let curve = ParameterCurve(id, at: t0, points: chunk.map { .init(max($0.time - t0, 0), $0.value) })
            out.append(AHAPWriter.element(.curve(curve)))
            if i + curvePoints >= absolute.count { break }
            i += curvePoints - 1  // the next curve starts with this one's last point
        }
        return out
    }

    /// Whether a transient at `e.time` under an envelope starting at `start` can be written so that
    /// the envelope's controls give back its intensity and sharpness.
    static func compensation(_ e: HapticEvent, envelope: EventEnvelope, start: Double) -> (intensity: Bool, sharpness: Bool) {
        let u = e.time - start
        let control = envelope.intensity(atOffset: u)
        let intensity = e.value(.hapticIntensity)
        let intensityExact = intensity == 0 || (control > 0 && intensity <= control + 1e-12)
        guard !envelope.sharpness.isEmpty else { return (intensityExact, true) }
        let s = e.value(.hapticSharpness) - envelope.sharpness(atOffset: u, fallback: 0)
        return (intensityExact, s >= -1e-12)
    }

    /// The spans of the pattern's envelope events, in start order.
    static func spans(_ pattern: HapticPattern) -> [(start: Double, end: Double, envelope: EventEnvelope)] {
        var out: [(start: Double, end: Double, envelope: EventEnvelope)] = []
        for case .event(let c) in pattern.elements where c.type == .hapticContinuous {
            guard let envelope = c.envelope, !envelope.intensity.isEmpty else { continue }
            out.append((c.time, c.time + (c.duration ?? 0), envelope))
        }
        return out.sorted { $0.start < $1.start }
    }

    /// `e` rewritten to sound as before under the envelope whose span holds its time, or nil when no
    /// envelope covers it (or it is not a transient).
    static func compensated(_ e: HapticEvent, spans: [(start: Double, end: Double, envelope: EventEnvelope)]) -> HapticEvent? {
        guard e.type == .hapticTransient, !spans.isEmpty else { return nil }
        // The last span starting at or before the event.
        var lo = 0
        var hi = spans.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if spans[mid].start <= e.time { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0, e.time < spans[lo - 1].end else { return nil }
        let span = spans[lo - 1]
        let u = e.time - span.start
        var out = e
        let control = span.envelope.intensity(atOffset: u)
        let intensity = e.value(.hapticIntensity)
        let written = control > 0 ? min(intensity / control, 1) : 1
        var sharpness = e.value(.hapticSharpness)
        if !span.envelope.sharpness.isEmpty {
            sharpness = min(max(sharpness - span.envelope.sharpness(atOffset: u, fallback: 0), 0), 1)
        }
        out.parameters = e.parameters.filter { $0.id != .hapticIntensity && $0.id != .hapticSharpness }
        out.parameters.insert(contentsOf: [.init(.hapticIntensity, written), .init(.hapticSharpness, sharpness)], at: 0)
        return out
    }
}
