/// Writes patterns as `.haptic` clips (version 1.0.0), with warnings for what the format cannot hold.
///
/// A pattern read from a `.haptic` clip (one continuous event with an envelope, plus transients) is
/// written back as it was: its envelopes become the amplitude and frequency envelopes, its transients
/// emphasis points. Any other pattern is rendered: the continuous part of its signal (events, envelopes,
/// dynamic parameters and curves, summed as hapticd plays them) is sampled every 5 ms and at every
/// point where something starts, ends or turns, then simplified to breakpoints within 0.002 of it;
/// each transient becomes an emphasis with the intensity and sharpness it plays with. What that loses
/// is stated as warnings (docs/rendering.md §12).
public enum HapticClipWriter {
    /// Sampling step and tolerance of the rendered conversion.
    public static let sampleStep = 0.005
    public static let tolerance = 0.002
    /// Most samples one conversion may take (a day-long pattern would need millions).
    public static let maximumSamples = 5_000_000

    public static func text(_ pattern: HapticPattern) throws(AHAPLoadError) -> String {
        JSONWriter.write(try convert(pattern).json, pretty: true) + "\n"
    }

    public static func convert(_ pattern: HapticPattern) throws(AHAPLoadError) -> (json: JSONValue, warnings: [AHAPDiagnostic]) {
        var writer = ClipWriter(pattern: pattern)
        try writer.build()
        return (writer.json(), writer.warnings)
    }
}

private struct ClipWriter {
    struct Breakpoint {
        var time: Double
        var value: Double
        var emphasis: (amplitude: Double, frequency: Double)?
    }

    let pattern: HapticPattern
    var amplitude: [Breakpoint] = []
    var frequency: [Breakpoint] = []
    var warnings: [AHAPDiagnostic] = []

    init(pattern: HapticPattern) { self.pattern = pattern }

    mutating func warn(_ message: String) { warnings.append(.init(.warning, "Pattern", message)) }

    mutating func build() throws(AHAPLoadError) {
        let audio = pattern.events.filter { !$0.type.isHaptic }.count
        if audio > 0 { warn("\(audio) audio event(s) dropped: a .haptic clip holds haptics only") }
        let audioControls = pattern.parameters.filter(\.id.isAudio).count + pattern.curves.filter(\.id.isAudio).count
        if audioControls > 0 { warn("\(audioControls) audio parameter(s) and curve(s) dropped") }

        var transients: [HapticEvent] = []
        var continuous: [HapticEvent] = []
        for e in pattern.events where e.type.isHaptic {
            if e.type == .hapticTransient { transients.append(e) } else { continuous.append(e) }
        }
        let hapticControls = pattern.parameters.contains { !$0.id.isAudio } || pattern.curves.contains { !$0.id.isAudio }
        if continuous.count == 1, let e = continuous.first, let envelope = e.envelope, !envelope.intensity.isEmpty,
           !hapticControls, e.value(.attackTime) == 0, e.value(.decayTime) == 0, e.value(.releaseTime) == 0,
           e.value(.sustained) == 1 {
            writeEnvelope(e, envelope)
            for t in transients.sorted(by: { $0.time < $1.time }) {
                addEmphasis(at: t.time, t.value(.hapticIntensity), t.value(.hapticSharpness))
            }
        } else {
            try sample(continuous: continuous, transients: transients)
        }
        if amplitude.isEmpty { amplitude = [Breakpoint(time: 0, value: 0)] }
        if amplitude.count == 1 { amplitude.append(Breakpoint(time: max(amplitude[0].time, HapticClipWriter.sampleStep), value: 0)) }
        keepLength()
        for b in amplitude {
            if let e = b.emphasis, e.amplitude < b.value - 1e-9 {
                warn("the emphasis at \(Format.fixed(b.time, 3)) s (\(Format.fixed(e.amplitude, 3))) is weaker than the continuous signal under it (\(Format.fixed(b.value, 3))); the .haptic specification asks emphasis ≥ amplitude, so some tools may reject it")
            }
        }
    }

    /// A clip is as long as its last breakpoint, and hapticd loops a pattern at its
    /// `CompiledPattern.length` (Apple's duration: events' ends — a transient's logical length,
    /// `EventDuration`, "used to determine pattern end and loop points" — and parameter and curve
    /// times, audio's included; or its output's end when that duration is 0). A pattern's signal may end before that; a silent
    /// breakpoint there keeps the length without changing a sample (a signal still sounding at its
    /// last breakpoint stops there, in the clip as in the pattern: a step down at that time first).
    /// A release tail past the duration makes the clip longer: it cannot say otherwise.
    mutating func keepLength() {
        let end = CompiledPattern(pattern).length
        guard let last = amplitude.last, end > last.time + 1e-9 else { return }
        if last.value != 0 { amplitude.append(Breakpoint(time: last.time, value: 0)) }
        amplitude.append(Breakpoint(time: end, value: 0))
    }

    /// The lossless path: a pattern shaped like a clip.
    mutating func writeEnvelope(_ e: HapticEvent, _ envelope: EventEnvelope) {
        let start = e.time
        let duration = e.duration ?? 0
        let end = start + duration
        if start > 0 { amplitude.append(Breakpoint(time: 0, value: 0)) }
        amplitude += cut(envelope.intensity, start: start, duration: duration).map { Breakpoint(time: $0.time, value: $0.value) }
        if envelope.sharpness.isEmpty {
            let s = e.value(.hapticSharpness)
            if s != HapticClipLoader.defaultSharpness {
                frequency = [Breakpoint(time: 0, value: s), Breakpoint(time: end, value: s)]
            }
        } else {
            var points = cut(envelope.sharpness, start: start, duration: duration, extend: false)
            if let first = points.first, first.time > 0 { points.insert(.init(0, first.value), at: 0) }
            frequency = points.map { Breakpoint(time: $0.time, value: $0.value) }
        }
    }

    /// Envelope points moved to pattern time, starting exactly at `start` and (with `extend`) ending at
    /// `start + duration` with the value the envelope has there.
    func cut(_ points: [ParameterCurve.ControlPoint], start: Double, duration: Double, extend: Bool = true) -> [ParameterCurve.ControlPoint] {
        var out: [ParameterCurve.ControlPoint] = []
        if let first = points.first, first.time > 0 { out.append(.init(start, first.value)) }
        for p in points where p.time <= duration { out.append(.init(start + p.time, p.value)) }
        if extend, let last = out.last, last.time < start + duration {
            out.append(.init(start + duration, PiecewiseLinear.value(points, at: duration, default: 0)))
        }
        return out
    }

    /// An emphasis at `time`: on the breakpoint there, or on one inserted with the envelope's value.
    mutating func addEmphasis(at time: Double, _ intensity: Double, _ sharpness: Double) {
        func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(a)) }
        let i = lastIndex(atOrBefore: time)
        if i >= 0, close(amplitude[i].time, time) {
            if let e = amplitude[i].emphasis {
                // Two transients at one time: one emphasis, their intensities summed as they play.
                let sum = e.amplitude + intensity
                let s = sum > 0 ? (e.amplitude * e.frequency + intensity * sharpness) / sum : sharpness
                amplitude[i].emphasis = (min(sum, 1), s)
                warn("transients at \(Format.fixed(time, 3)) s merged into one emphasis (a breakpoint holds one)")
            } else {
                amplitude[i].emphasis = (intensity, sharpness)
            }
            return
        }
        if i == amplitude.count - 1 {
            // Past the clip's end: the signal is 0 there.
            if let last = amplitude.last, last.value != 0 { amplitude.append(Breakpoint(time: last.time, value: 0)) }
            amplitude.append(Breakpoint(time: time, value: 0, emphasis: (intensity, sharpness)))
            return
        }
        let points = amplitude.map { ParameterCurve.ControlPoint($0.time, $0.value) }
        let value = i < 0 ? 0 : PiecewiseLinear.value(points, at: time, default: 0)
        amplitude.insert(Breakpoint(time: time, value: value, emphasis: (intensity, sharpness)), at: i + 1)
    }

    func lastIndex(atOrBefore t: Double) -> Int {
        var lo = 0
        var hi = amplitude.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if amplitude[mid].time <= t { lo = mid + 1 } else { hi = mid }
        }
        return lo - 1
    }

    // MARK: the rendered path

    mutating func sample(continuous: [HapticEvent], transients: [HapticEvent]) throws(AHAPLoadError) {
        // The continuous part alone: the pattern without its transients (and audio), controls kept.
        var only = pattern
        only.elements = pattern.elements.filter {
            if case .event(let e) = $0 { return e.type == .hapticContinuous }
            if case .parameter(let p) = $0 { return !p.id.isAudio }
            if case .curve(let c) = $0 { return !c.id.isAudio }
            return false
        }
        let compiled = CompiledPattern(only)
        let full = CompiledPattern(pattern)

        // Where the continuous part can sound, and the times where something starts, ends or turns.
        var spans: [(Double, Double)] = []
        var marks: [Double] = []
        for e in compiled.events {
            let end = min(e.latestEnd, compiled.renderEnd)
            spans.append((e.start, end))
            marks += [e.start, e.start + e.attackSeconds, e.start + e.duration, e.start + e.duration + e.releaseSeconds]
            if !e.sustained { marks.append(e.start + e.attackSeconds + e.decaySeconds) }
            if e.envelope >= 0 {
                let envelope = compiled.envelopes[Int(e.envelope)]
                for p in envelope.intensity + envelope.sharpness where p.time <= e.duration { marks.append(e.start + p.time) }
            }
        }
        for element in only.elements {
            switch element {
            case .parameter(let p): marks.append(p.time)
            case .curve(let c): for p in c.controlPoints { marks.append(c.time + p.time) }
            case .event: break
            }
        }
        spans.sort { $0.0 < $1.0 }
        var merged: [(Double, Double)] = []
        for s in spans {
            if let last = merged.last, s.0 <= last.1 { merged[merged.count - 1].1 = max(last.1, s.1) } else { merged.append(s) }
        }
        let step = HapticClipWriter.sampleStep
        var count = 0.0
        for s in merged { count += (s.1 - s.0) / step + 2 }
        count += Double(marks.count) * 2
        guard count <= Double(HapticClipWriter.maximumSamples) else {
            throw AHAPLoadError(errors: [.init(.error, "Pattern", "the continuous part spans too long to sample at \(step) s steps (\(Int(min(count, 9e15))) samples, over the limit of \(HapticClipWriter.maximumSamples))")])
        }
        var times: [Double] = [0]
        for s in merged {
            var t = s.0
            while t < s.1 {
                times.append(t)
                t += step
            }
            times.append(s.1)
        }
        // Each mark inside a span, with its left limit (a step shows as two breakpoints at one time).
        var j = 0
        for m in marks.filter({ $0.isFinite && $0 >= 0 }).sorted() {
            while j < merged.count, merged[j].1 < m - 1e-9 { j += 1 }
            guard j < merged.count, m >= merged[j].0 - 1e-9 else { continue }
            times.append(m)
            if m > 1e-7 { times.append(m - 1e-7) }
        }
        times.sort()
        var level: [(Double, Double)] = []
        var pitch: [(Double, Double)] = []
        var lastSharpness: Double?
        var previous = -1.0
        for t in times where t != previous {
            previous = t
            let f = compiled.frame(at: t)
            level.append((t, f.intensity))
            if f.intensity > 0 {
                pitch.append((t, f.sharpness))
                lastSharpness = f.sharpness
            } else if let s = lastSharpness {
                pitch.append((t, s))
            }
        }
        // Trim the silent tail after the last sound.
        while level.count > 1, level[level.count - 1].1 == 0, level[level.count - 2].1 == 0 { level.removeLast() }
        amplitude = Simplifier.swingDoor(level, tolerance: HapticClipWriter.tolerance).map { Breakpoint(time: $0.0, value: $0.1) }
        let end = amplitude.last?.time ?? 0
        frequency = Simplifier.swingDoor(pitch.filter { $0.0 <= end }, tolerance: HapticClipWriter.tolerance).map { Breakpoint(time: $0.0, value: $0.1) }
        if frequency.isEmpty == false, frequency[0].time > 0 { frequency.insert(Breakpoint(time: 0, value: frequency[0].value), at: 0) }

        var decayChanged = 0
        for t in transients.sorted(by: { $0.time < $1.time }) {
            let c = full.controls.values(at: t.time)
            if c.decay != 0 { decayChanged += 1 }
            let intensity = min(max(t.value(.hapticIntensity) * c.intensity, 0), 1)
            let sharpness = min(max(t.value(.hapticSharpness) + c.sharpness, 0), 1)
            addEmphasis(at: t.time, intensity, sharpness)
        }

        var lost: [String] = []
        if continuous.contains(where: { $0.value(.attackTime) != 0 || $0.value(.decayTime) != 0 || $0.value(.releaseTime) != 0 || $0.value(.sustained) != 1 }) {
            lost.append("attack, decay and release envelopes")
        }
        if !compiled.controls.isEmpty { lost.append("dynamic parameters and curves") }
        if continuous.count > 1 { lost.append("\(continuous.count) continuous events (summed into the clip's one signal)") }
        if !lost.isEmpty {
            warn(".haptic has no \(lost.joined(separator: ", ")): the continuous signal was rendered every \(step) s and written as \(amplitude.count) amplitude and \(frequency.count) frequency breakpoints within \(HapticClipWriter.tolerance)")
        }
        if decayChanged > 0 {
            warn("\(decayChanged) transient(s) under HapticDecayTimeControl: an emphasis has no length, so the control's effect on their pulse is lost")
        }
    }

    func json() -> JSONValue {
        var root = JSONObject()
        root.append("version", .object(JSONObject(["major": .number(1), "minor": .number(0), "patch": .number(0)])))
        var metadata = JSONObject()
        if let m = pattern.metadata {
            for member in m.members {
                if let mapped = HapticClipLoader.metadataKeys.first(where: { $0.ahap == member.key }) {
                    metadata.append(mapped.haptic, member.value)
                } else if member.key != "Created" {
                    metadata.append(member.key, member.value)
                }
            }
        }
        if metadata["editor"] == nil { metadata.append("editor", .string("hapticd")) }
        root.append("metadata", .object(metadata))
        let amp: [JSONValue] = amplitude.map { b in
            var o = JSONObject(["time": .number(b.time), "amplitude": .number(b.value)])
            if let e = b.emphasis {
                o.append("emphasis", .object(JSONObject(["amplitude": .number(e.amplitude), "frequency": .number(e.frequency)])))
            }
            return .object(o)
        }
        let freq: [JSONValue] = frequency.map { .object(JSONObject(["time": .number($0.time), "frequency": .number($0.value)])) }
        root.append("signals", .object(JSONObject([
            "continuous": .object(JSONObject([
                "envelopes": .object(JSONObject(["amplitude": .array(amp), "frequency": .array(freq)]))
            ]))
        ])))
        return .object(root)
    }
}

/// Reduces a sampled signal to breakpoints, in one pass ("swing door"): a sample is dropped when the
/// line between the breakpoints kept around it passes within `tolerance` of it and of every other
/// sample it replaces. Samples at the same time (a step) are kept as a step.
enum Simplifier {
    static func swingDoor(_ samples: [(Double, Double)], tolerance: Double) -> [(Double, Double)] {
        guard samples.count > 2 else { return samples }
        var out = [samples[0]]
        var anchor = samples[0]
        var last = samples[0]
        var lo = -Double.infinity
        var hi = Double.infinity
        var hasLast = false
        var i = 1
        while i < samples.count {
            let p = samples[i]
            let dt = p.0 - anchor.0
            if dt <= 0 {
                // A step at the anchor's time.
                if hasLast { out.append(last) }
                out.append(p)
                anchor = p
                hasLast = false
                lo = -.infinity
                hi = .infinity
                i += 1
                continue
            }
            let slope = (p.1 - anchor.1) / dt
            if !hasLast || (slope >= lo && slope <= hi) {
                lo = max(lo, (p.1 - tolerance - anchor.1) / dt)
                hi = min(hi, (p.1 + tolerance - anchor.1) / dt)
                last = p
                hasLast = true
                i += 1
                continue
            }
            // The door closed: keep the previous sample and start again from it.
            out.append(last)
            anchor = last
            hasLast = false
            lo = -.infinity
            hi = .infinity
        }
        if hasLast { out.append(last) }
        return out
    }
}
