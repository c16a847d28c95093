import HapticCore
import HapticTools
import Testing

@Suite struct OfflineTests {
    let good = Offline.Loaded(file: "good.ahap", bytes: Array(#"{"Pattern": [{"Event": {"EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 2}]}}]}"#.utf8))
    let bad = Offline.Loaded(file: "bad.ahap", bytes: Array(#"{"Pattern": [{"Event": {"EventType": "Buzz", "Time": -1}}]}"#.utf8))

    @Test func validateExitsZeroWhenEverythingLoadsAndPrintsWarnings() {
        let report = Offline.validate([good])
        #expect(report.exitCode == 0)
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
    }

    @Test func infoCountsWhatThePatternHolds() throws {
        let text = #"{"Metadata": {"Description": "demo"}, "Pattern": [{"Event": {"EventType": "HapticTransient"}}, {"Event": {"EventType": "HapticContinuous", "EventDuration": 0.5}}, {"Event": {"EventType": "HapticTransient", "Time": 1}}, {"Parameter": {"ParameterID": "HapticIntensityControl", "ParameterValue": 0.5}}, {"ParameterCurve": {"ParameterID": "HapticSharpnessControl", "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0}, {"Time": 1.5, "ParameterValue": 1}]}}]}"#
        let loaded = try AHAPLoader.load(text: text)
        let lines = Offline.info(file: "demo.ahap", loaded)
        #expect(lines == [
            "File: demo.ahap", "Description: demo",
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
        let csv = Offline.csv(compiled, step: 0.004)
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

    @Test func svgShowsEventsSignalAndMotors() {
        let compiled = CompiledPattern(HapticPattern(elements: [
            .event(.transient(at: 0.1, intensity: 1, sharpness: 1)),
            .event(.continuous(at: 0.2, duration: 0.5, intensity: 0.5, sharpness: 0)),
            .curve(.init(.hapticIntensityControl, at: 0.2, points: [.init(0, 1), .init(0.5, 0)])),
        ]))
        let svg = SVGPlot.render(compiled, step: 0.01, title: "a <b>")
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.contains("a &lt;b&gt;"))
        for label in ["Events", "Signal", "Motors", "strong (low-frequency)", "weak (high-frequency)", "transient at 0.100 s", "continuous 0.200–0.700 s", "HapticIntensityControl curve"] {
            #expect(svg.contains(label), "\(label)")
        }
    }

    @Test func fixedFormatting() {
        #expect(Format.fixed(0.0005, 3) == "0.001")
        #expect(Format.fixed(-1.25, 1) == "-1.3")
        #expect(Format.fixed(-0.00001, 2) == "0.00")
        #expect(Format.fixed(12, 0) == "12")
    }
}
