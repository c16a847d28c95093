/// Reads Meta Haptics Studio / Lofelt `.haptic` clips (the `.haptic` File Specification 1.0 in
/// facebook/meta-haptics-sdk, `resources/haptic-file-spec.md`; the Lofelt data model v1 in
/// Lofelt/NiceVibrations, `core/datamodel`) into the same `HapticPattern` model as AHAP.
///
/// A clip is one continuous signal: an amplitude envelope (breakpoints of time and amplitude, some
/// with an `emphasis` of amplitude and frequency) and an optional frequency envelope. It becomes:
/// - one `HapticContinuous` event from 0 to the last amplitude breakpoint, whose `EventEnvelope`
///   follows the amplitude envelope (intensity) and the frequency envelope (sharpness), both linear
///   between breakpoints. Before the first breakpoint both ramp from 0 at time 0, as Lofelt's clip
///   player does (`clip-players/src/haptic_event_provider.rs`); after the last frequency breakpoint
///   the frequency holds; without a frequency envelope the sharpness is 0.5 (the specification's
///   default);
/// - one `HapticTransient` per emphasis, at its breakpoint's time, with the emphasis amplitude as
///   intensity and its frequency as sharpness. Envelopes shape only their own event, so transients
///   keep their values, as the format means.
///
/// Tolerance follows the AHAP loader's: out-of-range values are clamped and breakpoints out of time
/// order sorted, with warnings; only what leaves the clip meaningless is an error (docs/rendering.md §12).
public enum HapticClipLoader {
    public static func load(bytes: [UInt8], limits: AHAPLimits = .default) throws(AHAPLoadError) -> LoadedPattern {
        try AHAPLoader.checkSize(bytes.count, limits)
        return try load(json: try AHAPLoader.parse(bytes), limits: limits)
    }

    public static func load(text: String, limits: AHAPLimits = .default) throws(AHAPLoadError) -> LoadedPattern {
        try load(bytes: Array(text.utf8), limits: limits)
    }

    public static func load(json: JSONValue, limits: AHAPLimits = .default) throws(AHAPLoadError) -> LoadedPattern {
        var reader = ClipReader(limits: limits)
        let pattern = reader.read(json)
        if !reader.d.errors.isEmpty {
            throw AHAPLoadError(errors: reader.d.errors, warnings: reader.d.warnings)
        }
        return LoadedPattern(pattern: pattern, warnings: reader.d.warnings, format: .haptic)
    }

    /// `.haptic` metadata keys and the AHAP `Metadata` keys they are kept under (so that `info`, the
    /// library and a conversion to AHAP find `Description` and `Project` where AHAP has them).
    static let metadataKeys: [(haptic: String, ahap: String)] = [
        ("description", "Description"), ("project", "Project"), ("author", "Author"), ("editor", "Editor"),
        ("source", "Source"), ("tags", "Tags"),
    ]

    /// The sharpness of a clip without a frequency envelope (the specification: "typically 0.5").
    public static let defaultSharpness = 0.5
}

private struct ClipReader {
    let limits: AHAPLimits
    var d = DiagnosticReader()

    init(limits: AHAPLimits) { self.limits = limits }

    struct Breakpoint {
        var time: Double
        var value: Double
        var emphasis: (amplitude: Double, frequency: Double)?
    }

    mutating func read(_ json: JSONValue) -> HapticPattern {
        guard case .object(let root) = json else {
            d.error("$", "expected an object at the top level, found \(json.kindName)")
            return HapticPattern()
        }
        var pattern = HapticPattern()
        readVersion(root)
        pattern.metadata = readMetadata(root)

        guard let signalsValue = d.member(root, "signals") else {
            let hint = d.member(root, "Pattern") != nil ? " (this document looks like AHAP)" : ""
            d.error("signals", "missing: a .haptic clip holds signals.continuous.envelopes\(hint)")
            return pattern
        }
        guard let signals = d.object(signalsValue, "signals") else { return pattern }
        guard let continuousValue = d.member(signals, "continuous") else {
            d.error("signals.continuous", "missing: a .haptic clip holds one continuous signal")
            return pattern
        }
        guard let continuous = d.object(continuousValue, "signals.continuous") else { return pattern }
        guard let envelopesValue = d.member(continuous, "envelopes") else {
            d.error("signals.continuous.envelopes", "missing: the continuous signal holds its envelopes")
            return pattern
        }
        guard let envelopes = d.object(envelopesValue, "signals.continuous.envelopes") else { return pattern }

        let apath = "signals.continuous.envelopes.amplitude"
        guard let amplitudeValue = d.member(envelopes, "amplitude") else {
            d.error(apath, "missing: the amplitude envelope is required")
            return pattern
        }
        guard var amplitude = readEnvelope(amplitudeValue, apath, valueKey: "amplitude", emphasis: true) else { return pattern }
        let fpath = "signals.continuous.envelopes.frequency"
        var frequency: [Breakpoint] = []
        if let f = d.member(envelopes, "frequency") {
            frequency = readEnvelope(f, fpath, valueKey: "frequency", emphasis: false) ?? []
        }
        guard d.errors.isEmpty else { return pattern }
        if amplitude.isEmpty {
            d.error(apath, "the amplitude envelope is empty; a clip needs at least one breakpoint")
            return pattern
        }

        let duration = amplitude[amplitude.count - 1].time
        // One breakpoint after 0 is a clip: the ramp from 0 at time 0 to it (below), as Lofelt's
        // player plays it. Only a clip that ends at 0 has no continuous part.
        if duration <= 0 {
            d.warn(apath, "the clip lasts 0 s (\(amplitude.count) breakpoint(s) ending at \(duration) s): only its emphasis, if any, is felt")
        }
        // Frequency breakpoints after the clip's end change nothing (the specification forbids them).
        let overshoot = frequency.firstIndex(where: { $0.time > duration })
        if let overshoot {
            d.warn("\(fpath)[\(overshoot)]", "\(frequency.count - overshoot) frequency breakpoint(s) after the clip's end at \(duration) s; ignored")
        }

        var emphasisCount = 0
        for b in amplitude where b.emphasis != nil { emphasisCount += 1 }
        if emphasisCount > limits.maximumEvents {
            d.error(apath, "\(emphasisCount) emphasis points, over the limit of \(limits.maximumEvents) events")
            return pattern
        }

        // Lofelt's player ramps from 0 at time 0 to the first breakpoint of each envelope.
        if amplitude[0].time > 0 { amplitude.insert(Breakpoint(time: 0, value: 0), at: 0) }
        if let first = frequency.first, first.time > 0 { frequency.insert(Breakpoint(time: 0, value: 0), at: 0) }
        if overshoot != nil, let cut = frequency.firstIndex(where: { $0.time > duration }), cut > 0 {
            // End the frequency envelope at the clip's end with the value it has there.
            let a = frequency[cut - 1], b = frequency[cut]
            let value = PiecewiseLinear.value([.init(a.time, a.value), .init(b.time, b.value)], at: duration, default: a.value)
            frequency.removeSubrange(cut...)
            if a.time < duration { frequency.append(Breakpoint(time: duration, value: value)) }
        }

        if duration > 0 {
            let envelope = EventEnvelope(
                intensity: amplitude.map { .init($0.time, $0.value) },
                sharpness: frequency.map { .init($0.time, $0.value) })
            let sharpness = frequency.isEmpty ? HapticClipLoader.defaultSharpness : 0
            pattern.elements.append(.event(HapticEvent(
                type: .hapticContinuous, time: 0, duration: duration,
                parameters: [.init(.hapticIntensity, 1), .init(.hapticSharpness, sharpness)], envelope: envelope)))
        }
        for b in amplitude {
            guard let e = b.emphasis else { continue }
            pattern.elements.append(.event(.transient(at: b.time, intensity: e.amplitude, sharpness: e.frequency)))
        }
        return pattern
    }

    mutating func readVersion(_ root: JSONObject) {
        guard let v = d.member(root, "version") else {
            d.warn("version", "missing; read as 1.0.0 (a .haptic file gives {\"major\": 1, \"minor\": 0, \"patch\": 0})")
            return
        }
        guard let o = d.object(v, "version") else { return }
        var parts: [Int] = []
        for key in ["major", "minor", "patch"] {
            guard let x = d.member(o, key) else {
                if key == "major" { d.error("version.major", "missing") }
                parts.append(0)
                continue
            }
            guard let n = d.number(x, "version.\(key)") else { return }
            guard n >= 0, n == n.rounded(), n < 1e9 else {
                d.error("version.\(key)", "\(n) is not a version number (a whole number ≥ 0)")
                return
            }
            parts.append(Int(n))
        }
        guard parts.count == 3 else { return }
        let text = parts.map(String.init).joined(separator: ".")
        if parts[0] != 1 {
            d.error("version.major", "unsupported .haptic version \(text); hapticd reads version 1 (Meta Haptics Studio, Lofelt Studio)")
        } else if parts[1] > 0 {
            d.warn("version", "version \(text) is newer than 1.0.0; read as 1.0 (minor versions only add fields), unknown fields ignored")
        }
    }

    mutating func readMetadata(_ root: JSONObject) -> JSONObject? {
        guard let m = d.member(root, "metadata") else { return nil }
        guard case .object(let o) = m else {
            d.warn("metadata", "expected an object, found \(m.kindName); ignored (metadata does not change playback)")
            return nil
        }
        var out = JSONObject()
        for member in o.members {
            if case .null = member.value { continue }
            if let mapped = HapticClipLoader.metadataKeys.first(where: { $0.haptic == member.key }) {
                // Empty strings and lists (Studio writes them for unset fields) carry nothing.
                if case .string(let s) = member.value, s.isEmpty { continue }
                if case .array(let a) = member.value, a.isEmpty { continue }
                out.append(mapped.ahap, member.value)
            } else {
                out.append(member.key, member.value)
            }
        }
        return out.members.isEmpty ? nil : out
    }

    /// An envelope's breakpoints, sorted by time, values clamped; nil after an error.
    mutating func readEnvelope(_ value: JSONValue, _ path: String, valueKey: String, emphasis: Bool) -> [Breakpoint]? {
        guard let list = d.array(value, path) else { return nil }
        if list.count > limits.maximumCurveControlPoints {
            d.error(path, "\(list.count) breakpoints, over the limit of \(limits.maximumCurveControlPoints)")
            return nil
        }
        var points: [Breakpoint] = []
        points.reserveCapacity(list.count)
        var ok = true
        for (i, item) in list.enumerated() {
            let p = "\(path)[\(i)]"
            guard let o = d.object(item, p) else { ok = false; continue }
            guard let tv = d.member(o, "time") else {
                d.error(p, "missing time")
                ok = false
                continue
            }
            guard let t = d.time(tv, "\(p).time"), d.checkHorizon(t, limits.maximumPatternTime, "\(p).time") else { ok = false; continue }
            guard let vv = d.member(o, valueKey) else {
                d.error(p, "missing \(valueKey)")
                ok = false
                continue
            }
            guard let raw = d.number(vv, "\(p).\(valueKey)") else { ok = false; continue }
            var b = Breakpoint(time: t, value: d.clamped(raw, to: 0...1, "\(p).\(valueKey)"))
            if emphasis, let ev = d.member(o, "emphasis") {
                let epath = "\(p).emphasis"
                guard let eo = d.object(ev, epath) else { ok = false; continue }
                var values: [Double] = []
                for key in ["amplitude", "frequency"] {
                    guard let x = d.member(eo, key) else {
                        d.error(epath, "missing \(key) (an emphasis has an amplitude and a frequency)")
                        continue
                    }
                    guard let n = d.number(x, "\(epath).\(key)") else { continue }
                    values.append(d.clamped(n, to: 0...1, "\(epath).\(key)"))
                }
                guard values.count == 2 else { ok = false; continue }
                if values[0] < b.value {
                    d.warn("\(epath).amplitude", "\(values[0]) is below the envelope's \(b.value) at this breakpoint (the specification requires emphasis ≥ amplitude); played as written")
                }
                b.emphasis = (values[0], values[1])
            }
            points.append(b)
        }
        guard ok else { return nil }
        let (sorted, outOfOrder) = DiagnosticReader.sortedByTime(points, time: \.time)
        if let j = outOfOrder {
            d.warn(path, "breakpoints are not in time order ([\(j)] at \(points[j].time) s comes after a later one); sorted by time, each keeping its time and value")
        }
        return sorted
    }
}
