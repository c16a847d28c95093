/// Writes patterns out as AHAP. `AHAPLoader.load(AHAPWriter.text(p)).pattern == p` for every pattern
/// the AHAP loader produces.
///
/// A continuous event with its own envelope (a `.haptic` clip's) has no AHAP form: it is written the way
/// Core Haptics can play it — continuous events of at most 30 s under `HapticIntensityControl` and
/// `HapticSharpnessControl` curves of at most 16 points each (what Lofelt's own converter writes, and
/// what every AHAP player accepts), with the control-point times relative to each curve, as Apple
/// documents. Dynamic parameters act on every event sounding, so transients that sound under such an
/// envelope are compensated where AHAP allows it; `convert` says what could not be kept.
public enum AHAPWriter {
    public static func json(_ pattern: HapticPattern) -> JSONValue {
        convert(pattern).json
    }

    public static func text(_ pattern: HapticPattern) -> String {
        JSONWriter.write(json(pattern), pretty: true) + "\n"
    }

    /// The AHAP document for `pattern`, and warnings for whatever AHAP cannot say as the pattern does.
    public static func convert(_ pattern: HapticPattern) -> (json: JSONValue, warnings: [AHAPDiagnostic]) {
        var root = JSONObject()
        root.append("Version", .number(pattern.version))
        if let metadata = pattern.metadata { root.append("Metadata", .object(metadata)) }
        var warnings: [AHAPDiagnostic] = []
        let spans = EnvelopeExpansion.spans(pattern)
        var out: [JSONValue] = []
        out.reserveCapacity(pattern.elements.count)
        for (i, element) in pattern.elements.enumerated() {
            if case .event(let e) = element, e.type == .hapticContinuous, let envelope = e.envelope, !envelope.intensity.isEmpty {
                out += EnvelopeExpansion(pattern: pattern, index: i, event: e, envelope: envelope).elements(&warnings)
            } else if case .event(let e) = element, let adjusted = EnvelopeExpansion.compensated(e, spans: spans) {
                out.append(Self.element(.event(adjusted)))
            } else {
                out.append(Self.element(element))
            }
        }
        root.append("Pattern", .array(out))
        return (.object(root), warnings)
    }

    static func element(_ element: PatternElement) -> JSONValue {
        var wrapper = JSONObject()
        switch element {
        case .event(let e):
            var o = JSONObject()
            o.append("Time", .number(e.time))
            o.append("EventType", .string(e.type.rawValue))
            if let d = e.duration { o.append("EventDuration", .number(d)) }
            if let w = e.waveformPath { o.append("EventWaveformPath", .string(w)) }
            if let b = e.waveformUseVolumeEnvelope { o.append("EventWaveformUseVolumeEnvelope", .bool(b)) }
            if let b = e.waveformLoopEnabled { o.append("EventWaveformLoopEnabled", .bool(b)) }
            o.append(
                "EventParameters",
                .array(e.parameters.map { p in
                    .object(JSONObject(["ParameterID": .string(p.id.rawValue), "ParameterValue": .number(p.value)]))
                }))
            wrapper.append("Event", .object(o))
        case .parameter(let p):
            wrapper.append(
                "Parameter",
                .object(JSONObject([
                    "ParameterID": .string(p.id.rawValue), "Time": .number(p.time), "ParameterValue": .number(p.value),
                ])))
        case .curve(let c):
            let points: [JSONValue] = c.controlPoints.map { point in
                .object(JSONObject(["Time": .number(point.time), "ParameterValue": .number(point.value)]))
            }
            wrapper.append(
                "ParameterCurve",
                .object(JSONObject([
                    "ParameterID": .string(c.id.rawValue), "Time": .number(c.time),
                    "ParameterCurveControlPoints": .array(points),
                ])))
        }
        return .object(wrapper)
    }
}
