/// Reads AHAP documents into `HapticPattern`s, with Apple's tolerance and precise diagnostics.
///
/// The rules (see docs/rendering.md and ../shared/reference/core-haptics.md):
/// - unknown keys are ignored; missing values take their defaults;
/// - out-of-range parameter values are clamped with a warning naming the path;
/// - wrong types, unknown event types, negative or non-finite times and durations, non-finite values,
///   over-long continuous events, over-long or unordered curves, and documents over the limits are
///   errors;
/// - unknown parameter IDs and audio events are warnings and are ignored for output;
/// - curve control points written with absolute times (as some exporters do) are detected where that
///   reading is unambiguous, converted, and warned about.
public enum AHAPLoader {
    public static func load(bytes: [UInt8], limits: AHAPLimits = .default) throws(AHAPLoadError) -> LoadedPattern {
        if bytes.count > limits.maximumFileBytes {
            throw AHAPLoadError(errors: [
                .init(.error, "$", "the document is \(bytes.count) bytes, over the limit of \(limits.maximumFileBytes)")
            ])
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw AHAPLoadError(errors: [.init(.error, "$", error.description)])
        }
        return try load(json: json, limits: limits)
    }

    public static func load(text: String, limits: AHAPLimits = .default) throws(AHAPLoadError) -> LoadedPattern {
        try load(bytes: Array(text.utf8), limits: limits)
    }

    public static func load(json: JSONValue, limits: AHAPLimits = .default) throws(AHAPLoadError) -> LoadedPattern {
        var reader = Reader(limits: limits)
        let pattern = reader.readDocument(json)
        if !reader.errors.isEmpty {
            throw AHAPLoadError(errors: reader.errors, warnings: reader.warnings)
        }
        return LoadedPattern(pattern: pattern, warnings: reader.warnings)
    }
}

private struct Reader {
    let limits: AHAPLimits
    var errors: [AHAPDiagnostic] = []
    var warnings: [AHAPDiagnostic] = []

    init(limits: AHAPLimits) { self.limits = limits }

    mutating func error(_ path: String, _ message: String) { errors.append(.init(.error, path, message)) }
    mutating func warn(_ path: String, _ message: String) { warnings.append(.init(.warning, path, message)) }

    // MARK: typed access

    /// The object at `path`, or nil with a type error.
    mutating func object(_ value: JSONValue, _ path: String) -> JSONObject? {
        if case .object(let o) = value { return o }
        error(path, "expected an object, found \(value.kindName)")
        return nil
    }

    mutating func array(_ value: JSONValue, _ path: String) -> [JSONValue]? {
        if case .array(let a) = value { return a }
        error(path, "expected an array, found \(value.kindName)")
        return nil
    }

    mutating func string(_ value: JSONValue, _ path: String) -> String? {
        if case .string(let s) = value { return s }
        error(path, "expected a string, found \(value.kindName)")
        return nil
    }

    /// A finite number, or nil with an error.
    mutating func number(_ value: JSONValue, _ path: String) -> Double? {
        guard case .number(let x) = value else {
            error(path, "expected a number, found \(value.kindName)")
            return nil
        }
        guard x.isFinite else {
            error(path, "\(x) is not a finite number")
            return nil
        }
        return x
    }

    /// A time or duration: a finite number ≥ 0.
    mutating func time(_ value: JSONValue, _ path: String) -> Double? {
        guard let x = number(value, path) else { return nil }
        guard x >= 0 else {
            error(path, "\(x) is negative; times and durations must be ≥ 0")
            return nil
        }
        return x
    }

    mutating func bool(_ value: JSONValue, _ path: String) -> Bool? {
        switch value {
        case .bool(let b): return b
        case .number(let x) where x == 0 || x == 1: return x == 1
        default:
            error(path, "expected a boolean, found \(value.kindName)")
            return nil
        }
    }

    mutating func clamped(_ x: Double, to range: ClosedRange<Double>, _ path: String) -> Double {
        if x < range.lowerBound {
            warn(path, "\(x) clamped to \(range.lowerBound)")
            return range.lowerBound
        }
        if x > range.upperBound {
            warn(path, "\(x) clamped to \(range.upperBound)")
            return range.upperBound
        }
        return x
    }

    // MARK: document

    mutating func readDocument(_ json: JSONValue) -> HapticPattern {
        guard case .object(let root) = json else {
            error("$", "expected an object at the top level, found \(json.kindName)")
            return HapticPattern()
        }
        var pattern = HapticPattern()
        if let v = root["Version"], let version = number(v, "Version") {
            if version != 1 { warn("Version", "version \(version) is not 1.0; read as 1.0") }
            pattern.version = version
        }
        if let m = root["Metadata"] { pattern.metadata = object(m, "Metadata") }
        guard let p = root["Pattern"] else {
            warn("Pattern", "missing: the pattern is empty")
            return pattern
        }
        guard let elements = array(p, "Pattern") else { return pattern }

        var eventCount = 0
        for element in elements {
            if case .object(let o) = element, o["Event"] != nil { eventCount += 1 }
        }
        if eventCount > limits.maximumEvents {
            error("Pattern", "\(eventCount) events, over the limit of \(limits.maximumEvents)")
            return pattern
        }

        var curveElements: [(index: Int, curve: ParameterCurve, path: String)] = []
        for (i, element) in elements.enumerated() {
            let path = "Pattern[\(i)]"
            guard let o = object(element, path) else { continue }
            let kinds = ["Event", "Parameter", "ParameterCurve"].filter { o[$0] != nil }
            if kinds.count > 1 {
                error(path, "holds \(kinds.joined(separator: " and ")); an element holds exactly one")
                continue
            }
            guard let kind = kinds.first else {
                warn(path, "holds none of Event, Parameter, ParameterCurve; ignored")
                continue
            }
            let subpath = "\(path).\(kind)"
            switch kind {
            case "Event":
                if let e = readEvent(o[kind]!, subpath) { pattern.elements.append(.event(e)) }
            case "Parameter":
                if let p = readParameter(o[kind]!, subpath) { pattern.elements.append(.parameter(p)) }
            default:
                if let c = readCurve(o[kind]!, subpath) {
                    curveElements.append((pattern.elements.count, c, subpath))
                    pattern.elements.append(.curve(c))
                }
            }
        }
        fixAbsoluteCurveTimes(&pattern, curveElements)
        return pattern
    }

    // MARK: events

    mutating func readEvent(_ json: JSONValue, _ path: String) -> HapticEvent? {
        guard let o = object(json, path) else { return nil }
        guard let typeValue = o["EventType"] else {
            error(path, "missing EventType")
            return nil
        }
        // An unknown type is an error, but the rest of the event is still checked so that one run
        // reports every problem; it is read as a transient for those checks.
        var ok = true
        var type = EventType.hapticTransient
        if let typeName = string(typeValue, "\(path).EventType") {
            if let known = EventType(rawValue: typeName) {
                type = known
            } else {
                let known = EventType.allCases.map(\.rawValue).joined(separator: ", ")
                error("\(path).EventType", "unknown event type \"\(typeName)\" (known: \(known))")
                ok = false
            }
        } else {
            ok = false
        }
        var event = HapticEvent(type: type, time: 0)
        if let t = o["Time"] {
            if let time = time(t, "\(path).Time") { event.time = time } else { ok = false }
        }
        if let d = o["EventDuration"] {
            let dpath = "\(path).EventDuration"
            if let duration = time(d, dpath) {
                if type == .hapticTransient {
                    if ok { warn(dpath, "a transient event has no duration; ignored") }
                } else if type == .hapticContinuous && duration > limits.maximumContinuousDuration {
                    error(dpath, "\(duration) s is longer than the \(limits.maximumContinuousDuration) s limit for a continuous event")
                    ok = false
                } else {
                    event.duration = duration
                }
            } else {
                ok = false
            }
        } else if type == .hapticContinuous {
            warn(path, "a continuous event without EventDuration sounds until the pattern ends")
        }
        if type == .hapticContinuous, event.duration == 0 {
            warn("\(path).EventDuration", "0: a continuous event without a duration sounds until the pattern ends")
        }
        if let ps = o["EventParameters"], let list = array(ps, "\(path).EventParameters") {
            for (j, item) in list.enumerated() {
                let ppath = "\(path).EventParameters[\(j)]"
                guard let po = object(item, ppath) else { ok = false; continue }
                guard let idValue = po["ParameterID"] else {
                    error(ppath, "missing ParameterID")
                    ok = false
                    continue
                }
                guard let idName = string(idValue, "\(ppath).ParameterID") else { ok = false; continue }
                guard let id = EventParameterID(rawValue: idName) else {
                    warn("\(ppath).ParameterID", "unknown event parameter \"\(idName)\"; ignored")
                    continue
                }
                var value = id.defaultValue
                if let v = po["ParameterValue"] {
                    guard let x = number(v, "\(ppath).ParameterValue") else { ok = false; continue }
                    value = clamped(x, to: id.range, "\(ppath).ParameterValue")
                    if id == .sustained, value != 0, value != 1 {
                        let rounded = value >= 0.5 ? 1.0 : 0.0
                        warn("\(ppath).ParameterValue", "Sustained is 0 or 1; \(value) read as \(rounded)")
                        value = rounded
                    }
                }
                event.parameters.append(EventParameter(id, value))
            }
        }
        if let w = o["EventWaveformPath"] {
            if let s = string(w, "\(path).EventWaveformPath") { event.waveformPath = s } else { ok = false }
        }
        if let w = o["EventWaveformUseVolumeEnvelope"] {
            if let b = bool(w, "\(path).EventWaveformUseVolumeEnvelope") {
                event.waveformUseVolumeEnvelope = b
            } else {
                ok = false
            }
        }
        if let w = o["EventWaveformLoopEnabled"] {
            if let b = bool(w, "\(path).EventWaveformLoopEnabled") { event.waveformLoopEnabled = b } else { ok = false }
        }
        if ok && !type.isHaptic {
            warn(path, "\(type.rawValue) event ignored: a rumble pad plays no audio")
        }
        return ok ? event : nil
    }

    // MARK: dynamic parameters

    mutating func dynamicID(_ o: JSONObject, _ path: String) -> DynamicParameterID?? {
        guard let idValue = o["ParameterID"] else {
            error(path, "missing ParameterID")
            return nil
        }
        guard let name = string(idValue, "\(path).ParameterID") else { return nil }
        guard let id = DynamicParameterID(rawValue: name) else {
            warn("\(path).ParameterID", "unknown dynamic parameter \"\(name)\"; ignored")
            return .some(nil)
        }
        return .some(id)
    }

    mutating func readParameter(_ json: JSONValue, _ path: String) -> DynamicParameter? {
        guard let o = object(json, path) else { return nil }
        guard let maybeID = dynamicID(o, path) else { return nil }
        var ok = true
        var time = 0.0
        if let t = o["Time"] {
            if let x = self.time(t, "\(path).Time") { time = x } else { ok = false }
        }
        var value = maybeID?.defaultValue ?? 0
        if let v = o["ParameterValue"] {
            if let x = number(v, "\(path).ParameterValue") {
                value = maybeID.map { clamped(x, to: $0.range, "\(path).ParameterValue") } ?? x
            } else {
                ok = false
            }
        }
        guard ok, let id = maybeID else { return nil }
        if id.isAudio { warn("\(path).ParameterID", "\(id.rawValue) ignored: a rumble pad plays no audio") }
        return DynamicParameter(id, value, at: time)
    }

    mutating func readCurve(_ json: JSONValue, _ path: String) -> ParameterCurve? {
        guard let o = object(json, path) else { return nil }
        guard let maybeID = dynamicID(o, path) else { return nil }
        var ok = true
        var start = 0.0
        if let t = o["Time"] {
            if let x = time(t, "\(path).Time") { start = x } else { ok = false }
        }
        let cpath = "\(path).ParameterCurveControlPoints"
        var points: [ParameterCurve.ControlPoint] = []
        if let cp = o["ParameterCurveControlPoints"], let list = array(cp, cpath) {
            if list.count > limits.maximumCurveControlPoints {
                error(cpath, "\(list.count) control points, over the limit of \(limits.maximumCurveControlPoints)")
                return nil
            }
            for (j, item) in list.enumerated() {
                let ppath = "\(cpath)[\(j)]"
                guard let po = object(item, ppath) else { ok = false; continue }
                var t = 0.0
                if let tv = po["Time"] {
                    guard let x = time(tv, "\(ppath).Time") else { ok = false; continue }
                    t = x
                }
                var value = maybeID?.defaultValue ?? 0
                if let v = po["ParameterValue"] {
                    guard let x = number(v, "\(ppath).ParameterValue") else { ok = false; continue }
                    value = maybeID.map { clamped(x, to: $0.range, "\(ppath).ParameterValue") } ?? x
                }
                if let last = points.last, t < last.time {
                    error("\(ppath).Time", "\(t) is before the previous control point's \(last.time); control points must be in time order")
                    ok = false
                }
                points.append(.init(t, value))
            }
        } else if o["ParameterCurveControlPoints"] == nil {
            warn(path, "no ParameterCurveControlPoints; the curve is ignored")
            return nil
        } else {
            ok = false
        }
        guard ok, let id = maybeID else { return nil }
        if points.isEmpty {
            warn(cpath, "no control points; the curve is ignored")
            return nil
        }
        if id.isAudio { warn("\(path).ParameterID", "\(id.rawValue) ignored: a rumble pad plays no audio") }
        return ParameterCurve(id, at: start, points: points)
    }

    /// Apple: control-point times are relative to the curve's `Time`. Some exporters (Lofelt) write
    /// absolute times. The absolute reading is taken only when it is unambiguous: the curve starts
    /// after 0, its first point sits exactly at the curve's `Time`, and read relatively the curve would
    /// run past the end of every event while read absolutely it does not.
    mutating func fixAbsoluteCurveTimes(
        _ pattern: inout HapticPattern, _ curves: [(index: Int, curve: ParameterCurve, path: String)]
    ) {
        var eventsEnd = 0.0
        for e in pattern.events where e.type.isHaptic { eventsEnd = max(eventsEnd, e.time + (e.duration ?? 0)) }
        for (index, curve, path) in curves {
            guard curve.time > 0, let first = curve.controlPoints.first, let last = curve.controlPoints.last,
                  abs(first.time - curve.time) <= 1e-9,
                  curve.time + last.time > eventsEnd + 1e-9, last.time <= eventsEnd + 1e-9
            else { continue }
            var fixed = curve
            fixed.controlPoints = curve.controlPoints.map { .init($0.time - curve.time, $0.value) }
            pattern.elements[index] = .curve(fixed)
            warn(
                "\(path).ParameterCurveControlPoints",
                "control-point times look absolute (the first equals the curve's Time \(curve.time) and, read relative, the curve would outlast every event); read as absolute"
            )
        }
    }
}
