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

/// Serialises `JSONValue`s as strict JSON (no JSON5 extensions), compact or indented.
public enum JSONWriter {
    public static func write(_ value: JSONValue, pretty: Bool = false) -> String {
        var out = ""
        write(value, into: &out, pretty: pretty, indent: 0)
        return out
    }

    static func write(_ value: JSONValue, into out: inout String, pretty: Bool, indent: Int) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let x): out += formatNumber(x)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                if pretty { newline(&out, indent + 1) }
                write(item, into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(&out, indent) }
            out += "]"
        case .object(let o):
            if o.members.isEmpty { out += "{}"; return }
            out += "{"
            for (i, member) in o.members.enumerated() {
                if i > 0 { out += "," }
                if pretty { newline(&out, indent + 1) }
                writeString(member.key, into: &out)
                out += pretty ? ": " : ":"
                write(member.value, into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(&out, indent) }
            out += "}"
        }
    }

    private static func newline(_ out: inout String, _ indent: Int) {
        out += "\n"
        out += String(repeating: "  ", count: indent)
    }

    /// The shortest text that reads back as the same Double; integers without a fraction.
    /// Non-finite numbers have no JSON form and are written as `null`.
    public static func formatNumber(_ x: Double) -> String {
        guard x.isFinite else { return "null" }
        if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        return String(x)  // Swift prints the shortest round-tripping form, e.g. 0.1, 1e-05
    }

    static func writeString(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
