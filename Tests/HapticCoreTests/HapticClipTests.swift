import HapticCore
import Testing

/// Meta Haptics Studio / Lofelt `.haptic` clips (docs/rendering.md §12).
@Suite struct HapticClipTests {
    /// Every field of the format: version, every metadata key (and one unknown), amplitude breakpoints
    /// with and without emphasis, a frequency envelope, and fields a newer minor version might add.
    static let everyField = """
        {
          "version": {"major": 1, "minor": 0, "patch": 0},
          "metadata": {
            "editor": "Meta Haptics Studio 2.1", "author": "A. Designer", "source": "gear.wav",
            "project": "machine-interactions.hasp", "tags": ["gear", "ui"], "description": "A gear being cranked",
            "studio_extra": 7
          },
          "signals": {
            "continuous": {
              "envelopes": {
                "amplitude": [
                  {"time": 0.0, "amplitude": 0.0},
                  {"time": 0.2, "amplitude": 0.11},
                  {"time": 0.48, "amplitude": 0.18},
                  {"time": 0.49, "amplitude": 0.71, "emphasis": {"amplitude": 0.8, "frequency": 0.5}},
                  {"time": 0.61, "amplitude": 0.08, "additional_field": 1},
                  {"time": 0.91, "amplitude": 0.0}
                ],
                "frequency": [
                  {"time": 0.0, "frequency": 0.0},
                  {"time": 0.01, "frequency": 0.73},
                  {"time": 0.48, "frequency": 0.98},
                  {"time": 0.82, "frequency": 0.7}
                ]
              }
            },
            "additional_signal": {"whatever": -1}
          }
        }
        """

    static func clip(amplitude: String, frequency: String? = nil, version: String = #""version": {"major": 1, "minor": 0, "patch": 0},"#) -> String {
        let f = frequency.map { ", \"frequency\": [\($0)]" } ?? ""
        return "{\(version) \"signals\": {\"continuous\": {\"envelopes\": {\"amplitude\": [\(amplitude)]\(f)}}}}"
    }

    static func clipErrors(_ text: String, limits: AHAPLimits = .default) -> [AHAPDiagnostic] {
        do {
            _ = try HapticClipLoader.load(text: text, limits: limits)
            Issue.record("expected the clip to fail to load")
            return []
        } catch {
            return error.errors
        }
    }

    @Test func loadsEveryField() throws {
        let loaded = try HapticClipLoader.load(text: Self.everyField)
        #expect(loaded.format == .haptic)
        #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
        let p = loaded.pattern
        #expect(p.metadata == JSONObject([
            "Editor": .string("Meta Haptics Studio 2.1"), "Author": .string("A. Designer"), "Source": .string("gear.wav"),
            "Project": .string("machine-interactions.hasp"), "Tags": .array([.string("gear"), .string("ui")]),
            "Description": .string("A gear being cranked"), "studio_extra": .number(7),
        ]).reordered(like: p.metadata))
        #expect(p.events.count == 2)
        let c = p.events[0]
        #expect(c.type == .hapticContinuous && c.time == 0 && c.duration == 0.91)
        #expect(c.envelope?.intensity == [.init(0, 0), .init(0.2, 0.11), .init(0.48, 0.18), .init(0.49, 0.71), .init(0.61, 0.08), .init(0.91, 0)])
        #expect(c.envelope?.sharpness == [.init(0, 0), .init(0.01, 0.73), .init(0.48, 0.98), .init(0.82, 0.7)])
        #expect(p.events[1] == .transient(at: 0.49, intensity: 0.8, sharpness: 0.5))
        #expect(p.duration == 0.91)
    }

    @Test func rendersTheEnvelopesLinearlyAndTheEmphasisUntouchedByThem() throws {
        let p = CompiledPattern(try HapticClipLoader.load(text: Self.everyField).pattern)
        // Between breakpoints: linear in both envelopes.
        let s = p.frame(at: 0.1)
        #expect(abs(s.intensity - 0.055) < 1e-12)
        #expect(abs(s.sharpness - (0.73 + (0.98 - 0.73) * (0.09 / 0.47))) < 1e-12)
        // After the last frequency breakpoint the frequency holds.
        #expect(abs(p.frame(at: 0.85).sharpness - 0.7) < 1e-12)
        // The emphasis plays at its own intensity on top of the envelope (0.71 + 0.8, clipped at 1),
        // its sharpness mixed by intensity: the envelope does not scale it as an AHAP curve would.
        let e = p.frame(at: 0.495)
        let envelope = 0.71 + (0.08 - 0.71) * (0.005 / 0.12)
        let sharp = 0.98 - (0.98 - 0.7) * (0.015 / 0.34)
        #expect(e.intensity == 1)
        #expect(abs(e.sharpness - (envelope * sharp + 0.8 * 0.5) / (envelope + 0.8)) < 1e-12)
        // The clip ends at its last amplitude breakpoint.
        #expect(p.frame(at: 0.95) == .silent)
    }

    @Test func rampsFromZeroBeforeTheFirstBreakpointsAndDefaultsTheSharpness() throws {
        // Lofelt's clip player ramps amplitude and frequency from 0 at time 0 to their first breakpoints.
        let ramp = try HapticClipLoader.load(text: Self.clip(
            amplitude: #"{"time": 0.1, "amplitude": 0.6}, {"time": 0.3, "amplitude": 0.6}"#,
            frequency: #"{"time": 0.2, "frequency": 0.8}"#))
        let p = CompiledPattern(ramp.pattern)
        #expect(abs(p.frame(at: 0.05).intensity - 0.3) < 1e-12)
        #expect(abs(p.frame(at: 0.05).sharpness - 0.2) < 1e-12)
        #expect(abs(p.frame(at: 0.25).sharpness - 0.8) < 1e-12)
        // Without a frequency envelope (omitted, null or empty) the sharpness is the specification's 0.5.
        for f in [nil, "", "null"] {
            let text = f == "null"
                ? #"{"version": {"major": 1, "minor": 0, "patch": 0}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 1}, {"time": 1, "amplitude": 1}], "frequency": null}}}}"#
                : Self.clip(amplitude: #"{"time": 0, "amplitude": 1}, {"time": 1, "amplitude": 1}"#, frequency: f)
            let flat = CompiledPattern(try HapticClipLoader.load(text: text).pattern)
            #expect(flat.frame(at: 0.5) == HapticSignal(intensity: 1, sharpness: 0.5))
        }
    }

    @Test(arguments: [
        (clip(amplitude: #"{"time": 0, "amplitude": 1.5}, {"time": 1, "amplitude": -0.5}"#), "signals.continuous.envelopes.amplitude[0].amplitude", "1.5 clamped to 1.0"),
        (clip(amplitude: #"{"time": 0, "amplitude": 0}, {"time": 1, "amplitude": 0.5, "emphasis": {"amplitude": 0.4, "frequency": 0.5}}"#), "signals.continuous.envelopes.amplitude[1].emphasis.amplitude", "0.4 is below the envelope's 0.5 at this breakpoint (the specification requires emphasis ≥ amplitude); played as written"),
        (clip(amplitude: #"{"time": 0, "amplitude": 0}, {"time": 1, "amplitude": 0.5, "emphasis": {"amplitude": 0.9, "frequency": 2}}"#), "signals.continuous.envelopes.amplitude[1].emphasis.frequency", "2.0 clamped to 1.0"),
        (clip(amplitude: #"{"time": 0, "amplitude": 0}, {"time": 1, "amplitude": 0.5}, {"time": 0.5, "amplitude": 1}"#), "signals.continuous.envelopes.amplitude", "breakpoints are not in time order ([2] at 0.5 s comes after a later one); sorted by time, each keeping its time and value"),
        (clip(amplitude: #"{"time": 0, "amplitude": 0}, {"time": 1, "amplitude": 0.5}"#, frequency: #"{"time": 0, "frequency": 0.2}, {"time": 2, "frequency": 0.5}"#), "signals.continuous.envelopes.frequency[1]", "1 frequency breakpoint(s) after the clip's end at 1.0 s; ignored"),
        (clip(amplitude: #"{"time": 0, "amplitude": 0.5}"#), "signals.continuous.envelopes.amplitude", "the clip lasts 0 s (1 breakpoint(s) ending at 0.0 s): only its emphasis, if any, is felt"),
        (clip(amplitude: #"{"time": 0, "amplitude": 0}, {"time": 1, "amplitude": 0}"#, version: #""version": {"major": 1, "minor": 2, "patch": 0},"#), "version", "version 1.2.0 is newer than 1.0.0; read as 1.0 (minor versions only add fields), unknown fields ignored"),
        (clip(amplitude: #"{"time": 0, "amplitude": 0}, {"time": 1, "amplitude": 0}"#, version: ""), "version", "missing; read as 1.0.0 (a .haptic file gives {\"major\": 1, \"minor\": 0, \"patch\": 0})"),
        (#"{"version": {"major": 1}, "metadata": "x", "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0}, {"time": 1, "amplitude": 0}]}}}}"#, "metadata", "expected an object, found a string; ignored (metadata does not change playback)"),
    ])
    func warns(text: String, path: String, message: String) throws {
        let loaded = try HapticClipLoader.load(text: text)
        #expect(loaded.warnings.first == AHAPDiagnostic(.warning, path, message))
    }

    /// One amplitude breakpoint after time 0 is a ramp from 0 to it (Lofelt's own player test,
    /// `one_amp_bp.haptic`: 0.9 at 0.3 s), with no warning that the clip lasts 0 s.
    @Test func oneBreakpointAfterZeroIsARampWithoutWarning() throws {
        let loaded = try HapticClipLoader.load(text: Self.clip(amplitude: #"{"time": 0.3, "amplitude": 0.9}"#))
        #expect(loaded.warnings.isEmpty)
        let p = CompiledPattern(loaded.pattern)
        #expect(abs(p.duration - 0.3) < 1e-12)
        #expect(abs(p.frame(at: 0.15).intensity - 0.45) < 1e-12)
    }

    @Test func sortsBreakpointsKeepingEachEmphasisOnItsPoint() throws {
        let loaded = try HapticClipLoader.load(text: Self.clip(amplitude: #"{"time": 0, "amplitude": 0}, {"time": 1, "amplitude": 0.5}, {"time": 0.5, "amplitude": 0.2, "emphasis": {"amplitude": 1, "frequency": 0.3}}"#))
        #expect(loaded.pattern.events[0].envelope?.intensity == [.init(0, 0), .init(0.5, 0.2), .init(1, 0.5)])
        #expect(loaded.pattern.events[1] == .transient(at: 0.5, intensity: 1, sharpness: 0.3))
    }

    @Test(arguments: [
        (#"{"version": {"major": 1}, "Pattern": []}"#, "signals", "missing: a .haptic clip holds signals.continuous.envelopes (this document looks like AHAP)"),
        (#"{"version": {"major": 2, "minor": 0, "patch": 0}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0}, {"time": 1, "amplitude": 0}]}}}}"#, "version.major", "unsupported .haptic version 2.0.0; hapticd reads version 1 (Meta Haptics Studio, Lofelt Studio)"),
        (#"{"version": {"major": 1}, "signals": {}}"#, "signals.continuous", "missing: a .haptic clip holds one continuous signal"),
        (#"{"version": {"major": 1}, "signals": {"continuous": {}}}"#, "signals.continuous.envelopes", "missing: the continuous signal holds its envelopes"),
        (#"{"version": {"major": 1}, "signals": {"continuous": {"envelopes": {"frequency": []}}}}"#, "signals.continuous.envelopes.amplitude", "missing: the amplitude envelope is required"),
        (clip(amplitude: ""), "signals.continuous.envelopes.amplitude", "the amplitude envelope is empty; a clip needs at least one breakpoint"),
        (clip(amplitude: #"{"time": -1, "amplitude": 0}"#), "signals.continuous.envelopes.amplitude[0].time", "-1.0 is negative; times and durations must be ≥ 0"),
        (clip(amplitude: #"{"time": NaN, "amplitude": 0}"#), "signals.continuous.envelopes.amplitude[0].time", "nan is not a finite number"),
        (clip(amplitude: #"{"time": 0, "amplitude": "loud"}"#), "signals.continuous.envelopes.amplitude[0].amplitude", "expected a number, found a string"),
        (clip(amplitude: #"{"amplitude": 0}"#), "signals.continuous.envelopes.amplitude[0]", "missing time"),
        (clip(amplitude: #"{"time": 0}"#), "signals.continuous.envelopes.amplitude[0]", "missing amplitude"),
        (clip(amplitude: #"{"time": 0, "amplitude": 0, "emphasis": {"amplitude": 1}}"#), "signals.continuous.envelopes.amplitude[0].emphasis", "missing frequency (an emphasis has an amplitude and a frequency)"),
        (clip(amplitude: #"{"time": 0, "amplitude": 0}, {"time": 1e9, "amplitude": 0}"#), "signals.continuous.envelopes.amplitude[1].time", "1000000000.000 s is past the pattern time limit of 86400 s"),
        (clip(amplitude: #"{"time": 0, "amplitude": 0}"#, frequency: #"{"time": 86401, "frequency": 0}"#), "signals.continuous.envelopes.frequency[0].time", "86401.000 s is past the pattern time limit of 86400 s"),
        (clip(amplitude: #"{"time": 0, "amplitude": 0}"#, frequency: #"{"time": 0}"#), "signals.continuous.envelopes.frequency[0]", "missing frequency"),
        ("[]", "$", "expected an object at the top level, found an array"),
    ])
    func rejects(text: String, path: String, message: String) {
        #expect(Self.clipErrors(text).first == AHAPDiagnostic(.error, path, message))
    }

    @Test func boundsBreakpointsAndEmphasisCounts() {
        let points = (0..<10).map { #"{"time": \#(Double($0) * 0.1), "amplitude": 0.5, "emphasis": {"amplitude": 1, "frequency": 1}}"# }.joined(separator: ",")
        #expect(Self.clipErrors(Self.clip(amplitude: points), limits: .init(maximumCurveControlPoints: 9)) == [
            .init(.error, "signals.continuous.envelopes.amplitude", "10 breakpoints, over the limit of 9")
        ])
        #expect(Self.clipErrors(Self.clip(amplitude: points), limits: .init(maximumEvents: 9)) == [
            .init(.error, "signals.continuous.envelopes.amplitude", "10 emphasis points, over the limit of 9 events")
        ])
    }

    @Test func theFormatIsDetectedFromTheContent() throws {
        #expect(PatternLoader.detect(try JSONParser.parse(Self.everyField)) == .haptic)
        #expect(PatternLoader.detect(try JSONParser.parse(#"{"version": {"major": 1}}"#)) == .haptic)
        #expect(PatternLoader.detect(try JSONParser.parse(#"{"Version": 1, "Pattern": []}"#)) == .ahap)
        #expect(PatternLoader.detect(try JSONParser.parse("{}")) == .ahap)
        #expect(try PatternLoader.load(text: Self.everyField).format == .haptic)
        #expect(try PatternLoader.load(text: #"{"Pattern": []}"#).format == .ahap)
        // An explicit format is obeyed, with a hint when the content looks like the other one.
        let asAHAP = try PatternLoader.load(text: Self.everyField, format: .ahap)
        #expect(asAHAP.warnings == [.init(.warning, "Pattern", "missing: the pattern is empty (this document looks like a .haptic clip)")])
        #expect(PatternLoader.format(forPath: "a/B.HAPTIC") == .haptic && PatternLoader.format(forPath: "x.ahap") == .ahap)
    }

    // MARK: round trips

    @Test func aClipWritesBackToTheSamePattern() throws {
        let first = try HapticClipLoader.load(text: Self.everyField)
        let (json, warnings) = try HapticClipWriter.convert(first.pattern)
        #expect(warnings.isEmpty, "\(warnings)")
        let again = try HapticClipLoader.load(json: json)
        #expect(again.warnings.isEmpty)
        #expect(again.pattern == first.pattern)
        // And the written file says what Studio's does, field for field.
        #expect(json["metadata"]?["description"] == .string("A gear being cranked"))
        #expect(json["version"] == .object(JSONObject(["major": .number(1), "minor": .number(0), "patch": .number(0)])))
        let amplitude = json["signals"]?["continuous"]?["envelopes"]?["amplitude"]
        guard case .array(let points)? = amplitude else { Issue.record("no amplitude"); return }
        #expect(points.count == 6)
        #expect(points[3]["emphasis"] == .object(JSONObject(["amplitude": .number(0.8), "frequency": .number(0.5)])))
    }

    @Test func aClipConvertedToAHAPRendersTheSame() throws {
        // Without emphasis the AHAP form is exact.
        var clip = try HapticClipLoader.load(text: Self.everyField).pattern
        clip.elements.removeLast()
        let (json, warnings) = AHAPWriter.convert(clip)
        #expect(warnings.isEmpty, "\(warnings)")
        let ahap = try AHAPLoader.load(json: json)
        #expect(ahap.warnings.isEmpty, "\(ahap.warnings)")
        // Apple's limits: continuous events ≤ 30 s and curves ≤ 16 points.
        #expect(ahap.pattern.curves.allSatisfy { $0.controlPoints.count <= 16 })
        let a = CompiledPattern(clip), b = CompiledPattern(ahap.pattern)
        for t in stride(from: 0.0, through: 1.0, by: 0.0005) {
            let x = a.frame(at: t), y = b.frame(at: t)
            #expect(abs(x.intensity - y.intensity) < 1e-9 && abs(x.sharpness - y.sharpness) < 1e-9, "at \(t)")
        }
    }

    @Test func aLongClipBecomesThirtySecondEventsAndChainedCurves() throws {
        let points = (0...700).map { #"{"time": \#(Double($0) * 0.1), "amplitude": \#(Double($0 % 9) / 9)}"# }.joined(separator: ",")
        let clip = try HapticClipLoader.load(text: Self.clip(amplitude: points)).pattern
        #expect(clip.events[0].duration == 70)
        let ahap = try AHAPLoader.load(json: AHAPWriter.json(clip))
        #expect(ahap.pattern.events.map(\.duration) == [30, 30, 10])
        #expect(ahap.pattern.curves.count == 47)  // 701 points, 16 per curve, each sharing one with the next
        let a = CompiledPattern(clip), b = CompiledPattern(ahap.pattern)
        for t in stride(from: 0.0, through: 70.5, by: 0.0125) {
            #expect(abs(a.frame(at: t).intensity - b.frame(at: t).intensity) < 1e-9, "at \(t)")
        }
    }

    @Test func anEmphasisEqualToTheEnvelopeIsCompensatedExactly() throws {
        // The transient's intensity is divided by the control's value at its time, its sharpness
        // lowered by the sharpness control's: where the envelope holds still through the pulse, it
        // plays as in the clip.
        let clip = try HapticClipLoader.load(text: Self.clip(amplitude: #"{"time": 0, "amplitude": 0.2}, {"time": 0.4, "amplitude": 0.6}, {"time": 0.5, "amplitude": 0.6, "emphasis": {"amplitude": 0.6, "frequency": 0.9}}, {"time": 0.7, "amplitude": 0.6}, {"time": 1, "amplitude": 0.2}"#, frequency: #"{"time": 0, "frequency": 0.3}"#)).pattern
        let (json, warnings) = AHAPWriter.convert(clip)
        #expect(warnings.isEmpty, "\(warnings)")
        let a = CompiledPattern(clip), b = CompiledPattern(try AHAPLoader.load(json: json).pattern)
        for t in stride(from: 0.0, through: 1.1, by: 0.0005) {
            let x = a.frame(at: t), y = b.frame(at: t)
            #expect(abs(x.intensity - y.intensity) < 1e-9 && abs(x.sharpness - y.sharpness) < 1e-9, "at \(t)")
        }
    }

    @Test func whatAHAPCannotHoldIsStated() throws {
        // An emphasis of 0.9 where the envelope is 0.2: AHAP's intensity control scales transients too.
        let clip = try HapticClipLoader.load(text: Self.clip(amplitude: #"{"time": 0, "amplitude": 0.2}, {"time": 0.5, "amplitude": 0.2, "emphasis": {"amplitude": 0.9, "frequency": 0.1}}, {"time": 1, "amplitude": 0.2}"#, frequency: #"{"time": 0, "frequency": 0.6}"#)).pattern
        let (json, warnings) = AHAPWriter.convert(clip)
        #expect(warnings.map(\.message) == [
            "1 transient(s) under the envelope at 0.000–1.000 s (first at 0.500 s) play weaker in AHAP: HapticIntensityControl scales every event sounding, and the envelope there is below the transient's intensity",
            "1 transient(s) under the envelope at 0.000–1.000 s (first at 0.500 s) play sharper in AHAP: HapticSharpnessControl adds to every event sounding, and there it exceeds the transient's sharpness",
        ])
        let ahap = CompiledPattern(try AHAPLoader.load(json: json).pattern)
        #expect(ahap.frame(at: 0.51).intensity < CompiledPattern(clip).frame(at: 0.51).intensity)
    }

    @Test func aClipKeepsThePatternsLengthATransientsLogicalLengthIncluded() throws {
        // Transients only, the last one 0.8 s long by its EventDuration (Apple: "used to determine
        // pattern end and loop points"): the pattern lasts 1.0 s, its pulses end near 0.25 s.
        let transients = try mustLoad(doc([
            event("HapticTransient", time: 0, [("HapticIntensity", 1), ("HapticSharpness", 0.5)]),
            event("HapticTransient", time: 0.2, duration: 0.8, [("HapticIntensity", 0.5), ("HapticSharpness", 0.5)]),
        ].joined(separator: ","))).pattern
        // A continuous event, then a control set after it ends (part of Apple's duration too).
        let trailing = try mustLoad(doc([
            event("HapticContinuous", time: 0, duration: 0.3, [("HapticIntensity", 0.7), ("HapticSharpness", 0.5)]),
            #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0.6, "ParameterValue": 0.5}}"#,
        ].joined(separator: ","))).pattern
        // Audio past the haptics: dropped from the clip, still part of the length hapticd loops at.
        let audio = try mustLoad(doc([
            event("HapticTransient", time: 0, [("HapticIntensity", 1), ("HapticSharpness", 0.5)]),
            event("AudioContinuous", time: 0, duration: 0.7, [("AudioVolume", 0.5)]),
        ].joined(separator: ","))).pattern
        // A signal still sounding at its last breakpoint (a clip's envelope that ends at 0.5), then a
        // transient whose logical length reaches 0.9 s: the lossless path.
        var sounding = try HapticClipLoader.load(text: Self.clip(amplitude: #"{"time": 0, "amplitude": 0.2}, {"time": 0.5, "amplitude": 0.6}"#)).pattern
        var late = HapticEvent.transient(at: 0.1, intensity: 0.8, sharpness: 0.4)
        late.duration = 0.8
        sounding.elements.append(.event(late))
        for source in [transients, trailing, audio, sounding] {
            let (json, _) = try HapticClipWriter.convert(source)
            let clip = try HapticClipLoader.load(json: json).pattern
            #expect(abs(clip.duration - source.duration) < 1e-9, "clip \(clip.duration) s, pattern \(source.duration) s")
            // The signal is the same: the length is a silent breakpoint.
            let a = CompiledPattern(source), b = CompiledPattern(clip)
            for t in stride(from: 0.0, through: 1.1, by: 0.001) {
                #expect(abs(a.frame(at: t).intensity - b.frame(at: t).intensity) <= 0.0025, "at \(t)")
            }
        }
        // Transients at 0 alone: the duration is 0, and hapticd loops at the output's end.
        let click = try mustLoad(doc(event("HapticTransient", time: 0, [("HapticIntensity", 1), ("HapticSharpness", 0.5)]))).pattern
        let clip = try HapticClipLoader.load(json: HapticClipWriter.convert(click).json).pattern
        #expect(click.duration == 0 && CompiledPattern(click).renderEnd > 0.005)
        #expect(abs(clip.duration - CompiledPattern(click).renderEnd) < 1e-9, "clip \(clip.duration) s")
    }

    @Test func anAHAPPatternBecomesAClipThatPlaysAlike() throws {
        // Continuous events with attack and release, a curve, overlapping events and transients.
        let text = doc([
            event("HapticContinuous", time: 0.1, duration: 0.6, [("HapticIntensity", 0.8), ("HapticSharpness", 0.3), ("AttackTime", 0.3), ("ReleaseTime", 0.25)]),
            event("HapticContinuous", time: 0.5, duration: 0.5, [("HapticIntensity", 0.4), ("HapticSharpness", 0.9)]),
            event("HapticTransient", time: 0.3, [("HapticIntensity", 1), ("HapticSharpness", 0.8)]),
            event("HapticTransient", time: 1.5, [("HapticIntensity", 0.6), ("HapticSharpness", 0.2)]),
            #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0.6, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 0.3, "ParameterValue": 0.5}]}}"#,
        ].joined(separator: ","))
        let source = try mustLoad(text).pattern
        let (json, warnings) = try HapticClipWriter.convert(source)
        #expect(warnings.count == 1)
        #expect(warnings[0].message.hasPrefix(".haptic has no attack, decay and release envelopes, dynamic parameters and curves, 2 continuous events (summed into the clip's one signal): the continuous signal was rendered every 0.005 s"))
        let clip = try HapticClipLoader.load(json: json)
        #expect(clip.warnings.isEmpty, "\(clip.warnings)")
        let transients = clip.pattern.events.filter { $0.type == .hapticTransient }
        // Each transient with the intensity it plays with: the curve's last value (0.5) holds after it.
        #expect(transients == [.transient(at: 0.3, intensity: 1, sharpness: 0.8), .transient(at: 1.5, intensity: 0.3, sharpness: 0.2)])
        // The continuous signal, away from the transients' pulses, within the simplification tolerance.
        var withoutTransients = source
        withoutTransients.elements.removeAll { if case .event(let e) = $0 { e.type == .hapticTransient } else { false } }
        var clipContinuous = clip.pattern
        clipContinuous.elements.removeAll { if case .event(let e) = $0 { e.type == .hapticTransient } else { false } }
        let a = CompiledPattern(withoutTransients), b = CompiledPattern(clipContinuous)
        for t in stride(from: 0.0, through: 1.3, by: 0.001) {
            let x = a.frame(at: t), y = b.frame(at: t)
            #expect(abs(x.intensity - y.intensity) <= 0.0025, "intensity at \(t): \(x.intensity) vs \(y.intensity)")
            if x.intensity > 0.01 { #expect(abs(x.sharpness - y.sharpness) <= 0.0025, "sharpness at \(t)") }
        }
    }
}

extension JSONObject {
    /// These members in the order `other` has them (member order is kept, but not part of meaning here).
    func reordered(like other: JSONObject?) -> JSONObject {
        guard let other else { return self }
        return JSONObject(other.keys.compactMap { k in self[k].map { JSONObject.Member(key: k, value: $0) } })
    }
}
