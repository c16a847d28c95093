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
    /// Written as UTF-8 bytes and made a `String` once: every reply and event of the daemon goes
    /// through here, and appending to a `String` scalar by scalar was a tenth of its time under
    /// load (the soak test's profile, docs/robustness.md §2).
    public static func write(_ value: JSONValue, pretty: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        write(value, into: &out, pretty: pretty, indent: 0)
        return String(decoding: out, as: UTF8.self)
    }

    static func write(_ value: JSONValue, into out: inout [UInt8], pretty: Bool, indent: Int) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let x): out.append(contentsOf: formatNumber(x).utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            if items.isEmpty { out.append(contentsOf: "[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { newline(&out, indent + 1) }
                write(item, into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(&out, indent) }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            if o.members.isEmpty { out.append(contentsOf: "{}".utf8); return }
            out.append(UInt8(ascii: "{"))
            for (i, member) in o.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { newline(&out, indent + 1) }
                writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                if pretty { out.append(UInt8(ascii: " ")) }
                write(member.value, into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(&out, indent) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ out: inout [UInt8], _ indent: Int) {
        out.append(UInt8(ascii: "\n"))
        for _ in 0..<(indent * 2) { out.append(UInt8(ascii: " ")) }
    }

    /// The shortest text that reads back as the same Double; integers without a fraction.
    /// Non-finite numbers have no JSON form and are written as `null`.
    public static func formatNumber(_ x: Double) -> String {
        guard x.isFinite else { return "null" }
        if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        return String(x)  // Swift prints the shortest round-tripping form, e.g. 0.1, 1e-05
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A string literal: `"` and `\\` escaped, control characters as `\n`, `\r`, `\t` or `\u00XX`;
    /// everything else (UTF-8, which a Swift `String` always is) copied as it is.
    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var run = 0  // start of the bytes not copied yet
            for (i, b) in bytes.enumerated() where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i]))
                run = i + 1
                switch b {
                case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
                case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
                case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
                case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
                case UInt8(ascii: "\t"): out.append(contentsOf: "\\t".utf8)
                default: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigits[Int(b >> 4)], hexDigits[Int(b & 15)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
        }
        out.append(UInt8(ascii: "\""))
    }
}
