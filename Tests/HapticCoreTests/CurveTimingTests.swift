import Foundation
import HapticCore
import Testing

/// Curve control-point timing decided once per file (docs/rendering.md §1, issue 12 §1).
@Suite struct CurveTimingTests {
    /// Breakpoints of an intensity and a sharpness envelope over 0…3 s, dense at the start (as Studio
    /// writes for an attack) and sparse after.
    static let intensity: [(Double, Double)] = (0..<40).map { i in
        let t = i < 20 ? Double(i) * 0.02 : 0.4 + Double(i - 20) * 0.13
        return (t, 0.5 + 0.5 * sin(Double(i) * 0.7) * (i % 3 == 0 ? 0.2 : 1))
    }
    static let sharpness: [(Double, Double)] = (0..<20).map { i in (Double(i) * 0.15, Double(i % 5) / 5) }

    /// An AHAP file shaped like Lofelt Studio's / Meta Haptics Studio's exporter
    /// (Lofelt/NiceVibrations core/datamodel/src/ios/v1.rs): `Version` 1, empty Metadata, one
    /// continuous event at intensity 1 / sharpness 0, curves of 16 points chained end to start, each
    /// curve's `Time` equal to its first point's, point times absolute; transients last.
    static func exporterStyle(absolute: Bool, metadata: String = #"{"Project": "", "Created": "", "Description": ""}"#) -> String {
        func curves(_ id: String, _ points: [(Double, Double)]) -> [String] {
            var out: [String] = []
            var i = 0
            while i < points.count - 1 {
                let chunk = Array(points[i..<min(i + 16, points.count)])
                let t0 = chunk[0].0
                let ps = chunk.map { "{\"Time\": \(absolute ? $0.0 : $0.0 - t0), \"ParameterValue\": \($0.1)}" }
                out.append("{\"ParameterCurve\": {\"ParameterID\": \"\(id)\", \"Time\": \(t0), \"ParameterCurveControlPoints\": [\(ps.joined(separator: ", "))]}}")
                i += 15
            }
            return out
        }
        let event = #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 3.0, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 0}]}}"#
        let transients = [0.4, 1.7].map { #"{"Event": {"Time": \#($0), "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.9}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.7}]}}"# }
        let elements = curves("HapticIntensityControl", intensity) + curves("HapticSharpnessControl", sharpness) + [event] + transients
        return "{\"Version\": 1, \"Metadata\": \(metadata), \"Pattern\": [\n" + elements.joined(separator: ",\n") + "\n]}"
    }

    static func frames(_ p: HapticPattern, step: Double = 0.001) -> [HapticSignal] {
        let c = CompiledPattern(p)
        return stride(from: 0.0, through: c.renderEnd + step, by: step).map { c.frame(at: $0) }
    }

    @Test func anExporterFileAndItsRelativeTwinRenderIdentically() throws {
        let exported = try mustLoad(Self.exporterStyle(absolute: true))
        let twin = try mustLoad(Self.exporterStyle(absolute: false))
        #expect(twin.warnings.isEmpty, "the relative twin is plain Apple AHAP")
        #expect(exported.pattern == twin.pattern)
        #expect(Self.frames(exported.pattern) == Self.frames(twin.pattern))
        // One warning, naming the convention and why.
        #expect(exported.warnings.count == 1)
        let w = try #require(exported.warnings.first)
        #expect(w.path == "Pattern")
        #expect(w.message.hasPrefix("ParameterCurve control-point times read as absolute pattern times (the convention of Lofelt and Meta Haptics Studio exports) for every curve of the file: all 3 curves that start after 0 begin their points at their own Time; 3 of them start exactly where the previous curve of their parameter ends"))
        // Apple's duration is the content's, not twice it.
        #expect(abs(exported.pattern.duration - 3.0) < 1e-9)
    }

    @Test func everyCurveOfTheFileIsReadTheSameWay() throws {
        // Read curve by curve, the early chunks would fit inside the 3 s event and stay relative while
        // the late ones overflow and read as absolute: one file, two conventions. Decided once per file.
        let loaded = try mustLoad(Self.exporterStyle(absolute: true))
        for curve in loaded.pattern.curves {
            #expect(curve.controlPoints[0].time == 0, "every curve starts its points at its own start")
        }
        // The intensity envelope is followed exactly: at 0.45 s (between 0.4 and 0.53) the control
        // interpolates the written breakpoints.
        let c = CompiledPattern(loaded.pattern)
        let a = Self.intensity[20], b = Self.intensity[21]
        let expected = a.1 + (b.1 - a.1) * (0.45 - a.0) / (b.0 - a.0)
        #expect(abs(c.controls.intensity.value(at: 0.45) - expected) < 1e-12)
    }

    @Test func mixedEvidenceKeepsTheRelativeReading() throws {
        // Two curves begin at their own Time (absolute-looking) but a third has a point before its
        // Time, which only the relative reading allows: the one reading that fits every curve is
        // Apple's, and the file is read so without a warning (Apple's own Jump.ahap is such a file).
        let text = doc([
            event("HapticContinuous", duration: 10),
            #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 1, "ParameterCurveControlPoints": [{"Time": 1, "ParameterValue": 0.5}, {"Time": 2, "ParameterValue": 1}]}}"#,
            #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 4, "ParameterCurveControlPoints": [{"Time": 4, "ParameterValue": 1}, {"Time": 5, "ParameterValue": 0.2}]}}"#,
            #"{"ParameterCurve": {"ParameterID": "HapticSharpnessControl", "Time": 2, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0.1}, {"Time": 1, "ParameterValue": 0.3}]}}"#,
        ].joined(separator: ","))
        let loaded = try mustLoad(text)
        #expect(loaded.pattern.curves.map(\.controlPoints[0].time) == [1, 4, 0], "points kept as written: relative")
        #expect(loaded.warnings.isEmpty)
        // The same file without the contradicting curve is read absolute (two anchored curves).
        let anchoredOnly = try mustLoad(doc([
            event("HapticContinuous", duration: 10),
            #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 1, "ParameterCurveControlPoints": [{"Time": 1, "ParameterValue": 0.5}, {"Time": 2, "ParameterValue": 1}]}}"#,
            #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 4, "ParameterCurveControlPoints": [{"Time": 4, "ParameterValue": 1}, {"Time": 5, "ParameterValue": 0.2}]}}"#,
        ].joined(separator: ",")))
        #expect(anchoredOnly.pattern.curves.map(\.controlPoints[0].time) == [0, 0])
        #expect(anchoredOnly.warnings.count == 1)
    }

    @Test func oneUnconfirmedCurveIsAmbiguousAndStaysRelative() throws {
        let curve = #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0.5, "ParameterCurveControlPoints": [{"Time": 0.5, "ParameterValue": 1}, {"Time": 1.0, "ParameterValue": 0}]}}"#
        let loaded = try mustLoad(doc(event("HapticContinuous", duration: 2) + "," + curve))
        #expect(loaded.pattern.curves[0].controlPoints == [.init(0.5, 1), .init(1.0, 0)])
        #expect(loaded.warnings == [.init(
            .warning, "Pattern[1].ParameterCurve.ParameterCurveControlPoints",
            "the first control point sits at the curve's own Time (0.5 s), which could mean absolute times, but nothing else in the file confirms it; read relative to the curve's start, as Apple documents")])
    }

    @Test(arguments: [
        // (event duration, metadata, expected absolute) — one curve at 0.5 s whose points start at 0.5 s.
        (1.0, "{}", true),  // read relative it would end at 1.5 s, past the event's end at 1.0 s
        (2.0, #"{"Project": "Made with Lofelt Studio"}"#, true),  // the exporter is named
        (2.0, #"{"Description": "A heartbeat"}"#, false),  // nothing confirms: Apple's reading
    ])
    func oneAnchoredCurveIsReadAbsoluteOnlyWhenConfirmed(duration: Double, metadata: String, absolute: Bool) throws {
        let curve = #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0.5, "ParameterCurveControlPoints": [{"Time": 0.5, "ParameterValue": 1}, {"Time": 1.0, "ParameterValue": 0}]}}"#
        let text = "{\"Metadata\": \(metadata), \"Pattern\": [\(event("HapticContinuous", duration: duration)), \(curve)]}"
        let loaded = try mustLoad(text)
        #expect(loaded.pattern.curves[0].controlPoints == (absolute ? [.init(0, 1), .init(0.5, 0)] : [.init(0.5, 1), .init(1.0, 0)]))
        #expect(loaded.warnings.count == 1)
    }

    @Test func curvesThatStartAtZeroTellNothing() throws {
        // An 800-point curve at Time 0 (Meta Haptics Studio writes such) reads the same both ways.
        let points = (0..<800).map { "{\"Time\": \(Double($0) * 0.005), \"ParameterValue\": \(Double($0 % 7) / 7)}" }.joined(separator: ",")
        let loaded = try mustLoad(doc(event("HapticContinuous", duration: 4) + ", {\"ParameterCurve\": {\"ParameterID\": \"HapticIntensityControl\", \"Time\": 0, \"ParameterCurveControlPoints\": [\(points)]}}"))
        #expect(loaded.warnings.isEmpty)
        #expect(loaded.pattern.curves[0].controlPoints.count == 800)
    }
}
