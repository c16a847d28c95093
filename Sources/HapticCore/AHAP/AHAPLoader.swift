/// Reads AHAP documents into `HapticPattern`s, with Apple's tolerance and precise diagnostics.
///
/// The rules, each with its source, are in docs/rendering.md §1. In short:
/// - unknown keys, and keys that do not apply to the event they sit on, are ignored (the latter with a
///   warning); `null` means absent; missing values take their defaults;
/// - out-of-range values are clamped with a warning naming the path, as Core Haptics clamps them —
///   continuous events longer than Apple's 30 s maximum included;
/// - control points out of time order are sorted, with a warning; curves may have any number of
///   points up to `AHAPLimits.maximumCurveControlPoints`;
/// - curve control-point times are read relative to the curve (Apple) unless the file as a whole shows
///   the absolute convention of Lofelt/Meta Haptics Studio exports; the decision is made once per file
///   and stated in one warning;
/// - errors only where Core Haptics fails the pattern (missing or unknown `EventType`, a missing
///   `ParameterID`, negative or non-finite times and durations, wrong types) and where a hapticd
///   bound is exceeded (document size, event count, points per curve, the time horizon).
public enum AHAPLoader {
    public static func load(bytes: [UInt8], limits: AHAPLimits = .default) throws(AHAPLoadError) -> LoadedPattern {
        try checkSize(bytes.count, limits)
        return try load(json: try parse(bytes), limits: limits)
    }

    public static func load(text: String, limits: AHAPLimits = .default) throws(AHAPLoadError) -> LoadedPattern {
        try load(bytes: Array(text.utf8), limits: limits)
    }

    /// How curve control-point times are read: `.decide` per file (the rule above, for files and
    /// dictionaries from the wild); `.relative` always, as Apple documents — for a pattern built from
    /// objects, whose curves say unambiguously what they mean.
    public enum CurveTimes: String, CaseIterable, Sendable { case decide, relative }

    public static func load(json: JSONValue, limits: AHAPLimits = .default, curveTimes: CurveTimes = .decide) throws(AHAPLoadError) -> LoadedPattern {
        var reader = Reader(limits: limits)
        reader.decidesCurveTimes = curveTimes == .decide
        let pattern = reader.readDocument(json)
        if !reader.diagnostics.errors.isEmpty {
            throw AHAPLoadError(errors: reader.diagnostics.errors, warnings: reader.diagnostics.warnings)
        }
        return LoadedPattern(pattern: pattern, warnings: reader.diagnostics.warnings, format: .ahap)
    }

    static func checkSize(_ count: Int, _ limits: AHAPLimits) throws(AHAPLoadError) {
        if count > limits.maximumFileBytes {
            throw AHAPLoadError(errors: [
                .init(.error, "$", "the document is \(count) bytes, over the pattern file limit of \(limits.maximumFileBytes) bytes")
            ])
        }
    }

    static func parse(_ bytes: [UInt8]) throws(AHAPLoadError) -> JSONValue {
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw AHAPLoadError(errors: [.init(.error, "$", error.description)])
        }
    }
}

/// Collects diagnostics and reads typed values with them; shared by the AHAP and `.haptic` readers.
struct DiagnosticReader {
    var errors: [AHAPDiagnostic] = []
    var warnings: [AHAPDiagnostic] = []

    mutating func error(_ path: String, _ message: String) { errors.append(.init(.error, path, message)) }
    mutating func warn(_ path: String, _ message: String) { warnings.append(.init(.warning, path, message)) }

    /// A member's value; `null` counts as absent, as it does for Core Haptics' optional keys.
    func member(_ o: JSONObject, _ key: String) -> JSONValue? {
        guard let v = o[key] else { return nil }
        if case .null = v { return nil }
        return v
    }

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

    /// A time within the horizon, or nil with an error.
    mutating func checkHorizon(_ t: Double, _ limit: Double, _ path: String, _ what: String = "") -> Bool {
        guard t <= limit else {
            let verb = what.isEmpty ? " is" : ","
            error(path, "\(what)\(Format.fixed(t, 3)) s\(verb) past the pattern time limit of \(Format.fixed(limit, 0)) s")
            return false
        }
        return true
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

    /// Items sorted by time (stable: items at equal times keep file order), and the index of the first
    /// item found before an earlier one's time (nil when they were in order).
    static func sortedByTime<T>(_ items: [T], time: (T) -> Double) -> (items: [T], firstOutOfOrder: Int?) {
        var latest = -Double.infinity
        var first: Int?
        for (i, item) in items.enumerated() {
            let t = time(item)
            if t < latest {
                first = i
                break
            }
            latest = t
        }
        guard first != nil else { return (items, nil) }
        let sorted = items.enumerated().sorted { a, b in
            let ta = time(a.element), tb = time(b.element)
            return ta < tb || (ta == tb && a.offset < b.offset)
        }.map(\.element)
        return (sorted, first)
    }
}

private struct Reader {
    let limits: AHAPLimits
    var diagnostics = DiagnosticReader()
    /// Whether curve times may be read as absolute when the file shows that convention.
    var decidesCurveTimes = true

    init(limits: AHAPLimits) { self.limits = limits }

    mutating func error(_ path: String, _ message: String) { diagnostics.error(path, message) }
    mutating func warn(_ path: String, _ message: String) { diagnostics.warn(path, message) }
    func member(_ o: JSONObject, _ key: String) -> JSONValue? { diagnostics.member(o, key) }
    mutating func object(_ v: JSONValue, _ path: String) -> JSONObject? { diagnostics.object(v, path) }
    mutating func array(_ v: JSONValue, _ path: String) -> [JSONValue]? { diagnostics.array(v, path) }
    mutating func string(_ v: JSONValue, _ path: String) -> String? { diagnostics.string(v, path) }
    mutating func number(_ v: JSONValue, _ path: String) -> Double? { diagnostics.number(v, path) }
    mutating func time(_ v: JSONValue, _ path: String) -> Double? { diagnostics.time(v, path) }
    mutating func bool(_ v: JSONValue, _ path: String) -> Bool? { diagnostics.bool(v, path) }
    mutating func clamped(_ x: Double, to r: ClosedRange<Double>, _ path: String) -> Double { diagnostics.clamped(x, to: r, path) }
    mutating func horizon(_ t: Double, _ path: String, _ what: String = "") -> Bool {
        diagnostics.checkHorizon(t, limits.maximumPatternTime, path, what)
    }

    /// Where a continuous event's end makes it one that sounds until stopped: the horizon, or the
    /// default horizon when that is nearer.
    static func untilStoppedMark(_ limit: Double) -> Double { Swift.min(limit, AHAPLimits.default.maximumPatternTime) }

    /// The duration of a continuous event that sounds until stopped: from `start` to the time
    /// horizon `limit`, the largest that still ends within it (so it reads again the same way).
    static func untilStopped(from start: Double, _ limit: Double) -> Double {
        let limit = limit.isFinite ? limit : AHAPLimits.default.maximumPatternTime
        guard start < limit else { return 0 }
        var kept = limit - start
        while start + kept > limit { kept = kept.nextDown }
        return kept
    }

    struct CurveRecord {
        var index: Int
        var path: String
        var curve: ParameterCurve
    }

    // MARK: document

    mutating func readDocument(_ json: JSONValue) -> HapticPattern {
        guard case .object(let root) = json else {
            error("$", "expected an object at the top level, found \(json.kindName)")
            return HapticPattern()
        }
        var pattern = HapticPattern()
        if let v = member(root, "Version"), let version = number(v, "Version") {
            if version != 1 { warn("Version", "version \(version) is not 1.0; read as 1.0") }
            pattern.version = version
        }
        if let m = member(root, "Metadata") {
            if case .object(let o) = m {
                // Kept as written, but a number JSON cannot write (Infinity, NaN, 1e400) as the
                // null the writer would make of it: the pattern reads back as the same pattern.
                var nonFinite = false
                pattern.metadata = Self.finite(o, &nonFinite)
                if nonFinite { warn("Metadata", "a number out of range (Infinity, NaN or beyond ±1.8e308) is kept as null") }
            } else {
                warn("Metadata", "expected an object, found \(m.kindName); ignored (metadata does not change playback)")
            }
        }
        guard let p = member(root, "Pattern") else {
            // A pattern element's key at the top level (a fragment, or an element saved alone) is not
            // read: say so, rather than only that the pattern is empty.
            let stray = ["Event", "Parameter", "ParameterCurve"].filter { member(root, $0) != nil }
            let hint = root["signals"] != nil ? " (this document looks like a .haptic clip)"
                : stray.isEmpty ? ""
                : " (its top-level \(stray.joined(separator: ", ")) is not read: an AHAP document holds its elements in a \"Pattern\" array)"
            warn("Pattern", "missing: the pattern is empty\(hint)")
            return pattern
        }
        guard let elements = array(p, "Pattern") else { return pattern }

        var eventCount = 0
        for element in elements {
            if case .object(let o) = element, member(o, "Event") != nil { eventCount += 1 }
        }
        if eventCount > limits.maximumEvents {
            error("Pattern", "\(eventCount) events, over the limit of \(limits.maximumEvents)")
            return pattern
        }
        pattern.elements.reserveCapacity(elements.count)

        var curves: [CurveRecord] = []
        for (i, element) in elements.enumerated() {
            let path = "Pattern[\(i)]"
            guard let o = object(element, path) else { continue }
            let kinds = ["Event", "Parameter", "ParameterCurve"].filter { member(o, $0) != nil }
            if kinds.isEmpty {
                warn(path, "holds none of Event, Parameter, ParameterCurve; ignored")
                continue
            }
            // Apple's format has one per element, but Core Haptics played a file with an Event and
            // a ParameterCurve in one (puterman/HapticTest, on an iPhone): each is read, in this
            // order, as an element of its own.
            if kinds.count > 1 {
                warn(path, "holds \(kinds.joined(separator: " and ")); an element holds one — each is read as an element of its own")
            }
            for kind in kinds {
                guard let body = member(o, kind) else { continue }
                let subpath = "\(path).\(kind)"
                switch kind {
                case "Event":
                    if let e = readEvent(body, subpath) { pattern.elements.append(.event(e)) }
                case "Parameter":
                    if let p = readParameter(body, subpath) { pattern.elements.append(.parameter(p)) }
                default:
                    if let c = readCurve(body, subpath) {
                        curves.append(CurveRecord(index: pattern.elements.count, path: subpath, curve: c))
                        pattern.elements.append(.curve(c))
                    }
                }
            }
        }
        if decidesCurveTimes { decideCurveTiming(&pattern, curves) }
        checkCurveEnds(pattern, curves)
        return pattern
    }

    // MARK: events

    mutating func readEvent(_ json: JSONValue, _ path: String) -> HapticEvent? {
        guard let o = object(json, path) else { return nil }
        guard let typeValue = member(o, "EventType") else {
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
        if let t = member(o, "Time") {
            if let time = time(t, "\(path).Time"), horizon(time, "\(path).Time") { event.time = time } else { ok = false }
        }
        let dpath = "\(path).EventDuration"
        if let d = member(o, "EventDuration") {
            if var duration = time(d, dpath) {
                // A transient's is its logical length (Apple: "used to determine pattern end and
                // loop points"; a pattern is "padded" out to it): kept, and not rendered.
                let limit = limits.maximumPatternTime
                if type == .hapticContinuous && duration > limits.maximumContinuousDuration
                    && event.time <= limit && event.time + duration >= Self.untilStoppedMark(limit) {
                    // `GCHapticDurationInfinite` (Apple: "create an infinite haptic event that you
                    // update in a loop"; SDL's and Moonlight's rumble): a continuous event that would
                    // last to the time horizon or past it sounds until stopped — kept to the horizon,
                    // which is also how it writes back (and reads again: it still reaches it). Reaching
                    // the default horizon counts too: the Core Haptics library loads with the default
                    // and sends what it kept to a daemon whose `limits.time_horizon` may be longer.
                    let kept = Self.untilStopped(from: event.time, limit)
                    if !(duration.isFinite && Swift.abs(duration - kept) < 1e-6) {
                        warn(dpath, "\(duration) s reaches past the \(Format.fixed(limit, 0)) s pattern time limit: the event sounds until stopped (kept to the limit)")
                    }
                    duration = kept
                } else if type == .hapticContinuous && duration > limits.maximumContinuousDuration {
                    warn(dpath, "\(duration) s is longer than the \(limits.maximumContinuousDuration) s maximum of a continuous event; clamped to \(limits.maximumContinuousDuration) s")
                    duration = limits.maximumContinuousDuration
                }
                if horizon(event.time + duration, dpath, "the event ends at ") { event.duration = duration } else { ok = false }
            } else {
                ok = false
            }
        }
        if type == .hapticContinuous, ok, event.duration ?? 0 == 0, event.time < limits.maximumPatternTime {
            // Apple (`CHHapticEvent.h`, `duration`): "If unset (0.0), Continuous event types will
            // have no fixed end" — what `CHHapticEvent(eventType: .hapticContinuous, parameters:,
            // relativeTime:)` makes. It sounds until stopped, as `GCHapticDurationInfinite` does:
            // kept to the horizon, which is how it writes back.
            let kept = Self.untilStopped(from: event.time, limits.maximumPatternTime)
            let what = event.duration == nil ? "no EventDuration" : "EventDuration 0"
            warn(event.duration == nil ? path : dpath, "\(what): a continuous event with no fixed end sounds until stopped (kept to the \(Format.fixed(limits.maximumPatternTime, 0)) s pattern time limit)")
            event.duration = kept
        }
        if let ps = member(o, "EventParameters"), let list = array(ps, "\(path).EventParameters") {
            for (j, item) in list.enumerated() {
                let ppath = "\(path).EventParameters[\(j)]"
                guard let po = object(item, ppath) else { ok = false; continue }
                guard let idValue = member(po, "ParameterID") else {
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
                if let v = member(po, "ParameterValue") {
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
        // The waveform keys belong to AudioCustom events; on any other event they do not apply and are
        // ignored, as Core Haptics ignores keys it does not use — with a warning for a value, none for
        // `null`, which means absent here as everywhere (editors such as Haptrix write
        // `"EventWaveformPath": null` on every haptic event).
        for key in ["EventWaveformPath", "EventWaveformUseVolumeEnvelope", "EventWaveformLoopEnabled"] {
            let kpath = "\(path).\(key)"
            guard type == .audioCustom else {
                if ok, member(o, key) != nil { warn(kpath, "applies to AudioCustom events only; ignored on a \(type.rawValue) event") }
                continue
            }
            guard let w = member(o, key) else { continue }
            switch key {
            case "EventWaveformPath":
                if let s = string(w, kpath) { event.waveformPath = s } else { ok = false }
            case "EventWaveformUseVolumeEnvelope":
                if let b = bool(w, kpath) { event.waveformUseVolumeEnvelope = b } else { ok = false }
            default:
                if let b = bool(w, kpath) { event.waveformLoopEnabled = b } else { ok = false }
            }
        }
        if ok && !type.isHaptic {
            warn(path, "\(type.rawValue) event ignored: a rumble pad plays no audio")
        }
        return ok ? event : nil
    }

    // MARK: dynamic parameters

    mutating func dynamicID(_ o: JSONObject, _ path: String) -> DynamicParameterID?? {
        guard let idValue = member(o, "ParameterID") else {
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
        if let t = member(o, "Time") {
            if let x = self.time(t, "\(path).Time"), horizon(x, "\(path).Time") { time = x } else { ok = false }
        }
        var value = maybeID?.defaultValue ?? 0
        if let v = member(o, "ParameterValue") {
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
        if let t = member(o, "Time") {
            if let x = time(t, "\(path).Time"), horizon(x, "\(path).Time") { start = x } else { ok = false }
        }
        let cpath = "\(path).ParameterCurveControlPoints"
        var points: [ParameterCurve.ControlPoint] = []
        guard let cp = member(o, "ParameterCurveControlPoints") else {
            warn(path, "no ParameterCurveControlPoints; the curve is ignored")
            return nil
        }
        guard let list = array(cp, cpath) else { return nil }
        if list.count > limits.maximumCurveControlPoints {
            error(cpath, "\(list.count) control points, over the limit of \(limits.maximumCurveControlPoints)")
            return nil
        }
        points.reserveCapacity(list.count)
        for (j, item) in list.enumerated() {
            let ppath = "\(cpath)[\(j)]"
            guard let po = object(item, ppath) else { ok = false; continue }
            var t = 0.0
            if let tv = member(po, "Time") {
                guard let x = time(tv, "\(ppath).Time"), horizon(x, "\(ppath).Time") else { ok = false; continue }
                t = x
            }
            var value = maybeID?.defaultValue ?? 0
            if let v = member(po, "ParameterValue") {
                guard let x = number(v, "\(ppath).ParameterValue") else { ok = false; continue }
                value = maybeID.map { clamped(x, to: $0.range, "\(ppath).ParameterValue") } ?? x
            }
            points.append(.init(t, value))
        }
        guard ok, let id = maybeID else { return nil }
        if points.isEmpty {
            warn(cpath, "no control points; the curve is ignored")
            return nil
        }
        let (sorted, outOfOrder) = DiagnosticReader.sortedByTime(points, time: \.time)
        if let j = outOfOrder {
            warn(cpath, "control points are not in time order ([\(j)] at \(points[j].time) s comes after a later one); sorted by time, each point keeping its time and value")
        }
        if id.isAudio { warn("\(path).ParameterID", "\(id.rawValue) ignored: a rumble pad plays no audio") }
        return ParameterCurve(id, at: start, points: sorted)
    }

    // MARK: curve timing

    /// Decides, once for the whole file, whether control-point times are relative to their curve
    /// (Apple's header) or absolute pattern times (what Lofelt's and Meta Haptics Studio's AHAP
    /// exporters write: every curve's `Time` equals its first point's time, and each curve of a chain
    /// starts where the previous one ended). docs/rendering.md §1 states the rule:
    /// - only curves that start after 0 tell the two readings apart;
    /// - if any of them has a point before its own `Time`, only the relative reading fits every curve:
    ///   relative, silently (mixed evidence);
    /// - otherwise, if every one of them begins its points exactly at its own `Time` and something
    ///   confirms it (two or more such curves, a chain, the relative reading running past every event
    ///   while the absolute one does not, or Metadata naming such an exporter): absolute;
    /// - anything else is ambiguous and keeps Apple's relative reading.
    mutating func decideCurveTiming(_ pattern: inout HapticPattern, _ curves: [CurveRecord]) {
        func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-6 * max(1, abs(a), abs(b)) }
        let late = curves.filter { $0.curve.time > 0 }
        let anchored = late.filter { close($0.curve.controlPoints[0].time, $0.curve.time) }
        let contradicting = late.filter { $0.curve.controlPoints[0].time < $0.curve.time && !close($0.curve.controlPoints[0].time, $0.curve.time) }
        guard !anchored.isEmpty else { return }
        // A point before its own curve's Time is possible only with relative times: Apple's reading is
        // then the only one that fits every curve (Apple's own Jump.ahap is such a file), nothing to say.
        if !contradicting.isEmpty { return }
        var reasons: [String] = []
        if anchored.count >= 2 {
            reasons.append("all \(anchored.count) curves that start after 0 begin their points at their own Time")
        }
        var links = 0
        var byID: [DynamicParameterID: [ParameterCurve]] = [:]
        for c in curves { byID[c.curve.id, default: []].append(c.curve) }
        for (_, list) in byID {
            let ordered = list.sorted { $0.time < $1.time }
            for (a, b) in zip(ordered, ordered.dropFirst()) where b.time > 0 {
                if let last = a.controlPoints.last, close(last.time, b.time), abs(last.value - b.controlPoints[0].value) <= 1e-6 {
                    links += 1
                }
            }
        }
        if links > 0 { reasons.append("\(links) of them start exactly where the previous curve of their parameter ends") }
        var eventsEnd = 0.0
        for e in pattern.events where e.type.isHaptic {
            // An event that sounds until stopped ends nowhere: it counts by its start.
            let end = e.time + (e.duration ?? 0)
            eventsEnd = max(eventsEnd, end >= Self.untilStoppedMark(limits.maximumPatternTime) ? e.time : end)
        }
        let relativeEnd = late.map { $0.curve.time + $0.curve.controlPoints.last!.time }.max() ?? 0
        let absoluteEnd = late.map { $0.curve.controlPoints.last!.time }.max() ?? 0
        if eventsEnd > 0, relativeEnd > eventsEnd + 1e-6, absoluteEnd <= eventsEnd + 1e-6 {
            reasons.append("read relative they would run to \(Format.fixed(relativeEnd, 3)) s, past the last event's end at \(Format.fixed(eventsEnd, 3)) s")
        }
        if let name = exporterNamed(in: pattern.metadata) {
            reasons.append("the Metadata names \(name)")
        }
        guard !reasons.isEmpty else {
            warn(
                "\(anchored[0].path).ParameterCurveControlPoints",
                "the first control point sits at the curve's own Time (\(anchored[0].curve.time) s), which could mean absolute times, but nothing else in the file confirms it; read relative to the curve's start, as Apple documents"
            )
            return
        }
        for c in late {
            var fixed = c.curve
            fixed.controlPoints = c.curve.controlPoints.map { .init(max($0.time - c.curve.time, 0), $0.value) }
            pattern.elements[c.index] = .curve(fixed)
        }
        warn(
            "Pattern",
            "ParameterCurve control-point times read as absolute pattern times (the convention of Lofelt and Meta Haptics Studio exports) for every curve of the file: \(reasons.joined(separator: "; ")); Apple's relative reading would play them late"
        )
    }

    /// `object` with every non-finite number, at any depth, made null (`nonFinite` set if one was).
    static func finite(_ object: JSONObject, _ nonFinite: inout Bool) -> JSONObject {
        func clean(_ v: JSONValue) -> JSONValue {
            switch v {
            case .number(let x) where !x.isFinite:
                nonFinite = true
                return .null
            case .array(let a): return .array(a.map(clean))
            case .object(let o): return .object(JSONObject(o.members.map { .init(key: $0.key, value: clean($0.value)) }))
            default: return v
            }
        }
        return JSONObject(object.members.map { .init(key: $0.key, value: clean($0.value)) })
    }

    func exporterNamed(in metadata: JSONObject?) -> String? {
        guard let metadata else { return nil }
        for m in metadata.members {
            guard case .string(let s) = m.value else { continue }
            let lower = s.lowercased()
            for name in ["lofelt", "haptics studio", "nice vibrations"] where lower.contains(name) {
                return "\"\(s)\" (\(m.key))"
            }
        }
        return nil
    }

    /// Every curve must end within the time horizon, whichever reading was taken.
    mutating func checkCurveEnds(_ pattern: HapticPattern, _ curves: [CurveRecord]) {
        for c in curves {
            guard case .curve(let curve) = pattern.elements[c.index], let last = curve.controlPoints.last else { continue }
            _ = horizon(curve.time + last.time, "\(c.path).ParameterCurveControlPoints", "the curve ends at ")
        }
    }
}
