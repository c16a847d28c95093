import HapticCore
import HapticTools
import Testing

@Suite struct OfflineTests {
    let good = Offline.Loaded(file: "good.ahap", bytes: Array(#"{"Pattern": [{"Event": {"EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 2}]}}]}"#.utf8))
    let bad = Offline.Loaded(file: "bad.ahap", bytes: Array(#"{"Pattern": [{"Event": {"EventType": "Buzz", "Time": -1}}]}"#.utf8))

    @Test func validateExitsZeroWhenEverythingLoadsAndPrintsWarnings() {
        let report = Offline.validate([good])
        #expect(report.exitCode == 0)
        #expect(report.summary == "1 loaded, 1 with warnings, 0 rejected")
        #expect(report.errorLines.isEmpty)
        #expect(report.warningLines == ["good.ahap: Pattern[0].Event.EventParameters[0].ParameterValue: warning: 2.0 clamped to 1.0"])
    }

    @Test func validatePrintsOneLinePerProblem() {
        let report = Offline.validate([good, bad, .unreadable("missing.ahap", reason: "no such file")])
        #expect(report.exitCode != 0)
        #expect(report.errorLines == [
            "bad.ahap: Pattern[0].Event.EventType: unknown event type \"Buzz\" (known: HapticTransient, HapticContinuous, AudioContinuous, AudioCustom)",
            "bad.ahap: Pattern[0].Event.Time: -1.0 is negative; times and durations must be ≥ 0",
            "missing.ahap: $: cannot read the file: no such file",
        ])
        #expect(report.summary == "1 loaded, 1 with warnings, 2 rejected")
    }

    @Test func aFileLoadsAsItsContentSays() {
        let clip = Offline.Loaded(file: "clip.ahap", bytes: Array(#"{"version": {"major": 1, "minor": 0, "patch": 0}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 1}, {"time": 1, "amplitude": 0}]}}}}"#.utf8))
        guard case .success(let loaded) = clip.result else { Issue.record("the clip should load"); return }
        #expect(loaded.format == .haptic)
        #expect(clip.warnings == [.init(.warning, "$", "the file is named .ahap but holds .haptic (Meta Haptics Studio / Lofelt); read as its content says")])
    }

    @Test func infoCountsWhatThePatternHolds() throws {
        let text = #"{"Metadata": {"Description": "demo"}, "Pattern": [{"Event": {"EventType": "HapticTransient"}}, {"Event": {"EventType": "HapticContinuous", "EventDuration": 0.5}}, {"Event": {"EventType": "HapticTransient", "Time": 1}}, {"Parameter": {"ParameterID": "HapticIntensityControl", "ParameterValue": 0.5}}, {"ParameterCurve": {"ParameterID": "HapticSharpnessControl", "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0}, {"Time": 1.5, "ParameterValue": 1}]}}]}"#
        let loaded = try AHAPLoader.load(text: text)
        let lines = Offline.info(file: "demo.ahap", loaded)
        #expect(lines == [
            "File: demo.ahap", "Format: AHAP", "Description: demo",
            "Duration: 1.500 s (output silent by 1.500 s on the generic profile)",
            "Events: 3", "  HapticTransient: 2", "  HapticContinuous: 1",
            "Parameters: 1", "  HapticIntensityControl: 1",
            "Curves: 1", "  HapticSharpnessControl: 1 (2 control points)",
            "Warnings: 0",
        ])
    }

    @Test func csvHasTheExactHeaderAndOneRowPerStepThroughTheTail() throws {
        let pattern = HapticPattern(elements: [
            .event(.continuous(at: 0, duration: 0.1, intensity: 1, sharpness: 0, extra: [.init(.releaseTime, 0.25)]))
        ])
        let compiled = CompiledPattern(pattern)
        let csv = try Offline.csv(compiled, step: 0.004)
        let rows = csv.split(separator: "\n").map(String.init)
        #expect(rows[0] == "time,intensity,sharpness,strong,weak")
        #expect(rows[1] == "0.000000,1.000000,0.000000,65535,0")
        // 0.1 s + release 0.0641 s = 0.1641 s → rows at 0 … 0.168 (43 samples).
        #expect(rows.count == 1 + 43)
        #expect(rows.last == "0.168000,0.000000,0.000000,0,0")
        // The middle of the release: intensity halves.
        let mid = rows.first { $0.hasPrefix("0.132000,") }!
        let intensity = Double(mid.split(separator: ",")[1])!
        #expect(abs(intensity - (1 - 0.032 / 0.0641172065601700)) < 1e-6)
    }

    /// A render for a one-motor pad (a Joy-Con through hid-nintendo) shows what its default locality
    /// plays: everything on the motor it has, at the intensity — not a two-motor crossfade.
    @Test func aOneMotorProfileRendersOnItsOneMotor() throws {
        let pattern = HapticPattern(elements: [.event(.continuous(at: 0, duration: 0.1, intensity: 1, sharpness: 1))])
        for (profile, column) in [(DeviceProfile.joyConLeftBluetooth, 3), (.joyConRightBluetooth, 4)] {
            let rows = try Offline.csv(CompiledPattern(pattern, profile: profile), step: 0.01).split(separator: "\n")
            let first = rows[1].split(separator: ",")
            #expect(first[column] == "65535" && first[7 - column] == "0", "\(profile.name): \(rows[1])")
        }
    }

    @Test func csvStreamsAWindowInPieces() throws {
        let compiled = CompiledPattern(HapticPattern(elements: [.event(.continuous(at: 0, duration: 30, intensity: 0.5, sharpness: 0))]))
        var pieces: [String] = []
        try Offline.csv(compiled, .init(from: 10, to: 20, step: 0.001)) { pieces.append($0) }
        #expect(pieces.count > 3, "written as it goes, not held whole")
        #expect(pieces.allSatisfy { $0.utf8.count < 70_000 })
        let rows = pieces.joined().split(separator: "\n")
        #expect(rows.count == 1 + 10_001)
        #expect(rows[1].hasPrefix("10.000000,0.500000,"))
        #expect(rows.last!.hasPrefix("20.000000,"))
    }

    @Test func aRenderPastTheSampleBoundIsRefusedWithAWayOut() throws {
        // Issue 8: an event at the horizon's edge must not make render allocate without bound.
        let far = try AHAPLoader.load(text: #"{"Pattern": [{"Event": {"EventType": "HapticTransient", "Time": 86000}}]}"#)
        let compiled = CompiledPattern(far.pattern)
        var written = 0
        #expect(throws: Offline.RenderError("rendering 0.000–86000.080 s every 0.004 s takes 21500021 samples, over the limit of 10000000: choose a window with --from/--to, a larger --step, or raise --max-samples")) {
            try Offline.csv(compiled, .init(step: 0.004)) { written += $0.count }
        }
        #expect(written == 0, "nothing is written before the refusal")
        // A window around the event renders it.
        var text = ""
        try Offline.csv(compiled, .init(from: 85_999.9, to: 86_000.2, step: 0.01)) { text += $0 }
        #expect(text.contains("\n86000.000000,1.000000,"))
        // Saturating arithmetic on absurd windows.
        #expect(Offline.Window(from: 0, to: .greatestFiniteMagnitude, step: 1e-300).sampleCount(compiled) == Int.max)
    }

    @Test func hugeAndNonFiniteNumbersNeverTrap() throws {
        // Patterns built in code are not bound by the loader's horizon: every tool must still cope.
        let huge = HapticPattern(elements: [
            .event(HapticEvent(type: .hapticContinuous, time: 0, duration: 1e300, envelope: EventEnvelope(intensity: [.init(0, 1), .init(1e300, 0)]))),
            .event(.transient(at: 1e300)),
            .curve(ParameterCurve(.hapticIntensityControl, at: 1e300, points: [.init(0, 1), .init(.greatestFiniteMagnitude, 0)])),
        ])
        let compiled = CompiledPattern(huge)
        _ = compiled.frame(at: 1e300)
        _ = compiled.frame(at: .nan)
        _ = compiled.frame(at: .infinity)
        _ = AHAPWriter.convert(huge)
        #expect(throws: AHAPLoadError.self) { try HapticClipWriter.convert(huge) }
        #expect(throws: Offline.RenderError.self) { try Offline.csv(compiled, .init(step: 0.004)) { _ in } }
        #expect(throws: Offline.RenderError.self) { try SVGPlot.render(compiled, .init(title: "huge", window: .init(step: 0.004))) }
        // A window far out renders.
        let svg = try SVGPlot.render(compiled, .init(title: "far", window: .init(from: 1e300, to: 1e300 + 1e285, step: 1e284)))
        #expect(svg.hasSuffix("</svg>\n"))
    }

    @Test func convertStatesWhatIsLost() throws {
        let text = #"{"Pattern": [{"Event": {"EventType": "HapticContinuous", "EventDuration": 0.5, "EventParameters": [{"ParameterID": "AttackTime", "ParameterValue": 0.4}]}}, {"Event": {"EventType": "AudioCustom", "EventWaveformPath": "a.wav"}}]}"#
        let loaded = try AHAPLoader.load(text: text)
        let (haptic, warnings) = try Offline.convert(loaded.pattern, to: .haptic)
        #expect(warnings.map(\.message).contains("1 audio event(s) dropped: a .haptic clip holds haptics only"))
        #expect(warnings.contains { $0.message.hasPrefix(".haptic has no attack, decay and release envelopes") })
        #expect(try PatternLoader.load(text: haptic).format == .haptic)
        let (ahap, none) = try Offline.convert(loaded.pattern, to: .ahap)
        #expect(none.isEmpty)
        #expect(try AHAPLoader.load(text: ahap).pattern == loaded.pattern)
    }

    @Test func fixedFormatting() {
        #expect(Format.fixed(0.0005, 3) == "0.001")
        #expect(Format.fixed(-1.25, 1) == "-1.3")
        #expect(Format.fixed(-0.00001, 2) == "0.00")
        #expect(Format.fixed(12, 0) == "12")
    }
}
