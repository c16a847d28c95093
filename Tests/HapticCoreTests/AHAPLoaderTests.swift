import HapticCore
import Testing

@Suite struct AHAPLoaderTests {
    @Test func loadsEveryKey() throws {
        let text = """
            {
              "Version": 1.0,
              "Metadata": {"Project": "p", "Created": "today", "Description": "d", "Extra": 3},
              "Pattern": [
                {"Event": {"Time": 0.1, "EventType": "HapticTransient", "EventParameters": [
                  {"ParameterID": "HapticIntensity", "ParameterValue": 0.7},
                  {"ParameterID": "HapticSharpness", "ParameterValue": 0.2}]}},
                {"Event": {"Time": 0.2, "EventType": "HapticContinuous", "EventDuration": 0.5, "EventParameters": [
                  {"ParameterID": "AttackTime", "ParameterValue": 0.1},
                  {"ParameterID": "DecayTime", "ParameterValue": 0.2},
                  {"ParameterID": "ReleaseTime", "ParameterValue": 0.3},
                  {"ParameterID": "Sustained", "ParameterValue": 0}]}},
                {"Event": {"Time": 0.3, "EventType": "AudioCustom", "EventDuration": 1, "EventWaveformPath": "a.wav",
                  "EventWaveformUseVolumeEnvelope": true, "EventWaveformLoopEnabled": false,
                  "EventParameters": [{"ParameterID": "AudioVolume", "ParameterValue": 0.5},
                    {"ParameterID": "AudioPitch", "ParameterValue": -0.5}, {"ParameterID": "AudioPan", "ParameterValue": 0.1},
                    {"ParameterID": "AudioBrightness", "ParameterValue": 0.4}]}},
                {"Event": {"Time": 0.4, "EventType": "AudioContinuous", "EventDuration": 1}},
                {"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0.5, "ParameterValue": 0.5}},
                {"ParameterCurve": {"ParameterID": "HapticSharpnessControl", "Time": 0.6,
                  "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": -0.5}, {"Time": 0.2, "ParameterValue": 0.5}]}}
              ]
            }
            """
        let loaded = try mustLoad(text)
        let p = loaded.pattern
        #expect(p.version == 1)
        #expect(p.metadata?["Description"] == .string("d"))
        #expect(p.events.count == 4)
        #expect(p.events[0] == .transient(at: 0.1, intensity: 0.7, sharpness: 0.2))
        #expect(p.events[1].value(.attackTime) == 0.1)
        #expect(p.events[1].value(.decayTime) == 0.2)
        #expect(p.events[1].value(.releaseTime) == 0.3)
        #expect(p.events[1].value(.sustained) == 0)
        #expect(p.events[1].value(.hapticIntensity) == 1, "missing values take their defaults")
        #expect(p.events[2].waveformPath == "a.wav")
        #expect(p.events[2].waveformUseVolumeEnvelope == true)
        #expect(p.events[2].waveformLoopEnabled == false)
        #expect(p.events[2].value(.audioPitch) == -0.5)
        #expect(p.parameters == [DynamicParameter(.hapticIntensityControl, 0.5, at: 0.5)])
        #expect(p.curves == [ParameterCurve(.hapticSharpnessControl, at: 0.6, points: [.init(0, -0.5), .init(0.2, 0.5)])])
        #expect(p.duration == 1.4)
        #expect(loaded.warnings == [
            .init(.warning, "Pattern[2].Event", "AudioCustom event ignored: a rumble pad plays no audio"),
            .init(.warning, "Pattern[3].Event", "AudioContinuous event ignored: a rumble pad plays no audio"),
        ])
    }

    @Test func ignoresUnknownKeysAndDefaultsMissingValues() throws {
        let loaded = try mustLoad(#"{"Pattern": [{"Event": {"EventType": "HapticTransient", "Whatever": [1]}}], "Other": 1}"#)
        #expect(loaded.pattern.events == [HapticEvent(type: .hapticTransient, time: 0)])
        #expect(loaded.pattern.events[0].value(.hapticSharpness) == 0.5)
        #expect(loaded.warnings.isEmpty)
    }

    @Test func clampsOutOfRangeValuesWithAWarningNamingThePath() throws {
        let text = doc(
            [event("HapticTransient"), event("HapticTransient"), event("HapticTransient"),
             event("HapticContinuous", duration: 1, [("HapticSharpness", 0.5), ("HapticIntensity", 1.4)])]
                .joined(separator: ","))
        let loaded = try mustLoad(text)
        #expect(loaded.warnings.map(\.description) == [
            "Pattern[3].Event.EventParameters[1].ParameterValue: 1.4 clamped to 1.0"
        ])
        #expect(loaded.pattern.events[3].value(.hapticIntensity) == 1)
    }

    @Test(arguments: [
        // (elements, path, message)
        (event("HapticTransient", [("HapticSharpness", -1)]), "Pattern[0].Event.EventParameters[0].ParameterValue", "-1.0 clamped to 0.0"),
        (event("HapticTransient", [("AttackTime", 2)]), "Pattern[0].Event.EventParameters[0].ParameterValue", "2.0 clamped to 1.0"),
        (event("HapticTransient", [("Sustained", 0.7)]), "Pattern[0].Event.EventParameters[0].ParameterValue", "Sustained is 0 or 1; 0.7 read as 1.0"),
        (event("HapticTransient", [("Loudness", 1)]), "Pattern[0].Event.EventParameters[0].ParameterID", "unknown event parameter \"Loudness\"; ignored"),
        (#"{"Event": {"EventType": "HapticContinuous"}}"#, "Pattern[0].Event", "no EventDuration: a continuous event with no fixed end sounds until stopped (kept to the 86400 s pattern time limit)"),
        (event("HapticContinuous", duration: 0), "Pattern[0].Event.EventDuration", "EventDuration 0: a continuous event with no fixed end sounds until stopped (kept to the 86400 s pattern time limit)"),
        (event("AudioContinuous", duration: 1), "Pattern[0].Event", "AudioContinuous event ignored: a rumble pad plays no audio"),
        (#"{"Parameter": {"ParameterID": "HapticWobble", "ParameterValue": 1}}"#, "Pattern[0].Parameter.ParameterID", "unknown dynamic parameter \"HapticWobble\"; ignored"),
        (#"{"Parameter": {"ParameterID": "HapticIntensityControl", "ParameterValue": 1.5}}"#, "Pattern[0].Parameter.ParameterValue", "1.5 clamped to 1.0"),
        (#"{"Parameter": {"ParameterID": "HapticSharpnessControl", "ParameterValue": -3}}"#, "Pattern[0].Parameter.ParameterValue", "-3.0 clamped to -1.0"),
        (#"{"Parameter": {"ParameterID": "AudioVolumeControl", "ParameterValue": 1}}"#, "Pattern[0].Parameter.ParameterID", "AudioVolumeControl ignored: a rumble pad plays no audio"),
        (#"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 2}]}}"#, "Pattern[0].ParameterCurve.ParameterCurveControlPoints[0].ParameterValue", "2.0 clamped to 1.0"),
        (#"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "ParameterCurveControlPoints": []}}"#, "Pattern[0].ParameterCurve.ParameterCurveControlPoints", "no control points; the curve is ignored"),
        (#"{"ParameterCurve": {"ParameterID": "HapticIntensityControl"}}"#, "Pattern[0].ParameterCurve", "no ParameterCurveControlPoints; the curve is ignored"),
        (#"{"Something": {}}"#, "Pattern[0]", "holds none of Event, Parameter, ParameterCurve; ignored"),
        (#"{"Event": {"EventType": "HapticContinuous", "EventDuration": 31}}"#, "Pattern[0].Event.EventDuration", "31.0 s is longer than the 30.0 s maximum of a continuous event; clamped to 30.0 s"),
        (#"{"Event": {"EventType": "HapticTransient", "EventWaveformPath": "boom.wav"}}"#, "Pattern[0].Event.EventWaveformPath", "applies to AudioCustom events only; ignored on a HapticTransient event"),
        (#"{"Event": {"EventType": "HapticContinuous", "EventDuration": 1, "EventWaveformPath": null, "EventWaveformUseVolumeEnvelope": null}}"#, "", ""),
        (#"{"Event": {"EventType": "HapticContinuous", "EventDuration": 1, "EventWaveformLoopEnabled": "yes"}}"#, "Pattern[0].Event.EventWaveformLoopEnabled", "applies to AudioCustom events only; ignored on a HapticContinuous event"),
        (#"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "ParameterCurveControlPoints": [{"Time": 0.2, "ParameterValue": 0}, {"Time": 0.1, "ParameterValue": 1}]}}"#, "Pattern[0].ParameterCurve.ParameterCurveControlPoints", "control points are not in time order ([1] at 0.1 s comes after a later one); sorted by time, each point keeping its time and value"),
        (#"{"Event": {"EventType": "HapticTransient"}, "Parameter": null}"#, "", ""),
        ("{\"Event\": {\"EventType\": \"HapticTransient\", \"Time\": null, \"EventParameters\": null}}", "", ""),
        (#"{"Event": {"EventType": "HapticTransient"}}, {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "ParameterCurveControlPoints": [{"Time": null, "ParameterValue": 0.5}]}}"#, "", ""),
    ])
    func warns(element: String, path: String, message: String) throws {
        let loaded = try mustLoad(doc(element))
        // An empty path: `null` values, which mean absent, raise nothing.
        #expect(loaded.warnings == (path.isEmpty ? [] : [AHAPDiagnostic(.warning, path, message)]))
    }

    /// `GCHapticDurationInfinite` (1 000 000 s in hapticd, `FLT_MAX` or any such elsewhere): a
    /// continuous event that would reach the time horizon sounds until stopped — kept to the horizon,
    /// not clamped to 30 s (SDL's and Moonlight's rumble went silent after 30 s). It writes back as
    /// it loaded, and reads again without a warning; a long event short of the horizon is still 30 s.
    @Test func anInfiniteContinuousEventSoundsUntilStopped() throws {
        for written in [1_000_000.0, 3.4028234663852886e38] {
            let loaded = try mustLoad(doc(#"{"Event": {"EventType": "HapticContinuous", "Time": 2, "EventDuration": \#(written)}}"#))
            guard case .event(let e)? = loaded.pattern.elements.first else { Issue.record("no event"); continue }
            let d = try #require(e.duration)
            #expect(d > 86_397.9 && e.time + d <= 86_400, "kept to the horizon: \(d)")
            #expect(loaded.warnings.map(\.path) == ["Pattern[0].Event.EventDuration"])
            #expect(loaded.warnings.first?.message.contains("sounds until stopped") == true, "\(loaded.warnings)")
            let again = try AHAPLoader.load(json: AHAPWriter.json(loaded.pattern))
            #expect(again.pattern == loaded.pattern, "writes back to itself")
            #expect(again.warnings.isEmpty, "\(again.warnings)")
        }
        // A smaller horizon (the daemon's `limits.time_horizon`) keeps it to that one.
        let short = try mustLoad(doc(#"{"Event": {"EventType": "HapticContinuous", "EventDuration": 86400}}"#), limits: AHAPLimits(maximumPatternTime: 3600))
        #expect(short.pattern.duration == 3600)
        // Long but short of the horizon: Apple's 30 s.
        let long = try mustLoad(doc(#"{"Event": {"EventType": "HapticContinuous", "Time": 1, "EventDuration": 5000}}"#))
        #expect(long.pattern.duration == 31)
    }

    /// Apple's `CHHapticEvent.h`: a continuous event's duration "If unset (0.0), Continuous event
    /// types will have no fixed end". With none, or 0, it sounds until stopped (it used to sound
    /// until the pattern's end — nothing at all when it was the pattern's only event), next to other
    /// events as alone, and writes back as it loaded. A transient without one stays a click.
    @Test func aContinuousEventWithoutDurationHasNoFixedEnd() throws {
        for written in [#""#, #", "EventDuration": 0"#, #", "EventDuration": null"#] {
            let loaded = try mustLoad(doc(#"{"Event": {"EventType": "HapticContinuous", "Time": 0.5\#(written), "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8}]}}, {"Event": {"EventType": "HapticTransient", "Time": 1}}"#))
            let e = try #require(loaded.pattern.events.first)
            let d = try #require(e.duration)
            #expect(e.time + d <= 86_400 && e.time + d > 86_399.9, "to the horizon: \(d)")
            #expect(loaded.pattern.events[1].duration == nil)
            #expect(loaded.warnings.count == 1 && loaded.warnings[0].message.contains("no fixed end sounds until stopped"), "\(loaded.warnings)")
            let compiled = CompiledPattern(loaded.pattern)
            for t in [0.6, 2.0, 60.0, 3600.0] {
                #expect(compiled.frame(at: t).intensity > 0.5, "sounding at \(t) s (written \(written))")
            }
            #expect(compiled.frame(at: 0.4).intensity == 0, "not before its time")
            let again = try AHAPLoader.load(json: AHAPWriter.json(loaded.pattern))
            #expect(again.pattern == loaded.pattern && again.warnings.isEmpty, "\(again.warnings)")
        }
        // A smaller horizon (the daemon's `limits.time_horizon`) keeps it to that one.
        let short = try mustLoad(doc(#"{"Event": {"EventType": "HapticContinuous", "Time": 10}}"#), limits: AHAPLimits(maximumPatternTime: 3600))
        #expect(short.pattern.duration <= 3600 && short.pattern.duration > 3599.9)
        // What the Core Haptics library sends (kept to the default horizon, written out) is still
        // "until stopped" to a daemon with a longer horizon: it was clamped to 30 s there.
        let week = 604_800.0
        let sent = AHAPWriter.json(try mustLoad(doc(#"{"Event": {"EventType": "HapticContinuous", "Time": 0.5}}"#)).pattern)
        let far = try AHAPLoader.load(json: sent, limits: AHAPLimits(maximumPatternTime: week))
        #expect(far.pattern.duration > week - 0.1, "kept to the daemon's horizon: \(far.pattern.duration)")
        // At the horizon itself there is nothing left to sound: no event of a day, no warning.
        let atEnd = try mustLoad(doc(#"{"Event": {"EventType": "HapticContinuous", "Time": 3600}}"#), limits: AHAPLimits(maximumPatternTime: 3600))
        #expect(atEnd.warnings.isEmpty && atEnd.pattern.duration == 3600, "\(atEnd.warnings)")
    }

    /// An element holding an Event and a ParameterCurve (puterman/HapticTest's test.ahap, which
    /// Core Haptics played on an iPhone) was refused; each is read as an element of its own, with a
    /// warning.
    @Test func anElementHoldingTwoKindsIsReadAsTwo() throws {
        let loaded = try mustLoad(doc(#"{"Event": {"EventType": "HapticContinuous", "EventDuration": 1}, "ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0.2}, {"Time": 1, "ParameterValue": 1}]}}"#))
        #expect(loaded.pattern.elements.count == 2)
        guard loaded.pattern.elements.count == 2,
              case .event(let e) = loaded.pattern.elements[0], case .curve(let c) = loaded.pattern.elements[1] else {
            Issue.record("an event and a curve: \(loaded.pattern.elements)")
            return
        }
        #expect(e.duration == 1 && c.controlPoints.count == 2)
        #expect(loaded.warnings == [AHAPDiagnostic(.warning, "Pattern[0]", "holds Event and ParameterCurve; an element holds one — each is read as an element of its own")])
    }

    @Test func warnsOnMissingPatternAndOtherVersions() throws {
        #expect(try mustLoad("{}").warnings == [.init(.warning, "Pattern", "missing: the pattern is empty")])
        // An element saved alone, not in a pattern: the message says why nothing plays.
        let fragment = try mustLoad(#"{"Event": {"EventType": "HapticTransient", "Time": 0}}"#)
        #expect(fragment.warnings == [.init(.warning, "Pattern", #"missing: the pattern is empty (its top-level Event is not read: an AHAP document holds its elements in a "Pattern" array)"#)])
        #expect(fragment.pattern.events.isEmpty)
        #expect(try mustLoad(#"{"Version": 2, "Pattern": []}"#).warnings == [.init(.warning, "Version", "version 2.0 is not 1.0; read as 1.0")])
    }

    @Test(arguments: [
        (#"{"Event": {"EventType": "HapticBuzz"}}"#, "Pattern[0].Event.EventType", "unknown event type \"HapticBuzz\" (known: HapticTransient, HapticContinuous, AudioContinuous, AudioCustom)"),
        (#"{"Event": {"Time": 0}}"#, "Pattern[0].Event", "missing EventType"),
        (#"{"Event": {"EventType": 3}}"#, "Pattern[0].Event.EventType", "expected a string, found a number"),
        (#"{"Event": {"EventType": "HapticTransient", "Time": "0.5"}}"#, "Pattern[0].Event.Time", "expected a number, found a string"),
        (#"{"Event": {"EventType": "HapticTransient", "Time": -0.5}}"#, "Pattern[0].Event.Time", "-0.5 is negative; times and durations must be ≥ 0"),
        (#"{"Event": {"EventType": "HapticTransient", "Time": NaN}}"#, "Pattern[0].Event.Time", "nan is not a finite number"),
        (#"{"Event": {"EventType": "HapticTransient", "Time": 1e999}}"#, "Pattern[0].Event.Time", "inf is not a finite number"),
        (#"{"Event": {"EventType": "HapticContinuous", "EventDuration": -1}}"#, "Pattern[0].Event.EventDuration", "-1.0 is negative; times and durations must be ≥ 0"),
        (#"{"Event": {"EventType": "HapticTransient", "EventParameters": {"ParameterID": "HapticIntensity"}}}"#, "Pattern[0].Event.EventParameters", "expected an array, found an object"),
        (#"{"Event": {"EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": "high"}]}}"#, "Pattern[0].Event.EventParameters[0].ParameterValue", "expected a number, found a string"),
        (#"{"Event": {"EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": Infinity}]}}"#, "Pattern[0].Event.EventParameters[0].ParameterValue", "inf is not a finite number"),
        (#"{"Event": {"EventType": "HapticTransient", "EventParameters": [{"ParameterValue": 1}]}}"#, "Pattern[0].Event.EventParameters[0]", "missing ParameterID"),
        (#"{"Event": {"EventType": "HapticTransient", "EventParameters": [7]}}"#, "Pattern[0].Event.EventParameters[0]", "expected an object, found a number"),
        (#"{"Event": {"EventType": "AudioCustom", "EventWaveformPath": 1}}"#, "Pattern[0].Event.EventWaveformPath", "expected a string, found a number"),
        (#"{"Event": {"EventType": "AudioCustom", "EventWaveformLoopEnabled": "yes"}}"#, "Pattern[0].Event.EventWaveformLoopEnabled", "expected a boolean, found a string"),
        (#"{"Parameter": {"ParameterValue": 1}}"#, "Pattern[0].Parameter", "missing ParameterID"),
        (#"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": -1}}"#, "Pattern[0].Parameter.Time", "-1.0 is negative; times and durations must be ≥ 0"),
        (#"{"Parameter": {"ParameterID": "HapticIntensityControl", "ParameterValue": NaN}}"#, "Pattern[0].Parameter.ParameterValue", "nan is not a finite number"),
        (#"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "ParameterCurveControlPoints": [{"Time": -0.1, "ParameterValue": 0}]}}"#, "Pattern[0].ParameterCurve.ParameterCurveControlPoints[0].Time", "-0.1 is negative; times and durations must be ≥ 0"),
        (#"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "ParameterCurveControlPoints": 5}}"#, "Pattern[0].ParameterCurve.ParameterCurveControlPoints", "expected an array, found a number"),
        ("[]", "Pattern[0]", "expected an object, found an array"),
    ])
    func rejects(element: String, path: String, message: String) {
        #expect(loadErrors(doc(element)) == [AHAPDiagnostic(.error, path, message)])
    }

    @Test func loadsCurvesOfAnyLengthUpToTheBound() throws {
        // Meta Haptics Studio exports carry 800+ points per curve; Apple documents no 16-point limit.
        let points = (0..<900).map { "{\"Time\": \(Double($0) * 0.01), \"ParameterValue\": \(Double($0 % 10) / 10)}" }.joined(separator: ",")
        let text = doc(event("HapticContinuous", duration: 9) + ", {\"ParameterCurve\": {\"ParameterID\": \"HapticIntensityControl\", \"ParameterCurveControlPoints\": [\(points)]}}")
        let loaded = try mustLoad(text)
        #expect(loaded.warnings.isEmpty)
        let curve = loaded.pattern.curves[0]
        #expect(curve.controlPoints.count == 900)
        #expect(abs(curve.value(atOffset: 1.235) - 0.35) < 1e-9, "between (1.23, 0.3) and (1.24, 0.4)")
        #expect(loadErrors(text, limits: .init(maximumCurveControlPoints: 899)) == [
            .init(.error, "Pattern[1].ParameterCurve.ParameterCurveControlPoints", "900 control points, over the limit of 899")
        ])
    }

    @Test func sortsControlPointsOutOfOrderKeepingEveryPointAtItsTime() throws {
        let text = doc(#"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0}, {"Time": 1, "ParameterValue": 1}, {"Time": 0.5, "ParameterValue": 0.2}, {"Time": 1, "ParameterValue": 0.4}, {"Time": 2, "ParameterValue": 0}]}}"#)
        let loaded = try mustLoad(text)
        #expect(loaded.pattern.curves[0].controlPoints == [.init(0, 0), .init(0.5, 0.2), .init(1, 1), .init(1, 0.4), .init(2, 0)])
        #expect(loaded.warnings.count == 1)
    }

    @Test func rejectsDocumentsOverTheLimits() {
        let text = doc(Array(repeating: event("HapticTransient"), count: 5).joined(separator: ","))
        #expect(loadErrors(text, limits: .init(maximumEvents: 4)) == [.init(.error, "Pattern", "5 events, over the limit of 4")])
        #expect(loadErrors(text, limits: .init(maximumFileBytes: 100)) == [
            .init(.error, "$", "the document is \(text.utf8.count) bytes, over the pattern file limit of 100 bytes")
        ])
        #expect(AHAPLimits.default.maximumFileBytes == 16 << 20)
        #expect(AHAPLimits.default.maximumPatternTime == 86_400)
    }

    @Test(arguments: [
        // The time horizon (AHAPLimits.maximumPatternTime): every time and end, named by path.
        (event("HapticTransient", time: 1e9), "Pattern[0].Event.Time", "1000000000.000 s is past the pattern time limit of 86400 s"),
        (event("HapticContinuous", time: 86_390, duration: 20), "Pattern[0].Event.EventDuration", "the event ends at 86410.000 s, past the pattern time limit of 86400 s"),
        (event("AudioContinuous", time: 86_399, duration: 2), "Pattern[0].Event.EventDuration", "the event ends at 86401.000 s, past the pattern time limit of 86400 s"),
        (#"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 86401, "ParameterValue": 1}}"#, "Pattern[0].Parameter.Time", "86401.000 s is past the pattern time limit of 86400 s"),
        (#"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 1e300, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}]}}"#, "Pattern[0].ParameterCurve.Time", "1e+300 s is past the pattern time limit of 86400 s"),
        (#"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 90000, "ParameterValue": 0}]}}"#, "Pattern[0].ParameterCurve.ParameterCurveControlPoints[1].Time", "90000.000 s is past the pattern time limit of 86400 s"),
        (#"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 50000, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 40000, "ParameterValue": 0}]}}"#, "Pattern[0].ParameterCurve.ParameterCurveControlPoints", "the curve ends at 90000.000 s, past the pattern time limit of 86400 s"),
    ])
    func rejectsTimesPastTheHorizon(element: String, path: String, message: String) {
        #expect(loadErrors(doc(element)) == [AHAPDiagnostic(.error, path, message)])
    }

    @Test func reportsMalformedJSONWithLineAndColumn() {
        #expect(loadErrors("{\n  \"Pattern\": [\n    {\"Event\" {}}\n  ]\n}") == [
            .init(.error, "$", "malformed JSON at line 3, column 14: expected ':' after the member name \"Event\", found '{'")
        ])
        #expect(loadErrors("[1]") == [.init(.error, "$", "expected an object at the top level, found an array")])
        #expect(loadErrors(#"{"Pattern": {}}"#) == [.init(.error, "Pattern", "expected an array, found an object")])
        #expect(loadErrors(#"{"Version": "1", "Pattern": []}"#) == [.init(.error, "Version", "expected a number, found a string")])
    }

    @Test func reportsEveryErrorOfADocumentAtOnce() {
        let errors = loadErrors(doc(#"{"Event": {"EventType": "Nope"}}, {"Event": {"EventType": "HapticTransient", "Time": -1}}"#))
        #expect(errors.map(\.path) == ["Pattern[0].Event.EventType", "Pattern[1].Event.Time"])
    }

    @Test func aTransientsDurationIsItsLogicalLengthNotItsPulse() throws {
        let padded = try mustLoad(#"{"Pattern": [{"Event": {"EventType": "HapticTransient", "EventDuration": 1}}]}"#)
        #expect(padded.warnings.isEmpty)
        #expect(padded.pattern.events[0].duration == 1)
        #expect(padded.pattern.duration == 1, "Apple: the pattern is padded out to the transient's duration")
        let plain = try mustLoad(#"{"Pattern": [{"Event": {"EventType": "HapticTransient"}}]}"#)
        #expect(plain.pattern.duration == 0)
        let (a, b) = (CompiledPattern(padded.pattern), CompiledPattern(plain.pattern))
        for t in stride(from: 0.0, through: 0.2, by: 0.005) {
            #expect(a.magnitudes(at: t) == b.magnitudes(at: t), "the same pulse at \(t) s")
        }
        #expect(!a.isSounding(at: 0.5) && a.duration == 1)
        #expect(try AHAPLoader.load(text: AHAPWriter.text(padded.pattern)).pattern == padded.pattern, "written back with it")
    }

    @Test func writesBackToAnEqualPattern() throws {
        for url in allSharedAHAPFiles() {
            let loaded = try AHAPLoader.load(bytes: Array(try Data(contentsOf: url)))
            let text = AHAPWriter.text(loaded.pattern)
            let again = try AHAPLoader.load(text: text)
            #expect(again.pattern == loaded.pattern, "\(url.lastPathComponent)")
            #expect(again.warnings.isEmpty, "a written pattern loads without warnings: \(url.lastPathComponent)")
        }
        var p = HapticPattern(metadata: JSONObject(["Project": .string("t")]))
        p.elements = [
            .event(.continuous(at: 0.25, duration: 1.5, intensity: 0.3, sharpness: 0.9, extra: [.init(.sustained, 0)])),
            .event(HapticEvent(type: .audioCustom, time: 1, duration: 0.1, waveformPath: "x.wav", waveformLoopEnabled: true)),
            .parameter(.init(.hapticReleaseTimeControl, -0.25, at: 1)),
            .curve(.init(.hapticIntensityControl, at: 0.1, points: [.init(0, 0), .init(0.3, 1)])),
        ]
        #expect(try AHAPLoader.load(text: AHAPWriter.text(p)).pattern == p)
    }

    /// Metadata is kept as written — except a number JSON cannot write (the parser reads Infinity,
    /// NaN and 1e400, which overflows), kept as the null the writer makes of it, with a warning: the
    /// pattern written back reads as the same pattern (found by the AHAP fuzzer).
    @Test func metadataNumbersOutOfRangeAreKeptAsNull() throws {
        let text = #"{"Metadata": {"a": Infinity, "b": [1e400, -1e999, 0.5], "c": {"d": NaN}, "e": 1}, "Pattern": []}"#
        let loaded = try AHAPLoader.load(text: text)
        #expect(loaded.pattern.metadata == JSONObject([
            "a": .null, "b": .array([.null, .null, .number(0.5)]), "c": .object(JSONObject(["d": .null])), "e": .number(1),
        ]))
        #expect(loaded.warnings.map(\.description).contains { $0.contains("Metadata") && $0.contains("null") }, "\(loaded.warnings)")
        #expect(try AHAPLoader.load(text: AHAPWriter.text(loaded.pattern)).pattern == loaded.pattern)
    }
}

import Foundation
